//! The warm daemon: one per repository and version, serving checks on a
//! Unix socket in the repository's git dir, and keeping between them what a
//! check reads and computes (files by content id, compiled libraries, each
//! library's schema and values, each pair's outcome), so that a pre-commit
//! hook re-evaluates only what the commit changes.
//!
//! * [`protocol`] — requests and replies;
//! * [`paths`] — where the socket, status file and log live, privately;
//! * [`server`] — the tokio server, its lifetime and its caches;
//! * [`watch`] — the file watcher;
//! * [`client`] — asking a daemon, starting one.
//!
//! The daemon never writes outside its own folder: a check's reports are
//! written by the client, from the answer.

pub mod client;
pub mod paths;
pub mod protocol;
pub mod server;
pub mod watch;
