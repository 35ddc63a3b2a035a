//! The data values pipeline's errors, each with ytt's exact text (which is
//! what `inspect` prints) and where ytt gives one, the file:line.

use std::path::Path;

use assert_cmd::Command;

use super::common::write;

fn run(dir: &Path, args: &[&str], stdin: &str) -> (i32, String, String) {
    let out = Command::cargo_bin("yttcheck")
        .unwrap()
        .current_dir(dir)
        .env_clear()
        .arg("inspect")
        .args(args)
        .write_stdin(stdin)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).to_string(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

fn fails_with(dir: &Path, args: &[&str], expected: &str) {
    let (code, out, err) = run(dir, args, "");
    assert_eq!(code, 1, "stdout:\n{out}\nstderr:\n{err}");
    assert_eq!(err, expected);
}

#[test]
fn overlay_without_a_match() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "base.yml", "#@data/values\n---\na: 1\n");
    write(d.path(), "new.yml", "#@data/values\n---\nnew: 1\n");
    fails_with(
        d.path(),
        &["-f", "base.yml", "-f", "new.yml"],
        "yttcheck: Error: Overlaying data values (in following order: base.yml, new.yml):
  Document on line new.yml:2:
    Map item (key 'new') on line new.yml:3:
      Expected number of matched nodes to be 1, but was 0
",
    );
    // ... and with missing_ok=True the key is added
    write(
        d.path(),
        "new.yml",
        "#@data/values\n---\n#@overlay/match missing_ok=True\nnew: 1\n",
    );
    let (code, out, err) = run(d.path(), &["-f", "base.yml", "-f", "new.yml"], "");
    assert_eq!((code, out.as_str()), (0, "a: 1\nnew: 1\n"), "{err}");
}

#[test]
fn overlay_with_several_matches() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "base.yml",
        "#@data/values\n---\nitems:\n- name: x\n- name: y\n",
    );
    write(
        d.path(),
        "all.yml",
        "#@ load(\"@ytt:overlay\", \"overlay\")\n#@data/values\n---\nitems:\n#@overlay/match by=overlay.all\n- name: z\n",
    );
    fails_with(
        d.path(),
        &["-f", "base.yml", "-f", "all.yml"],
        "yttcheck: Error: Overlaying data values (in following order: base.yml, all.yml):
  Document on line all.yml:3:
    Map item (key 'items') on line all.yml:4:
      Array item on line all.yml:6:
        Expected number of matched nodes to be 1, but was 2 (lines: base.yml:4, base.yml:5)
",
    );
}

#[test]
fn key_not_declared_in_schema() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "schema.yml",
        "#@data/values-schema\n---\nport: 8080\n",
    );
    write(d.path(), "prod.yml", "port: 443\nprot: 80\n");
    fails_with(
        d.path(),
        &["-f", "schema.yml", "--data-values-file", "prod.yml"],
        "yttcheck: Error: Overlaying data values (in following order: additional data values): 
One or more data values were invalid
====================================

Given data value is not declared in schema
prod.yml:
    |
  2 | prot: 80
    |

    = found: prot
    = expected: a map item with the key named \"port\" (from schema.yml:2)


",
    );
}

#[test]
fn plain_values_file_with_annotations() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "values.yml", "#@data/values\n---\na: 2\n");
    fails_with(
        d.path(),
        &["--data-values-file", "values.yml"],
        "yttcheck: Error: Extracting data value from file:
  Checking data values file 'values.yml':
    Expected to be plain YAML, having no annotations (hint: remove comments starting with `#@`)
",
    );
}

#[test]
fn stdin_given_twice() {
    let d = tempfile::tempdir().unwrap();
    let (code, _, err) = run(
        d.path(),
        &["--data-values-file", "-", "--data-values-file", "-"],
        "a: 1\n",
    );
    assert_eq!(code, 1);
    assert_eq!(
        err,
        "yttcheck: Error: Extracting data value from file:
  Find files '-':
    Standard input has already been read, has the '-' argument been used in more than one flag?
"
    );
    // once is fine
    let (code, out, err) = run(d.path(), &["--data-values-file", "-"], "a: 1\n");
    assert_eq!((code, out.as_str()), (0, "a: 1\n"), "{err}");
}

#[test]
fn missing_files() {
    let d = tempfile::tempdir().unwrap();
    fails_with(
        d.path(),
        &["--data-values-file", "nope.yml"],
        "yttcheck: Error: Extracting data value from file:
  Find files 'nope.yml':
    Checking file 'nope.yml': lstat nope.yml: no such file or directory
",
    );
    fails_with(
        d.path(),
        &["-f", "nope.yml"],
        "yttcheck: Error: Checking file 'nope.yml': lstat nope.yml: no such file or directory\n",
    );
}

#[test]
fn bad_flag_syntax() {
    let d = tempfile::tempdir().unwrap();
    fails_with(
        d.path(),
        &["-v", "key"],
        "yttcheck: Error: Extracting data value from KV:\n  Expected format key=value\n",
    );
    fails_with(
        d.path(),
        &["--data-value-yaml", "key"],
        "yttcheck: Error: Extracting data value from KV:\n  Expected format key=value\n",
    );
}

