//! The command line's [`SchemaFetch`]: Kubernetes schemas from files, and
//! over HTTPS with rustls (ureq), kept in a disk cache, as the run's
//! [`FetchPolicy`] allows (`app::kubernetes` decides what a repository's
//! configuration may name). Redirects are not followed; a response or file
//! over 64 MiB is refused.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use crate::app::kubernetes::FetchPolicy;
use crate::kubernetes::location::is_url;
use crate::kubernetes::SchemaFetch;

/// The largest schema read (Kubernetes' `_definitions.json` is about 1.3 MB).
const MAX_SCHEMA: u64 = 64 << 20;

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .timeout_global(Some(Duration::from_secs(60)))
        .max_redirects(0)
        .http_status_as_error(false)
        .user_agent(concat!("yttcheck/", env!("CARGO_PKG_VERSION")))
        .build()
        .new_agent()
}

/// Schemas from files and HTTPS, through the disk cache.
struct HostFetch {
    policy: FetchPolicy,
    agent: ureq::Agent,
}

/// The fetcher of a run: files, and HTTPS with rustls through the disk
/// cache, as `policy` allows.
pub fn fetcher(policy: FetchPolicy) -> Arc<dyn SchemaFetch> {
    Arc::new(HostFetch {
        policy,
        agent: agent(),
    })
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
            self.url(location)
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
        match std::fs::metadata(path) {
            Ok(m) if m.len() > MAX_SCHEMA => Err(format!(
                "{location} is larger than {} MiB",
                MAX_SCHEMA >> 20
            )),
            Ok(m) if !m.is_file() => Ok(None),
            Ok(_) => std::fs::read(path)
                .map(|b| Some(Arc::from(b)))
                .map_err(|e| format!("{location}: {e}")),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(format!("{location}: {e}")),
        }
    }

    fn url(&self, url: &str) -> Result<Option<Arc<[u8]>>, String> {
        let name = crate::app::kubernetes::digest(url.as_bytes());
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
        let response = self
            .agent
            .get(url)
            .call()
            .map_err(|e| format!("{url}: {e}"))?;
        let status = response.status().as_u16();
        match status {
            200 => {
                let bytes = response
                    .into_body()
                    .with_config()
                    .limit(MAX_SCHEMA)
                    .read_to_vec()
                    .map_err(|e| format!("{url}: {e}"))?;
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

    /// Writes a cache entry through `cli::write` (a temporary file renamed
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
        let _ = super::write::output_file(base, &rel.join("/"), bytes);
    }
}

fn read_bounded(path: &Path) -> std::io::Result<Vec<u8>> {
    let meta = std::fs::symlink_metadata(path)?;
    if !meta.is_file() || meta.len() > MAX_SCHEMA {
        return Err(std::io::Error::other("not a cache entry"));
    }
    std::fs::read(path)
}
