//! `yttcheck check`: every library x environment pair of a repository. The
//! flags become an [`app::CheckRequest`]; the check runs in the
//! repository's daemon or in this process, and its answer is printed here.

use std::path::PathBuf;

use clap::Args;

use super::args::{use_color, BudgetArgs, SelectionArgs};
use crate::app::{self, Answer, CheckRequest, UsageError, Warm};

#[derive(Args, Debug)]
pub struct CheckArgs {
    #[command(flatten)]
    pub selection: SelectionArgs,

    /// Output format: text, json, sarif, github, gitlab, junit, markdown; FORMAT=FILE writes
    /// that format to a file (repeatable: `--format text --format sarif=out.sarif`)
    #[arg(long = "format", value_name = "FORMAT[=FILE]")]
    pub formats: Vec<String>,

    /// Write the (single) report to FILE instead of stdout
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// Lowest severity that fails the run (exit 1): error, warning, note
    #[arg(long = "fail-on", value_name = "SEVERITY")]
    pub fail_on: Option<String>,

    /// Lowest severity reported: note (default), warning (no notes), error
    #[arg(long = "min-severity", value_name = "SEVERITY")]
    pub min_severity: Option<String>,

    /// Worker threads (default: one per core)
    #[arg(long, short = 'j', value_name = "N", default_value_t = 0, value_parser = crate::cli::args::parse_jobs)]
    pub jobs: usize,

    /// Colours in the text report: auto, always, never (NO_COLOR is respected)
    #[arg(long, value_name = "WHEN", default_value = "auto")]
    pub color: String,

    /// Skip validations (not recommended)
    #[arg(long = "dangerous-data-values-disable-validation")]
    pub skip_validation: bool,

    /// Check data values only: do not render each pair's templates
    #[arg(long = "no-render")]
    pub no_render: bool,

    /// No progress bar
    #[arg(long, short = 'q')]
    pub quiet: bool,

    /// Fail only on findings not in this baseline file (written by
    /// --update-baseline)
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,

    /// Write every current finding to the --baseline file, and exit 0
    #[arg(long = "update-baseline", requires = "baseline")]
    pub update_baseline: bool,

    /// Run in the repository's warm daemon: auto (default on a terminal or
    /// in a git hook; never when CI is set), always, never
    #[arg(long, value_name = "WHEN")]
    pub daemon: Option<String>,

    /// Keep each pair's result in DIR between runs, keyed by everything it
    /// reads: a re-run checks only what changed (see docs/performance.md)
    #[arg(long = "cache-dir", value_name = "DIR")]
    pub cache_dir: Option<PathBuf>,

    #[command(flatten)]
    pub budget: BudgetArgs,

    #[command(flatten)]
    pub kubernetes: super::args::KubernetesArgs,
}

/// Runs `check`; returns the exit code. The check runs in the repository's
/// daemon when `--daemon` allows it and one answers (or can be started),
/// else in this process: the answer is the same either way.
pub fn run(args: &CheckArgs) -> i32 {
    let mut answer = match request(args) {
        Err(e) => e.answer(),
        Ok(req) => match super::daemon::client_mode(args.daemon.as_deref()) {
            Err(e) => e.answer(),
            Ok(mode) => super::daemon::check(&req, mode)
                .unwrap_or_else(|| in_process(&req, args.cache_dir.as_deref())),
        },
    };
    deliver(&mut answer)
}

/// The check in this process, with the persistent cache when one is named
/// (a cache that cannot be used is a warning: the check runs without it).
pub fn in_process(req: &CheckRequest, cache_dir: Option<&std::path::Path>) -> Answer {
    let mut warning = String::new();
    let store = cache_dir.and_then(|dir| {
        let dir = req.cwd.join(dir);
        match crate::disk::store::open(&dir, &req.cwd.join(&req.selection.root)) {
            Ok(store) => Some(store),
            Err(why) => {
                warning = format!("yttcheck: warning: not using the cache: {why}\n");
                None
            }
        }
    });
    let warm = Warm {
        outcomes: store
            .clone()
            .map(|s| s as std::sync::Arc<dyn crate::check::memo::OutcomeStore>),
        schema_fetch: Some(&crate::fetch::schemas::fetcher),
        ..Warm::none()
    };
    // fetched schemas go beside the results, in a folder known to be usable
    let moved;
    let req = match (cache_dir, &store) {
        (Some(dir), Some(_)) => {
            let mut r = req.clone();
            r.kubernetes.schema_cache =
                Some(req.cwd.join(dir).join(crate::app::kubernetes::SCHEMA_CACHE));
            moved = r;
            &moved
        }
        _ => req,
    };
    let mut answer = app::check::execute(req, &warm);
    if let Some(s) = store {
        s.finish();
    }
    answer.stderr.insert_str(0, &warning);
    answer
}

/// The request the flags make, once every report file is known to be
/// writable (fail now, not after the check).
pub fn request(args: &CheckArgs) -> Result<CheckRequest, UsageError> {
    let outputs = app::check::outputs(&args.formats, args.output.as_ref())?;
    for o in &outputs {
        if let Some(f) = &o.file {
            crate::disk::write::can_write(f)
                .map_err(|e| UsageError(format!("cannot write {}: {e}", f.display())))?;
        }
    }
    if let (Some(f), true) = (&args.baseline, args.update_baseline) {
        crate::disk::write::can_write(f)
            .map_err(|e| UsageError(format!("cannot write {}: {e}", f.display())))?;
    }
    let cwd = super::args::current_dir()?;
    let selection = args.selection.selection(&cwd);
    Ok(CheckRequest {
        cwd,
        selection,
        outputs,
        fail_on: app::check::severity_flag(args.fail_on.as_deref())?,
        min_severity: app::check::severity_flag(args.min_severity.as_deref())?,
        jobs: args.jobs,
        skip_validation: args.skip_validation,
        render: !args.no_render,
        color: use_color(&args.color)?,
        progress: !args.quiet,
        baseline: args.baseline.clone(),
        update_baseline: args.update_baseline,
        budget: args.budget.budget(),
        kubernetes: args.kubernetes.request(),
    })
}

/// Prints an answer and writes its files, as a check in this process would
/// have; returns the exit code.
pub fn deliver(answer: &mut Answer) -> i32 {
    if !answer.stderr.is_empty() {
        super::out::err(&answer.stderr);
    }
    for (path, text) in &answer.files {
        if let Err(e) = crate::disk::write::report_file(path, text.as_bytes()) {
            errln!("yttcheck: error: cannot write {}: {e}", path.display());
            return 2;
        }
    }
    if answer.human {
        super::out::report(&answer.stdout);
    } else {
        super::out::data(&answer.stdout);
    }
    answer.code
}
