//! The pull request comment (`ci --comment`, `ci --comment-file` and
//! `comment --from`), posted for real over HTTP to a GitHub API on
//! 127.0.0.1 ([`super::fake_github`]) from real repositories whose pull
//! requests are merged as actions/checkout checks them out.

use std::path::{Path, PathBuf};
use std::process::Command as Process;

use super::common::{git, write};
use super::fake_github::{FakeGithub, REPO, TOKEN};

const MARKER: &str = "<!-- yttcheck: pull request comment -->";
const ALLOWED: &[&str] = &["GET", "POST", "PATCH"];

fn rev(dir: &Path, r: &str) -> String {
    git(dir, &["rev-parse", r]).trim().to_string()
}

/// A repository on `main` and a pull request branch `feature` from it.
struct Pr {
    _temp: tempfile::TempDir,
    repo: PathBuf,
    base: String,
}

impl Pr {
    fn new(setup: impl Fn(&Path)) -> Pr {
        let temp = tempfile::tempdir().unwrap();
        let repo = temp.path().join("repo");
        std::fs::create_dir_all(&repo).unwrap();
        git(&repo, &["init", "-q", "-b", "main"]);
        setup(&repo);
        git(&repo, &["add", "-A"]);
        git(&repo, &["commit", "-q", "-m", "initial"]);
        let base = rev(&repo, "HEAD");
        git(&repo, &["branch", "feature"]);
        Pr {
            _temp: temp,
            repo,
            base,
        }
    }

    /// A push to the pull request: `change` committed on `feature`, then
    /// `feature` merged onto the base as `refs/pull/N/merge` is; the head.
    fn push(&self, change: impl Fn(&Path)) -> String {
        let p = self.repo.as_path();
        git(p, &["checkout", "-q", "feature"]);
        change(p);
        git(p, &["add", "-A"]);
        git(p, &["commit", "-q", "--allow-empty", "-m", "a push"]);
        let head = rev(p, "HEAD");
        git(p, &["checkout", "-q", "--detach", &self.base]);
        git(p, &["merge", "-q", "--no-ff", "-m", "Merge", "feature"]);
        head
    }

    fn payload(&self, head: &str, head_repo: &str) -> serde_json::Value {
        serde_json::json!({
            "number": 42,
            "pull_request": {
                "number": 42,
                "base": {"ref": "main", "sha": self.base, "repo": {"full_name": REPO}},
                "head": {"ref": "feature", "sha": head, "repo": {"full_name": head_repo}},
            },
        })
    }
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

/// `yttcheck ARGS` in a GitHub Actions step of `event` (its payload
/// written to a file), with the API at `api`.
fn in_step(
    dir: &Path,
    api: &str,
    event: &str,
    payload: &serde_json::Value,
    args: &[&str],
    token: Option<&str>,
) -> Run {
    let temp = tempfile::tempdir().unwrap();
    let t = temp.path();
    std::fs::write(t.join("event.json"), payload.to_string()).unwrap();
    let mut cmd = Process::new(env!("CARGO_BIN_EXE_yttcheck"));
    for (k, _) in std::env::vars() {
        if k.starts_with("GITHUB_")
            || k.starts_with("RUNNER_")
            || k.to_ascii_lowercase().ends_with("_proxy")
        {
            cmd.env_remove(k);
        }
    }
    if let Some(token) = token {
        cmd.env("GITHUB_TOKEN", token);
    }
    let out = cmd
        .current_dir(dir)
        .args(args)
        .env("GITHUB_ACTIONS", "true")
        .env("GITHUB_EVENT_NAME", event)
        .env("GITHUB_EVENT_PATH", t.join("event.json"))
        .env("GITHUB_WORKSPACE", dir)
        .env("GITHUB_OUTPUT", t.join("output"))
        .env("GITHUB_STEP_SUMMARY", t.join("summary.md"))
        .env("RUNNER_TEMP", t.join("runner-temp"))
        .env("GITHUB_ACTOR", "alice")
        .env("GITHUB_API_URL", api)
        .env("GITHUB_REPOSITORY", REPO)
        .env("GITHUB_SERVER_URL", "https://github.com")
        .env("GITHUB_RUN_ID", "4242")
        .output()
        .unwrap();
    let run = Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into(),
        stderr: String::from_utf8_lossy(&out.stderr).into(),
    };
    assert!(
        !run.stdout.contains(TOKEN) && !run.stderr.contains(TOKEN),
        "the token was printed:\n{}\n{}",
        run.stdout,
        run.stderr
    );
    run
}

