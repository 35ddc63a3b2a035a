//! `check --staged`, `check --rev`, `--changed-since` and `diff` on real git
//! repositories made in temp dirs (commits, branches, a merge, staged changes
//! edited again in the work tree, a shallow clone, a repository without
//! commits). Commits have fixed dates and authors, so their ids are stable.

use std::path::Path;
use std::process::Command as Process;

use super::common::{git, run, write};

/// The pairs `list --format json ARGS` plans.
fn listed(dir: &Path, args: &[&str]) -> Vec<serde_json::Value> {
    let mut all = vec!["list", "--format", "json"];
    all.extend_from_slice(args);
    let (code, out, err) = run(dir, &all);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    v["pairs"].as_array().unwrap().clone()
}

fn pairs_listed(dir: &Path, args: &[&str]) -> Vec<String> {
    listed(dir, args)
        .iter()
        .map(|p| p["name"].as_str().unwrap().to_string())
        .collect()
}

/// main: libraries web and api, environments dev and prod.
fn repository() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    git(p, &["init", "-q", "-b", "main"]);
    write(
        p,
        "libs/web/schema.yml",
        "#@data/values-schema\n---\n#@schema/validation min=1\nreplicas: 1\nimage:\n  tag: v1\ndb_password: \"\"\nports:\n- name: \"\"\n  port: 80\n",
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
        "replicas: 3\ndb_password: hunter2\nports:\n- name: http\n  port: 80\n",
    );
    write(p, "envs/prod/api.yml", "port: 9090\n");
    write(p, "envs/dev/api.yml", "port: 9091\n");
    git(p, &["add", "-A"]);
    git(p, &["commit", "-q", "-m", "initial"]);
    d
}

#[test]
fn staged_is_what_would_be_committed() {
    let d = repository();
    let p = d.path();
    write(p, "envs/prod/web.yml", "replicas: 0\n");
    git(p, &["add", "envs/prod/web.yml"]);
    // fixed again in the work tree, but not staged
    write(p, "envs/prod/web.yml", "replicas: 2\n");
    let (code, out, _) = run(p, &["check", "--staged", "--format", "json"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("\"rule\": \"validation/min\""), "{out}");
    let (code, _, _) = run(p, &["check"]);
    assert_eq!(code, 0);
    // the index and the work tree are left as they were
    let status = Process::new("git")
        .current_dir(p)
        .args(["status", "--porcelain"])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&status.stdout),
        "MM envs/prod/web.yml\n"
    );
}

#[test]
fn a_revision_is_checked_without_a_checkout() {
    let d = repository();
    let p = d.path();
    write(p, "envs/prod/api.yml", "port: 80\n");
    git(p, &["commit", "-q", "-am", "low port"]);
    write(p, "envs/prod/api.yml", "port: 8443\n");
    git(p, &["commit", "-q", "-am", "fix port"]);
    let (code, _, _) = run(p, &["check", "--rev", "HEAD"]);
    assert_eq!(code, 0);
    let (code, out, _) = run(p, &["check", "--rev", "HEAD~1", "--format", "json"]);
    assert_eq!(code, 1);
    assert!(out.contains("\"path\": \"envs/prod/api.yml\""), "{out}");
    let (code, _, err) = run(p, &["check", "--rev", "no-such-branch"]);
    assert_eq!(code, 2);
    assert!(err.contains("unknown revision 'no-such-branch'"), "{err}");
}

