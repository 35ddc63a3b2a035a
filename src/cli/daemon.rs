//! `yttcheck daemon start|stop|status|run`, and `check`'s side of the
//! daemon: when to ask it, how to start it, and falling back to a check in
//! this process on any failure (the answer is the same bytes either way).

use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use clap::{Args, Subcommand};

use crate::daemon::client;
use crate::daemon::paths::DaemonPaths;
use crate::daemon::protocol::{Answer, Reply, Request};
use crate::daemon::server::{self, Exit, ServeOptions};
use crate::source::git::Git;

use super::out;
use crate::app::{CheckRequest, UsageError};

/// The default idle time before a daemon exits.
const DEFAULT_IDLE: Duration = Duration::from_secs(15 * 60);

#[derive(Args, Debug)]
pub struct DaemonArgs {
    #[command(subcommand)]
    pub action: Action,
}

#[derive(Subcommand, Debug)]
pub enum Action {
    /// Start the repository's daemon in the background (if none is running)
    Start(Where),
    /// Stop the repository's daemon
    Stop(Where),
    /// Show what the repository's daemon holds, and its hit rates
    Status(Where),
    /// Run the daemon in the foreground (what `start` runs)
    Run(Where),
}

#[derive(Args, Debug, Clone)]
pub struct Where {
    /// The repository (default: the current directory)
    #[arg(short = 'C', long = "root", value_name = "DIR")]
    pub root: Option<PathBuf>,

    /// Exit after this many idle seconds (default 900: 15 minutes)
    #[arg(long = "idle-seconds", value_name = "N")]
    pub idle_seconds: Option<u64>,

    /// Status as JSON
    #[arg(long)]
    pub json: bool,

    #[arg(long = "restarts", hide = true, default_value_t = 0)]
    pub restarts: u32,
}

/// When `check` asks the daemon.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Never,
    /// Ask; start one if none answers; check here if anything fails.
    Auto,
    /// As auto, but say so on stderr when the daemon could not answer.
    Always,
}

/// `--daemon`, or its default: never when `CI` is set, auto on a terminal
/// or in a git hook (git sets `GIT_INDEX_FILE` or `GIT_DIR` for hooks; the
/// pre-commit framework sets `PRE_COMMIT`), never otherwise.
pub fn client_mode(flag: Option<&str>) -> Result<Mode, UsageError> {
    match flag {
        Some("never") => Ok(Mode::Never),
        Some("auto") => Ok(Mode::Auto),
        Some("always") => Ok(Mode::Always),
        Some(other) => Err(UsageError(format!(
            "--daemon expects auto, always or never, got '{other}'"
        ))),
        None => {
            let set = |v: &str| std::env::var_os(v).is_some_and(|x| !x.is_empty());
            if set("CI") {
                Ok(Mode::Never)
            } else if std::io::stderr().is_terminal()
                || set("GIT_INDEX_FILE")
                || set("GIT_DIR")
                || set("PRE_COMMIT")
            {
                Ok(Mode::Auto)
            } else {
                Ok(Mode::Never)
            }
        }
    }
}

/// The check's answer from the daemon, or `None` to check in this process.
pub fn check(req: &CheckRequest, mode: Mode) -> Option<Answer> {
    if mode == Mode::Never || req.update_baseline {
        return None;
    }
    let set = |v: &str| std::env::var_os(v).is_some();
    let patience = Duration::from_millis(if mode == Mode::Always { 3000 } else { 300 });
    let index_file = std::env::var_os("GIT_INDEX_FILE").map(PathBuf::from);
    client::ask_check(req, set("GIT_DIR"), index_file, patience)
        .map_err(|why| {
            if mode == Mode::Always {
                errln!(
                    "yttcheck: warning: the daemon could not answer ({why}); checking in this process"
                );
            }
        })
        .ok()
}

pub fn run(args: &DaemonArgs) -> i32 {
    match run_inner(args) {
        Ok(code) => code,
        Err(UsageError(m)) => {
            errln!("yttcheck: error: {m}");
            2
        }
    }
}

fn locate(w: &Where) -> Result<(Git, DaemonPaths), UsageError> {
    let dir = match &w.root {
        Some(r) => r.clone(),
        None => std::env::current_dir().map_err(|e| UsageError(e.to_string()))?,
    };
    let git = Git::discover(&dir).map_err(|e| UsageError(e.0))?;
    // spelled as clients spell it (the path decides the socket's place)
    let git_dir = git.git_dir();
    let paths = DaemonPaths::for_git_dir(&git_dir.canonicalize().unwrap_or(git_dir));
    Ok((git, paths))
}

