//! ytt reads YAML as go-yaml v2 does (YAML 1.1 scalars) and prints it its own
//! way. These tests pin each choice end to end, through the real binary.

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

#[test]
fn scalars_resolve_as_in_yaml_1_1_and_print_as_ytt_prints_them() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(
        d.path().join("values.yml"),
        r#"yes_: yes
on_: on
off_: Off
tilde: ~
empty:
octal: 0777
octal_o: 0o17
under: 1_000
hex: 0x1F
bin: 0b101
big: 18446744073709551615
bigger: 18446744073709551616
inf: .inf
float: 1e3
date: 2001-12-14
sexagesimal: 190:20:30
n: key is the boolean false
anchor: &a {x: 1}
alias: *a
merged:
  <<: *a
  z: 2
dup: 1
dup: 2
quoted_true: "true"
quoted_one: "1"
empty_str: ""
multi: |
  line one
  line two
empty_map: {}
empty_array: []
null_value: null
"#,
    )
    .unwrap();
    let (code, out, err) = inspect(d.path(), &["--data-values-file", "values.yml"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        r#"yes_: true
on_: true
off_: false
tilde: null
empty: null
octal: 511
octal_o: 15
under: 1000
hex: 31
bin: 5
big: 18446744073709551615
bigger: 1.8446744073709552e+19
inf: .inf
float: 1000
date: "2001-12-14"
sexagesimal: "190:20:30"
false: key is the boolean false
anchor:
  x: 1
alias:
  x: 1
merged:
  x: 1
  z: 2
dup: 2
quoted_true: "true"
quoted_one: "1"
empty_str: ""
multi: |
  line one
  line two
empty_map: {}
empty_array: []
null_value: null
"#
    );
}

#[test]
fn strings_from_flags_keep_their_quotes() {
    let d = tempfile::tempdir().unwrap();
    let (code, out, err) = inspect(
        d.path(),
        &[
            "-v",
            "a=yes",
            "-v",
            "b=123",
            "-v",
            "c=~",
            "-v",
            "d=2001-12-14",
            "-v",
            "e=plain",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        "a: \"yes\"\nb: \"123\"\nc: \"~\"\nd: \"2001-12-14\"\ne: plain\n"
    );
}

#[test]
fn duplicate_keys_are_an_error_in_templates_unless_overridden() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("dup.yml"), "#@data/values\n---\na: 1\na: 2\n").unwrap();
    let (code, _, err) = inspect(d.path(), &["-f", "dup.yml"]);
    assert_eq!(code, 1);
    assert!(
        err.contains("expected key 'a' to not be specified again"),
        "{err}"
    );
    assert!(err.contains("dup.yml:4"), "{err}");

    std::fs::write(
        d.path().join("override.yml"),
        "#@data/values\n---\na: 1\n#@yaml/map-key-override\na: 2\n",
    )
    .unwrap();
    let (code, out, err) = inspect(d.path(), &["-f", "override.yml"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "a: 2\n");
}

#[test]
fn hash_inside_strings_is_not_a_comment() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(
        d.path().join("values.yml"),
        "#@data/values\n---\na: \"#@ not code\"\nb: |\n  # not a comment\n  #@ nor code\nc: 'x #! y' #! a ytt comment\n",
    )
    .unwrap();
    let (code, out, err) = inspect(d.path(), &["-f", "values.yml"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        "a: '#@ not code'\nb: |\n  # not a comment\n  #@ nor code\nc: 'x #! y'\n"
    );
}
