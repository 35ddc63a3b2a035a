//! The daemon's server: a tokio loop on the repository's Unix socket.
//!
//! Each connection carries one request and gets one reply. Peers of another
//! user are refused (`SO_PEERCRED`); a malformed, truncated or oversized
//! request gets an error reply and the daemon goes on. Checks run on
//! blocking threads through the application's check
//! ([`crate::app::check::execute`], the command line's own), with the file
//! store and memo kept here between requests.
//!
//! The daemon exits when idle for its timeout, when asked, or when its
//! socket file is removed or taken over; it asks its host to restart it
//! when `.yttcheck.yml` or its own binary changes.

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{UnixListener, UnixStream};

use super::paths::{euid, DaemonPaths};
use super::protocol::{Answer, CheckCall, Reply, Request, Status, MAX_REQUEST};
use super::watch::Watcher;
use crate::check::Memo;
use crate::source::cache::FileStore;

/// What the daemon keeps between requests, lent to the check handler.
pub struct Warm {
    pub store: FileStore,
    pub plans: crate::workspace::PlanCache,
    pub memo: Memo,
    pub watcher: Watcher,
    pub kubernetes: crate::app::kubernetes::KubernetesCache,
    /// The host's schema fetcher.
    pub make_fetch: Option<Arc<crate::app::kubernetes::MakeFetch>>,
    /// The text report's frames of the last checks.
    pub frames: crate::report::text::FrameCache,
}

pub struct ServeOptions {
    pub paths: DaemonPaths,
    /// The work tree served.
    pub root: PathBuf,
    /// Its git dir (a check's folder inside it is not in the work tree).
    pub git_dir: PathBuf,
    pub idle: Duration,
    /// Restarts so far (the host counts them across `exec`).
    pub restarts: u32,
    /// The host's Kubernetes schema fetcher.
    pub make_fetch: Option<Arc<crate::app::kubernetes::MakeFetch>>,
}

/// Why [`serve`] returned.
#[derive(Debug, PartialEq, Eq)]
pub enum Exit {
    /// Idle for the timeout, asked to stop, or its socket was taken.
    Done(String),
    /// The config or the binary changed: the host should start afresh.
    Restart(String),
}

/// Entries a file store keeps (a bound on memory).
const STORE_LIMIT: usize = 200_000;

/// How long a client may take to send its request.
const READ_TIMEOUT: Duration = Duration::from_secs(10);

struct State {
    opts: ServeOptions,
    warm: Arc<Warm>,
    started: u64,
    config_hash: std::sync::Mutex<String>,
    requests: AtomicU64,
    active: AtomicU64,
    last_activity: std::sync::Mutex<Instant>,
    stop: tokio::sync::Notify,
    stopping: AtomicBool,
}

fn now_unix() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// A hash of `.yttcheck.yml` ("" without one).
pub fn config_hash(root: &Path) -> String {
    use sha2::{Digest, Sha256};
    match std::fs::read(root.join(crate::workspace::CONFIG_FILE)) {
        Ok(bytes) => Sha256::digest(&bytes)
            .iter()
            .take(8)
            .map(|b| format!("{b:02x}"))
            .collect(),
        Err(_) => String::new(),
    }
}

/// Resident memory in KiB (Linux's /proc; 0 elsewhere).
fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

/// The identity of a file (device, inode, size, mtime), to notice a
/// replaced binary or socket.
fn identity(path: &Path) -> Option<(u64, u64, u64, i64)> {
    std::fs::metadata(path)
        .ok()
        .map(|m| (m.dev(), m.ino(), m.size(), m.mtime()))
}

impl State {
    fn status(&self) -> Status {
        Status {
            pid: std::process::id(),
            version: env!("CARGO_PKG_VERSION").to_string(),
            root: self.opts.root.clone(),
            socket: self.opts.paths.socket.clone(),
            started: self.started,
            restarts: self.opts.restarts,
            config_hash: self.config_hash.lock().expect("status").clone(),
            requests: self.requests.load(Relaxed),
            idle_timeout_seconds: self.opts.idle.as_secs(),
            rss_kib: rss_kib(),
            files: self.warm.store.stats(),
            plan_hits: self.warm.plans.stats().0,
            plan_misses: self.warm.plans.stats().1,
            memo: self.warm.memo.stats(),
            watched_changes: self.warm.watcher.changes(),
        }
    }

    /// Writes the status file (atomically: a reader never sees half).
    fn write_status(&self) {
        let tmp = self.opts.paths.status.with_extension("json.tmp");
        if let Ok(text) = serde_json::to_string_pretty(&self.status()) {
            if std::fs::write(&tmp, text).is_ok() {
                let _ = std::fs::rename(&tmp, &self.opts.paths.status);
            }
        }
    }

