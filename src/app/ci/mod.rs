//! `yttcheck ci`: one step of a GitHub Actions workflow, decided here and
//! carried out by the face.
//!
//! From the event that started the run ([`event`]):
//!
//! * a pull request (or merge queue entry) checks the pairs it affects (those
//!   reading a file changed since the merge base of its base and the checked
//!   out commit), tells the findings it brings from those that stood on its
//!   base, and diffs their final data values and schemas against base;
//! * anything else (push, schedule, manual run) checks every pair, or one
//!   `--shard` of them.
//!
//! The answer is what the step must do, in order ([`CiStep`]): the log
//! (the text report folded and guarded, then the annotations), the report
//! files (SARIF, JSON, the diff, the whole summary), the job summary fitted
//! under GitHub's 1 MiB, and the step's outputs.

pub mod comment;
pub mod event;

use std::path::{Path, PathBuf};

use crate::app::check::Checked;
use crate::app::diff::DiffRequest;
use crate::app::{self, CheckRequest, UsageError, Warm};
use crate::check::CheckResult;
use crate::diff::DiffReport;
use crate::escape::workflow::command;
use crate::report::{render, Counts, Format, ReportInput};
use crate::source::git::Git;

pub use event::{Change, Event, Platform};

/// A `ci` step, as the face read it from its flags and the runner.
#[derive(Debug, Clone)]
pub struct CiRequest {
    /// The check (its selection's root is the repository; on a change, its
    /// `changed_since` is the base unless `all`).
    pub check: CheckRequest,
    pub event: Event,
    /// Where the untruncated reports go (the face has made it).
    pub report_dir: PathBuf,
    pub sarif_path: PathBuf,
    /// `GITHUB_STEP_SUMMARY` (none: no job summary).
    pub summary_file: Option<PathBuf>,
    /// `GITHUB_OUTPUT`.
    pub output_file: Option<PathBuf>,
    /// `--all`: every pair of a change, not only those it affects.
    pub all: bool,
    pub no_diff: bool,
    pub no_annotations: bool,
    pub fail_on_existing: bool,
    pub fail_on_breaking: bool,
    /// `--secret`: more words that mark a key as secret in the diff.
    pub secrets: Vec<String>,
    /// The process runs in a GitHub Actions step (`GITHUB_ACTIONS=true`):
    /// message lines are neutralized there.
    pub in_runner: bool,
    /// A random token for `::stop-commands::` around the text report.
    pub stop_token: String,
    /// GitHub Actions or GitLab CI.
    pub platform: Platform,
    /// `--comment`: post (or update) the pull request's comment.
    pub comment: bool,
    /// `--comment-file`: write the comment's content for a later job.
    pub comment_file: Option<PathBuf>,
    /// The run's page (the runner's `GITHUB_SERVER_URL`...), for the
    /// comment's footer.
    pub run_url: Option<String>,
}

/// One thing the step must do, in order.
#[derive(Debug)]
pub enum CiStep {
    /// Print to stdout as it is (its lines are safe for the runner).
    Log(String),
    /// A warning for stderr.
    Warn(String),
    /// Write a report file.
    Write(PathBuf, String),
    /// Append to a file the runner gave the step (`what` names it).
    Append {
        file: PathBuf,
        text: String,
        what: &'static str,
    },
    /// Post the pull request comment (or update the one posted before);
    /// `quiet`: it has nothing to report (no new comment for it).
    Post {
        platform: Platform,
        number: u64,
        body: String,
        quiet: bool,
    },
    /// Stop here: the step fails with this error (exit 2).
    Fail(UsageError),
}

/// What the step does, and its exit code once it has.
#[derive(Debug)]
pub struct CiAnswer {
    pub steps: Vec<CiStep>,
    pub exit: i32,
}

/// A message line for the log: in a runner, no workflow command in it.
fn message(req: &CiRequest, text: &str) -> String {
    if req.in_runner {
        crate::escape::workflow::neutralize_lines(text)
    } else {
        crate::escape::control_lines(text).into_owned()
    }
}

