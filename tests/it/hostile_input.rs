//! Broken and hostile input: every case must end in an error that names the
//! file and line, with exit status 1 — never a panic, a crash or a hang.

use std::path::Path;
use std::time::Duration;

use assert_cmd::Command;

use super::common::write;

/// Runs `yttcheck inspect ARGS` in `dir` and returns stderr, asserting a
/// clean failure (exit 1, no panic) within the time limit.
fn fails(dir: &Path, args: &[&str]) -> String {
    let out = Command::cargo_bin("yttcheck")
        .expect("binary")
        .current_dir(dir)
        .arg("inspect")
        .args(args)
        .timeout(Duration::from_secs(60))
        .output()
        .expect("ran");
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(
        out.status.code(),
        Some(1),
        "expected exit 1, got {:?}; stderr:\n{stderr}",
        out.status
    );
    assert!(!stderr.contains("panicked"), "panic:\n{stderr}");
    assert!(stderr.starts_with("yttcheck: Error: "), "stderr:\n{stderr}");
    stderr
}

fn assert_has(stderr: &str, needles: &[&str]) {
    for n in needles {
        assert!(stderr.contains(n), "expected {n:?} in:\n{stderr}");
    }
}

#[test]
fn malformed_yaml_names_file_and_line() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "values.yml",
        "#@data/values\n---\na: [1, 2\nb: 3\n",
    );
    let err = fails(d.path(), &["-f", "values.yml"]);
    assert_has(&err, &["'values.yml'", "yaml: line 4:"]);

    write(d.path(), "plain.yml", "a: {b: 1\n");
    let err = fails(d.path(), &["--data-values-file", "plain.yml"]);
    assert_has(&err, &["'plain.yml'", "yaml: line"]);
}

#[test]
fn unknown_annotations_are_ignored_as_ytt_ignores_them() {
    // ytt keeps and ignores annotations it does not know, even in its own
    // namespaces (real packages carry `@schema/example` and
    // `@overlay/missing-child-defaults`); `inspect` must print what ytt prints
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "schema.yml",
        "#@data/values-schema\n---\n#@schema/nulable\n#@schema/example \"x\"\nport: 8080\n",
    );
    write(
        d.path(),
        "values.yml",
        "#@data/values\n#@overlay/missing-child-defaults\n---\nport: 9090\n",
    );
    let out = Command::cargo_bin("yttcheck")
        .unwrap()
        .current_dir(d.path())
        .args(["inspect", "-f", "schema.yml", "-f", "values.yml"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "port: 9090\n");
    assert!(out.stderr.is_empty(), "{out:?}");
}

#[test]
fn starlark_syntax_error_points_at_the_template() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "values.yml",
        "#@ x = (1,\n#@data/values\n---\na: 1\n",
    );
    let err = fails(d.path(), &["-f", "values.yml"]);
    assert_has(&err, &["values.yml:3"]);
    assert!(!err.contains("__ytt"), "generated names leak:\n{err}");
}

#[test]
fn starlark_runtime_error_points_at_the_template() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "values.yml",
        "#@data/values\n---\na: 1\nb: #@ 1 + \"x\"\n",
    );
    let err = fails(d.path(), &["-f", "values.yml"]);
    assert_has(&err, &["values.yml:4 | b: #@ 1 + \"x\"", "not supported"]);
}

#[test]
fn missing_load_target() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "values.yml",
        "#@ load(\"helpers.star\", \"x\")\n#@data/values\n---\na: 1\n",
    );
    let err = fails(d.path(), &["-f", "values.yml"]);
    assert_has(
        &err,
        &["values.yml:1", "Expected to find file 'helpers.star'"],
    );
}

#[test]
fn load_cannot_leave_the_library() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "outside.star", "x = 1\n");
    write(
        d.path(),
        "config/values.yml",
        "#@ load(\"../outside.star\", \"x\")\n#@data/values\n---\na: #@ x\n",
    );
    let err = fails(d.path(), &["-f", "config"]);
    assert_has(&err, &["values.yml:1", "cannot go up with '..'"]);
}

