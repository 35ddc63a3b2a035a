//! Installing yttcheck without a Rust build. The install script downloads
//! a release from a folder (as from GitHub), checks its SHA-256 and refuses
//! a mismatch. And yttcheck as a Python wheel (maturin's `bin` bindings): the wheel `.ci/run`
//! builds (a dev-profile one: `maturin build --profile dev`) installs in a
//! fresh venv and checks a repository, and the pre-commit mirror's
//! `language: python` hook, with that wheel as its one dependency, blocks a
//! bad commit on its first run, with no Rust build. Nothing here reaches a
//! package index: the wheel and the build backend the mirror needs come
//! from `target/wheels`.

use std::path::{Path, PathBuf};
use std::process::Command as Process;
use std::time::{Duration, Instant};

use super::common::{git, python_with, skip, tool, write};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The wheel `.ci/run` built, with its folder (which also holds the mirror's
/// build backend); `None` (skipped, loudly) outside CI.
fn wheel() -> Option<(PathBuf, PathBuf)> {
    let dir = root().join("target/wheels");
    let found = std::fs::read_dir(&dir).ok().and_then(|entries| {
        entries.flatten().map(|e| e.path()).find(|p| {
            let n = p.file_name().unwrap_or_default().to_string_lossy();
            n.starts_with("yttcheck-") && n.ends_with(".whl")
        })
    });
    if found.is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "no yttcheck wheel in target/wheels, and CI is set (.ci/run builds one with maturin)"
        );
        skip("wheel: none built (run `maturin build --profile dev --out target/wheels`, as .ci/run does)");
    }
    Some((found?, dir))
}

fn cargo_version() -> String {
    let toml = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    toml.lines()
        .find_map(|l| l.strip_prefix("version = \""))
        .and_then(|v| v.strip_suffix('"'))
        .unwrap()
        .to_string()
}

fn text(out: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// A repository whose prod values break a validation.
fn repository(p: &Path) {
    git(p, &["init", "-q", "-b", "main"]);
    write(
        p,
        "libs/web/schema.yml",
        "#@data/values-schema\n---\n#@schema/validation min=1\nreplicas: 1\n",
    );
    write(p, "envs/dev/web.yml", "replicas: 2\n");
}

#[test]
fn the_mirror_pins_the_wheel_of_this_version() {
    let version = cargo_version();
    let mirror = std::fs::read_to_string(root().join("pre-commit-mirror/pyproject.toml")).unwrap();
    assert!(
        mirror.contains(&format!("dependencies = [\"yttcheck=={version}\"]")),
        "pre-commit-mirror/pyproject.toml must pin yttcheck=={version}:\n{mirror}"
    );
    let hooks: serde_json::Value = serde_norway::from_str(
        &std::fs::read_to_string(root().join("pre-commit-mirror/.pre-commit-hooks.yaml")).unwrap(),
    )
    .unwrap();
    let main: serde_json::Value = serde_norway::from_str(
        &std::fs::read_to_string(root().join(".pre-commit-hooks.yaml")).unwrap(),
    )
    .unwrap();
    // the same check, the same files, as the main repository's hook
    let (m, h) = (&hooks[0], &main[0]);
    for key in ["id", "entry", "files", "pass_filenames", "require_serial"] {
        assert_eq!(m[key], h[key], "{key}");
    }
    assert_eq!(m["language"], "python");
    let pyproject = std::fs::read_to_string(root().join("pyproject.toml")).unwrap();
    assert!(pyproject.contains("bindings = \"bin\""), "{pyproject}");
    assert!(pyproject.contains("dynamic = [\"version\"]"), "{pyproject}");
}

#[test]
fn the_wheel_installs_in_a_fresh_venv_and_checks_a_repository() {
    let Some((wheel, _)) = wheel() else { return };
    let name = wheel.file_name().unwrap().to_string_lossy().into_owned();
    assert!(
        name.starts_with(&format!("yttcheck-{}-py3-none-", cargo_version())),
        "{name}"
    );
    let Some(python) = python_with(&["venv"]) else {
        return;
    };
    let d = tempfile::tempdir().unwrap();
    let venv = d.path().join("venv");
    let out = Process::new(&python)
        .args(["-m", "venv"])
        .arg(&venv)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let out = Process::new(venv.join("bin/python"))
        .args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-index",
            "--disable-pip-version-check",
        ])
        .arg(&wheel)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let bin = venv.join("bin/yttcheck");
    let out = Process::new(&bin).arg("--version").output().unwrap();
    assert!(text(&out).contains(&cargo_version()), "{}", text(&out));
    let repo = d.path().join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    repository(&repo);
    write(&repo, "envs/prod/web.yml", "replicas: 0\n");
    let out = Process::new(&bin)
        .current_dir(&repo)
        .args(["check", "--daemon", "never", "-q"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("validation/min"), "{}", text(&out));
}