/// Checks what the event calls for and answers what the step must do.
pub fn run(req: &CiRequest, warm: &Warm) -> Result<CiAnswer, UsageError> {
    let mut warnings = Vec::new();
    // a change is judged on what it brings: the findings of its libraries
    // at its base, to tell those apart
    let base = match &req.event {
        Event::Change(c) => match app::verdict::base_findings(&req.check, &c.base_sha, warm) {
            Ok(b) => Some(b),
            Err(UsageError(m)) => {
                warnings.push(CiStep::Warn(format!(
                    "yttcheck: warning: the base {} could not be checked ({m}): every finding counts as this change's\n",
                    short(&c.base_sha)
                )));
                None
            }
        },
        Event::Full { .. } => None,
    };
    let mut answer = app::check::run(&req.check, warm, |checked| {
        present(req, checked, base.as_ref())
    })?;
    warnings.append(&mut answer.steps);
    answer.steps = warnings;
    Ok(answer)
}

/// A commit id as GitHub shows it (seven hex digits).
fn short(sha: &str) -> &str {
    &sha[..sha.len().min(7)]
}

/// A pull request's history must be there: the clear error GitHub's default
/// `fetch-depth: 1` deserves, before anything else runs.
pub fn require_history(root: &Path, change: &Change, platform: Platform) -> Result<(), UsageError> {
    let git = Git::discover(root).map_err(|e| UsageError(e.0))?;
    let fix = match platform {
        Platform::Github => "set `fetch-depth: 0` on actions/checkout (yttcheck compares the pull request with the merge base of its base branch)",
        Platform::Gitlab => "set the job's `GIT_DEPTH: \"0\"` (yttcheck compares the merge request with its diff base)",
    };
    if git.is_shallow() {
        return Err(UsageError(format!(
            "the checkout is shallow, so the base of {} is not there: {fix}",
            describe_change(change)
        )));
    }
    git.commit(&change.base_sha).map_err(|_| {
        UsageError(format!(
            "the base commit {} of {} is not in the clone: {fix}",
            short(&change.base_sha),
            describe_change(change)
        ))
    })?;
    Ok(())
}

/// A notice for the log: a workflow command on GitHub, a line on GitLab.
fn notice(req: &CiRequest, text: &str) -> String {
    match req.platform {
        Platform::Github => command("notice", &[("title", "yttcheck")], text),
        Platform::Gitlab => message(req, &format!("yttcheck: notice: {text}\n")),
    }
}

fn describe_change(c: &Change) -> String {
    match c.number {
        Some(n) if c.event == "merge_request_event" => format!("merge request !{n}"),
        Some(n) => format!("pull request #{n}"),
        None => format!("this {}", c.event),
    }
}

