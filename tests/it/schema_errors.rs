//! Every schema error ytt reports, with ytt's exact text and file:line.

use assert_cmd::Command;

fn schema_error(schema: &str, expected: &str) {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("schema.yml"), schema).unwrap();
    let out = Command::cargo_bin("yttcheck")
        .unwrap()
        .current_dir(d.path())
        .args(["inspect", "-f", "schema.yml"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(String::from_utf8_lossy(&out.stderr), expected);
}

#[test]
fn null_default_needs_nullable() {
    schema_error(
        "#@data/values-schema\n---\nname: null\n",
        "yttcheck: Error: Overlaying data values schema (in following order: schema.yml): \nInvalid schema - null value not allowed here\n============================================\n\nschema.yml:\n    |\n  3 | name: null\n    |\n\n    = found: null value\n    = expected: non-null value\n    = hint: in YAML, omitting a value implies null.\n    = hint: to set the default value to null, annotate with @schema/nullable.\n    = hint: to allow any value, annotate with @schema/type any=True.\n\n\n",
    );
}

#[test]
fn array_with_no_item() {
    schema_error(
        "#@data/values-schema\n---\nlist: []\n",
        "yttcheck: Error: Overlaying data values schema (in following order: schema.yml): \nInvalid schema - wrong number of items in array definition\n==========================================================\n\nschema.yml:\n    |\n  3 | list: []\n    |\n\n    = found: 0 array items\n    = expected: exactly 1 array item, of the desired type\n    = hint: in schema, the one item of the array implies the type of its elements.\n    = hint: in schema, the default value for an array is always an empty list.\n    = hint: default values can be overridden via a data values overlay.\n\n\n",
    );
}

#[test]
fn array_with_two_items() {
    schema_error(
        "#@data/values-schema\n---\nlist:\n- a\n- b\n",
        "yttcheck: Error: Overlaying data values schema (in following order: schema.yml): \nInvalid schema - wrong number of items in array definition\n==========================================================\n\nschema.yml:\n    |\n  3 | list:\n    |\n\n    = found: 2 array items\n    = expected: exactly 1 array item, of the desired type\n    = hint: in schema, the one item of the array implies the type of its elements.\n    = hint: in schema, the default value for an array is always an empty list.\n    = hint: default values can be overridden via a data values overlay.\n\n\n",
    );
}

#[test]
fn default_of_the_wrong_type() {
    schema_error(
        "#@data/values-schema\n---\n#@schema/default \"x\"\nport: 1\n",
        "yttcheck: Error: Overlaying data values schema (in following order: schema.yml): \nInvalid schema - @schema/default is wrong type\n==============================================\n\nschema.yml:\n    |\n  3 | #@schema/default \"x\"\n  4 | port: 1\n    |\n\n    = found: string (at schema.yml:3)\n    = expected: integer (by schema.yml:4)\n\n\n",
    );
}

#[test]
fn schema_annotation_inside_any_type() {
    schema_error(
        "#@data/values-schema\n---\n#@schema/type any=True\nfoo:\n  #@schema/nullable\n  bar: 1\n",
        "yttcheck: Error: Overlaying data values schema (in following order: schema.yml): \nInvalid schema\n==============\n\nSchema was specified within an \"any type\" fragment\nschema.yml:\n    |\n  5 |   #@schema/nullable\n  6 |   bar: 1\n    |\n\n    = found: @schema/nullable annotation(s)\n    = expected: no '@schema/...' on nodes within a node annotated '@schema/type any=True'\n    = hint: an \"any type\" fragment has no constraints; nested schema annotations conflict and are disallowed\n\n\n",
    );
}

#[test]
fn every_type_mismatch_is_reported_at_once_and_defaults_fill_in() {
    let d = tempfile::tempdir().unwrap();
    let schema = "#@data/values-schema\n---\nport: 8080\nratio: 0.5\nenabled: false\nservers:\n- host: \"\"\n  port: 80\n";
    std::fs::write(d.path().join("schema.yml"), schema).unwrap();
    std::fs::write(
        d.path().join("bad.yml"),
        "port: \"8080\"\nratio: 1\nenabled: \"no\"\nservers:\n- host: a\n- port: 81\n",
    )
    .unwrap();
    std::fs::write(
        d.path().join("good.yml"),
        "ratio: 1\nservers:\n- host: a\n- port: 81\n",
    )
    .unwrap();
    let run = |values: &str| {
        Command::cargo_bin("yttcheck")
            .unwrap()
            .current_dir(d.path())
            .args(["inspect", "-f", "schema.yml", "--data-values-file", values])
            .output()
            .unwrap()
    };
    let out = run("bad.yml");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "yttcheck: Error: Overlaying data values (in following order: additional data values): \nOne or more data values were invalid\n====================================\n\nbad.yml:\n    |\n  1 | port: \"8080\"\n    |\n\n    = found: string\n    = expected: integer (by schema.yml:3)\n\nbad.yml:\n    |\n  3 | enabled: \"no\"\n    |\n\n    = found: string\n    = expected: boolean (by schema.yml:5)\n\n\n"
    );
    // ints are accepted where floats are declared; array items get their defaults
    let out = run("good.yml");
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "port: 8080\nratio: 1\nenabled: false\nservers:\n- host: a\n  port: 80\n- port: 81\n  host: \"\"\n"
    );
}
