//! Where a repository's daemon lives: a private folder inside its git dir
//! (`.git/yttcheck/`, mode 0700), holding the socket (`<version>.sock`,
//! 0600), the status file and the log. One daemon per repository and
//! version: a new binary never talks to an old daemon.

use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// The longest socket path a `sockaddr_un` takes, with room to spare.
const MAX_SOCKET_PATH: usize = 100;

#[derive(Debug, Clone)]
pub struct DaemonPaths {
    pub dir: PathBuf,
    pub socket: PathBuf,
    pub status: PathBuf,
    pub log: PathBuf,
}

/// The effective user id (`geteuid`).
pub fn euid() -> u32 {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() }
}

impl DaemonPaths {
    /// The paths of the daemon of the repository whose git dir is `git_dir`.
    pub fn for_git_dir(git_dir: &Path) -> DaemonPaths {
        let version = env!("CARGO_PKG_VERSION");
        let mut dir = git_dir.join("yttcheck");
        // a deep repository: the socket goes to a private runtime folder,
        // named by a hash of the git dir
        if dir.join(format!("{version}.sock")).as_os_str().len() > MAX_SOCKET_PATH {
            use std::hash::{Hash, Hasher};
            let mut h = std::collections::hash_map::DefaultHasher::new();
            git_dir.hash(&mut h);
            let base = std::env::var_os("XDG_RUNTIME_DIR")
                .map(PathBuf::from)
                .unwrap_or_else(|| PathBuf::from("/tmp"));
            dir = base
                .join(format!("yttcheck-{}", euid()))
                .join(format!("{:016x}", h.finish()));
        }
        DaemonPaths {
            socket: dir.join(format!("{version}.sock")),
            status: dir.join(format!("{version}.status.json")),
            log: dir.join(format!("{version}.log")),
            dir,
        }
    }

    /// Creates the folder (and a private parent for the runtime case) with
    /// mode 0700, or checks that the existing one is ours and private: a
    /// folder another user can write to could hold a socket that is not
    /// our daemon's.
    pub fn ensure_private(&self) -> Result<(), String> {
        let mut dirs = Vec::new();
        if let Some(parent) = self.dir.parent() {
            if parent
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("yttcheck-"))
            {
                dirs.push(parent);
            }
        }
        dirs.push(self.dir.as_path());
        for dir in dirs {
            if !dir.exists() {
                std::fs::DirBuilder::new()
                    .mode(0o700)
                    .create(dir)
                    .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
            }
            let md = std::fs::symlink_metadata(dir)
                .map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
            if !md.is_dir() {
                return Err(format!("{} is not a folder", dir.display()));
            }
            if md.uid() != euid() {
                return Err(format!(
                    "{} belongs to uid {}, not to you (uid {}): the daemon will not use it",
                    dir.display(),
                    md.uid(),
                    euid()
                ));
            }
            if md.mode() & 0o077 != 0 {
                std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
                    .map_err(|e| format!("cannot make {} private: {e}", dir.display()))?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_folder_is_made_private_and_a_long_path_moves_to_the_runtime_folder() {
        let t = tempfile::tempdir().unwrap();
        let p = DaemonPaths::for_git_dir(&t.path().join(".git"));
        std::fs::create_dir_all(t.path().join(".git")).unwrap();
        p.ensure_private().unwrap();
        let md = std::fs::metadata(&p.dir).unwrap();
        assert_eq!(md.mode() & 0o777, 0o700);
        assert!(p.socket.starts_with(t.path().join(".git/yttcheck")));
        // a group-writable folder is made private again
        std::fs::set_permissions(&p.dir, std::fs::Permissions::from_mode(0o777)).unwrap();
        p.ensure_private().unwrap();
        assert_eq!(std::fs::metadata(&p.dir).unwrap().mode() & 0o777, 0o700);

        let deep = t.path().join("a".repeat(120)).join(".git");
        let p = DaemonPaths::for_git_dir(&deep);
        assert!(
            p.socket.as_os_str().len() <= MAX_SOCKET_PATH + 40,
            "{}",
            p.socket.display()
        );
        assert!(!p.socket.starts_with(&deep));
    }
}
