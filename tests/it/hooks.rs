//! The git hooks (`hooks/`, `yttcheck hook install`) and the pre-commit
//! framework's (`.pre-commit-hooks.yaml`), run by real `git commit`, `git
//! push` and the real `pre-commit` from PyPI in temporary repositories.

use std::path::{Path, PathBuf};
use std::process::{Command as Process, Output};

use super::common::{git, tool, write, DaemonStopper};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// PATH with the yttcheck under test first.
fn path_with_yttcheck() -> String {
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_yttcheck"));
    format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

/// git with the hooks' environment: yttcheck on PATH, the daemon as asked.
fn git_run(dir: &Path, args: &[&str], daemon: &str) -> Output {
    Process::new("git")
        .current_dir(dir)
        .args(args)
        .env("GIT_AUTHOR_NAME", "Test")
        .env("GIT_AUTHOR_EMAIL", "test@example.com")
        .env("GIT_COMMITTER_NAME", "Test")
        .env("GIT_COMMITTER_EMAIL", "test@example.com")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", dir)
        .env("PATH", path_with_yttcheck())
        .env("YTTCHECK_DAEMON", daemon)
        .env_remove("CI")
        .output()
        .unwrap()
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn yttcheck(dir: &Path, args: &[&str]) -> Output {
    Process::new(env!("CARGO_BIN_EXE_yttcheck"))
        .current_dir(dir)
        .args(args)
        .env_remove("CI")
        .output()
        .unwrap()
}

fn repository() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    git(p, &["init", "-q", "-b", "main"]);
    write(
        p,
        "libs/web/schema.yml",
        "#@data/values-schema\n---\n#@schema/validation min=1\nreplicas: 1\n",
    );
    write(p, "envs/dev/web.yml", "replicas: 1\n");
    write(p, "envs/prod/web.yml", "replicas: 3\n");
    git(p, &["add", "-A"]);
    git(p, &["commit", "-q", "-m", "initial"]);
    d
}

#[test]
fn the_pre_commit_hook_blocks_a_bad_staged_value_and_chains_the_old_hook() {
    let repo = repository();
    let p = repo.path();
    let _stop = DaemonStopper(p.to_path_buf());
    // a hook already there: kept, and run first
    let old = "#!/bin/sh\necho ran >> \"$(git rev-parse --git-dir)/old-hook-ran\"\n";
    write(p, ".git/hooks/pre-commit", old);
    let mode = std::os::unix::fs::PermissionsExt::from_mode(0o755);
    std::fs::set_permissions(p.join(".git/hooks/pre-commit"), mode).unwrap();

    let out = yttcheck(p, &["hook", "install"]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(
        std::fs::read_to_string(p.join(".git/hooks/pre-commit")).unwrap(),
        std::fs::read_to_string(root().join("hooks/pre-commit")).unwrap()
    );
    // installing again upgrades ours in place, chaining nothing new
    assert!(yttcheck(p, &["hook", "install"]).status.success());
    assert_eq!(
        std::fs::read_to_string(p.join(".git/hooks/pre-commit.yttcheck-chained")).unwrap(),
        old
    );

    for daemon in ["never", "always"] {
        write(p, "envs/prod/web.yml", "replicas: 0\n");
        git(p, &["add", "-A"]);
        let out = git_run(p, &["commit", "-q", "-m", "bad"], daemon);
        assert!(!out.status.success(), "{daemon}: {}", text(&out));
        let t = text(&out);
        assert!(t.contains("envs/prod/web.yml:1:1"), "{daemon}: {t}");
        assert!(t.contains("validation/min"), "{daemon}: {t}");
        assert!(!t.contains("could not answer"), "{daemon}: {t}");

        // `git commit FILE` commits that file alone (git gives the hook a
        // temporary index): the bad value staged elsewhere is not in it
        write(
            p,
            "envs/dev/web.yml",
            format!("replicas: {}\n", if daemon == "never" { 2 } else { 4 }),
        );
        let out = git_run(
            p,
            &["commit", "-q", "-m", "dev only", "envs/dev/web.yml"],
            daemon,
        );
        assert!(out.status.success(), "{daemon}: {}", text(&out));

        let good = if daemon == "never" { 5 } else { 6 };
        write(p, "envs/prod/web.yml", format!("replicas: {good}\n"));
        git(p, &["add", "-A"]);
        let out = git_run(p, &["commit", "-q", "-m", "good"], daemon);
        assert!(out.status.success(), "{daemon}: {}", text(&out));
    }
    let ran = std::fs::read_to_string(p.join(".git/old-hook-ran")).unwrap();
    assert_eq!(
        ran.lines().count(),
        6,
        "the chained hook runs on every commit"
    );

    // uninstall puts the old hook back, as it was
    assert!(yttcheck(p, &["hook", "uninstall"]).status.success());
    assert_eq!(
        std::fs::read_to_string(p.join(".git/hooks/pre-commit")).unwrap(),
        old
    );
    assert!(!p.join(".git/hooks/pre-commit.yttcheck-chained").exists());
}

/// A hook of the user's that merely mentions yttcheck (even the words of our
/// hook's header) is theirs: install chains it rather than overwriting it,
/// and uninstall, with our hook gone or never installed, leaves it alone.
#[test]
fn a_users_hook_that_mentions_yttcheck_is_never_taken_for_ours() {
    let repo = repository();
    let p = repo.path();
    let theirs = "#!/bin/sh\n# we used to run yttcheck's pre-commit hook here; see # yttcheck pre-commit hook\nexit 0\n";
    write(p, ".git/hooks/pre-commit", theirs);
    // uninstall with nothing of ours: theirs stays
    assert!(yttcheck(p, &["hook", "uninstall"]).status.success());
    assert_eq!(
        std::fs::read_to_string(p.join(".git/hooks/pre-commit")).unwrap(),
        theirs
    );
    // install chains theirs, uninstall puts it back byte for byte
    let out = yttcheck(p, &["hook", "install"]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(
        std::fs::read_to_string(p.join(".git/hooks/pre-commit.yttcheck-chained")).unwrap(),
        theirs
    );
    assert_eq!(
        std::fs::read_to_string(p.join(".git/hooks/pre-commit")).unwrap(),
        std::fs::read_to_string(root().join("hooks/pre-commit")).unwrap()
    );
    assert!(yttcheck(p, &["hook", "uninstall"]).status.success());
    assert_eq!(
        std::fs::read_to_string(p.join(".git/hooks/pre-commit")).unwrap(),
        theirs
    );
    assert!(!p.join(".git/hooks/pre-commit.yttcheck-chained").exists());
}

#[test]
fn hooks_go_where_core_hooks_path_says_and_the_first_commit_is_checked() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    git(p, &["init", "-q", "-b", "main"]);
    git(p, &["config", "core.hooksPath", ".githooks"]);
    let out = yttcheck(p, &["hook", "install", "--pre-push"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(p.join(".githooks/pre-commit").is_file());
    assert!(p.join(".githooks/pre-push").is_file());
    assert!(!p.join(".git/hooks/pre-commit").exists());
    // no HEAD yet: everything staged is checked
    write(
        p,
        "libs/web/schema.yml",
        "#@data/values-schema\n---\n#@schema/validation min=1\nreplicas: 1\n",
    );
    write(p, "envs/dev/web.yml", "replicas: 0\n");
    git(p, &["add", "libs", "envs"]);
    let out = git_run(p, &["commit", "-q", "-m", "first"], "never");
    assert!(!out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("validation/min"), "{}", text(&out));
    // a hook that is not ours is left alone by uninstall
    write(p, ".githooks/post-commit", "#!/bin/sh\n");
    assert!(yttcheck(p, &["hook", "uninstall"]).status.success());
    assert!(!p.join(".githooks/pre-commit").exists());
    assert!(p.join(".githooks/post-commit").exists());
}

#[test]
fn the_pre_push_hook_checks_what_a_push_brings() {
    let repo = repository();
    let p = repo.path();
    let remote = tempfile::tempdir().unwrap();
    git(remote.path(), &["init", "-q", "--bare"]);
    let url = remote.path().display().to_string();
    git(p, &["remote", "add", "origin", &url]);
    assert!(yttcheck(p, &["hook", "install", "--pre-push"])
        .status
        .success());
    let out = git_run(p, &["push", "-q", "-u", "origin", "main"], "never");
    assert!(out.status.success(), "{}", text(&out));
    // a bad value committed without the pre-commit hook
    write(p, "envs/dev/web.yml", "replicas: 0\n");
    git(p, &["add", "-A"]);
    let out = git_run(p, &["commit", "-q", "--no-verify", "-m", "bad"], "never");
    assert!(out.status.success());
    let out = git_run(p, &["push", "-q", "origin", "main"], "never");
    assert!(!out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("envs/dev/web.yml"), "{}", text(&out));
    // fixed: the push goes through
    write(p, "envs/dev/web.yml", "replicas: 2\n");
    git(p, &["add", "-A"]);
    git_run(p, &["commit", "-q", "--no-verify", "-m", "fix"], "never");
    let out = git_run(p, &["push", "-q", "origin", "main"], "never");
    assert!(out.status.success(), "{}", text(&out));

    // a new branch with no upstream checks what it changes since it left
    // the remote's default branch, not every pair of the repository: an
    // unrelated library already broken on main does not block its push
    write(
        p,
        "envs/prod/web.yml",
        "replicas: 0
",
    );
    git(p, &["add", "-A"]);
    git_run(
        p,
        &["commit", "-q", "--no-verify", "-m", "broken on main"],
        "never",
    );
    git_run(p, &["push", "-q", "--no-verify", "origin", "main"], "never");
    git(p, &["checkout", "-q", "-b", "topic"]);
    write(
        p,
        "README.md",
        "# docs
",
    );
    write(
        p,
        "envs/dev/web.yml",
        "replicas: 5
",
    );
    git(p, &["add", "-A"]);
    git_run(p, &["commit", "-q", "--no-verify", "-m", "topic"], "never");
    let out = git_run(p, &["push", "-q", "origin", "topic"], "never");
    assert!(out.status.success(), "{}", text(&out));
    // and it still catches what the branch breaks
    write(
        p,
        "envs/dev/web.yml",
        "replicas: 0
",
    );
    git(p, &["add", "-A"]);
    git_run(
        p,
        &["commit", "-q", "--no-verify", "-m", "break dev"],
        "never",
    );
    git(p, &["checkout", "-q", "-b", "topic2"]);
    let out = git_run(p, &["push", "-q", "origin", "topic2"], "never");
    assert!(!out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("envs/dev/web.yml"), "{}", text(&out));
}

/// The manifest's `yttcheck-system` hook, as a local hook of a repository's
/// config (the `language: rust` hook is the same command, built by cargo).
fn local_config_from_manifest() -> String {
    let manifest: serde_json::Value = serde_norway::from_str(
        &std::fs::read_to_string(root().join(".pre-commit-hooks.yaml")).unwrap(),
    )
    .unwrap();
    let hooks = manifest.as_array().unwrap();
    let entries: Vec<&str> = hooks
        .iter()
        .map(|h| h["entry"].as_str().unwrap())
        .filter(|e| e.contains("check --staged"))
        .collect();
    // the three variants run the same check
    assert!(
        entries
            .iter()
            .all(|e| e.ends_with("check --staged --quiet --")),
        "{entries:?}"
    );
    let h = hooks.iter().find(|h| h["id"] == "yttcheck-system").unwrap();
    let config = serde_json::json!({"repos": [{"repo": "local", "hooks": [h]}]});
    serde_norway::to_string(&config).unwrap()
}

#[test]
fn the_pre_commit_framework_runs_the_manifest_hooks() {
    let Some(pre_commit) = tool("pre-commit") else {
        return;
    };
    let out = Process::new(&pre_commit)
        .current_dir(root())
        .args(["validate-manifest", ".pre-commit-hooks.yaml"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));

    let repo = repository();
    let p = repo.path();
    let home = tempfile::tempdir().unwrap();
    write(p, ".pre-commit-config.yaml", local_config_from_manifest());
    let run = |args: &[&str]| {
        Process::new(&pre_commit)
            .current_dir(p)
            .args(args)
            .env("PRE_COMMIT_HOME", home.path())
            .env("HOME", home.path())
            .env("PATH", path_with_yttcheck())
            .env("YTTCHECK_DAEMON", "never")
            .env_remove("CI")
            .output()
            .unwrap()
    };
    let out = run(&["validate-config"]);
    assert!(out.status.success(), "{}", text(&out));
    let out = run(&["install"]);
    assert!(out.status.success(), "{}", text(&out));
    git(p, &["add", ".pre-commit-config.yaml"]);

    // a bad value blocks the commit, with the finding
    write(p, "envs/prod/web.yml", "replicas: 0\n");
    git(p, &["add", "-A"]);
    let out = git_run(p, &["commit", "-q", "-m", "bad"], "never");
    let t = text(&out);
    assert!(!out.status.success(), "{t}");
    assert!(
        t.contains("envs/prod/web.yml:1:1") && t.contains("validation/min"),
        "{t}"
    );
    // a good one passes
    write(p, "envs/prod/web.yml", "replicas: 4\n");
    git(p, &["add", "-A"]);
    let out = git_run(p, &["commit", "-q", "-m", "good"], "never");
    assert!(out.status.success(), "{}", text(&out));
    // a README change runs no check at all (files: ytt's inputs)
    write(p, "README.md", "# hi\n");
    git(p, &["add", "-A"]);
    let out = git_run(p, &["commit", "-m", "docs"], "never");
    assert!(
        out.status.success() && text(&out).contains("(no files to check)Skipped"),
        "{}",
        text(&out)
    );

    // a text template alone is one of ytt's inputs: its change is checked
    // (and a division by zero in it blocks the commit)
    write(p, "libs/web/notes.txt", "replicas: (@= str(1 // 0) @)\n");
    git(p, &["add", "-A"]);
    let out = git_run(p, &["commit", "-q", "-m", "notes"], "never");
    let t = text(&out);
    assert!(!out.status.success(), "{t}");
    assert!(t.contains("libs/web/notes.txt"), "{t}");
    write(p, "libs/web/notes.txt", "replicas: (@= str(1) @)\n");
    git(p, &["add", "-A"]);
    let out = git_run(p, &["commit", "-q", "-m", "notes"], "never");
    assert!(out.status.success(), "{}", text(&out));

    // --all-files checks every pair: a bad value committed past the hook
    write(p, "envs/dev/web.yml", "replicas: 0\n");
    git(p, &["add", "-A"]);
    git_run(
        p,
        &["commit", "-q", "--no-verify", "-m", "sneaked in"],
        "never",
    );
    let out = run(&["run", "--all-files"]);
    assert!(!out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("envs/dev/web.yml:1:1"),
        "{}",
        text(&out)
    );
}
