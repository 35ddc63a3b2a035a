//! The Harbor schema of ytt's validations proposal (`examples/harbor`), with
//! its defaults, a good values file and a file that breaks the document rule.

use assert_cmd::Command;

fn inspect(args: &[&str]) -> (i32, String, String) {
    let out = Command::cargo_bin("yttcheck")
        .unwrap()
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/harbor"))
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
fn defaults_report_every_required_value() {
    let (code, _, err) = inspect(&["-f", "schema.yml"]);
    assert_eq!(code, 1);
    insta::assert_snapshot!("harbor_defaults", err);
}

#[test]
fn good_values_pass() {
    let (code, out, err) = inspect(&["-f", "schema.yml", "--data-values-file", "values-good.yml"]);
    assert_eq!(code, 0, "{err}");
    insta::assert_snapshot!("harbor_good_values", out);
}

#[test]
fn two_registries_on_a_filesystem_volume_break_the_document_rule() {
    let (code, _, err) = inspect(&[
        "-f",
        "schema.yml",
        "--data-values-file",
        "values-two-registries.yml",
    ]);
    assert_eq!(code, 1);
    insta::assert_snapshot!("harbor_two_registries", err);
}
