//! How yttcheck reaches users — the GitHub Action, the example workflows,
//! the GitLab example, the release workflow and the Dockerfile — checked by
//! the real validators (check-jsonschema's vendored GitHub and GitLab
//! schemas, actionlint, zizmor, hadolint), and the action's scripts run for
//! real against a repository.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command as Process;

use super::common::{git, tool, write};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Runs a tool; panics with its output unless it exits 0.
fn passes(tool: &Path, args: &[&str]) {
    let out = Process::new(tool)
        .current_dir(root())
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("run {}: {e}", tool.display()));
    assert!(
        out.status.success(),
        "{} {args:?} failed:\n{}{}",
        tool.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn workflows() -> Vec<String> {
    let mut files = Vec::new();
    for dir in ["examples/workflows", ".github/workflows"] {
        for e in std::fs::read_dir(root().join(dir)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "yml" || x == "yaml") {
                files.push(format!(
                    "{dir}/{}",
                    p.file_name().unwrap().to_string_lossy()
                ));
            }
        }
    }
    files.sort();
    assert!(files.len() >= 4, "{files:?}");
    files
}

#[test]
fn the_action_and_the_gitlab_example_match_their_schemas() {
    let Some(cj) = tool("check-jsonschema") else {
        return;
    };
    let cj = cj.as_path();
    passes(
        cj,
        &["--builtin-schema", "vendor.github-actions", "action.yml"],
    );
    passes(
        cj,
        &[
            "--builtin-schema",
            "vendor.gitlab-ci",
            "examples/gitlab-ci.yml",
        ],
    );
    let mut args = vec!["--builtin-schema", "vendor.github-workflows"];
    let files = workflows();
    args.extend(files.iter().map(String::as_str));
    passes(cj, &args);
}

#[test]
fn workflows_pass_actionlint() {
    let Some(actionlint) = tool("actionlint") else {
        return;
    };
    let files = workflows();
    let args: Vec<&str> = files.iter().map(String::as_str).collect();
    passes(&actionlint, &args);
}

#[test]
fn workflows_and_the_action_pass_zizmor_pedantic() {
    let Some(zizmor) = tool("zizmor") else {
        return;
    };
    // the examples' one exception (the action by its tag) is in
    // examples/zizmor.yml and the README; the files are named one by one
    // (given a folder that is not `.github/workflows`, zizmor audits
    // nothing in it), and each must be audited
    let examples: Vec<String> = workflows()
        .into_iter()
        .filter(|f| f.starts_with("examples/"))
        .collect();
    let mut args = vec![
        "--offline",
        "--persona",
        "pedantic",
        "--config",
        "examples/zizmor.yml",
        "action.yml",
    ];
    args.extend(examples.iter().map(String::as_str));
    let out = std::process::Command::new(&zizmor)
        .current_dir(root())
        .args(&args)
        .output()
        .unwrap();
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "zizmor: {log}\n{}",
        String::from_utf8_lossy(&out.stdout)
    );
    for f in examples.iter().map(String::as_str).chain(["action.yml"]) {
        assert!(
            log.contains(&format!("completed {f}")),
            "zizmor did not audit {f}: {log}"
        );
    }
    passes(
        &zizmor,
        &["--offline", "--persona", "pedantic", ".github/workflows"],
    );
}

/// The action's outputs are the binary's, one for one.
#[test]
fn the_action_mirrors_the_binary_outputs() {
    let action: serde_json::Value =
        serde_norway::from_str(&std::fs::read_to_string(root().join("action.yml")).unwrap())
            .unwrap();
    let mut declared = BTreeSet::new();
    for (name, o) in action["outputs"].as_object().unwrap() {
        assert_eq!(
            o["value"].as_str().unwrap(),
            format!("${{{{ steps.check.outputs.{name} }}}}"),
            "{name}"
        );
        declared.insert(name.clone());
    }
    let step = run_check_step(&[]);
    let written: BTreeSet<String> = step.outputs.iter().map(|(k, _)| k.clone()).collect();
    assert_eq!(declared, written);
}

struct StepRun {
    code: i32,
    stdout: String,
    stderr: String,
    outputs: Vec<(String, String)>,
}

