//! `yttcheck hook install [--pre-push]` and `yttcheck hook uninstall`: the
//! plain git hooks of the repository's `hooks/` folder, put where git runs
//! hooks (`core.hooksPath`, else `.git/hooks`). A hook that is already there
//! is kept and chained (renamed `<hook>.yttcheck-chained`, run first by
//! ours), never overwritten; uninstall puts it back.

use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};

use crate::source::git::Git;

use crate::app::UsageError;

/// The hooks, as in the repository's `hooks/` folder.
const PRE_COMMIT: &str = include_str!("../../hooks/pre-commit");
const PRE_PUSH: &str = include_str!("../../hooks/pre-push");

/// How a hook of ours starts, exactly: its first line and the start of its
/// second. A hook is ours only when it starts so: a hook of the user's that
/// merely mentions yttcheck (in a comment, a command) is never taken for
/// ours, so never overwritten nor removed.
fn header(name: &str) -> String {
    format!("#!/bin/sh\n# yttcheck's {name} hook: ")
}

const CHAINED: &str = ".yttcheck-chained";

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

fn ours(path: &Path, name: &str) -> bool {
    // a link is never ours (we write plain files)
    std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file())
        && std::fs::read_to_string(path).is_ok_and(|t| t.starts_with(&header(name)))
}

fn chained(hook: &Path) -> PathBuf {
    let mut name = hook.as_os_str().to_owned();
    name.push(CHAINED);
    PathBuf::from(name)
}

fn io(what: &str, path: &Path, e: std::io::Error) -> UsageError {
    UsageError(format!("cannot {what} {}: {e}", path.display()))
}

fn install(dir: &Path, name: &str, text: &str) -> Result<(), UsageError> {
    std::fs::create_dir_all(dir).map_err(|e| io("create", dir, e))?;
    let hook = dir.join(name);
    let exists = std::fs::symlink_metadata(&hook).is_ok();
    if exists && !ours(&hook, name) {
        let keep = chained(&hook);
        if std::fs::symlink_metadata(&keep).is_ok() {
            return Err(UsageError(format!(
                "{} is not yttcheck's, and {} is taken: move one of them away first",
                hook.display(),
                keep.display()
            )));
        }
        std::fs::rename(&hook, &keep).map_err(|e| io("move", &hook, e))?;
        outln!(
            "kept the existing {name} hook as {} (it runs first)",
            keep.display()
        );
    }
    // written beside, then renamed over: a commit never runs half a hook,
    // and a link where the hook goes is replaced, never written through
    crate::disk::write::replace_with_mode(dir, std::ffi::OsStr::new(name), text.as_bytes(), 0o755)
        .map_err(|e| io("write", &hook, e))?;
    outln!("installed {}", hook.display());
    Ok(())
}

fn uninstall(dir: &Path, name: &str) -> Result<(), UsageError> {
    let hook = dir.join(name);
    if std::fs::symlink_metadata(&hook).is_err() {
        return Ok(());
    }
    if !ours(&hook, name) {
        outln!("left {} alone: it is not yttcheck's", hook.display());
        return Ok(());
    }
    std::fs::remove_file(&hook).map_err(|e| io("remove", &hook, e))?;
    let keep = chained(&hook);
    if std::fs::symlink_metadata(&keep).is_ok() {
        std::fs::rename(&keep, &hook).map_err(|e| io("restore", &keep, e))?;
        outln!("removed yttcheck's {name} hook and put back the one it chained");
    } else {
        outln!("removed {}", hook.display());
    }
    Ok(())
}

fn run_inner(args: &HookArgs) -> Result<(), UsageError> {
    match &args.action {
        HookAction::Install { pre_push, root } => {
            let dir = hooks_dir(root)?;
            install(&dir, "pre-commit", PRE_COMMIT)?;
            if *pre_push {
                install(&dir, "pre-push", PRE_PUSH)?;
            }
            Ok(())
        }
        HookAction::Uninstall { root } => {
            let dir = hooks_dir(root)?;
            uninstall(&dir, "pre-commit")?;
            uninstall(&dir, "pre-push")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn our_hooks_start_with_the_header_and_a_mention_is_not_ours() {
        for (name, text) in [("pre-commit", PRE_COMMIT), ("pre-push", PRE_PUSH)] {
            assert!(text.starts_with(&header(name)), "{name}");
        }
        let d = tempfile::tempdir().unwrap();
        let hook = d.path().join("pre-commit");
        std::fs::write(
            &hook,
            "#!/bin/sh\n# runs lint; we used to run yttcheck's pre-commit hook: see # yttcheck's pre-\nmake lint\n",
        )
        .unwrap();
        assert!(!ours(&hook, "pre-commit"));
        std::fs::write(&hook, PRE_COMMIT).unwrap();
        assert!(ours(&hook, "pre-commit"));
        assert!(!ours(&hook, "pre-push"));
    }
}
