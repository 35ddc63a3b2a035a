//! Files that change outside the editor (a branch switch, a formatter, a
//! generator): the client watches them for us when it can
//! (`workspace/didChangeWatchedFiles`, registered at start), else our own
//! watcher (`notify`) does. Either way a change marks the workspace for
//! another check; what is open is still read from the editor's buffers.

use std::path::{Path, PathBuf};

use crossbeam_channel::{Receiver, Sender};
use lsp_types::{
    DidChangeWatchedFilesRegistrationOptions, FileSystemWatcher, GlobPattern, Registration,
    RegistrationParams,
};

/// The files whose changes matter: ytt's inputs and the configuration.
const GLOBS: &[&str] = &["**/*.{yml,yaml,star,txt,json}", "**/.yttcheck.yml"];

/// Whether the client can watch files for us.
pub fn client_watches(caps: &lsp_types::ClientCapabilities) -> bool {
    caps.workspace
        .as_ref()
        .and_then(|w| w.did_change_watched_files.as_ref())
        .and_then(|d| d.dynamic_registration)
        .unwrap_or(false)
}

/// The `client/registerCapability` request that asks the client to watch.
pub fn registration() -> lsp_server::Request {
    let options = DidChangeWatchedFilesRegistrationOptions {
        watchers: GLOBS
            .iter()
            .map(|g| FileSystemWatcher {
                glob_pattern: GlobPattern::String((*g).to_string()),
                kind: None,
            })
            .collect(),
    };
    let params = RegistrationParams {
        registrations: vec![Registration {
            id: "yttcheck-watched-files".into(),
            method: "workspace/didChangeWatchedFiles".into(),
            register_options: serde_json::to_value(options).ok(),
        }],
    };
    lsp_server::Request::new(
        lsp_server::RequestId::from("yttcheck-register-watch".to_string()),
        "client/registerCapability".into(),
        params,
    )
}

/// The most folders our own watcher watches (one inotify watch each); the
/// rest is left to saves and edits.
const MAX_FOLDERS: usize = 10_000;

/// Folders never watched: git's own, and build and package folders.
const SKIPPED: &[&str] = &[".git", "target", "node_modules"];

/// The folders under `root` to watch, `root` first: every folder reached
/// without following a link (a link to a folder of the workspace is
/// watched where that folder lies; one to a folder outside it is not the
/// workspace's: a `vendor -> /usr` link would have made thousands of
/// watches), the [`SKIPPED`] ones left out, at most `limit`.
pub fn folders_to_watch(root: &Path, limit: usize) -> Vec<PathBuf> {
    let mut out = vec![root.to_path_buf()];
    let mut next = 0;
    while next < out.len() && out.len() < limit {
        let Ok(entries) = std::fs::read_dir(&out[next]) else {
            next += 1;
            continue;
        };
        let mut found: Vec<PathBuf> = entries
            .flatten()
            .filter(|e| {
                // the entry itself: a link is not a folder here
                e.file_type().is_ok_and(|t| t.is_dir())
                    && !e.file_name().to_str().is_some_and(|n| SKIPPED.contains(&n))
            })
            .map(|e| e.path())
            .collect();
        found.sort();
        out.extend(found);
        next += 1;
    }
    out.truncate(limit);
    out
}

/// Our own watcher over the folders: a message on the channel per batch of
/// changes (git's own folder and the build folders left out). Each folder
/// is watched on its own ([`folders_to_watch`]), and a folder made or moved
/// in later is watched when the server next hears of a change
/// ([`Fallback::watch_new_folders`]). Dropping the watcher stops it.
pub struct Fallback {
    watcher: Option<notify::RecommendedWatcher>,
    sender: Sender<()>,
    pub changes: Receiver<()>,
    /// Folders made since they were listed, as the watcher's thread saw them.
    created: Receiver<PathBuf>,
    created_sender: Sender<PathBuf>,
    roots: Vec<PathBuf>,
    /// Folders watched.
    watched: usize,
}

impl Fallback {
    pub fn new() -> Fallback {
        let (sender, changes) = crossbeam_channel::bounded(1);
        let (created_sender, created) = crossbeam_channel::unbounded();
        Fallback {
            watcher: None,
            sender,
            changes,
            created,
            created_sender,
            roots: Vec::new(),
            watched: 0,
        }
    }

