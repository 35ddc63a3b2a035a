//! The hosts' [`SchemaFetch`]: Kubernetes schemas from files, and
//! over HTTPS with rustls (ureq), kept in a disk cache, as the run's
//! [`FetchPolicy`] allows (`app::kubernetes` decides what a repository's
//! configuration may name). Redirects are not followed; a response or file
//! over 64 MiB is refused.
//!
//! The network is the runner's, and a pull request writes the
//! configuration: a URL the runner did not give (by `--schema-location`)
//! connects only to public addresses (the resolver refuses a name that
//! resolves into loopback, private or link-local ranges, unless the runner
//! allowed the host), and its failures say "could not be fetched" without
//! the system's words (which would map the runner's network in a public
//! log). A host that does not connect or answer within the host timeout is
//! given up for the run and remembered as down for a while (a long-lived
//! process does not retry it on every edit), and every fetch of a run
//! shares one deadline.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use ureq::unversioned::resolver::{DefaultResolver, ResolvedSocketAddrs, Resolver};
use ureq::unversioned::transport::{DefaultConnector, NextTimeout};

use super::network;
use super::{FetchPolicy, RUN_FETCH_DEADLINE};
use crate::kubernetes::location::is_url;
use crate::kubernetes::SchemaFetch;

/// The largest schema read (Kubernetes' `_definitions.json` is about 1.3 MB).
const MAX_SCHEMA: u64 = 64 << 20;

/// How long a host that failed is not asked again, in this process.
const REMEMBER_DOWN: Duration = Duration::from_secs(300);

/// Hosts (`host:port`) that failed, and when: shared by every run of the
/// process (the daemon's, the language server's).
fn down_hosts() -> &'static Mutex<HashMap<String, Instant>> {
    static DOWN: std::sync::OnceLock<Mutex<HashMap<String, Instant>>> = std::sync::OnceLock::new();
    DOWN.get_or_init(Mutex::default)
}

/// A resolver that refuses, for the names it guards, any address that is
/// not public (a repository's name for the runner's own network). A
/// proxy's own name (the runner's environment) is not guarded.
#[derive(Debug)]
struct GuardedResolver {
    inner: DefaultResolver,
    /// Names refused, so the fetch can say why.
    refused: Arc<Mutex<Vec<String>>>,
}

impl Resolver for GuardedResolver {
    fn resolve(
        &self,
        uri: &ureq::http::Uri,
        config: &ureq::config::Config,
        timeout: NextTimeout,
    ) -> Result<ResolvedSocketAddrs, ureq::Error> {
        let addrs = self.inner.resolve(uri, config, timeout)?;
        let host = uri.host().unwrap_or("");
        let is_proxy = config
            .proxy()
            .is_some_and(|p| p.host().eq_ignore_ascii_case(host));
        if !is_proxy && addrs.iter().any(|a| !network::is_public(a.ip())) {
            self.refused
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(host.to_ascii_lowercase());
            return Err(ureq::Error::HostNotFound);
        }
        Ok(addrs)
    }
}

fn config(timeout: Duration) -> ureq::config::Config {
    ureq::Agent::config_builder()
        .timeout_global(Some(RUN_FETCH_DEADLINE))
        .timeout_resolve(Some(timeout))
        .timeout_connect(Some(timeout))
        .timeout_recv_response(Some(timeout))
        .max_redirects(0)
        .http_status_as_error(false)
        .user_agent(concat!("yttcheck/", env!("CARGO_PKG_VERSION")))
        .build()
}

/// Schemas from files and HTTPS, through the disk cache.
struct HostFetch {
    policy: FetchPolicy,
    /// For the runner's own locations and hosts it allowed.
    open: ureq::Agent,
    /// For the repository's: public addresses only.
    guarded: ureq::Agent,
    refused: Arc<Mutex<Vec<String>>>,
    /// When every fetch of this run must be done by.
    deadline: Instant,
}

/// The fetcher of a run: files, and HTTPS with rustls through the disk
/// cache, as `policy` allows.
pub fn fetcher(policy: FetchPolicy) -> Arc<dyn SchemaFetch> {
    Arc::new(host_fetch(policy))
}

fn host_fetch(policy: FetchPolicy) -> HostFetch {
    let refused = Arc::new(Mutex::new(Vec::new()));
    let cfg = config(policy.host_timeout);
    HostFetch {
        open: ureq::Agent::new_with_config(cfg.clone()),
        guarded: ureq::Agent::with_parts(
            cfg,
            DefaultConnector::default(),
            GuardedResolver {
                inner: DefaultResolver::default(),
                refused: refused.clone(),
            },
        ),
        refused,
        deadline: Instant::now() + RUN_FETCH_DEADLINE,
        policy,
    }
}

