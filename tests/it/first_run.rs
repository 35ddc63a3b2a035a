//! The first zero-config run on a monorepo of real Carvel packages, laid
//! out as such repositories are (`packages/<name>/config/`, one package as
//! `packages/<name>/bundle/config/`, two versions of one package side by
//! side, `envs/<env>/<name>.yml`): library names a team recognises, each
//! values file read by the library it names (or reported), explicit
//! library entries added to discovery, and pairs only where a library is
//! deployed. The packages are the real configurations of
//! `../shared/realworld`.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::common::{check_json, copy_dir, git, run, write};

fn cases() -> Option<PathBuf> {
    super::common::realworld_cases("first run")
}

/// (case, folder in the monorepo)
const PACKAGES: &[(&str, &str)] = &[
    ("contour-1.22.3", "packages/contour/config"),
    ("knative-serving-1.5.0", "packages/knative-serving/config"),
    ("metrics-server-0.6.1", "packages/metrics-server/config"),
    (
        "secretgen-controller-0.9.3",
        "packages/secretgen-controller/bundle/config",
    ),
    ("antrea-1.5.3", "packages/antrea/1.5.3/bundle/config"),
    ("antrea-1.7.2", "packages/antrea/1.7.2/bundle/config"),
];

/// The monorepo: each package, and each environment's values for the
/// packages deployed there (the package's own defaults, restated, as a
/// team's first values file does).
fn monorepo(cases: &Path) -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    git(p, &["init", "-q", "-b", "main"]);
    let defaults = |case: &str| -> String {
        let dir = cases.join(format!(
            "community-edition__addons-packages-{case}-bundle-config"
        ));
        std::fs::read_to_string(dir.join("inspect/expected.stdout")).unwrap()
    };
    for (case, folder) in PACKAGES {
        let dir = cases.join(format!(
            "community-edition__addons-packages-{case}-bundle-config"
        ));
        copy_dir(&dir.join("files"), &p.join(folder));
    }
    for (env, deployed) in [
        (
            "dev",
            &[
                "contour",
                "knative-serving",
                "secretgen-controller",
                "antrea-1.5.3",
            ][..],
        ),
        (
            "prod",
            &[
                "contour",
                "secretgen-controller",
                "antrea-1.7.2",
                "metrics-server",
            ][..],
        ),
    ] {
        for name in deployed {
            let case = PACKAGES
                .iter()
                .find(|(c, f)| {
                    f.contains(&format!("/{name}/"))
                        || c.starts_with(&format!("{name}-"))
                        || c == name
                        || name.strip_prefix("antrea-").is_some_and(|v| c.ends_with(v))
                })
                .map(|(c, _)| *c)
                .unwrap();
            write(p, &format!("envs/{env}/{name}.yml"), defaults(case));
        }
    }
    git(p, &["add", "-A"]);
    d
}

fn list(p: &Path, extra: &[&str]) -> Value {
    let mut args = vec!["list", "--format", "json"];
    args.extend(extra);
    let (code, out, err) = run(p, &args);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).unwrap()
}

fn names(list: &Value, what: &str, key: &str) -> Vec<String> {
    let mut v: Vec<String> = list[what]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x[key].as_str().unwrap().to_string())
        .collect();
    v.sort();
    v
}

fn pair<'a>(list: &'a Value, name: &str) -> Option<&'a Value> {
    list["pairs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == name)
}

