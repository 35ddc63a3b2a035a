//! `yttcheck ci`: one step of a GitHub Actions workflow. The step's flags
//! and the runner's environment ([`github`]) become an `app::ci::CiRequest`;
//! `app::ci` decides what to check and answers what the step must do (the
//! log, the report files, the job summary, the outputs), which this carries
//! out in order.

pub mod github;

use std::path::PathBuf;

use clap::Args;

use crate::app::ci::{CiRequest, CiStep, Event, Platform};
use crate::app::{self, CheckRequest, Selection, UsageError, Warm};

use super::args::BudgetArgs;
use super::out;
use github::Github;

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

    /// On a pull request, post one comment with the verdict and what
    /// changes per environment, updated in place on every push (needs
    /// GITHUB_TOKEN with `pull-requests: write`)
    #[arg(long)]
    pub comment: bool,

    /// Write the comment's content to FILE, for a `workflow_run` job to
    /// post with `yttcheck comment --from FILE` (pull requests from forks)
    #[arg(long = "comment-file", value_name = "FILE")]
    pub comment_file: Option<PathBuf>,

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
        app::ci::require_history(&root, c, gh.platform)?;
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

    let mut check = CheckRequest {
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
        // the reports are made by app::ci, as GitHub wants them
        outputs: Vec::new(),
        fail_on: crate::app::check::severity_flag(args.fail_on.as_deref())?,
        min_severity: None,
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
    let store = match &args.cache_dir {
        Some(dir) => match crate::disk::store::open(&check.cwd.join(dir), &root) {
            Ok(store) => {
                check.kubernetes.schema_cache = Some(
                    check
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
    let request = CiRequest {
        check,
        event: gh.event.clone(),
        report_dir,
        sarif_path,
        summary_file: gh.summary_file.clone().filter(|_| !args.no_summary),
        output_file: gh.output_file.clone(),
        all: args.all,
        no_diff: args.no_diff,
        no_annotations: args.no_annotations,
        fail_on_existing: args.fail_on_existing,
        fail_on_breaking: args.fail_on_breaking,
        secrets: args.secrets.clone(),
        in_runner: out::in_runner(),
        stop_token: out::stop_token(),
        platform: gh.platform,
        comment: args.comment,
        comment_file: args.comment_file.clone(),
        run_url: gh.run_url.clone(),
    };
    let answer = app::ci::run(&request, &warm);
    if let Some(s) = store {
        s.finish();
    }
    let answer = answer?;
    for step in answer.steps {
        match step {
            CiStep::Log(text) => out::data(&text),
            CiStep::Warn(text) => out::err(&out::message(&text)),
            CiStep::Write(path, text) => crate::disk::write::report_file(&path, text.as_bytes())
                .map_err(|e| UsageError(format!("cannot write {}: {e}", path.display())))?,
            CiStep::Append { file, text, what } => github::append(&file, &text, what)?,
            CiStep::Post {
                platform,
                number,
                body,
                quiet,
            } => match super::comment::post(platform, number, &body, quiet) {
                Ok(done) => out::data(&out::message(&format!("yttcheck: {done}\n"))),
                Err(e) if gh.platform == Platform::Gitlab => errln!("yttcheck: warning: {e}"),
                Err(e) => out::data(&out::command("warning", &[("title", "yttcheck")], &e)),
            },
            CiStep::Fail(e) => return Err(e),
        }
    }
    Ok(answer.exit)
}
