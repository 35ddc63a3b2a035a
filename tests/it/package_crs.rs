//! Package CRs held to their library's schema (`package/*`), on the real
//! Tanzu Community Edition packages of `../shared/realworld`, laid out as
//! that repository has them (`addons/packages/<name>/<version>/package.yaml`
//! beside `bundle/config/`). The CR's valuesSchema is written from what ytt
//! itself exported for each package (the case's recorded
//! `--data-values-schema-inspect -o openapi-v3`), so a CR that agrees with
//! ytt has no finding, and each mutation of one is the finding it should be.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::common::{check_json, copy_dir, run, write};

fn cases() -> Option<PathBuf> {
    super::common::realworld_cases("package CRs")
}

/// ytt's recorded export of a case's schema: the lines of its
/// `dataValues` schema, at the indentation they have there (6 spaces).
fn exported(case: &Path) -> String {
    let text = std::fs::read_to_string(case.join("schema/expected.stdout")).unwrap();
    let (_, rest) = text.split_once("    dataValues:\n").unwrap();
    rest.trim_end_matches('\n').to_string()
}

/// A Package CR as TCE writes them, with `values` (lines indented 6) as its
/// valuesSchema.openAPIv3, between other keys of spec.
fn package_cr(name: &str, values: &str) -> String {
    format!(
        "apiVersion: data.packaging.carvel.dev/v1alpha1
kind: Package
metadata:
  name: {name}.community.tanzu.vmware.com.1.0.0
spec:
  refName: {name}.community.tanzu.vmware.com
  version: 1.0.0
  valuesSchema:
    openAPIv3:
{values}
  # the template of the bundle beside this file
  template:
    spec:
      fetch:
      - imgpkgBundle:
          image: projects.registry.vmware.com/tce/{name}@sha256:0000
      template:
      - ytt:
          paths:
          - config/
      - kbld:
          paths:
          - '-'
          - .imgpkg/images.yml
      deploy:
      - kapp: {{}}
"
    )
}

/// The TCE cases whose library has a schema.
fn with_schema(cases: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(cases)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            let n = p.file_name().unwrap().to_string_lossy().into_owned();
            n.starts_with("community-edition__addons-packages-")
                && std::fs::read_to_string(p.join("meta.json"))
                    .unwrap()
                    .contains("\"has_schema\": true")
        })
        .collect();
    out.sort();
    out
}

fn short(case: &Path) -> String {
    let n = case.file_name().unwrap().to_string_lossy().into_owned();
    n.trim_start_matches("community-edition__addons-packages-")
        .trim_end_matches("-bundle-config")
        .to_string()
}

fn package_findings(report: &Value) -> Vec<&Value> {
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"].as_str().unwrap().starts_with("package/"))
        .collect()
}

/// One package at `addons/packages/<name>/`, its CR's values `values`.
fn one_package(case: &Path, values: &str) -> (tempfile::TempDir, String) {
    let d = tempfile::tempdir().unwrap();
    let name = short(case);
    let dir = d.path().join("addons/packages").join(&name);
    copy_dir(&case.join("files"), &dir.join("bundle/config"));
    let cr = package_cr(&name, values);
    write(&dir, "package.yaml", &cr);
    (d, format!("addons/packages/{name}/package.yaml"))
}

