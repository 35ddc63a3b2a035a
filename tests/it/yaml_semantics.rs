//! ytt reads YAML as go-yaml v2 does (YAML 1.1 scalars) and prints it its own
//! way. These tests pin each choice end to end, through the real binary.

use std::path::Path;

fn inspect(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let args: Vec<&str> = std::iter::once("inspect")
        .chain(args.iter().copied())
        .collect();
    super::common::run(dir, &args)
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

#[test]
fn nel_ls_and_ps_are_line_breaks_as_in_go_yaml() {
    // `#@data/values` then PS then `---`: a data values document, not a
    // comment that swallows the document marker
    for sep in ["\u{2029}", "\u{2028}", "\u{85}"] {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(
            d.path().join("schema.yml"),
            "#@data/values-schema\n---\na: 0\n",
        )
        .unwrap();
        std::fs::write(
            d.path().join("values.yml"),
            format!("#@data/values{sep}---\na: 1\n"),
        )
        .unwrap();
        let out = assert_cmd::Command::cargo_bin("yttcheck")
            .unwrap()
            .current_dir(d.path())
            .args(["inspect", "-f", "schema.yml", "-f", "values.yml"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{sep:?}: {out:?}");
        assert_eq!(String::from_utf8_lossy(&out.stdout), "a: 1\n", "{sep:?}");
    }
}

#[test]
fn content_after_document_end_needs_a_document_start_as_in_go_yaml() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("v.yml"), "a: 1\n...\nb: 2\n").unwrap();
    let (code, _, err) = inspect(d.path(), &["--data-values-file", "v.yml"]);
    assert_eq!(code, 1);
    // a parser error: go-yaml reports the 0-based line of `b`
    assert!(
        err.contains("yaml: line 2: did not find expected <document start>"),
        "{err}"
    );
    // with `---` it is a second document, and `...` at the end is fine
    std::fs::write(d.path().join("v.yml"), "a: 1\n...\n---\nb: 2\n...\n").unwrap();
    let (code, out, err) = inspect(d.path(), &["--data-values-file", "v.yml"]);
    assert_eq!((code, out.as_str()), (0, "a: 1\nb: 2\n"), "{err}");
}

#[test]
fn syntax_errors_in_go_yaml_words_and_lines() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("s.yml"), "#@data/values\n---\na: 1\n").unwrap();
    // an unclosed flow sequence in a flag: go-yaml's line at the end of the
    // input (a line more when it has no line feed), and ytt's error
    // formatter stops the first line at the `]` that closes nothing
    let (code, _, err) = inspect(d.path(), &["-f", "s.yml", "--data-value-yaml", "a=[1, 2"]);
    assert_eq!(code, 1);
    assert!(
        err.ends_with("Deserializing YAML value: yaml: line 1: did not find expected ',' or '\n"),
        "{err}"
    );
    // a tab that breaks indentation and a plain scalar starting with a
    // reserved indicator: scanner errors, on their 1-based line
    for (text, line) in [
        ("#@data/values\n---\na:\n\tb: 1\n", 4),
        ("#@data/values\n---\na: @x\n", 3),
        ("#@data/values\n---\na: `x\n", 3),
    ] {
        std::fs::write(d.path().join("bad.yml"), text).unwrap();
        let (code, _, err) = inspect(d.path(), &["-f", "bad.yml"]);
        assert_eq!(code, 1);
        assert!(
            err.contains(&format!(
                "yaml: line {line}: found character that cannot start any token"
            )),
            "{text:?}: {err}"
        );
    }
    // a parser error: the problem alone, on go-yaml's 0-based line
    std::fs::write(d.path().join("bad.yml"), "a:\n  b: 1\n c: 2\n").unwrap();
    let (code, _, err) = inspect(d.path(), &["--data-values-file", "bad.yml"]);
    assert_eq!(code, 1);
    assert!(
        err.contains("yaml: line 2: did not find expected key"),
        "{err}"
    );
}

