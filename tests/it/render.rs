//! `yttcheck render` through the binary: text templates, output overlays,
//! `@ytt:library`, `-o json` and `--output-files` (the recorded ytt renders
//! of `../shared` are run by `conformance.rs`).

use assert_cmd::Command;

use super::common::{run, write};

fn render(dir: &std::path::Path, args: &[&str]) -> (i32, String, String) {
    let args: Vec<&str> = std::iter::once("render")
        .chain(args.iter().copied())
        .collect();
    super::common::run(dir, &args)
}

#[test]
fn text_templated_strings_work_in_templates_values_and_schemas() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    write(
        p,
        "schema.yml",
        "#@data/values-schema\n---\n#@ name = \"port\"\n#@yaml/text-templated-strings\n(@= name @): 80\n",
    );
    write(
        p,
        "values.yml",
        "#@data/values\n---\n#@yaml/text-templated-strings\nport: 8080\n",
    );
    write(
        p,
        "config.yml",
        concat!(
            "#@ load(\"@ytt:data\", \"data\")\n",
            "#@yaml/text-templated-strings\n",
            "---\n",
            "url: http://web:(@= str(data.values.port) @)/\n",
            "(@= \"a\" + \"b\" @): \"(@ for i in range(3): @)(@= str(i) @)(@ end @)\"\n",
            "trimmed: \"x   (@- \\\"ignored\\\" -@)   y\"\n",
            "plain: (@= 'not templated here' @)\n",
        ),
    );
    // the annotation is on the document: every string below it is a template
    let (code, out, err) = render(p, &["-f", "."]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        "url: http://web:8080/\nab: \"012\"\ntrimmed: xy\nplain: not templated here\n"
    );
}

#[test]
fn text_template_files_are_written_with_output_files_and_errors_name_the_line() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    write(
        p,
        "in/notes.txt",
        "(@ load(\"@ytt:data\", \"data\") -@)\nhello (@= data.values.who @)!\n(@ for i in range(2): -@)\n- (@= str(i) @)\n(@ end -@)\n",
    );
    write(p, "in/values.yml", "#@data/values\n---\nwho: world\n");
    write(p, "in/config.yml", "a: 1\n");
    let (code, out, err) = render(p, &["-f", "in", "--output-files", "out"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("creating: out/notes.txt"), "{out}");
    assert_eq!(
        std::fs::read_to_string(p.join("out/notes.txt")).unwrap(),
        "hello world!\n- 0\n- 1\n"
    );
    assert_eq!(
        std::fs::read_to_string(p.join("out/config.yml")).unwrap(),
        "a: 1\n"
    );
    // the values file is not an output
    assert!(!p.join("out/values.yml").exists());

    write(p, "bad/broken.txt", "line one\n(@= 1 + \"x\" @)\n");
    let (code, _, err) = render(p, &["-f", "bad"]);
    assert_eq!(code, 1);
    assert!(err.contains("Evaluating text template"), "{err}");
    assert!(err.contains("broken.txt:2"), "{err}");

    write(p, "open/unclosed.txt", "a\n(@ x = 1\n");
    let (code, _, err) = render(p, &["-f", "open"]);
    assert_eq!(code, 1);
    // ytt's words, and as ytt prints them: its error formatter stops the
    // first line at the `)` that closes nothing
    assert!(
        err.ends_with("Parsing text template 'unclosed.txt':\n  Missing code closing '@\n"),
        "{err}"
    );
}

#[test]
fn output_overlays_apply_to_every_file_in_file_order() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    write(
        p,
        "a.yml",
        "kind: Deployment\nmetadata:\n  name: web\n---\nkind: Service\nmetadata:\n  name: web\n",
    );
    write(
        p,
        "b.yml",
        concat!(
            "#@ load(\"@ytt:overlay\", \"overlay\")\n",
            "#@overlay/match by=overlay.all, expects=\"1+\"\n",
            "---\nmetadata:\n  #@overlay/match missing_ok=True\n  labels:\n    team: a\n",
        ),
    );
    write(
        p,
        "c.yml",
        concat!(
            "#@ load(\"@ytt:overlay\", \"overlay\")\n",
            "#@overlay/match by=overlay.subset({\"kind\": \"Service\"})\n",
            "---\nmetadata:\n  labels:\n    #@overlay/match missing_ok=True\n    exposed: \"yes\"\n",
        ),
    );
    let (code, out, err) = render(p, &["-f", "."]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        "kind: Deployment\nmetadata:\n  name: web\n  labels:\n    team: a\n---\nkind: Service\nmetadata:\n  name: web\n  labels:\n    team: a\n    exposed: \"yes\"\n"
    );
    let (code, out, _) = render(p, &["-f", ".", "-o", "json"]);
    assert_eq!(code, 0);
    assert!(out.starts_with("{\"kind\":\"Deployment\""), "{out}");

    write(
        p,
        "d.yml",
        "#@ load(\"@ytt:overlay\", \"overlay\")\n#@overlay/match by=overlay.subset({\"kind\": \"Job\"})\n---\nx: 1\n",
    );
    let (code, _, err) = render(p, &["-f", "."]);
    assert_eq!(code, 1);
    assert!(
        err.contains("Overlaying (in following order: b.yml, c.yml, d.yml)"),
        "{err}"
    );
    assert!(err.contains("d.yml:3"), "{err}");
}

