//! The client side: ask a repository's daemon, or start one.

use std::io::{BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::time::Duration;

use std::path::PathBuf;
use std::time::Instant;

use super::paths::DaemonPaths;
use super::protocol::{Answer, CheckCall, Reply, Request, PROTOCOL};
use crate::app::CheckRequest;
use crate::source::git::Git;

#[derive(Debug)]
pub enum ClientError {
    /// No daemon listens (no socket, or a stale one).
    NotRunning,
    /// It listened, then failed: died mid-request, timed out, garbled.
    Failed(String),
}

/// Sends one request and reads the reply.
pub fn call(socket: &Path, request: &Request, timeout: Duration) -> Result<Reply, ClientError> {
    let mut stream = UnixStream::connect(socket).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound | std::io::ErrorKind::ConnectionRefused => {
            ClientError::NotRunning
        }
        _ => ClientError::Failed(format!("cannot connect to {}: {e}", socket.display())),
    })?;
    let failed = |e: std::io::Error| ClientError::Failed(e.to_string());
    stream.set_read_timeout(Some(timeout)).map_err(failed)?;
    stream
        .set_write_timeout(Some(Duration::from_secs(10)))
        .map_err(failed)?;
    let mut line = serde_json::to_vec(request).map_err(|e| ClientError::Failed(e.to_string()))?;
    line.push(b'\n');
    // a daemon that refuses the client replies before reading the request
    // and closes: the write may then fail, and the reply still be there
    let written = stream.write_all(&line);
    // (a report of megabytes is read past this buffer, straight into its
    // place: one that held it was a second copy and a megabyte of fresh
    // pages for the client)
    let reply = super::protocol::decode_reply(BufReader::with_capacity(64 << 10, stream));
    match (reply, written) {
        (Ok(reply), _) => Ok(reply),
        (Err(_), Err(e)) => Err(ClientError::Failed(e.to_string())),
        (Err(e), Ok(())) => Err(ClientError::Failed(e)),
    }
}

/// mimalloc's delay, in milliseconds, before memory freed goes back to the
/// system (read from the environment when the process starts).
const PURGE_DELAY: &str = "MIMALLOC_PURGE_DELAY";
/// Its older name, which mimalloc still reads.
const PURGE_DELAY_OLD: &str = "MIMALLOC_RESET_DELAY";
/// The daemon's: see [`spawn`].
const DAEMON_PURGE_DELAY_MS: &str = "60000";

/// Starts `yttcheck daemon run` for the repository at `root`, detached: in
/// its own process group (a Ctrl-C in the terminal does not reach it), with
/// its output in `log`.
pub fn spawn(root: &Path, log: &Path, idle_seconds: Option<u64>) -> std::io::Result<()> {
    use std::os::unix::process::CommandExt;
    let exe = std::env::current_exe()?;
    let out = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)?;
    let mut cmd = std::process::Command::new(exe);
    cmd.arg("daemon").arg("run").arg("-C").arg(root);
    if let Some(s) = idle_seconds {
        cmd.arg("--idle-seconds").arg(s.to_string());
    }
    // the allocator gives memory back to the system a second after it is
    // freed, and takes it again page by page at the next check: a daemon
    // asked every few seconds (a hook, an editor) paid ~950 page faults, a
    // tenth of a large check. With a minute, memory freed a minute before a
    // request goes back at that request (mimalloc has no thread of its own:
    // an idle daemon keeps it until it is asked again or exits, after 15
    // idle minutes). A value the person set, by either name, stands.
    if std::env::var_os(PURGE_DELAY).is_none() && std::env::var_os(PURGE_DELAY_OLD).is_none() {
        cmd.env(PURGE_DELAY, DAEMON_PURGE_DELAY_MS);
    }
    cmd.stdin(std::process::Stdio::null())
        .stdout(out.try_clone()?)
        .stderr(out)
        .process_group(0)
        .spawn()
        .map(|_| ())
}

/// How long a check waits for the daemon's answer.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(120);

/// The work tree and git dir of a check's repository, and its daemon's
/// paths (the quick way when it can, else by opening the repository;
/// `git_dir_set`: the asker's `GIT_DIR` is set, so git's own rules apply).
fn repository(root: &Path, git_dir_set: bool) -> Option<(PathBuf, PathBuf, DaemonPaths)> {
    if !git_dir_set {
        if let Some((workdir, git_dir)) = crate::source::git::find_git_dir(root) {
            let paths = DaemonPaths::for_git_dir(&git_dir);
            return Some((workdir, git_dir, paths));
        }
    }
    let git = Git::discover(root).ok()?;
    let git_dir = git.git_dir().canonicalize().ok()?;
    let paths = DaemonPaths::for_git_dir(&git_dir);
    Some((git.workdir().to_path_buf(), git_dir, paths))
}

/// Whether `path` is a report file `req` asks for.
fn asked_for(req: &CheckRequest, path: &Path) -> bool {
    req.outputs.iter().any(|o| o.file.as_deref() == Some(path))
}

/// Asks the repository's daemon for the check, starting one when none
/// answers (waiting `patience` for it); why it could not answer otherwise.
/// `index_file` is the asker's `GIT_INDEX_FILE` (a hook's index).
pub fn ask_check(
    req: &CheckRequest,
    git_dir_set: bool,
    index_file: Option<PathBuf>,
    patience: Duration,
) -> Result<Answer, String> {
    let root = req.cwd.join(&req.selection.root);
    let Some((workdir, git_dir, paths)) = repository(&root, git_dir_set) else {
        return Err("not in a git repository".into());
    };
    // (the asker's gix already reads GIT_INDEX_FILE: compare with the
    // repository's own index, not with what gix says the index is)
    let own_index = git_dir.join("index");
    let index_file = index_file
        .map(|f| req.cwd.join(f))
        .filter(|f| f.canonicalize().ok() != own_index.canonicalize().ok());
    let request = Request::Check(Box::new(CheckCall {
        protocol: PROTOCOL,
        request: req.clone(),
        index_file,
    }));
    let mut started = false;
    let deadline = Instant::now() + patience;
    loop {
        match call(&paths.socket, &request, ANSWER_TIMEOUT) {
            // the files it writes are the reports this check asked for, and
            // no others (the client writes them, not the daemon)
            Ok(Reply::Answer(a)) if !a.files.iter().all(|(path, _)| asked_for(req, path)) => {
                return Err("the daemon's answer names a file this check did not ask for".into());
            }
            Ok(Reply::Answer(a)) => return Ok(a),
            Ok(Reply::Error { message }) => return Err(message),
            Ok(other) => return Err(format!("unexpected reply {other:?}")),
            Err(ClientError::Failed(why)) => return Err(why),
            Err(ClientError::NotRunning) => {
                if !started {
                    started = true;
                    if paths.ensure_private().is_err() || spawn(&workdir, &paths.log, None).is_err()
                    {
                        return Err("cannot start a daemon".into());
                    }
                }
                if Instant::now() >= deadline {
                    return Err("it did not start in time".into());
                }
                std::thread::sleep(Duration::from_millis(10));
            }
        }
    }
}
