//! `yttcheck check`: every library x environment pair of a repository.

use crate::daemon::protocol::Answer;
use crate::diagnostics::RuleId;
use std::io::IsTerminal;
use std::path::PathBuf;

use clap::Args;

use crate::check::{CheckOptions, Severity};
use crate::report::{render, Format, ReportInput};
use crate::source::git::{changed_paths, Git, GitSnapshot};
use crate::source::worktree::WorkTree;
use crate::source::{RepoPath, Snapshot, SourceCache};
use crate::template::EvalOpts;
use crate::workspace::{self, Plan};

use super::inspect::BudgetArgs;

/// Which pairs to run.
#[derive(Args, Debug, Clone, Default)]
pub struct Selection {
    /// Only pairs that read one of these files or folders
    #[arg(value_name = "PATH")]
    pub paths: Vec<String>,

    /// Only these libraries (repeatable)
    #[arg(long = "library", value_name = "NAME")]
    pub libraries: Vec<String>,

    /// Only these environments (repeatable)
    #[arg(long = "env", value_name = "NAME")]
    pub environments: Vec<String>,

    /// Run shard I of N (1-based; a stable split of the pairs, for CI matrices)
    #[arg(long, value_name = "I/N")]
    pub shard: Option<String>,

    /// The repository root (default: the current directory)
    #[arg(short = 'C', long = "root", value_name = "DIR")]
    pub root: Option<PathBuf>,

    /// Check what is staged (the git index), not the work tree
    #[arg(long, conflicts_with = "rev")]
    pub staged: bool,

    /// Check a revision (`HEAD~1`, `origin/main`, a SHA) without checking it out
    #[arg(long, value_name = "REV")]
    pub rev: Option<String>,

    /// Only pairs whose inputs changed since the merge base of REV and HEAD
    #[arg(long = "changed-since", value_name = "REV")]
    pub changed_since: Option<String>,
}

/// Where a check reads files from.
pub enum Opened {
    Work(WorkTree),
    Git(Box<GitSnapshot>),
}

impl Opened {
    pub fn snapshot(&self) -> &dyn Snapshot {
        match self {
            Opened::Work(w) => w,
            Opened::Git(g) => g.as_ref(),
        }
    }
}

/// The files to check, and the repository they are in (for git modes).
pub struct Source {
    pub opened: Opened,
    pub git: Option<Git>,
}

/// How a long-lived process opens sources (see [`open_source_with`]).
#[derive(Default, Clone)]
pub struct SourceOptions {
    /// The index git gave a hook (`GIT_INDEX_FILE`): `git commit FILE`
    /// stages into a temporary index, which is what the commit will hold.
    pub index_file: Option<PathBuf>,
    /// Content ids for the work tree, from stat and a file watcher.
    pub change_count: Option<crate::source::worktree::ChangeCount>,
}

/// Opens the work tree, the index or a revision, as the selection says.
pub fn open_source(sel: &Selection) -> Result<Source, UsageError> {
    open_source_with(sel, &SourceOptions::default())
}

/// [`open_source`], with a given index file or work tree content ids.
pub fn open_source_with(sel: &Selection, opts: &SourceOptions) -> Result<Source, UsageError> {
    let work_tree = |dir: PathBuf| match &opts.change_count {
        Some(c) => WorkTree::with_stat_ids(dir, c.clone()),
        None => WorkTree::new(dir),
    };
    let dir = match &sel.root {
        Some(r) => r.clone(),
        None => std::env::current_dir().map_err(|e| UsageError(e.to_string()))?,
    };
    if !dir.is_dir() {
        return Err(UsageError(format!("{} is not a folder", dir.display())));
    }
    if !(sel.staged || sel.rev.is_some() || sel.changed_since.is_some()) {
        return Ok(Source {
            opened: Opened::Work(work_tree(dir)),
            git: None,
        });
    }
    let git = Git::discover(&dir).map_err(|e| UsageError(e.0))?;
    let opened = if sel.staged {
        let index = match &opts.index_file {
            Some(f) => git.index_file(f),
            None => git.index(),
        };
        Opened::Git(Box::new(index.map_err(|e| UsageError(e.0))?))
    } else if let Some(rev) = &sel.rev {
        let commit = git.commit(rev).map_err(|e| UsageError(e.0))?;
        Opened::Git(Box::new(
            git.tree(commit, rev).map_err(|e| UsageError(e.0))?,
        ))
    } else {
        Opened::Work(work_tree(git.workdir().to_path_buf()))
    };
    Ok(Source {
        opened,
        git: Some(git),
    })
}

