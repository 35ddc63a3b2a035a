//! Custom resources as the API server sees them (OpenAPI v3.0 structural
//! schemas: boolean `exclusiveMaximum`, defaults applied and nulls pruned
//! before validation, keys of map lists unique), and schema folders of
//! both published layouts, with a location that has no built-in kind
//! refused rather than passing as clean. Contour's CRDs are the real ones
//! of `../shared/realworld`.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::common::{check_json, git, run, skip, write};

fn contour_crds() -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join(
        "../shared/realworld/cases/community-edition__addons-packages-contour-1.22.3-bundle-config/files/upstream/contour.yaml",
    );
    if p.is_file() {
        return Some(p);
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "../shared/realworld not found, and CI is set"
    );
    skip("kubernetes CRDs: ../shared/realworld not found");
    None
}

fn findings(report: &Value, rule: &str) -> Vec<Value> {
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == rule)
        .cloned()
        .collect()
}

/// A repository rendering `objects`, with a schema folder that has the
/// built-in kinds (permissive) and `.yttcheck.yml` naming it and `crds/`.
fn repository(objects: &str) -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    git(p, &["init", "-q", "-b", "main"]);
    write(p, "app/config/objects.yml", objects);
    write(p, "app/config/values.yml", "#@data/values\n---\nn: 1\n");
    for kind in ["configmap", "service", "deployment-apps-v1"] {
        write(p, &format!("schemas/{kind}.json"), "{\"type\": \"object\"}");
    }
    write(
        p,
        ".yttcheck.yml",
        "kubernetes:\n  strict: true\n  schema_locations: [\"schemas/{{ .ResourceKind }}{{ .KindSuffix }}.json\"]\n  crds: [crds/]\n",
    );
    d
}

#[test]
fn contours_crds_are_read_as_openapi_3_0() {
    let Some(crds) = contour_crds() else { return };
    let repo = repository(
        "---\napiVersion: projectcontour.io/v1alpha1\nkind: ExtensionService\nmetadata:\n  name: auth\nspec:\n  services:\n  - name: auth\n    port: 8080\n---\napiVersion: projectcontour.io/v1alpha1\nkind: ExtensionService\nmetadata:\n  name: over\nspec:\n  services:\n  - name: over\n    port: 65536\n",
    );
    let p = repo.path();
    std::fs::create_dir_all(p.join("crds")).unwrap();
    std::fs::copy(&crds, p.join("crds/contour.yaml")).unwrap();
    git(p, &["add", "-A"]);
    let (code, report) = check_json(p, &[]);
    // `exclusiveMaximum: true` beside `maximum: 65536` was "true is not of
    // type number": every ExtensionService unchecked, with an error
    assert!(
        findings(&report, "kubernetes/schema-unavailable").is_empty(),
        "{report:#}"
    );
    let invalid = findings(&report, "kubernetes/invalid");
    assert_eq!(invalid.len(), 1, "{report:#}");
    assert!(
        invalid[0]["message"]
            .as_str()
            .unwrap()
            .starts_with("rendered ExtensionService over: spec.services[0].port"),
        "{invalid:#?}"
    );
    assert_eq!(invalid[0]["location"]["line"], 18);
    assert_eq!(code, 1);
}

/// A CRD of TempoStack's shape: a defaulted enum, a non-nullable enum, a
/// nullable field, a map list keyed by name.
const STACK_CRD: &str = "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: stacks.example.com
spec:
  group: example.com
  names: {kind: Stack, plural: stacks}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [managementState]
            properties:
              managementState:
                type: string
                default: Managed
                enum: [Managed, Unmanaged]
              gateway:
                type: object
                properties:
                  ingress:
                    type: object
                    properties:
                      type: {type: string, enum: [ingress, route]}
                      host: {type: string, nullable: true}
              ports:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [name]
                items:
                  type: object
                  required: [name]
                  properties:
                    name: {type: string}
                    port: {type: integer}
              tags:
                type: array
                x-kubernetes-list-type: set
                items: {type: string}