/// The action's "Check" step as GitHub runs it: action/run.sh with the
/// inputs in its environment and the yttcheck binary on PATH, in a
/// repository with two libraries and two environments.
fn run_check_step(inputs: &[(&str, &str)]) -> StepRun {
    let repo = tempfile::tempdir().unwrap();
    let p = repo.path();
    git(p, &["init", "-q", "-b", "main"]);
    write(
        p,
        "libs/web/schema.yml",
        "#@data/values-schema\n---\n#@schema/validation min=1\nreplicas: 1\n",
    );
    write(
        p,
        "libs/api/schema.yml",
        "#@data/values-schema\n---\nport: 8080\n",
    );
    write(p, "envs/dev/web.yml", "replicas: 0\n");
    write(p, "envs/prod/web.yml", "replicas: 3\n");
    write(p, "envs/dev/api.yml", "port: 1\n");
    git(p, &["add", "-A"]);
    git(p, &["commit", "-q", "-m", "initial"]);
    let t = tempfile::tempdir().unwrap();
    std::fs::write(t.path().join("event.json"), "{}").unwrap();
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_yttcheck"));
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut cmd = Process::new("bash");
    for (k, _) in std::env::vars() {
        if k.starts_with("GITHUB_") || k.starts_with("RUNNER_") {
            cmd.env_remove(k);
        }
    }
    cmd.arg(root().join("action/run.sh"))
        .current_dir(p)
        .env("PATH", path)
        .env("GITHUB_ACTION_PATH", root())
        .env("GITHUB_EVENT_NAME", "push")
        .env("GITHUB_EVENT_PATH", t.path().join("event.json"))
        .env("GITHUB_OUTPUT", t.path().join("output"))
        .env("GITHUB_STEP_SUMMARY", t.path().join("summary"))
        .env("RUNNER_TEMP", t.path());
    for (k, v) in inputs {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    let outputs = std::fs::read_to_string(t.path().join("output"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    StepRun {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into(),
        stderr: String::from_utf8_lossy(&out.stderr).into(),
        outputs,
    }
}

fn output<'a>(s: &'a StepRun, key: &str) -> &'a str {
    s.outputs
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
        .unwrap_or_else(|| panic!("no output {key} in {:?}", s.outputs))
}

#[test]
fn the_check_step_turns_inputs_into_arguments_never_into_code() {
    // every pair: web@dev breaks min=1
    let all = run_check_step(&[]);
    assert_eq!(all.code, 1, "{}", all.stdout);
    assert_eq!(output(&all, "pairs-checked"), "3");
    assert_eq!(output(&all, "errors"), "1");
    // paths, free-form args, fail-on
    let s = run_check_step(&[
        ("PATHS", "envs/prod envs/dev/api.yml"),
        ("ARGS", "--library web --library api"),
        ("FAIL_ON", "warning"),
    ]);
    assert_eq!(s.code, 0, "{}", s.stdout);
    assert_eq!(output(&s, "pairs-checked"), "2");
    // shards cover the pairs once
    let total: usize = ["1/2", "2/2"]
        .iter()
        .map(|shard| {
            let s = run_check_step(&[("SHARD", shard)]);
            output(&s, "pairs-checked").parse::<usize>().unwrap()
        })
        .sum();
    assert_eq!(total, 3);
    // an input is data: shell syntax in it is an argument, not a command
    let s = run_check_step(&[("ARGS", "--library $(touch /tmp/yttcheck-pwned) ;")]);
    assert_eq!(s.code, 2);
    assert!(!Path::new("/tmp/yttcheck-pwned").exists());
    // no summary, no annotations
    let s = run_check_step(&[("SUMMARY", "false"), ("ANNOTATIONS", "false")]);
    assert!(!s.stdout.contains("::error file="), "{}", s.stdout);
    // comment-from: the workflow_run job posts a file, and checks nothing
    let s = run_check_step(&[("COMMENT_FROM", "/nonexistent/comment.json")]);
    assert_eq!(s.code, 2, "{}", s.stdout);
    assert!(
        s.stderr
            .contains("cannot read the comment file /nonexistent/comment.json"),
        "{}",
        s.stderr
    );
    assert!(s.outputs.is_empty(), "{:?}", s.outputs);
}

/// install.sh with a GitHub-like environment in a temp dir.
fn install(env: &[(&str, &str)], args: &[&str]) -> (i32, String, String, tempfile::TempDir) {
    let t = tempfile::tempdir().unwrap();
    let mut cmd = Process::new("bash");
    cmd.arg(root().join("action/install.sh"))
        .args(args)
        .env("GITHUB_OUTPUT", t.path().join("output"))
        .env("GITHUB_PATH", t.path().join("path"))
        .env("BIN_DIR", t.path().join("bin"))
        .env_remove("VERSION")
        .env_remove("METHOD")
        .env_remove("DOWNLOAD_BASE");
    for (k, v) in env {
        cmd.env(k, v.replace("{tmp}", &t.path().display().to_string()));
    }
    let out = cmd.output().unwrap();
    let output = std::fs::read_to_string(t.path().join("output")).unwrap_or_default();
    (
        out.status.code().unwrap_or(-1),
        output,
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr),
        t,
    )
}