#[test]
fn flags_apply_in_ytt_order_not_command_line_order() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "values.yml",
        "#@data/values\n---\na: 0\nb: 0\nc: 0\n",
    );
    write(
        d.path(),
        "file.yml",
        "a: from-file\nb: from-file\nc: from-file\n",
    );
    write(d.path(), "c.txt", "from-data-value-file");
    // on the command line the file comes last and -v after --data-value-yaml,
    // but ytt applies --data-values-file, -v, --data-value-yaml, --data-value-file
    let (code, out, err) = run(
        d.path(),
        &[
            "-f",
            "values.yml",
            "--data-value-file",
            "c=c.txt",
            "--data-value-yaml",
            "b=2",
            "-v",
            "b=from-v",
            "-v",
            "a=from-v",
            "--data-values-file",
            "file.yml",
        ],
        "",
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "a: from-v\nb: 2\nc: from-data-value-file\n");
}

#[test]
fn plain_files_replace_arrays_overlays_append() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "values.yml", "#@data/values\n---\nlist: [a]\n");
    write(d.path(), "more.yml", "#@data/values\n---\nlist: [b]\n");
    write(d.path(), "plain.yml", "list: [c]\n");
    let (_, out, err) = run(d.path(), &["-f", "values.yml", "-f", "more.yml"], "");
    assert_eq!(out, "list:\n- a\n- b\n", "{err}");
    let (_, out, err) = run(
        d.path(),
        &[
            "-f",
            "values.yml",
            "-f",
            "more.yml",
            "--data-values-file",
            "plain.yml",
        ],
        "",
    );
    assert_eq!(out, "list:\n- c\n", "{err}");
}

#[test]
fn plus_colon_is_an_ordinary_path() {
    let d = tempfile::tempdir().unwrap();
    fails_with(
        d.path(),
        &["--data-values-file", "+:file.yml"],
        "yttcheck: Error: Extracting data value from file:
  Find files '+:file.yml':
    Checking file '+:file.yml': lstat +:file.yml: no such file or directory
",
    );
}

// ---- go-starlark's and Go's texts, where starlark-rust and serde word them
// differently (ytt's words are what users search for)

#[test]
fn too_many_positional_arguments_as_go_starlark_words_it() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "v.yml",
        "#@ f = lambda v: v\n#@data/values\n---\na: #@ f(1, 2)\n",
    );
    let (code, _, err) = run(d.path(), &["-f", "v.yml"], "");
    assert_eq!(code, 1);
    assert!(
        err.contains("- function lambda accepts 1 positional argument (2 given)\n"),
        "{err}"
    );
    assert!(err.contains("v.yml:4 | a: #@ f(1, 2)"), "{err}");
}

#[test]
fn comparing_unsupported_types_as_go_starlark_words_it() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "v.yml",
        "#@ def frag():\nx: 1\n#@ end\n#@data/values\n---\na: #@ frag() >= 1\n",
    );
    let (code, _, err) = run(d.path(), &["-f", "v.yml"], "");
    assert_eq!(code, 1);
    assert!(
        err.contains("- yamlfragment >= int not implemented\n"),
        "{err}"
    );
}

#[test]
fn json_decode_errors_in_go_encoding_json_words() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "v.yml",
        "#@ load(\"@ytt:json\", \"json\")\n#@data/values\n---\na: #@ json.decode('{\"a\": }')\n",
    );
    let (code, _, err) = run(d.path(), &["-f", "v.yml"], "");
    assert_eq!(code, 1);
    assert!(
        err.contains("- json.decode: invalid character '}' looking for beginning of value\n"),
        "{err}"
    );
}

#[test]
fn not_null_failure_names_the_builtin() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "v.yml",
        "#@ load(\"@ytt:assert\", \"assert\")\n#@data/values\n---\na: #@ assert.try_to(lambda: assert.not_null(None))\n",
    );
    let (code, out, err) = run(d.path(), &["-f", "v.yml", "--data-values-inspect"], "");
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        "a:\n- null\n- 'assert.not_null: fail: value is null'\n"
    );
}

#[test]
fn numbers_in_rule_messages_as_ytt_prints_them() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "s.yml",
        "#@data/values-schema\n---\n#@schema/validation max=1.0\na: 2.0\n#@schema/validation min=0.5\nb: 0.25\n",
    );
    let (code, _, err) = run(d.path(), &["-f", "s.yml"], "");
    assert_eq!(code, 1);
    assert!(err.contains("must be: a value <= 1 (by: s.yml:3)"), "{err}");
    assert!(
        err.contains("must be: a value >= 0.5 (by: s.yml:5)"),
        "{err}"
    );
}

