//! `yttcheck diff --base REV [--head REV | --staged]`: the final data values
//! of every pair a change affects, at base and at head, and the schema
//! changes, without checking anything out.

use std::path::PathBuf;

use clap::Args;

use crate::diff::render;

use super::args::{use_color, BudgetArgs};
use crate::app::diff::{compute, DiffRequest};
use crate::app::UsageError;

#[derive(Args, Debug)]
pub struct DiffArgs {
    /// The base revision (a pull request's target branch: `origin/main`); the
    /// diff starts from its merge base with head
    #[arg(long, value_name = "REV")]
    pub base: String,

    /// The head revision (default: the work tree)
    #[arg(long, value_name = "REV", conflicts_with = "staged")]
    pub head: Option<String>,

    /// Head is what is staged (the git index)
    #[arg(long)]
    pub staged: bool,

    /// Only these libraries (repeatable)
    #[arg(long = "library", value_name = "NAME")]
    pub libraries: Vec<String>,

    /// Only these environments (repeatable)
    #[arg(long = "env", value_name = "NAME")]
    pub environments: Vec<String>,

    /// Every pair, not only those the change affects
    #[arg(long)]
    pub all: bool,

    /// Output format: text, markdown, json; FORMAT=FILE writes to a file (repeatable)
    #[arg(long = "format", short = 'f', value_name = "FORMAT[=FILE]")]
    pub formats: Vec<String>,

    /// Exit 1 when the schema of a library changes in a breaking way
    #[arg(long = "fail-on-breaking")]
    pub fail_on_breaking: bool,

    /// More words that mark a key as secret (its values are never shown)
    #[arg(long = "secret", value_name = "WORD")]
    pub secrets: Vec<String>,

    /// Compare final data values only: do not render each pair's templates
    /// (no rendered objects in the diff)
    #[arg(long = "no-render")]
    pub no_render: bool,

    /// Colours: auto, always, never (NO_COLOR is respected)
    #[arg(long, value_name = "WHEN", default_value = "auto")]
    pub color: String,

    /// The repository (default: the current directory)
    #[arg(short = 'C', long = "root", value_name = "DIR")]
    pub root: Option<PathBuf>,

    #[command(flatten)]
    pub budget: BudgetArgs,
}

pub fn run(args: &DiffArgs) -> i32 {
    match run_inner(args) {
        Ok(code) => code,
        Err(UsageError(m)) => {
            errln!("yttcheck: error: {m}");
            2
        }
    }
}

fn run_inner(args: &DiffArgs) -> Result<i32, UsageError> {
    let formats = crate::app::diff::formats(&args.formats)?;
    let color = use_color(&args.color)?;
    let report = compute(&DiffRequest {
        root: match &args.root {
            Some(r) => super::args::current_dir()?.join(r),
            None => super::args::current_dir()?,
        },
        base: args.base.clone(),
        head: args.head.clone(),
        staged: args.staged,
        libraries: args.libraries.clone(),
        environments: args.environments.clone(),
        all: args.all,
        secrets: args.secrets.clone(),
        budget: args.budget.budget(),
        no_render: args.no_render,
    })?;

    for (format, file) in formats {
        let text = match format.as_str() {
            "text" => render::text(&report, color && file.is_none()),
            "markdown" => render::markdown(&report),
            _ => render::json(&report),
        };
        match file {
            Some(path) => crate::disk::write::report_file(&path, text.as_bytes())
                .map_err(|e| UsageError(format!("cannot write {}: {e}", path.display())))?,
            None if format == "text" => super::out::report(&text),
            None => super::out::data(&text),
        }
    }
    Ok(i32::from(args.fail_on_breaking && report.breaking() > 0))
}
