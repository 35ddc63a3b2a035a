//! `yttcheck check`, `list` and `explain` through the real binary, on the
//! bundled monorepo example and on broken repositories made in temp dirs.
//! Every report format is pinned with a snapshot; the SARIF output must pass
//! Microsoft's SARIF Multitool with GitHub's ingestion rules.

use std::path::{Path, PathBuf};

use assert_cmd::Command;

use super::common::{validate_sarif, write};

fn monorepo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/monorepo")
}

fn yttcheck(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::cargo_bin("yttcheck")
        .unwrap()
        .current_dir(dir)
        .env_remove("NO_COLOR")
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).to_string(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

/// Timings vary from run to run; snapshots leave them out.
fn without_times(s: &str) -> String {
    let re = regex::Regex::new(r#"time="[0-9.]+"|\([0-9.]+s\)"#).unwrap();
    re.replace_all(s, |c: &regex::Captures| {
        if c[0].starts_with("time") {
            "time=\"T\"".to_string()
        } else {
            "(Ts)".to_string()
        }
    })
    .to_string()
}

#[test]
fn text_report() {
    let (code, out, err) = yttcheck(&monorepo(), &["check"]);
    assert_eq!(code, 1, "{err}");
    insta::assert_snapshot!("monorepo_text", without_times(&out));
}

#[test]
fn every_other_format() {
    for format in ["json", "github", "gitlab", "junit", "markdown", "sarif"] {
        let (code, out, err) = yttcheck(&monorepo(), &["check", "--format", format]);
        assert_eq!(code, 1, "{format}: {err}");
        insta::assert_snapshot!(format!("monorepo_{format}"), without_times(&out));
    }
}

#[test]
fn several_formats_at_once_to_files() {
    let d = tempfile::tempdir().unwrap();
    let sarif = d.path().join("out.sarif");
    let md = d.path().join("summary.md");
    let (code, out, _) = yttcheck(
        &monorepo(),
        &[
            "check",
            "--format",
            "github",
            "--format",
            &format!("sarif={}", sarif.display()),
            "--format",
            &format!("markdown={}", md.display()),
        ],
    );
    assert_eq!(code, 1);
    assert!(out.starts_with("::error file="), "{out}");
    assert!(std::fs::read_to_string(&sarif)
        .unwrap()
        .contains("\"version\": \"2.1.0\""));
    assert!(std::fs::read_to_string(&md)
        .unwrap()
        .starts_with("## ❌ yttcheck: 4 errors, 1 warning"));
}

/// GitLab's Code Quality widget needs these fields, and drops all but one
/// issue of a fingerprint.
#[test]
fn gitlab_code_quality_issues_are_complete_and_unique() {
    let (code, out, err) = yttcheck(&monorepo(), &["check", "--format", "gitlab"]);
    assert_eq!(code, 1, "{err}");
    let issues: Vec<serde_json::Value> = serde_json::from_str(&out).unwrap();
    assert!(issues.len() >= 5, "{out}");
    let mut fingerprints = std::collections::BTreeSet::new();
    for i in &issues {
        assert!(!i["description"].as_str().unwrap().is_empty());
        assert!(i["check_name"].as_str().unwrap().contains('/'));
        assert!(["info", "minor", "major", "critical", "blocker"]
            .contains(&i["severity"].as_str().unwrap()));
        // from the repository's root (the example is a folder of this one),
        // as GitLab matches them against the merge request's files
        let path = i["location"]["path"].as_str().unwrap();
        assert!(path.starts_with("examples/monorepo/"), "{path}");
        assert!(
            Path::new(env!("CARGO_MANIFEST_DIR")).join(path).is_file(),
            "{path}"
        );
        assert!(i["location"]["lines"]["begin"].as_u64().unwrap() >= 1);
        assert!(fingerprints.insert(i["fingerprint"].as_str().unwrap().to_string()));
    }
    // the same findings, in the order of the other reports
    let (_, json, _) = yttcheck(&monorepo(), &["check", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["findings"].as_array().unwrap().len(), issues.len());
}

#[test]
fn sarif_passes_the_multitool_with_github_rules() {
    let d = tempfile::tempdir().unwrap();
    let sarif = d.path().join("out.sarif");
    let (code, _, _) = yttcheck(
        &monorepo(),
        &["check", "--format", &format!("sarif={}", sarif.display())],
    );
    assert_eq!(code, 1);
    validate_sarif(&sarif);
}

#[test]
fn exit_codes() {
    // clean: 0
    let (code, out, _) = yttcheck(&monorepo(), &["check", "--library", "web", "--env", "dev"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("no findings in 1 pair of 1 library"), "{out}");
    // a warning fails only with --fail-on warning
    let (code, _, _) = yttcheck(&monorepo(), &["check", "--library", "worker"]);
    assert_eq!(code, 0);
    let (code, _, _) = yttcheck(
        &monorepo(),
        &["check", "--library", "worker", "--fail-on", "warning"],
    );
    assert_eq!(code, 1);
    // usage errors: 2
    let (code, _, err) = yttcheck(&monorepo(), &["check", "--format", "xml"]);
    assert_eq!(code, 2);
    assert!(err.contains("unknown format 'xml'"), "{err}");
    let (code, _, err) = yttcheck(&monorepo(), &["check", "--library", "nope"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("no library named 'nope' (libraries: api, web, worker)"),
        "{err}"
    );
    let (code, _, _) = yttcheck(&monorepo(), &["check", "--shard", "3/2"]);
    assert_eq!(code, 2);
}

#[test]
fn shards_split_the_pairs_exactly() {
    let list = |args: &[&str]| -> Vec<String> {
        let mut all = vec!["list", "--format", "json"];
        all.extend_from_slice(args);
        let (code, out, err) = yttcheck(&monorepo(), &all);
        assert_eq!(code, 0, "{err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        v["pairs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["name"].as_str().unwrap().to_string())
            .collect()
    };
    let all = list(&[]);
    assert_eq!(all.len(), 9);
    let mut union = Vec::new();
    for i in 1..=4 {
        let part = list(&["--shard", &format!("{i}/4")]);
        assert!(part.iter().all(|p| !union.contains(p)), "shards overlap");
        union.extend(part);
    }
    union.sort();
    let mut sorted = all.clone();
    sorted.sort();
    assert_eq!(union, sorted);
}

#[test]
fn paths_select_the_pairs_that_read_them() {
    let (_, out, _) = yttcheck(&monorepo(), &["list", "envs/prod/web.yml"]);
    assert!(out.starts_with("web@prod\n"), "{out}");
    assert!(out.ends_with("1 pair of 1 library\n"), "{out}");
    let (_, out, _) = yttcheck(&monorepo(), &["list", "libs/api"]);
    assert!(out.ends_with("3 pairs of 1 library\n"), "{out}");
    // a path that exists nowhere is a usage error (a deleted file git still
    // knows selects its pairs: tests/it/git_modes.rs)
    let (code, _, err) = yttcheck(&monorepo(), &["list", "libs/api/removed.star"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("no such path 'libs/api/removed.star'"),
        "{err}"
    );
    let (_, out, _) = yttcheck(&monorepo(), &["list", "envs/prod/common.yml"]);
    assert!(out.ends_with("3 pairs of 3 libraries\n"), "{out}");
}

#[test]
fn list_shows_the_plan() {
    let (code, out, _) = yttcheck(&monorepo(), &["list"]);
    assert_eq!(code, 0);
    insta::assert_snapshot!("monorepo_list", out);
}

#[test]
fn broken_libraries_do_not_hide_each_other() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    // broken YAML
    write(
        p,
        "libs/a/schema.yml",
        "#@data/values-schema\n---\nport: [80\nhost: x\n",
    );
    // a Starlark error
    write(
        p,
        "libs/b/schema.yml",
        "#@data/values-schema\n---\nport: #@ 80 + \"80\"\n",
    );
    // a schema error
    write(
        p,
        "libs/c/schema.yml",
        "#@data/values-schema\n---\nports: []\n",
    );
    // a good library, with a violation in one environment
    write(
        p,
        "libs/d/schema.yml",
        "#@data/values-schema\n---\n#@schema/validation min=1\nreplicas: 1\n",
    );
    write(p, "envs/dev/d.yml", "replicas: 2\n");
    write(p, "envs/prod/d.yml", "replicas: 0\n");
    let (code, out, err) = yttcheck(p, &["check", "--format", "json"]);
    assert_eq!(code, 1, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let found: Vec<(String, String, String)> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["rule"].as_str().unwrap().to_string(),
                f["location"]["path"].as_str().unwrap_or("").to_string(),
                f["library"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    for expected in [
        ("yaml/syntax", "libs/a/schema.yml", "a"),
        ("template/error", "libs/b/schema.yml", "b"),
        ("schema/invalid", "libs/c/schema.yml", "c"),
        ("validation/min", "envs/prod/d.yml", "d"),
    ] {
        assert!(
            found.contains(&(expected.0.into(), expected.1.into(), expected.2.into())),
            "{expected:?} not in {found:?}"
        );
    }
    assert_eq!(found.len(), 4, "{found:?}");
    // every pair ran: a, b and c have no environment files (their defaults), d has two
    assert_eq!(v["summary"]["pairs"], 5);
}

#[test]
fn unknown_annotations_are_warnings_that_do_not_stop_the_pair() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    write(
        p,
        "libs/a/schema.yml",
        "#@data/values-schema\n---\n#@schema/nulable\ntag: \"\"\n#@schema/validation min=1\nreplicas: 1\n",
    );
    write(
        p,
        "envs/prod/a.yml",
        "#@data/values\n---\n#@overlay/missing-child-defaults\nreplicas: 0\n",
    );
    let (code, out, err) = yttcheck(p, &["check", "--format", "json"]);
    // the violation is found: the unknown annotations did not stop evaluation
    assert_eq!(code, 1, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let found: Vec<(String, String, String, u64, String)> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["rule"].as_str().unwrap().to_string(),
                f["severity"].as_str().unwrap().to_string(),
                f["location"]["path"].as_str().unwrap_or("").to_string(),
                f["location"]["line"].as_u64().unwrap_or(0),
                f["message"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(found.len(), 3, "{found:?}");
    assert!(found.iter().any(|f| f.0 == "validation/min"), "{found:?}");
    let typo = found
        .iter()
        .find(|f| f.0 == "annotation/unknown" && f.2 == "libs/a/schema.yml")
        .expect("schema typo reported");
    assert_eq!((typo.1.as_str(), typo.3), ("warning", 3), "{typo:?}");
    assert!(
        typo.4.contains("did you mean '@schema/nullable'"),
        "{typo:?}"
    );
    assert!(typo.4.contains("ytt ignores"), "{typo:?}");
    let other = found
        .iter()
        .find(|f| f.0 == "annotation/unknown" && f.2 == "envs/prod/a.yml")
        .expect("env annotation reported");
    assert_eq!(other.3, 3, "{other:?}");

    // warnings alone do not fail the run, unless asked to
    write(p, "envs/prod/a.yml", "replicas: 2\n");
    let (code, out, err) = yttcheck(p, &["check"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("annotation/unknown"), "{out}");
    let (code, _, _) = yttcheck(p, &["check", "--fail-on", "warning"]);
    assert_eq!(code, 1);
}

#[test]
fn unreadable_and_binary_files_are_findings() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    write(
        p,
        "libs/a/schema.yml",
        "#@data/values-schema\n---\nport: 1\n",
    );
    std::fs::write(
        p.join("libs/a/values.yml"),
        b"#@data/values\n---\nport: caf\xe9\n",
    )
    .unwrap();
    let (code, out, _) = yttcheck(p, &["check", "--format", "json"]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let f = &v["findings"][0];
    assert_eq!(f["rule"], "file/unreadable");
    assert_eq!(f["location"]["path"], "libs/a/values.yml");
    assert_eq!(f["location"]["line"], 3);
}

#[test]
fn config_file_errors_are_usage_errors() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), ".yttcheck.yml", "librarys:\n- glob: libs/*\n");
    let (code, _, err) = yttcheck(d.path(), &["check"]);
    assert_eq!(code, 2);
    assert_eq!(
        err,
        "yttcheck: error: .yttcheck.yml:1: unknown field `librarys`, expected one of `libraries`, `discover`, `environments`, `matrix`, `exclude`, `private_libraries`, `fail_on`, `min_severity`, `budget`, `secret_words`, `rules`, `ignore`, `policies`, `kubernetes`, `vendored`, `fail_on_existing`, `baseline`, `exports` (did you mean `libraries`?)\n"
    );
}

#[test]
fn config_declares_libraries_environments_and_flags() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    write(
        p,
        "platform/base/schema.yml",
        "#@data/values-schema\n---\nregion: \"\"\nreplicas: 1\n",
    );
    write(p, "regions/eu.yml", "region: eu\n");
    write(
        p,
        ".yttcheck.yml",
        "libraries:\n- path: platform/base\n  name: base\nenvironments:\n- name: eu\n  data_values_files: [regions/eu.yml]\n  data_values_yaml: [replicas=three]\n",
    );
    let (code, out, _) = yttcheck(p, &["list"]);
    assert_eq!(code, 0);
    assert!(
        out.contains("ytt -f platform/base --data-values-file regions/eu.yml --data-value-yaml replicas=three --data-values-inspect"),
        "{out}"
    );
    let (code, out, _) = yttcheck(p, &["check", "--format", "json"]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let f = &v["findings"][0];
    assert_eq!(f["rule"], "schema/type-mismatch");
    assert_eq!(f["origin"], "(data-value-yaml arg)");
}

#[test]
fn explain_documents_every_rule() {
    let (code, out, _) = yttcheck(&monorepo(), &["explain", "schema/undeclared-key"]);
    assert_eq!(code, 0);
    assert!(out.starts_with("schema/undeclared-key (error)\n"), "{out}");
    assert!(out.contains("Fix:"), "{out}");
    let (code, _, err) = yttcheck(&monorepo(), &["explain", "schema/undeclared"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("did you mean 'schema/undeclared-key'?"),
        "{err}"
    );
    // the documentation lists every rule
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/rules.md"))
            .unwrap();
    for r in yttcheck::diagnostics::RuleId::ALL {
        let d = r.doc();
        assert!(
            readme.contains(&format!(
                "| `{}` | {} | {} |",
                d.id,
                d.severity.as_str(),
                d.summary
            )),
            "docs/rules.md's table lacks (or words differently) rule {}",
            d.id
        );
    }
    // a rule's name without its namespace finds it when only one rule has it
    let (code, out, _) = yttcheck(&monorepo(), &["explain", "undeclared-key"]);
    assert_eq!(code, 0);
    assert!(out.starts_with("schema/undeclared-key (error)"), "{out}");
}

#[test]
fn config_budget_stops_runaway_templates() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    write(
        p,
        "lib/schema.yml",
        "#@ n = 0\n#@ for i in range(100000000):\n#@   n = i\n#@ end\n#@data/values-schema\n---\nx: 1\n",
    );
    write(p, ".yttcheck.yml", "budget:\n  max_steps: 10000\n");
    let (code, out, _) = yttcheck(p, &["check", "--format", "json"]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let f = &v["findings"][0];
    assert_eq!(f["rule"], "template/budget");
    assert_eq!(f["location"]["path"], "lib/schema.yml");
    assert_eq!(f["location"]["line"], 3);
    assert!(
        f["message"].as_str().unwrap().contains("after 10000 steps"),
        "{f}"
    );
}

#[test]
fn removed_and_deprecated_values() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    write(
        p,
        "libs/web/schema.yml",
        "#@data/values-schema\n---\n#@schema/removed \"use image.tag\"\ntag: \"\"\n#@schema/deprecated \"use replicas\"\ncount: 0\nreplicas: 1\n",
    );
    write(p, "envs/prod/web.yml", "tag: v1\ncount: 2\n");
    write(p, "envs/dev/web.yml", "replicas: 2\n");
    let (code, out, _) = yttcheck(p, &["check", "--format", "json"]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let found: Vec<(String, String, String)> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["rule"].as_str().unwrap().to_string(),
                f["message"].as_str().unwrap().to_string(),
                f["environments"][0].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        found,
        vec![
            (
                "values/removed".into(),
                "tag: this value is removed: use image.tag".into(),
                "prod".into()
            ),
            (
                "values/deprecated".into(),
                "count: this value is deprecated: use replicas".into(),
                "prod".into()
            ),
        ]
    );
}

/// A schema whose only deprecated value is deep inside an array of maps:
/// the check of whether a schema marks anything must look that far.
#[test]
fn deprecated_value_nested_in_an_array() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    write(
        p,
        "libs/web/schema.yml",
        "#@data/values-schema\n---\nports:\n- name: \"\"\n  #@schema/deprecated \"use name\"\n  id: 0\n",
    );
    write(p, "envs/prod/web.yml", "ports:\n- name: http\n  id: 80\n");
    write(p, "envs/dev/web.yml", "ports:\n- name: http\n");
    // a deprecated value is a warning: the check passes
    let (code, v) = super::common::check_json(p, &[]);
    assert_eq!(code, 0, "{v}");
    let found: Vec<(String, String)> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["message"].as_str().unwrap().to_string(),
                f["environments"][0].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        found,
        vec![(
            "ports[0].id: this value is deprecated: use name".into(),
            "prod".into()
        )]
    );
}

#[test]
fn flags_that_mean_one_thing() {
    // `-f` is a file in `inspect`; `check` has no short flag for formats
    let (code, _, err) = yttcheck(&monorepo(), &["check", "-f", "libs/web"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("'-f'"), "{err}");
    // list: one pair a line, or JSON
    let (code, out, _) = yttcheck(&monorepo(), &["list", "--names"]);
    assert_eq!(code, 0);
    assert_eq!(out.lines().count(), 9, "{out}");
    assert!(out.lines().any(|l| l == "web@prod"), "{out}");
    let (code, out, _) = yttcheck(&monorepo(), &["list", "--format", "json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["pairs"].as_array().unwrap().len(), 9);
    // inspect LIBRARY@ENV: a pair's final values as check computes them,
    // the same as ytt's inspect of the files `list` names
    let (code, out, err) = yttcheck(&monorepo(), &["inspect", "web@dev"]);
    assert_eq!(code, 0, "{err}");
    let (_, ytt_like, _) = yttcheck(
        &monorepo(),
        &[
            "inspect",
            "-f",
            "libs/web",
            "--data-values-file",
            "envs/dev/common.yml",
        ],
    );
    assert_eq!(out, ytt_like);
    assert!(out.contains("environment: dev"), "{out}");
    let (code, out, _) = yttcheck(&monorepo(), &["inspect", "web@prod", "--schema"]);
    assert_eq!(code, 0);
    assert!(out.starts_with("openapi: 3.0.0\n"), "{out}");
    // a pair with errors prints them and exits 1; an unknown one exits 2
    let (code, _, err) = yttcheck(&monorepo(), &["inspect", "web@prod"]);
    assert_eq!(code, 1);
    assert!(
        err.contains("error[schema/type-mismatch] envs/prod/web.yml"),
        "{err}"
    );
    let (code, _, err) = yttcheck(&monorepo(), &["inspect", "web@nope"]);
    assert_eq!(code, 2);
    assert!(err.contains("no environment named 'nope'"), "{err}");
}

#[test]
fn a_key_that_matches_nothing_without_a_schema_says_which_and_what_exists() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    write(
        p,
        "libs/app/values.yml",
        "#@data/values\n---\nreplicas: 1\nimage: x\n",
    );
    write(
        p,
        "libs/app/deploy.yml",
        "#@ load(\"@ytt:data\", \"data\")\n---\nreplicas: #@ data.values.replicas\n",
    );
    write(p, "envs/prod/app.yml", "#@data/values\n---\nreplicsa: 3\n");
    let (code, out, _) = yttcheck(p, &["check", "--color", "never"]);
    assert_eq!(code, 1);
    assert!(
        out.contains(
            "hint: key 'replicsa' is not in the values it overlays (keys here: replicas, image)"
        ),
        "{out}"
    );
    assert!(out.contains("hint: did you mean 'replicas'?"), "{out}");
    // and every other format carries the hints too
    let (_, out, _) = yttcheck(p, &["check", "--format", "github"]);
    assert!(out.contains("did you mean 'replicas'?"), "{out}");
    let (_, out, _) = yttcheck(p, &["check", "--format", "markdown"]);
    assert!(out.contains("did you mean 'replicas'?"), "{out}");
    let (_, out, _) = yttcheck(p, &["check", "--format", "sarif"]);
    assert!(out.contains("did you mean 'replicas'?"), "{out}");
    // inspect keeps ytt's text
    let (code, _, err) = yttcheck(p, &["inspect", "-f", "libs/app", "-f", "envs/prod/app.yml"]);
    assert_eq!(code, 1);
    assert!(!err.contains("did you mean"), "{err}");
    assert!(
        err.contains("Expected number of matched nodes to be 1, but was 0"),
        "{err}"
    );
}

#[test]
fn config_problems_point_at_the_offending_line() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    write(
        p,
        "libs/web/schema.yml",
        "#@data/values-schema\n---\nport: 1\n",
    );
    write(
        p,
        ".yttcheck.yml",
        "# libraries of this repository\nlibraries:\n- glob: libs/*\n- path: libs/nope\nenvironments:\n- glob: envs/*\nmatrix:\n  web: [prod]\n",
    );
    let (code, out, _) = yttcheck(p, &["check", "--format", "json"]);
    assert_eq!(code, 2, "{out}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let lines: Vec<(String, u64)> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "config/invalid")
        .map(|f| {
            (
                f["message"].as_str().unwrap().to_string(),
                f["location"]["line"].as_u64().unwrap(),
            )
        })
        .collect();
    let line_of = |needle: &str| {
        lines
            .iter()
            .find(|(m, _)| m.contains(needle))
            .unwrap_or_else(|| panic!("{needle} not in {lines:?}"))
            .1
    };
    assert_eq!(line_of("library path 'libs/nope'"), 4);
    assert_eq!(line_of("environment glob 'envs/*'"), 6);
    assert_eq!(line_of("environment 'prod' (for 'web')"), 8);
}

/// The rules of the findings of a `check --format json` run.
fn rules_found(dir: &Path, args: &[&str]) -> (i32, Vec<(String, String)>) {
    let mut all = vec!["check", "--format", "json"];
    all.extend_from_slice(args);
    let (code, out, err) = yttcheck(dir, &all);
    let v: serde_json::Value =
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}{err}"));
    let found = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["rule"].as_str().unwrap().to_string(),
                f["location"]["path"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    (code, found)
}

#[test]
fn findings_are_silenced_inline_in_config_and_by_a_baseline() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    write(
        p,
        "libs/web/schema.yml",
        "#@data/values-schema\n---\n#@schema/validation min=1\nreplicas: 1\nimage: x\n",
    );
    write(p, "envs/prod/web.yml", "replicas: 0\n");
    write(p, "envs/legacy/web.yml", "replica: 2\n");
    let (code, found) = rules_found(p, &[]);
    assert_eq!(code, 1);
    assert_eq!(found.len(), 2, "{found:?}");

    // inline, on the line above (ytt never sees a #! comment)
    write(
        p,
        "envs/prod/web.yml",
        "#! yttcheck: ignore[validation/min] scaled to zero on purpose\nreplicas: 0\n",
    );
    // per-path ignore in the config
    write(
        p,
        ".yttcheck.yml",
        "ignore:\n- rule: schema/undeclared-key\n  paths: [\"envs/legacy/**\"]\n  reason: old keys\n",
    );
    let (code, found) = rules_found(p, &[]);
    assert_eq!((code, found.len()), (0, 0), "{found:?}");
    // inspect (ytt) is unaffected by the comment
    let (code, _, _) = yttcheck(
        p,
        &[
            "inspect",
            "-f",
            "libs/web",
            "--data-values-file",
            "envs/prod/web.yml",
        ],
    );
    assert_eq!(code, 1);

    // per-rule severity, and `off`
    write(
        p,
        ".yttcheck.yml",
        "rules:\n  schema/undeclared-key: warning\n  validation/min: off\n",
    );
    let (code, found) = rules_found(p, &[]);
    assert_eq!(code, 0, "{found:?}");
    // the inline comment silences nothing now that the rule is off: a note
    assert!(
        found.contains(&("suppression/unused".into(), "envs/prod/web.yml".into())),
        "{found:?}"
    );
    assert!(
        found.contains(&("schema/undeclared-key".into(), "envs/legacy/web.yml".into())),
        "{found:?}"
    );
    // a typo in a rule id is a configuration error
    write(p, ".yttcheck.yml", "rules:\n  schema/undeclared: off\n");
    let (code, _, err) = yttcheck(p, &["check"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("did you mean `schema/undeclared-key`?"),
        "{err}"
    );

    // a baseline: accept today's findings, fail only on new ones
    std::fs::remove_file(p.join(".yttcheck.yml")).unwrap();
    write(p, "envs/prod/web.yml", "replicas: 0\n");
    let base = p.join("baseline.json");
    let base = base.to_str().unwrap();
    let (code, _, err) = yttcheck(p, &["check", "--baseline", base, "--update-baseline"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("wrote 2 findings"), "{err}");
    // lines that move keep their fingerprint
    write(p, "envs/prod/web.yml", "# scaled down\n\nreplicas: 0\n");
    let (code, found) = rules_found(p, &["--baseline", base]);
    assert_eq!((code, found.len()), (0, 0), "{found:?}");
    // a new problem fails
    write(p, "envs/dev/web.yml", "replicas: -1\n");
    let (code, found) = rules_found(p, &["--baseline", base]);
    assert_eq!(code, 1);
    assert_eq!(
        found,
        vec![("validation/min".to_string(), "envs/dev/web.yml".to_string())]
    );
    // fixed problems leave stale entries: a note says to rewrite the file
    std::fs::remove_file(p.join("envs/dev/web.yml")).unwrap();
    write(p, "envs/legacy/web.yml", "replicas: 2\n");
    let (code, found) = rules_found(p, &["--baseline", base]);
    assert_eq!(code, 0);
    assert_eq!(
        found,
        vec![("suppression/unused".to_string(), String::new())]
    );
}

#[test]
fn a_pathological_glob_is_a_config_error_at_its_line() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    write(p, "libs/a/schema.yml", "#@data/values-schema\n---\na: 1\n");
    // 150 nested alternates made globset panic ("regex compilation
    // shouldn't fail"): now a usage error that names the line
    let pattern = format!("{}b{}", "{a,".repeat(150), "}".repeat(150));
    write(
        p,
        ".yttcheck.yml",
        format!("# config\nexclude:\n- \"{pattern}\"\n"),
    );
    let (code, _, err) = yttcheck(p, &["check"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.starts_with("yttcheck: error: .yttcheck.yml:3: bad glob"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
    // a reasonable nesting still works
    let pattern = format!("{}b{}", "{a,".repeat(3), "}".repeat(3));
    write(p, ".yttcheck.yml", format!("exclude:\n- \"{pattern}\"\n"));
    let (code, _, err) = yttcheck(p, &["check"]);
    assert_eq!(code, 0, "{err}");
}

/// A baseline remembers the environments it accepted a finding in: the same
/// library problem (an `assert.fail` in a template) in a new environment
/// is new, reported for that environment only.
#[test]
fn a_baseline_does_not_hide_new_environments() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    write(
        p,
        "libs/harbor/schema.yml",
        "#@data/values-schema\n---\nreplicas: 1\n",
    );
    write(
        p,
        "libs/harbor/t.yml",
        "#@ load(\"@ytt:assert\", \"assert\")\n---\nx: #@ assert.fail(\"not ready\")\n",
    );
    write(p, "envs/prod/harbor.yml", "replicas: 2\n");
    let base = p.join("baseline.json");
    let base = base.to_str().unwrap();
    let (code, _, err) = yttcheck(p, &["check", "--baseline", base, "--update-baseline"]);
    assert_eq!(code, 0, "{err}");
    let file: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(base).unwrap()).unwrap();
    assert_eq!(
        file["findings"][0]["environments"],
        serde_json::json!(["prod"])
    );
    let (code, found) = rules_found(p, &["--baseline", base]);
    assert_eq!((code, found.len()), (0, 0), "{found:?}");

    write(p, "envs/staging/harbor.yml", "replicas: 1\n");
    let (code, out, _) = yttcheck(p, &["check", "--format", "json", "--baseline", base]);
    assert_eq!(code, 1, "{out}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let findings = v["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 1, "{out}");
    assert_eq!(findings[0]["rule"], "template/error");
    assert_eq!(findings[0]["environments"], serde_json::json!(["staging"]));
    let pairs: Vec<(&str, u64)> = v["pairs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["name"].as_str().unwrap(), p["errors"].as_u64().unwrap()))
        .collect();
    assert_eq!(pairs, [("harbor@prod", 0), ("harbor@staging", 1)]);

    // a baseline written before environments were kept accepts them all
    let legacy = serde_json::json!({"version": 1, "findings": [{
        "fingerprint": file["findings"][0]["fingerprint"], "rule": "template/error"}]});
    std::fs::write(base, legacy.to_string()).unwrap();
    let (code, found) = rules_found(p, &["--baseline", base]);
    assert_eq!((code, found.len()), (0, 0), "{found:?}");
}

/// `inspect LIBRARY@ENV` prints the values whenever ytt would: findings
/// ytt does not fail on (a policy, a deprecation, a lint elsewhere in the
/// library) go to stderr beside them; a failed validation prints nothing.
#[test]
fn inspect_of_a_pair_prints_the_values_ytt_would_print() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    write(
        p,
        "libs/web/schema.yml",
        "#@data/values-schema\n---\n#@schema/validation min=1\nreplicas: 1\n#@schema/deprecated \"use size\"\nold: \"\"\n",
    );
    // an overlay file with a lint (an annotation ytt ignores)
    write(p, "libs/web/overlay.yml", "#@overlay.remove\n---\na: 1\n");
    write(p, "envs/prod/web.yml", "replicas: 2\nold: x\n");
    write(
        p,
        "policies/prod.yml",
        "#@ load(\"@ytt:assert\", \"assert\")\n---\n#@assert/validate min=5\nreplicas: 0\n",
    );
    write(
        p,
        ".yttcheck.yml",
        "policies:\n  - path: policies/prod.yml\n",
    );
    let (code, out, err) = yttcheck(p, &["inspect", "web@prod"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "replicas: 2\nold: x\n", "{err}");
    assert!(err.contains("error[policy/prod/min]"), "{err}");
    assert!(err.contains("warning[values/deprecated]"), "{err}");
    // ytt fails on a failed validation: so does inspect, with the error
    write(p, "envs/prod/web.yml", "replicas: 0\n");
    let (code, out, err) = yttcheck(p, &["inspect", "web@prod"]);
    assert_eq!(code, 1);
    assert_eq!(out, "");
    assert!(err.contains("error[validation/min]"), "{err}");
}

/// Every command ends quietly when its reader goes away (`yttcheck explain
/// | head`): no panic on a broken pipe.
#[test]
fn a_closed_pipe_ends_every_command_quietly() {
    let repo = monorepo();
    for args in [
        &["explain"][..],
        &["list"][..],
        &["check", "--daemon", "never", "-q"][..],
        &["check", "--daemon", "never", "-q", "--format", "sarif"][..],
        &[
            "render",
            "-f",
            "libs/api",
            "--data-values-file",
            "envs/dev/api.yml",
        ][..],
        &["--help"][..],
    ] {
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_yttcheck"))
            .current_dir(&repo)
            .args(args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // the reader goes away before reading anything
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(
            matches!(out.status.code(), Some(0..=2)),
            "{args:?}: {:?} {err}",
            out.status
        );
    }
}

/// Run from a subfolder of a repository, annotations, SARIF and GitLab name
/// files from the repository's root (what GitHub and GitLab match), and a
/// finding about a whole file has no column in JSON.
#[test]
fn machine_reports_name_files_from_the_repository_root() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    super::common::git(p, &["init", "-q"]);
    let sub = p.join("deploy");
    write(
        &sub,
        "libs/web/schema.yml",
        "#@data/values-schema\n---\n#@schema/validation min=1\nreplicas: 1\n",
    );
    write(&sub, "envs/prod/web.yml", "replicas: 0\n");
    write(&sub, "stray.yml", "a: 1\n");
    let (_, out, _) = yttcheck(&sub, &["check", "--format", "github"]);
    assert!(
        out.contains("::error file=deploy/envs/prod/web.yml,line=1,"),
        "{out}"
    );
    // a finding of no pair (an unused file) ends with its message, not with
    // an empty "in" line of pairs
    let unused = out
        .lines()
        .find(|l| l.contains("workspace/unused-file"))
        .unwrap_or_else(|| panic!("no unused-file annotation: {out}"));
    assert!(
        unused.starts_with("::notice file=deploy/stray.yml,line=1,")
            && !unused.contains("%0Ain")
            && !unused.ends_with("%0A"),
        "{unused}"
    );
    let (_, out, _) = yttcheck(&sub, &["check", "--format", "sarif"]);
    assert!(
        out.contains("\"uri\": \"deploy/envs/prod/web.yml\""),
        "{out}"
    );
    let (_, out, _) = yttcheck(&sub, &["check", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    // JSON stays relative to the folder checked, like the text report
    let stray = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["rule"] == "workspace/unused-file")
        .unwrap();
    assert_eq!(
        stray["location"],
        serde_json::json!({"path": "stray.yml", "line": 1})
    );
}

/// `--no-render` cannot know whether a suppression of a rule only
/// rendering raises silences something: it does not call it unused.
#[test]
fn no_render_does_not_call_render_suppressions_unused() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    write(
        p,
        "libs/web/schema.yml",
        "#@data/values-schema\n---\nreplicas: 1\n",
    );
    write(
        p,
        "libs/web/t.yml",
        "#@ load(\"@ytt:data\", \"data\")\n---\nr: #@ data.values.replicas\n",
    );
    write(p, "envs/prod/web.yml", "replicas: 2\n");
    write(
        p,
        ".yttcheck.yml",
        "ignore:\n  - rule: template/undeclared-value\n    paths: [\"libs/**\"]\n  - rule: schema/type-mismatch\n    paths: [\"envs/**\"]\n",
    );
    let (code, found) = rules_found(p, &["--no-render"]);
    assert_eq!(code, 0);
    // the values-only one is still reported unused; the render one is not
    assert_eq!(
        found,
        [(
            "suppression/unused".to_string(),
            ".yttcheck.yml".to_string()
        )],
        "{found:?}"
    );
    let (_, found) = rules_found(p, &[]);
    assert_eq!(found.len(), 2, "{found:?}");
}

/// The shards of a nightly audit add up to the whole run, finding for
/// finding: whole libraries go to one shard (so unused values are known),
/// and shard 1 owns the repository's own findings (unused files, a policy
/// that selects nothing, configuration problems). SARIF too.
#[test]
fn shards_add_up_to_the_whole_run() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    for lib in ["a", "b", "c", "d", "e", "f", "g"] {
        write(
            p,
            &format!("libs/{lib}/schema.yml"),
            "#@data/values-schema\n---\n#@schema/validation min=1\nreplicas: 1\nunused: x\n",
        );
        write(
            p,
            &format!("libs/{lib}/t.yml"),
            "#@ load(\"@ytt:data\", \"data\")\n---\nr: #@ data.values.replicas\n",
        );
        for env in ["dev", "prod", "qa"] {
            let n = if env == "qa" && lib < "d" { 0 } else { 2 };
            write(
                p,
                &format!("envs/{env}/{lib}.yml"),
                format!("replicas: {n}\n"),
            );
        }
    }
    write(p, "stray/notes.yml", "a: 1\n");
    write(
        p,
        "policies/none.yml",
        "#@ load(\"@ytt:assert\", \"assert\")\n---\n#@assert/validate min=1\nreplicas: 0\n",
    );
    write(
        p,
        ".yttcheck.yml",
        "policies:\n  - path: policies/none.yml\n    environments: [nosuch]\n",
    );
    let key = |f: &serde_json::Value| {
        format!(
            "{} {} {} {} {}",
            f["rule"], f["location"], f["library"], f["environments"], f["message"]
        )
    };
    let findings = |args: &[&str]| {
        let mut all = vec!["check", "--format", "json"];
        all.extend_from_slice(args);
        let (_, out, err) = yttcheck(p, &all);
        let v: serde_json::Value =
            serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {err}"));
        let mut keys: Vec<String> = v["findings"].as_array().unwrap().iter().map(key).collect();
        keys.sort();
        keys
    };
    let whole = findings(&[]);
    for rule in [
        "schema/unused-value",
        "workspace/unused-file",
        "policy/unused",
        "validation/min",
    ] {
        assert!(whole.iter().any(|k| k.contains(rule)), "{rule}: {whole:#?}");
    }
    let mut union = Vec::new();
    for i in 1..=4 {
        union.extend(findings(&["--shard", &format!("{i}/4")]));
    }
    union.sort();
    assert_eq!(union, whole);

    // the SARIF of the shards (uploaded under one category each) holds the
    // same results as the whole run's
    let sarif_results = |args: &[&str]| {
        let mut all = vec!["check", "--format", "sarif"];
        all.extend_from_slice(args);
        let (_, out, _) = yttcheck(p, &all);
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        let mut r: Vec<String> = v["runs"][0]["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                format!(
                    "{} {} {}",
                    r["ruleId"], r["locations"], r["message"]["text"]
                )
            })
            .collect();
        r.sort();
        r
    };
    let whole = sarif_results(&[]);
    let mut union = Vec::new();
    for i in 1..=4 {
        union.extend(sarif_results(&["--shard", &format!("{i}/4")]));
    }
    union.sort();
    assert_eq!(union, whole);
}

/// An inline suppression that silences nothing is news in every file a
/// pair reads, whoever reads it: the library's own files and the files it
/// is given, the environment's values, a `--data-value-file`, a policy;
/// once each, however many pairs read the file (a library without
/// environments is checked with its defaults: its files are read too).
#[test]
fn unused_inline_suppressions_are_found_in_every_file_a_pair_reads() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    let unused = "#! yttcheck: ignore[validation/min] nothing to silence\n";
    write(
        p,
        "lib/schema.yml",
        format!("#@data/values-schema\n---\n{unused}replicas: 1\nnote: \"\"\n"),
    );
    write(
        p,
        "lib/config.yml",
        format!(
            "#@ load(\"@ytt:data\", \"data\")\n---\n{unused}replicas: #@ data.values.replicas\n"
        ),
    );
    write(p, "shared/extra.yml", format!("---\n{unused}extra: 1\n"));
    write(
        p,
        "idle/schema.yml",
        format!("#@data/values-schema\n---\n{unused}size: 1\n"),
    );
    for env in ["dev", "prod"] {
        write(
            p,
            &format!("vals/{env}.yml"),
            format!("{unused}replicas: 2\n"),
        );
    }
    write(p, "notes/n.txt", unused);
    write(
        p,
        "policies/p.yml",
        format!("---\n{unused}#@assert/validate min=1\nreplicas: 0\n"),
    );
    write(
        p,
        ".yttcheck.yml",
        "libraries:\n- path: lib\n  files: [shared/extra.yml]\n- path: idle\nenvironments:\n- name: dev\n  data_values_files: [vals/dev.yml]\n  data_value_files: [note=notes/n.txt]\n- name: prod\n  data_values_files: [vals/prod.yml]\nmatrix:\n  idle: []\npolicies:\n- path: policies/p.yml\n",
    );
    let (code, json) = crate::common::check_json(p, &[]);
    let mut unused_at: Vec<String> = json["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "suppression/unused")
        .map(|f| {
            format!(
                "{}:{}",
                f["location"]["path"].as_str().unwrap(),
                f["location"]["line"]
            )
        })
        .collect();
    unused_at.sort();
    assert_eq!(
        unused_at,
        [
            "idle/schema.yml:3",
            "lib/config.yml:3",
            "lib/schema.yml:3",
            "notes/n.txt:1",
            "policies/p.yml:2",
            "shared/extra.yml:2",
            "vals/dev.yml:1",
            "vals/prod.yml:1",
        ],
        "{code} {json:#}"
    );
}
