//! The JSON Schema export (`-o json-schema`) of a schema that uses every rule
//! that maps to JSON Schema, checked by a real validator: Python's
//! `jsonschema` (Draft 2020-12, with its format checker) on values files read
//! by PyYAML. A good values file must pass, a bad one must fail on exactly the
//! keys that break a rule.

use std::path::Path;
use std::process::Command as Process;

use assert_cmd::Command;

const SCHEMA: &str = r#"#@data/values-schema
---
#@schema/title "Service"
#@schema/desc "A web service"
#@schema/validation min_len=2, max_len=20, matches="^[a-z][a-z0-9-]*$", ends_with="-api"
name: svc-api
#@schema/validation min=1, max=10
replicas: 1
#@schema/validation min=0.0, max=1.0
ratio: 0.5
#@schema/validation one_of=["debug", "info", "warn"]
log_level: info
#@schema/validation format="ipv4"
bind: 127.0.0.1
#@schema/validation multiple_of=8
memory_mb: 256
#@schema/validation min_len=1, max_len=3
tags:
- ""
#@schema/validation min_len=1
labels:
  #@schema/nullable
  team: ""
#@schema/nullable
#@schema/validation min=1
timeout: 0
#@schema/type any=True
extra: {}
#@schema/deprecated "use name"
old_name: ""
"#;

const GOOD: &str = r#"name: shop-api
replicas: 3
ratio: 1
log_level: warn
bind: 10.0.0.1
memory_mb: 512
tags: [a, b]
labels:
  team: null
timeout: null
extra: {anything: [1, "x"]}
"#;

const BAD: &str = r#"name: Shop_API
replicas: 11
ratio: 1.5
log_level: trace
bind: 300.1.1.1
memory_mb: 500
tags: []
labels: {}
timeout: 0
unknown: 1
"#;

/// Validates `values` against `schema` (JSON text); returns the JSON paths
/// of the failing instances, sorted (none, skipped loudly, outside CI
/// without Python's jsonschema and PyYAML).
pub(super) fn validate(dir: &Path, schema: &str, values: &str) -> Option<Vec<String>> {
    let python = super::common::python_with(&["yaml", "jsonschema"])?;
    std::fs::write(dir.join("schema.json"), schema).unwrap();
    std::fs::write(dir.join("values.yml"), values).unwrap();
    let script = r#"
import json, sys, yaml
from jsonschema import Draft202012Validator
schema = json.load(open(sys.argv[1]))
Draft202012Validator.check_schema(schema)
values = yaml.safe_load(open(sys.argv[2]))
v = Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)
paths = sorted("/" + "/".join(str(p) for p in e.absolute_path) + " " + e.validator for e in v.iter_errors(values))
print("\n".join(paths))
"#;
    let out = Process::new(python)
        .arg("-c")
        .arg(script)
        .arg(dir.join("schema.json"))
        .arg(dir.join("values.yml"))
        .output()
        .expect("python3 runs (with PyYAML and jsonschema; .ci/run installs them)");
    assert!(
        out.status.success(),
        "validator failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter(|l| !l.is_empty())
            .map(String::from)
            .collect(),
    )
}

fn export(dir: &Path, output: &str, extra: &[&str]) -> String {
    std::fs::write(dir.join("schema.yml"), SCHEMA).unwrap();
    let out = Command::cargo_bin("yttcheck")
        .unwrap()
        .current_dir(dir)
        .args([
            "inspect",
            "-f",
            "schema.yml",
            "--data-values-schema-inspect",
            "-o",
            output,
        ])
        .args(extra)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).to_string()
}

#[test]
fn json_schema_export_validates_values_files() {
    let d = tempfile::tempdir().unwrap();
    let schema = export(d.path(), "json-schema", &[]);
    assert!(
        schema.contains("\"deprecationMessage\": \"use name\""),
        "{schema}"
    );
    // a typed map always has its declared keys once defaults fill in, but a
    // values file may give fewer: min_len must not become minProperties
    assert!(!schema.contains("minProperties"), "{schema}");

    let Some(good) = validate(d.path(), &schema, GOOD) else {
        return;
    };
    assert_eq!(good, Vec::<String>::new());
    assert_eq!(
        validate(d.path(), &schema, BAD).unwrap(),
        vec![
            "/ additionalProperties",
            "/bind format",
            "/log_level enum",
            "/memory_mb multipleOf",
            "/name pattern",
            "/name pattern",
            "/ratio maximum",
            "/replicas maximum",
            "/tags minItems",
            "/timeout minimum",
        ]
    );
}

#[test]
fn the_same_values_fail_in_yttcheck_itself() {
    // the export and the checker agree: every rule the JSON Schema rejects
    // above is a violation for yttcheck too
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("schema.yml"), SCHEMA).unwrap();
    std::fs::write(d.path().join("bad.yml"), BAD.replace("unknown: 1\n", "")).unwrap();
    let out = Command::cargo_bin("yttcheck")
        .unwrap()
        .current_dir(d.path())
        .args([
            "inspect",
            "-f",
            "schema.yml",
            "--data-values-file",
            "bad.yml",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    for key in [
        "  name\n",
        "  replicas\n",
        "  ratio\n",
        "  log_level\n",
        "  bind\n",
        "  memory_mb\n",
        "  tags\n",
        "  timeout\n",
    ] {
        assert!(err.contains(key), "{key:?} missing in:\n{err}");
    }
}

#[test]
fn openapi_stays_ytt_identical_unless_asked_for_validations() {
    let d = tempfile::tempdir().unwrap();
    let plain = export(d.path(), "openapi-v3", &[]);
    assert!(!plain.contains("minimum"), "{plain}");
    let with = export(d.path(), "openapi-v3", &["--openapi-validations"]);
    for keyword in [
        "minLength: 2",
        "maxLength: 20",
        "pattern: ^[a-z][a-z0-9-]*$",
        "minimum: 1",
        "maximum: 10",
        "- debug",
        "format: ipv4",
        "multipleOf: 8",
        "minItems: 1",
        "maxItems: 3",
    ] {
        assert!(with.contains(keyword), "{keyword} missing in:\n{with}");
    }
}
