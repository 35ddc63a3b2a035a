//! The first zero-config run on a layout unlike the monorepo's, built from
//! real packages of `../shared/realworld`: one heavy library in `config/`
//! whose defaults live in its own `config/values/` folder and which has
//! private libraries (pinniped), a sample values file at the repository
//! root that people pass with `ytt -f config -f sample-install-values.yml`,
//! a second library under `samples/` with its own `values/` folder
//! (local-path-storage), a vendored Helm chart, a folder a build script
//! renders with generated input, a test harness's values under `tests/`,
//! and CI's own single-file templates with their inputs.

use std::path::Path;

use super::common::{copy_dir, git, run, write};

const PINNIPED: &str = "community-edition__addons-packages-pinniped-0.22.0-bundle-config";
const LOCAL_PATH: &str =
    "community-edition__addons-packages-local-path-storage-0.0.19-bundle-config";
const SAMPLE: &str = "fixture-mc-oidc-v1_5_0";

fn repository(cases: &Path) -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    git(p, &["init", "-q", "-b", "main"]);
    copy_dir(&cases.join(PINNIPED).join("files"), &p.join("config"));
    std::fs::create_dir_all(p.join("config/values")).unwrap();
    std::fs::rename(
        p.join("config/values.yaml"),
        p.join("config/values/00-values.yaml"),
    )
    .unwrap();
    std::fs::copy(
        cases.join(PINNIPED).join(format!("values/{SAMPLE}.yaml")),
        p.join("sample-install-values.yml"),
    )
    .unwrap();
    let second = p.join("samples/example-component/config");
    copy_dir(&cases.join(LOCAL_PATH).join("files"), &second);
    std::fs::create_dir_all(second.join("values")).unwrap();
    std::fs::rename(
        second.join("values.yaml"),
        second.join("values/_defaults.yml"),
    )
    .unwrap();
    // a vendored Helm chart: not YAML to ytt, and nobody's to render
    write(p, "vendir.yml", "apiVersion: vendir.k14s.io/v1alpha1\nkind: Config\ndirectories:\n- path: build/dex/_vendir\n  contents:\n  - path: chart\n    helmChart:\n      name: dex\n");
    write(p, "build/dex/_vendir/chart/templates/deployment.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ include \"dex.fullname\" . }}\nspec:\n  replicas: {{ .Values.replicaCount }}\n");
    write(
        p,
        "build/dex/_vendir/chart/values.yaml",
        "replicaCount: 1\n",
    );
    // a folder a build script renders with generated input (`-f -`)
    write(
        p,
        "build/istio/values.yaml",
        "#@data/values\n---\nistio_version: 1.14.3\n",
    );
    write(p, "build/istio/overlays/mesh.yaml", "#@ load(\"@ytt:overlay\", \"overlay\")\n#@overlay/match by=overlay.subset({\"kind\": \"Deployment\"})\n---\nspec:\n  replicas: 2\n");
    write(p, "build/istio/generate.sh", "#!/usr/bin/env bash\nistioctl manifest generate |\n  ytt --ignore-unknown-comments \\\n    -f \"$DIR/values.yaml\" \\\n    -f - \\\n    -f \"$DIR/overlays\"\n");
    // a test harness's values: a few keys, the rest added by the harness
    write(
        p,
        "tests/ytt/oidc/oidc-values.yml",
        "#@data/values\n---\ntkg_cluster_role: workload\n",
    );
    // CI's own pipelines: `ytt -f ci/templates/x.yml -f ci/inputs/x.yml`
    write(
        p,
        "ci/templates/pipeline.yml",
        "#@ load(\"@ytt:data\", \"data\")\n---\njobs:\n- name: #@ data.values.name\n",
    );
    write(
        p,
        "ci/inputs/pipeline.yml",
        "#@data/values\n---\nname: build\n",
    );
    git(p, &["add", "-A"]);
    git(p, &["commit", "-q", "-m", "layout"]);
    d
}

fn recorded(cases: &Path, case: &str, run_id: &str) -> String {
    std::fs::read_to_string(cases.join(case).join(run_id).join("expected.stdout")).unwrap()
}