#[test]
fn library_module_evaluates_private_libraries_with_values_and_exports() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    write(
        p,
        "config.yml",
        concat!(
            "#@ load(\"@ytt:library\", \"library\")\n",
            "#@ load(\"@ytt:template\", \"template\")\n",
            "#@ app = library.get(\"app\").with_data_values({\"name\": \"api\"})\n",
            "--- #@ template.replace(app.eval())\n",
            "---\n",
            "greeting: #@ app.export(\"greet\")(\"ops\")\n",
            "values: #@ app.data_values()\n",
        ),
    );
    write(
        p,
        "_ytt_lib/app/values.yml",
        "#@data/values-schema\n---\nname: default\nreplicas: 1\n",
    );
    write(
        p,
        "_ytt_lib/app/app.yml",
        "#@ load(\"@ytt:data\", \"data\")\n---\nname: #@ data.values.name\nreplicas: #@ data.values.replicas\n",
    );
    write(
        p,
        "_ytt_lib/app/helpers.star",
        "load(\"@ytt:data\", \"data\")\ndef greet(who):\n  return \"hello \" + who + \" from \" + data.values.name\nend\n",
    );
    let (code, out, err) = render(p, &["-f", "."]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        "name: api\nreplicas: 1\n---\ngreeting: hello ops from api\nvalues:\n  name: api\n  replicas: 1\n"
    );

    // values addressed to a library that nothing evaluates are an error (as in ytt)
    write(
        p,
        "more.yml",
        "#@library/ref \"@other\"\n#@data/values\n---\nx: 1\n",
    );
    let (code, _, err) = render(p, &["-f", "."]);
    assert_eq!(code, 1);
    assert!(
        err.contains("Expected all provided library data values documents to be used but found unused:\n  Data Value belonging to library '@other' on line more.yml:3"),
        "{err}"
    );
    std::fs::remove_file(p.join("more.yml")).unwrap();

    // a library that does not exist fails at `library.get`, used or not,
    // at its line (as in ytt)
    write(
        p,
        "typo.yml",
        "#@ load(\"@ytt:library\", \"library\")\n#@ lib = library.get(\"ap\")\n---\nx: 1\n",
    );
    let (code, _, err) = render(p, &["-f", "."]);
    assert_eq!(code, 1);
    assert!(
        err.contains("library.get: Expected to find library 'ap', but did not find ''"),
        "{err}"
    );
    assert!(
        err.contains("typo.yml:2 | #@ lib = library.get(\"ap\")"),
        "{err}"
    );
}

#[test]
fn output_files_never_leave_the_output_directory() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    write(p, "src/a.yml", "a: 1\n");
    let (code, _, err) = render(
        p,
        &["-f", "../escape.yml=src/a.yml", "--output-files", "out"],
    );
    assert_eq!(code, 1);
    assert!(err.contains("to stay inside the output directory"), "{err}");
    assert!(!d.path().join("escape.yml").exists());
}

/// A library whose template breaks in one environment only: `check` renders
/// every pair and reports the template line and the pair.
fn library_with_templates() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    write(
        p,
        "app/schema.yml",
        "#@data/values-schema\n---\nreplicas: 1\n#@schema/nullable\nimage: \"\"\n",
    );
    write(
        p,
        "app/deployment.yml",
        concat!(
            "#@ load(\"@ytt:data\", \"data\")\n",
            "---\n",
            "kind: Deployment\n",
            "spec:\n",
            "  replicas: #@ data.values.replicas\n",
            "  image: #@ data.values.image + \":latest\"\n",
        ),
    );
    write(p, "envs/dev/values.yml", "image: web\n");
    write(p, "envs/prod/values.yml", "replicas: 3\n");
    d
}

