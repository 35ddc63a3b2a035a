//! What a client and the daemon say to each other: one JSON document per
//! line (compact JSON never contains a raw newline), each way, at most
//! [`MAX_REQUEST`] bytes in and [`MAX_ANSWER`] bytes out.
//!
//! The request carries the client's check (an [`app::CheckRequest`](crate::app::CheckRequest)) and index file,
//! and the daemon answers with exactly what the client prints and writes,
//! so an answer from the daemon and a check in the client are the same
//! bytes. The shape is general (a `kind` per request) so that an editor
//! integration can speak it later.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

pub use crate::app::Answer;

/// Bumped when a request or reply changes shape; the socket's name carries
/// the binary's version too, so old clients never meet new daemons.
pub const PROTOCOL: u32 = 2;

/// The largest request the daemon reads: a command line fits many times.
pub const MAX_REQUEST: usize = 1 << 20;

/// The largest reply a client reads (reports of a big repository).
pub const MAX_ANSWER: usize = 256 << 20;

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Request {
    /// A check, as the client would run it.
    Check(Box<CheckCall>),
    /// What the daemon holds.
    Status,
    /// Exit now.
    Stop,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckCall {
    pub protocol: u32,
    /// The check, its relative paths relative to its `cwd`.
    pub request: crate::app::CheckRequest,
    /// The index file git gave a hook, when not the repository's own.
    pub index_file: Option<PathBuf>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Reply {
    Answer(Answer),
    Status(Box<Status>),
    Stopping,
    /// The request could not be served (malformed, refused, another
    /// repository); the client checks in its own process instead.
    Error {
        message: String,
    },
}

/// A daemon's state, for `yttcheck daemon status` and its status file.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Status {
    pub pid: u32,
    pub version: String,
    /// The work tree it serves.
    pub root: PathBuf,
    pub socket: PathBuf,
    /// Seconds since the Unix epoch.
    pub started: u64,
    /// Times it restarted itself (the config or the binary changed).
    pub restarts: u32,
    /// A hash of `.yttcheck.yml` (empty without one).
    pub config_hash: String,
    pub requests: u64,
    pub idle_timeout_seconds: u64,
    /// Resident memory, KiB.
    pub rss_kib: u64,
    pub files: crate::source::cache::StoreStats,
    /// Plans reused, and plans made.
    pub plan_hits: u64,
    pub plan_misses: u64,
    pub memo: crate::check::memo::MemoStats,
    /// Changes the file watcher saw.
    pub watched_changes: u64,
}