/// The changed paths a thread found.
fn join(
    h: std::thread::ScopedJoinHandle<'_, Result<Vec<RepoPath>, UsageError>>,
) -> Result<Vec<RepoPath>, UsageError> {
    h.join()
        .unwrap_or_else(|_| Err(UsageError("finding the changed files failed".into())))
}

/// The repository paths that changed since the merge base of `rev` and HEAD.
fn changed_since(
    source: &Source,
    rev: &str,
    head_rev: Option<&str>,
) -> Result<Vec<RepoPath>, UsageError> {
    let git = source.git.as_ref().expect("git modes open a repository");
    // the merge base with what is checked: `--rev R`, else HEAD
    let base = git
        .merge_base(rev, head_rev.unwrap_or("HEAD"))
        .map_err(|e| UsageError(e.0))?;
    let base = git.tree(base, rev).map_err(|e| UsageError(e.0))?.listing();
    let head = match &source.opened {
        Opened::Git(g) => g.listing(),
        Opened::Work(w) => git.worktree_listing(w),
    };
    Ok(changed_paths(&base, &head))
}

#[derive(Args, Debug)]
pub struct CheckArgs {
    #[command(flatten)]
    pub selection: Selection,

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

    /// Worker threads (default: one per core)
    #[arg(long, short = 'j', value_name = "N", default_value_t = 0, value_parser = crate::cli::check::parse_jobs)]
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

    #[command(flatten)]
    pub budget: BudgetArgs,
}

/// `-j N`: 0 (one per core) to [`crate::check::memo::MAX_JOBS`].
pub fn parse_jobs(s: &str) -> Result<usize, String> {
    let max = crate::check::memo::MAX_JOBS;
    match s.parse::<usize>() {
        Ok(n) if n <= max => Ok(n),
        _ => Err(format!(
            "expected a number of threads from 0 (one per core) to {max}"
        )),
    }
}

/// A usage or configuration problem: exit status 2.
#[derive(Debug)]
pub struct UsageError(pub String);

/// Loads the plan and applies the selection.
pub fn load_plan(
    cache: &SourceCache,
    source: &Source,
    sel: &Selection,
) -> Result<Plan, UsageError> {
    load_plan_with(cache, source, sel, None)
}

