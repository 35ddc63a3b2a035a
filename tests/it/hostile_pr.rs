//! A hostile pull request: one repository holding every vector of
//! SECURITY.md's "repository content is hostile in CI" (names, keys, values,
//! `fail()` messages, policy descriptions, configuration, symlinks, files
//! named like options, a secret in a map added whole), run through `yttcheck
//! ci` with a fabricated fork `pull_request` event, through `check --format`
//! for every format inside a GitHub Actions step, through `render
//! --output-files`, and through the real pre-commit framework.
//!
//! The streams are read the way the Actions runner reads them (`Runner`:
//! lines end at LF, CRLF or a lone CR; `::cmd::` after leading white space,
//! `##[cmd]` anywhere; `::stop-commands::` and its token), and every
//! command found must be one yttcheck meant to give. Files outside the
//! repository and the repository's state (work tree, index) are compared
//! before and after; the job summary is rendered by a real CommonMark+GFM
//! renderer (cmarkgfm) and must have only our structure.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command as Process;

use super::common::{git, tool, write};
use super::runner::assert_only_our_commands;

/// No raw control character (but our line feeds), DEL, C1, U+2028/U+2029.
fn assert_no_raw_controls(what: &str, text: &str) {
    if let Some(c) = text.chars().find(|c| {
        let u = *c as u32;
        (u < 0x20 && *c != '\n') || (0x7f..=0x9f).contains(&u) || u == 0x2028 || u == 0x2029
    }) {
        panic!("{what}: raw U+{:04X} in:\n{text}", c as u32);
    }
}

const SECRETS: &[&str] = &["qa-pw-SECRET1", "TOPSECRET-OUTSIDE"];

fn assert_no_secret(what: &str, text: &str) {
    for s in SECRETS {
        assert!(!text.contains(s), "{what}: the secret {s} leaked:\n{text}");
    }
}