#[test]
fn install_plans_release_for_a_tag_and_a_cached_build_otherwise() {
    let root = root().display().to_string();
    let (code, out, log, _t) = install(
        &[
            ("METHOD", "auto"),
            ("VERSION", "v1.2.3"),
            ("ACTION_PATH", &root),
        ],
        &["plan"],
    );
    assert_eq!(code, 0, "{log}");
    assert_eq!(out, "method=release\ncache-key=none\n");
    // a branch or a SHA: build, with a key of the sources
    let (_, out, _, _t) = install(
        &[
            ("METHOD", "auto"),
            ("VERSION", "main"),
            ("ACTION_PATH", &root),
        ],
        &["plan"],
    );
    let key = out
        .strip_prefix("method=cargo\ncache-key=yttcheck-")
        .unwrap_or_else(|| panic!("{out}"));
    assert_eq!(key.trim().rsplit('-').next().unwrap().len(), 32, "{key}");
    // the version is read off the action's path when not given
    let (_, out, _, _t) = install(
        &[
            ("METHOD", "auto"),
            (
                "ACTION_PATH",
                "/home/runner/work/_actions/yttcheck/yttcheck/v2.0.0",
            ),
        ],
        &["plan"],
    );
    assert!(out.starts_with("method=release\n"), "{out}");
}

/// An action pinned by commit (as zizmor wants) downloads the release it
/// was cut from when the release publishes that commit, and builds
/// otherwise, saying why.
#[test]
fn install_pinned_by_commit_uses_the_release_cut_from_that_commit() {
    let releases = tempfile::tempdir().unwrap();
    let version = format!("v{}", env!("CARGO_PKG_VERSION"));
    let dir = releases.path().join(&version);
    std::fs::create_dir_all(&dir).unwrap();
    let sha = "0123456789abcdef0123456789abcdef01234567";
    std::fs::write(
        dir.join(format!("yttcheck-{version}.commit")),
        format!("{sha}\n"),
    )
    .unwrap();
    let base = format!("file://{}", releases.path().display());
    let root = root().display().to_string();
    let plan = |pinned: &str| {
        install(
            &[
                ("METHOD", "auto"),
                ("VERSION", pinned),
                ("ACTION_PATH", &root),
                ("DOWNLOAD_BASE", &base),
            ],
            &["plan"],
        )
    };
    let (code, out, log, _t) = plan(sha);
    assert_eq!(code, 0, "{log}");
    assert!(out.starts_with("method=release\n"), "{out}{log}");
    assert!(log.contains(&format!("is release {version}")), "{log}");
    // another commit: built from source, with a line that says so
    let (code, out, log, _t) = plan("fedcba9876543210fedcba9876543210fedcba98");
    assert_eq!(code, 0, "{log}");
    assert!(out.starts_with("method=cargo\n"), "{out}{log}");
    assert!(log.contains("is not a release's commit"), "{log}");
}