/// The log, the annotations, the report files, the diff, the job summary
/// and the step's outputs of a finished check; returns the exit code.
fn present(
    req: &CiRequest,
    checked: &Checked,
    base: Option<&app::verdict::BaseFindings>,
) -> CiAnswer {
    let mut steps = Vec::new();
    let change = match &req.event {
        Event::Change(c) => Some(c),
        Event::Full { .. } => None,
    };
    let (report_dir, sarif_path) = (req.report_dir.as_path(), req.sarif_path.as_path());
    let result = checked.result;
    let file_of = |path: &str| checked.file_of(path);
    let input = checked.report_input(false, &file_of);
    let nothing_to_check = checked.nothing_to_check();
    // a change's findings: those it brings, and those on its base already
    let is_new = base.map(|b| app::verdict::new_findings(checked, b));
    let new_result = is_new.as_ref().map(|n| result.with_findings(|i| n[i]));
    let old_result = is_new.as_ref().map(|n| result.with_findings(|i| !n[i]));
    let new_input = new_result.as_ref().map(|r| ReportInput {
        result: r,
        ..checked.report_input(false, &file_of)
    });
    let old_input = old_result.as_ref().map(|r| ReportInput {
        result: r,
        ..checked.report_input(false, &file_of)
    });
    let fail_on_existing = req.fail_on_existing || checked.plan.fail_on_existing;

    let diff = match change {
        // (also when no pair at head reads a changed file: a change that
        // deletes an environment removes pairs, and says so)
        Some(c) if !req.no_diff => match diff(req, c) {
            Ok(d) => Some(d),
            Err(e) => {
                steps.push(CiStep::Fail(e));
                return CiAnswer { steps, exit: 2 };
            }
        },
        _ => None,
    };
    // the log: the full text report, folded and guarded (no line of it is
    // a workflow command); then the annotations, the only commands
    let mut headline = headline(req, result, nothing_to_check);
    if let (Some(new), Some(old)) = (&new_result, &old_result) {
        if !nothing_to_check && !result.findings.is_empty() {
            let (brought, stood) = (Counts::of(&new.findings), Counts::of(&old.findings));
            headline.push_str(&if old.findings.is_empty() {
                "; all of them this change's".to_string()
            } else if new.findings.is_empty() {
                format!(
                    "; none of them this change's ({} stood on its base already)",
                    stood.describe()
                )
            } else {
                format!(
                    "; this change brings {}, {} stood on its base already",
                    brought.describe(),
                    stood.describe()
                )
            });
        }
    }
    // what the change silences itself is said where its verdict is
    if let Some(b) = base {
        if let Some(said) = silenced_note(&app::verdict::silenced_by_change(checked, b)) {
            headline.push_str(&format!("; {said}"));
        }
    }
    // nothing to check and nothing removed: one line says it all
    let diff = diff.filter(|d| !nothing_to_check || d.changed_pairs() > 0);
    if let Some(removed) = diff.as_ref().and_then(removed_pairs) {
        headline.push_str(&format!("; it removes {removed}"));
    }
    let mut log = message(req, &format!("yttcheck: {headline}\n"));
    if !nothing_to_check && req.platform == Platform::Gitlab {
        // GitLab's log runs no commands: the report as it is, escaped
        log.push_str(&message(req, &render(Format::Text, &input)));
        steps.push(CiStep::Write(
            report_dir.join("gl-code-quality-report.json"),
            render(Format::Gitlab, &input),
        ));
        steps.push(CiStep::Write(
            report_dir.join("junit.xml"),
            render(Format::Junit, &input),
        ));
    } else if !nothing_to_check {
        log.push_str(&command("group", &[], "yttcheck report"));
        log.push_str(&crate::escape::workflow::guard(
            &render(Format::Text, &input),
            &req.stop_token,
        ));
        log.push_str(&command("endgroup", &[], ""));
        if !req.no_annotations {
            // what the change brings (everything, when it fails on all)
            let annotated = match &new_input {
                Some(new) if !fail_on_existing => new,
                _ => &input,
            };
            log.push_str(&render(Format::Github, annotated));
        }
    }
    if let Some(c) = change.filter(|c| !c.token_can_upload) {
        log.push_str(&notice(
            req,
            &format!(
                "the SARIF file is not uploaded to code scanning: {}; the findings are in the annotations and the job summary",
                c.read_only_because.as_deref().unwrap_or("the token is read-only")
            ),
        ));
    }
    steps.push(CiStep::Log(log));
    steps.push(CiStep::Write(
        sarif_path.to_path_buf(),
        render(Format::Sarif, &input),
    ));
    steps.push(CiStep::Write(
        report_dir.join("findings.json"),
        render(Format::Json, &input),
    ));

    if let Some(d) = &diff {
        steps.push(CiStep::Write(
            report_dir.join("diff.json"),
            crate::diff::render::json(d),
        ));
    }

    // the summary: whole in the report folder, fitted in the job summary
    let sections = match (&new_input, &old_input) {
        (Some(new), Some(old)) => crate::report::summary::verdict_sections(
            &headline,
            new,
            old,
            diff.as_ref().map(crate::diff::render::markdown),
            nothing_to_check,
        ),
        _ => crate::report::summary::sections(
            &headline,
            &input,
            diff.as_ref().map(crate::diff::render::markdown),
            nothing_to_check,
        ),
    };
    // (the folder's bound: the diff holds at most 16 MiB, and the summary
    // that carries it is cut at 16 MiB too)
    steps.push(CiStep::Write(
        report_dir.join("summary.md"),
        crate::report::summary::fit(
            &sections,
            crate::diff::bound::REPORT_BUDGET,
            "truncated: the summary is over 16 MiB; findings.json, diff.json and yttcheck.sarif hold the rest",
        ),
    ));
    if let Some(file) = &req.summary_file {
        let fitted = crate::report::summary::fit(
            &sections,
            crate::report::summary::GITHUB_SUMMARY_LIMIT,
            "truncated: the summary is over GitHub's 1 MiB; the whole report is in the `yttcheck` artifact (summary.md, findings.json, yttcheck.sarif)",
        );
        steps.push(CiStep::Append {
            file: file.clone(),
            text: fitted,
            what: "GITHUB_STEP_SUMMARY",
        });
    }

    let failed = match &new_input {
        Some(new) if !fail_on_existing => new.failed(),
        _ => input.failed(),
    };
    if let Some(c) = change.filter(|_| req.comment || req.comment_file.is_some()) {
        let content = comment::content(&comment::CommentParts {
            change: c,
            headline: &headline,
            failed,
            new: new_input.as_ref().unwrap_or(&input),
            old: old_input.as_ref(),
            diff: diff.as_ref(),
            base_name: base_name(c),
            head_name: head_name(c),
        });
        steps.extend(comment_steps(req, c, &content));
    }
    let counts = Counts::of(&result.findings);
    let breaking = diff.as_ref().map_or(0, DiffReport::breaking);
    if let Some(file) = &req.output_file {
        let outputs: [(&str, String); 13] = [
            ("errors", counts.errors.to_string()),
            ("warnings", counts.warnings.to_string()),
            ("notes", counts.notes.to_string()),
            ("findings", result.findings.len().to_string()),
            ("pairs-checked", result.pairs.len().to_string()),
            ("sarif-file", sarif_path.display().to_string()),
            (
                "sarif-upload",
                change.is_none_or(|c| c.token_can_upload).to_string(),
            ),
            ("report-dir", report_dir.display().to_string()),
            (
                "values-changed",
                diff.as_ref()
                    .is_some_and(|d| d.changed_pairs() > 0)
                    .to_string(),
            ),
            (
                "changed-pairs",
                diff.as_ref()
                    .map_or(0, DiffReport::changed_pairs)
                    .to_string(),
            ),
            ("breaking-changes", breaking.to_string()),
            (
                "new-findings",
                new_result
                    .as_ref()
                    .map_or(result.findings.len(), |r| r.findings.len())
                    .to_string(),
            ),
            ("failed", failed.to_string()),
        ];
        // a value on one line each (a multi-line one would need a heredoc
        // delimiter; none of ours has one)
        let text: String = outputs
            .iter()
            .map(|(k, v)| format!("{k}={}\n", v.replace(['\n', '\r'], " ")))
            .collect();
        steps.push(CiStep::Append {
            file: file.clone(),
            text,
            what: "GITHUB_OUTPUT",
        });
    }

    let exit = match checked.exit_code() {
        2 => 2,
        _ => i32::from(failed || (req.fail_on_breaking && breaking > 0)),
    };
    CiAnswer { steps, exit }
}