fn listed(p: &Path) -> serde_json::Value {
    let (code, out, err) = run(p, &["list", "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).unwrap()
}

fn pair_names(v: &serde_json::Value) -> Vec<String> {
    v["pairs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn zero_config_models_the_repository_as_its_readme_command_does() {
    let Some(cases) = super::common::realworld_cases("first run layouts") else {
        return;
    };
    let d = repository(&cases);
    let p = d.path();
    let v = listed(p);
    // the two libraries, the root's sample file an environment of the first
    assert_eq!(
        pair_names(&v),
        ["config@sample-install-values", "example-component@defaults"],
        "{v:#}"
    );
    let ytt = |name: &str| -> Vec<String> {
        v["pairs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["name"] == name)
            .unwrap()["ytt"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(
        ytt("config@sample-install-values"),
        [
            "ytt",
            "-f",
            "config",
            "-f",
            "sample-install-values.yml",
            "--data-values-inspect"
        ]
    );
    // what ytt rendered for the same files (recorded as a digest), byte
    // for byte
    let (code, out, err) = run(
        p,
        &["render", "-f", "config", "-f", "sample-install-values.yml"],
    );
    assert_eq!(code, 0, "{err}");
    let meta: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(cases.join(PINNIPED).join("meta.json")).unwrap(),
    )
    .unwrap();
    use sha2::Digest;
    let digest = format!("{:x}", sha2::Sha256::digest(out.as_bytes()));
    assert_eq!(
        digest,
        meta["render"][format!("values-{SAMPLE}")]["stdout_sha256"]
    );
    // inspect of each pair is what its command prints
    for name in ["config@sample-install-values", "example-component@defaults"] {
        let (code, pair, err) = run(p, &["inspect", name]);
        assert_eq!(code, 0, "{name}: {err}");
        let cmd = ytt(name);
        let mut args = vec!["inspect"];
        args.extend(cmd[1..].iter().map(String::as_str));
        let (_, by_command, _) = run(p, &args);
        assert_eq!(pair, by_command, "{name}");
    }
    // and what ytt's --data-values-inspect printed for them (recorded)
    let (_, values, _) = run(p, &["inspect", "config@sample-install-values"]);
    assert_eq!(
        values,
        recorded(&cases, PINNIPED, &format!("values-{SAMPLE}"))
    );
    let (_, defaults, _) = run(p, &["inspect", "example-component@defaults"]);
    assert_eq!(defaults, recorded(&cases, LOCAL_PATH, "inspect"));
    // no error or warning: ytt raises none
    let (code, out, err) = run(p, &["check", "--format", "json"]);
    assert_eq!(code, 0, "{out}{err}");
    let found: serde_json::Value = serde_json::from_str(&out).unwrap();
    for f in found["findings"].as_array().unwrap() {
        assert_eq!(f["severity"], "note", "{f:#}");
        let path = f["location"]["path"].as_str().unwrap_or_default();
        assert!(!path.starts_with("build/dex"), "a vendored file: {f:#}");
        assert!(!path.starts_with("tests/"), "a test harness's input: {f:#}");
    }
    // and with notes left out, nothing at all
    let (code, out, _) = run(
        p,
        &["check", "--min-severity", "warning", "--color", "never"],
    );
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("no findings"), "{out}");
    // nothing was ever generated for these untyped libraries: nothing is
    // stale on adoption
    let (code, out, err) = run(p, &["docs", "--check"]);
    assert_eq!(code, 0, "{out}{err}");
    // every convention that decided something says so
    let (_, all, _) = run(p, &["list", "--all"]);
    for said in [
        "config/values: no environments: #@data/values files beside the library's templates are its own defaults",
        "(the repository root): no library",
        "build/istio: no library: build/istio/generate.sh renders it with generated input",
        "values file sample-install-values.yml: environment 'sample-install-values' of config",
        "values file tests/ytt/oidc/oidc-values.yml: in a test folder",
        "values file ci/inputs/pipeline.yml: no environment: no library declares 'name'",
    ] {
        assert!(all.contains(said), "{said:?} in:\n{all}");
    }
}

#[test]
fn the_declared_variant_needs_one_entry_and_a_file_can_be_a_library() {
    let Some(cases) = super::common::realworld_cases("first run layouts") else {
        return;
    };
    let d = repository(&cases);
    let p = d.path();
    write(
        p,
        ".yttcheck.yml",
        "libraries:\n- path: config\n- path: ci/templates/pipeline.yml\n",
    );
    let v = listed(p);
    assert_eq!(
        pair_names(&v),
        [
            "config@sample-install-values",
            "example-component@defaults",
            "pipeline@pipeline"
        ],
        "{v:#}"
    );
    let (code, out, err) = run(
        p,
        &["check", "--min-severity", "warning", "--color", "never"],
    );
    assert_eq!(code, 0, "{out}{err}");
    // a single file given with -f is named by its name, and its values
    // file may share it (ytt takes both)
    let (code, out, err) = run(p, &["inspect", "pipeline@pipeline"]);
    assert_eq!((code, out.as_str()), (0, "name: build\n"), "{err}");
    let (_, out, _) = run(
        p,
        &[
            "render",
            "-f",
            "ci/templates/pipeline.yml",
            "-f",
            "ci/inputs/pipeline.yml",
        ],
    );
    assert_eq!(out, "jobs:\n- name: build\n");
    // `min_severity:` in the configuration does what the flag does
    write(
        p,
        ".yttcheck.yml",
        "libraries:\n- path: config\nmin_severity: warning\n",
    );
    let (code, out, _) = run(p, &["check", "--color", "never"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("no findings"), "{out}");
}

#[test]
fn a_findings_message_is_said_once_in_the_text_report() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    write(
        p,
        "libs/web/values.yml",
        "#@data/values\n---\nreplicas: 1\n",
    );
    write(
        p,
        "libs/web/t.yml",
        "#@ load(\"@ytt:data\", \"data\")\n---\nr: #@ data.values.replicas\n",
    );
    write(p, "envs/prod/web.yml", "#@data/values\n---\nreplicsa: 2\n");
    let (code, out, _) = run(p, &["check", "--color", "never"]);
    assert_eq!(code, 1, "{out}");
    let headline = "Expected number of matched nodes to be 1, but was 0";
    assert_eq!(out.matches(headline).count(), 1, "{out}");
    assert!(out.contains("hint: did you mean 'replicas'?"), "{out}");
}