#[test]
fn install_downloads_a_release_and_refuses_a_bad_checksum() {
    // a release as the workflow publishes it, served from a folder
    let releases = tempfile::tempdir().unwrap();
    let target = match std::env::consts::ARCH {
        "x86_64" => "x86_64-unknown-linux-gnu",
        "aarch64" => "aarch64-unknown-linux-gnu",
        other => panic!("no release target for {other}"),
    };
    let dir = releases.path().join("v9.9.9");
    std::fs::create_dir_all(&dir).unwrap();
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_yttcheck"));
    let archive = format!("yttcheck-v9.9.9-{target}.tar.gz");
    let status = Process::new("tar")
        .arg("-czf")
        .arg(dir.join(&archive))
        .arg("-C")
        .arg(bin.parent().unwrap())
        .arg("yttcheck")
        .status()
        .unwrap();
    assert!(status.success());
    let sum = Process::new("sha256sum")
        .arg(&archive)
        .current_dir(&dir)
        .output()
        .unwrap();
    std::fs::write(dir.join(format!("{archive}.sha256")), &sum.stdout).unwrap();
    let base = format!("file://{}", releases.path().display());
    let (code, _, log, t) = install(
        &[
            ("METHOD", "release"),
            ("VERSION", "v9.9.9"),
            ("DOWNLOAD_BASE", &base),
        ],
        &[],
    );
    assert_eq!(code, 0, "{log}");
    assert!(t.path().join("bin/yttcheck").is_file());
    assert_eq!(
        std::fs::read_to_string(t.path().join("path")).unwrap(),
        format!("{}\n", t.path().join("bin").display())
    );
    assert!(
        log.contains(&format!("yttcheck {}", env!("CARGO_PKG_VERSION"))),
        "{log}"
    );

    // a tampered archive is not installed
    std::fs::write(
        dir.join(format!("{archive}.sha256")),
        format!("{}  {archive}\n", "0".repeat(64)),
    )
    .unwrap();
    let (code, _, log, t) = install(
        &[
            ("METHOD", "release"),
            ("VERSION", "v9.9.9"),
            ("DOWNLOAD_BASE", &base),
        ],
        &[],
    );
    assert_eq!(code, 1, "{log}");
    assert!(
        log.contains("::error title=yttcheck install::the SHA-256 of"),
        "{log}"
    );
    assert!(!t.path().join("bin/yttcheck").exists());

    // a release that does not exist: `release` fails, naming the way out
    let (code, _, log, _t) = install(
        &[
            ("METHOD", "release"),
            ("VERSION", "v0.0.1"),
            ("DOWNLOAD_BASE", &base),
        ],
        &[],
    );
    assert_eq!(code, 1, "{log}");
    assert!(log.contains("use install: cargo"), "{log}");
}

#[test]
fn install_path_uses_the_binary_on_path() {
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_yttcheck"));
    let path = format!("{}:/usr/bin:/bin", bin.parent().unwrap().display());
    let (code, _, log, _t) = install(&[("METHOD", "path"), ("PATH", &path)], &[]);
    assert_eq!(code, 0, "{log}");
    let (code, _, log, _t) = install(&[("METHOD", "path"), ("PATH", "/usr/bin:/bin")], &[]);
    assert_eq!(code, 1, "{log}");
    assert!(log.contains("yttcheck is not on PATH"), "{log}");
}

#[test]
fn the_dockerfile_passes_hadolint() {
    let Some(hadolint) = tool("hadolint") else {
        return;
    };
    passes(&hadolint, &["Dockerfile"]);
}

