//! `yttcheck ci` as GitHub Actions runs it: real repositories with a base and
//! a pull request merged onto it (as actions/checkout checks out
//! `refs/pull/N/merge`), a fabricated event payload of GitHub's shape, and
//! the step's files (`GITHUB_OUTPUT`, `GITHUB_STEP_SUMMARY`) in a temp dir.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command as Process;

use assert_cmd::Command;

use super::common::{git, validate_sarif, write};

fn rev(dir: &Path, r: &str) -> String {
    let out = Process::new("git")
        .current_dir(dir)
        .args(["rev-parse", r])
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

/// main: libraries web and api, environments dev and prod.
fn base_repository() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    git(p, &["init", "-q", "-b", "main"]);
    write(
        p,
        "libs/web/schema.yml",
        "#@data/values-schema\n---\n#@schema/validation min=1\nreplicas: 1\ndb_password: \"\"\n",
    );
    write(
        p,
        "libs/api/schema.yml",
        "#@data/values-schema\n---\n#@schema/validation min=1024\nport: 8080\n",
    );
    write(p, "envs/dev/web.yml", "replicas: 1\n");
    write(
        p,
        "envs/prod/web.yml",
        "replicas: 3\ndb_password: hunter2\n",
    );
    write(p, "envs/prod/api.yml", "port: 9090\n");
    write(p, "envs/dev/api.yml", "port: 9091\n");
    write(p, "README.md", "# configuration\n");
    git(p, &["add", "-A"]);
    git(p, &["commit", "-q", "-m", "initial"]);
    d
}

/// Commits `change` on a branch and merges it into main the way GitHub
/// builds `refs/pull/N/merge`; returns (base sha, head sha).
fn pull_request(p: &Path, change: impl Fn(&Path)) -> (String, String) {
    let base = rev(p, "HEAD");
    git(p, &["checkout", "-q", "-b", "feature"]);
    change(p);
    git(p, &["add", "-A"]);
    git(p, &["commit", "-q", "-m", "change"]);
    let head = rev(p, "HEAD");
    git(p, &["checkout", "-q", "--detach", &base]);
    git(
        p,
        &["merge", "-q", "--no-ff", "-m", "Merge feature", "feature"],
    );
    (base, head)
}

fn pr_payload(base: &str, head: &str, head_repo: &str) -> serde_json::Value {
    serde_json::json!({
        "action": "synchronize",
        "number": 42,
        "pull_request": {
            "number": 42,
            "title": "Change production",
            "base": {"ref": "main", "sha": base, "repo": {"full_name": "acme/config"}},
            "head": {"ref": "feature", "sha": head, "repo": {"full_name": head_repo}},
        },
        "repository": {"full_name": "acme/config"},
    })
}

/// What one `yttcheck ci` step left behind.
struct Step {
    code: i32,
    stdout: String,
    stderr: String,
    summary: String,
    outputs: BTreeMap<String, String>,
    temp: tempfile::TempDir,
}

impl Step {
    fn report(&self, name: &str) -> PathBuf {
        self.temp.path().join("runner-temp/yttcheck").join(name)
    }
}

