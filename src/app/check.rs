//! A check of a repository's pairs, from a typed request to a typed answer:
//! what to print, what files to write, and the exit code.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::budget::{eval_opts, Budget};
use super::plan::load_plan_with;
use super::source::{open_source_with, repo_prefix, Selection, SourceOptions};
use super::UsageError;
use crate::check::{CheckOptions, CheckResult, Severity};
use crate::diagnostics::RuleId;
use crate::report::{render, Format, ReportInput};
use crate::source::SourceCache;
use crate::workspace::{self, Plan};

/// A report to produce: to the answer's stdout, or to a file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Output {
    pub format: Format,
    pub file: Option<PathBuf>,
}

/// The reports asked for: `FORMAT[=FILE]` specs (`--format`; none: text)
/// and the file of the one without its own (`--output`).
pub fn outputs(formats: &[String], output: Option<&PathBuf>) -> Result<Vec<Output>, UsageError> {
    let mut out = Vec::new();
    let specs: Vec<String> = if formats.is_empty() {
        vec!["text".to_string()]
    } else {
        formats.to_vec()
    };
    for spec in &specs {
        let (name, file) = match spec.split_once('=') {
            Some((n, f)) => (n, Some(PathBuf::from(f))),
            None => (spec.as_str(), None),
        };
        let format = Format::parse(name).ok_or_else(|| {
            UsageError(format!(
                "unknown format '{name}' (expected one of: {})",
                Format::NAMES.join(", ")
            ))
        })?;
        out.push(Output { format, file });
    }
    let to_stdout: Vec<usize> = out
        .iter()
        .enumerate()
        .filter(|(_, o)| o.file.is_none())
        .map(|(i, _)| i)
        .collect();
    if let Some(o) = output {
        if to_stdout.len() != 1 {
            return Err(UsageError(
                "--output needs exactly one --format without its own =FILE".to_string(),
            ));
        }
        out[to_stdout[0]].file = Some(o.clone());
    } else if to_stdout.len() > 1 {
        return Err(UsageError(
            "only one format can go to standard output; give the others a file (--format sarif=out.sarif)".to_string(),
        ));
    }
    Ok(out)
}

/// What to check and how to answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckRequest {
    /// The asker's folder: relative paths (the selection's root, the
    /// baseline) are relative to it.
    pub cwd: PathBuf,
    pub selection: Selection,
    pub outputs: Vec<Output>,
    /// The lowest severity that fails (default: the configuration's
    /// `fail_on`, else error).
    pub fail_on: Option<Severity>,
    /// The lowest severity reported (default: the configuration's
    /// `min_severity`, else everything).
    #[serde(default)]
    pub min_severity: Option<Severity>,
    /// Worker threads (0: one per core).
    pub jobs: usize,
    pub skip_validation: bool,
    /// Render each pair's templates (not only its data values).
    pub render: bool,
    /// Colours in a text report to stdout.
    pub color: bool,
    /// A progress bar on stderr (in the asking process only).
    pub progress: bool,
    /// Findings in this baseline file do not fail the check.
    pub baseline: Option<PathBuf>,
    /// Write every current finding to the baseline file instead.
    pub update_baseline: bool,
    pub budget: Budget,
    /// Rendered documents against Kubernetes schemas (with the
    /// configuration's `kubernetes:`).
    #[serde(default)]
    pub kubernetes: super::kubernetes::KubernetesRequest,
}

impl CheckRequest {
    /// A check of every pair of the repository at `root`, answered with a
    /// text report.
    pub fn whole(root: PathBuf) -> CheckRequest {
        CheckRequest {
            cwd: root.clone(),
            selection: Selection::whole(root),
            outputs: vec![Output {
                format: Format::Text,
                file: None,
            }],
            fail_on: None,
            min_severity: None,
            jobs: 0,
            skip_validation: false,
            render: true,
            color: false,
            progress: false,
            baseline: None,
            update_baseline: false,
            budget: Budget::default(),
            kubernetes: Default::default(),
        }
    }
}

/// What a check prints and writes, and its exit code.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Answer {
    pub stdout: String,
    /// `stdout` is a report for people (text), not data: in a GitHub
    /// Actions step it is guarded against workflow commands.
    #[serde(default)]
    pub human: bool,
    pub stderr: String,
    /// Reports to write (`--format sarif=FILE`), by the asker.
    pub files: Vec<(PathBuf, String)>,
    pub code: i32,
}

