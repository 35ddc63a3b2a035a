//! Files that change outside the editor (a branch switch, a formatter, a
//! generator): the client watches them for us when it can
//! (`workspace/didChangeWatchedFiles`, registered at start), else our own
//! watcher (`notify`) does. Either way a change marks the workspace for
//! another check; what is open is still read from the editor's buffers.

use std::path::PathBuf;

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

/// Our own watcher over the folders: a message on the channel per batch of
/// changes (git's own folder and the build folders left out). Dropping the
/// watcher stops it.
pub struct Fallback {
    watcher: Option<notify::RecommendedWatcher>,
    sender: Sender<()>,
    pub changes: Receiver<()>,
}

impl Fallback {
    pub fn new() -> Fallback {
        let (sender, changes) = crossbeam_channel::bounded(1);
        Fallback {
            watcher: None,
            sender,
            changes,
        }
    }

    /// Watches `folders` (and no others): called at start and when the
    /// client's workspace folders change. A folder that cannot be watched
    /// is left to saves and edits.
    pub fn watch(&mut self, folders: &[PathBuf]) -> Result<(), String> {
        use notify::Watcher;
        let tx = self.sender.clone();
        let mut watcher =
            notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
                let Ok(event) = event else { return };
                if matches!(event.kind, notify::EventKind::Access(_)) {
                    return;
                }
                let relevant = event.paths.iter().any(|p| {
                    !p.components().any(|c| {
                        matches!(
                            c.as_os_str().to_str(),
                            Some(".git" | "target" | "node_modules")
                        )
                    })
                });
                if relevant {
                    // one pending change is enough: the check reads everything
                    let _ = tx.try_send(());
                }
            })
            .map_err(|e| e.to_string())?;
        let mut failed = Vec::new();
        for f in folders {
            if let Err(e) = watcher.watch(f, notify::RecursiveMode::Recursive) {
                failed.push(format!("{}: {e}", f.display()));
            }
        }
        self.watcher = Some(watcher);
        if failed.is_empty() {
            Ok(())
        } else {
            Err(failed.join("; "))
        }
    }
}