/// ytt names a failing value by a path its walk writes with Go's `%s`: a key
/// that YAML reads as something other than a string prints as Go prints a
/// value of the wrong verb.
#[test]
fn keys_that_are_not_strings_in_validation_paths_as_ytt_prints_them() {
    let d = tempfile::tempdir().unwrap();
    for (key, path) in [
        ("n", "%!s(bool=false)"),
        ("0x10", "%!s(int=16)"),
        ("1.5", "%!s(float64=1.5)"),
        ("1e6", "%!s(float64=1e+06)"),
        ("~", "%!s(<nil>)"),
        ("name", "name"),
    ] {
        write(
            d.path(),
            "s.yml",
            format!("#@data/values-schema\n---\nouter:\n  #@schema/validation min=5\n  {key}: 1\n"),
        );
        let (code, _, err) = run(d.path(), &["-f", "s.yml"], "");
        assert_eq!(code, 1);
        assert!(
            err.contains(&format!("\n  outer.{path}\n    from: s.yml:5\n")),
            "{key}: {err}"
        );
    }
}

#[test]
fn strict_accepts_the_empty_document_and_reports_in_document_order() {
    let d = tempfile::tempdir().unwrap();
    // the document before `---` holds only the annotation: not an ambiguous `~`
    write(d.path(), "v.yml", "#@data/values\n---\na: 1\n");
    let (code, out, err) = run(d.path(), &["-f", "v.yml", "--strict"], "");
    assert_eq!((code, out.as_str()), (0, "a: 1\n"), "{err}");
    write(d.path(), "v.yml", "#@data/values\n---\na: yes\nb: ~\n");
    let (code, _, err) = run(d.path(), &["-f", "v.yml", "--strict"], "");
    assert_eq!(code, 1);
    assert!(
        err.contains("Found 'yes' ambigious (could be !!str or !!bool)"),
        "{err}"
    );
}

#[test]
fn data_value_file_takes_bytes_as_ytt_does() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "v.yml", "#@data/values\n---\na: 1\n");
    // not UTF-8: go-yaml writes `!!binary` base64 (in 70-column lines when long)
    std::fs::write(d.path().join("bin.dat"), b"ab\xff\xfe").unwrap();
    let (code, out, err) = run(
        d.path(),
        &[
            "-f",
            "v.yml",
            "--data-value-file",
            "a=bin.dat",
            "--data-values-inspect",
        ],
        "",
    );
    assert_eq!((code, out.as_str()), (0, "a: !!binary YWL//g==\n"), "{err}");
    std::fs::write(d.path().join("bin.dat"), [0xffu8; 60]).unwrap();
    let (code, out, err) = run(
        d.path(),
        &[
            "-f",
            "v.yml",
            "--data-value-file",
            "a=bin.dat",
            "--data-values-inspect",
        ],
        "",
    );
    assert_eq!(code, 0, "{err}");
    let line = "/".repeat(70);
    assert_eq!(
        out,
        format!("a: !!binary |\n  {line}\n  {}\n", "/".repeat(10))
    );
    // a byte order mark is part of the value
    std::fs::write(d.path().join("bom.txt"), b"\xef\xbb\xbfhi").unwrap();
    let (code, out, err) = run(
        d.path(),
        &[
            "-f",
            "v.yml",
            "--data-value-file",
            "a=bom.txt",
            "--data-values-inspect",
        ],
        "",
    );
    // (and printed as ytt's emitter prints a string that starts with one:
    // every character escaped)
    assert_eq!(
        (code, out.as_str()),
        (0, "a: \"\\uFEFF\\x68\\x69\"\n"),
        "{err}"
    );
}

#[test]
fn an_annotation_twice_on_a_document_names_the_file() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "v.yml",
        "#@data/values\n#@data/values\n---\na: 1\n",
    );
    fails_with(
        d.path(),
        &["-f", "v.yml"],
        "yttcheck: Error: Overlaying data values (in following order: v.yml):
  Templating file 'v.yml': data/values annotation may only be used once per document
",
    );
}

#[test]
fn a_schema_annotation_twice_on_a_document_is_refused() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "s.yml",
        "#@data/values-schema\n#@data/values-schema\n---\na: 1\n",
    );
    fails_with(
        d.path(),
        &["-f", "s.yml"],
        "yttcheck: Error: data/values-schema annotation may only be used once per document\n",
    );
}

/// ytt names no line for a bad `@library/ref` argument; `check` puts the
/// finding at the annotation (issue: errors without a place).
#[test]
fn a_bad_library_ref_is_a_finding_at_its_annotation() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    write(p, "app/schema.yml", "#@data/values-schema\n---\na: 1\n");
    write(
        p,
        "envs/dev/values.yml",
        "#@data/values\n#@library/ref \"no-at-sign\"\n---\na: 1\n",
    );
    let out = Command::cargo_bin("yttcheck")
        .unwrap()
        .current_dir(p)
        .args(["check", "--daemon", "never", "-q", "--format", "json"])
        .output()
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let f = &json["findings"][0];
    assert_eq!(
        f["message"],
        "Annotation library/ref: Expected library ref to start with '@'"
    );
    assert_eq!(f["location"]["path"], "envs/dev/values.yml");
    assert_eq!(f["location"]["line"], 2);
}