impl SchemaFetch for HostFetch {
    fn fetch(&self, location: &str) -> Result<Option<Arc<[u8]>>, String> {
        let trusted = self
            .policy
            .trusted
            .iter()
            .any(|p| location.starts_with(p.as_str()));
        if is_url(location) {
            if !trusted && !location.to_ascii_lowercase().starts_with("https://") {
                return Err(format!("{location} is not https"));
            }
            let allowed = network::allowed(location, &self.policy.allow_hosts);
            if !trusted && !allowed {
                // checked when the configuration was read; again here, for
                // a URL made from it (a `$ref`'s sibling is beside it)
                network::check_config_url(location, &[])?;
            }
            self.url(location, trusted || allowed)
        } else {
            self.file(location, trusted)
        }
    }
}

impl HostFetch {
    fn file(&self, location: &str, trusted: bool) -> Result<Option<Arc<[u8]>>, String> {
        let path = Path::new(location);
        if !trusted {
            // a folder of the repository: nothing on the way may lead out
            let Some(parent) = path.parent() else {
                return Err(format!("{location} is not a file"));
            };
            let Ok(parent) = std::fs::canonicalize(parent) else {
                return Ok(None);
            };
            let real = match std::fs::canonicalize(path) {
                Ok(p) => p,
                Err(_) => parent.join(path.file_name().unwrap_or_default()),
            };
            if !real.starts_with(&self.policy.root) {
                return Err(format!("{location} leads out of the repository"));
            }
        }
        // a repository's schema is held to the bound of every repository
        // file (SECURITY.md: 16 MiB; parsed, a schema takes ~45 times its
        // size); the runner's own locations may be larger
        let bound = if trusted {
            MAX_SCHEMA
        } else {
            crate::source::MAX_FILE_SIZE
        };
        match std::fs::metadata(path) {
            Ok(m) if m.len() > bound => {
                Err(format!("{location} is larger than {} MiB", bound >> 20))
            }
            Ok(m) if !m.is_file() => Ok(None),
            Ok(_) => std::fs::read(path)
                .map(|b| Some(Arc::from(b)))
                .map_err(|e| format!("{location}: {e}")),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(format!("{location}: {e}")),
        }
    }

    /// Fetches a URL through the disk cache. `open`: the runner's own
    /// location or a host it allowed (any address; the error's details are
    /// the runner's to see).
    fn url(&self, url: &str, open: bool) -> Result<Option<Arc<[u8]>>, String> {
        let name = super::digest(url.as_bytes());
        if let Some(dir) = &self.policy.cache {
            if let Ok(bytes) = read_bounded(&dir.join(format!("{name}.json"))) {
                return Ok(Some(Arc::from(bytes)));
            }
            if dir.join(format!("{name}.missing")).is_file() {
                return Ok(None);
            }
        }
        if self.policy.offline {
            return Err(match &self.policy.cache {
                Some(dir) => format!(
                    "{url} is not in the schema cache {} (--offline)",
                    dir.display()
                ),
                None => format!("{url} cannot be fetched offline, and no schema cache is set"),
            });
        }
        let host = network::authority(url)
            .map(|(h, p)| format!("{h}:{}", p.unwrap_or("443")))
            .unwrap_or_default();
        if let Some(when) = down_hosts()
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&host)
        {
            if when.elapsed() < REMEMBER_DOWN {
                return Err(format!(
                    "{url} could not be fetched (its host did not answer {}s ago; yttcheck asks again after {} minutes)",
                    when.elapsed().as_secs(),
                    REMEMBER_DOWN.as_secs() / 60
                ));
            }
        }
        let left = self.deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(format!(
                "{url} could not be fetched: the run's {} s for fetching schemas are spent",
                RUN_FETCH_DEADLINE.as_secs()
            ));
        }
        let failed = |e: &dyn std::fmt::Display| {
            down_hosts()
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .insert(host.clone(), Instant::now());
            if !open
                && self
                    .refused
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .iter()
                    .any(|h| host.starts_with(&format!("{h}:")))
            {
                format!("{url} could not be fetched: its host resolves to an address that is not public (a repository's configuration may reach public addresses only; the runner allows a host with --allow-schema-host)")
            } else if open {
                format!("{url} could not be fetched: {e}")
            } else {
                // no system words: they would map the runner's network
                format!("{url} could not be fetched")
            }
        };
        let agent = if open { &self.open } else { &self.guarded };
        let response = agent
            .get(url)
            .config()
            .timeout_global(Some(left))
            .build()
            .call()
            .map_err(|e| failed(&e))?;
        let status = response.status().as_u16();
        match status {
            200 => {
                let bytes = response
                    .into_body()
                    .with_config()
                    .limit(MAX_SCHEMA)
                    .read_to_vec()
                    .map_err(|e| failed(&e))?;
                self.keep(&name, "json", &bytes);
                Ok(Some(Arc::from(bytes)))
            }
            404 => {
                self.keep(&name, "missing", b"");
                Ok(None)
            }
            300..=399 => Err(format!("{url} redirects elsewhere (HTTP {status}); redirects are not followed: give the final address")),
            _ => Err(format!("{url}: HTTP {status}")),
        }
    }

    /// Writes a cache entry through `disk::write` (a temporary file renamed
    /// into place: a reader never sees half of it; no link is followed). A
    /// cache that cannot be written only costs a fetch next time.
    fn keep(&self, name: &str, ext: &str, bytes: &[u8]) {
        let Some(dir) = &self.policy.cache else {
            return;
        };
        // from the nearest folder that exists (`~/.cache` may not yet)
        let mut base = dir.as_path();
        let mut rel = vec![format!("{name}.{ext}")];
        while !base.is_dir() {
            let (Some(parent), Some(leaf)) = (base.parent(), base.file_name()) else {
                return;
            };
            rel.push(leaf.to_string_lossy().into_owned());
            base = parent;
        }
        rel.reverse();
        let _ = crate::disk::write::output_file(base, &rel.join("/"), bytes);
    }
}

