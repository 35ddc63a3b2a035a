//! The persistent result cache (`--cache-dir`): a re-run answers from it,
//! exactly as a fresh check would; a change recomputes only the pairs that
//! read it; a damaged entry is a miss; a cache the checked repository holds
//! (committed files, a committed link) is refused, not trusted.

use std::path::{Path, PathBuf};

use super::common::{check_json, git, run, write};

/// Two libraries x two environments, with a failing validation and a value
/// no template reads (so that every kind of entry is kept).
fn repository() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    git(p, &["init", "-q", "-b", "main"]);
    write(
        p,
        "libs/web/schema.yml",
        "#@data/values-schema\n---\n#@schema/validation min=1\nreplicas: 1\nunused: x\n",
    );
    write(
        p,
        "libs/web/deploy.yml",
        "#@ load(\"@ytt:data\", \"data\")\n---\nreplicas: #@ data.values.replicas\n",
    );
    write(
        p,
        "libs/api/schema.yml",
        "#@data/values-schema\n---\n#@schema/validation min=1024\nport: 8080\n",
    );
    write(p, "envs/dev/web.yml", "replicas: 0\n");
    write(p, "envs/prod/web.yml", "replicas: 3\n");
    write(p, "envs/dev/api.yml", "port: 80\n");
    write(p, "envs/prod/api.yml", "port: 8443\n");
    git(p, &["add", "-A"]);
    git(p, &["commit", "-q", "-m", "initial"]);
    d
}

/// Every entry file of a cache folder.
fn entries(cache: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for build in std::fs::read_dir(cache).unwrap().flatten() {
        if !build.file_type().unwrap().is_dir() {
            continue;
        }
        for folder in std::fs::read_dir(build.path()).unwrap().flatten() {
            for f in std::fs::read_dir(folder.path()).unwrap().flatten() {
                out.push(f.path());
            }
        }
    }
    out.sort();
    out
}

#[test]
fn a_rerun_answers_from_the_cache_as_a_fresh_check_would() {
    let repo = repository();
    let p = repo.path();
    let cache = tempfile::tempdir().unwrap();
    let dir = cache.path().join("c");
    let dir_arg = dir.to_str().unwrap();
    let fresh = check_json(p, &[]);
    assert_eq!(fresh.0, 1, "{}", fresh.1);
    let first = check_json(p, &["--cache-dir", dir_arg]);
    assert_eq!(first, fresh);
    // 4 pairs and each library's declared paths once; no library's unused
    // values: api has no templates, and web@dev fails before it renders, so
    // what web's templates read is not known whole
    let kept = entries(&dir);
    assert_eq!(kept.len(), 6, "{kept:?}");
    assert!(dir.join("CACHEDIR.TAG").is_file());
    assert_eq!(
        std::fs::read_to_string(dir.join(".gitignore")).unwrap(),
        "*\n"
    );
    let second = check_json(p, &["--cache-dir", dir_arg]);
    assert_eq!(second, fresh);
    assert_eq!(entries(&dir), kept, "a re-run writes nothing");

    // the re-run really answers from the cache: an entry changed in place
    // (its key and format kept) is what the next run reports
    let mut changed = Vec::new();
    for e in &kept {
        let text = std::fs::read_to_string(e).unwrap();
        if text.contains("must be a value >= 1") {
            std::fs::write(e, text.replace("must be a value >= 1", "CACHED ANSWER")).unwrap();
            changed.push((e, text));
        }
    }
    assert!(!changed.is_empty());
    let (_, from_cache) = check_json(p, &["--cache-dir", dir_arg]);
    assert!(
        from_cache.to_string().contains("CACHED ANSWER"),
        "{from_cache}"
    );
    for (e, text) in changed {
        std::fs::write(e, text).unwrap();
    }

    // one changed values file: its pair is computed again (and web's unused
    // values, now that every pair of web renders, are kept), the rest is read
    write(p, "envs/dev/web.yml", "replicas: 2\n");
    let after = check_json(p, &["--cache-dir", dir_arg]);
    assert_eq!(after, check_json(p, &[]));
    assert_eq!(entries(&dir).len(), kept.len() + 2);
}

#[test]
fn damaged_entries_are_misses_and_options_have_their_own_entries() {
    let repo = repository();
    let p = repo.path();
    let cache = tempfile::tempdir().unwrap();
    let dir = cache.path().join("c");
    let dir_arg = dir.to_str().unwrap();
    let fresh = check_json(p, &[]);
    check_json(p, &["--cache-dir", dir_arg]);
    for (i, e) in entries(&dir).iter().enumerate() {
        let bytes = std::fs::read(e).unwrap();
        match i % 3 {
            0 => std::fs::write(e, &bytes[..bytes.len() / 2]).unwrap(),
            1 => std::fs::write(e, b"\xff\xfe not json").unwrap(),
            _ => std::fs::write(e, b"{}").unwrap(),
        }
    }
    assert_eq!(check_json(p, &["--cache-dir", dir_arg]), fresh);
    // and they were written again, whole
    assert_eq!(check_json(p, &["--cache-dir", dir_arg]), fresh);
    for e in entries(&dir) {
        let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&e).unwrap()).unwrap();
        assert_eq!(v["format"], 2, "{}", e.display());
    }
    // another option (no rendering) is another entry, not this one's answer
    let before = entries(&dir).len();
    let data_only = check_json(p, &["--no-render", "--cache-dir", dir_arg]);
    assert_eq!(data_only, check_json(p, &["--no-render"]));
    assert!(entries(&dir).len() > before);
}

