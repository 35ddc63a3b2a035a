//! `yttcheck list`: the planned pairs, the ytt command each one amounts to,
//! and every file it reads.

use clap::Args;

use crate::workspace::{Pair, Plan};

use crate::source::SourceCache;

use super::args::SelectionArgs;
use crate::app::{load_plan, open_source, UsageError};

#[derive(Args, Debug)]
pub struct ListArgs {
    #[command(flatten)]
    pub selection: SelectionArgs,

    /// Output format: text (pairs, their ytt commands and files) or json
    #[arg(long = "format", value_name = "FORMAT", default_value = "text")]
    pub format: String,

    /// Only the pairs' names, one a line (for scripts and shell loops)
    #[arg(long, conflicts_with = "format")]
    pub names: bool,

    /// Also each library x environment combination that gets no pair, and
    /// why (a library with no file in an environment that has files for
    /// others is not deployed there)
    #[arg(long)]
    pub all: bool,
}

/// The ytt command line that computes a pair's data values.
pub fn ytt_command(plan: &Plan, pair: &Pair) -> Vec<String> {
    let mut cmd = crate::app::ytt::pair_run(plan, pair).command();
    cmd.push("--data-values-inspect".into());
    cmd
}

pub fn run(args: &ListArgs) -> i32 {
    let selection = match super::args::current_dir() {
        Ok(cwd) => args.selection.selection(&cwd),
        Err(UsageError(m)) => {
            errln!("yttcheck: error: {m}");
            return 2;
        }
    };
    let source = match open_source(&selection) {
        Ok(s) => s,
        Err(UsageError(m)) => {
            errln!("yttcheck: error: {m}");
            return 2;
        }
    };
    let cache = SourceCache::new(source.opened.snapshot());
    let plan = match load_plan(&cache, &source, &selection) {
        Ok(p) => p,
        Err(UsageError(m)) => {
            errln!("yttcheck: error: {m}");
            return 2;
        }
    };
    let mut out = String::new();
    if args.format != "text" && args.format != "json" {
        errln!(
            "yttcheck: error: unknown format '{}' (expected one of: text, json)",
            args.format
        );
        return 2;
    }
    if args.names {
        for p in &plan.pairs {
            out.push_str(&p.name(&plan));
            out.push('\n');
        }
    } else {
        let commands: Vec<Vec<String>> = plan.pairs.iter().map(|p| ytt_command(&plan, p)).collect();
        out = if args.format == "json" {
            crate::report::plan::json(&plan, &commands)
        } else {
            crate::report::plan::text(&plan, &commands, args.all)
        };
    }
    if args.format == "json" {
        super::out::data(&crate::escape::json::harden(&out));
    } else {
        // names and paths from the repository: a message, made safe
        super::out::out(&out);
    }
    0
}