#[test]
fn changed_since_runs_only_the_affected_pairs() {
    let d = repository();
    let p = d.path();
    git(p, &["checkout", "-q", "-b", "feature"]);
    write(p, "envs/dev/web.yml", "replicas: 2\n");
    git(p, &["commit", "-q", "-am", "dev web"]);
    assert_eq!(
        pairs_listed(p, &["--changed-since", "main"]),
        vec!["web@dev"]
    );
    // uncommitted work counts too
    write(
        p,
        "libs/api/schema.yml",
        "#@data/values-schema\n---\nport: 8080\n",
    );
    assert_eq!(
        pairs_listed(p, &["--changed-since", "main"]),
        vec!["api@dev", "api@prod", "web@dev"]
    );
    // main moves on; the merge base stays where the branch started
    git(p, &["checkout", "-q", "main"]);
    write(p, "envs/prod/web.yml", "replicas: 4\n");
    git(p, &["commit", "-q", "-am", "main moves"]);
    git(p, &["checkout", "-q", "feature"]);
    git(p, &["checkout", "-q", "--", "."]);
    assert_eq!(
        pairs_listed(p, &["--changed-since", "main"]),
        vec!["web@dev"]
    );
    // after merging main into the branch, main's own change is not the branch's
    git(p, &["merge", "-q", "--no-edit", "main"]);
    assert_eq!(
        pairs_listed(p, &["--changed-since", "main"]),
        vec!["web@dev"]
    );
    assert_eq!(
        pairs_listed(p, &["--rev", "HEAD^1", "--changed-since", "main"]),
        vec!["web@dev"]
    );
}

/// The work tree is compared with the index by `stat`, as git does: a
/// file whose size and times the index recorded is not read; any edit is
/// still seen, also one of the same size with its modification time put
/// back (the change time moves), and one right after `git add` (racy).
#[test]
fn changed_since_sees_every_edit_of_the_work_tree() {
    let d = repository();
    let p = d.path();
    git(p, &["status", "-s"]); // refreshes the index's stat data
    assert!(pairs_listed(p, &["--changed-since", "HEAD"]).is_empty());
    // same size, same modification time
    let file = p.join("envs/dev/web.yml");
    let mtime = std::fs::metadata(&file).unwrap().modified().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    write(p, "envs/dev/web.yml", "replicas: 7\n");
    std::fs::File::options()
        .write(true)
        .open(&file)
        .unwrap()
        .set_modified(mtime)
        .unwrap();
    assert_eq!(
        pairs_listed(p, &["--changed-since", "HEAD"]),
        vec!["web@dev"]
    );
    // staged, then edited again at once: the index is racy for it
    git(p, &["add", "envs/dev/web.yml"]);
    write(p, "envs/dev/web.yml", "replicas: 8\n");
    assert_eq!(
        pairs_listed(p, &["--changed-since", "HEAD"]),
        vec!["web@dev"]
    );
    git(p, &["checkout", "-q", "HEAD", "--", "."]);
    assert!(pairs_listed(p, &["--changed-since", "HEAD"]).is_empty());
}

/// A commit's files are listed from the index where the index's cached
/// tree ids vouch for a folder (after a commit, all of them), and from tree
/// objects elsewhere: a staged change, a cached tree rewritten to the
/// staged content (`git write-tree`), a file removed from the index and a
/// new folder are each seen as git sees them.
#[test]
fn a_commit_is_listed_as_git_lists_it_whatever_the_index_caches() {
    let d = repository();
    let p = d.path();
    // staged and cached: the index's tree for envs/dev is the staged one
    write(p, "envs/dev/web.yml", "replicas: 0\n");
    git(p, &["add", "envs/dev/web.yml"]);
    git(p, &["write-tree"]);
    // HEAD still has replicas: 1 there, which passes
    let (code, _, err) = run(p, &["check", "--rev", "HEAD", "--quiet"]);
    assert_eq!(code, 0, "{err}");
    let (code, out, _) = run(p, &["check", "--staged"]);
    assert_eq!(code, 1, "the staged replicas: 0 fails min=1: {out}");
    assert_eq!(
        pairs_listed(p, &["--staged", "--changed-since", "HEAD"]),
        vec!["web@dev"]
    );
    // a file taken out of the index (its pair is gone; the other pair of
    // its environment may have read it), and a new folder staged
    git(p, &["rm", "-q", "--cached", "envs/prod/api.yml"]);
    write(p, "envs/qa/api.yml", "port: 9092\n");
    git(p, &["add", "envs/qa/api.yml"]);
    assert_eq!(
        pairs_listed(p, &["--staged", "--changed-since", "HEAD"]),
        vec!["api@qa", "web@dev", "web@prod"]
    );
    // committed: the index vouches for every folder again, nothing changed
    git(p, &["commit", "-q", "-m", "second"]);
    assert!(pairs_listed(p, &["--staged", "--changed-since", "HEAD"]).is_empty());
    assert_eq!(
        pairs_listed(p, &["--staged", "--changed-since", "HEAD~1"]),
        vec!["api@qa", "web@dev", "web@prod"]
    );
    let (code, _, err) = run(p, &["check", "--rev", "HEAD~1", "--quiet"]);
    assert_eq!(code, 0, "{err}");
}