#[test]
fn alias_bomb_is_refused() {
    let d = tempfile::tempdir().unwrap();
    let mut text = String::from("a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
    for i in 1..10 {
        let p = i - 1;
        text.push_str(&format!(
            "a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n"
        ));
    }
    write(d.path(), "bomb.yml", &text);
    let err = fails(d.path(), &["--data-values-file", "bomb.yml"]);
    assert_has(&err, &["'bomb.yml'", "excessive aliasing", "line "]);
}

#[test]
fn nesting_deeper_than_the_limit_is_refused() {
    let d = tempfile::tempdir().unwrap();
    let flow = format!(
        "#@data/values\n---\na: {}{}\n",
        "[".repeat(20_000),
        "]".repeat(20_000)
    );
    write(d.path(), "flow.yml", flow);
    let err = fails(d.path(), &["-f", "flow.yml"]);
    assert_has(&err, &["'flow.yml'", "yaml: line 3", "10000 nested"]);

    // block sequences nest on one line: `- - - ... x`
    write(d.path(), "block.yml", format!("{}x\n", "- ".repeat(20_000)));
    let err = fails(d.path(), &["--data-values-file", "block.yml"]);
    assert_has(&err, &["'block.yml'", "line"]);
}

#[test]
fn nesting_as_deep_as_ytt_accepts_is_accepted() {
    // go-yaml v2 (ytt) has no nesting limit; a few thousand levels are
    // accepted and printed as ytt prints them
    let d = tempfile::tempdir().unwrap();
    for depth in [600, 5_000] {
        let flow = format!(
            "#@data/values\n---\na: {}1{}\n",
            "[".repeat(depth),
            "]".repeat(depth)
        );
        write(d.path(), "flow.yml", flow);
        let out = Command::cargo_bin("yttcheck")
            .unwrap()
            .current_dir(d.path())
            .args(["inspect", "-f", "flow.yml"])
            .timeout(Duration::from_secs(60))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{depth}: {out:?}");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            stdout.starts_with(
                "a:
- - - "
            ),
            "{depth}"
        );
        assert_eq!(stdout.matches("- ").count(), depth, "{depth}");
    }
}

#[test]
fn deeply_nested_starlark_value_is_refused() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "values.yml",
        "#@ def deep(n):\n#@   x = {}\n#@   for i in range(n):\n#@     x = {\"a\": x}\n#@   end\n#@   return x\n#@ end\n#@data/values\n---\na: #@ deep(100000)\n",
    );
    let err = fails(d.path(), &["-f", "values.yml"]);
    assert_has(&err, &["values.yml:10", "nested too deeply"]);
}

#[test]
fn endless_loop_stops_at_the_step_budget() {
    let d = tempfile::tempdir().unwrap();
    // ytt reserves `pass`, so the loop body does some work instead
    write(
        d.path(),
        "values.yml",
        "#@ for i in range(1000000000):\n#@   x = i\n#@ end\n#@data/values\n---\na: 1\n",
    );
    let err = fails(d.path(), &["-f", "values.yml", "--max-steps", "200000"]);
    assert_has(
        &err,
        &["step budget", "values.yml:2 | #@   x = i", "--max-steps"],
    );
}

#[test]
fn pass_is_reserved_as_in_ytt() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "values.yml",
        "#@ for i in range(1000000000): pass\n#@data/values\n---\na: 1\n",
    );
    let err = fails(d.path(), &["-f", "values.yml"]);
    assert_has(&err, &["values.yml:1", "reserved keyword 'pass'"]);
}

#[test]
fn while_true_stops_at_the_time_budget() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "values.yml",
        "#@ def spin():\n#@   n = 0\n#@   while True:\n#@     n += 1\n#@   end\n#@ end\n#@data/values\n---\na: #@ spin()\n",
    );
    let err = fails(
        d.path(),
        &[
            "-f",
            "values.yml",
            "--timeout",
            "0.3",
            "--max-steps",
            "100000000000",
        ],
    );
    assert_has(&err, &["time budget", "values.yml:"]);
}

#[test]
fn unbounded_recursion_is_refused() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "values.yml",
        "#@ def f(n):\n#@   return f(n + 1)\n#@ end\n#@data/values\n---\na: #@ f(1)\n",
    );
    let err = fails(d.path(), &["-f", "values.yml"]);
    assert_has(
        &err,
        &[
            "call stack overflow",
            "values.yml:2",
            "more frames like the one below",
        ],
    );
    assert!(
        err.lines().count() < 20,
        "recursion frames are folded:\n{err}"
    );
}