#[test]
fn a_cr_written_by_ytts_export_matches_its_library_on_every_real_package() {
    let Some(cases) = cases() else { return };
    let d = tempfile::tempdir().unwrap();
    let all = with_schema(&cases);
    assert!(all.len() >= 19, "{}", all.len());
    for case in &all {
        let name = short(case);
        let dir = d.path().join("addons/packages").join(&name);
        copy_dir(&case.join("files"), &dir.join("bundle/config"));
        write(&dir, "package.yaml", package_cr(&name, &exported(case)));
    }
    let (_, report) = check_json(d.path(), &[]);
    assert_eq!(package_findings(&report), Vec::<&Value>::new());
    // every CR is its library's (none of them an unused file)
    let unused: Vec<&Value> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| {
            f["rule"] == "workspace/unused-file"
                && f["location"]["path"]
                    .as_str()
                    .unwrap()
                    .ends_with("package.yaml")
        })
        .collect();
    assert_eq!(unused, Vec::<&Value>::new());
    let (code, listed, err) = run(d.path(), &["list", "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let listed: Value = serde_json::from_str(&listed).unwrap();
    let tied = listed["libraries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| !l["packages"].as_array().unwrap().is_empty())
        .count();
    assert_eq!(tied, all.len(), "{listed:#}");
}

fn contour(cases: &Path) -> PathBuf {
    cases.join("community-edition__addons-packages-contour-1.22.3-bundle-config")
}

/// The 1-based line of the first line of `text` that is `line` (trimmed).
fn line_of(text: &str, line: &str, after: usize) -> usize {
    text.lines()
        .enumerate()
        .skip(after)
        .find(|(_, l)| l.trim() == line)
        .map(|(i, _)| i + 1)
        .unwrap_or_else(|| panic!("{line} not in\n{text}"))
}

#[test]
fn each_change_of_a_matching_cr_is_found_at_its_line_and_the_fix_writes_it_afresh() {
    let Some(cases) = cases() else { return };
    let case = contour(&cases);
    let values = exported(&case)
        // a value the CR does not have
        .replace(
            "            replicas:\n              type: integer\n              description: How many Contour pod replicas to have.\n              default: 2\n",
            "",
        )
        // a type, and a default, that differ
        .replacen(
            "                replicas:\n                  type: integer",
            "                replicas:\n                  type: string",
            1,
        )
        .replace("default: projectcontour", "default: contour")
        // a description that differs
        .replace(
            "description: Whether to enable PROXY protocol for all Envoy listeners.",
            "description: PROXY protocol.",
        )
        // a value the schema does not have
        + "\n        extra:\n          type: string\n          default: x";
    let (d, cr_path) = one_package(&case, &values);
    let (_, report) = check_json(d.path(), &[]);
    let cr = std::fs::read_to_string(d.path().join(&cr_path)).unwrap();
    let found: Vec<(String, String, u64)> = package_findings(&report)
        .iter()
        .map(|f| {
            assert_eq!(f["location"]["path"], cr_path.as_str());
            (
                f["rule"].as_str().unwrap().to_string(),
                f["key_path"].as_str().unwrap().to_string(),
                f["location"]["line"].as_u64().unwrap(),
            )
        })
        .collect();
    let contour_props = line_of(&cr, "properties:", line_of(&cr, "contour:", 0));
    let mut want = vec![
        (
            "package/schema-drift",
            "namespace",
            line_of(&cr, "namespace:", 0),
        ),
        ("package/schema-drift", "contour.replicas", contour_props),
        (
            "package/doc-drift",
            "contour.useProxyProtocol",
            line_of(&cr, "useProxyProtocol:", 0),
        ),
        (
            "package/schema-drift",
            "envoy.workload.replicas",
            line_of(&cr, "replicas:", line_of(&cr, "workload:", 0)),
        ),
        ("package/schema-drift", "extra", line_of(&cr, "extra:", 0)),
    ];
    let mut found_sorted = found.clone();
    found_sorted.sort();
    want.sort();
    let want: Vec<(String, String, u64)> = want
        .into_iter()
        .map(|(r, k, l)| (r.to_string(), k.to_string(), l as u64))
        .collect();
    assert_eq!(found_sorted, want, "{report:#}");
    // the default: both sides in the detail, the type in words
    let namespace = package_findings(&report)
        .into_iter()
        .find(|f| f["key_path"] == "namespace")
        .unwrap()
        .clone();
    let detail = namespace["detail"].to_string();
    assert!(
        detail.contains("schema: string, default \\\"projectcontour\\\""),
        "{detail}"
    );
    assert!(
        detail.contains("Package CR: string, default \\\"contour\\\""),
        "{detail}"
    );
    let typed = package_findings(&report)
        .into_iter()
        .find(|f| f["key_path"] == "envoy.workload.replicas")
        .unwrap()
        .clone();
    assert!(
        typed["message"].as_str().unwrap().contains("the type of"),
        "{typed:#}"
    );

    // the fix-it: the valuesSchema block written afresh, nothing else
    let fix = namespace["fix"].clone();
    let start = fix["location"]["line"].as_u64().unwrap() as usize - 1;
    let n = fix["lines"].as_u64().unwrap() as usize;
    let lines: Vec<&str> = cr.split('\n').collect();
    assert_eq!(
        lines[start..start + n].join("\n"),
        fix["old"].as_str().unwrap()
    );
    assert_eq!(lines[start], "  valuesSchema:");
    assert_eq!(
        lines[start + n],
        "  # the template of the bundle beside this file"
    );
    let mut fixed: Vec<&str> = lines[..start].to_vec();
    fixed.extend(fix["new"].as_str().unwrap().split('\n'));
    fixed.extend(&lines[start + n..]);
    let fixed = fixed.join("\n");
    // what the export says, as TCE's own CR has it
    assert_eq!(fixed, package_cr("contour-1.22.3", &exported(&case)));
    write(
        &d.path().join("addons/packages/contour-1.22.3"),
        "package.yaml",
        &fixed,
    );
    let (_, report) = check_json(d.path(), &[]);
    assert!(package_findings(&report).is_empty(), "{report:#}");
}

/// The text report shows both sides of a drift.
#[test]
fn the_text_report_shows_both_sides_of_a_drift() {
    let Some(cases) = cases() else { return };
    let case = contour(&cases);
    let (d, _) = one_package(
        &case,
        &exported(&case).replace("default: projectcontour", "default: contour"),
    );
    let (_, out, _) = run(
        d.path(),
        &["check", "--daemon", "never", "--color", "never"],
    );
    assert!(out.contains("error[package/schema-drift]"), "{out}");
    assert!(
        out.contains("= schema: string, default \"projectcontour\""),
        "{out}"
    );
    assert!(
        out.contains("= Package CR: string, default \"contour\""),
        "{out}"
    );
}

/// whereabouts 0.5.0 has no schema (plain `#@data/values`), and its CR said
/// `resources.request` where the values say `requests` (as TCE's did).
#[test]
fn a_cr_of_an_untyped_library_is_said_once_and_compared_by_key() {
    let Some(cases) = cases() else { return };
    let case = cases.join("community-edition__addons-packages-whereabouts-0.5.0-bundle-config");
    let resources = |indent: &str, requests: &str, limits: bool| {
        let limits = if limits {
            format!(
                "
{indent}    limits:
{indent}      type: object
{indent}      properties:
{indent}        cpu:
{indent}          type: string
{indent}        memory:
{indent}          type: string"
            )
        } else {
            String::new()
        };
        format!(
            "{indent}resources:
{indent}  type: object
{indent}  properties:{limits}
{indent}    {requests}:
{indent}      type: object
{indent}      properties:
{indent}        cpu:
{indent}          type: string
{indent}        memory:
{indent}          type: string"
        )
    };
    let values = format!(
        "      type: object
      properties:
        namespace:
          type: string
          default: kube-system
        whereabouts:
          type: object
          properties:
            config:
              type: object
              properties:
{}
        ip_reconciler:
          type: object
          properties:
            config:
              type: object
              properties:
                schedule:
                  type: string
{}",
        resources("                ", "request", true),
        resources("                ", "requests", false),
    );
    let (d, cr_path) = one_package(&case, &values);
    let (_, report) = check_json(d.path(), &[]);
    let cr = std::fs::read_to_string(d.path().join(&cr_path)).unwrap();
    let mut found: Vec<(String, String)> = package_findings(&report)
        .iter()
        .map(|f| {
            (
                f["rule"].as_str().unwrap().to_string(),
                f["key_path"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    found.sort();
    assert_eq!(
        found,
        vec![
            (
                "package/key-drift".to_string(),
                "whereabouts.config.resources.request".to_string()
            ),
            (
                "package/key-drift".to_string(),
                "whereabouts.config.resources.requests".to_string()
            ),
            ("package/untyped-library".to_string(), String::new()),
        ],
        "{report:#}"
    );
    let request = package_findings(&report)
        .into_iter()
        .find(|f| f["key_path"] == "whereabouts.config.resources.request")
        .unwrap()
        .clone();
    assert_eq!(
        request["location"]["line"].as_u64().unwrap() as usize,
        line_of(&cr, "request:", 0)
    );
}

/// A CR can be named by the library's entry (its ytt paths say nothing of
/// the folder), and a CR without valuesSchema for a library with a schema
/// is one warning.
#[test]
fn a_cr_named_in_the_configuration_and_one_without_values_schema() {
    let Some(cases) = cases() else { return };
    let case = contour(&cases);
    let d = tempfile::tempdir().unwrap();
    copy_dir(&case.join("files"), &d.path().join("deploy/contour"));
    let cr = package_cr("contour", "      type: object")
        .replace("  valuesSchema:\n    openAPIv3:\n      type: object\n", "");
    write(d.path(), "catalog/contour.yaml", &cr);
    write(
        d.path(),
        ".yttcheck.yml",
        "libraries:\n- path: deploy/contour\n  name: contour\n  package: catalog/contour.yaml\n",
    );
    let (_, report) = check_json(d.path(), &[]);
    let found: Vec<&Value> = package_findings(&report);
    assert_eq!(found.len(), 1, "{report:#}");
    assert_eq!(found[0]["rule"], "package/missing-values-schema");
    assert_eq!(found[0]["location"]["path"], "catalog/contour.yaml");
    assert_eq!(found[0]["location"]["line"], 5);
    // and a file no library's entry names, tied by nothing: an unused file
    write(
        d.path(),
        ".yttcheck.yml",
        "libraries:\n- path: deploy/contour\n  name: contour\n",
    );
    let (_, report) = check_json(d.path(), &[]);
    assert!(package_findings(&report).is_empty(), "{report:#}");
    assert!(report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .any(|f| f["rule"] == "workspace/unused-file"
            && f["location"]["path"] == "catalog/contour.yaml"));
}

/// The fix-it replaces the `valuesSchema` block's own lines only: a
/// document end (`...`) and the next document's directive (`%YAML 1.1`)
/// after a block that ends its document are kept.
#[test]
fn the_rewrite_keeps_a_document_end_and_a_directive_after_the_block() {
    let Some(cases) = cases() else { return };
    let case = contour(&cases);
    let (d, cr_path) = one_package(
        &case,
        "      type: object\n      properties:\n        bogus: {type: string}",
    );
    let name = short(&case);
    let cr = format!(
        "apiVersion: data.packaging.carvel.dev/v1alpha1\nkind: Package\nmetadata:\n  name: {name}.community.tanzu.vmware.com.1.0.0\nspec:\n  refName: {name}.community.tanzu.vmware.com\n  version: 1.0.0\n  template:\n    spec:\n      fetch:\n      - imgpkgBundle: {{image: example.com/{name}@sha256:0000}}\n      template:\n      - ytt: {{paths: [config/]}}\n      deploy:\n      - kapp: {{}}\n  valuesSchema:\n    openAPIv3:\n      type: object\n      properties:\n        bogus: {{type: string}}\n...\n%YAML 1.1\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {{name: after}}\n"
    );
    write(d.path(), &cr_path, &cr);
    let (code, out, err) = run(d.path(), &["docs"]);
    assert_eq!(code, 0, "{out}{err}");
    let written = std::fs::read_to_string(d.path().join(&cr_path)).unwrap();
    assert_ne!(written, cr, "the drifting block was written afresh");
    assert!(!written.contains("bogus"), "{written}");
    assert!(
        written.contains("\n...\n%YAML 1.1\n---\napiVersion: v1\nkind: ConfigMap\n"),
        "{written}"
    );
}