#[test]
fn libraries_are_named_after_their_package_and_versions_tell_them_apart() {
    let Some(cases) = cases() else { return };
    let repo = monorepo(&cases);
    let p = repo.path();
    let l = list(p, &[]);
    assert_eq!(
        names(&l, "libraries", "name"),
        [
            "antrea-1.5.3",
            "antrea-1.7.2",
            "contour",
            "knative-serving",
            "metrics-server",
            "secretgen-controller"
        ]
    );
    let secretgen = l["libraries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["name"] == "secretgen-controller")
        .unwrap();
    assert_eq!(
        secretgen["root"],
        "packages/secretgen-controller/bundle/config"
    );
    assert!(
        secretgen["name_origin"]
            .as_str()
            .unwrap()
            .contains("packages/secretgen-controller"),
        "{secretgen:#}"
    );
    // and the text listing says where each name came from
    let (_, text, _) = run(p, &["list"]);
    assert!(
        text.contains("library secretgen-controller: packages/secretgen-controller/bundle/config, discovered, named after packages/secretgen-controller"),
        "{text}"
    );

    // a repository with one library in apps/web/config names it web
    let one = tempfile::tempdir().unwrap();
    let q = one.path();
    git(q, &["init", "-q", "-b", "main"]);
    let dir = cases.join("community-edition__addons-packages-metrics-server-0.6.1-bundle-config");
    copy_dir(&dir.join("files"), &q.join("apps/web/config"));
    git(q, &["add", "-A"]);
    assert_eq!(names(&list(q, &[]), "libraries", "name"), ["web"]);
}

#[test]
fn each_values_file_is_read_by_the_library_it_names_and_pairs_exist_where_deployed() {
    let Some(cases) = cases() else { return };
    let repo = monorepo(&cases);
    let p = repo.path();
    let l = list(p, &[]);
    let files = |name: &str| -> Vec<String> {
        pair(&l, name).unwrap()["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f.as_str().unwrap().to_string())
            .filter(|f| f.starts_with("envs/"))
            .collect()
    };
    assert_eq!(
        files("secretgen-controller@prod"),
        ["envs/prod/secretgen-controller.yml"]
    );
    assert_eq!(files("contour@prod"), ["envs/prod/contour.yml"]);
    // deployed where it has a file: knative-serving is not in prod, and
    // metrics-server not in dev
    let pairs = names(&l, "pairs", "name");
    assert!(
        !pairs.contains(&"knative-serving@prod".to_string()),
        "{pairs:?}"
    );
    assert!(
        !pairs.contains(&"metrics-server@dev".to_string()),
        "{pairs:?}"
    );
    assert_eq!(pairs.len(), 8, "{pairs:?}");
    let skipped: Vec<String> = l["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            format!(
                "{}@{}",
                s["library"].as_str().unwrap(),
                s["environment"].as_str().unwrap()
            )
        })
        .collect();
    assert!(
        skipped.contains(&"knative-serving@prod".to_string()),
        "{skipped:?}"
    );
    let (_, all, _) = run(p, &["list", "--all"]);
    assert!(
        all.contains("no pair knative-serving@prod: the environment (envs/prod)"),
        "{all}"
    );

    // the first run: no false alarm (each library reads its own values);
    // the errors left are contour's own lints (`#@overlay.remove`, which
    // ytt ignores), its authors' to fix
    let errors = |report: &Value| -> Vec<Value> {
        report["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["severity"] == "error")
            .cloned()
            .collect()
    };
    let (_, report) = check_json(p, &[]);
    let first = errors(&report);
    assert!(!first.is_empty());
    for e in &first {
        assert_eq!(e["rule"], "annotation/not-template", "{e:#}");
        assert!(e["location"]["path"]
            .as_str()
            .unwrap()
            .starts_with("packages/contour/"));
    }
    // vendored by vendir (as such repositories sync upstream packages),
    // they are notes; another tool's file is no unused file either
    write(
        p,
        "vendir.yml",
        "apiVersion: vendir.k14s.io/v1alpha1\nkind: Config\ndirectories:\n- path: packages\n  contents:\n  - path: contour\n    git: {url: https://github.com/kadras-io/package-for-contour, ref: v1.25.0}\n    includePaths: [config/**/*]\n",
    );
    write(
        p,
        ".pre-commit-config.yaml",
        "repos:\n- repo: local\n  hooks: []\n",
    );
    git(p, &["add", "-A"]);
    let (code, report) = check_json(p, &[]);
    assert!(errors(&report).is_empty(), "{report:#}");
    assert_eq!(code, 0, "{report:#}");
    let findings = report["findings"].as_array().unwrap();
    assert_eq!(
        findings
            .iter()
            .filter(|f| f["rule"] == "annotation/not-template" && f["severity"] == "note")
            .count(),
        first.len()
    );
    assert!(
        !findings
            .iter()
            .any(|f| f["rule"] == "workspace/unused-file"),
        "{report:#}"
    );

    // a values file named after no library is nobody's, and says so
    write(
        p,
        "envs/prod/secretgen.yml",
        "secretgenController:\n  namespace: x\n",
    );
    git(p, &["add", "-A"]);
    let (_, report) = check_json(p, &[]);
    let findings = report["findings"].as_array().unwrap();
    let unmatched: Vec<&Value> = findings
        .iter()
        .filter(|f| f["rule"] == "workspace/unmatched-values-file")
        .collect();
    assert_eq!(unmatched.len(), 1, "{report:#}");
    assert_eq!(unmatched[0]["location"]["path"], "envs/prod/secretgen.yml");
    assert!(unmatched[0]["message"]
        .as_str()
        .unwrap()
        .contains("did you mean the library 'secretgen-controller'"));
    assert!(
        !findings
            .iter()
            .any(|f| f["rule"] == "schema/undeclared-key"),
        "{report:#}"
    );

    // an environment-wide file opts every library in
    write(
        p,
        "envs/prod/common.yml",
        "#! for every library of prod\n{}\n",
    );
    git(p, &["add", "-A"]);
    let pairs = names(&list(p, &[]), "pairs", "name");
    assert!(
        pairs.contains(&"knative-serving@prod".to_string()),
        "{pairs:?}"
    );
}

#[test]
fn a_declared_library_adds_to_discovery_unless_discovery_is_off() {
    let Some(cases) = cases() else { return };
    let repo = monorepo(&cases);
    let p = repo.path();
    write(
        p,
        ".yttcheck.yml",
        "libraries:\n- path: packages/contour/config\n  name: projectcontour\n",
    );
    git(p, &["add", "-A"]);
    let l = list(p, &[]);
    assert_eq!(
        names(&l, "libraries", "name"),
        [
            "antrea-1.5.3",
            "antrea-1.7.2",
            "knative-serving",
            "metrics-server",
            "projectcontour",
            "secretgen-controller"
        ]
    );
    let declared: Vec<&Value> = l["libraries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|x| x["declared"] == true)
        .collect();
    assert_eq!(declared.len(), 1);
    assert_eq!(declared[0]["root"], "packages/contour/config");
    // no file of the other libraries is unused
    let (_, report) = check_json(p, &[]);
    assert!(
        !report["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["rule"] == "workspace/unused-file"
                && f["location"]["path"]
                    .as_str()
                    .unwrap()
                    .starts_with("packages/")),
        "{report:#}"
    );
    write(
        p,
        ".yttcheck.yml",
        "discover: false\nlibraries:\n- path: packages/contour/config\n  name: projectcontour\n",
    );
    git(p, &["add", "-A"]);
    assert_eq!(
        names(&list(p, &[]), "libraries", "name"),
        ["projectcontour"]
    );
}