    fn touch(&self) {
        *self.last_activity.lock().expect("activity") = Instant::now();
    }
}

/// Binds the socket: a live daemon there is an error; anything else where
/// the socket goes (a stale socket whose daemon was killed, a dangling or
/// any other symlink, a plain file) is removed first. The folder is ours
/// (0700); a link there is never followed, not even to ask for a daemon.
fn bind(socket: &Path) -> Result<UnixListener, String> {
    use std::os::unix::fs::FileTypeExt;
    if let Ok(md) = std::fs::symlink_metadata(socket) {
        let live =
            md.file_type().is_socket() && std::os::unix::net::UnixStream::connect(socket).is_ok();
        if live {
            return Err(format!(
                "a daemon is already running on {}",
                socket.display()
            ));
        }
        std::fs::remove_file(socket).map_err(|e| {
            format!(
                "cannot remove {} (where the socket goes): {e}",
                socket.display()
            )
        })?;
    }
    let listener = UnixListener::bind(socket)
        .map_err(|e| format!("cannot listen on {}: {e}", socket.display()))?;
    std::fs::set_permissions(socket, std::fs::Permissions::from_mode(0o600))
        .map_err(|e| format!("cannot make {} private: {e}", socket.display()))?;
    Ok(listener)
}

/// Serves until idle, stopped, or restarted.
pub fn serve(mut opts: ServeOptions) -> Result<Exit, String> {
    // requests name folders as the client sees them: compared resolved
    opts.root = opts.root.canonicalize().unwrap_or(opts.root);
    opts.git_dir = opts.git_dir.canonicalize().unwrap_or(opts.git_dir);
    opts.paths.ensure_private()?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .max_blocking_threads(16)
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the daemon's runtime: {e}"))?;
    runtime.block_on(async move {
        let listener = bind(&opts.paths.socket)?;
        let socket_identity = identity(&opts.paths.socket);
        let exe = std::env::current_exe().ok();
        let exe_identity = exe.as_deref().and_then(identity);
        let watcher = Watcher::start(&opts.root)?;
        let state = Arc::new(State {
            config_hash: std::sync::Mutex::new(config_hash(&opts.root)),
            warm: Arc::new(Warm {
                store: FileStore::new(STORE_LIMIT),
                plans: crate::workspace::PlanCache::new(),
                memo: Memo::persistent(),
                watcher,
                kubernetes: Default::default(),
                make_fetch: opts.make_fetch.take(),
                frames: Default::default(),
            }),
            opts,
            started: now_unix(),
            requests: AtomicU64::new(0),
            active: AtomicU64::new(0),
            last_activity: std::sync::Mutex::new(Instant::now()),
            stop: tokio::sync::Notify::new(),
            stopping: AtomicBool::new(false),
        });
        state.write_status();
        let mut tick = tokio::time::interval(Duration::from_millis(250));
        // the status file follows the requests, off their path
        let mut written = 0;
        let mut config_seen_at: Option<Instant> = None;
        let exit = loop {
            tokio::select! {
                accepted = listener.accept() => {
                    if let Ok((stream, _)) = accepted {
                        let state = state.clone();
                        state.active.fetch_add(1, Relaxed);
                        state.touch();
                        tokio::spawn(async move {
                            connection(&state, stream).await;
                            state.touch();
                            state.active.fetch_sub(1, Relaxed);
                        });
                    }
                }
                _ = state.stop.notified() => break Exit::Done("asked to stop".into()),
                _ = tick.tick() => {
                    let served = state.requests.load(Relaxed);
                    if served != written {
                        written = served;
                        state.write_status();
                    }
                    if state.stopping.load(Relaxed) {
                        break Exit::Done("asked to stop".into());
                    }
                    if identity(&state.opts.paths.socket) != socket_identity {
                        break Exit::Done("its socket was removed or taken over".into());
                    }
                    if exe.as_deref().and_then(identity) != exe_identity {
                        break Exit::Restart("the yttcheck binary changed".into());
                    }
                    // an edit of the config is looked at a tick later (an
                    // editor finishing its write), without holding up the
                    // requests meanwhile
                    if config_seen_at.is_some_and(|t: Instant| t.elapsed() >= Duration::from_millis(200)) {
                        config_seen_at = None;
                        if config_hash(&state.opts.root) != *state.config_hash.lock().expect("status") {
                            break Exit::Restart(format!("{} changed", crate::workspace::CONFIG_FILE));
                        }
                    }
                    if state.warm.watcher.config_changed() {
                        config_seen_at.get_or_insert_with(Instant::now);
                    }
                    let idle = state.last_activity.lock().expect("activity").elapsed();
                    if state.active.load(Relaxed) == 0 && idle >= state.opts.idle {
                        break Exit::Done(format!("idle for {} s", state.opts.idle.as_secs()));
                    }
                }
            }
        };
        // the socket goes first, so no client connects to a daemon leaving
        if identity(&state.opts.paths.socket) == socket_identity {
            let _ = std::fs::remove_file(&state.opts.paths.socket);
        }
        let _ = std::fs::remove_file(&state.opts.paths.status);
        Ok(exit)
    })
}

