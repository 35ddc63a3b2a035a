//! Validation rules through the real binary: yttcheck's extension rules (each
//! with a passing and a failing value), every `format=`, the `assert.*`
//! functions behind them, and misused rules failing as ytt fails them.

use std::path::Path;

use assert_cmd::Command;

fn inspect(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::cargo_bin("yttcheck")
        .unwrap()
        .current_dir(dir)
        .arg("inspect")
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).to_string(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

/// A schema `foo: <default>` under `#@schema/validation <rule>`: the default
/// must pass, `bad` (given with --data-value-yaml) must fail with exactly
/// `must_be` / `found`.
fn rule(rule: &str, default: &str, bad: &str, must_be: &str, found: &str) {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(
        d.path().join("schema.yml"),
        format!("#@data/values-schema\n---\n#@schema/validation {rule}\nfoo: {default}\n"),
    )
    .unwrap();
    let (code, _, err) = inspect(d.path(), &["-f", "schema.yml"]);
    assert_eq!(code, 0, "{rule}: default {default} should pass: {err}");
    let (code, _, err) = inspect(
        d.path(),
        &[
            "-f",
            "schema.yml",
            "--data-value-yaml",
            &format!("foo={bad}"),
        ],
    );
    assert_eq!(code, 1, "{rule}: {bad} should fail");
    assert_eq!(
        err,
        format!(
            "yttcheck: Error: Validating final data values:\n  foo\n    from: (data-value-yaml arg):1\n    - must be: {must_be} (by: schema.yml:3)\n      found: {found}\n\n\n"
        ),
        "{rule}"
    );
}

#[test]
fn len() {
    rule("len=3", "abc", "ab", "length == 3", "length = 2");
    // an array defaults to [] in a schema
    rule("len=0", "[1]", "[1, 2, 3]", "length == 0", "length = 3");
}

#[test]
fn starts_with_ends_with_contains() {
    rule(
        r#"starts_with="ab""#,
        "abc",
        "xbc",
        r#"a value starting with "ab""#,
        r#"value does not start with "ab""#,
    );
    rule(
        r#"ends_with="bc""#,
        "abc",
        "abx",
        r#"a value ending with "bc""#,
        r#"value does not end with "bc""#,
    );
    rule(
        r#"contains="b""#,
        "abc",
        "axc",
        r#"a value containing "b""#,
        r#"value does not contain "b""#,
    );
}

#[test]
fn matches() {
    rule(
        r#"matches="^[a-z]+$""#,
        "abc",
        "A1",
        "a value matching /^[a-z]+$/",
        "value does not match /^[a-z]+$/",
    );
}

#[test]
fn even_odd_multiple_of() {
    rule("even=True", "2", "3", "an even number", "value is odd");
    rule("odd=True", "3", "2", "an odd number", "value is even");
    rule(
        "multiple_of=5",
        "10",
        "12",
        "a multiple of 5",
        "value is not a multiple of 5",
    );
    rule(
        "multiple_of=0.5",
        "1.5",
        "1.2",
        "a multiple of 0.5",
        "value is not a multiple of 0.5",
    );
}

#[test]
fn every_format() {
    let cases: &[(&str, &str, &str)] = &[
        ("hostname", "my-host.example.com", "-bad-.com"),
        ("ip", "10.0.0.1", "10.0.0.256"),
        ("ipv4", "192.168.1.1", "'::1'"),
        ("ipv6", "'fe80::1'", "10.0.0.1"),
        ("email", "ops@example.com", "ops.example.com"),
        ("uri", "https://example.com/x?y=1", "not a uri"),
        ("date-time", "2024-02-29T12:30:00Z", "2023-02-29T12:30:00Z"),
        ("date", "'2024-01-31'", "'2024-13-01'"),
        ("time", "'23:59:59.5+02:00'", "'25:00:00Z'"),
        ("port", "8443", "70000"),
        ("percent", "42.5%", "142%"),
        ("duration", "1h30m", "1x"),
        ("quantity", "500Mi", "5 Gi"),
    ];
    for (format, good, bad) in cases {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(
            d.path().join("schema.yml"),
            format!("#@data/values-schema\n---\n#@schema/validation format=\"{format}\"\n#@schema/type any=True\nfoo: {good}\n"),
        )
        .unwrap();
        let (code, _, err) = inspect(d.path(), &["-f", "schema.yml"]);
        assert_eq!(code, 0, "{format}: {good} should pass: {err}");
        std::fs::write(d.path().join("bad.yml"), format!("foo: {bad}\n")).unwrap();
        let (code, _, err) = inspect(
            d.path(),
            &["-f", "schema.yml", "--data-values-file", "bad.yml"],
        );
        assert_eq!(code, 1, "{format}: {bad} should fail");
        assert!(err.contains("found: not "), "{format}: {err}");
    }
}

#[test]
fn extension_rules_exist_as_assert_functions() {
    let d = tempfile::tempdir().unwrap();
    let checks = [
        ("assert.len(3)", "\"abc\"", "\"ab\""),
        ("assert.format(\"ipv4\")", "\"1.2.3.4\"", "\"1.2.3\""),
        ("assert.starts_with(\"a\")", "\"ab\"", "\"ba\""),
        ("assert.ends_with(\"b\")", "\"ab\"", "\"ba\""),
        ("assert.contains(\"b\")", "\"abc\"", "\"ac\""),
        ("assert.matches(\"^a\")", "\"ab\"", "\"ba\""),
        ("assert.even()", "2", "3"),
        ("assert.odd()", "3", "2"),
        ("assert.multiple_of(3)", "9", "10"),
    ];
    for (function, good, bad) in checks {
        std::fs::write(
            d.path().join("values.yml"),
            format!("#@ load(\"@ytt:assert\", \"assert\")\n#@data/values\n---\nok: #@ {function}.check({good})\n"),
        )
        .unwrap();
        let (code, _, err) = inspect(d.path(), &["-f", "values.yml"]);
        assert_eq!(code, 0, "{function}({good}): {err}");
        std::fs::write(
            d.path().join("values.yml"),
            format!("#@ load(\"@ytt:assert\", \"assert\")\n#@data/values\n---\nbad: #@ {function}.check({bad})\n"),
        )
        .unwrap();
        let (code, _, err) = inspect(d.path(), &["-f", "values.yml"]);
        assert_eq!(code, 1, "{function}({bad}) should fail");
        assert!(err.contains("- fail: "), "{function}: {err}");
        assert!(err.contains("values.yml:4"), "{function}: {err}");
    }
}

/// `#@schema/validation <rule>` on `foo: 1`: fails with exactly `expected`.
fn misuse(annotation: &str, expected: &str) {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(
        d.path().join("schema.yml"),
        format!("#@data/values-schema\n---\n#@schema/validation {annotation}\nfoo: 1\n"),
    )
    .unwrap();
    let (code, _, err) = inspect(d.path(), &["-f", "schema.yml"]);
    assert_eq!(code, 1, "{annotation}");
    assert_eq!(err, expected, "{annotation}");
}

#[test]
fn misused_rules_fail_as_in_ytt() {
    misuse(
        "bogus=1",
        "yttcheck: Error: Overlaying data values schema (in following order: schema.yml):\n  Invalid @schema/validation annotation - unknown keyword argument \"bogus\" (at schema.yml:3)\n",
    );
    misuse(
        "one_of=3",
        "yttcheck: Error: Overlaying data values schema (in following order: schema.yml):\n  Invalid @schema/validation annotation - expected keyword argument one_of to be a sequence, but was int\n",
    );
    misuse(
        r#"min="x""#,
        "yttcheck: Error: Validating final data values:\n  foo\n    from: schema.yml:4\n    - must be: a value >= \"x\" (by: schema.yml:3)\n      found: int >= string not implemented\n\n\n",
    );
    misuse(
        r#"("a",)"#,
        "yttcheck: Error: Overlaying data values schema (in following order: schema.yml):\n  Invalid @schema/validation annotation - expected 2-tuple, but found tuple with length 1 (by schema.yml:3)\n",
    );
    misuse(
        r#""just a string""#,
        "yttcheck: Error: Overlaying data values schema (in following order: schema.yml):\n  Invalid @schema/validation annotation - expected annotation to have 2-tuple as argument(s), but found: \"just a string\" (by schema.yml:3)\n",
    );
    misuse(
        r#"("a", 5)"#,
        "yttcheck: Error: Overlaying data values schema (in following order: schema.yml):\n  Invalid @schema/validation annotation - expected second item in the 2-tuple to be an assertion function, but was int (at schema.yml:3)\n",
    );
    misuse(
        r#"("a", lambda v: True), when=lambda a, b, c: True"#,
        "yttcheck: Error: Validating final data values:\nValidating foo: Failed to evaluate when=: function must accept 1 or 2 arguments (3 given)\n",
    );
    misuse(
        r#"("a", lambda v: True), when=lambda v: 1"#,
        "yttcheck: Error: Validating final data values:\nValidating foo: want when= to be bool, got int\n",
    );
    misuse(
        r#"("a number below one", lambda v: 1 / 0)"#,
        "yttcheck: Error: Validating final data values:\n  foo\n    from: schema.yml:4\n    - must be: a number below one (by: schema.yml:3)\n      found: real division by zero\n\n\n",
    );
}

#[test]
fn validation_defaults_for_strings() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(
        d.path().join("schema.yml"),
        r#"#@data/values-schema
#@schema/validation-defaults-for-strings min_len=1
---
namespace: ""
#@schema/validation min_len=0
description: ""
replicas: 1
db:
  #@schema/validation-defaults-for-strings max_len=3
  host: ""
  user: ok
"#,
    )
    .unwrap();
    // a schema overlay from another file does not inherit the default
    std::fs::write(
        d.path().join("more.yml"),
        "#@ load(\"@ytt:overlay\", \"overlay\")\n#@data/values-schema\n---\n#@overlay/match missing_ok=True\nextra: \"\"\n",
    )
    .unwrap();
    let (code, _, err) = inspect(
        d.path(),
        &[
            "-f",
            "schema.yml",
            "-f",
            "more.yml",
            "-v",
            "db.host=abcd",
            "-v",
            "db.user=",
        ],
    );
    assert_eq!(code, 1);
    assert_eq!(
        err,
        "yttcheck: Error: Validating final data values:
  namespace
    from: schema.yml:4
    - must be: length >= 1 (by: schema.yml:2)
      found: length = 0

  db.host
    from: (data-value arg):1
    - must be: length <= 3 (by: schema.yml:9)
      found: length = 4

  db.user
    from: (data-value arg):1
    - must be: length >= 1 (by: schema.yml:2)
      found: length = 0


"
    );
}