#[test]
fn the_mirrors_python_hook_blocks_a_bad_commit_on_its_first_run() {
    let Some((_, wheels)) = wheel() else { return };
    let Some(pre_commit) = tool("pre-commit") else {
        return;
    };
    let d = tempfile::tempdir().unwrap();
    // the mirror: this repository's pre-commit-mirror/, tagged as a release
    let mirror = d.path().join("mirror");
    for f in [".pre-commit-hooks.yaml", "pyproject.toml", "README.md"] {
        write(
            &mirror,
            f,
            std::fs::read(root().join("pre-commit-mirror").join(f)).unwrap(),
        );
    }
    git(&mirror, &["init", "-q", "-b", "main"]);
    git(&mirror, &["add", "-A"]);
    git(&mirror, &["commit", "-q", "-m", "mirror"]);
    let tag = format!("v{}", cargo_version());
    git(&mirror, &["tag", &tag]);

    let repo = d.path().join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    repository(&repo);
    write(
        &repo,
        ".pre-commit-config.yaml",
        format!(
            "repos:\n- repo: {}\n  rev: {tag}\n  hooks:\n  - id: yttcheck\n",
            mirror.display()
        ),
    );
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-q", "-m", "initial"]);
    let home = d.path().join("home");
    let run = |args: &[&str]| {
        Process::new(&pre_commit)
            .current_dir(&repo)
            .args(args)
            .env("PRE_COMMIT_HOME", &home)
            .env("HOME", &home)
            // the wheel and the mirror's build backend, from the folder
            // .ci/run filled: no index is asked
            .env("PIP_NO_INDEX", "1")
            .env("PIP_FIND_LINKS", &wheels)
            .env("YTTCHECK_DAEMON", "never")
            .env_remove("CI")
            .output()
            .unwrap()
    };
    write(&repo, "envs/prod/web.yml", "replicas: 0\n");
    git(&repo, &["add", "-A"]);
    // the first run installs the hook's environment (the wheel) and checks
    let started = Instant::now();
    let out = run(&["run"]);
    let first = started.elapsed();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("validation/min"), "{}", text(&out));
    {
        use std::io::Write;
        let _ = writeln!(
            std::io::stderr(),
            "MEASURED the wheel hook's first run (its environment installed, then the check): {first:.1?}"
        );
    }
    assert!(first < Duration::from_secs(120), "first run took {first:?}");
    // fixed: it passes
    write(&repo, "envs/prod/web.yml", "replicas: 3\n");
    git(&repo, &["add", "-A"]);
    let out = run(&["run"]);
    assert!(out.status.success(), "{}", text(&out));
}

/// A release folder as GitHub serves one (`download/<tag>/...` and
/// `latest/download/...`), holding this build's binary for `target`.
fn release_folder(dir: &Path, tag: &str, target: &str) {
    let archive = format!("yttcheck-{tag}-{target}.tar.gz");
    let stage = dir.join("stage");
    std::fs::create_dir_all(&stage).unwrap();
    std::fs::copy(env!("CARGO_BIN_EXE_yttcheck"), stage.join("yttcheck")).unwrap();
    {
        let at = dir.join(format!("download/{tag}"));
        std::fs::create_dir_all(&at).unwrap();
        let status = Process::new("tar")
            .args(["-czf"])
            .arg(at.join(&archive))
            .arg("-C")
            .arg(&stage)
            .arg("yttcheck")
            .status()
            .unwrap();
        assert!(status.success());
        let sum = Process::new("sha256sum")
            .arg(&archive)
            .current_dir(&at)
            .output()
            .unwrap();
        assert!(sum.status.success());
        std::fs::write(at.join(format!("{archive}.sha256")), &sum.stdout).unwrap();
        std::fs::write(at.join("VERSION"), format!("{tag}\n")).unwrap();
    }
    // the latest release is the same folder
    std::fs::create_dir_all(dir.join("latest")).unwrap();
    std::os::unix::fs::symlink(
        dir.join(format!("download/{tag}")),
        dir.join("latest/download"),
    )
    .unwrap();
}

#[test]
fn the_install_script_checks_the_checksum_and_refuses_a_mismatch() {
    if !cfg!(all(target_os = "linux", target_arch = "x86_64")) {
        skip("install script: the test's release holds an x86-64 Linux binary");
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let releases = d.path().join("releases");
    let tag = format!("v{}", cargo_version());
    release_folder(&releases, &tag, "x86_64-unknown-linux-musl");
    let script = root().join("packaging/install.sh");
    let install = |args: &[&str], to: &Path| {
        Process::new("sh")
            .arg(&script)
            .args(args)
            .arg("--to")
            .arg(to)
            .env(
                "YTTCHECK_DOWNLOAD_BASE",
                format!("file://{}", releases.display()),
            )
            .env("HOME", d.path())
            .output()
            .unwrap()
    };
    // a version, then the latest
    for (args, to) in [(vec!["--version", tag.as_str()], "bin1"), (vec![], "bin2")] {
        let to = d.path().join(to);
        let out = install(&args, &to);
        assert!(out.status.success(), "{}", text(&out));
        let v = Process::new(to.join("yttcheck"))
            .arg("--version")
            .output()
            .unwrap();
        assert!(text(&v).contains(&cargo_version()), "{}", text(&v));
    }
    // a checksum that does not match: refused, nothing installed
    let sums = releases.join(format!(
        "download/{tag}/yttcheck-{tag}-x86_64-unknown-linux-musl.tar.gz.sha256"
    ));
    std::fs::write(&sums, format!("{}  x\n", "0".repeat(64))).unwrap();
    let to = d.path().join("bin3");
    let out = install(&["--version", &tag], &to);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("checksum mismatch"), "{}", text(&out));
    assert!(!to.join("yttcheck").exists());
    // a version that is not one is refused before anything is fetched
    let out = install(&["--version", "1.0"], &to);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("expects vX.Y.Z"), "{}", text(&out));
}
