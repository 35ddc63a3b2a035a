//! What the hosts (the command line, the daemon, the language server) fetch
//! for a check: Kubernetes schemas, from files and over HTTPS, within a
//! [`FetchPolicy`] the application makes for the run. The engine and the
//! application never touch the network; they are given a
//! [`crate::kubernetes::SchemaFetch`] made here.
//!
//! * [`network`] — which hosts and addresses a repository's configuration may
//!   name (pure);
//! * [`schemas`] — the fetcher: files, HTTPS with rustls (ureq), a disk cache.

pub mod network;
pub mod schemas;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crate::kubernetes::SchemaFetch;

/// What a fetcher may read, and where it keeps what it fetched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchPolicy {
    /// Prefixes of the locations the flags gave: anything under them is
    /// read as asked (any folder; plain `http`).
    pub trusted: Vec<String>,
    /// The repository (canonical): the configuration's folders are in it,
    /// and nothing read through them may lead out of it.
    pub root: PathBuf,
    /// The schema cache folder (none: fetched every run).
    pub cache: Option<PathBuf>,
    /// The cache only, never the network.
    pub offline: bool,
    /// Hosts the runner allowed the configuration to name
    /// (`--allow-schema-host`): their addresses are not checked.
    pub allow_hosts: Vec<String>,
    /// How long a host may take to connect, and then to answer, before it is
    /// given up for the run ([`DEFAULT_HOST_TIMEOUT`]).
    pub host_timeout: Duration,
}

/// How long a schema host may take to connect and to answer by default.
pub const DEFAULT_HOST_TIMEOUT: Duration = Duration::from_secs(5);

/// The most a run waits for schema hosts in all: every fetch of a run
/// shares this deadline, then fails as unavailable.
pub const RUN_FETCH_DEADLINE: Duration = Duration::from_secs(60);

/// Makes the fetcher of a run (the host's: the application never touches
/// the network or writes a file).
pub type MakeFetch = dyn Fn(FetchPolicy) -> Arc<dyn SchemaFetch> + Send + Sync;

/// The first 16 bytes of SHA-256 in hex: a fingerprint part, a cache
/// entry's name.
pub fn digest(bytes: &[u8]) -> String {
    use sha2::Digest;
    let d = sha2::Sha256::digest(bytes);
    d.iter().take(16).map(|b| format!("{b:02x}")).collect()
}