#[test]
fn check_renders_every_pair_and_reports_template_failures_per_environment() {
    let d = library_with_templates();
    let out = Command::cargo_bin("yttcheck")
        .unwrap()
        .current_dir(d.path())
        .args(["check", "--daemon", "never", "-q", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let findings = json["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 1, "{json:#}");
    let f = &findings[0];
    assert_eq!(f["rule"], "template/error");
    assert_eq!(f["location"]["path"], "app/deployment.yml");
    assert_eq!(f["location"]["line"], 6);
    assert_eq!(f["environments"], serde_json::json!(["prod"]));
    assert!(f["message"].as_str().unwrap().contains("NoneType"), "{f:#}");

    // values only: the template is not rendered
    Command::cargo_bin("yttcheck")
        .unwrap()
        .current_dir(d.path())
        .args(["check", "--daemon", "never", "-q", "--no-render"])
        .assert()
        .code(0);
}

fn check_json(dir: &std::path::Path, extra: &[&str]) -> serde_json::Value {
    super::common::check_json(dir, extra).1
}

fn rules_of(json: &serde_json::Value) -> Vec<(String, String, u64, Vec<String>)> {
    json["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["rule"].as_str().unwrap().to_string(),
                f["location"]["path"].as_str().unwrap_or("").to_string(),
                f["location"]["line"].as_u64().unwrap_or(0),
                f["environments"]
                    .as_array()
                    .map(|a| a.iter().map(|e| e.as_str().unwrap().to_string()).collect())
                    .unwrap_or_default(),
            )
        })
        .collect()
}

#[test]
fn code_written_as_an_annotation_is_reported_and_real_code_is_not() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    write(
        p,
        "app/schema.yml",
        "#@data/values-schema\n---\nreplicas: 1\n",
    );
    write(
        p,
        "app/deployment.yml",
        concat!(
            "#@ load(\"@ytt:data\", \"data\")\n",
            "#@ load(\"@ytt:overlay\", \"overlay\")\n",
            "---\n",
            "spec:\n",
            "  replicas: #@data.values.replicas\n",
            "  #@overlay/match missing_ok=True\n",
            "  good: #@ data.values.replicas\n",
        ),
    );
    write(p, "envs/dev/values.yml", "replicas: 2\n");
    let json = check_json(p, &[]);
    let rules = rules_of(&json);
    assert_eq!(
        rules,
        vec![(
            "annotation/not-template".to_string(),
            "app/deployment.yml".to_string(),
            5,
            vec!["dev".to_string()]
        )],
        "{json:#}"
    );
    assert!(json["findings"][0]["message"]
        .as_str()
        .unwrap()
        .contains("write '#@ data.values.replicas'"));
}

/// A library whose prod branch reads a value the schema renamed.
fn renamed_value_library() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    write(
        p,
        "app/schema.yml",
        "#@data/values-schema\n---\nenv: dev\nreplica_count: 1\nimage: web\nlegacy_port: 8080\n#@schema/nullable\ndb:\n  host: db\n  port: 5432\n",
    );
    write(
        p,
        "app/deployment.yml",
        concat!(
            "#@ load(\"@ytt:data\", \"data\")\n",
            "#@ load(\"helpers.star\", \"describe\")\n",
            "---\n",
            "image: #@ data.values.image\n",
            "#@ if data.values.env == \"prod\":\n",
            "replicas: #@ data.values.replicas\n",
            "#@ end\n",
            "#@ if hasattr(data.values, \"db\") and data.values.db:\n",
            "db: #@ describe(data.values.db)\n",
            "#@ end\n",
        ),
    );
    write(
        p,
        "app/helpers.star",
        "def describe(db):\n  return db.host\nend\n",
    );
    write(p, "envs/dev/values.yml", "env: dev\n");
    write(
        p,
        "envs/prod/values.yml",
        "env: prod\nreplica_count: 3\ndb:\n  host: pg\n  port: 5433\n",
    );
    d
}

#[test]
fn a_renamed_value_read_in_one_branch_is_undeclared_in_that_environment_only() {
    let d = renamed_value_library();
    let json = check_json(d.path(), &[]);
    let findings = json["findings"].as_array().unwrap();
    let undeclared: Vec<&serde_json::Value> = findings
        .iter()
        .filter(|f| f["rule"] == "template/undeclared-value")
        .collect();
    assert_eq!(undeclared.len(), 1, "{json:#}");
    let f = undeclared[0];
    assert_eq!(f["location"]["path"], "app/deployment.yml");
    assert_eq!(f["location"]["line"], 6);
    assert_eq!(f["environments"], serde_json::json!(["prod"]));
    assert_eq!(
        f["message"],
        "the template reads data.values.replicas, which the library does not declare (did you mean data.values.replica_count?)"
    );
    // prod failed to render, so the library's reads are incomplete: no
    // unused-value guesses
    assert!(
        !findings.iter().any(|f| f["rule"] == "schema/unused-value"),
        "{json:#}"
    );
}

#[test]
fn values_no_template_reads_are_unused_in_complete_runs_only() {
    let d = renamed_value_library();
    // fix the template: now every pair renders
    let p = d.path();
    let t = std::fs::read_to_string(p.join("app/deployment.yml")).unwrap();
    write(
        p,
        "app/deployment.yml",
        t.replace("data.values.replicas", "data.values.replica_count"),
    );
    let json = check_json(p, &[]);
    let rules = rules_of(&json);
    // legacy_port and db.port are read by nothing; db.host is read by the
    // helper through the struct the template passes it; env, image and
    // replica_count are read
    assert_eq!(
        rules,
        vec![
            (
                "schema/unused-value".to_string(),
                "app/schema.yml".to_string(),
                6,
                vec!["dev".to_string(), "prod".to_string()]
            ),
            (
                "schema/unused-value".to_string(),
                "app/schema.yml".to_string(),
                10,
                vec!["dev".to_string(), "prod".to_string()]
            ),
        ],
        "{json:#}"
    );
    assert!(json["findings"][0]["message"]
        .as_str()
        .unwrap()
        .contains("'legacy_port'"));
    assert_eq!(json["summary"]["failed"], false, "a warning does not fail");

    // one environment only: the reads of the others are unknown
    let json = check_json(p, &["--env", "dev"]);
    assert!(rules_of(&json).is_empty(), "{json:#}");

    // a library without templates (values consumed elsewhere): nothing to say
    std::fs::remove_file(p.join("app/deployment.yml")).unwrap();
    let json = check_json(p, &[]);
    assert!(rules_of(&json).is_empty(), "{json:#}");
}