/// Every request was one of the three calls, with the token.
fn assert_only_comment_calls(gh: &FakeGithub) {
    for r in gh.requests() {
        let path = r.target.split('?').next().unwrap();
        let ok = match r.method.as_str() {
            "GET" | "POST" => path == format!("/repos/{REPO}/issues/42/comments"),
            "PATCH" => path.starts_with(&format!("/repos/{REPO}/issues/comments/")),
            _ => false,
        };
        assert!(ok && ALLOWED.contains(&r.method.as_str()), "{r:?}");
        assert_eq!(
            r.authorization.as_deref(),
            Some(&*format!("Bearer {TOKEN}"))
        );
    }
}

fn writes(gh: &FakeGithub) -> usize {
    gh.requests().iter().filter(|r| r.method != "GET").count()
}

fn two_libraries(p: &Path) {
    write(
        p,
        "libs/web/schema.yml",
        "#@data/values-schema\n---\n#@schema/validation min=1\nreplicas: 1\n",
    );
    write(
        p,
        "libs/web/deploy.yml",
        "#@ load(\"@ytt:data\", \"data\")\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: #@ data.values.replicas\n",
    );
    write(
        p,
        "libs/api/schema.yml",
        "#@data/values-schema\n---\nport: 8080\n",
    );
    write(p, "envs/dev/web.yml", "replicas: 1\n");
    write(p, "envs/prod/web.yml", "replicas: 3\n");
    write(p, "envs/prod/api.yml", "port: 9090\n");
    write(p, "README.md", "# configuration\n");
}

#[test]
fn one_comment_is_posted_then_updated_in_place_on_every_push() {
    let gh = FakeGithub::start();
    // comments already there: three pages of them, and a stranger's that
    // carries our marker
    for i in 0..3 {
        gh.add(&format!("LGTM {i}"), "User", "NONE");
    }
    let stranger = gh.add(&format!("{MARKER}\nnot yours"), "User", "CONTRIBUTOR");
    gh.state.lock().unwrap().rate_limit_next_write = true;
    let pr = Pr::new(two_libraries);
    let head = pr.push(|p| {
        write(p, "envs/prod/web.yml", "replicas: 5\n");
        write(p, "envs/dev/web.yml", "replicas: 2\n");
    });
    let ci = |head: &str| {
        in_step(
            &pr.repo,
            &gh.url,
            "pull_request",
            &pr.payload(head, REPO),
            &["ci", "--comment"],
            Some(TOKEN),
        )
    };
    let first = ci(&head);
    assert_eq!(first.code, 0, "{}\n{}", first.stdout, first.stderr);
    assert!(
        first.stdout.contains("posted the comment"),
        "{}",
        first.stdout
    );
    assert!(first.stderr.contains("rate limit"), "{}", first.stderr);
    let comments = gh.comments();
    assert_eq!(comments.len(), 5);
    let ours = comments.last().unwrap().clone();
    assert!(ours.body.starts_with(MARKER));
    let visible = ours.body.replace('\u{2060}', "");
    assert!(
        visible.contains("### ✅ yttcheck: this change passes the check"),
        "{visible}"
    );
    assert!(
        visible.contains(
            "<code>web@prod</code>: 0 to add, 1 to change, 0 to remove; 1 data value changes"
        ),
        "{visible}"
    );
    assert!(
        visible.contains("<code>spec.replicas</code> | <code>3</code> | <code>5</code>"),
        "{visible}"
    );
    assert!(
        visible.contains("[the run](https://github.com/acme/config/actions/runs/4242)"),
        "{visible}"
    );

    // a second push: the same comment, updated
    let head = pr.push(|p| write(p, "envs/prod/web.yml", "replicas: 0\n"));
    let second = ci(&head);
    assert_eq!(second.code, 1, "{}\n{}", second.stdout, second.stderr);
    assert!(
        second
            .stdout
            .contains(&format!("updated the comment {}", ours.id)),
        "{}",
        second.stdout
    );
    let comments = gh.comments();
    assert_eq!(comments.len(), 5, "never a second comment");
    let body = comments.last().unwrap().body.replace('\u{2060}', "");
    assert!(
        body.contains("### ❌ yttcheck: this change fails the check"),
        "{body}"
    );
    assert!(body.contains("Findings this change brings (1)"), "{body}");
    assert!(body.contains("validation/"), "{body}");
    // the stranger's comment is not ours, and is left alone
    let theirs = comments.iter().find(|c| c.id == stranger).unwrap();
    assert_eq!(theirs.body, format!("{MARKER}\nnot yours"));

    // a push that undoes it all: the comment says there is nothing to
    // report, once
    let head = pr.push(|p| {
        write(p, "envs/prod/web.yml", "replicas: 3\n");
        write(p, "envs/dev/web.yml", "replicas: 1\n");
    });
    let third = ci(&head);
    assert_eq!(third.code, 0, "{}\n{}", third.stdout, third.stderr);
    let body = gh.comments().last().unwrap().body.clone();
    assert!(body.contains("nothing to report"), "{body}");
    let before = writes(&gh);
    let again = ci(&head);
    assert!(
        again.stdout.contains("already says this"),
        "{}",
        again.stdout
    );
    assert_eq!(writes(&gh), before, "an unchanged comment is not edited");
    assert_only_comment_calls(&gh);
}