/// [`load_plan`], reusing a plan a long-lived process kept.
pub fn load_plan_with(
    cache: &SourceCache,
    source: &Source,
    sel: &Selection,
    plans: Option<&workspace::PlanCache>,
) -> Result<Plan, UsageError> {
    // what changed (git) and the plan (the files) are independent: on two
    // cores, one is found while the other is made; the plan then keeps the
    // pairs that read a changed file before it reads environment files
    let (plan, failed) = std::thread::scope(|s| {
        let finding = sel
            .changed_since
            .as_ref()
            .map(|rev| s.spawn(move || changed_since(source, rev, sel.rev.as_deref())));
        let mut failed = None;
        let keep = || match join(finding?) {
            Ok(paths) => Some(paths),
            Err(e) => {
                failed = Some(e);
                None
            }
        };
        let plan = match plans {
            None => workspace::load_keeping(cache, keep),
            // a kept plan is whole: narrowed here
            Some(_) => workspace::load_with(cache, plans).map(|mut plan| {
                if let Some(paths) = keep() {
                    plan.retain_reading(&paths);
                }
                plan
            }),
        };
        (plan, failed)
    });
    let mut plan = plan.map_err(|e| UsageError(format!("{e}")))?;
    if let Some(e) = failed {
        return Err(e);
    }
    if !sel.libraries.is_empty() {
        for l in &sel.libraries {
            if !plan.libraries.iter().any(|x| &x.name == l) {
                let names: Vec<&str> = plan.libraries.iter().map(|x| x.name.as_str()).collect();
                return Err(UsageError(format!(
                    "no library named '{l}' (libraries: {})",
                    if names.is_empty() {
                        "none found".to_string()
                    } else {
                        names.join(", ")
                    }
                )));
            }
        }
        plan.retain_pairs(|p, pair| sel.libraries.contains(&p.libraries[pair.library].name));
    }
    if !sel.environments.is_empty() {
        for e in &sel.environments {
            if !plan.pairs.iter().any(|p| &p.environment == e) {
                let mut names: Vec<&str> =
                    plan.pairs.iter().map(|p| p.environment.as_str()).collect();
                names.sort();
                names.dedup();
                return Err(UsageError(format!(
                    "no environment named '{e}' (environments: {})",
                    if names.is_empty() {
                        "none found".to_string()
                    } else {
                        names.join(", ")
                    }
                )));
            }
        }
        plan.retain_pairs(|_, pair| sel.environments.contains(&pair.environment));
    }
    if !sel.paths.is_empty() {
        let mut paths = Vec::new();
        for p in &sel.paths {
            let path = RepoPath::new(p)
                .ok_or_else(|| UsageError(format!("'{p}' is not a path inside the repository")))?;
            // a typo must not pass as "nothing to check"; a path git knows
            // (deleted in the work tree, or in git modes) still selects the
            // pairs that read it
            let git_mode = sel.staged || sel.rev.is_some() || sel.changed_since.is_some();
            if !git_mode
                && cache.snapshot().kind(path.as_str()).is_err()
                && !known_to_git(sel, &path)
            {
                return Err(UsageError(format!(
                    "no such path '{p}' in {}",
                    cache.snapshot().describe()
                )));
            }
            paths.push(path);
        }
        plan.retain_reading(&paths);
    }
    if let Some(s) = &sel.shard {
        let (i, n) = parse_shard(s).ok_or_else(|| {
            UsageError(format!(
                "--shard expects I/N with 1 <= I <= N (like 2/4), got '{s}'"
            ))
        })?;
        plan.shard(i, n);
    }
    Ok(plan)
}

/// Whether `path` (or a file under it) is in the index or HEAD of the
/// repository around the checked folder: a file the work tree deleted.
fn known_to_git(sel: &Selection, path: &RepoPath) -> bool {
    let dir = match &sel.root {
        Some(r) => r.clone(),
        None => match std::env::current_dir() {
            Ok(d) => d,
            Err(_) => return false,
        },
    };
    let Ok(git) = Git::discover(&dir) else {
        return false;
    };
    // the checked folder may be below the repository's root
    let prefix = match (dir.canonicalize(), git.workdir().canonicalize()) {
        (Ok(d), Ok(w)) => match d.strip_prefix(&w) {
            Ok(rel) => rel.to_string_lossy().replace('\\', "/"),
            Err(_) => return false,
        },
        _ => return false,
    };
    let full = if prefix.is_empty() {
        Some(path.clone())
    } else {
        RepoPath::new(&format!("{prefix}/{path}"))
    };
    let Some(full) = full else { return false };
    let under = |listing: &crate::source::git::Listing| {
        listing.keys().any(|p| p == &full || p.starts_with(&full))
    };
    let in_index = git.index().map(|ix| under(&ix.listing())).unwrap_or(false);
    in_index
        || git
            .commit("HEAD")
            .and_then(|c| git.tree(c, "HEAD"))
            .map(|t| under(&t.listing()))
            .unwrap_or(false)
}