/// What can be proved without a container engine: the Dockerfile builds
/// with the project's toolchain floor, runs as a non-root user, and the
/// binary its final stage copies needs no library that distroless/cc lacks
/// and nothing from the environment: it runs with an empty environment, as
/// uid 65532 (distroless's nonroot), on a repository owned by someone else
/// (as a mounted /repo is), with no git installed in the image.
#[test]
fn the_image_holds_everything_the_binary_needs() {
    let dockerfile = std::fs::read_to_string(root().join("Dockerfile")).unwrap();
    let cargo = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    let field = |name: &str| {
        cargo
            .lines()
            .find_map(|l| l.strip_prefix(&format!("{name} = \"")))
            .and_then(|v| v.strip_suffix('"'))
            .unwrap()
            .to_string()
    };
    let froms: Vec<&str> = dockerfile
        .lines()
        .filter(|l| l.starts_with("FROM "))
        .collect();
    assert_eq!(
        froms,
        [
            format!("FROM rust:{}-slim-bookworm AS build", field("rust-version")).as_str(),
            "FROM gcr.io/distroless/cc-debian12:nonroot"
        ]
    );
    assert!(dockerfile.contains("cargo build --locked --release"));
    assert!(dockerfile.contains("\nUSER 65532:65532\n"));
    assert!(dockerfile.contains("\nENTRYPOINT [\"/usr/local/bin/yttcheck\"]\n"));
    assert!(dockerfile.contains(&format!(
        "org.opencontainers.image.version=\"{}\"",
        field("version")
    )));
    // everything the build stage copies exists
    let mut copied = BTreeSet::new();
    for line in dockerfile
        .lines()
        .filter(|l| l.starts_with("COPY ") && !l.contains("--from"))
    {
        let parts: Vec<&str> = line.split_whitespace().collect();
        for src in &parts[1..parts.len() - 1] {
            assert!(root().join(src).exists(), "{line}");
            copied.insert(src.trim_end_matches('/').to_string());
        }
    }
    // and everything `cargo build` reads is copied: the manifest, the lock
    // file, the build script, the sources, the benches the manifest declares,
    // every path it names (the vendored starlark-rust) and every file the
    // sources include from outside src/
    let mut read = BTreeSet::from(["Cargo.toml", "Cargo.lock", "src"].map(String::from));
    if root().join("build.rs").exists() {
        read.insert("build.rs".into());
    }
    if cargo.contains("[[bench]]") {
        read.insert("benches".into());
    }
    let top = |p: &Path| {
        let rel = p.strip_prefix(root()).unwrap_or(p);
        rel.components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy()
            .into_owned()
    };
    for path in cargo.split("path = \"").skip(1) {
        read.insert(top(Path::new(path.split('"').next().unwrap())));
    }
    let mut dirs = vec![root().join("src")];
    while let Some(dir) = dirs.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                dirs.push(p);
                continue;
            }
            let text = std::fs::read_to_string(&p).unwrap_or_default();
            for macro_call in ["include_str!(\"", "include_bytes!(\""] {
                for rest in text.split(macro_call).skip(1) {
                    let included = dir.join(rest.split('"').next().unwrap());
                    let normal: PathBuf =
                        included.components().fold(PathBuf::new(), |mut acc, c| {
                            if c == std::path::Component::ParentDir {
                                acc.pop();
                            } else {
                                acc.push(c);
                            }
                            acc
                        });
                    read.insert(top(&normal));
                }
            }
        }
    }
    let missing: Vec<&String> = read.iter().filter(|r| !copied.contains(*r)).collect();
    assert!(
        missing.is_empty(),
        "the Dockerfile's build stage does not copy {missing:?}, which the build reads"
    );
    // and the context keeps them (.dockerignore drops none of them)
    let ignored = std::fs::read_to_string(root().join(".dockerignore")).unwrap_or_default();
    for line in ignored.lines().map(str::trim) {
        let pattern = line.trim_start_matches('/').trim_end_matches('/');
        assert!(
            line.starts_with('#') || !read.contains(pattern),
            ".dockerignore drops {pattern}, which the build reads"
        );
    }

    // the shared libraries distroless/cc-debian12 provides (glibc and libgcc)
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_yttcheck"));
    let out = Process::new("readelf")
        .arg("--dynamic")
        .arg(&bin)
        .output()
        .expect("readelf (binutils, which the C compiler the build needs brings)");
    let dynamic = String::from_utf8_lossy(&out.stdout);
    let needed: Vec<&str> = dynamic
        .lines()
        .filter(|l| l.contains("(NEEDED)"))
        .filter_map(|l| l.split('[').nth(1)?.split(']').next())
        .collect();
    assert!(!needed.is_empty(), "{dynamic}");
    let provided = [
        "libc.so.6",
        "libm.so.6",
        "libgcc_s.so.1",
        "libpthread.so.0",
        "libdl.so.2",
        "librt.so.1",
        "ld-linux-x86-64.so.2",
        "ld-linux-aarch64.so.1",
    ];
    for lib in &needed {
        assert!(provided.contains(lib), "{lib} is not in distroless/cc");
    }

    // a repository owned by another user, checked with an empty environment
    let repo = tempfile::tempdir().unwrap();
    let p = repo.path();
    git(p, &["init", "-q", "-b", "main"]);
    write(
        p,
        "libs/web/schema.yml",
        "#@data/values-schema\n---\n#@schema/validation min=1\nreplicas: 1\n",
    );
    write(p, "envs/dev/web.yml", "replicas: 0\n");
    git(p, &["add", "-A"]);
    git(p, &["commit", "-q", "-m", "initial"]);
    let is_root = unsafe { libc::geteuid() } == 0;
    let copy = tempfile::tempdir().unwrap();
    let mut cmd;
    if is_root {
        // the image's user (65532) reads a root-owned repository, as a
        // container reads a mount owned by the host's user
        let exe = copy.path().join("yttcheck");
        std::fs::copy(&bin, &exe).unwrap();
        for d in [repo.path(), copy.path()] {
            Process::new("chmod")
                .args(["-R", "a+rX"])
                .arg(d)
                .status()
                .unwrap();
        }
        cmd = Process::new("setpriv");
        cmd.args(["--reuid=65532", "--regid=65532", "--clear-groups"])
            .arg(&exe);
    } else {
        eprintln!("not root: the binary runs as this user (the other-owner part needs root)");
        cmd = Process::new(&bin);
    }
    let out = cmd
        .env_clear()
        .args(["check", "--staged", "--quiet", "--format", "json", "-C"])
        .arg(p)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(v["summary"]["errors"], 1);
}