fn read_bounded(path: &Path) -> std::io::Result<Vec<u8>> {
    let meta = std::fs::symlink_metadata(path)?;
    if !meta.is_file() || meta.len() > MAX_SCHEMA {
        return Err(std::io::Error::other("not a cache entry"));
    }
    std::fs::read(path)
}

#[cfg(test)]
mod tests {
    use std::net::TcpListener;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    fn policy() -> FetchPolicy {
        FetchPolicy {
            trusted: Vec::new(),
            root: std::env::temp_dir(),
            cache: None,
            offline: false,
            allow_hosts: Vec::new(),
            host_timeout: Duration::from_secs(2),
        }
    }

    /// A listener on loopback counting the connections it is offered.
    fn listener() -> (u16, Arc<AtomicUsize>) {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = l.local_addr().unwrap().port();
        let n = Arc::new(AtomicUsize::new(0));
        let count = n.clone();
        std::thread::spawn(move || {
            for c in l.incoming() {
                count.fetch_add(1, Ordering::SeqCst);
                drop(c);
            }
        });
        (port, n)
    }

    #[test]
    fn a_repositorys_name_that_resolves_into_loopback_is_never_connected_to() {
        let (port, accepted) = listener();
        let fetch = host_fetch(policy());
        // `localhost` resolves into loopback on every machine (the
        // configuration's check refuses the name itself; this is the
        // resolver's guard, for a public-looking name that does the same)
        let e = fetch
            .url(&format!("https://localhost:{port}/x.json"), false)
            .unwrap_err();
        assert!(e.contains("not public"), "{e}");
        assert_eq!(accepted.load(Ordering::SeqCst), 0);
        // the runner's own location connects (and fails: no TLS there),
        // with the system's words for the runner
        let (port, accepted) = listener();
        let e = fetch
            .url(&format!("https://127.0.0.1:{port}/x.json"), true)
            .unwrap_err();
        assert!(e.contains("could not be fetched: "), "{e}");
        assert_eq!(accepted.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn a_failure_of_a_repositorys_location_says_no_system_words() {
        // a closed port: "Connection refused" would tell a fork's author
        // that nothing listens there
        let port = {
            let l = TcpListener::bind("127.0.0.1:0").unwrap();
            l.local_addr().unwrap().port()
        };
        let mut p = policy();
        p.allow_hosts = vec![format!("127.0.0.1:{port}")];
        let fetch = host_fetch(p);
        // allowed by the runner: its words are shown
        let e = fetch
            .fetch(&format!("https://127.0.0.1:{port}/x.json"))
            .unwrap_err();
        assert!(e.contains("could not be fetched"), "{e}");
        // a repository's public name that fails: none (the host is marked
        // down first, so no network is used by this test)
        let url = "https://schemas.yttcheck-test.org/x.json";
        down_hosts()
            .lock()
            .unwrap()
            .insert("schemas.yttcheck-test.org:443".into(), Instant::now());
        let e = host_fetch(policy()).fetch(url).unwrap_err();
        assert!(e.starts_with(&format!("{url} could not be fetched")), "{e}");
        for word in [
            "refused",
            "os error",
            "certificate",
            "corrupt",
            "timed out",
            "dns",
        ] {
            assert!(!e.to_lowercase().contains(word), "{e}");
        }
    }

    #[test]
    fn a_host_given_up_is_not_asked_again_in_the_same_process() {
        let (port, accepted) = listener();
        let mut p = policy();
        p.trusted = vec![format!("http://127.0.0.1:{port}/")];
        let fetch = host_fetch(p.clone());
        // the listener drops each connection unanswered: a failure
        assert!(fetch
            .fetch(&format!("http://127.0.0.1:{port}/a.json"))
            .is_err());
        let first = accepted.load(Ordering::SeqCst);
        assert!(first >= 1);
        // another kind, another run of the same process (an edit in the
        // editor): not asked again
        let e = host_fetch(p)
            .fetch(&format!("http://127.0.0.1:{port}/b.json"))
            .unwrap_err();
        assert!(e.contains("did not answer"), "{e}");
        assert_eq!(accepted.load(Ordering::SeqCst), first);
    }
}