impl UsageError {
    /// The answer of a check that could not run: the message, exit 2.
    pub fn answer(self) -> Answer {
        Answer {
            stderr: format!("yttcheck: error: {}\n", self.0),
            code: 2,
            ..Answer::default()
        }
    }
}

/// What a long-lived process (the daemon, the language server) keeps
/// between checks.
pub struct Warm<'a> {
    pub store: Option<&'a crate::source::cache::FileStore>,
    pub plans: Option<&'a workspace::PlanCache>,
    pub memo: Option<&'a crate::check::Memo>,
    pub sources: SourceOptions,
    /// Where pair outcomes are kept between processes (the persistent
    /// cache), for a check without a memo of its own.
    pub outcomes: Option<std::sync::Arc<dyn crate::check::memo::OutcomeStore>>,
    /// The process ends after this check (the command line, not the
    /// daemon): what the check built is left to the exit, which takes the
    /// memory back at once, instead of freed tree by tree (milliseconds
    /// for a thousand pairs, on the one thread that is left).
    pub exits_after: bool,
    /// The last run's compiled Kubernetes schemas.
    pub kubernetes: Option<&'a super::kubernetes::KubernetesCache>,
    /// The host's schema fetcher (none: Kubernetes schemas cannot be read).
    pub schema_fetch: Option<&'a super::kubernetes::MakeFetch>,
    /// The text report's frames of the last checks.
    pub frames: Option<&'a crate::report::text::FrameCache>,
}

impl Warm<'_> {
    /// Nothing kept: a process that checks once and exits.
    pub fn none() -> Warm<'static> {
        Warm {
            store: None,
            plans: None,
            memo: None,
            sources: SourceOptions::default(),
            outcomes: None,
            exits_after: true,
            kubernetes: None,
            schema_fetch: None,
            frames: None,
        }
    }
}

/// A value dropped as usual, or, when the process exits next, left to the
/// exit (see [`Warm::exits_after`]).
struct LeftToExit<T> {
    value: Option<T>,
    leave: bool,
}

impl<T> LeftToExit<T> {
    fn new(value: T, leave: bool) -> LeftToExit<T> {
        LeftToExit {
            value: Some(value),
            leave,
        }
    }
}

impl<T> std::ops::Deref for LeftToExit<T> {
    type Target = T;
    fn deref(&self) -> &T {
        self.value.as_ref().expect("taken only on drop")
    }
}

impl<T> std::ops::DerefMut for LeftToExit<T> {
    fn deref_mut(&mut self) -> &mut T {
        self.value.as_mut().expect("taken only on drop")
    }
}

impl<T> Drop for LeftToExit<T> {
    fn drop(&mut self) {
        if self.leave {
            std::mem::forget(self.value.take());
        }
    }
}

/// A finished check, lent to the caller that presents it.
pub struct Checked<'a> {
    pub result: &'a CheckResult,
    pub plan: &'a Plan,
    pub cache: &'a SourceCache<'a>,
    /// The severity that fails.
    pub threshold: Severity,
    /// The folder checked (absolute).
    pub root: &'a Path,
    /// Every pair of the repository was checked, as it is.
    pub whole: bool,
    /// The text report's frames of the last checks (a long-lived process).
    pub frames: Option<&'a crate::report::text::FrameCache>,
}

impl Checked<'_> {
    /// No pair was selected and the configuration has no problem.
    pub fn nothing_to_check(&self) -> bool {
        self.plan.pairs.is_empty() && self.plan.problems.is_empty()
    }

    /// A file's text, as the check read it.
    pub fn text_of(&self, path: &str) -> Option<String> {
        self.file_of(path).map(|s| s.text().to_string())
    }

    /// A file of the check, as it was read.
    pub fn file_of(&self, path: &str) -> Option<std::sync::Arc<crate::yaml::SourceFile>> {
        self.cache.get_str(path)?.ok()
    }

    /// The input of every report printer.
    pub fn report_input<'b>(
        &'b self,
        color: bool,
        file_of: &'b (dyn Fn(&str) -> Option<std::sync::Arc<crate::yaml::SourceFile>> + Sync),
    ) -> ReportInput<'b> {
        ReportInput {
            result: self.result,
            plan: self.plan,
            fail_on: self.threshold,
            source: file_of,
            color,
            frames: self.frames,
            repo_prefix: repo_prefix(self.root),
        }
    }

    /// 2 when the configuration is broken (even though the rest was
    /// checked), 1 when a finding reaches the threshold, else 0.
    pub fn exit_code(&self) -> i32 {
        let findings = &self.result.findings;
        if findings.iter().any(|f| f.rule == RuleId::ConfigInvalid) {
            2
        } else {
            i32::from(findings.iter().any(|f| f.severity.reaches(self.threshold)))
        }
    }
}

