//! The client side: ask a repository's daemon, or start one.

use std::io::{BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::time::Duration;

use super::protocol::{Reply, Request};

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