/// The diff of a change's pairs, base against the checked-out tree.
fn diff(req: &CiRequest, c: &Change) -> Result<DiffReport, UsageError> {
    let mut report = app::diff::compute(&DiffRequest {
        root: req.check.selection.root.clone(),
        base: c.base_sha.clone(),
        head: None,
        staged: false,
        libraries: req.check.selection.libraries.clone(),
        environments: req.check.selection.environments.clone(),
        all: req.all,
        secrets: req.secrets.clone(),
        budget: req.check.budget,
        no_render: !req.check.render,
    })?;
    // names a reviewer knows, not "work tree"
    report.base = base_name(c);
    report.head = head_name(c);
    Ok(report)
}

/// `main (abc1234)`.
fn base_name(c: &Change) -> String {
    format!("{} ({})", c.base_ref, short(&c.base_sha))
}

/// `pull request #12 (def5678)`.
fn head_name(c: &Change) -> String {
    format!("{} ({})", describe_change(c), short(&c.head_sha))
}

/// Where the comment's content goes: the file a later job posts, the
/// report folder (`comment.md`, as posted), and the pull request, when
/// the token may write there.
fn comment_steps(
    req: &CiRequest,
    c: &Change,
    content: &crate::report::comment::Comment,
) -> Vec<CiStep> {
    let body = app::comment::body(
        content,
        &crate::report::comment::Footer {
            run_url: req.run_url.as_deref(),
            artifact: app::comment::artifact(req.platform),
        },
    );
    let mut steps = vec![CiStep::Write(
        req.report_dir.join("comment.md"),
        body.clone(),
    )];
    if let Some(file) = &req.comment_file {
        let json = serde_json::to_string_pretty(content).unwrap_or_default();
        steps.push(CiStep::Write(file.clone(), json + "\n"));
    }
    if !req.comment {
        return steps;
    }
    let not_posted = |why: &str| {
        CiStep::Log(notice(
            req,
            &format!("the pull request comment is not posted: {why}"),
        ))
    };
    match c.number {
        None => steps.push(not_posted(&format!("a {} has no pull request", c.event))),
        Some(_) if !c.token_can_upload => steps.push(not_posted(&format!(
            "{}; write it with --comment-file and post it from a workflow_run job (docs/ci.md, \"The pull request comment\")",
            c.read_only_because.as_deref().unwrap_or("the token is read-only")
        ))),
        Some(number) => steps.push(CiStep::Post {
            platform: req.platform,
            number,
            body,
            quiet: content.is_quiet(),
        }),
    }
    steps
}

