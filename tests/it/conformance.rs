//! Runs the two corpora recorded from ytt against `yttcheck inspect`, and
//! fails when something listed as passing no longer passes:
//!
//! * ytt's conformance cases (`../shared/conformance`), listed in
//!   `tests/conformance/expected-pass.txt`;
//! * real configurations of public Carvel packages (`../shared/realworld`),
//!   listed in `tests/realworld/expected-pass.txt`.
//!
//! The corpora live outside this repository. When one is absent the test
//! prints a visible `SKIPPED` line and passes, except when `CI` is set: CI
//! must never go green on a check that did not run. The runners' tables are
//! printed straight to the terminal (child processes are not captured).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// `../shared/<name>`, when it is there. Without it: a visible skip, or a
/// failure under CI.
fn corpus(name: &str) -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared")
        .join(name);
    if dir.join("run.py").is_file() {
        return Some(dir);
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "{name}: ../shared/{name} not found, and CI is set: the corpus must be there"
    );
    eprintln!("SKIPPED {name}: ../shared/{name} not found (CI would fail here)");
    None
}

fn expected_passes(list: &str) -> BTreeSet<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(list);
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
    let Some(dir) = corpus("conformance") else {
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

    let expected = expected_passes("tests/conformance/expected-pass.txt");
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

#[test]
fn real_configurations_keep_matching_ytt() {
    let Some(dir) = corpus("realworld") else {
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
        .expect("python3 is needed to run ../shared/realworld/run.py");
    assert!(status.code().is_some(), "realworld runner was killed");

    let text = std::fs::read_to_string(results.path()).expect("runner wrote its JSON results");
    let json: serde_json::Value = serde_json::from_str(&text).expect("runner JSON");
    let runs = json.as_array().expect("a list of invocations");
    assert!(!runs.is_empty(), "realworld: the runner ran no invocation");
    let name = |r: &serde_json::Value| {
        format!(
            "{}/{}",
            r["case"].as_str().unwrap_or(""),
            r["invocation"].as_str().unwrap_or("")
        )
    };
    let passed: BTreeSet<String> = runs.iter().filter(|r| r["ok"] == true).map(name).collect();
    let present: BTreeSet<String> = runs.iter().map(name).collect();
    let expected = expected_passes("tests/realworld/expected-pass.txt");
    let regressions: Vec<&String> = expected
        .iter()
        .filter(|n| present.contains(*n) && !passed.contains(*n))
        .collect();
    let new_passes: Vec<&String> = passed.difference(&expected).collect();
    if !new_passes.is_empty() {
        eprintln!(
            "realworld: {} invocation(s) match ytt that are not in tests/realworld/expected-pass.txt yet: {:?}",
            new_passes.len(),
            new_passes
        );
    }
    assert!(
        regressions.is_empty(),
        "realworld regressions (matched ytt before, differ now): {regressions:?}\n\
         rerun with: python3 ../shared/realworld/run.py --only <case> -v"
    );
}