    /// Watches `folders` (and no others): called at start and when the
    /// client's workspace folders change. A folder that cannot be watched
    /// is left to saves and edits.
    pub fn watch(&mut self, folders: &[PathBuf]) -> Result<(), String> {
        let tx = self.sender.clone();
        let created = self.created_sender.clone();
        let watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
            let Ok(event) = event else { return };
            if matches!(event.kind, notify::EventKind::Access(_)) {
                return;
            }
            let relevant = event.paths.iter().any(|p| {
                !p.components()
                    .any(|c| matches!(c.as_os_str().to_str(), Some(n) if SKIPPED.contains(&n)))
            });
            if !relevant {
                return;
            }
            if matches!(
                event.kind,
                notify::EventKind::Create(_)
                    | notify::EventKind::Modify(notify::event::ModifyKind::Name(_))
            ) {
                for p in &event.paths {
                    // a folder, not a link to one
                    if std::fs::symlink_metadata(p).is_ok_and(|m| m.is_dir()) {
                        let _ = created.send(p.clone());
                    }
                }
            }
            // one pending change is enough: the check reads everything
            let _ = tx.try_send(());
        })
        .map_err(|e| e.to_string())?;
        self.watcher = Some(watcher);
        self.roots = folders.to_vec();
        self.watched = 0;
        let mut failed = Vec::new();
        for f in folders {
            if let Err(e) = self.watch_tree(f) {
                failed.push(format!("{}: {e}", f.display()));
            }
        }
        if failed.is_empty() {
            Ok(())
        } else {
            Err(failed.join("; "))
        }
    }

    /// Watches the folders made since the last call (and what is in them).
    pub fn watch_new_folders(&mut self) {
        while let Ok(folder) = self.created.try_recv() {
            let inside = self.roots.iter().any(|r| {
                folder.strip_prefix(r).is_ok_and(|rel| {
                    !rel.components()
                        .any(|c| matches!(c.as_os_str().to_str(), Some(n) if SKIPPED.contains(&n)))
                })
            });
            if inside {
                let _ = self.watch_tree(&folder);
            }
        }
    }

    /// Watches `top` and the folders under it, each on its own.
    fn watch_tree(&mut self, top: &Path) -> Result<(), String> {
        use notify::Watcher;
        let Some(watcher) = self.watcher.as_mut() else {
            return Ok(());
        };
        let room = MAX_FOLDERS.saturating_sub(self.watched);
        let folders = folders_to_watch(top, room);
        if folders.is_empty() {
            return Err(format!(
                "more than {MAX_FOLDERS} folders: not all are watched"
            ));
        }
        for (i, f) in folders.iter().enumerate() {
            match watcher.watch(f, notify::RecursiveMode::NonRecursive) {
                Ok(()) => self.watched += 1,
                // the top could not be watched; a folder below that went
                // meanwhile is no matter
                Err(e) if i == 0 => return Err(e.to_string()),
                Err(_) => {}
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_folders_watched_stay_in_the_workspace() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path().join("repo");
        let outside = d.path().join("outside");
        for f in ["a/b", ".git/objects", "target/debug", "node_modules/m", "c"] {
            std::fs::create_dir_all(root.join(f)).unwrap();
        }
        for f in ["x/y", "z"] {
            std::fs::create_dir_all(outside.join(f)).unwrap();
        }
        std::fs::write(root.join("a/file.yml"), "a: 1\n").unwrap();
        std::os::unix::fs::symlink(&outside, root.join("vendor")).unwrap();
        std::os::unix::fs::symlink(root.join("a"), root.join("inner")).unwrap();
        std::os::unix::fs::symlink("/usr", root.join("c/usr")).unwrap();
        assert_eq!(
            folders_to_watch(&root, 100),
            vec![
                root.clone(),
                root.join("a"),
                root.join("c"),
                root.join("a/b")
            ]
        );
        assert_eq!(
            folders_to_watch(&root, 2),
            vec![root.clone(), root.join("a")]
        );
        assert!(folders_to_watch(&root, 0).is_empty());
    }
}