/// go-yaml reads any number of comment lines where the parser looks ahead
/// (between a key and its first item): a values file, plain or annotated,
/// and a template with a long commented-out block read as ytt reads them.
#[test]
fn a_long_run_of_comments_before_an_item_is_read() {
    let d = tempfile::tempdir().unwrap();
    let comments =
        |mark: &str| -> String { (0..200).map(|i| format!("{mark} line {i}\n")).collect() };
    std::fs::write(
        d.path().join("defaults.yml"),
        format!("#@data/values\n---\na: 1\nb:\n{}- 1\n", comments("#!")),
    )
    .unwrap();
    std::fs::write(
        d.path().join("plain.yml"),
        format!("a: 2\nb:\n{}- 3\n", comments("#")),
    )
    .unwrap();
    std::fs::write(
        d.path().join("template.yml"),
        format!(
            "#@ load(\"@ytt:data\", \"data\")\nitems:\n{}- #@ data.values.b[0]\n",
            comments("#!")
        ),
    )
    .unwrap();
    let (code, out, err) = inspect(
        d.path(),
        &["-f", "defaults.yml", "--data-values-file", "plain.yml"],
    );
    assert_eq!((code, out.as_str()), (0, "a: 2\nb:\n- 3\n"), "{err}");
    let (code, stdout, stderr) = super::common::run(
        d.path(),
        &["render", "-f", "defaults.yml", "-f", "template.yml"],
    );
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout, "items:\n- 1\n", "{stderr}");
}

/// Where go-yaml (YAML 1.1) and the parser underneath (YAML 1.2) read the
/// same text differently, ytt's reading wins. Each expectation was recorded
/// from ytt 0.52 (`--data-values-file v.yml --data-values-inspect`).
#[test]
fn go_yaml_reading_of_scalars_anchors_and_errors() {
    let d = tempfile::tempdir().unwrap();
    let ok = [
        // LS and PS are line breaks that folding keeps; the printer writes
        // them in single quotes, indented as a continuation line
        ("k: \"a \u{2028}  b\"\n", "k: 'a\u{2028}  b'\n"),
        ("k: \"a\u{2029}\r\n  #\"\n", "k: |-\n  a\u{2029}\n  #\n"),
        ("k: 'a\u{85}b'\n", "k: a b\n"),
        ("k: |\n  a\u{2029}\n", "k: 'a\u{2029}'\n"),
        // `\'` is an escape in go-yaml's double quotes
        ("k: \"don\\'t\"\n", "k: don't\n"),
        // a tab after a block scalar's found indentation is content
        ("k: |\n  a\n  \tb\n", "k: \"a\\n\\tb\\n\"\n"),
        // an empty key after `?` is fine
        ("? \n: 2\n", "null: 2\n"),
        // a block scalar of line breaks only keeps an LS as go-yaml does
        // (and prints it back the same way)
        ("k: |2+\n\n\u{2028}", "k: |2+\n\n\u{2028}"),
    ];
    for (text, out) in ok {
        std::fs::write(d.path().join("v.yml"), text).unwrap();
        let (code, stdout, err) = inspect(d.path(), &["--data-values-file", "v.yml"]);
        assert_eq!((code, stdout.as_str()), (0, out), "{text:?}: {err}");
    }
    let refused = [
        (
            "k: >\n  a\u{2028}b\n  c\n",
            "line 5: could not find expected ':'",
        ),
        ("k: \"\\/\"\n", "line 1: found unknown escape character"),
        (
            "k: \"\\ud83d\\ude00\"\n",
            "line 1: found invalid Unicode character escape code",
        ),
        (
            "k: >\n  \tx\n",
            "line 2: found a tab character where an indentation space is expected",
        ),
        ("k: 'unclosed\n", "line 2: found unexpected end of stream"),
        ("k: [\n", "line 1: did not find expected node content"),
        ("k: [a,\n", "line 1: did not find expected node content"),
        ("k: {a: 1\n", "line 1: did not find expected ',' or '\n"),
        ("a: 1\n: 2\n", "line 1: did not find expected key"),
        ("a: 1\n]: 1\n", "line 1: did not find expected key"),
        (
            "k: &a.b 1\n",
            "line 1: did not find expected alphabetic or numeric character",
        ),
        (
            "k: *?\n",
            "line 1: did not find expected alphabetic or numeric character",
        ),
        ("%: 1\n", "line 1: could not find expected directive name"),
        ("k: 1\n#\u{7}\n", "control characters are not allowed"),
        (
            "k:\n  x: 1\n  \"a\" b\n",
            "line 4: could not find expected ':'",
        ),
        (
            "\"1\\\"\u{85}\": 1\n",
            "line 2: mapping values are not allowed in this context",
        ),
        ("k: 1\nb\n\n\n", "line 5: could not find expected ':'"),
    ];
    for (text, problem) in refused {
        std::fs::write(d.path().join("v.yml"), text).unwrap();
        let (code, _, err) = inspect(d.path(), &["--data-values-file", "v.yml"]);
        assert_eq!(code, 1, "{text:?}");
        assert!(
            err.ends_with(&format!("'v.yml': yaml: {problem}\n"))
                || err.ends_with(&format!("'v.yml': yaml: {problem}")),
            "{text:?}: {err}"
        );
    }
}