#[test]
fn assert_validate_on_rendered_documents_is_checked_by_check_and_ignored_by_render() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    write(
        p,
        "app/schema.yml",
        "#@data/values-schema\n---\nreplicas: 1\n",
    );
    write(
        p,
        "app/deployment.yml",
        concat!(
            "#@ load(\"@ytt:data\", \"data\")\n",
            "---\n",
            "kind: Deployment\n",
            "spec:\n",
            "  #@assert/validate (\"at least 3 replicas\", lambda v: v >= 3)\n",
            "  replicas: #@ data.values.replicas\n",
        ),
    );
    write(p, "envs/dev/values.yml", "replicas: 1\n");
    write(p, "envs/prod/values.yml", "replicas: 3\n");
    let json = check_json(p, &[]);
    let findings = json["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 1, "{json:#}");
    let f = &findings[0];
    assert_eq!(f["rule"], "validation/custom");
    assert_eq!(f["environments"], serde_json::json!(["dev"]));
    assert_eq!(f["location"]["path"], "app/deployment.yml");
    assert_eq!(f["location"]["line"], 6);
    assert_eq!(
        f["message"],
        "rendered output: spec.replicas: must be at least 3 replicas"
    );
    // ytt does not check output documents: neither does `render`
    let (code, out, err) = render(
        p,
        &["-f", "app", "--data-values-file", "envs/dev/values.yml"],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "kind: Deployment\nspec:\n  replicas: 1\n");
}

/// A value read only under a condition no environment meets is a note
/// naming the read and its condition (`schema/unreached-value`), not an
/// unused value; a value no source mentions stays `schema/unused-value`.
/// knative-serving's shape: `workloads.<component>.replicas` for several
/// components, an HA overlay reading one of them on a path no environment
/// takes. Only the value that line reads is "read here"; a sibling with the
/// same last key that nothing reads is unused, not read at that line.
#[test]
fn every_read_here_place_reads_its_value() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    write(
        p,
        "libs/serving/schema.yml",
        "#@data/values-schema\n---\nha: false\nworkloads:\n  autoscaler:\n    replicas: 1\n  domain_mapping:\n    replicas: 1\n  webhook:\n    replicas: 1\n",
    );
    write(
        p,
        "libs/serving/overlays/ha-setup.yml",
        "#@ load(\"@ytt:data\", \"data\")\n#@ load(\"@ytt:overlay\", \"overlay\")\n---\nkind: ConfigMap\nmetadata:\n  name: ha\n#@ if data.values.ha:\ndata:\n  webhook: #@ str(data.values.workloads.webhook[\"replicas\"])\n  autoscaler: #@ str(data.values.workloads.autoscaler.replicas)\n#@ end\n",
    );
    write(p, "envs/prod/serving.yml", "ha: false\n");
    let json = check_json(p, &[]);
    let findings = json["findings"].as_array().unwrap();
    let about = |value: &str| -> Vec<&serde_json::Value> {
        findings
            .iter()
            .filter(|f| {
                f["message"]
                    .as_str()
                    .unwrap()
                    .contains(&format!("'{value}'"))
            })
            .collect()
    };
    let autoscaler = about("workloads.autoscaler.replicas");
    assert_eq!(autoscaler.len(), 1, "{json:#}");
    assert_eq!(autoscaler[0]["rule"], "schema/unreached-value");
    assert_eq!(
        autoscaler[0]["related"][0]["location"]["line"], 10,
        "{json:#}"
    );
    let webhook = about("workloads.webhook.replicas");
    assert_eq!(webhook[0]["rule"], "schema/unreached-value");
    assert_eq!(webhook[0]["related"][0]["location"]["line"], 9, "{json:#}");
    // nothing reads domain_mapping: unused, with no place that "reads" it
    let domain = about("workloads.domain_mapping.replicas");
    assert_eq!(domain.len(), 1, "{json:#}");
    assert_eq!(domain[0]["rule"], "schema/unused-value", "{json:#}");
    // every "read here" line names the value it is about
    for f in findings
        .iter()
        .filter(|f| f["rule"] == "schema/unreached-value")
    {
        let message = f["message"].as_str().unwrap();
        let value = message.split('\'').nth(1).unwrap();
        for r in f["related"].as_array().unwrap() {
            let line = r["location"]["line"].as_u64().unwrap() as usize;
            let text =
                std::fs::read_to_string(p.join(r["location"]["path"].as_str().unwrap())).unwrap();
            let at = text.lines().nth(line - 1).unwrap();
            let parent = value.rsplit('.').nth(1).unwrap();
            assert!(at.contains(parent), "{value} is not read at {line}: {at}");
        }
    }
}