";

#[test]
fn the_server_defaults_and_prunes_nulls_before_it_validates() {
    let repo = repository(
        "---\napiVersion: example.com/v1\nkind: Stack\nmetadata:\n  name: ok\nspec:\n  gateway:\n    ingress:\n      type: null\n      host: null\n---\napiVersion: example.com/v1\nkind: Stack\nmetadata:\n  name: bad\nspec:\n  managementState: Sometimes\n  ports:\n  - name: http\n    port: 80\n  - name: http\n    port: 8080\n  tags: [a, a]\n",
    );
    let p = repo.path();
    write(p, "crds/stack.yml", STACK_CRD);
    git(p, &["add", "-A"]);
    let (_, report) = check_json(p, &[]);
    let invalid = findings(&report, "kubernetes/invalid");
    let about = |name: &str| -> Vec<String> {
        invalid
            .iter()
            .map(|f| f["message"].as_str().unwrap().to_string())
            .filter(|m| m.starts_with(&format!("rendered Stack {name}:")))
            .collect()
    };
    // managementState is defaulted (not "missing"), a null type is pruned
    // (not reported by type and by enum), a null host is allowed
    assert!(about("ok").is_empty(), "{invalid:#?}");
    // a real error stays one, once per field; a repeated key is refused
    let bad = about("bad");
    assert_eq!(bad.len(), 3, "{bad:#?}");
    assert!(
        bad.iter().any(|m| m.contains("spec.managementState")),
        "{bad:#?}"
    );
    assert!(
        bad.iter()
            .any(|m| m.contains("spec.ports[1]: the same name as item 0")),
        "{bad:#?}"
    );
    assert!(bad.iter().any(|m| m.contains("spec.tags")), "{bad:#?}");
    // no value is printed
    assert!(
        !bad.iter()
            .any(|m| m.contains("Sometimes") || m.contains("http")),
        "{bad:#?}"
    );
}

/// The kubernetes-validate wheel's schemas, extracted by `.ci/run`.
fn wheel_schemas() -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/tools/kubernetes-json-schema");
    if p.join("v1.30.0-local-strict/_definitions.json").is_file() {
        return Some(p);
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "kubernetes schemas not extracted, and CI is set"
    );
    skip("kubernetes schemas: not extracted (run .ci/run)");
    None
}

#[test]
fn a_local_layout_folder_validates_and_a_folder_of_nothing_is_refused() {
    let repo = repository(
        "---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: many\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers: [{name: web, image: nginx}]\n",
    );
    let p = repo.path();
    write(p, ".yttcheck.yml", "");
    git(p, &["add", "-A"]);
    if let Some(root) = wheel_schemas() {
        // the folder as given to kubeconform: its `-local-strict` layout is
        // found (it was every kind a no-schema note, and a clean exit)
        let (code, report) = check_json(
            p,
            &[
                "--schema-location",
                root.to_str().unwrap(),
                "--kubernetes-version",
                "1.30.0",
                "--kubernetes-strict",
            ],
        );
        assert_eq!(code, 1, "{report:#}");
        assert!(
            findings(&report, "kubernetes/no-schema").is_empty(),
            "{report:#}"
        );
        let invalid = findings(&report, "kubernetes/invalid");
        assert_eq!(invalid.len(), 1, "{report:#}");
        assert!(invalid[0]["message"]
            .as_str()
            .unwrap()
            .contains("spec.replicas"));
    }
    // a folder without the built-in kinds checked nothing: exit 2
    let empty = tempfile::tempdir().unwrap();
    let (code, out, err) = run(
        p,
        &[
            "check",
            "--daemon",
            "never",
            "--schema-location",
            empty.path().to_str().unwrap(),
            "--kubernetes-version",
            "1.30.0",
        ],
    );
    assert_eq!(code, 2, "{out}{err}");
    assert!(
        err.contains("no schema location has the built-in kinds"),
        "{err}"
    );
}

