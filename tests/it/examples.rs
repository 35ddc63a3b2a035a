//! The README's commands on the bundled example repository, so the README
//! stays true.

use assert_cmd::Command;

fn inspect(args: &[&str]) -> (i32, String, String) {
    let out = Command::cargo_bin("yttcheck")
        .unwrap()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .arg("inspect")
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).to_string(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

#[test]
fn readme_worked_example() {
    let (code, out, err) = inspect(&[
        "-f",
        "examples/shop/app",
        "--data-values-file",
        "examples/shop/envs/prod/values.yml",
        "--data-value-yaml",
        "replicas=8",
        "-v",
        "image.tag=1.14.3",
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        "name: shop
replicas: 8
image:
  repository: ghcr.io/example/shop
  tag: 1.14.3
ports:
- name: http
  port: 8080
- name: metrics
  port: 9090
database:
  engine: postgres
  host: shop-db.prod.internal
  port: 5432
annotations: {}
"
    );
}

#[test]
fn every_example_environment_is_valid() {
    for env in ["dev", "prod"] {
        let values = format!("examples/shop/envs/{env}/values.yml");
        let (code, _, err) = inspect(&["-f", "examples/shop/app", "--data-values-file", &values]);
        assert_eq!(code, 0, "{env}: {err}");
    }
}

#[test]
fn example_validations_catch_bad_values() {
    let (code, _, err) = inspect(&[
        "-f",
        "examples/shop/app",
        "--data-value-yaml",
        "replicas=50",
        "-v",
        "image.tag=latest",
    ]);
    assert_eq!(code, 1);
    assert_eq!(
        err,
        "yttcheck: Error: Validating final data values:
  replicas
    from: (data-value-yaml arg):1
    - must be: a value <= 20 (by: schema.yml:8)
      found: value > 20

  image.tag
    from: (data-value arg):1
    - must be: a pinned tag, not 'latest' (by: schema.yml:14)


"
    );
}