fn parse_shard(s: &str) -> Option<(usize, usize)> {
    let (i, n) = s.split_once('/')?;
    let (i, n): (usize, usize) = (i.trim().parse().ok()?, n.trim().parse().ok()?);
    (n >= 1 && (1..=n).contains(&i)).then_some((i, n))
}

fn use_color(when: &str) -> Result<bool, UsageError> {
    match when {
        "always" => Ok(true),
        "never" => Ok(false),
        "auto" => Ok(std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
            && std::io::stdout().is_terminal()),
        other => Err(UsageError(format!(
            "--color expects auto, always or never, got '{other}'"
        ))),
    }
}

/// `(format, file)` pairs from `--format` and `--output`.
fn outputs(args: &CheckArgs) -> Result<Vec<(Format, Option<PathBuf>)>, UsageError> {
    let mut out = Vec::new();
    let specs: Vec<String> = if args.formats.is_empty() {
        vec!["text".to_string()]
    } else {
        args.formats.clone()
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
        out.push((format, file));
    }
    let to_stdout: Vec<usize> = out
        .iter()
        .enumerate()
        .filter(|(_, (_, f))| f.is_none())
        .map(|(i, _)| i)
        .collect();
    if let Some(o) = &args.output {
        if to_stdout.len() != 1 {
            return Err(UsageError(
                "--output needs exactly one --format without its own =FILE".to_string(),
            ));
        }
        out[to_stdout[0]].1 = Some(o.clone());
    } else if to_stdout.len() > 1 {
        return Err(UsageError(
            "only one format can go to standard output; give the others a file (--format sarif=out.sarif)".to_string(),
        ));
    }
    Ok(out)
}

pub fn fail_on(flag: Option<&str>, config: Option<&str>) -> Result<Severity, UsageError> {
    let s = flag.or(config).unwrap_or("error");
    Severity::parse(s).ok_or_else(|| {
        UsageError(format!(
            "--fail-on expects error, warning or note, got '{s}'"
        ))
    })
}

/// Runs `check`; returns the exit code. The check runs in the repository's
/// daemon when `--daemon` allows it and one answers (or can be started),
/// else in this process: the answer is the same either way.
pub fn run(args: &CheckArgs) -> i32 {
    let mut answer = match prepare(args) {
        Err(e) => e.answer(),
        Ok(ctx) => match super::daemon::client_mode(args.daemon.as_deref()) {
            Err(e) => e.answer(),
            Ok(mode) => super::daemon::check(args, &ctx, mode)
                .unwrap_or_else(|| execute(args, &ctx, &Warm::none())),
        },
    };
    deliver(&mut answer)
}

/// What the client settles before a check: its folder, colours, and that
/// every report file can be written (fail now, not after the check).
pub struct CheckContext {
    pub cwd: PathBuf,
    pub color: bool,
    /// A progress bar on stderr (in this process only).
    pub progress: bool,
}

fn prepare(args: &CheckArgs) -> Result<CheckContext, UsageError> {
    for (_, file) in outputs(args)? {
        if let Some(f) = file {
            super::write::can_write(&f)
                .map_err(|e| UsageError(format!("cannot write {}: {e}", f.display())))?;
        }
    }
    if let (Some(f), true) = (&args.baseline, args.update_baseline) {
        super::write::can_write(f)
            .map_err(|e| UsageError(format!("cannot write {}: {e}", f.display())))?;
    }
    Ok(CheckContext {
        cwd: std::env::current_dir().map_err(|e| UsageError(e.to_string()))?,
        color: use_color(&args.color)?,
        progress: !args.quiet,
    })
}

/// What a long-lived process (the daemon) keeps between checks.
pub struct Warm<'a> {
    pub store: Option<&'a crate::source::cache::FileStore>,
    pub plans: Option<&'a workspace::PlanCache>,
    pub memo: Option<&'a crate::check::Memo>,
    pub sources: SourceOptions,
    /// The process ends after this check (the command line, not the
    /// daemon): what the check built is left to the exit, which takes the
    /// memory back at once, instead of freed tree by tree (milliseconds
    /// for a thousand pairs, on the one thread that is left).
    pub exits_after: bool,
}