#[test]
fn memory_bombs_are_refused() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "rep.yml",
        "#@data/values\n---\na: #@ len(\"xx\" * 2000000000)\n",
    );
    let err = fails(d.path(), &["-f", "rep.yml"]);
    assert_has(&err, &["rep.yml:3", "repetition would build"]);

    write(
        d.path(),
        "repassign.yml",
        "#@ s = [1, 2]\n#@ s *= 2000000000\n#@data/values\n---\na: 1\n",
    );
    let err = fails(d.path(), &["-f", "repassign.yml"]);
    assert_has(&err, &["repassign.yml:2", "repetition would build"]);

    write(
        d.path(),
        "double.yml",
        "#@ x = [1]\n#@ for i in range(40):\n#@   x = x + x\n#@ end\n#@data/values\n---\na: 1\n",
    );
    let err = fails(d.path(), &["-f", "double.yml"]);
    assert_has(&err, &["double.yml:3", "memory"]);
}

#[test]
fn non_utf8_file() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "values.yml", b"#@data/values\n---\na: caf\xe9\n");
    // ytt's words (go-yaml's reader) for `inspect -f`; `check` says where
    // and what to do (check_command::unreadable_and_binary_files_are_findings)
    let err = fails(d.path(), &["-f", "values.yml"]);
    assert_eq!(
        err,
        "yttcheck: Error: Unmarshaling YAML template 'values.yml': yaml: incomplete UTF-8 octet sequence\n"
    );
    for (bytes, problem) in [
        (&b"a: \xff\n"[..], "invalid leading UTF-8 octet"),
        (b"a: \xc3b\n", "invalid trailing UTF-8 octet"),
        (b"a: \xc0\x80\n", "invalid length of a UTF-8 sequence"),
        (b"a: \xed\xa0\x80\n", "invalid Unicode character"),
    ] {
        write(d.path(), "values.yml", bytes);
        assert_has(&fails(d.path(), &["-f", "values.yml"]), &[problem]);
    }
}

#[test]
fn missing_file() {
    let d = tempfile::tempdir().unwrap();
    let err = fails(d.path(), &["-f", "nope.yml"]);
    assert_has(&err, &["nope.yml", "no such file or directory"]);
}

#[test]
fn files_ytt_never_parses_for_values_need_not_be_utf8() {
    // a Latin-1 text template and a private library's file: ytt does not
    // read them to compute data values, so `inspect` does not fail on them
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "values.yml", "#@data/values\n---\na: 1\n");
    write(d.path(), "notes.txt", b"caf\xe9\n".as_slice());
    write(
        d.path(),
        "_ytt_lib/lib/config.yml",
        b"#@data/values\n---\nname: caf\xe9\n".as_slice(),
    );
    let out = Command::cargo_bin("yttcheck")
        .unwrap()
        .current_dir(d.path())
        .args(["inspect", "-f", "."])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "a: 1\n");
    // a values file that ytt parses still must be UTF-8
    write(
        d.path(),
        "values.yml",
        b"#@data/values\n---\na: caf\xe9\n".as_slice(),
    );
    let err = fails(d.path(), &["-f", "."]);
    assert_has(
        &err,
        &["'values.yml': yaml: incomplete UTF-8 octet sequence"],
    );
}

#[test]
fn devices_and_endless_inputs_are_refused_at_once() {
    // /dev/zero never ends: refused as not a regular file before any read
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "values.yml", "#@data/values\n---\na: 1\n");
    for args in [
        vec!["-f", "/dev/zero"],
        vec!["-f", "values.yml", "--data-values-file", "/dev/zero"],
        vec!["-f", "values.yml", "--data-value-file", "a=/dev/zero"],
    ] {
        let err = fails(d.path(), &args);
        assert_has(&err, &["Expected file '/dev/zero' to be a regular file"]);
    }
    // standard input is read through the same bound: 17 MiB stops at 16
    let out = Command::cargo_bin("yttcheck")
        .unwrap()
        .current_dir(d.path())
        .args(["inspect", "-f", "values.yml", "--data-values-file", "-"])
        .write_stdin(vec![b'a'; 17 << 20])
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("larger than the 16 MiB yttcheck reads"),
        "{out:?}"
    );
}

