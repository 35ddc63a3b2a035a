//! Helpers every test module uses.

use std::path::{Path, PathBuf};
use std::process::Command as Process;

/// Writes `content` to `dir/name`, creating the folders on the way.
pub fn write(dir: &Path, name: &str, content: impl AsRef<[u8]>) {
    let path = dir.join(name);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    std::fs::write(path, content).unwrap();
}

/// Runs git in `dir` with a fixed author and date (stable commit ids) and
/// no system or user configuration; returns what it printed.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = Process::new("git")
        .current_dir(dir)
        .args(args)
        .env("GIT_AUTHOR_NAME", "Test")
        .env("GIT_AUTHOR_EMAIL", "test@example.com")
        .env("GIT_COMMITTER_NAME", "Test")
        .env("GIT_COMMITTER_EMAIL", "test@example.com")
        .env("GIT_AUTHOR_DATE", "2026-01-01T00:00:00Z")
        .env("GIT_COMMITTER_DATE", "2026-01-01T00:00:00Z")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", dir)
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Says that a test skipped part of its work, where people see it: written
/// straight to the process's stderr, past the test harness's capture (which
/// only takes `eprintln!`), so `cargo test` shows the line beside the test
/// summary without `--nocapture`.
pub fn skip(message: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "SKIPPED {message}");
}

/// The SARIF Multitool, installed by `.ci/run` (npm) under target/tools, or
/// named by `SARIF_MULTITOOL`.
fn multitool() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("SARIF_MULTITOOL") {
        return Some(PathBuf::from(p));
    }
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("target/tools/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool");
    p.is_file().then_some(p)
}

/// Validates a SARIF file with Microsoft's SARIF Multitool and GitHub's
/// ingestion rules: no error and no warning.
pub fn validate_sarif(sarif: &Path) {
    let Some(tool) = multitool() else {
        // CI must never go green on a check that did not run
        assert!(
            std::env::var_os("CI").is_none(),
            "SARIF Multitool not installed, and CI is set (.ci/run installs it)"
        );
        skip(
            "sarif validation: SARIF Multitool not installed (install: npm install --prefix target/tools @microsoft/sarif-multitool-linux, as .ci/run does)",
        );
        return;
    };
    let d = tempfile::tempdir().unwrap();
    let log = d.path().join("validation.sarif");
    let status = Process::new(&tool)
        .args([
            "validate",
            "--rule-kind",
            "Sarif;Gh",
            "--level",
            "Error;Warning",
            "--output",
        ])
        .arg(&log)
        .arg(sarif)
        .output()
        .expect("run the SARIF Multitool");
    assert!(
        status.status.success(),
        "{}",
        String::from_utf8_lossy(&status.stdout)
    );
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&log).unwrap()).unwrap();
    let results = v["runs"][0]["results"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(
        results.is_empty(),
        "SARIF Multitool reports problems: {}",
        serde_json::to_string_pretty(&results).unwrap()
    );
}

/// A linter or validator from PyPI: `.ci/run` installs them in
/// target/tools/venv; elsewhere they may be on PATH. `None` (the test is
/// skipped, loudly) only outside CI: with CI set, a missing tool fails.
pub fn tool(name: &str) -> Option<PathBuf> {
    let venv = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("target/tools/venv/bin")
        .join(name);
    if venv.is_file() {
        return Some(venv);
    }
    let on_path = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join(name))
            .find(|p| p.is_file())
    });
    if on_path.is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "{name} is not installed, and CI is set (.ci/run installs it in target/tools/venv)"
        );
        skip(&format!(
            "{name} is not installed (.ci/run installs it in target/tools/venv)"
        ));
    }
    on_path
}

/// A Python 3 that imports `modules`: the venv `.ci/run` makes
/// (target/tools/venv), else `python3` on PATH. `None` (the test is skipped,
/// loudly) only outside CI: with CI set, a missing one fails. Every test
/// that runs Python goes through here (`tests/it/architecture.rs` checks),
/// so the README's `cargo test` passes on a fresh clone with nothing else
/// installed.
pub fn python_with(modules: &[&str]) -> Option<PathBuf> {
    let venv = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/tools/venv/bin/python");
    let candidates = [venv, PathBuf::from("python3")];
    let import = format!(
        "import {}",
        if modules.is_empty() {
            "sys".to_string()
        } else {
            modules.join(", ")
        }
    );
    for py in &candidates {
        let ok = Process::new(py)
            .args(["-c", &import])
            .output()
            .is_ok_and(|o| o.status.success());
        if ok {
            return Some(py.clone());
        }
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "no Python 3 with {modules:?}, and CI is set (.ci/run installs them in target/tools/venv)"
    );
    skip(&format!(
        "no Python 3 with {modules:?} (.ci/run installs them in target/tools/venv)"
    ));
    None
}

/// Stops the daemon of the repository at `0` when a test ends, however it
/// ends (a daemon a test or a hook started must not outlive the test).
pub struct DaemonStopper(pub PathBuf);

impl Drop for DaemonStopper {
    fn drop(&mut self) {
        let _ = Process::new(env!("CARGO_BIN_EXE_yttcheck"))
            .current_dir(&self.0)
            .args(["daemon", "stop"])
            .env_remove("CI")
            .output();
    }
}

/// The binary run in `dir` with `args`: exit code, stdout, stderr.
pub fn run(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = assert_cmd::Command::cargo_bin("yttcheck")
        .unwrap()
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `yttcheck check --format json` in `dir` (no daemon, no progress bar):
/// the exit code and the report.
pub fn check_json(dir: &Path, extra: &[&str]) -> (i32, serde_json::Value) {
    let out = assert_cmd::Command::cargo_bin("yttcheck")
        .unwrap()
        .current_dir(dir)
        .args(["check", "--daemon", "never", "-q", "--format", "json"])
        .args(extra)
        .output()
        .unwrap();
    let json = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.code().unwrap_or(-1), json)
}

/// A library file in memory, for tests of the engine's API.
pub fn input_file(
    order: usize,
    rel_path: &str,
    text: &str,
) -> std::sync::Arc<yttcheck::files::InputFile> {
    std::sync::Arc::new(yttcheck::files::InputFile {
        rel_path: rel_path.to_string(),
        implied: true,
        src: yttcheck::yaml::pos::SourceFile::new(rel_path, text),
        order,
        marks: Default::default(),
    })
}

/// The real configurations of `../shared/realworld/cases`, or `None`
/// (skipped, loudly, naming `what`) outside CI; with CI set, a missing
/// corpus fails the test.
pub fn realworld_cases(what: &str) -> Option<std::path::PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/realworld/cases");
    if dir.is_dir() {
        return Some(dir);
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "../shared/realworld not found, and CI is set"
    );
    skip(&format!("{what}: ../shared/realworld not found"));
    None
}

/// Copies the folder `from` to `to`, recursively.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}
