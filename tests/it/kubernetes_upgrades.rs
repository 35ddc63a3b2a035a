//! Kubernetes upgrades: APIs removed or deprecated in the version each
//! environment targets (`kubernetes.versions`), at the template line that
//! writes `apiVersion`, naming the replacement and the versions; the table
//! cross-checked against the shipped schemas; a CRD's deprecated versions.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::common::{check_json, git, skip, write};

fn wheel_schemas() -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/tools/kubernetes-json-schema");
    if p.join("v1.37.0-local-strict/_definitions.json").is_file() {
        return Some(p);
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "kubernetes schemas not extracted, and CI is set"
    );
    skip("kubernetes schemas: not extracted (run .ci/run)");
    None
}

/// The schema file of a kind in the `-local-strict` layout
/// (`poddisruptionbudget-policy-v1beta1.json`, `endpoints-v1.json`).
fn schema_file(api_version: &str, kind: &str) -> String {
    let suffix = match api_version.split_once('/') {
        Some((group, version)) => format!("-{}-{version}", group.split('.').next().unwrap()),
        None => format!("-{api_version}"),
    };
    format!("{}{suffix}.json", kind.to_lowercase())
}

#[test]
fn every_removal_in_the_table_agrees_with_the_shipped_schemas() {
    let Some(root) = wheel_schemas() else { return };
    let has = |minor: u32, api_version: &str, kind: &str| {
        root.join(format!("v1.{minor}.0-local-strict"))
            .join(schema_file(api_version, kind))
            .is_file()
    };
    // the versions .ci/run extracts
    let shipped = [25, 30, 37];
    let mut checked = 0;
    for a in yttcheck::kubernetes::lifecycle::APIS {
        match a.removed {
            Some(r) => {
                // absent from the first shipped version at or after the
                // removal, present in the last one before it
                if let Some(after) = shipped.iter().find(|&&v| v >= r) {
                    assert!(
                        !has(*after, a.api_version, a.kind),
                        "{a:?} is still in 1.{after}"
                    );
                    checked += 1;
                }
                if let Some(before) = shipped.iter().rev().find(|&&v| v < r) {
                    assert!(
                        has(*before, a.api_version, a.kind),
                        "{a:?} is not in 1.{before}"
                    );
                    checked += 1;
                }
            }
            None => assert!(
                has(37, a.api_version, a.kind),
                "{a:?} is not served in 1.37"
            ),
        }
    }
    assert!(checked > 40, "{checked}");
}

const OBJECTS: &str = "#@ load(\"@ytt:data\", \"data\")
---
apiVersion: #@ data.values.pdb_api
kind: PodDisruptionBudget
metadata:
  name: web
spec:
  minAvailable: 1
---
apiVersion: batch/v1beta1
kind: CronJob
metadata:
  name: nightly
spec:
  schedule: \"0 1 * * *\"
";

fn repository(config: &str) -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    git(p, &["init", "-q", "-b", "main"]);
    write(p, "app/config/objects.yml", OBJECTS);
    write(
        p,
        "app/config/values.yml",
        "#@data/values\n---\npdb_api: policy/v1beta1\n",
    );
    write(p, "app/envs/legacy/values.yml", "#@data/values\n---\n{}\n");
    write(p, "app/envs/prod/values.yml", "#@data/values\n---\n{}\n");
    for kind in ["configmap", "service", "deployment-apps-v1"] {
        write(p, &format!("schemas/{kind}.json"), "{\"type\": \"object\"}");
    }
    write(p, ".yttcheck.yml", config);
    git(p, &["add", "-A"]);
    d
}

fn of<'a>(report: &'a Value, rule: &str, env: &str) -> Vec<&'a Value> {
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| {
            f["rule"] == rule
                && f["environments"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|e| e == env)
        })
        .collect()
}