fn step(repo: &Path, event: &str, payload: &serde_json::Value, args: &[&str]) -> Step {
    let temp = tempfile::tempdir().unwrap();
    let t = temp.path();
    let event_path = t.join("event.json");
    std::fs::write(&event_path, payload.to_string()).unwrap();
    std::fs::create_dir_all(t.join("runner-temp")).unwrap();
    let mut cmd = Command::cargo_bin("yttcheck").unwrap();
    // the test suite itself may run in GitHub Actions
    for (k, _) in std::env::vars() {
        if k.starts_with("GITHUB_") || k.starts_with("RUNNER_") {
            cmd.env_remove(k);
        }
    }
    let out = cmd
        .current_dir(t)
        .arg("ci")
        .args(args)
        .env("GITHUB_ACTIONS", "true")
        .env("GITHUB_EVENT_NAME", event)
        .env("GITHUB_EVENT_PATH", &event_path)
        .env("GITHUB_WORKSPACE", repo)
        .env("GITHUB_OUTPUT", t.join("output"))
        .env("GITHUB_STEP_SUMMARY", t.join("summary.md"))
        .env("RUNNER_TEMP", t.join("runner-temp"))
        .env("GITHUB_ACTOR", "alice")
        .output()
        .unwrap();
    let outputs = std::fs::read_to_string(t.join("output"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    Step {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into(),
        stderr: String::from_utf8_lossy(&out.stderr).into(),
        summary: std::fs::read_to_string(t.join("summary.md")).unwrap_or_default(),
        outputs,
        temp,
    }
}

#[test]
fn a_pull_request_checks_the_pairs_it_affects_and_diffs_their_values() {
    let repo = base_repository();
    let (base, head) = pull_request(repo.path(), |p| {
        write(
            p,
            "envs/prod/web.yml",
            "replicas: 0\ndb_password: hunter3\n",
        );
    });
    let s = step(
        repo.path(),
        "pull_request",
        &pr_payload(&base, &head, "acme/config"),
        &[],
    );
    assert_eq!(s.code, 1, "{}\n{}", s.stdout, s.stderr);
    // one annotation, at the value that breaks the rule
    assert!(
        s.stdout.contains("::error file=envs/prod/web.yml,line=1,"),
        "{}",
        s.stdout
    );
    assert!(s.stdout.contains("::group::yttcheck report\n"));
    // only web@prod reads the changed file
    assert_eq!(s.outputs["pairs-checked"], "1");
    assert_eq!(s.outputs["errors"], "1");
    assert_eq!(s.outputs["warnings"], "0");
    assert_eq!(s.outputs["values-changed"], "true");
    assert_eq!(s.outputs["changed-pairs"], "1");
    assert_eq!(s.outputs["sarif-upload"], "true");
    assert_eq!(s.outputs["failed"], "true");
    let sarif = PathBuf::from(&s.outputs["sarif-file"]);
    assert_eq!(sarif, s.report("yttcheck.sarif"));
    validate_sarif(&sarif);
    // secrets never leave the runner, in the summary or the artifact
    for text in [
        s.summary.clone(),
        std::fs::read_to_string(s.report("diff.json")).unwrap(),
        std::fs::read_to_string(s.report("summary.md")).unwrap(),
    ] {
        assert!(!text.contains("hunter"), "{text}");
    }
    let summary = s.summary.replace(&base, "BASE");
    insta::assert_snapshot!("ci_pull_request_summary", summary);
}

#[test]
fn a_pull_request_that_changes_nothing_checkable_says_so_in_one_line() {
    let repo = base_repository();
    let (base, head) = pull_request(repo.path(), |p| {
        write(p, "README.md", "# configuration, explained\n");
    });
    let s = step(
        repo.path(),
        "pull_request",
        &pr_payload(&base, &head, "acme/config"),
        &[],
    );
    assert_eq!(s.code, 0, "{}\n{}", s.stdout, s.stderr);
    assert_eq!(
        s.summary,
        "✅ yttcheck: pull request #42 changes no file a library x environment pair reads: nothing to check.\n"
    );
    assert_eq!(s.outputs["pairs-checked"], "0");
    assert_eq!(s.outputs["values-changed"], "false");
    assert!(!s.stdout.contains("::error"), "{}", s.stdout);
}

/// A pull request that deletes an environment leaves nothing to check,
/// but what it does is said: the pairs it removes are in the verdict line
/// and the diff.
#[test]
fn a_pull_request_that_deletes_an_environment_names_the_pairs_it_removes() {
    let repo = base_repository();
    let (base, head) = pull_request(repo.path(), |p| {
        std::fs::remove_file(p.join("envs/dev/api.yml")).unwrap();
    });
    let s = step(
        repo.path(),
        "pull_request",
        &pr_payload(&base, &head, "acme/config"),
        &[],
    );
    assert_eq!(s.code, 0, "{}\n{}", s.stdout, s.stderr);
    assert!(
        s.stdout.contains("it removes 1 pair (api@dev)"),
        "{}",
        s.stdout
    );
    assert!(
        s.summary.contains("it removes 1 pair (api@dev)"),
        "{}",
        s.summary
    );
    assert!(s.summary.contains("pair removed"), "{}", s.summary);
    assert_eq!(s.outputs["values-changed"], "true", "{:?}", s.outputs);
}

/// A pull request that brings a finding and silences it itself (an inline
/// ignore, a rule turned off) passes, and its verdict line says so; a
/// suppression that stood on the base is not the change's.
#[test]
fn a_pull_request_that_silences_its_own_finding_is_told() {
    let repo = base_repository();
    let (base, head) = pull_request(repo.path(), |p| {
        write(
            p,
            "envs/prod/web.yml",
            "#! yttcheck: ignore[validation/min] trust me\nreplicas: 0\ndb_password: hunter2\n",
        );
    });
    let s = step(
        repo.path(),
        "pull_request",
        &pr_payload(&base, &head, "acme/config"),
        &[],
    );
    assert_eq!(s.code, 0, "{}\n{}", s.stdout, s.stderr);
    let said = "1 finding silenced by this change (inline ignore envs/prod/web.yml:1)";
    assert!(s.stdout.contains(said), "{}", s.stdout);
    let first: String = s.summary.lines().take(3).collect();
    assert!(first.contains(said), "{}", s.summary);
    // the diff judges each side by its own suppressions too: the pair
    // whose error is silenced does not "newly fail"
    assert!(!s.summary.contains("newly fail"), "{}", s.summary);

    // the same suppression on the base: not this change's
    let p = repo.path();
    git(p, &["checkout", "-q", "main"]);
    git(p, &["merge", "-q", "feature"]);
    git(p, &["branch", "-q", "-D", "feature"]);
    let (base, head) = pull_request(p, |p| {
        write(p, "envs/dev/web.yml", "replicas: 2\n");
    });
    let s = step(
        p,
        "pull_request",
        &pr_payload(&base, &head, "acme/config"),
        &[],
    );
    assert_eq!(s.code, 0, "{}\n{}", s.stdout, s.stderr);
    assert!(!s.stdout.contains("silenced"), "{}", s.stdout);
}

#[test]
fn a_shallow_checkout_is_a_clear_error() {
    let repo = base_repository();
    let (base, head) = pull_request(repo.path(), |p| {
        write(p, "envs/dev/api.yml", "port: 9092\n");
    });
    let clones = tempfile::tempdir().unwrap();
    let shallow = clones.path().join("shallow");
    let url = format!("file://{}", repo.path().display());
    git(
        clones.path(),
        &[
            "clone",
            "-q",
            "--depth",
            "1",
            &url,
            shallow.to_str().unwrap(),
        ],
    );
    git(
        &shallow,
        &["checkout", "-q", "--detach", &rev(repo.path(), "HEAD")],
    );
    let s = step(
        &shallow,
        "pull_request",
        &pr_payload(&base, &head, "acme/config"),
        &[],
    );
    assert_eq!(s.code, 2, "{}", s.stderr);
    assert!(s.stderr.contains("the checkout is shallow"), "{}", s.stderr);
    assert!(s.stderr.contains("`fetch-depth: 0`"), "{}", s.stderr);
    // also an annotation, where people look first
    assert!(
        s.stdout.starts_with("::error title=yttcheck::"),
        "{}",
        s.stdout
    );
}

#[test]
fn a_fork_pull_request_says_why_the_sarif_is_not_uploaded() {
    let repo = base_repository();
    let (base, head) = pull_request(repo.path(), |p| {
        write(p, "envs/dev/api.yml", "port: 80\n");
    });
    let s = step(
        repo.path(),
        "pull_request",
        &pr_payload(&base, &head, "mallory/config"),
        &[],
    );
    assert_eq!(s.code, 1, "{}", s.stderr);
    assert_eq!(s.outputs["sarif-upload"], "false");
    assert!(
        s.stdout.contains(
            "::notice title=yttcheck::the SARIF file is not uploaded to code scanning: the pull request comes from a fork (mallory/config)"
        ),
        "{}",
        s.stdout
    );
    // the SARIF is still written, for the artifact
    assert!(s.report("yttcheck.sarif").is_file());
}

/// 15 environments, each breaking the rule: more than GitHub shows.
fn many_findings() -> tempfile::TempDir {
    let repo = base_repository();
    for i in 0..15 {
        write(repo.path(), &format!("envs/e{i:02}/api.yml"), "port: 1\n");
    }
    git(repo.path(), &["add", "-A"]);
    git(repo.path(), &["commit", "-q", "-m", "many"]);
    repo
}

#[test]
fn a_nightly_run_checks_everything_in_shards_within_the_annotation_limits() {
    let repo = many_findings();
    let s = step(repo.path(), "schedule", &serde_json::json!({}), &[]);
    assert_eq!(s.code, 1);
    assert_eq!(s.outputs["pairs-checked"], "19");
    assert_eq!(s.outputs["errors"], "15");
    assert_eq!(s.outputs["values-changed"], "false");
    assert_eq!(s.stdout.matches("::error ").count(), 10, "{}", s.stdout);
    assert!(
        s.stdout
            .contains("::notice title=yttcheck::5 more findings than GitHub shows"),
        "{}",
        s.stdout
    );
    assert!(
        s.summary.starts_with(
            "## ❌ yttcheck: 15 errors in 19 pairs\n\n_15 errors in 19 pairs (schedule)_\n"
        ),
        "{}",
        s.summary
    );
    validate_sarif(&s.report("yttcheck.sarif"));
    // the shards of a matrix cover every pair once
    let mut total = 0;
    for shard in ["1/3", "2/3", "3/3"] {
        let s = step(
            repo.path(),
            "workflow_dispatch",
            &serde_json::json!({}),
            &["--shard", shard],
        );
        assert!(s
            .summary
            .contains(&format!(", shard {shard} (workflow_dispatch)")));
        total += s.outputs["pairs-checked"].parse::<usize>().unwrap();
    }
    assert_eq!(total, 19);
}

#[test]
fn outside_github_actions_it_says_what_to_run_instead() {
    let repo = base_repository();
    let mut cmd = Command::cargo_bin("yttcheck").unwrap();
    for (k, _) in std::env::vars() {
        if k.starts_with("GITHUB_") || k == "GITLAB_CI" {
            cmd.env_remove(k);
        }
    }
    let out = cmd.current_dir(repo.path()).arg("ci").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("runs inside a GitHub Actions step or a GitLab CI job"),
        "{err}"
    );
    assert!(err.contains("elsewhere use `yttcheck check`"), "{err}");
}

/// main with an error that has stood for months: api's schema default port
/// 80 is under its own minimum, in every environment (none sets it).
fn failing_base() -> tempfile::TempDir {
    let repo = base_repository();
    let p = repo.path();
    write(
        p,
        "libs/api/schema.yml",
        "#@data/values-schema\n---\n#@schema/validation min=1024\nport: 80\n#@schema/validation min=1\nworkers: 2\n",
    );
    write(p, "envs/prod/api.yml", "workers: 4\n");
    write(p, "envs/dev/api.yml", "workers: 1\n");
    git(p, &["add", "-A"]);
    git(p, &["commit", "-q", "-m", "the old error"]);
    repo
}

#[test]
fn a_pull_request_is_judged_on_the_findings_it_brings() {
    // a comment in the failing library, and a new environment of it: the
    // errors are the library's own, on the base for months
    let repo = failing_base();
    let (base, head) = pull_request(repo.path(), |p| {
        write(
            p,
            "libs/api/schema.yml",
            "#@data/values-schema\n---\n#! the API's port\n#@schema/validation min=1024\nport: 80\n#@schema/validation min=1\nworkers: 2\n",
        );
        write(p, "envs/qa/api.yml", "workers: 2\n");
    });
    let payload = pr_payload(&base, &head, "acme/config");
    let s = step(repo.path(), "pull_request", &payload, &[]);
    assert_eq!(s.code, 0, "{}\n{}", s.stdout, s.stderr);
    assert_eq!(s.outputs["failed"], "false");
    assert_eq!(s.outputs["new-findings"], "0");
    assert!(s.outputs["errors"] != "0", "{:?}", s.outputs);
    // no annotation for what was there; the summary says where it went
    assert!(!s.stdout.contains("::error file="), "{}", s.stdout);
    assert!(
        s.summary
            .contains("already on the base: still there, not this change's"),
        "{}",
        s.summary
    );
    assert!(
        s.stdout.contains("none of them this change's"),
        "{}",
        s.stdout
    );
    // asked to, it fails on them all
    let s = step(
        repo.path(),
        "pull_request",
        &payload,
        &["--fail-on-existing"],
    );
    assert_eq!(s.code, 1, "{}\n{}", s.stdout, s.stderr);
    assert!(s.stdout.contains("::error file="), "{}", s.stdout);

    // a pull request that breaks a validation fails with that finding
    // first, and the old ones apart
    let repo = failing_base();
    let (base, head) = pull_request(repo.path(), |p| {
        write(p, "envs/prod/api.yml", "workers: 0\n");
    });
    let s = step(
        repo.path(),
        "pull_request",
        &pr_payload(&base, &head, "acme/config"),
        &[],
    );
    assert_eq!(s.code, 1, "{}\n{}", s.stdout, s.stderr);
    assert_eq!(s.outputs["new-findings"], "1", "{:?}", s.outputs);
    let annotations: Vec<&str> = s
        .stdout
        .lines()
        .filter(|l| l.starts_with("::error file="))
        .collect();
    assert_eq!(annotations.len(), 1, "{}", s.stdout);
    assert!(
        annotations[0].contains("envs/prod/api.yml,line=1"),
        "{}",
        annotations[0]
    );
    let new_at = s.summary.find("workers").unwrap();
    let old_at = s.summary.find("already on the base").unwrap();
    assert!(new_at < old_at, "{}", s.summary);
}

/// A failure new to prod on a line that already failed in dev on the base
/// (the schema's default) is the change's: findings are matched per pair,
/// not by fingerprint alone.
#[test]
fn a_new_failure_in_another_environment_is_the_changes() {
    let repo = base_repository();
    let p = repo.path();
    write(
        p,
        "libs/api/schema.yml",
        "#@data/values-schema\n---\n#@schema/validation min=1024\nport: 80\n",
    );
    // dev keeps the failing default; prod sets a good port
    write(p, "envs/dev/api.yml", "#@data/values\n---\n{}\n");
    write(p, "envs/prod/api.yml", "port: 9090\n");
    git(p, &["add", "-A"]);
    git(p, &["commit", "-q", "-m", "dev fails on the default"]);
    let (base, head) = pull_request(p, |p| {
        write(p, "envs/prod/api.yml", "#@data/values\n---\n{}\n");
    });
    let s = step(
        p,
        "pull_request",
        &pr_payload(&base, &head, "acme/config"),
        &[],
    );
    assert_eq!(s.code, 1, "{}\n{}", s.stdout, s.stderr);
    assert_eq!(s.outputs["new-findings"], "1", "{:?}", s.outputs);
    assert_eq!(s.outputs["failed"], "true", "{:?}", s.outputs);
    assert!(s.stdout.contains("::error file="), "{}", s.stdout);
}

/// A pull request that deletes lines above a failing call moves the line
/// numbers ytt's message embeds (`t.yml:7`): the failure stood on the base,
/// and `ci` passes.
#[test]
fn a_failure_whose_lines_moved_is_not_the_changes() {
    let repo = base_repository();
    let p = repo.path();
    let template = |comments: usize| {
        format!(
            "#@ load(\"@ytt:assert\", \"assert\")\n{}#@ def f():\n#@   assert.fail(\"boom\")\n#@ end\n---\na: #@ f()\n",
            "#! a comment\n".repeat(comments)
        )
    };
    write(p, "libs/web/t.yml", template(3));
    git(p, &["add", "-A"]);
    git(p, &["commit", "-q", "-m", "a failing template"]);
    let (base, head) = pull_request(p, |p| write(p, "libs/web/t.yml", template(0)));
    let s = step(
        p,
        "pull_request",
        &pr_payload(&base, &head, "acme/config"),
        &[],
    );
    assert_eq!(s.code, 0, "{}\n{}", s.stdout, s.stderr);
    assert_eq!(s.outputs["new-findings"], "0", "{:?}", s.outputs);
    assert!(s.outputs["errors"] != "0", "{:?}", s.outputs);
}