#[test]
fn a_forks_pull_request_is_commented_by_a_workflow_run_job_from_the_file() {
    let gh = FakeGithub::start();
    let pr = Pr::new(two_libraries);
    let head = pr.push(|p| write(p, "envs/prod/api.yml", "port: 9999\n"));
    let files = tempfile::tempdir().unwrap();
    let file = files.path().join("comment.json");
    let file_arg = file.to_str().unwrap();
    // the pull_request job: a read-only token, so nothing is posted
    let check = in_step(
        &pr.repo,
        &gh.url,
        "pull_request",
        &pr.payload(&head, "mallory/config"),
        &["ci", "--comment", "--comment-file", file_arg],
        Some(TOKEN),
    );
    assert_eq!(check.code, 0, "{}\n{}", check.stdout, check.stderr);
    assert!(
        check
            .stdout
            .contains("the pull request comment is not posted: the pull request comes from a fork"),
        "{}",
        check.stdout
    );
    assert!(gh.requests().is_empty(), "{:?}", gh.requests());
    // the workflow_run job: no checkout, the file and the event only
    let run_event = serde_json::json!({
        "workflow_run": {
            "pull_requests": [],
            "html_url": "https://github.com/acme/config/actions/runs/77",
        },
    });
    let empty = tempfile::tempdir().unwrap();
    let post = in_step(
        empty.path(),
        &gh.url,
        "workflow_run",
        &run_event,
        &["comment", "--from", file_arg],
        Some(TOKEN),
    );
    assert_eq!(post.code, 0, "{}\n{}", post.stdout, post.stderr);
    assert!(
        post.stdout.contains("posted the comment"),
        "{}",
        post.stdout
    );
    let body = gh.comments()[0].body.replace('\u{2060}', "");
    assert!(
        body.contains("<code>api@prod</code>: 1 data value changes"),
        "{body}"
    );
    assert!(body.contains("actions/runs/77"), "{body}");
    // a file that names another pull request than the run's is refused
    let same_repo_event = serde_json::json!({
        "workflow_run": {"pull_requests": [{"number": 41}], "html_url": "https://github.com/acme/config/actions/runs/78"},
    });
    let refused = in_step(
        empty.path(),
        &gh.url,
        "workflow_run",
        &same_repo_event,
        &["comment", "--from", file_arg],
        Some(TOKEN),
    );
    assert_eq!(refused.code, 2, "{}", refused.stderr);
    assert!(
        refused.stderr.contains("is for pull request #42"),
        "{}",
        refused.stderr
    );
    assert_eq!(gh.comments().len(), 1);
    assert_only_comment_calls(&gh);
}