#[test]
fn a_value_read_only_on_a_path_no_environment_takes_is_unreached_not_unused() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    write(
        p,
        "libs/velero/schema.yml",
        "#@data/values-schema\n---\nimages:\n  update: false\n  velero: velero:v1\nlegacy: 1\n",
    );
    write(
        p,
        "libs/velero/deploy.yml",
        "#@ load(\"@ytt:data\", \"data\")\n#@ values = data.values\n---\nkind: Deployment\n#@ if values.images.update:\nimage: #@ values.images.velero\n#@ end\n",
    );
    write(p, "envs/prod/velero.yml", "images:\n  update: false\n");
    let json = check_json(p, &[]);
    let rules = rules_of(&json);
    assert_eq!(
        rules
            .iter()
            .map(|r| (r.0.as_str(), r.2))
            .collect::<Vec<_>>(),
        // worst first: the warning, then the note
        [("schema/unused-value", 6), ("schema/unreached-value", 5)],
        "{json:#}"
    );
    let unreached = &json["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["rule"] == "schema/unreached-value")
        .unwrap()["message"];
    assert_eq!(
        unreached,
        "data value 'images.velero' is read at libs/velero/deploy.yml:6, but on a path no environment takes (prod): see the condition at libs/velero/deploy.yml:5"
    );
    // an environment that takes the path reads it: no finding
    write(p, "envs/dev/velero.yml", "images:\n  update: true\n");
    let json = check_json(p, &[]);
    let rules = rules_of(&json);
    assert_eq!(
        rules.iter().map(|r| r.0.as_str()).collect::<Vec<_>>(),
        ["schema/unused-value"],
        "{json:#}"
    );
}

/// A flood of unused values in one library (a vendored package) says how to
/// silence them for its files.
#[test]
fn a_flood_of_unused_values_says_how_to_silence_it() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    let keys: String = (0..12).map(|i| format!("k{i}: {i}\n")).collect();
    write(
        p,
        "vendor/pkg/schema.yml",
        format!("#@data/values-schema\n---\nused: 1\n{keys}"),
    );
    write(
        p,
        "vendor/pkg/t.yml",
        "#@ load(\"@ytt:data\", \"data\")\n---\nx: #@ data.values.used\n",
    );
    write(p, "envs/prod/pkg.yml", "used: 2\n");
    let json = check_json(p, &[]);
    let unused: Vec<&serde_json::Value> = json["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "schema/unused-value")
        .collect();
    assert_eq!(unused.len(), 12, "{json:#}");
    let hint = unused[0]["detail"].as_array().unwrap().last().unwrap();
    assert!(
        hint.as_str()
            .unwrap()
            .contains("ignore: [{rule: schema/unused-value, paths: [\"vendor/pkg/**\"]}]"),
        "{hint}"
    );
    // and doing what it says silences them
    write(
        p,
        ".yttcheck.yml",
        "ignore:\n  - rule: schema/unused-value\n    paths: [\"vendor/pkg/**\"]\n",
    );
    let json = check_json(p, &[]);
    assert!(
        !json["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["rule"] == "schema/unused-value"),
        "{json:#}"
    );
}

/// As ytt: text templates' results are not printed to stdout, and stderr
/// says so (with ytt's words).
#[test]
fn non_yaml_templates_are_announced_as_ytt_does() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    write(p, "foo.yaml", "foo: bar\n");
    write(p, "ini.txt", "[owner]\nname=John\n");
    let (code, out, err) = run(p, &["render", "-f", "."]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "foo: bar\n");
    assert_eq!(
        err,
        "\nWarning: Found Non-YAML templates in input. Non-YAML templates are not rendered to standard output.\nIf you want to include those results, use the --output-files or --dangerous-emptied-output-directory flag.\n"
    );
    // with --output-files there is nothing to warn about
    let out_dir = p.join("out");
    let (code, _, err) = run(
        p,
        &[
            "render",
            "-f",
            ".",
            "--output-files",
            out_dir.to_str().unwrap(),
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("Warning"), "{err}");
}

/// `--file-mark` as ytt takes it: a values file marked plain YAML is no
/// values document, an excluded one is gone, `data` is readable only with
/// `data.read`, a mark that matches nothing is an error; `--files-inspect`
/// lists the files after the marks; and the same marks in `.yttcheck.yml`
/// (`file_marks:` of a library) act on `check`.
#[test]
fn file_marks_act_as_in_ytt_on_inspect_render_and_check() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    write(p, "lib/schema.yml", "#@data/values-schema\n---\na: 0\n");
    write(p, "lib/values.yml", "#@data/values\n---\na: 1\n");
    write(p, "lib/t.yml", "#@ load(\"@ytt:data\", \"data\")\n---\na: #@ data.values.a\nraw: #@ data.read(\"raw.yml\")\n");
    write(p, "lib/raw.yml", "#@ this is not a template\nk: v\n");
    let (code, out, err) = run(
        p,
        &["inspect", "-f", "lib", "--file-mark", "raw.yml:type=data"],
    );
    assert_eq!((code, out.as_str()), (0, "a: 1\n"), "{err}");
    let (_, out, _) = run(
        p,
        &[
            "inspect",
            "-f",
            "lib",
            "--file-mark",
            "values.yml:type=yaml-plain",
            "--file-mark",
            "raw.yml:type=data",
        ],
    );
    assert_eq!(out, "a: 0\n");
    let (_, out, _) = run(
        p,
        &[
            "inspect",
            "-f",
            "lib",
            "--file-mark",
            "values.yml:exclude=true",
            "--file-mark",
            "raw.yml:type=data",
        ],
    );
    assert_eq!(out, "a: 0\n");
    let (code, _, err) = run(
        p,
        &[
            "inspect",
            "-f",
            "lib",
            "--file-mark",
            "nomatch.yml:exclude=true",
        ],
    );
    assert_eq!(code, 1);
    assert!(
        err.contains("Expected file mark 'nomatch.yml:exclude=true' to match at least one file by path, but did not"),
        "{err}"
    );
    let (_, out, _) = run(
        p,
        &[
            "inspect",
            "-f",
            "lib",
            "--file-mark",
            "values.yml:exclude=true",
            "--file-mark",
            "t.yml:path=sub/t.yml",
            "--files-inspect",
        ],
    );
    assert_eq!(out, "- raw.yml\n- schema.yml\n- sub/t.yml\n");
    let (code, out, err) = run(
        p,
        &["render", "-f", "lib", "--file-mark", "raw.yml:type=data"],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "a: 1\nraw: |\n  #@ this is not a template\n  k: v\n");

    // in .yttcheck.yml: without the mark, raw.yml is a template that fails
    write(p, "envs/prod/lib.yml", "a: 2\n");
    let (code, json) = super::common::check_json(p, &[]);
    assert_eq!(code, 1, "{json}");
    write(
        p,
        ".yttcheck.yml",
        "libraries:\n  - path: lib\n    file_marks: [\"raw.yml:type=data\"]\n",
    );
    let (code, json) = super::common::check_json(p, &[]);
    assert_eq!(code, 0, "{json}");
    let (_, out, _) = run(p, &["list"]);
    assert!(out.contains("--file-mark raw.yml:type=data"), "{out}");
    // a mark that matches nothing is the library's configuration problem
    write(
        p,
        ".yttcheck.yml",
        "libraries:\n  - path: lib\n    file_marks: [\"nomatch.yml:type=data\"]\n",
    );
    let (code, json) = super::common::check_json(p, &[]);
    assert_eq!(code, 2, "{json}");
}

