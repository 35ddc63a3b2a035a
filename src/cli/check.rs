//! `yttcheck check`: every library x environment pair of a repository.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use clap::Args;

use crate::check::{check, CheckOptions, Severity};
use crate::report::{render, Format, ReportInput};
use crate::source::worktree::WorkTree;
use crate::source::{RepoPath, Snapshot};
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
}

#[derive(Args, Debug)]
pub struct CheckArgs {
    #[command(flatten)]
    pub selection: Selection,

    /// Output format: text, json, sarif, github, junit, markdown; FORMAT=FILE writes
    /// that format to a file (repeatable: `--format text --format sarif=out.sarif`)
    #[arg(long = "format", short = 'f', value_name = "FORMAT[=FILE]")]
    pub formats: Vec<String>,

    /// Write the (single) report to FILE instead of stdout
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// Lowest severity that fails the run (exit 1): error, warning, note
    #[arg(long = "fail-on", value_name = "SEVERITY")]
    pub fail_on: Option<String>,

    /// Worker threads (default: one per core)
    #[arg(long, short = 'j', value_name = "N", default_value_t = 0)]
    pub jobs: usize,

    /// Colours in the text report: auto, always, never (NO_COLOR is respected)
    #[arg(long, value_name = "WHEN", default_value = "auto")]
    pub color: String,

    /// Skip validations (not recommended)
    #[arg(long = "dangerous-data-values-disable-validation")]
    pub skip_validation: bool,

    /// No progress bar
    #[arg(long, short = 'q')]
    pub quiet: bool,

    #[command(flatten)]
    pub budget: BudgetArgs,
}

/// A usage or configuration problem: exit status 2.
pub struct UsageError(pub String);

/// Loads the plan and applies the selection.
pub fn load_plan(snap: &dyn Snapshot, sel: &Selection) -> Result<Plan, UsageError> {
    let mut plan = workspace::load(snap).map_err(|e| UsageError(format!("{e}")))?;
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
        plan.retain_pairs(|_, pair| sel.environments.contains(&pair.environment));
    }
    if !sel.paths.is_empty() {
        let mut paths = Vec::new();
        for p in &sel.paths {
            paths.push(
                RepoPath::new(p).ok_or_else(|| {
                    UsageError(format!("'{p}' is not a path inside the repository"))
                })?,
            );
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
    if let Some(o) = &args.output {
        let to_stdout: Vec<usize> = out
            .iter()
            .enumerate()
            .filter(|(_, (_, f))| f.is_none())
            .map(|(i, _)| i)
            .collect();
        if to_stdout.len() != 1 {
            return Err(UsageError(
                "--output needs exactly one --format without its own =FILE".to_string(),
            ));
        }
        out[to_stdout[0]].1 = Some(o.clone());
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

/// Runs `check`; returns the exit code.
pub fn run(args: &CheckArgs) -> i32 {
    match run_inner(args) {
        Ok(code) => code,
        Err(UsageError(m)) => {
            eprintln!("yttcheck: error: {m}");
            2
        }
    }
}

fn run_inner(args: &CheckArgs) -> Result<i32, UsageError> {
    let root = match &args.selection.root {
        Some(r) => r.clone(),
        None => std::env::current_dir().map_err(|e| UsageError(e.to_string()))?,
    };
    let snap = WorkTree::new(&root);
    let outputs = outputs(args)?;
    let color = use_color(&args.color)?;
    let plan = load_plan(&snap, &args.selection)?;
    let config_fail_on = config_fail_on(&snap);
    let threshold = fail_on(args.fail_on.as_deref(), config_fail_on.as_deref())?;
    let mut eval = EvalOpts::default();
    args.budget.apply(&mut eval).map_err(UsageError)?;
    let opts = CheckOptions {
        jobs: args.jobs,
        eval,
        skip_validation: args.skip_validation,
        progress: !args.quiet,
    };
    let result = check(&snap, &plan, &opts);
    let source = |path: &str| -> Option<String> {
        snap.read(path).ok().and_then(|b| String::from_utf8(b).ok())
    };
    for (format, file) in outputs {
        let input = ReportInput {
            result: &result,
            plan: &plan,
            fail_on: threshold,
            source: &source,
            color: color && file.is_none() && format == Format::Text,
        };
        let text = render(format, &input);
        match file {
            Some(path) => std::fs::write(&path, text)
                .map_err(|e| UsageError(format!("cannot write {}: {e}", path.display())))?,
            None => {
                let mut stdout = std::io::stdout().lock();
                let _ = stdout.write_all(text.as_bytes());
                let _ = stdout.flush();
            }
        }
    }
    let failed = result
        .findings
        .iter()
        .any(|f| f.severity.reaches(threshold));
    Ok(i32::from(failed))
}

/// `fail_on:` of the config file, if any (the config itself was checked when
/// the plan was made).
fn config_fail_on(snap: &dyn Snapshot) -> Option<String> {
    let bytes = snap.read(workspace::CONFIG_FILE).ok()?;
    let text = String::from_utf8(bytes).ok()?;
    let path = RepoPath::new(workspace::CONFIG_FILE)?;
    workspace::Config::parse(&path, &text).ok()?.fail_on
}
