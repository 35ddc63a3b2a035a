//! The checks, off the loop that answers requests: one worker thread runs
//! them one at a time, with the memo it keeps between them, while hover,
//! completion and symbols are answered at once from the editor's state.
//!
//! Each check has a generation; a newer check supersedes the one running:
//! the running one stops at its next folder, and what it found is dropped,
//! never published (the engine is not interrupted inside a folder's check:
//! every evaluation there is bounded by the budget). A pair whose budget ran
//! out is kept in the memo like any other outcome, so a template that loops
//! is evaluated again only when something it reads changes.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crossbeam_channel::{unbounded, Receiver, Sender};
use lsp_types::Diagnostic;

use crate::app::{self, CheckRequest, SourceOptions, Warm};
use crate::check::Memo;
use crate::source::RepoPath;

/// The longest one file's evaluation may take in the editor (the default
/// budget). A repository's `budget:` may ask for less, not for more: the
/// repository opened in the editor chooses it, and a day-long budget
/// would hold every check for a day.
pub const MAX_TIMEOUT_SECONDS: f64 = 10.0;

/// A check to run: every folder, with the editor's buffers.
pub struct Job {
    pub generation: u64,
    pub folders: Vec<FolderJob>,
    /// The user trusts the workspace: its configuration's schema locations
    /// may be fetched over the network (else the schema cache only).
    pub trusted: bool,
}

pub struct FolderJob {
    pub root: PathBuf,
    pub buffers: BTreeMap<RepoPath, Option<Vec<u8>>>,
    pub kubernetes: Arc<app::kubernetes::KubernetesCache>,
}

/// A finished check.
pub struct Done {
    pub generation: u64,
    pub folders: Vec<(PathBuf, Outcome)>,
}

pub enum Outcome {
    /// The diagnostics of every file, by URI.
    Checked(BTreeMap<String, Vec<Diagnostic>>),
    /// The check could not run (a configuration error): no diagnostics.
    Failed(String),
    /// The check failed inside (a panic): what was published stays.
    Panicked,
}

/// The worker thread's side, as the server holds it.
pub struct Worker {
    jobs: Sender<Job>,
    pub done: Receiver<Done>,
    /// The newest generation asked for.
    latest: Arc<AtomicU64>,
}

impl Worker {
    /// Starts the worker thread (it ends when the server drops this).
    pub fn start(make_fetch: Arc<app::kubernetes::MakeFetch>) -> Worker {
        let (jobs, job_receiver) = unbounded::<Job>();
        let (done_sender, done) = unbounded::<Done>();
        let latest = Arc::new(AtomicU64::new(0));
        let seen = latest.clone();
        std::thread::Builder::new()
            .name("yttcheck-lsp-check".into())
            .spawn(move || {
                let memo = Memo::persistent().keeping_budget_failures();
                run(&job_receiver, &done_sender, &seen, &memo, &*make_fetch);
            })
            .expect("a thread");
        Worker { jobs, done, latest }
    }

    /// Asks for a check, superseding any before it.
    pub fn submit(&self, job: Job) {
        self.latest.store(job.generation, Ordering::SeqCst);
        let _ = self.jobs.send(job);
    }
}

fn run(
    jobs: &Receiver<Job>,
    done: &Sender<Done>,
    latest: &AtomicU64,
    memo: &Memo,
    make_fetch: &app::kubernetes::MakeFetch,
) {
    while let Ok(mut job) = jobs.recv() {
        // only the newest check asked for is run
        while let Ok(newer) = jobs.try_recv() {
            job = newer;
        }
        let current = || latest.load(Ordering::SeqCst) == job.generation;
        let mut folders = Vec::new();
        for f in &job.folders {
            if !current() {
                break;
            }
            let checked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                check(f, job.trusted, memo, make_fetch)
            }));
            let outcome = match checked {
                Ok(Ok(findings)) => {
                    Outcome::Checked(super::diagnostics::by_file(&f.root, &findings))
                }
                Ok(Err(e)) => Outcome::Failed(e.to_string()),
                Err(_) => Outcome::Panicked,
            };
            folders.push((f.root.clone(), outcome));
        }
        // a superseded check's findings are dropped
        if current() {
            let _ = done.send(Done {
                generation: job.generation,
                folders,
            });
        }
    }
}