#[test]
fn a_cache_the_repository_holds_is_refused_not_trusted() {
    let repo = repository();
    let p = repo.path();
    let fresh = check_json(p, &[]);
    // a committed cache folder, with a planted "clean" answer in it
    let planted = p.join(".yttcheck-cache");
    write(
        &planted,
        "CACHEDIR.TAG",
        "Signature: 8a477f597d28d172789f06886806bc55\n",
    );
    write(&planted, "0123456789abcdef/ab/cd.json", "{\"format\":1}");
    git(p, &["add", "-A"]);
    git(p, &["commit", "-q", "-m", "planted cache"]);
    let (code, stdout, stderr) = run(
        p,
        &[
            "check",
            "--daemon",
            "never",
            "-q",
            "--format",
            "json",
            "--cache-dir",
            ".yttcheck-cache",
        ],
    );
    assert!(
        stderr.contains("not using the cache: git knows files under"),
        "{stderr}"
    );
    assert_eq!(
        (
            code,
            serde_json::from_str::<serde_json::Value>(&stdout).unwrap()
        ),
        fresh
    );
    assert_eq!(
        std::fs::read_to_string(planted.join("0123456789abcdef/ab/cd.json")).unwrap(),
        "{\"format\":1}",
        "nothing of a refused cache is touched"
    );

    // a committed link to a folder of the runner
    let outside = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(outside.path(), p.join("cachelink")).unwrap();
    let (_, _, stderr) = run(
        p,
        &[
            "check",
            "--daemon",
            "never",
            "-q",
            "--cache-dir",
            "cachelink/c",
        ],
    );
    assert!(
        stderr.contains("reached through a link inside the repository"),
        "{stderr}"
    );
    assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0);
    std::fs::remove_file(p.join("cachelink")).unwrap();

    // a folder of other files is not made a cache (pruning would delete them)
    let mine = tempfile::tempdir().unwrap();
    write(mine.path(), "notes.txt", "mine");
    let (_, _, stderr) = run(
        p,
        &[
            "check",
            "--daemon",
            "never",
            "-q",
            "--cache-dir",
            mine.path().to_str().unwrap(),
        ],
    );
    assert!(stderr.contains("holds other files"), "{stderr}");
    assert_eq!(std::fs::read_dir(mine.path()).unwrap().count(), 1);

    // an ignored folder in the work tree is fine
    write(p, ".gitignore", ".cache/\n");
    let (code, stdout, stderr) = run(
        p,
        &[
            "check",
            "--daemon",
            "never",
            "-q",
            "--format",
            "json",
            "--cache-dir",
            ".cache/yttcheck",
        ],
    );
    assert!(!stderr.contains("not using the cache"), "{stderr}");
    assert_eq!(
        (
            code,
            serde_json::from_str::<serde_json::Value>(&stdout).unwrap()
        ),
        fresh
    );
    assert!(!entries(&p.join(".cache/yttcheck")).is_empty());
}

#[test]
fn another_build_s_entries_are_removed_not_read() {
    let repo = repository();
    let p = repo.path();
    let cache = tempfile::tempdir().unwrap();
    let dir = cache.path().join("c");
    let dir_arg = dir.to_str().unwrap();
    check_json(p, &["--cache-dir", dir_arg]);
    let build = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .find(|e| e.file_type().unwrap().is_dir())
        .unwrap()
        .path();
    // the same entries under another build's name
    let other = dir.join("ffffffffffffffff");
    std::fs::rename(&build, &other).unwrap();
    let fresh = check_json(p, &[]);
    assert_eq!(check_json(p, &["--cache-dir", dir_arg]), fresh);
    assert!(!other.exists(), "an old build's folder is removed");
    assert!(build.is_dir());
}

/// A validation rule that runs out of its budget says nothing about the
/// value and may not run out next time: a `template/budget` finding, never
/// kept as a result.
#[test]
fn a_rule_that_ran_out_of_budget_is_not_kept() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    git(p, &["init", "-q", "-b", "main"]);
    write(
        p,
        "lib/schema.yml",
        "#@data/values-schema\n---\n#@schema/validation (\"spins\", lambda v: len([i for i in range(10000000)]) > 0)\nreplicas: 1\n",
    );
    write(p, "envs/dev/lib.yml", "replicas: 2\n");
    git(p, &["add", "-A"]);
    let cache = p.join(".cache");
    let args = [
        "--max-steps",
        "100000",
        "--cache-dir",
        cache.to_str().unwrap(),
    ];
    let (code, report) = check_json(p, &args);
    assert_eq!(code, 1, "{report:#}");
    let rules: Vec<&str> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["rule"].as_str().unwrap())
        .collect();
    assert_eq!(rules, ["template/budget"], "{report:#}");
    assert!(entries(&cache).is_empty(), "{:?}", entries(&cache));
}