/// `2 findings silenced by this change (inline ignore envs/prod.yml:1,
/// the baseline)`, or nothing.
fn silenced_note(by: &[String]) -> Option<String> {
    if by.is_empty() {
        return None;
    }
    let mut reasons: Vec<&str> = by.iter().map(String::as_str).collect();
    reasons.sort_unstable();
    reasons.dedup();
    let shown = 3;
    Some(format!(
        "{} finding{} silenced by this change ({}{})",
        by.len(),
        if by.len() == 1 { "" } else { "s" },
        crate::escape::control(&reasons[..reasons.len().min(shown)].join(", ")),
        if reasons.len() > shown { ", ..." } else { "" }
    ))
}

/// The pairs a change removes (an environment deleted, an install moved
/// to overlays), named: part of what it does, though nothing is left of
/// them to check.
fn removed_pairs(d: &DiffReport) -> Option<String> {
    let removed: Vec<&str> = d
        .pairs
        .iter()
        .filter(|p| p.status == crate::diff::PairStatus::Removed)
        .map(|p| p.name.as_str())
        .collect();
    let shown = 5;
    match removed.len() {
        0 => None,
        n => Some(format!(
            "{n} pair{} ({}{})",
            if n == 1 { "" } else { "s" },
            crate::escape::control(&removed[..n.min(shown)].join(", ")),
            if n > shown { ", ..." } else { "" }
        )),
    }
}

/// One line: what was checked, and how it went.
fn headline(req: &CiRequest, result: &CheckResult, nothing: bool) -> String {
    let event = &req.event;
    let n = result.pairs.len();
    let pairs = format!("{n} pair{}", if n == 1 { "" } else { "s" });
    let counts = Counts::of(&result.findings).describe();
    match event {
        Event::Change(c) if nothing => format!(
            "{} changes no file a library x environment pair reads: nothing to check",
            describe_change(c)
        ),
        Event::Change(c) => format!(
            "{counts} in the {pairs} {} {} (base {})",
            describe_change(c),
            if req.all { "checks" } else { "affects" },
            short(&c.base_sha)
        ),
        Event::Full { name } => format!(
            "{counts} in {pairs}{} ({name})",
            req.check
                .selection
                .shard
                .as_deref()
                .map(|s| format!(", shard {s}"))
                .unwrap_or_default()
        ),
    }
}
