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

/// The pack of a cache folder (`DIR/<build>/results.pack`), if any.
fn pack_path(cache: &Path) -> Option<PathBuf> {
    let build = std::fs::read_dir(cache)
        .ok()?
        .flatten()
        .find(|e| e.file_type().unwrap().is_dir())?;
    Some(build.path().join("results.pack")).filter(|p| p.is_file())
}

/// Every entry of a cache folder's pack (a header line, then for each
/// entry `<key> <length>\n<bytes>\n`), in its order.
fn entries(cache: &Path) -> Vec<(String, Vec<u8>)> {
    let Some(path) = pack_path(cache) else {
        return Vec::new();
    };
    let bytes = std::fs::read(path).unwrap();
    let mut rest = bytes
        .strip_prefix(b"yttcheck results pack 1\n".as_slice())
        .expect("the pack's header");
    let mut out = Vec::new();
    while !rest.is_empty() {
        let nl = rest.iter().position(|&b| b == b'\n').unwrap();
        let head = std::str::from_utf8(&rest[..nl]).unwrap();
        let (key, len) = head.split_once(' ').unwrap();
        let len: usize = len.parse().unwrap();
        out.push((key.to_string(), rest[nl + 1..nl + 1 + len].to_vec()));
        assert_eq!(rest[nl + 1 + len], b'\n');
        rest = &rest[nl + 2 + len..];
    }
    out
}

/// The cache folder's pack made of `entries` again.
fn write_entries(cache: &Path, entries: &[(String, Vec<u8>)]) {
    let mut bytes = b"yttcheck results pack 1\n".to_vec();
    for (key, b) in entries {
        bytes.extend_from_slice(format!("{key} {}\n", b.len()).as_bytes());
        bytes.extend_from_slice(b);
        bytes.push(b'\n');
    }
    std::fs::write(pack_path(cache).unwrap(), bytes).unwrap();
}