#[test]
fn named_rules_take_a_description() {
    rule(
        r#"min_len=("a non-empty name", 1)"#,
        "x",
        "\"\"",
        "a non-empty name",
        "length = 0",
    );
    rule(
        r#"format=("the proxy's host name", "hostname")"#,
        "proxy.local",
        "-x-",
        "the proxy's host name",
        "not a hostname (RFC 1123)",
    );
    // a plain two-choice tuple keeps its ytt meaning
    rule(
        r#"one_of=("a", "b")"#,
        "a",
        "c",
        r#"one of ("a", "b")"#,
        "not one of allowed values",
    );
}

#[test]
fn a_rule_made_once_for_an_argument_value_is_not_another_values() {
    // one check run, libraries whose rules share assertions: a check made
    // for `min=1` is shared by equal arguments, never by `min=5`, `min=1.5`
    // or `one_of=[1]`
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    let libs = [
        ("a", "min=1", "0", "value < 1"),
        ("b", "min=5", "3", "value < 5"),
        ("c", "min=1.5", "0.5", "value < 1.5"),
        ("d", "min=1", "-1", "value < 1"),
        ("e", "one_of=[1]", "2", "not one of allowed values"),
        ("f", "one_of=(1, 2)", "3", "not one of allowed values"),
        ("g", "one_of=[\"1\"]", "1", "not one of allowed values"),
    ];
    for (name, rule, bad, _) in libs {
        super::common::write(
            p,
            &format!("libs/{name}/schema.yml"),
            format!("#@data/values-schema\n---\n#@schema/validation {rule}\n#@schema/type any=True\ncount: 1\n"),
        );
        super::common::write(
            p,
            &format!("envs/prod/{name}.yml"),
            format!("count: {bad}\n"),
        );
    }
    let (code, json) = super::common::check_json(p, &[]);
    assert_eq!(code, 1);
    let findings = json["findings"].as_array().unwrap();
    for (name, rule, _, found) in libs {
        let f = findings
            .iter()
            .find(|f| f["library"] == name)
            .unwrap_or_else(|| panic!("{name}: {json:#}"));
        let message = f["message"].to_string();
        assert!(
            message.contains(&format!("(found: {found})")),
            "{name} ({rule}): {message}"
        );
    }
    // and a value that passes one of them passes
    super::common::write(p, "envs/prod/b.yml", "count: 7\n");
    let (_, json) = super::common::check_json(p, &[]);
    let findings = json["findings"].as_array().unwrap();
    assert!(!findings.iter().any(|f| f["library"] == "b"), "{json:#}");
}

