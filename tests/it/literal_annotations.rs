//! Annotations whose arguments are literals are evaluated by the compiler,
//! not by Starlark (`template::compiler::literal`). That must be invisible: every
//! library here is rendered twice through the binary, once as written and
//! once with each literal argument `v` written `(v if True else None)`
//! (the same value, but an expression the compiler leaves to Starlark), and
//! every output, error and exit code must be the same.

use std::path::Path;

use super::common::{run, write};

/// Writes `files` with each `«v»` as `v` (literal) or as an expression.
fn write_variant(dir: &Path, files: &[(&str, &str)], literal: bool) {
    for (name, text) in files {
        let mut out = String::new();
        let mut rest = *text;
        while let Some(start) = rest.find('«') {
            let end = rest[start..].find('»').expect("closed marker") + start;
            let value = &rest[start + '«'.len_utf8()..end];
            out.push_str(&rest[..start]);
            if literal {
                out.push_str(value);
            } else {
                out.push_str(&format!("({value} if True else None)"));
            }
            rest = &rest[end + '»'.len_utf8()..];
        }
        out.push_str(rest);
        write(dir, name, out);
    }
}

/// Runs each command on both variants; returns the literal variant's results.
fn same_both_ways(files: &[(&str, &str)], commands: &[&[&str]]) -> Vec<(i32, String, String)> {
    let literal = tempfile::tempdir().unwrap();
    let computed = tempfile::tempdir().unwrap();
    write_variant(literal.path(), files, true);
    write_variant(computed.path(), files, false);
    commands
        .iter()
        .map(|args| {
            let a = run(literal.path(), args);
            let b = run(computed.path(), args);
            assert_eq!(a, b, "`yttcheck {}` differs", args.join(" "));
            a
        })
        .collect()
}

const SCHEMA: &str = r#"#@data/values-schema
---
#@schema/desc «"How many"»
#@schema/validation min=«1», max=«-(-5)»
replicas: 1
#@schema/validation one_of=«["low", "medium", "high"]»
level: low
#@schema/validation min_len=«2», max_len=«8»
name: web
#@schema/nullable
memory: 128
#@schema/validation not_null=«True»
owner: team
#@schema/type any=«True»
extra: {}
#@schema/default «[{"port": 80}]»
#@schema/examples («"one port"», «[{"port": 8080}]»)
ports:
-
  #@schema/validation min=«1», max=«65535»
  port: 80
  #@schema/validation ("a protocol", lambda p: p in «("TCP", "UDP")»)
  protocol: TCP
#@schema/validation min=«0.5»
ratio: 1.0
"#;

const VALUES: &str = r#"#@data/values
---
#@overlay/match missing_ok=«True»
#@overlay/replace
extra:
  added: "yes"
ports:
#@overlay/match by=«"port"», missing_ok=«True»
- port: 443
"#;

const TEMPLATE: &str = r#"#@ load("@ytt:data", "data")
#@ load("@ytt:overlay", "overlay")
#@ def more():
#@overlay/match missing_ok=«True»
added: 1
#@ end
---
#@ for i in range(2):
#@yaml/map-key-override
#@overlay/match missing_ok=«True»
item: #@ i
#@ end
replicas: #@ data.values.replicas
#@ base = {"kept": 0}
merged: #@ overlay.apply(base, more())
"#;

#[test]
fn literal_annotation_arguments_behave_as_evaluated_ones() {
    let files = [
        ("schema.yml", SCHEMA),
        ("values.yml", VALUES),
        ("config.yml", TEMPLATE),
    ];
    let results = same_both_ways(
        &files,
        &[
            &["render", "-f", "."],
            &["inspect", "-f", "."],
            &[
                "inspect",
                "-f",
                ".",
                "--data-values-schema-inspect",
                "-o",
                "openapi-v3",
                "--openapi-validations",
            ],
            &["render", "-f", ".", "-v", "level=extreme"],
            &["render", "-f", ".", "--data-value-yaml", "replicas=9"],
            &["render", "-f", ".", "--data-value-yaml", "ratio=0.25"],
            &["render", "-f", ".", "-v", "name=x"],
            &["render", "-f", ".", "--data-value-yaml", "owner=null"],
        ],
    );
    // the cases do what they say: a render, an OpenAPI document with the
    // annotations' values, and four validation failures
    assert_eq!(results[0].0, 0, "{}", results[0].2);
    assert!(results[0].1.contains("added: 1"), "{}", results[0].1);
    assert!(results[1].1.contains("added: \"yes\""), "{}", results[1].1);
    let openapi = &results[2].1;
    for expected in ["How many", "maximum: 5", "one port", "nullable: true"] {
        assert!(openapi.contains(expected), "{expected}: {openapi}");
    }
    for failing in &results[3..] {
        assert_ne!(failing.0, 0, "{failing:?}");
        assert!(failing.2.contains("schema.yml:"), "{}", failing.2);
    }
}

#[test]
fn a_key_given_twice_fails_at_its_own_line_either_way() {
    let files = [(
        "config.yml",
        "---\n#@overlay/match missing_ok=«True»\na: 1\nb: 2\nc: 3\na: 4\nd: #@ 5\n",
    )];
    let results = same_both_ways(&files, &[&["render", "-f", "."]]);
    assert_ne!(results[0].0, 0);
    assert!(results[0].2.contains("config.yml:6"), "{}", results[0].2);
}

#[test]
fn code_that_binds_a_constant_keeps_its_meaning() {
    // the file binds `None`: `missing_ok=None` is `missing_ok=True` there,
    // so the new key merges (as the constant it would fail)
    let files = [
        ("values.yml", "#@data/values\n---\na: 1\n"),
        (
            "more.yml",
            "#@ None = True\n#@data/values\n---\n#@overlay/match missing_ok=«None»\nb: 2\n",
        ),
    ];
    let results = same_both_ways(
        &files,
        &[&["inspect", "-f", "values.yml", "-f", "more.yml"]],
    );
    assert_eq!(results[0], (0, "a: 1\nb: 2\n".to_string(), String::new()));
}