/// The license the manifest and the image label name is in the repository.
#[test]
fn the_license_named_everywhere_is_shipped() {
    let manifest = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    assert!(manifest.contains("license = \"Apache-2.0\""));
    let dockerfile = std::fs::read_to_string(root().join("Dockerfile")).unwrap();
    assert!(dockerfile.contains("org.opencontainers.image.licenses=\"Apache-2.0\""));
    let license = std::fs::read_to_string(root().join("LICENSE")).expect("a LICENSE file");
    assert!(license.contains("Apache License") && license.contains("Version 2.0, January 2004"));
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    assert!(
        readme.contains("[Apache-2.0](LICENSE)"),
        "README names the license"
    );
}

/// The README is a landing page (what it is, the two commands, install, a
/// tour, links) and the manual is in docs/: every relative link of the
/// README and of docs/ leads to a file of the repository (and an anchor to
/// a heading of it).
#[test]
fn the_readme_is_a_landing_page_and_every_documentation_link_resolves() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    assert!(
        readme.lines().count() < 300,
        "README.md has {} lines: the manual goes in docs/",
        readme.lines().count()
    );
    let anchor_of = |heading: &str| -> String {
        heading
            .trim_start_matches('#')
            .trim()
            .to_lowercase()
            .chars()
            .filter_map(|c| match c {
                ' ' | '-' => Some('-'),
                c if c.is_alphanumeric() || c == '_' => Some(c),
                _ => None,
            })
            .collect()
    };
    let mut pages = vec![root().join("README.md")];
    for e in std::fs::read_dir(root().join("docs")).unwrap() {
        pages.push(e.unwrap().path());
    }
    let link = regex_lite_links();
    for page in &pages {
        let text = std::fs::read_to_string(page).unwrap();
        let dir = page.parent().unwrap();
        for target in link(&text) {
            if target.starts_with("http") || target.starts_with("mailto:") {
                continue;
            }
            let (file, anchor) = target.split_once('#').unwrap_or((&target, ""));
            let path = if file.is_empty() {
                page.clone()
            } else {
                dir.join(file)
            };
            assert!(path.exists(), "{}: {target} leads nowhere", page.display());
            if !anchor.is_empty() && path.extension().is_some_and(|e| e == "md") {
                let linked = std::fs::read_to_string(&path).unwrap();
                assert!(
                    linked
                        .lines()
                        .filter(|l| l.starts_with('#'))
                        .any(|h| anchor_of(h) == anchor),
                    "{}: no heading for #{anchor} in {}",
                    page.display(),
                    path.display()
                );
            }
        }
    }
}

/// The targets of Markdown links `[text](target)` outside code blocks.
fn regex_lite_links() -> impl Fn(&str) -> Vec<String> {
    |text: &str| {
        let mut out = Vec::new();
        let mut fence = false;
        for line in text.lines() {
            if line.trim_start().starts_with("```") {
                fence = !fence;
                continue;
            }
            if fence {
                continue;
            }
            let mut rest = line;
            while let Some(i) = rest.find("](") {
                let after = &rest[i + 2..];
                match after.find(')') {
                    Some(j) => {
                        let t = &after[..j];
                        if !t.contains(' ') && !t.is_empty() {
                            out.push(t.to_string());
                        }
                        rest = &after[j..];
                    }
                    None => break,
                }
            }
        }
        out
    }
}