/// Runs the check a request asks for and lends the result to `present`.
pub fn run<R: Send>(
    req: &CheckRequest,
    warm: &Warm,
    present: impl FnOnce(&Checked) -> R + Send,
) -> Result<R, UsageError> {
    if req.jobs > crate::check::memo::MAX_JOBS {
        return Err(UsageError(format!(
            "expected a number of threads from 0 (one per core) to {}, got {}",
            crate::check::memo::MAX_JOBS,
            req.jobs
        )));
    }
    // the interpreter's built-ins are made while the files are read; not
    // with a results cache, whose runs mostly evaluate nothing (and a
    // re-run of an unchanged repository would spend a tenth of its time
    // making them)
    if warm.outcomes.is_none() {
        crate::template::eval::prepare_globals_in_background();
    }
    let mut selection = req.selection.clone();
    selection.root = req.cwd.join(&selection.root);
    let source = open_source_with(&selection, &warm.sources)?;
    // an editor's unsaved buffers, seen over the opened files
    let buffered = super::source::buffered(&source, &warm.sources);
    let snapshot: &dyn crate::source::Snapshot = match &buffered {
        Some(o) => o,
        None => source.opened.snapshot(),
    };
    let cache = match warm.store {
        Some(store) => SourceCache::with_store(snapshot, store),
        None => SourceCache::new(snapshot),
    };
    let leave = warm.exits_after;
    let cache = LeftToExit::new(cache, leave);
    let fresh_memo;
    let memo = match warm.memo {
        Some(memo) => memo,
        None => {
            fresh_memo = LeftToExit::new(
                crate::check::Memo::new().with_store(warm.outcomes.clone()),
                leave,
            );
            &*fresh_memo
        }
    };
    // (on this thread: handing the plan to the check's threads cost a
    // hook's check more than statting on both of them saved)
    let plan = LeftToExit::new(
        load_plan_with(&cache, &source, &selection, warm.plans)?,
        leave,
    );
    let threshold = match req.fail_on {
        Some(s) => s,
        None => threshold(None, plan.fail_on.as_deref())?,
    };
    let eval = eval_opts(&req.budget, plan.budget.as_ref())?;
    let kubernetes = super::kubernetes::prepare(
        &req.kubernetes,
        &plan,
        &req.cwd,
        &selection.root,
        &cache,
        warm.kubernetes,
        warm.schema_fetch,
    )?;
    if kubernetes.is_some() && !req.render {
        return Err(UsageError(
            "Kubernetes schemas check rendered documents: drop --no-render (or the kubernetes flags and `kubernetes:` of .yttcheck.yml)".into(),
        ));
    }
    let opts = CheckOptions {
        jobs: req.jobs,
        eval,
        skip_validation: req.skip_validation,
        progress: req.progress,
        keep_values: false,
        render: req.render,
        unused_values: selection.sees_whole_libraries(),
        kubernetes,
    };
    let whole = selection.is_whole();
    if plan.libraries.is_empty() && plan.problems.is_empty() && whole {
        return Err(UsageError(format!(
            "no ytt library found in {}: a library is a folder with a `#@data/values-schema` (or `#@data/values`) document, environments live in `envs/<name>/`, `environments/<name>/` or `values/<name>`; declare other layouts in .yttcheck.yml (see `yttcheck list` and the README)",
            selection.root.display()
        )));
    }
    let baseline = match (&req.baseline, req.update_baseline, &plan.baseline) {
        (Some(path), false, _) => Some(read_baseline(&req.cwd.join(path))?),
        // `.yttcheck.yml`'s, as the checked snapshot holds it
        (None, false, Some(path)) => Some(read_repo_baseline(&cache, path)?),
        _ => None,
    };
    let mut result = LeftToExit::new(crate::check::run_with(&cache, &plan, &opts, memo), leave);
    // on the check's threads, as what follows: thousands of findings are
    // sorted on each of them
    memo.install(req.jobs, || {
        crate::check::suppress::apply(
            &mut result,
            &plan,
            &cache,
            baseline.as_ref(),
            whole,
            opts.render,
            req.min_severity.or(plan.min_severity),
        )
    });
    let checked = Checked {
        result: &result,
        plan: &plan,
        cache: &cache,
        threshold,
        root: &selection.root,
        whole,
        frames: warm.frames,
    };
    let presented = memo.install(req.jobs, || present(&checked));
    // a long-lived process answers first: freeing a result of thousands
    // of findings is done beside the reply, not before it
    if !leave {
        if let Some(result) = result.value.take() {
            let _ = std::thread::Builder::new()
                .name("free-result".into())
                .spawn(move || drop(result));
        }
    }
    Ok(presented)
}