#[test]
fn deeply_nested_expressions_are_refused_before_they_overflow_the_stack() {
    // about 30,000 levels overflowed the parser's stack and aborted the
    // process; each form is refused with the file and line instead
    let d = tempfile::tempdir().unwrap();
    let forms = [
        vec!["1"; 30_000].join("+"),
        format!("{}1", "-".repeat(30_000)),
        format!("{}1{}", "[".repeat(30_000), "]".repeat(30_000)),
        format!("{}1{}", "(".repeat(50_000), ")".repeat(50_000)),
        format!("{}True", "not ".repeat(30_000)),
        format!("1{}", " if True else 1".repeat(30_000)),
    ];
    for expr in &forms {
        write(
            d.path(),
            "values.yml",
            format!("#@ x = {expr}\n#@data/values\n---\na: #@ x\n"),
        );
        let err = fails(d.path(), &["-f", "values.yml"]);
        assert_has(&err, &["expression nested too deeply", "values.yml:1"]);
        // the same in a Starlark file
        write(d.path(), "lib/deep.star", format!("x = {expr}\n"));
        write(
            d.path(),
            "lib/values.yml",
            "#@ load(\"deep.star\", \"x\")\n#@data/values\n---\na: #@ x\n",
        );
        let err = fails(d.path(), &["-f", "lib"]);
        assert_has(&err, &["expression nested too deeply", "deep.star:1"]);
    }
}

#[test]
fn one_hostile_library_does_not_take_down_a_check() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "libs/bad/schema.yml",
        format!(
            "#@ x = {}\n#@data/values-schema\n---\na: 1\n",
            vec!["1"; 30_000].join("+")
        ),
    );
    write(
        d.path(),
        "libs/good/schema.yml",
        "#@data/values-schema\n---\n#@schema/validation min=1\nreplicas: 0\n",
    );
    let out = Command::cargo_bin("yttcheck")
        .unwrap()
        .current_dir(d.path())
        .args(["check", "--format", "json"])
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rules: Vec<(&str, &str)> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["rule"].as_str().unwrap(), f["library"].as_str().unwrap()))
        .collect();
    assert!(rules.contains(&("template/budget", "bad")), "{rules:?}");
    assert!(rules.contains(&("validation/min", "good")), "{rules:?}");
}

#[cfg(unix)]
#[test]
fn symlinks_out_of_the_repository_are_findings_and_never_read() {
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.yml"), "password: hunter2\n").unwrap();
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "libs/a/schema.yml",
        "#@data/values-schema\n---\npassword: \"\"\n",
    );
    std::fs::create_dir_all(d.path().join("envs/prod")).unwrap();
    std::os::unix::fs::symlink(
        outside.path().join("secret.yml"),
        d.path().join("envs/prod/a.yml"),
    )
    .unwrap();
    let out = Command::cargo_bin("yttcheck")
        .unwrap()
        .current_dir(d.path())
        .args(["check", "--color", "never"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    // reported, at the link, and its target's content never shown
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("'envs/prod/a.yml' is a symlink out of the repository"),
        "{stdout}"
    );
    assert!(!stdout.contains("hunter2"), "{stdout}");
}

/// Found by the `template` fuzz target: a string left open on a `load` line
/// ran to a later line, and renaming `assert` in it sliced past the line's
/// end (a panic).
#[test]
fn an_open_string_in_a_load_line_is_an_error_not_a_panic() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "config/template.yml",
        "#@ load\"\" \"\"a\"\"a\"\n#@data/values\n#@\"",
    );
    let err = fails(d.path(), &["-f", "config"]);
    // (the string is open to the end of the file: no later line closes it)
    assert_has(&err, &["template.yml:1 |", "unterminated string literal"]);
}

/// `check` in a small repository: exit code and stderr.
fn check_in(dir: &Path, args: &[&str]) -> (i32, String) {
    let out = Command::cargo_bin("yttcheck")
        .expect("binary")
        .current_dir(dir)
        .args(["check", "-q", "--daemon", "never"])
        .args(args)
        .env_remove("GITHUB_ACTIONS")
        .timeout(Duration::from_secs(60))
        .output()
        .expect("ran");
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(!stderr.contains("panicked"), "panic:\n{stderr}");
    (out.status.code().unwrap_or(-1), stderr)
}

fn small_repository() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "libs/web/schema.yml",
        "#@data/values-schema\n---\nreplicas: 1\n",
    );
    write(d.path(), "envs/prod/web.yml", "replicas: 2\n");
    d
}