/// The keys of a cache folder's entries, sorted.
fn keys(cache: &Path) -> Vec<String> {
    let mut keys: Vec<String> = entries(cache).into_iter().map(|(k, _)| k).collect();
    keys.sort();
    keys
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
    let kept = keys(&dir);
    assert_eq!(kept.len(), 6, "{kept:?}");
    assert!(dir.join("CACHEDIR.TAG").is_file());
    assert_eq!(
        std::fs::read_to_string(dir.join(".gitignore")).unwrap(),
        "*\n"
    );
    let pack = pack_path(&dir).unwrap();
    let written = std::fs::metadata(&pack).unwrap().modified().unwrap();
    let second = check_json(p, &["--cache-dir", dir_arg]);
    assert_eq!(second, fresh);
    assert_eq!(
        std::fs::metadata(&pack).unwrap().modified().unwrap(),
        written,
        "a re-run writes nothing"
    );

    // the re-run really answers from the cache: an entry changed in place
    // (its key and format kept) is what the next run reports
    let original = entries(&dir);
    let mut changed = original.clone();
    let mut touched = 0;
    for (_, bytes) in &mut changed {
        let text = String::from_utf8(bytes.clone()).unwrap();
        if text.contains("must be a value >= 1") {
            *bytes = text
                .replace("must be a value >= 1", "CACHED ANSWER")
                .into_bytes();
            touched += 1;
        }
    }
    assert!(touched > 0);
    write_entries(&dir, &changed);
    let (_, from_cache) = check_json(p, &["--cache-dir", dir_arg]);
    assert!(
        from_cache.to_string().contains("CACHED ANSWER"),
        "{from_cache}"
    );
    write_entries(&dir, &original);

    // one changed values file: its pair is computed again (and web's unused
    // values, now that every pair of web renders, are kept), the rest is
    // read; the pack keeps this run's entries and the older ones
    write(p, "envs/dev/web.yml", "replicas: 2\n");
    let after = check_json(p, &["--cache-dir", dir_arg]);
    assert_eq!(after, check_json(p, &[]));
    assert_eq!(keys(&dir).len(), kept.len() + 2);
    assert!(kept.iter().all(|k| keys(&dir).contains(k)));
    // and this run's come first (the 3 pairs and 2 declared paths it read,
    // the new pair and web's unused values), then the old entry of web@dev,
    // which it did not need
    let order: Vec<String> = entries(&dir).into_iter().map(|(k, _)| k).collect();
    let old_only: Vec<&String> = kept.iter().filter(|k| !order[..7].contains(k)).collect();
    assert_eq!(old_only, [&order[7]], "{order:?}");
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
    let damaged: Vec<(String, Vec<u8>)> = entries(&dir)
        .into_iter()
        .enumerate()
        .map(|(i, (key, bytes))| {
            let bytes = match i % 3 {
                0 => bytes[..bytes.len() / 2].to_vec(),
                1 => b"\xff\xfe not json".to_vec(),
                _ => b"{}".to_vec(),
            };
            (key, bytes)
        })
        .collect();
    write_entries(&dir, &damaged);
    assert_eq!(check_json(p, &["--cache-dir", dir_arg]), fresh);
    // and they were written again, whole
    assert_eq!(check_json(p, &["--cache-dir", dir_arg]), fresh);
    for (key, bytes) in entries(&dir).iter().take(6) {
        let v: serde_json::Value = serde_json::from_slice(bytes).unwrap();
        assert_eq!(v["format"], 2, "{key}");
    }
    // a pack cut short keeps what is whole before the cut
    let pack = pack_path(&dir).unwrap();
    let bytes = std::fs::read(&pack).unwrap();
    std::fs::write(&pack, &bytes[..bytes.len() * 2 / 3]).unwrap();
    assert_eq!(check_json(p, &["--cache-dir", dir_arg]), fresh);
    // another option (no rendering) is another entry, not this one's answer
    let before = keys(&dir);
    let data_only = check_json(p, &["--no-render", "--cache-dir", dir_arg]);
    assert_eq!(data_only, check_json(p, &["--no-render"]));
    let now = keys(&dir);
    assert!(now.len() > before.len());
    assert!(before.iter().all(|k| now.contains(k)), "older entries stay");
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

    // a folder git knows with other letter case (the same folder on a file
    // system that ignores case), and a folder inside a submodule that is
    // not checked out (what it will hold is unknown): refused too
    write(p, "Planted/Cache/CACHEDIR.TAG", "x\n");
    git(p, &["add", "-A"]);
    git(
        p,
        &[
            "update-index",
            "--add",
            "--cacheinfo",
            "160000,0123456789012345678901234567890123456789,vendor/sub",
        ],
    );
    git(p, &["commit", "-q", "-m", "more"]);
    for dir in ["planted/cache", "vendor/sub/.cache", "vendor/sub"] {
        let (_, _, stderr) = run(p, &["check", "--daemon", "never", "-q", "--cache-dir", dir]);
        assert!(
            stderr.contains("not using the cache: git knows files under"),
            "{dir}: {stderr}"
        );
        assert!(!p.join(dir).join("CACHEDIR.TAG").exists(), "{dir}");
    }

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

/// A values folder (`--data-values-file DIR`, or `--data-value-file
/// key=DIR` with one file in it) is read file by file: what it holds is
/// part of the pair's key, so an edited, added or removed file is seen.
#[test]
fn what_a_values_folder_holds_is_part_of_the_key() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    git(p, &["init", "-q", "-b", "main"]);
    write(
        p,
        "lib/schema.yml",
        "#@data/values-schema\n---\n#@schema/validation min=1\nreplicas: 1\nnote: \"\"\n",
    );
    write(p, "vals/a.yml", "replicas: 2\n");
    write(p, "note/only.txt", "hello\n");
    write(
        p,
        ".yttcheck.yml",
        "libraries:\n- path: lib\nenvironments:\n- name: dev\n  data_values_files: [vals]\n  data_value_files: [note=note]\n",
    );
    git(p, &["add", "-A"]);
    let cache = p.join(".cache");
    let dir_arg = cache.to_str().unwrap();
    let (code, report) = check_json(p, &["--cache-dir", dir_arg]);
    assert_eq!(code, 0, "{report:#}");
    assert_eq!((code, report.clone()), check_json(p, &[]));

    // a file of the folder edited
    write(p, "vals/a.yml", "replicas: 0\n");
    let edited = check_json(p, &["--cache-dir", dir_arg]);
    assert_eq!(edited.0, 1, "{:#}", edited.1);
    assert_eq!(edited, check_json(p, &[]));
    // a file added to it, which wins
    write(p, "vals/b.yml", "replicas: 5\n");
    let added = check_json(p, &["--cache-dir", dir_arg]);
    assert_eq!(added.0, 0, "{:#}", added.1);
    assert_eq!(added, check_json(p, &[]));
    // removed again
    std::fs::remove_file(p.join("vals/b.yml")).unwrap();
    assert_eq!(check_json(p, &["--cache-dir", dir_arg]), edited);
    // the one file of a `key=DIR` folder, edited: the value a template or a
    // rule would see changes (here a second file makes the flag an error)
    write(p, "note/second.txt", "x\n");
    let two = check_json(p, &["--cache-dir", dir_arg]);
    assert_eq!(two, check_json(p, &[]));
    assert_ne!(two, edited, "{:#}", two.1);
}