/// The severity that fails: the request's, else the configuration's
/// `fail_on`, else error.
pub fn threshold(asked: Option<&str>, config: Option<&str>) -> Result<Severity, UsageError> {
    let s = asked.or(config).unwrap_or("error");
    Severity::parse(s).ok_or_else(|| {
        UsageError(format!(
            "--fail-on expects error, warning or note, got '{s}'"
        ))
    })
}

/// A severity flag (`--fail-on`, `--min-severity`): error, warning or note.
pub fn severity_flag(flag: Option<&str>) -> Result<Option<Severity>, UsageError> {
    flag.map(|s| {
        Severity::parse(s)
            .ok_or_else(|| UsageError(format!("expected error, warning or note, got '{s}'")))
    })
    .transpose()
}

fn read_baseline(path: &Path) -> Result<crate::check::suppress::Baseline, UsageError> {
    let text = crate::source::read_local_text(path).map_err(|e| {
        UsageError(format!(
            "cannot read the baseline {}: {e} (write one with --update-baseline)",
            path.display()
        ))
    })?;
    crate::check::suppress::Baseline::parse(&text).map_err(|e| {
        UsageError(format!(
            "{} is not a yttcheck baseline: {e}",
            path.display()
        ))
    })
}

/// The baseline `.yttcheck.yml` names, read from the checked snapshot.
fn read_repo_baseline(
    cache: &crate::source::SourceCache,
    path: &crate::source::RepoPath,
) -> Result<crate::check::suppress::Baseline, UsageError> {
    let text = cache.get(path).map_err(|e| {
        UsageError(format!(
            ".yttcheck.yml: baseline: {path} cannot be read: {} (write one with --baseline {path} --update-baseline)",
            e.message
        ))
    })?;
    crate::check::suppress::Baseline::parse(text.text()).map_err(|e| {
        UsageError(format!(
            ".yttcheck.yml: baseline: {path} is not a yttcheck baseline: {e}"
        ))
    })
}

/// Runs a check to its answer, writing nothing: reports go to the answer's
/// stdout or files, messages to its stderr.
pub fn execute(req: &CheckRequest, warm: &Warm) -> Answer {
    run(req, warm, |checked| answer(req, checked)).unwrap_or_else(UsageError::answer)
}

/// The answer of a finished check: its reports, or the baseline it writes.
fn answer(req: &CheckRequest, checked: &Checked) -> Answer {
    let mut answer = Answer::default();
    let hook_mode = req.selection.staged || req.selection.changed_since.is_some();
    // a commit that touches no ytt input: nothing to say (reports to files
    // are still written, so CI finds them)
    let silent = checked.nothing_to_check() && hook_mode;
    if checked.nothing_to_check() && !silent {
        answer.stderr.push_str("yttcheck: warning: nothing to check: no library x environment pair selected (see `yttcheck list`)\n");
    }
    if req.update_baseline {
        let configured = checked
            .plan
            .baseline
            .as_ref()
            .map(|p| checked.root.join(p.as_str()));
        let Some(path) = req.baseline.as_ref().or(configured.as_ref()) else {
            return UsageError(
                "--update-baseline needs --baseline FILE (or `baseline:` in .yttcheck.yml)".into(),
            )
            .answer();
        };
        let b = crate::check::suppress::Baseline::of(&checked.result.findings, checked.cache);
        answer.files.push((path.clone(), b.to_json()));
        answer.stderr.push_str(&format!(
            "yttcheck: wrote {} finding{} to {}\n",
            b.findings.len(),
            if b.findings.len() == 1 { "" } else { "s" },
            path.display()
        ));
        return answer;
    }
    let file_of = |path: &str| checked.file_of(path);
    for out in &req.outputs {
        let color = req.color && out.file.is_none() && out.format == Format::Text;
        let text = render(out.format, &checked.report_input(color, &file_of));
        match &out.file {
            Some(path) => answer.files.push((path.clone(), text)),
            None if silent => {}
            None => {
                answer.human = out.format == Format::Text;
                // (the one report to stdout, as a rule: moved, not copied)
                if answer.stdout.is_empty() {
                    answer.stdout = text;
                } else {
                    answer.stdout.push_str(&text);
                }
            }
        }
    }
    answer.code = checked.exit_code();
    answer
}