fn rev(dir: &Path, r: &str) -> String {
    let out = Process::new("git")
        .current_dir(dir)
        .args(["rev-parse", r])
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

/// Every file under `dir` with its bytes (links as their targets).
fn files_of(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            let md = std::fs::symlink_metadata(&p).unwrap();
            if md.file_type().is_symlink() {
                out.insert(
                    p.clone(),
                    std::fs::read_link(&p)
                        .unwrap()
                        .to_string_lossy()
                        .into_owned()
                        .into_bytes(),
                );
            } else if md.is_dir() {
                if p.file_name().is_some_and(|n| n == ".git") {
                    // the index and refs, not the objects (a check writes none)
                    for f in ["index", "HEAD"] {
                        if let Ok(b) = std::fs::read(p.join(f)) {
                            out.insert(p.join(f), b);
                        }
                    }
                    continue;
                }
                stack.push(p);
            } else {
                out.insert(p.clone(), std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

/// The hostile repository: `main` with a plain library, and a pull request
/// from a fork merged onto it as actions/checkout checks it out.
struct Hostile {
    _temp: tempfile::TempDir,
    /// Beside the repository: what must be neither read nor written.
    outside: PathBuf,
    repo: PathBuf,
    base: String,
    head: String,
}

const FAIL_TEMPLATE: &str = r#"#@ load("@ytt:data", "data")
#@ load("@ytt:assert", "assert")
---
#@ if data.values.leak:
leaked: #@ assert.fail("leak: " + data.values.leak)
#@ end
#@ if data.values.replicas == 7:
fails: #@ assert.fail("PWNED-fail @admin #1 GH-2 ![i](https://evil.example/i.png) 0123456789abcdef\n::error::PWNED-forged\r::add-mask::PWNED ##[stop-commands]PWNED-stop")
#@ end
kind: Config
"#;

const SCHEMA: &str = "#@data/values-schema\n---\n#@schema/validation min=1\nreplicas: 1\nleak: \"\"\ndatabase:\n  host: \"\"\n  password: \"\"\n";

fn hostile() -> Hostile {
    let temp = tempfile::tempdir().unwrap();
    let outside = temp.path().join("outside");
    write(&outside, "victim.txt", "victim: untouched\n");
    write(&outside, "secret.txt", "TOPSECRET-OUTSIDE\n");
    let repo = temp.path().join("repo");
    let p = repo.as_path();
    std::fs::create_dir_all(p).unwrap();
    git(p, &["init", "-q", "-b", "main"]);
    write(
        p,
        "libs/web/schema.yml",
        format!("{SCHEMA}motd: \"welcome\\n\\nbye\\n\"\n"),
    );
    write(p, "libs/web/t.yml", FAIL_TEMPLATE);
    write(p, "envs/dev/web.yml", "replicas: 2\n");
    write(p, "envs/prod/web.yml", "replicas: 3\n");
    git(p, &["add", "-A"]);
    git(p, &["commit", "-q", "-m", "initial"]);
    let base = rev(p, "HEAD");

    // the fork's pull request
    git(p, &["checkout", "-q", "-b", "feature"]);
    // a multi-line default changed: a line diff, whose lines (a blank one,
    // an HTML end tag, commands) stay text
    write(
        p,
        "libs/web/schema.yml",
        format!("{SCHEMA}motd: \"welcome\\n\\n</pre></details>\\n::error::PWNED-pre\\n##[error]PWNED-pre\\n<script>x</script>\\nbye\\n\"\n"),
    );
    // names: a folder and a file whose names carry line ends and commands
    write(
        p,
        "envs/stag\r##[add-mask]PWNED-dir/web.yml",
        "replicas: 7\n",
    );
    write(p, "envs/prod/x\n::error::PWNED-file.yml", "replicas: 0\n");
    // keys and values: a key with a line end, a value with a legacy command
    // in a code frame, a secret in a map added whole (a new environment)
    write(
        p,
        "envs/qa/web.yml",
        "replicas: 2\n\"k\\n::add-mask::PWNED-key\\r## ✅ no findings | `x`\": 1\n",
    );
    write(
        p,
        "envs/frame/web.yml",
        "replicas: \"##[error]PWNED-frame\"\n",
    );
    write(
        p,
        "envs/secret/web.yml",
        "replicas: 2\ndatabase: {host: db.qa, password: qa-pw-SECRET1}\n",
    );
    // a fail() message with every kind of command, in every pair
    write(p, "envs/prod/web.yml", "replicas: 7\n");
    // Markdown: a key that would end its table row and make a heading, a
    // backtick and HTML in a pair name
    write(
        p,
        "envs/md`x<img src y>|z/web.yml",
        "replicas: 1\n\"\\r\\n## ✅ no findings\\n<script>x</script>\": 1\n",
    );
    // configuration: a key with a command, a policy whose rule description
    // carries one, and a values file outside the repository
    write(
        p,
        ".yttcheck.yml",
        "environments:\n  - glob: envs/*\n  - name: leak\n    data_value_files: [\"leak=../outside/secret.txt\"]\n  - name: abs\n    data_value_files: [\"leak=OUTSIDE/secret.txt\"]\npolicies:\n  - path: policies/prod.yml\n"
            .replace("OUTSIDE", &outside.display().to_string()),
    );
    write(
        p,
        "policies/prod.yml",
        "#@ load(\"@ytt:assert\", \"assert\")\n---\n#@assert/validate (\"big\\n::error::PWNED-policy ##[add-mask]PWNED\", lambda v: v >= 1000)\nreplicas: 0\n",
    );
    // symlinks: a report file and an output folder that lead out
    std::os::unix::fs::symlink(outside.join("victim.txt"), p.join("report.sarif")).unwrap();
    std::os::unix::fs::symlink(outside.join("victim.txt"), p.join("summary.md")).unwrap();
    std::fs::create_dir_all(p.join("rendered")).unwrap();
    std::os::unix::fs::symlink(outside.join("victim.txt"), p.join("rendered/t.yml")).unwrap();
    std::os::unix::fs::symlink(&outside, p.join("reports")).unwrap();
    // files named like options (pre-commit appends file names)
    for name in [
        "--baseline=b.yml",
        "-ojunk.yml",
        "--output=junk.yml",
        "--format=json.yml",
        "--no-render.yml",
        "--dangerous-data-values-disable-validation.yml",
        "--quiet.yml",
        "-q.yml",
        "--fail-on=note.yml",
        "--library=web.yml",
        "--env=dev.yml",
        "--shard=1.yml",
        "--update-baseline.yml",
        "--daemon=always.yml",
        "-j1.yml",
        "--staged.yml",
        "--rev=HEAD.yml",
        "--changed-since=HEAD.yml",
        "-C.yml",
        "--root=..yml",
        "--color=always.yml",
        "--max-steps=1.yml",
        "--timeout=1.yml",
    ] {
        write(p, name, "plain: data\n");
    }
    git(p, &["add", "-A"]);
    git(p, &["commit", "-q", "-m", "a hostile change"]);
    let head = rev(p, "HEAD");
    // a baseline of everything this change breaks, named by an option-like
    // file: passing it would make the hook accept the change
    let out = Process::new(env!("CARGO_BIN_EXE_yttcheck"))
        .current_dir(p)
        .args([
            "check",
            "-q",
            "--daemon",
            "never",
            "--baseline",
            "b.yml",
            "--update-baseline",
        ])
        .env_remove("GITHUB_ACTIONS")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    git(p, &["add", "-A"]);
    git(p, &["commit", "-q", "-m", "a baseline of it"]);

    // merged onto main, as refs/pull/N/merge
    git(p, &["checkout", "-q", "--detach", &base]);
    git(
        p,
        &["merge", "-q", "--no-ff", "-m", "Merge feature", "feature"],
    );
    Hostile {
        _temp: temp,
        outside,
        repo,
        base,
        head,
    }
}

/// `yttcheck` in `dir` inside a GitHub Actions step.
fn in_step(dir: &Path, args: &[&str], step: &Path) -> std::process::Output {
    let mut cmd = Process::new(env!("CARGO_BIN_EXE_yttcheck"));
    for (k, _) in std::env::vars() {
        if k.starts_with("GITHUB_") || k.starts_with("RUNNER_") {
            cmd.env_remove(k);
        }
    }
    cmd.current_dir(dir)
        .args(args)
        .env("GITHUB_ACTIONS", "true")
        .env("CI", "true")
        .env("GITHUB_EVENT_NAME", "pull_request")
        .env("GITHUB_EVENT_PATH", step.join("event.json"))
        .env("GITHUB_WORKSPACE", dir)
        .env("GITHUB_OUTPUT", step.join("output"))
        .env("GITHUB_STEP_SUMMARY", step.join("summary.md"))
        .env("RUNNER_TEMP", step.join("runner-temp"))
        .env("GITHUB_ACTOR", "mallory")
        .output()
        .unwrap()
}

fn streams(o: &std::process::Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// Tags allowed in the rendered summary: the ones its printers write.
const OUR_TAGS: &[&str] = &[
    "h2",
    "h3",
    "p",
    "em",
    "strong",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "code",
    "details",
    "summary",
    "br",
    "blockquote",
    // the reasons a pair fails, in the diff
    "ul",
    "li",
    // a changed text's line diff
    "pre",
];

/// Renders Markdown with cmarkgfm (GitHub's extensions; raw HTML kept, as
/// GitHub keeps the tags it allows) and returns its structure: every tag,
/// each heading's text, and each table row's cell count.
pub(super) fn render_markdown(md: &str) -> Option<serde_json::Value> {
    let python = super::common::python_with(&["cmarkgfm"])?;
    let script = r#"
import json, sys, cmarkgfm
from cmarkgfm.cmark import Options
from html.parser import HTMLParser
html = cmarkgfm.github_flavored_markdown_to_html(sys.stdin.read(), options=Options.CMARK_OPT_UNSAFE)
class P(HTMLParser):
    def __init__(self):
        super().__init__(); self.tags = []; self.headings = []; self.rows = []; self.h = None; self.cells = None
    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        if tag in ("h1","h2","h3","h4","h5","h6"): self.h = ""
        if tag == "tr": self.cells = 0
        if tag in ("td","th") and self.cells is not None: self.cells += 1
    def handle_endtag(self, tag):
        if tag in ("h1","h2","h3","h4","h5","h6") and self.h is not None: self.headings.append(self.h); self.h = None
        if tag == "tr": self.rows.append(self.cells); self.cells = None
    def handle_data(self, d):
        if self.h is not None: self.h += d
p = P(); p.feed(html)
print(json.dumps({"tags": sorted(set(p.tags)), "headings": p.headings, "rows": p.rows, "html": html}))
"#;
    let mut child = Process::new(python)
        .args(["-c", script])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(md.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "cmarkgfm (installed by .ci/run in target/tools/venv): {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(serde_json::from_slice(&out.stdout).unwrap())
}

fn assert_only_our_markdown(what: &str, md: &str) {
    assert_no_raw_controls(what, md);
    assert!(!md.contains("::") && !md.contains("##["), "{what}:\n{md}");
    let Some(dom) = render_markdown(md) else {
        return;
    };
    for tag in dom["tags"].as_array().unwrap() {
        assert!(
            OUR_TAGS.contains(&tag.as_str().unwrap()),
            "{what}: <{tag}> is not ours:\n{}",
            dom["html"]
        );
    }
    for h in dom["headings"].as_array().unwrap() {
        let h = h.as_str().unwrap();
        assert!(
            h.starts_with("❌ yttcheck:")
                || h.starts_with("✅ yttcheck:")
                || h.starts_with("yttcheck diff:")
                || h == "Schema changes",
            "{what}: a heading that is not ours: {h:?}\n{}",
            dom["html"]
        );
    }
    // every row of a table has the table's cells (none cut short or split)
    let rows: Vec<u64> = dom["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_u64().unwrap())
        .collect();
    for n in &rows {
        assert!(
            [2, 4, 5].contains(n),
            "{what}: a row of {n} cells: {rows:?}\n{}",
            dom["html"]
        );
    }
}

#[test]
fn a_hostile_pull_request_commands_nothing_leaks_nothing_and_writes_nothing_outside() {
    let h = hostile();
    let p = h.repo.as_path();
    let outside_before = files_of(&h.outside);
    let repo_before = files_of(p);
    let step = tempfile::tempdir().unwrap();
    let s = step.path();
    std::fs::create_dir_all(s.join("runner-temp")).unwrap();
    let payload = serde_json::json!({
        "action": "synchronize",
        "number": 13,
        "pull_request": {
            "number": 13,
            "base": {"ref": "main", "sha": h.base, "repo": {"full_name": "acme/config"}},
            "head": {"ref": "feature\n::error::PWNED-ref", "sha": h.head, "repo": {"full_name": "mallory/config"}},
        },
    });
    std::fs::write(s.join("event.json"), payload.to_string()).unwrap();

    // 1. the CI step
    let comment_file = s.join("comment.json");
    let out = in_step(
        p,
        &[
            "ci",
            "--all",
            "--comment",
            "--comment-file",
            comment_file.to_str().unwrap(),
        ],
        s,
    );
    let (stdout, stderr) = streams(&out);
    assert_eq!(
        out.status.code(),
        Some(2),
        "config/invalid: exit 2\n{stdout}\n{stderr}"
    );
    assert_only_our_commands("ci stdout", &stdout);
    assert_only_our_commands("ci stderr", &stderr);
    assert_no_raw_controls("ci stdout", &stdout);
    assert_no_raw_controls("ci stderr", &stderr);
    assert_no_secret("ci stdout", &stdout);
    // the findings are there, as annotations of ours
    for expected in [
        "PWNED-fail",
        "PWNED-policy",
        "PWNED-key",
        "leads out of the repository",
        "is an absolute path",
    ] {
        assert!(
            stdout.contains(expected),
            "{expected} not reported:\n{stdout}"
        );
    }
    assert!(
        stdout.contains("::error ") && stdout.contains("::stop-commands::yttcheck-"),
        "{stdout}"
    );
    let summary = std::fs::read_to_string(s.join("summary.md")).unwrap();
    assert_no_secret("job summary", &summary);
    assert_only_our_markdown("job summary", &summary);
    let mut reports = vec![summary];
    for f in std::fs::read_dir(s.join("runner-temp/yttcheck")).unwrap() {
        let f = f.unwrap().path();
        let text = std::fs::read_to_string(&f).unwrap();
        assert_no_secret(&f.display().to_string(), &text);
        assert_no_raw_controls(&f.display().to_string(), &text);
        assert!(
            !text.contains("::") && !text.contains("##["),
            "{}: {text}",
            f.display()
        );
        reports.push(text);
    }
    // the comment: nothing in it pings, links or loads; no secret
    let comment = std::fs::read_to_string(s.join("runner-temp/yttcheck/comment.md")).unwrap();
    assert!(comment.contains("PWNED-fail"), "{comment}");
    let live = super::pr_comment::live_references(&comment);
    assert!(live.is_empty(), "{live:?}\n{comment}");
    let data = std::fs::read_to_string(&comment_file).unwrap();
    assert_no_secret("comment file", &data);
    // a fork's token is read-only: not posted, and said why
    assert!(
        stdout
            .contains("the pull request comment is not posted: the pull request comes from a fork"),
        "{stdout}"
    );
    // the diff saw the new qa environment, and showed its database host
    let diff = std::fs::read_to_string(s.join("runner-temp/yttcheck/diff.json")).unwrap();
    assert!(
        diff.contains("db.qa") && diff.contains("(value not shown)"),
        "{diff}"
    );
    let outputs = std::fs::read_to_string(s.join("output")).unwrap();
    assert_only_our_commands("GITHUB_OUTPUT", &outputs);

    // 2. every report format, inside a step, to stdout and to files
    for format in [
        "text", "json", "sarif", "github", "gitlab", "junit", "markdown",
    ] {
        let out = in_step(
            p,
            &["check", "-q", "--daemon", "never", "--format", format],
            s,
        );
        let (stdout, stderr) = streams(&out);
        assert!(
            matches!(out.status.code(), Some(1 | 2)),
            "{format}: {stdout}\n{stderr}"
        );
        assert_only_our_commands(format, &stdout);
        assert_only_our_commands(&format!("{format} stderr"), &stderr);
        assert_no_raw_controls(format, &stdout);
        assert_no_raw_controls(&format!("{format} stderr"), &stderr);
        assert_no_secret(format, &stdout);
        if format != "github" && format != "text" {
            assert!(
                !stdout.contains("::") && !stdout.contains("##["),
                "{format}:\n{stdout}"
            );
        }
        if format == "markdown" {
            assert_only_our_markdown("markdown report", &stdout);
        }
    }
    // report files where the checkout has links: the links are replaced
    let out = in_step(
        p,
        &[
            "check",
            "-q",
            "--daemon",
            "never",
            "--format",
            "sarif=report.sarif",
            "--format",
            "markdown=summary.md",
        ],
        s,
    );
    assert!(
        matches!(out.status.code(), Some(1 | 2)),
        "{}",
        streams(&out).1
    );
    assert!(!std::fs::symlink_metadata(p.join("report.sarif"))
        .unwrap()
        .file_type()
        .is_symlink());
    // a folder link out of the repository is refused
    let out = in_step(
        p,
        &[
            "check",
            "-q",
            "--daemon",
            "never",
            "--format",
            "json=reports/findings.json",
        ],
        s,
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        streams(&out).1.contains("leads out of the current folder"),
        "{}",
        streams(&out).1
    );
    // render's output files: a link there is replaced, never followed
    let out = in_step(
        p,
        &["render", "-f", "libs/web", "--output-files", "rendered"],
        s,
    );
    assert!(out.status.success(), "{}", streams(&out).1);
    assert!(!std::fs::symlink_metadata(p.join("rendered/t.yml"))
        .unwrap()
        .file_type()
        .is_symlink());
    // `diff` in a step
    let out = in_step(p, &["diff", "--base", &h.base], s);
    let (stdout, stderr) = streams(&out);
    assert_only_our_commands("diff", &stdout);
    assert_only_our_commands("diff stderr", &stderr);
    assert_no_secret("diff", &stdout);
    assert_no_raw_controls("diff", &stdout);
    for format in ["markdown", "json"] {
        let out = in_step(p, &["diff", "--base", &h.base, "--format", format], s);
        let (stdout, _) = streams(&out);
        assert_no_secret(format, &stdout);
        assert!(
            !stdout.contains("::") && !stdout.contains("##["),
            "{stdout}"
        );
        if format == "markdown" {
            // the changed default's line diff is there, as text
            assert!(
                stdout.contains("<pre>") && stdout.contains("&lt;/pre&gt;"),
                "{stdout}"
            );
            assert_only_our_markdown("diff markdown", &stdout);
        }
    }

    // 3. a configuration error that quotes the repository's text: exit 2,
    // an annotation of ours, a neutralized message
    let config = std::fs::read_to_string(p.join(".yttcheck.yml")).unwrap();
    write(
        p,
        ".yttcheck.yml",
        format!("{config}rules:\n  \"schema/nosuch\\n::error::PWNED-config\\r##[add-mask]x\": warning\n"),
    );
    for args in [
        &["ci", "--all"][..],
        &["check", "-q", "--daemon", "never"][..],
    ] {
        let out = in_step(p, args, s);
        let (stdout, stderr) = streams(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stdout}\n{stderr}");
        assert!(stderr.contains("PWNED-config"), "{stderr}");
        assert_only_our_commands("config error stdout", &stdout);
        assert_only_our_commands("config error stderr", &stderr);
        assert_no_raw_controls("config error stdout", &stdout);
        assert_no_raw_controls("config error stderr", &stderr);
    }
    write(p, ".yttcheck.yml", config);

    // nothing outside the repository was read into a report or written
    assert_eq!(files_of(&h.outside), outside_before);
    for r in &reports {
        assert!(!r.contains("victim: untouched"));
    }
    // and the repository's index and HEAD are as they were (the work tree
    // changed only where the commands above were told to write)
    let after = files_of(p);
    for (path, bytes) in &repo_before {
        let written = ["report.sarif", "summary.md", "rendered"]
            .iter()
            .any(|w| path.starts_with(p.join(w)));
        if !written {
            assert_eq!(after.get(path), Some(bytes), "{} changed", path.display());
        }
    }
}

#[test]
fn files_named_like_options_stay_file_names_in_the_pre_commit_hook() {
    let Some(pre_commit) = tool("pre-commit") else {
        return;
    };
    let h = hostile();
    let p = h.repo.as_path();
    // the manifest's system hook, as a local hook
    let manifest: serde_json::Value = serde_norway::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join(".pre-commit-hooks.yaml"),
        )
        .unwrap(),
    )
    .unwrap();
    let hook = manifest
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["id"] == "yttcheck-system")
        .unwrap()
        .clone();
    let config = serde_json::json!({"repos": [{"repo": "local", "hooks": [hook]}]});
    write(
        p,
        ".pre-commit-config.yaml",
        serde_norway::to_string(&config).unwrap(),
    );
    git(p, &["add", ".pre-commit-config.yaml"]);
    let home = tempfile::tempdir().unwrap();
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_yttcheck"));
    let baseline_before = std::fs::read(p.join("b.yml")).unwrap();
    let out = Process::new(&pre_commit)
        .current_dir(p)
        .args(["run", "--all-files"])
        .env("PRE_COMMIT_HOME", home.path())
        .env("HOME", home.path())
        .env(
            "PATH",
            format!(
                "{}:{}",
                bin.parent().unwrap().display(),
                std::env::var("PATH").unwrap_or_default()
            ),
        )
        .env("YTTCHECK_DAEMON", "never")
        .env_remove("CI")
        .env_remove("GITHUB_ACTIONS")
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    // the change is refused, with its findings: `--baseline=b.yml` was a
    // file name, not the baseline that lists them all
    assert!(!out.status.success(), "{text}");
    assert!(text.contains("PWNED-fail"), "{text}");
    assert!(!p.join("junk.yml").exists(), "-ojunk.yml was taken as -o");
    assert_eq!(std::fs::read(p.join("b.yml")).unwrap(), baseline_before);
}

/// Every path a repository's configuration names stays inside the
/// repository, at each entry point: library paths, globs and extra files,
/// environment globs, files and values files, policy paths and packs (a
/// committed link to a pack outside included), relative or absolute. Each is
/// a `config/invalid` finding at its line, and nothing outside is read.
#[test]
fn every_path_the_configuration_names_stays_inside_the_repository() {
    let top = tempfile::tempdir().unwrap();
    let outside = top.path().join("outside");
    write(&outside, "s.yml", "secret: TOPSECRET-OUTSIDE\n");
    write(
        &outside,
        "lib/schema.yml",
        "#@data/values-schema\n---\nsecret: TOPSECRET-OUTSIDE\n",
    );
    write(
        &outside,
        "pack/p.yml",
        "#@ load(\"@ytt:assert\", \"assert\")\n#@assert/validate (\"TOPSECRET-OUTSIDE\", lambda v: False)\n---\n",
    );
    let p = top.path().join("repo");
    write(
        &p,
        "libs/web/schema.yml",
        "#@data/values-schema\n---\nreplicas: 1\n",
    );
    write(&p, "envs/dev/web.yml", "#@data/values\n---\nreplicas: 2\n");
    std::os::unix::fs::symlink("../outside/pack", p.join("linked-pack")).unwrap();
    git(&p, &["init", "-q"]);
    git(&p, &["add", "-A"]);
    git(&p, &["commit", "-q", "-m", "init"]);
    let abs = outside.display().to_string();
    for config in [
        "libraries: [{path: ../outside/lib}]".to_string(),
        format!("libraries: [{{path: {abs}/lib}}]"),
        "libraries: [{glob: \"../outside/*\"}]".to_string(),
        "libraries: [{path: libs/web, files: [\"../outside/lib\"]}]".to_string(),
        "environments: [{glob: \"../outside/*\"}]".to_string(),
        "environments: [{name: x, files: [\"../outside/s.yml\"]}]".to_string(),
        "environments: [{name: x, data_values_files: [\"../outside/s.yml\"]}]".to_string(),
        format!("environments: [{{name: x, data_values_files: [\"{abs}/s.yml\"]}}]"),
        "environments: [{name: x, data_value_files: [\"secret=../outside/s.yml\"]}]".to_string(),
        "policies: [{path: ../outside/pack}]".to_string(),
        format!("policies: [{{path: {abs}/pack}}]"),
        "policies: [{path: linked-pack}]".to_string(),
    ] {
        write(&p, ".yttcheck.yml", format!("{config}\n"));
        for worktree_or_rev in [&[][..], &["--rev", "HEAD"][..]] {
            let mut args = vec!["check", "--format", "json"];
            args.extend_from_slice(worktree_or_rev);
            if !worktree_or_rev.is_empty() {
                git(&p, &["add", "-A"]);
                git(&p, &["commit", "-q", "-m", "config", "--allow-empty"]);
            }
            let (code, out, err) = super::common::run(&p, &args);
            // a link out is refused where it is found, as any other link out
            let (want_code, want_rule) = if config.contains("linked-pack") {
                (1, "\"file/unreadable\"")
            } else {
                (2, "\"config/invalid\"")
            };
            assert_eq!(code, want_code, "{config} {worktree_or_rev:?}: {out}{err}");
            assert!(
                out.contains(want_rule),
                "{config} {worktree_or_rev:?}: {out}{err}"
            );
            assert_no_secret(&config, &out);
            assert_no_secret(&config, &err);
        }
    }
}

/// Reports and baselines are written over a committed link, never through
/// it: the link is replaced by the file, and what it pointed at outside the
/// repository is untouched.
#[test]
fn reports_and_baselines_replace_committed_links_and_write_nothing_outside() {
    let top = tempfile::tempdir().unwrap();
    let outside = top.path().join("outside");
    write(&outside, "victim.txt", "keep me\n");
    let p = top.path().join("repo");
    write(
        &p,
        "libs/web/schema.yml",
        "#@data/values-schema\n---\n#@schema/validation min=1\nreplicas: 1\n",
    );
    write(&p, "envs/dev/web.yml", "replicas: 0\n");
    for name in ["report.json", "report.sarif", "baseline.json"] {
        std::os::unix::fs::symlink("../outside/victim.txt", p.join(name)).unwrap();
    }
    git(&p, &["init", "-q"]);
    git(&p, &["add", "-A"]);
    git(&p, &["commit", "-q", "-m", "init"]);
    let runs: [&[&str]; 3] = [
        &["check", "-o", "report.json", "--format", "json"],
        &["check", "--format", "sarif=report.sarif"],
        &["check", "--baseline", "baseline.json", "--update-baseline"],
    ];
    for args in runs {
        let (_, out, err) = super::common::run(&p, args);
        assert_eq!(
            std::fs::read_to_string(outside.join("victim.txt")).unwrap(),
            "keep me\n",
            "{args:?}: {out}{err}"
        );
    }
    for name in ["report.json", "report.sarif", "baseline.json"] {
        let md = std::fs::symlink_metadata(p.join(name)).unwrap();
        assert!(md.file_type().is_file(), "{name} is still a link");
        let text = std::fs::read_to_string(p.join(name)).unwrap();
        assert!(
            text.contains("validation/min") || text.contains("web"),
            "{name}: {text}"
        );
    }
}
