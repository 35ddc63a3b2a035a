//! The history replay: real repositories' histories against ytt.
//!
//! Each `tests/replay/<name>.bundle` holds commits of a real repository
//! (`tests/replay/record.py` made them: the files the repository's own ytt
//! commands read at each kept commit, under `tree/`, and in
//! `replay/cases.json` the commands with ytt's exit status, stdout and
//! stderr). This clones each bundle, checks out every commit, runs
//! `yttcheck render` with each command's arguments in `tree/`, and holds
//! it to ytt: the same exit outcome and the same stdout, byte for byte, on
//! every run; and ytt's error text (past its `ytt:`/`yttcheck:` prefix) on
//! every failing run.

use super::common::git;
use std::path::{Path, PathBuf};

#[derive(serde::Deserialize)]
struct Recorded {
    repository: String,
    commit: String,
    cases: Vec<RecordedRun>,
}

#[derive(serde::Deserialize)]
struct RecordedRun {
    /// Where the command runs, under `tree/` (`.` unless the repository's
    /// script changes folder first).
    #[serde(default = "here")]
    dir: String,
    args: Vec<String>,
    exit: i32,
}

fn here() -> String {
    ".".into()
}

/// What one run disagreed on, if anything.
struct Outcome {
    name: String,
    exit_ok: bool,
    stdout_ok: bool,
    /// `None` for a run ytt passed.
    error_text_ok: Option<bool>,
    detail: String,
}

/// ytt's error text without the program's name (`ytt: Error:` and
/// `yttcheck: Error:` say the same).
fn error_text(stderr: &[u8]) -> String {
    let text = String::from_utf8_lossy(stderr);
    text.replacen("yttcheck: Error:", "Error:", 1)
        .replacen("ytt: Error:", "Error:", 1)
}

fn bundles() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/replay");
    let mut out: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/replay")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "bundle"))
        .collect();
    out.sort();
    out
}

/// Every run of one bundle's commits.
fn replay(bundle: &Path) -> Vec<Outcome> {
    let work = tempfile::tempdir().unwrap();
    let clone = work.path().join("clone");
    git(
        work.path(),
        &[
            "clone",
            "-q",
            "--branch",
            "main",
            bundle.to_str().unwrap(),
            "clone",
        ],
    );
    let commits = git(&clone, &["rev-list", "--reverse", "HEAD"]);
    let mut outcomes = Vec::new();
    for commit in commits.lines() {
        git(&clone, &["checkout", "-q", "-f", commit]);
        git(&clone, &["clean", "-q", "-fdx"]);
        let recorded: Recorded = serde_json::from_slice(
            &std::fs::read(clone.join("replay/cases.json")).expect("cases.json"),
        )
        .expect("cases.json parses");
        for (i, case) in recorded.cases.iter().enumerate() {
            let want_out = std::fs::read(clone.join(format!("replay/{i}.stdout"))).unwrap();
            let want_err = std::fs::read(clone.join(format!("replay/{i}.stderr"))).unwrap();
            let got = assert_cmd::Command::cargo_bin("yttcheck")
                .unwrap()
                .current_dir(clone.join("tree").join(&case.dir))
                .env_clear()
                .env("PATH", std::env::var_os("PATH").unwrap_or_default())
                .env("HOME", work.path())
                .arg("render")
                .args(&case.args)
                .output()
                .unwrap();
            let exit_ok = (got.status.code() == Some(0)) == (case.exit == 0);
            let stdout_ok = got.stdout == want_out;
            let error_text_ok =
                (case.exit != 0).then(|| error_text(&got.stderr) == error_text(&want_err));
            let name = format!(
                "{}@{} {}ytt {}",
                recorded.repository,
                &recorded.commit[..10],
                if case.dir == "." {
                    String::new()
                } else {
                    format!("(in {}) ", case.dir)
                },
                case.args.join(" ")
            );
            let detail = if exit_ok && stdout_ok && error_text_ok != Some(false) {
                String::new()
            } else {
                format!(
                    "ytt exit {} / yttcheck {:?}\n--- ytt stderr\n{}\n--- yttcheck stderr\n{}\n--- stdout {}",
                    case.exit,
                    got.status.code(),
                    String::from_utf8_lossy(&want_err),
                    String::from_utf8_lossy(&got.stderr),
                    if stdout_ok { "same" } else { "differs" }
                )
            };
            outcomes.push(Outcome {
                name,
                exit_ok,
                stdout_ok,
                error_text_ok,
                detail,
            });
        }
    }
    outcomes
}

#[test]
fn real_histories_render_as_ytt_renders_them() {
    let bundles = bundles();
    assert!(
        bundles.len() >= 4,
        "tests/replay holds {} bundles",
        bundles.len()
    );
    let mut all = Vec::new();
    for bundle in &bundles {
        let outcomes = replay(bundle);
        let commits: std::collections::BTreeSet<&str> = outcomes
            .iter()
            .map(|o| o.name.split(' ').next().unwrap_or(""))
            .collect();
        eprintln!(
            "replay {}: {} commits, {} runs, {} failing under ytt",
            bundle.file_name().unwrap().to_string_lossy(),
            commits.len(),
            outcomes.len(),
            outcomes
                .iter()
                .filter(|o| o.error_text_ok.is_some())
                .count()
        );
        all.extend(outcomes);
    }
    let commits: std::collections::BTreeSet<&str> = all
        .iter()
        .map(|o| o.name.split(' ').next().unwrap_or(""))
        .collect();
    assert!(commits.len() >= 500, "{} commits replayed", commits.len());
    // the disagreements not fixed yet, each named with its class: a new
    // one fails, and so does a listed one that agrees now (the list stays
    // true)
    let known_path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/replay/known-disagreements.txt");
    let known: std::collections::BTreeSet<String> = std::fs::read_to_string(&known_path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.split(" # ").next())
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(String::from)
        .collect();
    let disagreeing = |o: &&Outcome| !o.exit_ok || !o.stdout_ok || o.error_text_ok == Some(false);
    let failing = all.iter().filter(|o| o.error_text_ok.is_some()).count();
    let worded = all
        .iter()
        .filter(|o| o.error_text_ok == Some(false))
        .count();
    let wrong = all.iter().filter(|o| !o.exit_ok || !o.stdout_ok).count();
    eprintln!(
        "replay: {} commits, {} runs; {} disagree on exit or stdout; error text agrees on {} of {} failing runs ({:.1}%); {} known",
        commits.len(),
        all.len(),
        wrong,
        failing - worded,
        failing,
        100.0 * (failing - worded) as f64 / failing.max(1) as f64,
        known.len()
    );
    let new: Vec<String> = all
        .iter()
        .filter(disagreeing)
        .filter(|o| !known.contains(&o.name))
        .map(|o| format!("{}\n{}", o.name, o.detail))
        .collect();
    assert!(
        new.is_empty(),
        "{} disagreements with ytt:\n{}",
        new.len(),
        new.iter()
            .take(10)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n\n")
    );
    let fixed: Vec<&String> = known
        .iter()
        .filter(|k| !all.iter().filter(disagreeing).any(|o| &o.name == *k))
        .collect();
    assert!(
        fixed.is_empty(),
        "listed in tests/replay/known-disagreements.txt but agreeing with ytt now (or gone): {fixed:?}"
    );
    // ytt's error text on at least 99% of the failing runs, the listed
    // ones included
    assert!(
        failing == 0 || (failing - worded) * 100 >= failing * 99,
        "error text agrees on {} of {failing} failing runs",
        failing - worded
    );
}