/// A comment file for `comment --from`.
fn comment_file(dir: &Path, json: serde_json::Value) -> PathBuf {
    let f = dir.join("comment.json");
    std::fs::write(&f, json.to_string()).unwrap();
    f
}

fn minimal(headline: &str) -> serde_json::Value {
    serde_json::json!({
        "yttcheck_comment": 1, "pull_request": 42, "head_sha": "", "failed": false,
        "headline": headline, "new_findings": [], "new_total": 0,
        "old_findings": [], "old_total": 0,
        "environments": [{"pair": "web@prod", "to_add": 1, "to_change": 0, "to_remove": 0, "values_changed": 0, "newly_failing": false}],
    })
}

#[test]
fn refusals_are_clear_errors_that_print_no_token() {
    let gh = FakeGithub::start();
    let dir = tempfile::tempdir().unwrap();
    let f = comment_file(dir.path(), minimal("a change"));
    let f = f.to_str().unwrap();
    let post = |token: Option<&str>| {
        in_step(
            dir.path(),
            &gh.url,
            "pull_request",
            &serde_json::json!({}),
            &["comment", "--from", f],
            token,
        )
    };
    // no token
    let r = post(None);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("GITHUB_TOKEN is not set"), "{}", r.stderr);
    // a read-only token (a fork's pull_request run)
    gh.state.lock().unwrap().read_only = true;
    let r = post(Some(TOKEN));
    assert_eq!(r.code, 2);
    assert!(
        r.stderr
            .contains("403 Resource not accessible by integration"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains("pull-requests: write") && r.stderr.contains("workflow_run"),
        "{}",
        r.stderr
    );
    // a body over the platform's limit
    {
        let mut s = gh.state.lock().unwrap();
        s.read_only = false;
        s.max_chars = 100;
    }
    let r = post(Some(TOKEN));
    assert_eq!(r.code, 2);
    assert!(
        r.stderr
            .contains("GitHub refused the comment (post a comment: 422"),
        "{}",
        r.stderr
    );
    // a wrong token
    let r = post(Some("ghs_WRONG"));
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("401 Bad credentials"), "{}", r.stderr);
    assert!(!r.stderr.contains("ghs_WRONG"), "{}", r.stderr);
    // a file that is not a comment file
    std::fs::write(dir.path().join("comment.json"), "{\"x\": 1}").unwrap();
    let r = post(Some(TOKEN));
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("is not a comment file"), "{}", r.stderr);
    assert!(gh.comments().is_empty());
}

/// What GitHub makes live after rendering, in text: a mention, an issue
/// reference, a commit id.
pub(super) fn live_references(body: &str) -> Vec<String> {
    let mention = regex::Regex::new(r"(?:^|[^\w`])@[A-Za-z0-9][A-Za-z0-9-]*").unwrap();
    let issue = regex::Regex::new(r"(?:^|[^&])#[0-9]+|\bGH-[0-9]+").unwrap();
    let sha = regex::Regex::new(r"\b[0-9a-fA-F]{7,40}\b").unwrap();
    // the backslash of an escape is gone once rendered
    let text = body.replace('\\', "");
    let mut found = Vec::new();
    for re in [&mention, &issue, &sha] {
        found.extend(re.find_iter(&text).map(|m| m.as_str().to_string()));
    }
    found
}