#[test]
fn removed_and_deprecated_apis_are_found_per_environment_at_the_apiversion_line() {
    let repo = repository(
        "kubernetes:\n  version: 1.30.0\n  versions: {legacy: 1.24.0}\n  schema_locations: [\"schemas/{{ .ResourceKind }}{{ .KindSuffix }}.json\"]\n",
    );
    let p = repo.path();
    let (code, report) = check_json(p, &[]);
    assert_eq!(code, 1, "{report:#}");
    // prod (1.30): both objects use APIs removed in 1.25
    let removed = of(&report, "kubernetes/removed-api", "prod");
    assert_eq!(removed.len(), 2, "{report:#}");
    let pdb = removed
        .iter()
        .find(|f| {
            f["message"]
                .as_str()
                .unwrap()
                .contains("PodDisruptionBudget")
        })
        .unwrap();
    assert_eq!(
        pdb["message"],
        "rendered PodDisruptionBudget web: policy/v1beta1 PodDisruptionBudget was removed in Kubernetes 1.25 (deprecated in 1.21), and this environment targets 1.30.0: use policy/v1"
    );
    // at the template line that writes apiVersion (its value came from a
    // data value, named beside)
    assert_eq!(pdb["location"]["path"], "app/config/objects.yml");
    assert_eq!(pdb["location"]["line"], 3);
    let cron = removed
        .iter()
        .find(|f| f["message"].as_str().unwrap().contains("CronJob"))
        .unwrap();
    assert_eq!(cron["location"]["line"], 10);
    assert!(cron["message"].as_str().unwrap().ends_with("use batch/v1"));
    // legacy (1.24): deprecated, not removed
    assert!(
        of(&report, "kubernetes/removed-api", "legacy").is_empty(),
        "{report:#}"
    );
    let deprecated = of(&report, "kubernetes/deprecated-api", "legacy");
    assert_eq!(deprecated.len(), 2, "{report:#}");
    assert!(deprecated[0]["message"]
        .as_str()
        .unwrap()
        .contains("removed in 1.25"));
    // each pair carries its target version
    let versions: Vec<(String, String)> = report["pairs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["environment"].as_str().unwrap().to_string(),
                p["kubernetes_version"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        versions,
        [
            ("legacy".to_string(), "1.24.0".to_string()),
            ("prod".to_string(), "1.30.0".to_string())
        ]
    );
    // --kubernetes-version replaces the default; the environment's stays
    let (code, report) = check_json(p, &["--kubernetes-version", "1.20.0"]);
    assert_eq!(code, 0, "{report:#}");
    assert!(
        of(&report, "kubernetes/deprecated-api", "prod").is_empty(),
        "{report:#}"
    );
    assert_eq!(of(&report, "kubernetes/deprecated-api", "legacy").len(), 2);
    // the Markdown summary says what blocks an upgrade
    let (_, out, _) =
        super::common::run(p, &["check", "--daemon", "never", "--format", "markdown"]);
    assert!(
        out.contains("2 objects use an API removed in its environment's Kubernetes version, which blocks its upgrade: <code>prod</code>"),
        "{out}"
    );
}

#[test]
fn a_crds_deprecated_version_is_a_warning() {
    let repo = repository(
        "kubernetes:\n  version: 1.30.0\n  schema_locations: [\"schemas/{{ .ResourceKind }}{{ .KindSuffix }}.json\"]\n  skip_kinds: [PodDisruptionBudget, CronJob]\n",
    );
    let p = repo.path();
    write(
        p,
        "app/config/crd.yml",
        "---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: widgets.example.com}\nspec:\n  group: example.com\n  names: {kind: Widget, plural: widgets}\n  scope: Namespaced\n  versions:\n  - name: v1alpha1\n    served: true\n    storage: false\n    deprecated: true\n    deprecationWarning: example.com/v1alpha1 Widget is deprecated; use v1\n    schema: {openAPIV3Schema: {type: object}}\n  - name: v1\n    served: true\n    storage: true\n    schema: {openAPIV3Schema: {type: object}}\n---\napiVersion: example.com/v1alpha1\nkind: Widget\nmetadata: {name: old}\n---\napiVersion: example.com/v1\nkind: Widget\nmetadata: {name: new}\n",
    );
    git(p, &["add", "-A"]);
    let (_, report) = check_json(p, &[]);
    let deprecated = of(&report, "kubernetes/deprecated-api", "prod");
    assert_eq!(deprecated.len(), 1, "{report:#}");
    assert!(deprecated[0]["message"]
        .as_str()
        .unwrap()
        .starts_with("rendered Widget old: example.com/v1alpha1 Widget is deprecated by its CRD"));
}

/// An environment's own version that no location has (`"*": 0.0.0`) is
/// refused as the main version is: every kind would be a note, and a
/// check that checked nothing is not a pass.
#[test]
fn an_environment_version_no_location_has_is_refused() {
    let Some(schemas) = wheel_schemas() else {
        return;
    };
    let repo = repository("kubernetes:\n  version: 1.30.0\n  versions: {\"*\": 0.0.0}\n");
    let location = schemas.display().to_string();
    let (code, out, err) = super::common::run(
        repo.path(),
        &["check", "--daemon", "never", "--schema-location", &location],
    );
    assert_eq!(code, 2, "{out}{err}");
    assert!(
        err.contains("0.0.0") && err.contains("checked nothing"),
        "{err}"
    );
    // the same repository on a version the folder has is checked
    let repo = repository("kubernetes:\n  version: 1.30.0\n  versions: {\"*\": 1.30.0}\n");
    let (code, out, err) = super::common::run(
        repo.path(),
        &["check", "--daemon", "never", "--schema-location", &location],
    );
    assert_ne!(code, 2, "{out}{err}");
}