/// The check request of a folder: every pair, no report; Kubernetes
/// schemas from the user's cache, and from the network only when the user
/// trusts the workspace (its `.yttcheck.yml` names what is fetched).
pub fn request(root: &Path, trusted: bool, budget: app::Budget) -> CheckRequest {
    let mut request = CheckRequest::whole(root.to_path_buf());
    request.outputs.clear();
    request.budget = budget;
    request.kubernetes.schema_cache = app::kubernetes::user_schema_cache(
        std::env::var_os("XDG_CACHE_HOME"),
        std::env::var_os("HOME"),
    );
    request.kubernetes.offline = !trusted;
    request
}

/// The budget of a folder's evaluations: its configuration's timeout (as
/// `text`, the editor's buffer or the file), at most
/// [`MAX_TIMEOUT_SECONDS`].
pub fn budget(config: Option<&str>) -> app::Budget {
    let asked = config
        .zip(RepoPath::new(crate::workspace::CONFIG_FILE))
        .and_then(|(text, path)| crate::workspace::Config::parse(&path, text).ok())
        .and_then(|c| c.budget)
        .and_then(|b| b.timeout_seconds)
        .filter(|t| t.is_finite() && *t > 0.0);
    app::Budget {
        max_steps: None,
        timeout: Some(asked.map_or(MAX_TIMEOUT_SECONDS, |t| t.min(MAX_TIMEOUT_SECONDS))),
    }
}

/// The configuration's text, from the editor's buffers, else the disk.
pub fn config_text(root: &Path, buffers: &BTreeMap<RepoPath, Option<Vec<u8>>>) -> Option<String> {
    match RepoPath::new(crate::workspace::CONFIG_FILE).and_then(|p| buffers.get(&p)) {
        Some(Some(bytes)) => String::from_utf8(bytes.clone()).ok(),
        Some(None) => None,
        None => crate::source::read_local_text(&root.join(crate::workspace::CONFIG_FILE)).ok(),
    }
}

/// Every finding of a folder, its files read through the editor's buffers.
fn check(
    f: &FolderJob,
    trusted: bool,
    memo: &Memo,
    make_fetch: &app::kubernetes::MakeFetch,
) -> Result<Vec<crate::check::Finding>, app::UsageError> {
    let budget = budget(config_text(&f.root, &f.buffers).as_deref());
    let request = request(&f.root, trusted, budget);
    let warm = Warm {
        store: None,
        plans: None,
        memo: Some(memo),
        sources: SourceOptions {
            buffers: Some(Arc::new(f.buffers.clone())),
            ..SourceOptions::default()
        },
        outcomes: None,
        exits_after: false,
        kubernetes: Some(&f.kubernetes),
        schema_fetch: Some(make_fetch),
        // no text report
        frames: None,
    };
    app::check::run(&request, &warm, |checked| checked.result.findings.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_untrusted_workspace_is_checked_offline() {
        let root = Path::new("/repo");
        let r = request(root, false, app::Budget::default());
        assert!(r.kubernetes.offline, "nothing is fetched until trusted");
        assert!(r.outputs.is_empty());
        assert!(
            !request(root, true, app::Budget::default())
                .kubernetes
                .offline
        );
    }

    #[test]
    fn the_budget_is_the_configurations_at_most_the_editors() {
        let t = |config: Option<&str>| budget(config).timeout;
        assert_eq!(t(None), Some(MAX_TIMEOUT_SECONDS));
        assert_eq!(t(Some("budget:\n  timeout_seconds: 2\n")), Some(2.0));
        assert_eq!(
            t(Some("budget:\n  timeout_seconds: 86400\n")),
            Some(MAX_TIMEOUT_SECONDS)
        );
        assert_eq!(t(Some("budget: [")), Some(MAX_TIMEOUT_SECONDS));
    }
}