#[test]
fn a_forged_comment_file_pings_links_and_loads_nothing() {
    let hostile = "@admin @acme/owners #1 acme/config#2 GH-3 0123456789abcdef0123 ![x](https://evil.example/x.png) <img src=https://evil.example/y.png> [click](javascript:alert(1)) <script>alert(1)</script> :smile: www.evil.example https://evil.example </details></summary>\n## heading\n| a | b |";
    let file = serde_json::json!({
        "yttcheck_comment": 1, "pull_request": 42, "head_sha": hostile, "failed": true,
        "headline": hostile, "base": hostile, "head": hostile,
        "new_findings": [{"level": "error", "rule": hostile, "place": hostile, "pairs": hostile, "message": hostile}],
        "new_total": 1,
        "old_findings": [{"level": "note", "rule": hostile, "place": hostile, "pairs": hostile, "message": hostile}],
        "old_total": 1,
        "environments": [{"pair": hostile, "to_add": 1, "to_change": 1, "to_remove": 1, "values_changed": 1, "newly_failing": true,
            "notes": [hostile, hostile],
            "rows": [{"sign": "change", "what": hostile, "field": hostile, "before": hostile, "after": hostile}]}],
        "breaking": [hostile],
    });
    let dir = tempfile::tempdir().unwrap();
    let f = comment_file(dir.path(), file);
    let r = in_step(
        dir.path(),
        "http://127.0.0.1:9",
        "pull_request",
        &serde_json::json!({}),
        &["comment", "--from", f.to_str().unwrap(), "--print"],
        None,
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let body = r.stdout;
    assert!(body.starts_with(MARKER));
    assert!(
        live_references(&body).is_empty(),
        "{:?}\n{body}",
        live_references(&body)
    );
    let Some(dom) = super::hostile_pr::render_markdown(&body) else {
        return;
    };
    let html = dom["html"].as_str().unwrap();
    for tag in dom["tags"].as_array().unwrap() {
        assert!(
            [
                "h3", "h4", "p", "table", "thead", "tbody", "tr", "th", "td", "code", "details",
                "summary", "ul", "li", "sub", "a", "em", "strong", "br"
            ]
            .contains(&tag.as_str().unwrap()),
            "<{tag}> is not ours:\n{html}"
        );
    }
    // the one link is the run's, from the poster's environment
    assert_eq!(html.matches("<a ").count(), 1, "{html}");
    assert!(
        html.contains("<a href=\"https://github.com/acme/config/actions/runs/4242\">"),
        "{html}"
    );
    assert!(!html.contains("evil.example\""), "{html}");
    let headings: Vec<&str> = dom["headings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h.as_str().unwrap())
        .collect();
    assert!(
        headings.iter().all(|h| h.contains("yttcheck")
            || h.starts_with("Findings")
            || h.starts_with("What changes")
            || h.starts_with("Breaking")),
        "{headings:?}"
    );
}

/// Overlays every rendered object: a pull request that changes every
/// object of every environment.
const LABEL_ALL: &str = r#"#@ load("@ytt:overlay", "overlay")
#@overlay/match by=overlay.all, expects="0+"
---
#@overlay/match missing_ok=True
metadata:
  #@overlay/match missing_ok=True
  labels:
    #@overlay/match missing_ok=True
    reviewed-by: platform-team
"#;

#[test]
fn on_a_real_package_monorepo_the_comment_is_one_and_under_githubs_limit() {
    let Some(cases) = super::common::realworld_cases("the pull request comment") else {
        return;
    };
    let temp = tempfile::tempdir().unwrap();
    let subset = temp.path().join("cases");
    std::fs::create_dir_all(&subset).unwrap();
    let external_dns = "community-edition__addons-packages-external-dns-0.12.2-bundle-config";
    let pinniped = "community-edition__addons-packages-pinniped-0.22.0-bundle-config";
    for case in [external_dns, pinniped] {
        std::os::unix::fs::symlink(cases.join(case), subset.join(case)).unwrap();
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/realworld/monorepo.py");
    let repo = temp.path().join("mono");
    let Some(python) = super::common::python_with(&[]) else {
        return;
    };
    let built = Process::new(python)
        .arg(&script)
        .args([
            "--cases",
            subset.to_str().unwrap(),
            "--out",
            repo.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(
        built.status.success(),
        "{}",
        String::from_utf8_lossy(&built.stderr)
    );
    let pr = Pr {
        base: rev(&repo, "HEAD"),
        repo,
        _temp: temp,
    };
    git(&pr.repo, &["branch", "feature"]);
    let lib = |name: &str| format!("packages/{name}");
    let gh = FakeGithub::start();
    let ci = |head: &str| {
        let r = in_step(
            &pr.repo,
            &gh.url,
            "pull_request",
            &pr.payload(head, REPO),
            &["ci", "--comment"],
            Some(TOKEN),
        );
        assert!(
            r.stdout.contains("the comment"),
            "{}\n{}",
            r.stdout,
            r.stderr
        );
        r
    };
    // a values change in two environments and a template change in one
    // library
    let head = pr.push(|p| {
        for env in ["unit-namespace", "unit-minimal-configuration"] {
            let f = p.join(lib(external_dns)).join(format!("values/{env}.yaml"));
            let text = std::fs::read_to_string(&f).unwrap();
            // (a second source, as a new DNS provider would add)
            std::fs::write(&f, text.replace("- --source=ingress", &format!("- --source=ingress\n    - --source=service-{env}"))).unwrap();
        }
        write(
            &p.join(lib(pinniped)).join("config"),
            "zz-settings.yaml",
            "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: review-settings\n  namespace: pinniped-supervisor\ndata:\n  reviewed: \"yes\"\n",
        );
    });
    let first = ci(&head);
    assert!(
        first.stdout.contains("posted the comment"),
        "{}",
        first.stdout
    );
    let body = gh.comments()[0].body.replace('\u{2060}', "");
    assert!(body.contains("unit-namespace</code>: 0 to add, "), "{body}");
    assert!(
        body.contains("1 to add, 0 to change, 0 to remove"),
        "{body}"
    );
    let id = gh.comments()[0].id;
    // a second push: the same comment
    let head = pr.push(|p| {
        let f = p.join(lib(external_dns)).join("values/unit-namespace.yaml");
        let text = std::fs::read_to_string(&f).unwrap();
        std::fs::write(&f, text.replace("service-unit-namespace", "service-again")).unwrap();
    });
    let second = ci(&head);
    assert!(
        second.stdout.contains(&format!("updated the comment {id}")),
        "{}",
        second.stdout
    );
    assert_eq!(gh.comments().len(), 1);
    // every object of every environment changes: the comment folds, under
    // GitHub's limit, and says where the whole report is
    let head = pr.push(|p| {
        for name in [external_dns, pinniped] {
            write(
                &p.join(lib(name)).join("config"),
                "zz-label-all.yaml",
                LABEL_ALL,
            );
        }
    });
    let third = ci(&head);
    assert!(
        third.stdout.contains(&format!("updated the comment {id}")),
        "{}",
        third.stdout
    );
    let comments = gh.comments();
    assert_eq!(comments.len(), 1);
    let body = &comments[0].body;
    let chars = body.chars().count();
    eprintln!(
        "the comment of a pull request that changes every object: {chars} characters, {} bytes",
        body.len()
    );
    assert!(chars <= 65_536 && body.len() <= 60_000, "{chars}");
    assert!(body.contains("folded to fit a comment"), "{body}");
    assert!(body.contains("yttcheck-report artifact"), "{body}");
    let visible = body.replace('\u{2060}', "");
    assert!(
        visible.contains("What changes, per environment (37)"),
        "{visible}"
    );
    assert_only_comment_calls(&gh);
}

/// `yttcheck ci ARGS` in a GitLab CI merge request job of `pr` at `head`.
fn in_gitlab_job(pr: &Pr, head: &str, api: &str, args: &[&str]) -> Run {
    let reports = tempfile::tempdir().unwrap();
    let mut cmd = Process::new(env!("CARGO_BIN_EXE_yttcheck"));
    for (k, _) in std::env::vars() {
        if k.starts_with("GITHUB_")
            || k.starts_with("RUNNER_")
            || k.starts_with("CI_")
            || k.starts_with("GITLAB_")
            || k.to_ascii_lowercase().ends_with("_proxy")
        {
            cmd.env_remove(k);
        }
    }
    let out = cmd
        .current_dir(&pr.repo)
        .args(args)
        .arg("--report-dir")
        .arg(reports.path())
        .env("GITLAB_CI", "true")
        .env("CI", "true")
        .env("CI_PROJECT_DIR", &pr.repo)
        .env("CI_PIPELINE_SOURCE", "merge_request_event")
        .env("CI_MERGE_REQUEST_IID", "9")
        .env("CI_MERGE_REQUEST_DIFF_BASE_SHA", &pr.base)
        .env("CI_MERGE_REQUEST_TARGET_BRANCH_NAME", "main")
        .env("CI_COMMIT_SHA", head)
        .env("CI_API_V4_URL", api)
        .env("CI_PROJECT_ID", super::fake_github::GITLAB_PROJECT)
        .env(
            "CI_PIPELINE_URL",
            "https://gitlab.example.com/acme/config/-/pipelines/5",
        )
        .env("GITLAB_TOKEN", TOKEN)
        .output()
        .unwrap();
    let run = Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into(),
        stderr: String::from_utf8_lossy(&out.stderr).into(),
    };
    assert!(!run.stdout.contains(TOKEN) && !run.stderr.contains(TOKEN));
    for report in [
        "gl-code-quality-report.json",
        "junit.xml",
        "comment.md",
        "findings.json",
    ] {
        assert!(
            reports.path().join(report).is_file(),
            "{report}: {}",
            run.stderr
        );
    }
    run
}

#[test]
fn a_gitlab_merge_request_gets_one_note_updated_in_place() {
    let gl = FakeGithub::start_gitlab();
    gl.add("looks fine", "someone", "");
    let theirs = gl.add(&format!("{MARKER}\nmine"), "someone", "");
    let pr = Pr::new(two_libraries);
    let head = pr.push(|p| write(p, "envs/prod/web.yml", "replicas: 5\n"));
    let first = in_gitlab_job(&pr, &head, &gl.url, &["ci", "--comment"]);
    assert_eq!(first.code, 0, "{}\n{}", first.stdout, first.stderr);
    assert!(
        first.stdout.contains("posted the comment"),
        "{}\n{}",
        first.stdout,
        first.stderr
    );
    // GitLab's log runs no commands: none is written
    assert!(
        first
            .stdout
            .lines()
            .all(|l| !l.trim_start().starts_with("::")),
        "{}",
        first.stdout
    );
    let notes = gl.comments();
    assert_eq!(notes.len(), 3);
    let ours = notes.last().unwrap().clone();
    let body = ours.body.replace('\u{2060}', "");
    assert!(body.starts_with(MARKER), "{body}");
    assert!(body.contains("merge request !9"), "{body}");
    assert!(
        body.contains("[the run](https://gitlab.example.com/acme/config/-/pipelines/5)"),
        "{body}"
    );
    let head = pr.push(|p| write(p, "envs/prod/web.yml", "replicas: 6\n"));
    let second = in_gitlab_job(&pr, &head, &gl.url, &["ci", "--comment"]);
    assert!(
        second
            .stdout
            .contains(&format!("updated the comment {}", ours.id)),
        "{}\n{}",
        second.stdout,
        second.stderr
    );
    let notes = gl.comments();
    assert_eq!(notes.len(), 3);
    assert_eq!(
        notes.iter().find(|n| n.id == theirs).unwrap().body,
        format!("{MARKER}\nmine")
    );
    assert!(notes.last().unwrap().body.contains("<code>6</code>"));
    // only the note calls, each with the token
    for r in gl.requests() {
        let path = r.target.split('?').next().unwrap();
        assert!(
            path == "/api/v4/user"
                || path.starts_with("/api/v4/projects/123/merge_requests/9/notes"),
            "{r:?}"
        );
        assert!(["GET", "POST", "PUT"].contains(&r.method.as_str()), "{r:?}");
        assert_eq!(
            r.authorization.as_deref(),
            Some(&*format!("PRIVATE-TOKEN {TOKEN}"))
        );
    }
}