#[test]
fn every_number_from_input_is_range_checked() {
    let d = small_repository();
    let p = d.path();
    for (args, says) in [
        (&["-j", "100000"][..], "from 0 (one per core) to 256"),
        (&["--timeout", "1e308"][..], "at most 86400"),
        (&["--timeout", "1e20"][..], "at most 86400"),
        (&["--timeout", "nan"][..], "above 0"),
        (
            &["--max-steps", "18446744073709551615"][..],
            "at most 1000000000000",
        ),
    ] {
        let (code, stderr) = check_in(p, args);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
    }
    write(p, ".yttcheck.yml", "budget:\n  timeout_seconds: 1e20\n");
    let (code, stderr) = check_in(p, &[]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains(".yttcheck.yml: budget: timeout must be"),
        "{stderr}"
    );
}

#[test]
fn a_baseline_and_an_event_payload_are_read_within_bounds() {
    let d = small_repository();
    let p = d.path();
    let fifo = p.join("fifo");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let big = p.join("big.json");
    let f = std::fs::File::create(&big).unwrap();
    f.set_len(17 * 1024 * 1024).unwrap();
    for (file, says) in [
        ("/dev/zero", "is not a regular file"),
        (fifo.to_str().unwrap(), "is not a regular file"),
        (big.to_str().unwrap(), "more than the 16 MiB"),
    ] {
        let (code, stderr) = check_in(p, &["--baseline", file]);
        assert_eq!(code, 2, "{file}: {stderr}");
        assert!(stderr.contains(says), "{file}: {stderr}");
        let out = Command::cargo_bin("yttcheck")
            .unwrap()
            .current_dir(p)
            .arg("ci")
            .env("GITHUB_EVENT_NAME", "pull_request")
            .env("GITHUB_EVENT_PATH", file)
            .env("GITHUB_WORKSPACE", p)
            .timeout(Duration::from_secs(60))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{file}: {stderr}");
        assert!(stderr.contains(says), "{file}: {stderr}");
    }
    // a payload whose commit ids are not commit ids: refused, not sliced
    let payload = p.join("event.json");
    std::fs::write(
        &payload,
        r#"{"pull_request": {"number": 1, "base": {"sha": "ééééééééé", "ref": "main"}, "head": {"sha": "ü"}}}"#,
    )
    .unwrap();
    let out = Command::cargo_bin("yttcheck")
        .unwrap()
        .current_dir(p)
        .arg("ci")
        .env("GITHUB_EVENT_NAME", "pull_request")
        .env("GITHUB_EVENT_PATH", &payload)
        .env("GITHUB_WORKSPACE", p)
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        !stderr.contains("panicked") && stderr.contains("40 or 64 hex digits"),
        "{stderr}"
    );
}

/// A values file of 50,500 keys no schema declares: 50,500 errors. The
/// SARIF file keeps the 25,000 code scanning takes per run (it refuses a
/// run with more) and says how many it left out; the JSON report lists
/// 50,000 (37 MB for 60,000 before) and counts the rest.
#[test]
fn a_sarif_file_holds_what_code_scanning_takes() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    write(
        p,
        "libs/web/schema.yml",
        "#@data/values-schema\n---\nreplicas: 1\n",
    );
    let mut values = String::from("replicas: 2\n");
    for i in 0..50_500 {
        values.push_str(&format!("k{i}: {i}\n"));
    }
    write(p, "envs/dev/web.yml", &values);
    let out = Command::cargo_bin("yttcheck")
        .unwrap()
        .current_dir(p)
        .args([
            "check",
            "-q",
            "--daemon",
            "never",
            "--format",
            "sarif=out.sarif",
            "--format",
            "json=out.json",
        ])
        .timeout(Duration::from_secs(120))
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let sarif: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(p.join("out.sarif")).unwrap()).unwrap();
    let run = &sarif["runs"][0];
    assert_eq!(run["results"].as_array().unwrap().len(), 25_000);
    let notes = run["invocations"][0]["toolExecutionNotifications"].to_string();
    assert!(
        notes.contains("25500 more findings are not in this file"),
        "{notes}"
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(p.join("out.json")).unwrap()).unwrap();
    assert_eq!(json["findings"].as_array().unwrap().len(), 50_000);
    assert_eq!(json["findings_not_listed"], 500);
    assert_eq!(json["summary"]["errors"], 50_500);
}