/// Lengths are go-starlark's: a string's bytes of UTF-8 (`héé` is 5 long),
/// in `len()`, `min_len`/`max_len` (ytt's) and `len=` (yttcheck's).
#[test]
fn string_lengths_count_bytes_as_go_starlark() {
    rule("max_len=3", "\"abc\"", "héé", "length <= 3", "length = 5");
    rule("min_len=3", "\"é€\"", "é", "length >= 3", "length = 2");
    let d = tempfile::tempdir().unwrap();
    std::fs::write(
        d.path().join("t.yml"),
        "---\na: #@ len(\"héé\")\nb: #@ len(\"€\")\nc: #@ len([1, 2])\n",
    )
    .unwrap();
    let out = Command::cargo_bin("yttcheck")
        .unwrap()
        .current_dir(d.path())
        .args(["render", "-f", "t.yml"])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "a: 5\nb: 3\nc: 2\n");
}

/// Shifts are go-starlark's: a count of 512 or more, or a negative one, is
/// an error (not a big int, and not an error only when the value is used).
#[test]
fn shifts_are_bounded_as_in_go_starlark() {
    let d = tempfile::tempdir().unwrap();
    for (expr, error) in [
        ("1 << 100000", "shift count too large: 100000"),
        ("1 << -1", "negative shift count: -1"),
        ("8 >> 512", "shift count too large: 512"),
    ] {
        std::fs::write(
            d.path().join("t.yml"),
            format!("#@ x = {expr}\n---\na: 1\n"),
        )
        .unwrap();
        let out = Command::cargo_bin("yttcheck")
            .unwrap()
            .current_dir(d.path())
            .args(["render", "-f", "t.yml"])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(&format!("- {error}\n")), "{expr}: {err}");
    }
    std::fs::write(
        d.path().join("t.yml"),
        "---\na: #@ 3 << 4\nb: #@ 256 >> 2\n",
    )
    .unwrap();
    let out = Command::cargo_bin("yttcheck")
        .unwrap()
        .current_dir(d.path())
        .args(["render", "-f", "t.yml"])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "a: 48\nb: 64\n");
}
