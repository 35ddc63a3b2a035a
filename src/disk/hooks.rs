//! yttcheck's plain git hooks (the repository's `hooks/` folder) put where
//! git runs hooks, and taken away. A hook that is already there is kept
//! and chained (renamed `<hook>.yttcheck-chained`, run first by ours),
//! never overwritten; uninstall puts it back.

use std::path::{Path, PathBuf};

/// The hooks, as in the repository's `hooks/` folder.
pub const PRE_COMMIT: &str = include_str!("../../hooks/pre-commit");
pub const PRE_PUSH: &str = include_str!("../../hooks/pre-push");

/// How a hook of ours starts, exactly: its first line and the start of its
/// second. A hook is ours only when it starts so: a hook of the user's that
/// merely mentions yttcheck (in a comment, a command) is never taken for
/// ours, so never overwritten nor removed.
fn header(name: &str) -> String {
    format!("#!/bin/sh\n# yttcheck's {name} hook: ")
}

const CHAINED: &str = ".yttcheck-chained";

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

fn io(what: &str, path: &Path, e: std::io::Error) -> String {
    format!("cannot {what} {}: {e}", path.display())
}

/// Installs hook `name` (`text`) in `dir`, keeping a hook that is not ours
/// as `<name>.yttcheck-chained` (ours runs it first); what was done, a
/// line each, for the user.
pub fn install(dir: &Path, name: &str, text: &str) -> Result<Vec<String>, String> {
    let mut done = Vec::new();
    std::fs::create_dir_all(dir).map_err(|e| io("create", dir, e))?;
    let hook = dir.join(name);
    let exists = std::fs::symlink_metadata(&hook).is_ok();
    if exists && !ours(&hook, name) {
        let keep = chained(&hook);
        if std::fs::symlink_metadata(&keep).is_ok() {
            return Err(format!(
                "{} is not yttcheck's, and {} is taken: move one of them away first",
                hook.display(),
                keep.display()
            ));
        }
        std::fs::rename(&hook, &keep).map_err(|e| io("move", &hook, e))?;
        done.push(format!(
            "kept the existing {name} hook as {} (it runs first)",
            keep.display()
        ));
    }
    // written beside, then renamed over: a commit never runs half a hook,
    // and a link where the hook goes is replaced, never written through
    super::write::replace_with_mode(dir, std::ffi::OsStr::new(name), text.as_bytes(), 0o755)
        .map_err(|e| {
            // what was done before it failed is said with the error
            let mut why = io("write", &hook, e);
            for line in &done {
                why.push_str(&format!("; {line}"));
            }
            why
        })?;
    done.push(format!("installed {}", hook.display()));
    Ok(done)
}

/// Removes our hook `name` from `dir`, putting back the one it chained; a
/// hook that is not ours is left alone. What was done, for the user.
pub fn uninstall(dir: &Path, name: &str) -> Result<Vec<String>, String> {
    let hook = dir.join(name);
    if std::fs::symlink_metadata(&hook).is_err() {
        return Ok(Vec::new());
    }
    if !ours(&hook, name) {
        return Ok(vec![format!(
            "left {} alone: it is not yttcheck's",
            hook.display()
        )]);
    }
    std::fs::remove_file(&hook).map_err(|e| io("remove", &hook, e))?;
    let keep = chained(&hook);
    if std::fs::symlink_metadata(&keep).is_ok() {
        std::fs::rename(&keep, &hook).map_err(|e| io("restore", &keep, e))?;
        Ok(vec![format!(
            "removed yttcheck's {name} hook and put back the one it chained"
        )])
    } else {
        Ok(vec![format!("removed {}", hook.display())])
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