/// A CRD anywhere in the repository that defines a built-in kind
/// (`deployments.apps`) never replaces its schema: the Deployment is still
/// checked against the built-in one, and the CRD is a warning at its line.
#[test]
fn a_crd_never_replaces_a_built_in_kind() {
    let repo = repository(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec: {replicas: three}\n",
    );
    let p = repo.path();
    write(
        p,
        "schemas/deployment-apps-v1.json",
        r#"{"type": "object", "properties": {"spec": {"type": "object", "properties": {"replicas": {"type": "integer"}}}}}"#,
    );
    write(
        p,
        "crds/deployments.yml",
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: deployments.apps}\nspec:\n  group: apps\n  names: {kind: Deployment, plural: deployments}\n  scope: Namespaced\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}\n",
    );
    git(p, &["add", "-A"]);
    git(p, &["commit", "-q", "-m", "a CRD for deployments.apps"]);
    let (code, report) = check_json(p, &[]);
    assert_eq!(code, 1, "{report:#}");
    let invalid = findings(&report, "kubernetes/invalid");
    assert_eq!(invalid.len(), 1, "{report:#}");
    assert!(
        invalid[0]["message"].as_str().unwrap().contains("replicas"),
        "{report:#}"
    );
    let shadows = findings(&report, "kubernetes/crd-shadows-built-in");
    assert_eq!(shadows.len(), 1, "{report:#}");
    assert_eq!(shadows[0]["location"]["path"], "crds/deployments.yml");
    assert_eq!(shadows[0]["severity"], "warning");
}

/// A schema of the repository is held to the bound of every repository
/// file (16 MiB, SECURITY.md): a larger one is refused, never parsed.
#[test]
fn a_repository_schema_over_16_mib_is_refused() {
    let repo = repository("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n");
    let p = repo.path();
    let big = std::fs::File::create(p.join("schemas/configmap-v1.json")).unwrap();
    big.set_len(17 << 20).unwrap();
    write(p, "crds/none.yml", "{}\n");
    git(p, &["add", "-A"]);
    git(p, &["commit", "-q", "-m", "a huge schema"]);
    let (_, report) = check_json(p, &[]);
    let refused = findings(&report, "kubernetes/schema-unavailable");
    assert!(
        refused.iter().any(|f| f["message"]
            .as_str()
            .unwrap()
            .contains("larger than 16 MiB")),
        "{report:#}"
    );
}

/// A small schema of the repository whose definitions each refer twice to
/// the next would cost 2^depth per object (depth 40: hours): it is refused
/// before it is compiled, with a finding that says why, and the check
/// answers at once.
#[test]
fn a_schema_whose_references_double_at_each_step_is_refused() {
    let repo =
        repository("---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  a: b\n");
    let p = repo.path();
    let mut defs = serde_json::Map::new();
    for i in 0..40 {
        let next = format!("#/$defs/a{}", i + 1);
        defs.insert(
            format!("a{i}"),
            serde_json::json!({"allOf": [{"$ref": next}, {"$ref": next}]}),
        );
    }
    defs.insert("a40".into(), serde_json::json!({"type": "object"}));
    let schema = serde_json::json!({"$defs": defs, "$ref": "#/$defs/a0"}).to_string();
    assert!(schema.len() < 4_000);
    write(p, "schemas/configmap-v1.json", schema);
    write(p, "crds/none.yml", "# no CRD\n");
    git(p, &["add", "-A"]);
    let started = std::time::Instant::now();
    let (code, report) = check_json(p, &[]);
    assert!(started.elapsed().as_secs() < 60, "{:?}", started.elapsed());
    assert_eq!(code, 1, "{report:#}");
    let refused = findings(&report, "kubernetes/schema-unavailable");
    assert_eq!(refused.len(), 1, "{report:#}");
    assert!(
        refused[0]["message"]
            .as_str()
            .unwrap()
            .contains("would visit more than 1000000 subschemas"),
        "{report:#}"
    );
}