/// ytt's library edges: a plain merge refuses a fragment that still carries
/// annotations (code annotations are gone after evaluation, the others stay),
/// a library evaluated with `dangerous_data_values_disable_validation=True`
/// skips validation in its own libraries too, and errors name files by their
/// path from the root given with `-f`.
#[test]
fn library_edges_act_as_in_ytt() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    write(p, "_ytt_lib/lib/values.yml", "#@data/values\n---\nfoo: 1\n");
    write(
        p,
        "_ytt_lib/lib/out.yml",
        "#@ load(\"@ytt:data\", \"data\")\n---\nout: #@ data.values\n",
    );
    let main = |fragment: &str| {
        format!(
            "#@ load(\"@ytt:library\", \"library\")\n#@ load(\"@ytt:template\", \"template\")\n#@ def frag():\n{fragment}\n#@ end\n#@ lib = library.get(\"lib\").with_data_values(frag(), plain=True)\n--- #@ template.replace(lib.eval())\n"
        )
    };
    for (fragment, out) in [
        ("foo: 2", "out:\n  foo: 2\n"),
        ("#@ if True:\nfoo: 3\n#@ end", "out:\n  foo: 3\n"),
        ("#! a comment\nfoo: 4", "out:\n  foo: 4\n"),
    ] {
        write(p, "main.yml", main(fragment));
        let (code, stdout, err) = render(p, &["-f", "."]);
        assert_eq!((code, stdout.as_str()), (0, out), "{fragment}: {err}");
    }
    for fragment in [
        "#@overlay/match missing_ok=True\nnew: 2",
        "#@schema/nullable\nfoo: 4",
        "#@yaml/text-templated-strings\nfoo: \"(@= str(1) @)\"",
    ] {
        write(p, "main.yml", main(fragment));
        let (code, _, err) = render(p, &["-f", "."]);
        assert_eq!(code, 1, "{fragment}");
        assert!(
            err.contains("- library.with_data_values: Expected to be plain YAML, having no annotations (hint: remove comments starting with `#@`)\n    in <toplevel>\n      main.yml:")
                && err.contains(" | #@ lib = library.get(\"lib\").with_data_values(frag(), plain=True)"),
            "{fragment}: {err}"
        );
    }

    // errors in a library's values name the file from the root
    write(
        p,
        "_ytt_lib/lib/values.yml",
        "#@data/values\n---\nfoo: #@ 1/0\n",
    );
    write(p, "main.yml", main("foo: 2"));
    let (code, _, err) = render(p, &["-f", "."]);
    assert_eq!(code, 1);
    assert!(err.contains("Overlaying data values (in following order: _ytt_lib/lib/values.yml, additional data values): Templating file '_ytt_lib/lib/values.yml': "), "{err}");
    assert!(err.contains("     - real division by zero\n"), "{err}");

    // validation off for a library is off for its libraries
    write(
        p,
        "_ytt_lib/lib/values.yml",
        "#@data/values-schema\n---\n#@schema/validation min=5\nnum: 9\n",
    );
    write(
        p,
        "_ytt_lib/lib/_ytt_lib/dep/values.yml",
        "#@data/values-schema\n---\n#@schema/validation min=5\nnum: 1\n",
    );
    write(
        p,
        "_ytt_lib/lib/_ytt_lib/dep/out.yml",
        "#@ load(\"@ytt:data\", \"data\")\n---\ndep: #@ data.values.num\n",
    );
    write(
        p,
        "_ytt_lib/lib/out.yml",
        "#@ load(\"@ytt:library\", \"library\")\n#@ load(\"@ytt:template\", \"template\")\n--- #@ template.replace(library.get(\"dep\").eval())\n",
    );
    let main = |kwargs: &str| {
        format!("#@ load(\"@ytt:library\", \"library\")\n#@ load(\"@ytt:template\", \"template\")\n--- #@ template.replace(library.get(\"lib\"{kwargs}).eval())\n")
    };
    write(
        p,
        "main.yml",
        main(", dangerous_data_values_disable_validation=True"),
    );
    let (code, out, err) = render(p, &["-f", "."]);
    assert_eq!((code, out.as_str()), (0, "dep: 1\n"), "{err}");
    write(p, "main.yml", main(""));
    let (code, _, err) = render(p, &["-f", "."]);
    assert_eq!(code, 1);
    // the nested error, blank lines at its end included, indented as ytt does
    assert!(
        err.ends_with("                found: value < 5\n          \n          \n"),
        "{err:?}"
    );
}