/// go-yaml's reader finds a character it refuses when its scanner first
/// needs the 512-byte chunk it is in: a syntax error in an earlier chunk is
/// reported first, one in the same chunk or later is not.
#[test]
fn refused_characters_are_found_chunk_by_chunk_as_in_go_yaml() {
    let d = tempfile::tempdir().unwrap();
    let filler = "# padding padding padding padding padding padding padding\n".repeat(20);
    let early_error = format!("a: @x\n{filler}c: \u{1}\n");
    std::fs::write(d.path().join("v.yml"), &early_error).unwrap();
    let (_, _, err) = inspect(d.path(), &["--data-values-file", "v.yml"]);
    assert!(
        err.ends_with("yaml: line 1: found character that cannot start any token\n"),
        "{err}"
    );
    let late_error = format!("a: \u{1}\n{filler}b: [\n");
    std::fs::write(d.path().join("v.yml"), &late_error).unwrap();
    let (_, _, err) = inspect(d.path(), &["--data-values-file", "v.yml"]);
    assert!(
        err.ends_with("yaml: control characters are not allowed\n"),
        "{err}"
    );
}

/// A map of many keys is overlaid through an index of its keys (a values
/// file of 100,000 keys took 40 s by scanning, 1.5 s now): removals,
/// additions, a replacement matched by a function that changes the key,
/// and a key removed then added again, in a map over the index's
/// threshold, as ytt 0.48 renders them.
#[test]
fn a_map_of_many_keys_is_overlaid_as_ytt_overlays_it() {
    let dir = tempfile::tempdir().unwrap();
    let base: String = (0..30).map(|i| format!("k{i}: {i}\n")).collect();
    std::fs::write(dir.path().join("base.yml"), format!("---\n{base}")).unwrap();
    std::fs::write(
        dir.path().join("ov.yml"),
        r#"#@ load("@ytt:overlay", "overlay")
#@overlay/match by=overlay.all
---
#@overlay/remove
k3: ~
k4: 40
#@overlay/match missing_ok=True
n1: 1
#@overlay/replace
k20: replaced
#@overlay/match by=lambda i,l,r: l == 25
#@overlay/replace via=lambda l, r: r
x: 999
k29: 290
#@overlay/match missing_ok=True
n2: 2
#@overlay/remove
k0: ~
#@overlay/match by=overlay.all
---
#@overlay/match missing_ok=True
k3: back
k28: 280
"#,
    )
    .unwrap();
    let out = assert_cmd::Command::cargo_bin("yttcheck")
        .unwrap()
        .current_dir(dir.path())
        .args(["render", "-f", "base.yml", "-f", "ov.yml"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut want: Vec<String> = (1..30)
        .filter(|i| ![3, 4, 20, 25, 28, 29].contains(i))
        .map(|i| format!("k{i}: {i}"))
        .collect();
    want.insert(2, "k4: 40".into());
    want.insert(18, "k20: replaced".into());
    want.insert(23, "x: 999".into());
    want.extend(["k28: 280", "k29: 290", "n1: 1", "n2: 2", "k3: back"].map(String::from));
    assert_eq!(String::from_utf8_lossy(&out.stdout), want.join("\n") + "\n");
}
