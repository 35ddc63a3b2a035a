//! `yttcheck ci`: one step of a GitHub Actions workflow.
//!
//! The CI logic lives in the binary, not in the action's shell, so it is
//! tested like the rest. From the event that started the run:
//!
//! * a pull request (or merge queue entry) checks the pairs it affects (those
//!   reading a file changed since the merge base of its base and the checked
//!   out commit) and diffs their final data values and schemas against base;
//! * anything else (push, schedule, manual run) checks every pair, or one
//!   `--shard` of them.
//!
//! It then writes what a workflow needs: annotations on stdout (worst first,
//! within GitHub's per-step limits), a SARIF file for code scanning, the step
//! outputs, and a job summary under GitHub's 1 MiB; the untruncated reports
//! go to a folder for an artifact.

pub mod github;

use std::path::{Path, PathBuf};

use clap::Args;

use crate::app::check::Checked;
use crate::app::diff::DiffRequest;
use crate::app::{self, CheckRequest, Selection, UsageError, Warm};
use crate::check::CheckResult;
use crate::diff::DiffReport;
use crate::report::{render, Counts, Format, ReportInput};
use crate::source::git::Git;

use super::args::BudgetArgs;
use super::out;
use github::{Change, Event, Github};

#[derive(Args, Debug)]
pub struct CiArgs {
    /// Check data values only: do not render each pair's templates
    #[arg(long = "no-render")]
    pub no_render: bool,

    /// Only pairs that read one of these files or folders
    #[arg(value_name = "PATH")]
    pub paths: Vec<String>,

    /// Only these libraries (repeatable)
    #[arg(long = "library", value_name = "NAME")]
    pub libraries: Vec<String>,

    /// Only these environments (repeatable)
    #[arg(long = "env", value_name = "NAME")]
    pub environments: Vec<String>,

    /// Run shard I of N (1-based; for a matrix of nightly jobs)
    #[arg(long, value_name = "I/N")]
    pub shard: Option<String>,

    /// The repository (default: GITHUB_WORKSPACE, else the current directory)
    #[arg(short = 'C', long = "root", value_name = "DIR")]
    pub root: Option<PathBuf>,

    /// On a pull request, check every pair, not only those it affects
    #[arg(long)]
    pub all: bool,

    /// Where to write the SARIF file (default: REPORT_DIR/yttcheck.sarif)
    #[arg(long, value_name = "FILE")]
    pub sarif: Option<PathBuf>,

    /// Where to write the untruncated reports (default: $RUNNER_TEMP/yttcheck)
    #[arg(long = "report-dir", value_name = "DIR")]
    pub report_dir: Option<PathBuf>,

    /// No data values diff on pull requests
    #[arg(long = "no-diff")]
    pub no_diff: bool,

    /// No job summary
    #[arg(long = "no-summary")]
    pub no_summary: bool,

    /// No annotations
    #[arg(long = "no-annotations")]
    pub no_annotations: bool,

    /// Lowest severity that fails the step (exit 1): error, warning, note
    #[arg(long = "fail-on", value_name = "SEVERITY")]
    pub fail_on: Option<String>,

    /// Also fail the step when a pull request changes a schema in a breaking way
    #[arg(long = "fail-on-breaking")]
    pub fail_on_breaking: bool,

    /// On a pull request, also fail on findings that stood on its base (by
    /// default it fails on the findings it brings; .yttcheck.yml:
    /// `fail_on_existing: true`)
    #[arg(long = "fail-on-existing")]
    pub fail_on_existing: bool,

    /// More words that mark a key as secret in the diff (never shown)
    #[arg(long = "secret", value_name = "WORD")]
    pub secrets: Vec<String>,

    /// Fail only on findings not in this baseline file
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,

    /// Worker threads (default: one per core)
    #[arg(long, short = 'j', value_name = "N", default_value_t = 0, value_parser = crate::cli::args::parse_jobs)]
    pub jobs: usize,

    /// Keep each pair's result in DIR between runs (restore it with
    /// actions/cache; keep it outside the checkout, in `$RUNNER_TEMP`)
    #[arg(long = "cache-dir", value_name = "DIR")]
    pub cache_dir: Option<PathBuf>,

    #[command(flatten)]
    pub budget: BudgetArgs,

    #[command(flatten)]
    pub kubernetes: crate::cli::args::KubernetesArgs,
}

pub fn run(args: &CiArgs) -> i32 {
    match run_inner(args) {
        Ok(code) => code,
        Err(UsageError(m)) => {
            // an error annotation too: a failed step's log is not where
            // people look first
            out::data(&out::command("error", &[("title", "yttcheck")], &m));
            errln!("yttcheck: error: {m}");
            2
        }
    }
}