/// `@ytt:overlay`'s matchers, which the overlay engine applies to the
/// documents and items themselves (no copy through Starlark) unless a
/// Starlark function takes part: the same matches either way, and ytt's
/// errors, where `and_op`, `or_op` and `not_op` (which ytt names `or_op`)
/// put their name before what failed inside them.
#[test]
fn overlay_matchers_match_and_fail_as_in_ytt() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    write(
        p,
        "a.yml",
        "kind: A\nmetadata: {name: x}\n---\nkind: B\nitems:\n- name: a\n  v: 1\n- other: 2\n",
    );
    write(
        p,
        "o.yml",
        concat!(
            "#@ load(\"@ytt:overlay\", \"overlay\")\n",
            "#@overlay/match by=overlay.or_op(overlay.subset({\"kind\": \"A\"}), overlay.not_op(overlay.index(0))), expects=2\n",
            "---\n#@overlay/match missing_ok=True\nseen: true\n",
            "---\n#@overlay/match by=overlay.and_op(overlay.subset({\"kind\": \"B\"}), lambda i,l,r: \"items\" in l)\n",
            "---\nitems:\n",
            "#@overlay/match by=overlay.subset({\"name\": \"a\"})\n- name: a\n  v: 2\n",
            "#@overlay/match by=overlay.index(1)\n- other: 3\n",
            "#@overlay/match by=overlay.subset({\"x\": 1}), missing_ok=True\n- x: 1\n",
        ),
    );
    let (code, out, err) = render(p, &["-f", "a.yml", "-f", "o.yml"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        "kind: A\nmetadata:\n  name: x\nseen: true\n---\nkind: B\nitems:\n- name: a\n  v: 2\n- other: 3\n- x: 1\nseen: true\n"
    );
    for (by, says) in [
        ("overlay.map_key(\"name\")", "overlay.map_key_matcher:\n    Expected to find map item with key 'name', but did not"),
        ("overlay.and_op(overlay.subset({\"kind\": \"B\"}), overlay.map_key(\"kind\"))", "overlay.and_op: overlay.map_key_matcher:\n    Expected to find map item with key 'kind', but did not"),
        ("overlay.not_op(overlay.map_key(\"kind\"))", "overlay.or_op: overlay.map_key_matcher:\n    Expected to find map item with key 'kind', but did not"),
        ("overlay.and_op(lambda i,l,r: l[\"zz\"])", "overlay.and_op: key \"zz\" not in yamlfragment"),
        ("overlay.not_op(lambda i,l,r: 1)", "overlay.or_op: expected starlark.Bool, but was starlark.Int"),
    ] {
        write(
            p,
            "o.yml",
            format!("#@ load(\"@ytt:overlay\", \"overlay\")\n#@overlay/match by={by}, expects=\"0+\"\n---\n#@overlay/match missing_ok=True\nadded: 1\n"),
        );
        let (code, _, err) = render(p, &["-f", "a.yml", "-f", "o.yml"]);
        assert_eq!(code, 1, "{by}");
        assert!(
            err.contains(&format!("  Document on line o.yml:3: {says}\n")),
            "{by}: {err}"
        );
    }
}