fn status_of(paths: &DaemonPaths) -> Option<crate::daemon::protocol::Status> {
    match client::call(&paths.socket, &Request::Status, Duration::from_secs(5)) {
        Ok(Reply::Status(s)) => Some(*s),
        _ => None,
    }
}

fn run_inner(args: &DaemonArgs) -> Result<i32, UsageError> {
    match &args.action {
        Action::Run(w) => {
            // the binary's path now: once it is replaced (an upgrade),
            // Linux names the running one "... (deleted)"
            let _ = EXE.set(std::env::current_exe().ok());
            let (git, paths) = locate(w)?;
            let idle = w
                .idle_seconds
                .map(Duration::from_secs)
                .unwrap_or(DEFAULT_IDLE);
            let opts = ServeOptions {
                paths,
                root: git.workdir().to_path_buf(),
                git_dir: git.git_dir().to_path_buf(),
                idle,
                restarts: w.restarts,
                make_fetch: Some(std::sync::Arc::new(crate::fetch::schemas::fetcher)),
            };
            errln!(
                "yttcheck daemon {} (pid {}) serving {} on {}",
                env!("CARGO_PKG_VERSION"),
                std::process::id(),
                opts.root.display(),
                opts.paths.socket.display()
            );
            match server::serve(opts).map_err(UsageError)? {
                Exit::Done(why) => {
                    errln!("yttcheck daemon: exiting: {why}");
                    Ok(0)
                }
                Exit::Restart(why) => {
                    errln!("yttcheck daemon: restarting: {why}");
                    restart(w, &git)
                }
            }
        }
        Action::Start(w) => {
            let (git, paths) = locate(w)?;
            if let Some(s) = status_of(&paths) {
                outln!("yttcheck daemon already running (pid {})", s.pid);
                return Ok(0);
            }
            paths.ensure_private().map_err(UsageError)?;
            client::spawn(git.workdir(), &paths.log, w.idle_seconds)
                .map_err(|e| UsageError(format!("cannot start the daemon: {e}")))?;
            let deadline = Instant::now() + Duration::from_secs(5);
            while Instant::now() < deadline {
                if let Some(s) = status_of(&paths) {
                    outln!(
                        "yttcheck daemon started (pid {}) on {}",
                        s.pid,
                        paths.socket.display()
                    );
                    return Ok(0);
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            Err(UsageError(format!(
                "the daemon did not start; see its log {}",
                paths.log.display()
            )))
        }
        Action::Stop(w) => {
            let (_, paths) = locate(w)?;
            match client::call(&paths.socket, &Request::Stop, Duration::from_secs(5)) {
                Ok(Reply::Stopping) => {
                    // gone when its socket is
                    let deadline = Instant::now() + Duration::from_secs(5);
                    while paths.socket.exists() && Instant::now() < deadline {
                        std::thread::sleep(Duration::from_millis(20));
                    }
                    outln!("yttcheck daemon stopped");
                    Ok(0)
                }
                Ok(Reply::Error { message }) => Err(UsageError(message)),
                _ => {
                    outln!("no yttcheck daemon is running for this repository");
                    Ok(0)
                }
            }
        }
        Action::Status(w) => {
            let (_, paths) = locate(w)?;
            let Some(s) = status_of(&paths) else {
                if w.json {
                    outln!("{{\"running\": false}}");
                } else {
                    outln!("no yttcheck daemon is running for this repository");
                }
                return Ok(3);
            };
            if w.json {
                let mut v = serde_json::to_value(&s).unwrap_or_default();
                v["running"] = serde_json::Value::Bool(true);
                outln!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
            } else {
                out::out(&s.describe());
            }
            Ok(0)
        }
    }
}

/// The path the daemon was started from.
static EXE: std::sync::OnceLock<Option<PathBuf>> = std::sync::OnceLock::new();

/// Starts afresh in this process (same pid), as the new binary.
fn restart(w: &Where, git: &Git) -> Result<i32, UsageError> {
    use std::os::unix::process::CommandExt;
    let exe = EXE.get().cloned().flatten().ok_or_else(|| {
        UsageError("cannot restart the daemon: its binary's path is unknown".into())
    })?;
    let mut cmd = std::process::Command::new(exe);
    cmd.arg("daemon")
        .arg("run")
        .arg("-C")
        .arg(git.workdir())
        .arg("--restarts")
        .arg((w.restarts + 1).to_string());
    if let Some(s) = w.idle_seconds {
        cmd.arg("--idle-seconds").arg(s.to_string());
    }
    let e = cmd.exec();
    Err(UsageError(format!("cannot restart the daemon: {e}")))
}