/// A pull request's history must be there: the clear error GitHub's default
/// `fetch-depth: 1` deserves, before anything else runs.
/// A commit id as GitHub shows it (seven hex digits).
fn short(sha: &str) -> &str {
    &sha[..sha.len().min(7)]
}

fn require_history(root: &Path, change: &Change) -> Result<(), UsageError> {
    let git = Git::discover(root).map_err(|e| UsageError(e.0))?;
    let fix = "set `fetch-depth: 0` on actions/checkout (yttcheck compares the pull request with the merge base of its base branch)";
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

fn describe_change(c: &Change) -> String {
    match c.number {
        Some(n) => format!("pull request #{n}"),
        None => format!("this {}", c.event),
    }
}

fn run_inner(args: &CiArgs) -> Result<i32, UsageError> {
    let gh = Github::from_env()?;
    let root = match args.root.clone().or_else(|| gh.workspace.clone()) {
        Some(r) => r,
        None => std::env::current_dir().map_err(|e| UsageError(e.to_string()))?,
    };
    let change = match &gh.event {
        Event::Change(c) => Some(c),
        Event::Full { .. } => None,
    };
    if let Some(c) = change {
        require_history(&root, c)?;
    }
    let report_dir = args
        .report_dir
        .clone()
        .or_else(|| gh.runner_temp.as_ref().map(|t| t.join("yttcheck")))
        .unwrap_or_else(|| PathBuf::from("yttcheck-report"));
    std::fs::create_dir_all(&report_dir)
        .map_err(|e| UsageError(format!("cannot create {}: {e}", report_dir.display())))?;
    let sarif_path = args
        .sarif
        .clone()
        .unwrap_or_else(|| report_dir.join("yttcheck.sarif"));

    let request = CheckRequest {
        cwd: super::args::current_dir()?,
        selection: Selection {
            paths: args.paths.clone(),
            libraries: args.libraries.clone(),
            environments: args.environments.clone(),
            shard: args.shard.clone(),
            root: root.clone(),
            staged: false,
            rev: None,
            changed_since: change.filter(|_| !args.all).map(|c| c.base_sha.clone()),
        },
        // the reports are made below, as GitHub wants them
        outputs: Vec::new(),
        fail_on: super::check::parse_fail_on(args.fail_on.as_deref())?,
        jobs: args.jobs,
        skip_validation: false,
        render: !args.no_render,
        color: false,
        progress: false,
        baseline: args.baseline.clone(),
        update_baseline: false,
        budget: args.budget.budget(),
        kubernetes: args.kubernetes.request(),
    };
    let mut request = request;
    let store = match &args.cache_dir {
        Some(dir) => match crate::disk::store::open(&request.cwd.join(dir), &root) {
            Ok(store) => {
                request.kubernetes.schema_cache = Some(
                    request
                        .cwd
                        .join(dir)
                        .join(crate::app::kubernetes::SCHEMA_CACHE),
                );
                Some(store)
            }
            Err(why) => {
                errln!("yttcheck: warning: not using the cache: {why}");
                None
            }
        },
        None => None,
    };
    let warm = Warm {
        outcomes: store
            .clone()
            .map(|s| s as std::sync::Arc<dyn crate::check::memo::OutcomeStore>),
        schema_fetch: Some(&crate::fetch::schemas::fetcher),
        ..Warm::none()
    };
    // a change is judged on what it brings: the findings of its libraries
    // at its base, to tell those apart
    let base = match change {
        Some(c) => match app::verdict::base_fingerprints(&request, &c.base_sha, &warm) {
            Ok(b) => Some(b),
            Err(UsageError(m)) => {
                out::err(&out::message(&format!(
                    "yttcheck: warning: the base {} could not be checked ({m}): every finding counts as this change's\n",
                    short(&c.base_sha)
                )));
                None
            }
        },
        None => None,
    };
    let code = app::check::run(&request, &warm, |checked| {
        let out = Outputs {
            report_dir: &report_dir,
            sarif_path: &sarif_path,
        };
        present(args, &gh, &root, change, checked, &out, base.as_ref())
    })?;
    if let Some(s) = store {
        s.finish();
    }
    code
}

/// Where `ci` writes its reports.
struct Outputs<'a> {
    report_dir: &'a Path,
    sarif_path: &'a Path,
}