/// A value read only inside `assert.try_to(lambda: ...)` (external-dns
/// reads an optional value that way) is read: not unused, not unreached.
#[test]
fn a_value_read_inside_assert_try_to_is_used() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    write(
        p,
        "app/schema.yml",
        "#@data/values-schema\n---\nname: web\n#@schema/nullable\nprovider: \"\"\nunread: 1\n",
    );
    write(
        p,
        "app/deployment.yml",
        concat!(
            "#@ load(\"@ytt:data\", \"data\")\n",
            "#@ load(\"@ytt:assert\", \"assert\")\n",
            "#@ provider, err = assert.try_to(lambda: data.values.provider)\n",
            "---\nname: #@ data.values.name\nprovider: #@ provider or \"none\"\n",
        ),
    );
    write(p, "envs/dev/app.yml", "#@data/values\n---\nname: dev\n");
    let json = check_json(p, &[]);
    let unused: Vec<String> = json["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| {
            let r = f["rule"].as_str().unwrap();
            r == "schema/unused-value" || r == "schema/unreached-value"
        })
        .map(|f| f["message"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(unused.len(), 1, "{json:#}");
    assert!(unused[0].contains("'unread'"), "{json:#}");
}

/// `yttcheck render` takes ytt's inspect flags as ytt does: a drop-in for
/// `ytt ... --data-values-inspect` and `--data-values-schema-inspect`.
#[test]
fn render_with_ytts_inspect_flags_prints_what_ytt_prints() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    write(
        p,
        "app/schema.yml",
        "#@data/values-schema\n---\n#@schema/validation min=1\nreplicas: 1\nname: web\n",
    );
    write(
        p,
        "app/deploy.yml",
        "#@ load(\"@ytt:data\", \"data\")\n---\nreplicas: #@ data.values.replicas\n",
    );
    write(p, "prod.yml", "replicas: 3\n");
    for flags in [
        &["--data-values-inspect"][..],
        &["--data-values-schema-inspect", "-o", "openapi-v3"][..],
        &["--data-values-inspect", "-o", "json"][..],
    ] {
        let mut render = vec!["render", "-f", "app", "--data-values-file", "prod.yml"];
        render.extend(flags);
        let mut inspect = vec!["inspect", "-f", "app", "--data-values-file", "prod.yml"];
        inspect.extend(flags);
        let (code, out, err) = run(p, &render);
        assert_eq!(code, 0, "{flags:?}: {err}");
        let (_, want, _) = run(p, &inspect);
        assert_eq!(out, want, "{flags:?}");
        assert!(!out.contains("kind"), "{flags:?}: rendered instead: {out}");
    }
    let (_, out, _) = run(p, &["render", "-f", "app", "--data-values-inspect"]);
    assert_eq!(out, "replicas: 1\nname: web\n");
    // and a failed validation fails as ytt does
    write(p, "zero.yml", "replicas: 0\n");
    let (code, _, err) = run(
        p,
        &[
            "render",
            "-f",
            "app",
            "--data-values-file",
            "zero.yml",
            "--data-values-inspect",
        ],
    );
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("replicas"), "{err}");
}

/// The rendered-manifests pattern: every pair rendered into
/// DIR/<library>/<environment>/ as its ytt command renders it, and
/// `--check` naming each pair whose committed output is stale.
#[test]
fn render_all_writes_every_pair_and_check_finds_stale_output() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    super::common::git(p, &["init", "-q", "-b", "main"]);
    write(
        p,
        "libs/web/schema.yml",
        "#@data/values-schema\n---\nreplicas: 1\n",
    );
    write(
        p,
        "libs/web/deploy.yml",
        "#@ load(\"@ytt:data\", \"data\")\n---\nkind: Deployment\nreplicas: #@ data.values.replicas\n",
    );
    write(
        p,
        "libs/web/notes.txt",
        "(@= \"rendered for \" + str(1) @)\n",
    );
    write(p, "envs/dev/web.yml", "replicas: 1\n");
    write(p, "envs/prod/web.yml", "replicas: 3\n");
    let (code, out, err) = run(p, &["render", "--all", "--output-files", "rendered"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("rendered: web/prod (2 files)"), "{out}");
    let prod = std::fs::read_to_string(p.join("rendered/web/prod/deploy.yml")).unwrap();
    // what the pair's own ytt command renders
    let (_, want, _) = run(
        p,
        &[
            "render",
            "-f",
            "libs/web",
            "--data-values-file",
            "envs/prod/web.yml",
        ],
    );
    assert_eq!(prod, want);
    assert!(p.join("rendered/web/dev/notes.txt").is_file());
    // deterministic: a second run writes the same bytes
    let before = std::fs::read(p.join("rendered/web/prod/deploy.yml")).unwrap();
    run(p, &["render", "--all", "--output-files", "rendered"]);
    assert_eq!(
        std::fs::read(p.join("rendered/web/prod/deploy.yml")).unwrap(),
        before
    );
    let (code, out, _) = run(
        p,
        &["render", "--all", "--output-files", "rendered", "--check"],
    );
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("fresh: 2 pairs"), "{out}");
    // a values change makes prod's output stale; an old pair's folder too
    write(p, "envs/prod/web.yml", "replicas: 5\n");
    write(p, "rendered/gone/dev/deploy.yml", "kind: Old\n");
    let (code, out, err) = run(
        p,
        &["render", "--all", "--output-files", "rendered", "--check"],
    );
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("stale: web/prod: deploy.yml"), "{out}");
    assert!(
        out.contains("stale: gone/dev: no pair renders it any more"),
        "{out}"
    );
    assert!(!out.contains("web/dev"), "{out}");
    assert!(
        err.contains("run `yttcheck render --all --output-files rendered`"),
        "{err}"
    );
    // --check wrote nothing
    assert_eq!(
        std::fs::read(p.join("rendered/web/prod/deploy.yml")).unwrap(),
        before
    );
    // a name from the configuration never leads out of DIR
    write(p, "victim/keep.txt", "untouched\n");
    write(
        p,
        ".yttcheck.yml",
        "libraries:\n- path: libs/web\n  name: \"../victim\"\ndiscover: false\n",
    );
    let (code, _, err) = run(p, &["render", "--all", "--output-files", "rendered"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("no plain folder name"), "{err}");
    assert_eq!(
        std::fs::read_to_string(p.join("victim/keep.txt")).unwrap(),
        "untouched\n"
    );
}
