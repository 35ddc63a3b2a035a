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
    super::common::skip(&format!(
        "{name}: ../shared/{name} not found (CI would fail here)"
    ));
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

/// Runs `../shared/<name>/run.py` on `yttcheck inspect` and `yttcheck
/// render` and returns its JSON
/// results (the runner exits 1 when anything fails: new failures that were
/// never passing are allowed, regressions are not).
fn run_corpus(dir: &Path, name: &str) -> serde_json::Value {
    run_corpus_with(dir, name, &[])
}

/// [`run_corpus`] with more arguments for the runner (`--cases DIR`).
fn run_corpus_with(dir: &Path, name: &str, extra: &[&std::ffi::OsStr]) -> serde_json::Value {
    let results = tempfile::NamedTempFile::new().expect("temp file");
    let tool = format!("{} inspect", env!("CARGO_BIN_EXE_yttcheck"));
    let render = format!("{} render", env!("CARGO_BIN_EXE_yttcheck"));
    let Some(python) = super::common::python_with(&["yaml"]) else {
        panic!("{name}: the corpus is there, but no Python 3 with PyYAML to run it (.ci/run installs it)");
    };
    let status = Command::new(python)
        .arg(dir.join("run.py"))
        .arg("--tool")
        .arg(&tool)
        .arg("--render-tool")
        .arg(&render)
        .arg("--json")
        .arg(results.path())
        .args(extra)
        .stdout(Stdio::inherit())
        .stderr(Stdio::inherit())
        .status()
        .unwrap_or_else(|e| panic!("python3 runs ../shared/{name}/run.py: {e}"));
    assert!(status.code().is_some(), "{name} runner was killed");
    let text = std::fs::read_to_string(results.path()).expect("runner wrote its JSON results");
    serde_json::from_str(&text).expect("runner JSON")
}

/// Fails on any name in `list` that is present but no longer passes; says
/// which pass without being listed yet.
fn no_regressions(
    name: &str,
    list: &str,
    passed: &BTreeSet<String>,
    present: &BTreeSet<String>,
    rerun: &str,
) {
    let expected = expected_passes(list);
    let regressions: Vec<&String> = expected
        .iter()
        .filter(|n| present.contains(*n) && !passed.contains(*n))
        .collect();
    let new_passes: Vec<&String> = passed.difference(&expected).collect();
    if !new_passes.is_empty() {
        eprintln!(
            "{name}: {} pass that are not in {list} yet: {new_passes:?}",
            new_passes.len()
        );
    }
    assert!(
        regressions.is_empty(),
        "{name} regressions (passed before, fail now): {regressions:?}\nrerun with: {rerun}"
    );
}

#[test]
fn ytt_conformance_cases_keep_passing() {
    let Some(dir) = corpus("conformance") else {
        return;
    };
    let json = run_corpus(&dir, "conformance");
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
    no_regressions(
        "conformance",
        "tests/conformance/expected-pass.txt",
        &passed,
        &present,
        "python3 ../shared/conformance/run.py --tool 'target/release/yttcheck inspect' --render-tool 'target/release/yttcheck render' -v --only <name>",
    );
}

/// This repository's own cases (`tests/conformance/cases`: written here,
/// each a class of disagreement with ytt found on a real repository, with
/// ytt's answers recorded by `tests/conformance/record.py`), run by the
/// shared corpus's runner: every one must pass, with ytt's error text.
#[test]
fn own_conformance_cases_all_pass() {
    let Some(dir) = corpus("conformance") else {
        return;
    };
    let cases = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance/cases");
    let json = run_corpus_with(
        &dir,
        "own conformance cases",
        &["--cases".as_ref(), cases.as_os_str()],
    );
    let results = json["cases"].as_array().expect("cases array");
    let on_disk = std::fs::read_dir(&cases)
        .expect("tests/conformance/cases")
        .count();
    assert_eq!(results.len(), on_disk, "the runner ran every case");
    let failed: Vec<&str> = results
        .iter()
        .filter(|c| c["status"] != "pass")
        .filter_map(|c| c["name"].as_str())
        .collect();
    assert!(
        failed.is_empty(),
        "own conformance cases fail: {failed:?}\nrerun with: python3 ../shared/conformance/run.py --cases tests/conformance/cases --tool 'target/release/yttcheck inspect' --render-tool 'target/release/yttcheck render' -v"
    );
    // an error case passes on its facts; its wording must be ytt's too
    let worded: Vec<&str> = results
        .iter()
        .filter(|c| c["message_match"] == false)
        .filter_map(|c| c["name"].as_str())
        .collect();
    assert!(
        worded.is_empty(),
        "error text differs from ytt's: {worded:?}"
    );
}

#[test]
fn real_configurations_keep_matching_ytt() {
    let Some(dir) = corpus("realworld") else {
        return;
    };
    let json = run_corpus(&dir, "realworld");
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
    no_regressions(
        "realworld",
        "tests/realworld/expected-pass.txt",
        &passed,
        &present,
        "python3 ../shared/realworld/run.py --render-tool 'target/release/yttcheck render' --only <case> -v",
    );
}
