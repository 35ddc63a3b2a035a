//! Nothing under `.git/` is ever an input or an output (its config holds
//! the job's token when actions/checkout persists credentials), and output
//! folders are never written through a committed link: each surface a pull
//! request could aim there, through the real binary on a real repository.

use std::path::Path;

use super::common::{git, run, write};

const TOKEN: &str = "TOPSECRET-TOKEN";

/// A repository whose git config holds a token, as actions/checkout's
/// `persist-credentials` leaves it.
fn repository_with_a_token() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    git(p, &["init", "-q"]);
    git(
        p,
        &[
            "config",
            "http.https://github.com/.extraheader",
            &format!("AUTHORIZATION: basic {TOKEN}"),
        ],
    );
    write(
        p,
        "libs/web/schema.yml",
        "#@data/values-schema\n---\nreplicas: 1\ntoken: \"\"\n",
    );
    write(
        p,
        "libs/web/t.yml",
        "#@ load(\"@ytt:data\", \"data\")\n#@ load(\"@ytt:assert\", \"assert\")\n---\nreplicas: #@ data.values.replicas\n",
    );
    write(p, "envs/dev/web.yml", "#@data/values\n---\nreplicas: 2\n");
    d
}

fn commit(p: &Path) {
    git(p, &["add", "-A"]);
    git(p, &["commit", "-q", "-m", "change", "--allow-empty"]);
}

fn assert_no_token(what: &str, text: &str) {
    assert!(!text.contains(TOKEN), "{what}: the token leaked:\n{text}");
    // reversed or encoded past GitHub's masking
    let reversed: String = TOKEN.chars().rev().collect();
    assert!(
        !text.contains(&reversed),
        "{what}: the token leaked reversed:\n{text}"
    );
}

/// A template that prints what it reads, in a failure message (reversed,
/// so GitHub's log masking would not catch it).
fn reader(file: &str) -> String {
    format!(
        "#@ load(\"@ytt:data\", \"data\")\n#@ load(\"@ytt:assert\", \"assert\")\n---\nx: #@ assert.fail(data.read(\"{file}\")[::-1])\n"
    )
}

#[test]
fn a_link_into_git_is_never_read() {
    let repo = repository_with_a_token();
    let p = repo.path();
    std::os::unix::fs::symlink("../../.git/config", p.join("libs/web/cfg.txt")).unwrap();
    std::os::unix::fs::symlink("../../.git", p.join("libs/web/g")).unwrap();
    write(p, "libs/web/read.yml", reader("cfg.txt"));
    write(p, "libs/web/read2.yml", reader("g/config"));
    commit(p);
    for args in [
        &["check", "--daemon", "never"][..],
        &["check", "--daemon", "never", "--format", "json"][..],
        &["render", "--all", "--output-files", "out"][..],
    ] {
        let (code, out, err) = run(p, args);
        assert_ne!(code, 0, "{args:?}: {out}{err}");
        assert_no_token(&format!("{args:?}"), &format!("{out}{err}"));
        assert!(
            format!("{out}{err}").contains("cfg.txt"),
            "{args:?}: the refusal names the link:\n{out}{err}"
        );
    }
    assert!(!p.join("out/web/dev/cfg.txt").exists());
    // nothing rendered holds it either
    if p.join("out").exists() {
        for e in walk(&p.join("out")) {
            assert_no_token(
                &e.display().to_string(),
                &std::fs::read_to_string(&e).unwrap(),
            );
        }
    }
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let path = e.path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}

