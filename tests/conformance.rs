//! Runs ytt's recorded conformance cases (`../shared/conformance`) against
//! `yttcheck inspect` and fails when a case listed in
//! `tests/conformance/expected-pass.txt` no longer passes.
//!
//! The corpus lives outside this repository; when it is absent the test says
//! so and passes. The runner's per-topic table is printed straight to the
//! terminal (it is a child process, so `cargo test` does not capture it).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn corpus() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/conformance");
    dir.join("run.py").is_file().then_some(dir)
}

fn expected_passes() -> BTreeSet<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance/expected-pass.txt");
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(String::from)
        .collect()
}

#[test]
fn ytt_conformance_cases_keep_passing() {
    let Some(dir) = corpus() else {
        eprintln!("conformance: ../shared/conformance not found; skipped");
        return;
    };
    let results = tempfile::NamedTempFile::new().expect("temp file");
    let tool = format!("{} inspect", env!("CARGO_BIN_EXE_yttcheck"));
    let status = Command::new("python3")
        .arg(dir.join("run.py"))
        .arg("--tool")
        .arg(&tool)
        .arg("--json")
        .arg(results.path())
        .stdout(Stdio::inherit())
        .stderr(Stdio::inherit())
        .status()
        .expect("python3 is needed to run the conformance cases (../shared/conformance/run.py)");
    // The runner exits 1 when any case fails; new cases that do not pass yet
    // are allowed, regressions are not.
    assert!(status.code().is_some(), "conformance runner was killed");

    let text = std::fs::read_to_string(results.path()).expect("runner wrote its JSON results");
    let json: serde_json::Value = serde_json::from_str(&text).expect("runner JSON");
    let cases = json["cases"].as_array().expect("cases array");
    let passed: BTreeSet<String> = cases
        .iter()
        .filter(|c| c["status"] == "pass")
        .filter_map(|c| c["name"].as_str().map(String::from))
        .collect();
    let present: BTreeSet<String> = cases
        .iter()
        .filter_map(|c| c["name"].as_str().map(String::from))
        .collect();

    let expected = expected_passes();
    let regressions: Vec<&String> = expected
        .iter()
        .filter(|n| present.contains(*n) && !passed.contains(*n))
        .collect();
    let new_passes: Vec<&String> = passed.difference(&expected).collect();
    if !new_passes.is_empty() {
        eprintln!(
            "conformance: {} case(s) pass that are not in tests/conformance/expected-pass.txt yet: {:?}",
            new_passes.len(),
            new_passes
        );
    }
    assert!(
        regressions.is_empty(),
        "conformance regressions (passed before, fail now): {regressions:?}\n\
         rerun with: python3 ../shared/conformance/run.py --tool 'target/release/yttcheck inspect' -v <name>"
    );
}