impl Warm<'_> {
    pub fn none() -> Warm<'static> {
        Warm {
            store: None,
            plans: None,
            memo: None,
            sources: SourceOptions::default(),
            exits_after: true,
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

/// Prints an answer and writes its files, as a check in this process would
/// have; returns the exit code.
pub fn deliver(answer: &mut Answer) -> i32 {
    if !answer.stderr.is_empty() {
        super::out::err(&answer.stderr);
    }
    for (path, text) in &answer.files {
        if let Err(e) = super::write::report_file(path, text.as_bytes()) {
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

impl UsageError {
    pub fn answer(self) -> Answer {
        Answer {
            stderr: format!("yttcheck: error: {}\n", self.0),
            code: 2,
            ..Answer::default()
        }
    }
}

/// Runs a check to its answer, writing nothing: reports go to the answer's
/// stdout or files, messages to its stderr.
pub fn execute(args: &CheckArgs, ctx: &CheckContext, warm: &Warm) -> Answer {
    match execute_inner(args, ctx, warm) {
        Ok(a) => a,
        Err(e) => e.answer(),
    }
}

fn execute_inner(args: &CheckArgs, ctx: &CheckContext, warm: &Warm) -> Result<Answer, UsageError> {
    // the interpreter's built-ins are made while the files are read
    crate::template::eval::prepare_globals_in_background();
    let mut answer = Answer::default();
    let outputs = outputs(args)?;
    // relative paths are the client's
    let mut selection = args.selection.clone();
    selection.root = Some(match &selection.root {
        Some(r) => ctx.cwd.join(r),
        None => ctx.cwd.clone(),
    });
    let source = open_source_with(&selection, &warm.sources)?;
    let cache = match warm.store {
        Some(store) => SourceCache::with_store(source.opened.snapshot(), store),
        None => SourceCache::new(source.opened.snapshot()),
    };
    let leave = warm.exits_after;
    let cache = LeftToExit::new(cache, leave);
    let plan = LeftToExit::new(
        load_plan_with(&cache, &source, &selection, warm.plans)?,
        leave,
    );
    let threshold = fail_on(args.fail_on.as_deref(), plan.fail_on.as_deref())?;
    let eval = eval_opts(&args.budget, plan.budget.as_ref())?;
    let opts = CheckOptions {
        jobs: args.jobs,
        eval,
        skip_validation: args.skip_validation,
        progress: ctx.progress,
        keep_values: false,
        render: !args.no_render,
        // a shard holds whole libraries: what its libraries read is known
        unused_values: selection.environments.is_empty()
            && selection.paths.is_empty()
            && !selection.staged
            && selection.changed_since.is_none(),
    };
    let hook_mode = selection.staged || selection.changed_since.is_some();
    let full_check = !hook_mode
        && selection.paths.is_empty()
        && selection.libraries.is_empty()
        && selection.environments.is_empty()
        && selection.shard.is_none();
    if plan.libraries.is_empty() && plan.problems.is_empty() && full_check {
        return Err(UsageError(
            "no ytt library found: a library is a folder with a `#@data/values-schema` (or `#@data/values`) document, environments live in `envs/<name>/`, `environments/<name>/` or `values/<name>`; declare other layouts in .yttcheck.yml (see `yttcheck list` and the README)".to_string(),
        ));
    }
    // a commit that touches no ytt input: nothing to say (reports to files
    // are still written, so CI finds them)
    let silent = plan.pairs.is_empty() && plan.problems.is_empty() && hook_mode;
    if plan.pairs.is_empty() && plan.problems.is_empty() && !silent {
        answer.stderr.push_str("yttcheck: warning: nothing to check: no library x environment pair selected (see `yttcheck list`)\n");
    }
    let baseline = match (&args.baseline, args.update_baseline) {
        (Some(path), false) => {
            let path = ctx.cwd.join(path);
            let text = crate::source::read_local_text(&path).map_err(|e| {
                UsageError(format!(
                    "cannot read the baseline {}: {e} (write one with --update-baseline)",
                    path.display()
                ))
            })?;
            Some(crate::check::suppress::Baseline::parse(&text).map_err(|e| {
                UsageError(format!(
                    "{} is not a yttcheck baseline: {e}",
                    path.display()
                ))
            })?)
        }
        _ => None,
    };
    let fresh_memo;
    let memo = match warm.memo {
        Some(memo) => memo,
        None => {
            fresh_memo = LeftToExit::new(crate::check::Memo::new(), leave);
            &*fresh_memo
        }
    };
    let mut result = LeftToExit::new(crate::check::run_with(&cache, &plan, &opts, memo), leave);
    crate::check::suppress::apply(
        &mut result,
        &plan,
        &cache,
        baseline.as_ref(),
        full_check,
        opts.render,
    );
    if args.update_baseline {
        let path = args.baseline.as_ref().expect("clap requires --baseline");
        let b = crate::check::suppress::Baseline::of(&result.findings, &cache);
        answer.files.push((path.clone(), b.to_json()));
        answer.stderr.push_str(&format!(
            "yttcheck: wrote {} finding{} to {}\n",
            b.findings.len(),
            if b.findings.len() == 1 { "" } else { "s" },
            path.display()
        ));
        return Ok(answer);
    }
    let source = |path: &str| -> Option<String> {
        let p = RepoPath::new(path)?;
        cache.get(&p).ok().map(|s| s.text().to_string())
    };
    for (format, file) in outputs {
        let input = ReportInput {
            result: &result,
            plan: &plan,
            fail_on: threshold,
            source: &source,
            color: ctx.color && file.is_none() && format == Format::Text,
            repo_prefix: repo_prefix(selection.root.as_deref()),
        };
        let text = render(format, &input);
        match file {
            Some(path) => answer.files.push((path, text)),
            None if silent => {}
            None => {
                answer.human = format == Format::Text;
                answer.stdout.push_str(&text);
            }
        }
    }
    // a broken configuration is exit 2 even though the rest was checked
    answer.code = if result
        .findings
        .iter()
        .any(|f| f.rule == RuleId::ConfigInvalid)
    {
        2
    } else {
        i32::from(
            result
                .findings
                .iter()
                .any(|f| f.severity.reaches(threshold)),
        )
    };
    Ok(answer)
}

/// Where the checked folder `root` is in its git repository, as a path
/// prefix (`deploy/`), or empty (at the root, or not in a repository).
pub fn repo_prefix(root: Option<&std::path::Path>) -> String {
    let Some(root) = root else {
        return String::new();
    };
    let Some((workdir, _)) = crate::source::git::find_git_dir(root) else {
        return String::new();
    };
    match root.canonicalize() {
        Ok(r) => match r.strip_prefix(&workdir) {
            Ok(rel) if !rel.as_os_str().is_empty() => {
                format!("{}/", rel.to_string_lossy().replace('\\', "/"))
            }
            _ => String::new(),
        },
        Err(_) => String::new(),
    }
}

/// Evaluation options: the config's `budget:`, then the flags where they
/// differ from their defaults.
pub fn eval_opts(
    flags: &BudgetArgs,
    config: Option<&crate::workspace::config::BudgetSpec>,
) -> Result<EvalOpts, UsageError> {
    let mut eval = EvalOpts::default();
    if let Some(b) = config {
        let from_config = BudgetArgs {
            max_steps: b.max_steps,
            timeout: b.timeout_seconds,
        };
        from_config.apply(&mut eval).map_err(|e| {
            UsageError(format!(
                "{}: budget: {}",
                workspace::CONFIG_FILE,
                e.trim_start_matches("--")
            ))
        })?;
    }
    flags.apply(&mut eval).map_err(UsageError)?;
    Ok(eval)
}