/// The log, the annotations, the report files, the diff, the job summary
/// and the step's outputs of a finished check; returns the exit code.
#[allow(clippy::too_many_arguments)] // the check, where it goes, and its base
fn present(
    args: &CiArgs,
    gh: &Github,
    root: &Path,
    change: Option<&Change>,
    checked: &Checked,
    out_files: &Outputs,
    base: Option<&std::collections::HashSet<String>>,
) -> Result<i32, UsageError> {
    let (report_dir, sarif_path) = (out_files.report_dir, out_files.sarif_path);
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
    let fail_on_existing = args.fail_on_existing || checked.plan.fail_on_existing;

    // the log: the full text report, folded and guarded (no line of it is
    // a workflow command); then the annotations, the only commands
    let mut headline = headline(&gh.event, result, args, nothing_to_check);
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
    let mut log = out::message(&format!("yttcheck: {headline}\n"));
    if !nothing_to_check {
        log.push_str(&out::command("group", &[], "yttcheck report"));
        log.push_str(&crate::escape::workflow::guard(
            &render(Format::Text, &input),
            &out::stop_token(),
        ));
        log.push_str(&out::command("endgroup", &[], ""));
        if !args.no_annotations {
            // what the change brings (everything, when it fails on all)
            let annotated = match &new_input {
                Some(new) if !fail_on_existing => new,
                _ => &input,
            };
            log.push_str(&render(Format::Github, annotated));
        }
    }
    if let Some(c) = change.filter(|c| !c.token_can_upload) {
        log.push_str(&out::command(
            "notice",
            &[("title", "yttcheck")],
            &format!(
                "the SARIF file is not uploaded to code scanning: {}; the findings are in the annotations and the job summary",
                c.read_only_because.as_deref().unwrap_or("the token is read-only")
            ),
        ));
    }
    out::data(&log);

    write_file(sarif_path, &render(Format::Sarif, &input))?;
    write_file(
        &report_dir.join("findings.json"),
        &render(Format::Json, &input),
    )?;

    let diff = match change {
        Some(c) if !args.no_diff && !nothing_to_check => Some(diff(args, root, c)?),
        _ => None,
    };
    if let Some(d) = &diff {
        write_file(&report_dir.join("diff.json"), &crate::diff::render::json(d))?;
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
    write_file(&report_dir.join("summary.md"), &sections.concat())?;
    if let (Some(file), false) = (&gh.summary_file, args.no_summary) {
        let fitted = crate::report::summary::fit(
            &sections,
            crate::report::summary::GITHUB_SUMMARY_LIMIT,
            "truncated: the summary is over GitHub's 1 MiB; the whole report is in the `yttcheck` artifact (summary.md, findings.json, yttcheck.sarif)",
        );
        github::append(file, &fitted, "GITHUB_STEP_SUMMARY")?;
    }

    let counts = Counts::of(&result.findings);
    let failed = match &new_input {
        Some(new) if !fail_on_existing => new.failed(),
        _ => input.failed(),
    };
    let breaking = diff.as_ref().map_or(0, DiffReport::breaking);
    if let Some(file) = &gh.output_file {
        github::write_outputs(
            file,
            &[
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
            ],
        )?;
    }

    match checked.exit_code() {
        2 => Ok(2),
        _ => Ok(i32::from(failed || (args.fail_on_breaking && breaking > 0))),
    }
}

fn write_file(path: &Path, text: &str) -> Result<(), UsageError> {
    crate::disk::write::report_file(path, text.as_bytes())
        .map_err(|e| UsageError(format!("cannot write {}: {e}", path.display())))
}

/// The diff of a change's pairs, base against the checked-out tree.
fn diff(args: &CiArgs, root: &Path, c: &Change) -> Result<DiffReport, UsageError> {
    let mut report = app::diff::compute(&DiffRequest {
        root: root.to_path_buf(),
        base: c.base_sha.clone(),
        head: None,
        staged: false,
        libraries: args.libraries.clone(),
        environments: args.environments.clone(),
        all: args.all,
        secrets: args.secrets.clone(),
        budget: args.budget.budget(),
        no_render: args.no_render,
    })?;
    // names a reviewer knows, not "work tree"
    report.base = format!("{} ({})", c.base_ref, short(&c.base_sha));
    report.head = format!("{} ({})", describe_change(c), short(&c.head_sha));
    Ok(report)
}

/// One line: what was checked, and how it went.
fn headline(event: &Event, result: &CheckResult, args: &CiArgs, nothing: bool) -> String {
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
            if args.all { "checks" } else { "affects" },
            short(&c.base_sha)
        ),
        Event::Full { name } => format!(
            "{counts} in {pairs}{} ({name})",
            args.shard
                .as_deref()
                .map(|s| format!(", shard {s}"))
                .unwrap_or_default()
        ),
    }
}
