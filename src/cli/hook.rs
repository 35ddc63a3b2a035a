//! `yttcheck hook install [--pre-push]` and `yttcheck hook uninstall`:
//! `disk::hooks` puts the repository's plain git hooks where git runs hooks
//! (`core.hooksPath`, else `.git/hooks`), or takes them away.

use std::path::PathBuf;

use clap::{Args, Subcommand};

use crate::disk::hooks;
use crate::source::git::Git;

use crate::app::UsageError;

#[derive(Args, Debug)]
pub struct HookArgs {
    #[command(subcommand)]
    pub action: HookAction,
}

#[derive(Subcommand, Debug)]
pub enum HookAction {
    /// Install the pre-commit hook (and with --pre-push, the pre-push hook)
    Install {
        /// Also check pushes: the pairs a push's new commits affect
        #[arg(long = "pre-push")]
        pre_push: bool,
        /// The repository (default: the current directory)
        #[arg(short = 'C', long = "root", value_name = "DIR")]
        root: Option<PathBuf>,
    },
    /// Remove yttcheck's hooks, putting back the hooks they chained
    Uninstall {
        /// The repository (default: the current directory)
        #[arg(short = 'C', long = "root", value_name = "DIR")]
        root: Option<PathBuf>,
    },
}

pub fn run(args: &HookArgs) -> i32 {
    match run_inner(args) {
        Ok(()) => 0,
        Err(UsageError(m)) => {
            errln!("yttcheck: error: {m}");
            2
        }
    }
}

fn hooks_dir(root: &Option<PathBuf>) -> Result<PathBuf, UsageError> {
    let dir = match root {
        Some(r) => r.clone(),
        None => std::env::current_dir().map_err(|e| UsageError(e.to_string()))?,
    };
    Ok(Git::discover(&dir)
        .map_err(|e| UsageError(e.0))?
        .hooks_dir())
}

/// Prints what was done, or gives the error.
fn say(done: Result<Vec<String>, String>) -> Result<(), UsageError> {
    for line in done.map_err(UsageError)? {
        outln!("{line}");
    }
    Ok(())
}

fn run_inner(args: &HookArgs) -> Result<(), UsageError> {
    match &args.action {
        HookAction::Install { pre_push, root } => {
            let dir = hooks_dir(root)?;
            say(hooks::install(&dir, "pre-commit", hooks::PRE_COMMIT))?;
            if *pre_push {
                say(hooks::install(&dir, "pre-push", hooks::PRE_PUSH))?;
            }
            Ok(())
        }
        HookAction::Uninstall { root } => {
            let dir = hooks_dir(root)?;
            say(hooks::uninstall(&dir, "pre-commit"))?;
            say(hooks::uninstall(&dir, "pre-push"))
        }
    }
}
