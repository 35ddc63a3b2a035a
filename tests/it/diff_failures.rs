//! What `diff` says of pairs that fail: a new environment that fails only
//! as its library already failed at base is not "newly failing", and a
//! pair that renders at one side only names the objects it could not
//! compare while keeping its values diff.

use super::common::{git, run, write};

const SCHEMA: &str = "#@data/values-schema\n---\nreplicas: 1\n";

fn repository(template: &str) -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    git(p, &["init", "-q", "-b", "main"]);
    write(p, "libs/web/schema.yml", SCHEMA);
    write(p, "libs/web/deploy.yml", template);
    write(p, "envs/dev/web.yml", "replicas: 1\n");
    write(p, "envs/prod/web.yml", "replicas: 3\n");
    git(p, &["add", "-A"]);
    git(p, &["commit", "-q", "-m", "base"]);
    d
}

const DEPLOYMENT: &str = "#@ load(\"@ytt:data\", \"data\")\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: shop\nspec:\n  replicas: #@ data.values.replicas\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: shop\n";

#[test]
fn a_new_environment_failing_as_its_library_did_at_base_is_not_newly_failing() {
    // every environment fails on the same template line at base
    let broken = DEPLOYMENT.replace(
        "  namespace: shop\nspec:",
        "  namespace: shop\n  labels:\n    n: #@ str(int(\"x\"))\nspec:",
    );
    let d = repository(&broken);
    let p = d.path();
    // the change moves that line down and adds an environment
    write(p, "libs/web/deploy.yml", format!("#! moved\n{broken}"));
    write(p, "envs/staging/web.yml", "replicas: 2\n");
    git(p, &["add", "-A"]);
    git(p, &["commit", "-q", "-m", "staging"]);
    let args = [
        "diff", "--base", "HEAD~1", "--head", "HEAD", "--color", "never",
    ];
    let (_, out, err) = run(p, &args);
    assert!(out.contains("web@staging"), "{out}{err}");
    assert!(!out.contains("newly fail"), "{out}");
    assert!(
        out.contains("fails with findings already on the base"),
        "{out}"
    );
    let (_, md, _) = run(
        p,
        &[
            "diff", "--base", "HEAD~1", "--head", "HEAD", "--format", "markdown",
        ],
    );
    assert!(!md.contains("newly fail"), "{md}");
    assert!(
        md.contains("fails with findings already on the base"),
        "{md}"
    );
    let (_, json, _) = run(
        p,
        &[
            "diff", "--base", "HEAD~1", "--head", "HEAD", "--format", "json",
        ],
    );
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let staging = v["pairs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "web@staging")
        .unwrap();
    assert_eq!(staging["fails_as_on_base"], true, "{staging:#}");
    assert_eq!(staging["newly_failing"], false, "{staging:#}");

    // a new environment whose error the library never had is newly failing
    write(
        p,
        "libs/web/deploy.yml",
        broken.replace(
            "int(\"x\")",
            "int(\"y\") if data.values.replicas == 7 else int(\"x\")",
        ),
    );
    write(p, "envs/qa/web.yml", "replicas: 7\n");
    git(p, &["add", "-A"]);
    git(p, &["commit", "-q", "-m", "qa"]);
    let (_, out, _) = run(p, &args);
    assert!(out.contains("web@qa  (new pair)  (newly fails"), "{out}");
}

#[test]
fn a_pair_that_renders_at_one_side_names_what_it_could_not_compare() {
    let d = repository(DEPLOYMENT);
    let p = d.path();
    // the change breaks the render of large deployments and scales prod
    write(
        p,
        "libs/web/deploy.yml",
        DEPLOYMENT.replace(
            "spec:",
            "  labels:\n    size: #@ str(int(\"big\")) if data.values.replicas > 3 else \"small\"\nspec:",
        ),
    );
    write(p, "envs/prod/web.yml", "replicas: 5\n");
    git(p, &["commit", "-q", "-am", "scale prod"]);
    let (_, out, err) = run(
        p,
        &[
            "diff", "--base", "HEAD~1", "--head", "HEAD", "--color", "never",
        ],
    );
    let prod = &out[out.find("web@prod").unwrap_or_else(|| panic!("{out}{err}"))..];
    // the values diff of the side that computed them is kept
    assert!(prod.contains("~ replicas  3 -> 5"), "{out}");
    assert!(
        prod.contains(
            "could not compare 2 rendered objects (the head did not render): \
             Deployment shop/web, ConfigMap shop/settings"
        ),
        "{out}"
    );
    // dev renders at both sides: its objects are compared
    let dev = &out[out.find("web@dev").unwrap()..out.find("web@prod").unwrap()];
    assert!(dev.contains("~ Deployment shop/web"), "{out}");
    assert!(!dev.contains("could not compare"), "{out}");
    // and the other way round: the fix of that break names the base's
    write(p, "libs/web/deploy.yml", DEPLOYMENT);
    git(p, &["commit", "-q", "-am", "fix"]);
    let (_, out, _) = run(
        p,
        &[
            "diff", "--base", "HEAD~1", "--head", "HEAD", "--format", "markdown",
        ],
    );
    assert!(
        out.contains("could not compare 2 rendered objects (the base did not render)"),
        "{out}"
    );
}