/// `--changed-since` plans the pairs it keeps without reading the other
/// environment files; what it plans for them is what a full plan says
/// (`-f` for annotated files, `--data-values-file` for plain ones, in order).
#[test]
fn changed_since_plans_its_pairs_as_a_full_plan_does() {
    let d = repository();
    let p = d.path();
    write(
        p,
        "envs/prod/web-extra.yml",
        "#@data/values\n---\nreplicas: 5\n",
    );
    git(p, &["add", "-A"]);
    git(p, &["commit", "-q", "-m", "extra"]);
    write(p, "envs/prod/web.yml", "replicas: 6\n");
    let ytt_of = |args: &[&str]| -> String {
        listed(p, args)
            .iter()
            .find(|x| x["name"] == "web@prod")
            .map(|x| {
                x["ytt"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|a| a.as_str().unwrap())
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .unwrap()
    };
    let full = ytt_of(&[]);
    assert!(full.contains("-f envs/prod/web-extra.yml"), "{full}");
    assert!(
        full.contains("--data-values-file envs/prod/web.yml"),
        "{full}"
    );
    assert_eq!(ytt_of(&["--changed-since", "HEAD"]), full);
    assert_eq!(
        pairs_listed(p, &["--changed-since", "HEAD"]),
        vec!["web@prod"]
    );
}

#[test]
fn a_shallow_clone_says_how_to_fetch() {
    let d = repository();
    let origin = d.path();
    write(origin, "envs/dev/web.yml", "replicas: 5\n");
    git(origin, &["commit", "-q", "-am", "second"]);
    let c = tempfile::tempdir().unwrap();
    let url = format!("file://{}", origin.display());
    git(c.path(), &["clone", "-q", "--depth", "1", &url, "clone"]);
    let clone = c.path().join("clone");
    let (code, _, err) = run(&clone, &["check", "--changed-since", "HEAD~1"]);
    assert_eq!(code, 2);
    assert!(err.contains("shallow clone"), "{err}");
    assert!(err.contains("fetch-depth: 0"), "{err}");
}

#[test]
fn a_repository_without_commits() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    git(p, &["init", "-q", "-b", "main"]);
    write(
        p,
        "libs/web/schema.yml",
        "#@data/values-schema\n---\nreplicas: 1\n",
    );
    git(p, &["add", "-A"]);
    let (code, _, err) = run(p, &["check", "--rev", "HEAD"]);
    assert_eq!(code, 2);
    assert!(err.contains("no commits yet"), "{err}");
    let (code, out, err) = run(p, &["check", "--staged"]);
    assert_eq!(code, 0, "{out}{err}");
    let e = tempfile::tempdir().unwrap();
    let (code, _, err) = run(e.path(), &["check", "--staged"]);
    assert_eq!(code, 2);
    assert!(err.contains("not inside a git repository"), "{err}");
}

/// The branch changes values, one secret and the schema.
fn diff_repository() -> tempfile::TempDir {
    let d = repository();
    let p = d.path();
    git(p, &["checkout", "-q", "-b", "feature"]);
    write(
        p,
        "libs/web/schema.yml",
        "#@data/values-schema\n---\n#@schema/validation min=2\nreplicas: 2\nimage:\n  tag: v2\ndb_password: \"\"\nports:\n- name: \"\"\n  port: 80\ntimeout: 30\n",
    );
    write(
        p,
        "envs/prod/web.yml",
        "replicas: 4\ndb_password: s3cr3t\nports:\n- name: metrics\n  port: 9090\n- name: http\n  port: 8080\n",
    );
    git(p, &["commit", "-q", "-am", "web changes"]);
    d
}

#[test]
fn diff_in_every_format() {
    let d = diff_repository();
    let p = d.path();
    let (code, out, err) = run(
        p,
        &[
            "diff", "--base", "main", "--head", "HEAD", "--color", "never",
        ],
    );
    assert_eq!(code, 0, "{err}");
    insta::assert_snapshot!("diff_text", out);
    assert!(
        !out.contains("s3cr3t") && !out.contains("hunter2"),
        "secrets leak:\n{out}"
    );
    let (_, out, _) = run(
        p,
        &[
            "diff", "--base", "main", "--head", "HEAD", "--format", "markdown",
        ],
    );
    insta::assert_snapshot!("diff_markdown", out);
    let (_, out, _) = run(
        p,
        &[
            "diff", "--base", "main", "--head", "HEAD", "--format", "json",
        ],
    );
    assert!(
        !out.contains("s3cr3t") && !out.contains("hunter2"),
        "secrets leak:\n{out}"
    );
    insta::assert_snapshot!("diff_json", out);
}

#[test]
fn diff_of_the_work_tree_and_of_the_index() {
    let d = repository();
    let p = d.path();
    write(p, "envs/dev/api.yml", "port: 9999\n");
    let (_, out, _) = run(p, &["diff", "--base", "main", "--color", "never"]);
    assert!(out.contains("api@dev\n  ~ port  9091 -> 9999\n"), "{out}");
    let (_, out, _) = run(
        p,
        &["diff", "--base", "main", "--staged", "--color", "never"],
    );
    assert!(out.contains(": 0 of 0 pairs change"), "{out}");
    git(p, &["add", "envs/dev/api.yml"]);
    let (_, out, _) = run(
        p,
        &["diff", "--base", "main", "--staged", "--color", "never"],
    );
    assert!(out.contains("api@dev\n  ~ port  9091 -> 9999\n"), "{out}");
}

#[test]
fn breaking_schema_changes_can_fail_the_run() {
    let d = diff_repository();
    let p = d.path();
    let (code, _, _) = run(
        p,
        &[
            "diff",
            "--base",
            "main",
            "--head",
            "HEAD",
            "--fail-on-breaking",
        ],
    );
    assert_eq!(code, 1);
    let (code, _, _) = run(p, &["diff", "--base", "main", "--head", "HEAD"]);
    assert_eq!(code, 0);
}

#[test]
fn a_detached_head_and_configured_secret_words() {
    let d = repository();
    let p = d.path();
    git(p, &["checkout", "-q", "-b", "feature"]);
    write(
        p,
        "libs/api/schema.yml",
        "#@data/values-schema\n---\n#@schema/validation min=1024\nport: 8080\npin: \"\"\n",
    );
    write(p, "envs/dev/api.yml", "port: 9091\npin: \"1234\"\n");
    write(p, ".yttcheck.yml", "secret_words: [pin]\n");
    git(p, &["add", "-A"]);
    git(p, &["commit", "-q", "-m", "pin"]);
    git(p, &["checkout", "-q", "--detach"]);
    let (code, out, err) = run(p, &["diff", "--base", "main", "--color", "never"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("+ pin  (value not shown)"), "{out}");
    assert!(!out.contains("1234"), "{out}");
    // the config file changed: every pair is affected
    assert_eq!(pairs_listed(p, &["--changed-since", "main"]).len(), 4);
}

#[test]
fn exit_codes_do_not_lie() {
    let d = repository();
    let p = d.path();
    // a path that does not exist is a usage error, not "no findings"
    let (code, _, err) = run(p, &["check", "libs/nope"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no such path 'libs/nope'"), "{err}");
    // a file deleted from the work tree but known to git still selects the
    // pairs of the folder it was in (a pre-commit hook passes deleted files
    // too); api@prod is gone with its only file
    std::fs::remove_file(p.join("envs/prod/api.yml")).unwrap();
    assert_eq!(pairs_listed(p, &["envs/prod/api.yml"]), vec!["web@prod"]);
    git(p, &["checkout", "--", "envs/prod/api.yml"]);
    // a staged change that affects no pair: exit 0, nothing printed, and a
    // report file still written
    write(p, "docs/README.md", "notes\n");
    git(p, &["add", "docs/README.md"]);
    let sarif = p.join("out.sarif");
    let (code, out, err) = run(
        p,
        &[
            "check",
            "--staged",
            "--changed-since",
            "HEAD",
            "--format",
            "text",
            "--format",
            &format!("sarif={}", sarif.display()),
        ],
    );
    assert_eq!((code, out.as_str(), err.as_str()), (0, "", ""));
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&sarif).unwrap()).unwrap();
    assert_eq!(v["version"], "2.1.0");
    let (code, out, err) = run(p, &["check", "--changed-since", "HEAD"]);
    assert_eq!((code, out.as_str(), err.as_str()), (0, "", ""));
    // a repository without any library: exit 2 with a hint on layouts
    let empty = tempfile::tempdir().unwrap();
    write(empty.path(), "config/app.yml", "a: 1\n");
    let (code, _, err) = run(empty.path(), &["check"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no ytt library found"), "{err}");
    assert!(err.contains(".yttcheck.yml"), "{err}");
}

#[test]
fn diff_shows_a_pair_that_newly_fails_in_every_format() {
    let d = repository();
    let p = d.path();
    // a tighter rule: no value changes, but api's environments now fail
    write(
        p,
        "libs/api/schema.yml",
        "#@data/values-schema\n---\n#@schema/validation min=9091\nport: 9091\n",
    );
    git(p, &["commit", "-q", "-am", "tighten"]);
    let args = ["diff", "--base", "HEAD~1", "--head", "HEAD"];
    let (_, out, err) = run(p, &[&args[..], &["--color", "never"]].concat());
    assert!(out.contains("1 pair newly failing"), "{out}{err}");
    assert!(
        out.contains("api@prod  (newly fails: 1 error at head, none at base)"),
        "{out}"
    );
    assert!(!out.contains("api@dev"), "api@dev still passes:\n{out}");
    // and why: the rule, its message and its place
    let why = out
        .lines()
        .find(|l| l.trim_start().starts_with("head: validation/min"))
        .unwrap_or_else(|| panic!("no reason for api@prod:\n{out}"));
    assert!(why.contains("(envs/prod/api.yml:"), "{why}");
    let (_, out, _) = run(p, &[&args[..], &["--format", "markdown"]].concat());
    assert!(
        out.contains(
            "<code>api@prod</code>: 0 changes — ❌ newly fails: 1 error at head, none at base"
        ),
        "{out}"
    );
    assert!(out.contains("- head: validation/min "), "{out}");
    let (_, out, _) = run(p, &[&args[..], &["--format", "json"]].concat());
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let prod = v["pairs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "api@prod")
        .unwrap();
    assert_eq!(prod["newly_failing"], true);
    assert_eq!(
        prod["head_reasons"][0]["rule"], "validation/min",
        "{prod:#}"
    );
    assert!(prod["head_reasons"][0]["at"]
        .as_str()
        .unwrap()
        .starts_with("envs/prod/api.yml:"));
}

/// A policy pack vendored as a git submodule (as the README suggests) is
/// read at the commit the superproject records, in every git mode; a clone
/// that has not fetched the submodule gets a finding that says what to do,
/// not a refusal to check.
#[test]
fn a_policy_pack_in_a_submodule_is_read_at_its_recorded_commit() {
    let d = tempfile::tempdir().unwrap();
    let pack = d.path().join("pack");
    std::fs::create_dir_all(&pack).unwrap();
    git(&pack, &["init", "-q", "-b", "main"]);
    write(
        &pack,
        "replicas.yml",
        "#@ load(\"@ytt:assert\", \"assert\")\n---\n#@assert/validate min=3\nreplicas: 0\n",
    );
    git(&pack, &["add", "-A"]);
    git(&pack, &["commit", "-q", "-m", "pack"]);

    let repo = d.path().join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    let p = repo.as_path();
    git(p, &["init", "-q", "-b", "main"]);
    write(
        p,
        "libs/web/schema.yml",
        "#@data/values-schema\n---\nreplicas: 1\n",
    );
    write(p, "envs/prod/web.yml", "replicas: 2\n");
    write(
        p,
        ".yttcheck.yml",
        "policies:\n  - path: vendor/pack\n    environments: [prod]\n",
    );
    git(
        p,
        &[
            "-c",
            "protocol.file.allow=always",
            "submodule",
            "add",
            "-q",
            pack.to_str().unwrap(),
            "vendor/pack",
        ],
    );
    git(p, &["add", "-A"]);
    git(p, &["commit", "-q", "-m", "with the pack"]);

    let violation = |args: &[&str]| {
        let mut all = vec!["check", "-q", "--daemon", "never", "--format", "json"];
        all.extend_from_slice(args);
        let (code, out, err) = run(p, &all);
        let v: serde_json::Value =
            serde_json::from_str(&out).unwrap_or_else(|e| panic!("{args:?} {e}: {out}{err}"));
        (code, v)
    };
    for args in [&[][..], &["--staged"][..], &["--rev", "HEAD"][..]] {
        let (code, v) = violation(args);
        assert_eq!(code, 1, "{args:?}: {v}");
        let rules: Vec<&str> = v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["rule"].as_str().unwrap())
            .collect();
        assert_eq!(rules, ["policy/pack/replicas/min"], "{args:?}: {v}");
    }

    // a clone without the submodule's objects: a finding at the folder
    let clone = d.path().join("clone");
    let url = format!("file://{}", p.display());
    git(d.path(), &["clone", "-q", &url, clone.to_str().unwrap()]);
    let (code, out, err) = run(
        &clone,
        &[
            "check", "-q", "--daemon", "never", "--format", "json", "--rev", "HEAD",
        ],
    );
    assert_ne!(code, 0, "{out}{err}");
    assert!(
        out.contains("vendor/pack") && out.contains("git submodule update --init"),
        "{out}{err}"
    );
}

/// The pull request that adopts yttcheck (base without `.yttcheck.yml`,
/// head with one that renames nothing) changes no pair and no schema; one
/// that renames a library says so once and still compares its pairs.
#[test]
fn adopting_or_editing_the_configuration_is_not_every_pair_changing() {
    let d = repository();
    let p = d.path();
    git(p, &["checkout", "-q", "-b", "adopt"]);
    write(p, ".yttcheck.yml", "fail_on: error\n");
    git(p, &["add", "-A"]);
    git(p, &["commit", "-q", "-m", "adopt yttcheck"]);
    let (code, out, err) = run(
        p,
        &[
            "diff",
            "--base",
            "main",
            "--format",
            "json",
            "--fail-on-breaking",
        ],
    );
    assert_eq!(code, 0, "{out}{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(v["schemas"].as_array().unwrap().is_empty(), "{out}");
    for pair in v["pairs"].as_array().unwrap() {
        assert_eq!(pair["status"], "compared", "{out}");
        assert!(pair["changes"].as_array().unwrap().is_empty(), "{out}");
    }
    assert!(v.get("notes").is_none(), "{out}");

    // a configuration that names a library otherwise: one note, and the
    // pairs are still the same pairs
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    git(p, &["init", "-q", "-b", "main"]);
    write(
        p,
        "libs/web/schema.yml",
        "#@data/values-schema\n---\nreplicas: 1\n",
    );
    write(p, "envs/dev/values.yml", "replicas: 2\n");
    write(p, "envs/prod/values.yml", "replicas: 3\n");
    git(p, &["add", "-A"]);
    git(p, &["commit", "-q", "-m", "initial"]);
    write(
        p,
        ".yttcheck.yml",
        "libraries:\n  - path: libs/web\n    name: website\n",
    );
    let (code, out, err) = run(p, &["diff", "--base", "main", "--color", "never"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("0 of 2 pairs change"), "{out}");
    assert_eq!(
        out.matches(
            "note: the configuration names the library in libs/web 'website' (it was 'web'"
        )
        .count(),
        1,
        "{out}"
    );
}

/// Deleting an environment removes its pairs; the library's schema is the
/// same (it comes from the library's files only).
#[test]
fn deleting_an_environment_is_no_schema_change() {
    let d = repository();
    let p = d.path();
    git(p, &["rm", "-q", "envs/prod/web.yml"]);
    git(p, &["commit", "-q", "-m", "no prod web"]);
    let (code, out, err) = run(
        p,
        &[
            "diff", "--base", "HEAD~1", "--head", "HEAD", "--format", "json",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(v["schemas"].as_array().unwrap().is_empty(), "{out}");
    let statuses: Vec<(&str, &str)> = v["pairs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["name"].as_str().unwrap(), p["status"].as_str().unwrap()))
        .collect();
    // web@prod is gone; api@prod (the same folder) is compared, unchanged
    assert!(statuses.contains(&("web@prod", "removed")), "{out}");
    for pair in v["pairs"].as_array().unwrap() {
        if pair["name"] != "web@prod" {
            assert_eq!(pair["status"], "compared", "{out}");
            assert!(pair["changes"].as_array().unwrap().is_empty(), "{out}");
        }
    }
    // an unknown library or environment is an error, as in `check`
    for args in [&["--library", "nosuch"][..], &["--env", "nosuch"][..]] {
        let mut all = vec!["diff", "--base", "HEAD~1"];
        all.extend_from_slice(args);
        let (code, _, err) = run(p, &all);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(
            err.contains("no library named 'nosuch'")
                || err.contains("no environment named 'nosuch'"),
            "{err}"
        );
    }
}

/// `diff` shows what a change does to each environment's rendered
/// manifests: the objects added, removed and changed, each change a field
/// with its value before and after, and no Secret value in any format.
#[test]
fn diff_shows_the_rendered_objects_a_change_changes_per_environment() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    git(p, &["init", "-q", "-b", "main"]);
    write(
        p,
        "libs/web/schema.yml",
        "#@data/values-schema\n---\nreplicas: 1\ndb_password: \"\"\ncache: false\n",
    );
    write(
        p,
        "libs/web/deploy.yml",
        "#@ load(\"@ytt:data\", \"data\")\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: shop\nspec:\n  replicas: #@ data.values.replicas\n---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: db\n  namespace: shop\nstringData:\n  password: #@ data.values.db_password\n#@ if data.values.cache:\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cache\n  namespace: shop\n#@ end\n",
    );
    write(p, "envs/dev/web.yml", "replicas: 1\ndb_password: hunter1\n");
    write(
        p,
        "envs/prod/web.yml",
        "replicas: 3\ndb_password: hunter2\n",
    );
    git(p, &["add", "-A"]);
    git(p, &["commit", "-q", "-m", "base"]);
    write(
        p,
        "envs/prod/web.yml",
        "replicas: 5\ndb_password: hunter3\ncache: true\n",
    );
    git(p, &["commit", "-q", "-am", "scale prod"]);
    let args = ["diff", "--base", "HEAD~1", "--head", "HEAD"];
    let (code, out, err) = run(p, &[&args[..], &["--color", "never"]].concat());
    assert_eq!(code, 0, "{out}{err}");
    // one block per pair, its values then its rendered objects
    assert!(!out.contains("web@dev"), "dev did not change:\n{out}");
    let prod = &out[out.find("web@prod").unwrap()..];
    for line in [
        "  rendered:",
        "  ~ Deployment shop/web",
        "      spec.replicas  3 -> 5",
        "  ~ Secret shop/db",
        "      stringData.password  (changed; value not shown)",
        "  + ConfigMap shop/cache",
    ] {
        assert!(prod.contains(line), "{line:?} in:\n{out}");
    }
    // changed before added
    assert!(prod.find("~ Deployment").unwrap() < prod.find("+ ConfigMap").unwrap());
    let (_, md, _) = run(p, &[&args[..], &["--format", "markdown"]].concat());
    assert!(md.contains("| ~ | <code>Deployment shop/web</code> | <code>spec.replicas</code> | <code>3</code> | <code>5</code> |"), "{md}");
    let (_, json, _) = run(p, &[&args[..], &["--format", "json"]].concat());
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let objects = &v["pairs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "web@prod")
        .unwrap()["objects"];
    assert_eq!(objects[0]["kind"], "Deployment", "{objects:#}");
    assert_eq!(objects[0]["namespace"], "shop");
    assert_eq!(objects[0]["fields"][0]["path"], "spec.replicas");
    for text in [&out, &md, &json] {
        assert!(
            !text.contains("hunter"),
            "a Secret's value printed:\n{text}"
        );
    }
    // values only, when asked
    let (_, out, _) = run(
        p,
        &[&args[..], &["--no-render", "--color", "never"]].concat(),
    );
    assert!(!out.contains("rendered:"), "{out}");
}