/// One connection: check the peer, read one request, reply.
async fn connection(state: &Arc<State>, mut stream: UnixStream) {
    let reply = match stream.peer_cred() {
        Ok(cred) if cred.uid() == euid() => match read_request(&mut stream).await {
            Ok(request) => handle(state, request).await,
            Err(message) => Reply::Error { message },
        },
        Ok(cred) => Reply::Error {
            message: format!(
                "refused: the client runs as uid {}, the daemon as uid {}",
                cred.uid(),
                euid()
            ),
        },
        Err(e) => Reply::Error {
            message: format!("refused: cannot tell who the client is ({e})"),
        },
    };
    if let Some((head, stdout)) = super::protocol::encode_reply_parts(reply) {
        if stream.write_all(&head).await.is_ok() {
            let _ = stream.write_all(stdout.as_bytes()).await;
        }
        let _ = stream.shutdown().await;
    }
}

async fn read_request(stream: &mut UnixStream) -> Result<Request, String> {
    let mut line = Vec::new();
    let mut reader = BufReader::new(stream).take(MAX_REQUEST as u64 + 1);
    let read = tokio::time::timeout(READ_TIMEOUT, reader.read_until(b'\n', &mut line)).await;
    match read {
        Err(_) => return Err(format!("no request within {} s", READ_TIMEOUT.as_secs())),
        Ok(Err(e)) => return Err(format!("cannot read the request: {e}")),
        Ok(Ok(_)) => {}
    }
    if line.len() > MAX_REQUEST {
        return Err(format!("the request is over {MAX_REQUEST} bytes"));
    }
    if line.last() != Some(&b'\n') {
        return Err("the request is truncated (no newline at its end)".into());
    }
    serde_json::from_slice(&line).map_err(|e| format!("malformed request: {e}"))
}

/// A check, as the client asked for it, with the daemon's warm caches; or
/// why it will not run (a folder of another repository).
fn check(call: &CheckCall, state: &State) -> Result<Answer, String> {
    let (workdir, git_dir) = (&state.opts.root, &state.opts.git_dir);
    let root = call.request.cwd.join(&call.request.selection.root);
    // the client chose this daemon by the repository of the check's folder;
    // a folder outside the work tree is another repository's (a prefix
    // test: discovering the repository again costs a few ms)
    let inside = root
        .canonicalize()
        .is_ok_and(|r| r.starts_with(workdir) && !r.starts_with(git_dir));
    if !inside {
        return Err(format!(
            "{} is not in this daemon's repository ({})",
            root.display(),
            workdir.display()
        ));
    }
    let mut request = call.request.clone();
    // a progress bar is the client's terminal's, not the daemon's log's
    request.progress = false;
    let warm = &state.warm;
    let w = crate::app::Warm {
        store: Some(&warm.store),
        plans: Some(&warm.plans),
        memo: Some(&warm.memo),
        sources: crate::app::SourceOptions {
            index_file: call.index_file.clone(),
            change_count: Some(warm.watcher.change_count()),
            buffers: None,
        },
        outcomes: None,
        exits_after: false,
        kubernetes: Some(&warm.kubernetes),
        schema_fetch: warm.make_fetch.as_deref(),
        frames: Some(&warm.frames),
    };
    Ok(crate::app::check::execute(&request, &w))
}

async fn handle(state: &Arc<State>, request: Request) -> Reply {
    match request {
        Request::Status => Reply::Status(Box::new(state.status())),
        Request::Stop => {
            state.stopping.store(true, Relaxed);
            state.stop.notify_one();
            Reply::Stopping
        }
        Request::Check(call) => {
            if call.protocol != super::protocol::PROTOCOL {
                return Reply::Error {
                    message: format!(
                        "protocol {} is not this daemon's ({})",
                        call.protocol,
                        super::protocol::PROTOCOL
                    ),
                };
            }
            let state2 = state.clone();
            let answer = tokio::task::spawn_blocking(move || check(&call, &state2)).await;
            state.requests.fetch_add(1, Relaxed);
            match answer {
                Ok(Ok(a)) => Reply::Answer(a),
                Ok(Err(message)) => Reply::Error { message },
                Err(e) => Reply::Error {
                    message: format!("the check failed in the daemon: {e}"),
                },
            }
        }
    }
}