#[test]
fn the_configuration_cannot_name_git() {
    let repo = repository_with_a_token();
    let p = repo.path();
    commit(p);
    for config in [
        "environments: [{name: x, data_value_files: [\"token=.git/config\"]}]",
        "environments: [{name: x, data_values_files: [\".git/config\"]}]",
        "environments: [{name: x, files: [\".git/config\"]}]",
        "environments: [{name: x, data_value_files: [\"token=libs/../.GIT/config\"]}]",
        "libraries: [{path: .git}]",
        "libraries: [{path: libs/web, files: [\".git/config\"]}]",
        "exports: [{library: web, path: .git/config}]",
        "exports: [{library: web, path: .git/hooks/pre-commit}]",
    ] {
        write(p, ".yttcheck.yml", format!("{config}\n"));
        // what reads the configuration's paths: check reads inputs, docs
        // writes exports
        let runs: &[&[&str]] = if config.starts_with("exports") {
            &[&["docs"], &["docs", "--check"]]
        } else {
            &[
                &["check", "--daemon", "never", "--format", "json"],
                &["docs"],
            ]
        };
        for args in runs.iter().copied() {
            let before = std::fs::read(p.join(".git/config")).unwrap();
            let (code, out, err) = run(p, args);
            assert_no_token(&format!("{config} {args:?}"), &format!("{out}{err}"));
            assert_eq!(
                std::fs::read(p.join(".git/config")).unwrap(),
                before,
                "{config} {args:?}: .git/config was written"
            );
            assert!(
                !p.join(".git/hooks/pre-commit").exists(),
                "{config} {args:?}"
            );
            if args[0] == "check" || config.starts_with("exports") {
                assert_eq!(code, 2, "{config} {args:?}: {out}{err}");
                assert!(
                    format!("{out}{err}").contains(".git"),
                    "{config}: the refusal names .git:\n{out}{err}"
                );
            }
        }
    }
}

#[test]
fn a_path_with_a_control_character_is_refused() {
    let repo = repository_with_a_token();
    let p = repo.path();
    write(p, "envs/dev/web.yml", "#@data/values\n---\nreplicas: 2\n");
    write(
        p,
        ".yttcheck.yml",
        "exports: [{library: web, path: \"web.schema\\rreplicas: 0.json\"}]\n",
    );
    commit(p);
    let (code, out, err) = run(p, &["docs", "--modelines"]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(format!("{out}{err}").contains("\\r"), "{out}{err}");
    assert_eq!(
        std::fs::read_to_string(p.join("envs/dev/web.yml")).unwrap(),
        "#@data/values\n---\nreplicas: 2\n",
        "a values file was written"
    );
}

#[test]
fn output_folders_are_never_written_through_a_committed_link() {
    let top = tempfile::tempdir().unwrap();
    let outside = top.path().join("outside");
    write(&outside, "web/dev/victim.yml", "keep me\n");
    write(&outside, "other/keep.txt", "keep me too\n");
    let repo = repository_with_a_token();
    let p = repo.path();
    std::os::unix::fs::symlink(&outside, p.join("rendered")).unwrap();
    std::fs::create_dir_all(p.join("deploy")).unwrap();
    std::os::unix::fs::symlink(&outside, p.join("deploy/out")).unwrap();
    commit(p);
    for dir in ["rendered", "deploy/out", "deploy/out/sub", ".git/hooks"] {
        for check in [false, true] {
            let mut args = vec!["render", "--all", "--output-files", dir];
            if check {
                args.push("--check");
            }
            let (code, out, err) = run(p, &args);
            assert_eq!(code, 2, "{args:?}: {out}{err}");
            assert!(
                !out.contains("victim") && !out.contains("keep"),
                "{args:?}: {out}"
            );
            assert!(
                err.contains("link") || err.contains(".git"),
                "{args:?}: {err}"
            );
        }
        for args in [
            vec!["render", "-f", "libs/web", "--output-files", dir],
            vec![
                "render",
                "-f",
                "libs/web",
                "--dangerous-emptied-output-directory",
                dir,
            ],
        ] {
            let (code, out, err) = run(p, &args);
            assert_ne!(code, 0, "{args:?}: {out}{err}");
        }
    }
    assert_eq!(
        std::fs::read_to_string(outside.join("web/dev/victim.yml")).unwrap(),
        "keep me\n"
    );
    assert_eq!(
        std::fs::read_to_string(outside.join("other/keep.txt")).unwrap(),
        "keep me too\n"
    );
    assert!(!outside.join("web/dev/t.yml").exists());
    assert!(!p.join(".git/hooks/web").exists());
    // a real folder still works
    let (code, out, err) = run(p, &["render", "--all", "--output-files", "out"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(p.join("out/web/dev/t.yml").is_file());
}
