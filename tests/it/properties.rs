//! Properties over generated inputs (proptest): what yttcheck prints, it
//! reads back as the same values; and data values merged onto themselves
//! are unchanged.

use std::sync::Arc;

use proptest::prelude::*;
use yttcheck::yaml::{Pos, SourceFile, Value};

use super::common::write;

/// Strings a YAML printer must take care with: YAML 1.1 booleans and
/// nulls, numbers, indicators, quotes, line breaks, spaces at the ends,
/// non-ASCII.
fn tricky_string() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("yes".to_string()),
        Just("off".to_string()),
        Just("~".to_string()),
        Just("null".to_string()),
        Just("0x1F".to_string()),
        Just("1e3".to_string()),
        Just("- a".to_string()),
        Just("a: b".to_string()),
        Just("#x".to_string()),
        Just("".to_string()),
        Just(" lead".to_string()),
        Just("trail ".to_string()),
        Just("multi\nline\n".to_string()),
        Just("'\"".to_string()),
        Just("ünïcödé ☃".to_string()),
        "[a-zA-Z0-9 :#'\"{}\\[\\],&*!|>%@`-]{0,16}",
        "\\PC{0,10}",
    ]
}

fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::Int),
        // go-yaml prints an integral float as an integer (ytt reads 1.0
        // back as 1), so only fractional ones round-trip as floats
        (any::<i32>(), 1u32..1000)
            .prop_map(|(i, d)| Value::Float(f64::from(i) + f64::from(d) / 1024.0)),
        tricky_string().prop_map(Value::str),
    ]
}

fn map_of(entries: Vec<(String, Value)>) -> Value {
    let mut m = Value::new_map(Pos::unknown());
    if let Value::Map(map) = &mut m {
        for (k, v) in entries {
            if map.items.iter().any(|i| i.key.deep_eq(&Value::str(&k))) {
                continue;
            }
            map.items.push(yttcheck::yaml::MapItem {
                key: Value::str(&k),
                value: v,
                pos: Pos::unknown(),
                meta: Default::default(),
            });
        }
    }
    m
}

fn array_of(values: Vec<Value>) -> Value {
    let mut a = Value::new_array(Pos::unknown());
    if let Value::Array(arr) = &mut a {
        for v in values {
            arr.items.push(yttcheck::yaml::ArrayItem {
                value: v,
                pos: Pos::unknown(),
                meta: Default::default(),
            });
        }
    }
    a
}

fn tree() -> impl Strategy<Value = Value> {
    scalar().prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec((tricky_string(), inner.clone()), 0..6).prop_map(map_of),
            prop::collection::vec(inner, 0..6).prop_map(array_of),
        ]
    })
}

/// Maps of maps and scalars: what data values overlay key by key (arrays
/// are appended to, so they are left out of the self-merge property).
fn map_tree() -> impl Strategy<Value = Value> {
    let key = "[a-z][a-z0-9_]{0,8}";
    let leaf = prop_oneof![
        any::<bool>().prop_map(Value::Bool),
        (0i64..100_000).prop_map(Value::Int),
        "[a-z0-9 ._-]{0,12}".prop_map(Value::str),
    ];
    leaf.prop_recursive(3, 32, 5, move |inner| {
        prop::collection::vec((key, inner), 1..5).prop_map(map_of)
    })
    .prop_filter("a document of maps", |v| matches!(v, Value::Map(_)))
}

/// A case the property found: a `<<` key printed plain reads back as a
/// merge key (go-yaml quotes it, key or value).
#[test]
fn a_merge_key_string_prints_quoted() {
    let v = map_of(vec![
        ("<<".to_string(), Value::Float(1.5)),
        ("b".to_string(), Value::str("<<")),
    ]);
    let text = yttcheck::yaml::print::print_value(&v);
    assert_eq!(text, "\"<<\": 1.5\nb: \"<<\"\n");
    let src: Arc<SourceFile> = SourceFile::new("printed.yml", text.as_str());
    let parsed = yttcheck::yaml::parse::parse(&src, false).unwrap();
    assert!(parsed.docs[0].value.deep_eq(&v));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    /// Printing a value and parsing the text gives the value back.
    #[test]
    fn printed_values_parse_back_the_same(v in tree()) {
        let text = yttcheck::yaml::print::print_value(&v);
        let src: Arc<SourceFile> = SourceFile::new("printed.yml", text.as_str());
        let parsed = yttcheck::yaml::parse::parse(&src, false)
            .unwrap_or_else(|e| panic!("{e:?} parsing:\n{text}"));
        let back = parsed.docs.first().map(|d| d.value.clone()).unwrap_or(Value::Null);
        prop_assert!(back.deep_eq(&v), "printed:\n{}\nread back:\n{}", text, yttcheck::yaml::print::print_value(&back));
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// A data values document overlaid onto itself (ytt's default merge,
    /// as a second `@data/values` file) leaves the values as they were.
    #[test]
    fn data_values_merged_onto_themselves_are_unchanged(v in map_tree()) {
        let body = yttcheck::yaml::print::print_value(&v);
        let d = tempfile::tempdir().unwrap();
        write(d.path(), "a.yml", format!("#@data/values\n---\n{body}"));
        write(d.path(), "b.yml", format!("#@data/values\n---\n{body}"));
        let once = run_ok(d.path(), &["inspect", "-f", "a.yml"]);
        let twice = run_ok(d.path(), &["inspect", "-f", "a.yml", "-f", "b.yml"]);
        prop_assert_eq!(&once, &twice);
        let src = SourceFile::new("once.yml", once.as_str());
        let parsed = yttcheck::yaml::parse::parse(&src, false).unwrap();
        prop_assert!(parsed.docs[0].value.deep_eq(&v), "{}", once);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// The JSON Schema export of a schema accepts the schema's own defaults
    /// (checked by Python's jsonschema, as an editor would).
    #[test]
    fn the_json_schema_export_accepts_the_defaults(v in map_tree()) {
        let body = yttcheck::yaml::print::print_value(&v);
        let d = tempfile::tempdir().unwrap();
        write(d.path(), "schema.yml", format!("#@data/values-schema\n---\n{body}"));
        let exported = run_ok(
            d.path(),
            &["inspect", "-f", "schema.yml", "--data-values-schema-inspect", "-o", "json-schema"],
        );
        // as JSON: the validator reads YAML 1.1 (PyYAML), which takes a
        // plain `.0_` for a float where ytt (and the schema) see a string
        let defaults = run_ok(d.path(), &["inspect", "-f", "schema.yml", "-o", "json"]);
        let Some(problems) = super::json_schema::validate(d.path(), &exported, &defaults) else {
            return Ok(());
        };
        prop_assert!(problems.is_empty(), "{:?}\nschema:\n{}\ndefaults:\n{}", problems, body, defaults);
    }
}

fn run_ok(dir: &std::path::Path, args: &[&str]) -> String {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_yttcheck"))
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}
