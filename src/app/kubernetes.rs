//! `check`'s Kubernetes schemas: the request's flags and `.yttcheck.yml`'s
//! `kubernetes:` merged, CRD files read, and the host's [`SchemaFetch`]:
//! files, and HTTPS with rustls (ureq) through a disk cache.
//!
//! A repository is not trusted (a pull request writes its configuration),
//! so what the configuration names is confined: its schema locations are
//! `https://` URLs or folders inside the repository (read through no link
//! that leaves it), redirects are not followed, and a kind or version that
//! is not of Kubernetes' form never becomes part of a path or URL
//! (`kubernetes::validate`). Flags are the runner's own: they may name any
//! folder, or a plain-`http` server (a mirror, a test's loopback server).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::check::kubernetes::KubernetesCheck;
use crate::kubernetes::location::is_url;
use crate::kubernetes::{KubernetesOptions, SchemaFetch, Schemas};
use crate::source::cache::SourceCache;
use crate::source::RepoPath;
use crate::workspace::Plan;

use super::UsageError;

/// The largest schema read (Kubernetes' `_definitions.json` is about 1.3 MB).
const MAX_SCHEMA: u64 = 64 << 20;

/// The most files a `crds:` folder is read for.
const MAX_CRD_FILES: usize = 10_000;

/// What the asker says about Kubernetes schemas (flags).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KubernetesRequest {
    /// `--kubernetes-version`.
    pub version: Option<String>,
    /// `--schema-location`, tried in order (replacing the configuration's).
    pub locations: Vec<String>,
    /// `--kubernetes-strict`.
    pub strict: bool,
    /// `--offline`: schemas from the disk cache only.
    pub offline: bool,
    /// Where fetched schemas are kept (none: fetched every run).
    pub schema_cache: Option<PathBuf>,
}

impl KubernetesRequest {
    fn asked(&self) -> bool {
        self.version.is_some() || !self.locations.is_empty() || self.strict
    }
}

/// What a long-lived process (the daemon, the language server) keeps of the
/// last run's Kubernetes check: its compiled schemas serve the next run
/// when nothing they depend on changed (the same fingerprint) and every
/// lookup succeeded (a failure may not happen again).
#[derive(Default)]
pub struct KubernetesCache(std::sync::Mutex<Option<Arc<KubernetesCheck>>>);

/// `$XDG_CACHE_HOME/yttcheck`, else `~/.cache/yttcheck` (the faces pass
/// the process's variables: the application reads none).
pub fn user_cache_dir(
    xdg_cache_home: Option<std::ffi::OsString>,
    home: Option<std::ffi::OsString>,
) -> Option<PathBuf> {
    let absolute = |v: std::ffi::OsString| {
        let p = PathBuf::from(v);
        p.is_absolute().then_some(p)
    };
    xdg_cache_home
        .and_then(absolute)
        .or_else(|| home.and_then(absolute).map(|h| h.join(".cache")))
        .map(|d| d.join("yttcheck"))
}

/// The schema cache's folder under a cache folder.
pub const SCHEMA_CACHE: &str = "kubernetes-schemas";

/// The run's Kubernetes check, when flags or configuration ask for one.
pub fn prepare(
    req: &KubernetesRequest,
    plan: &Plan,
    cwd: &Path,
    root: &Path,
    sources: &SourceCache,
    warm: Option<&KubernetesCache>,
) -> Result<Option<Arc<KubernetesCheck>>, UsageError> {
    let spec = plan.kubernetes.clone();
    if !req.asked() && spec.is_none() {
        return Ok(None);
    }
    let spec = spec.unwrap_or_default();
    let config_error = |m: String| UsageError(format!(".yttcheck.yml: kubernetes: {m}"));
    let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let mut trusted = Vec::new();
    let locations: Vec<String> = if !req.locations.is_empty() {
        req.locations
            .iter()
            .map(|l| {
                let l = l.trim();
                let l = if l == "default" || is_url(l) {
                    l.to_string()
                } else {
                    cwd.join(l).to_string_lossy().into_owned()
                };
                trusted.push(static_prefix(&l));
                l
            })
            .collect()
    } else {
        spec.schema_locations
            .iter()
            .map(|l| {
                let l = l.trim();
                if l == "default" || l.to_ascii_lowercase().starts_with("https://") {
                    Ok(l.to_string())
                } else if is_url(l) {
                    Err(config_error(format!("the schema location {l} is not https: a repository's configuration may name https:// URLs and folders of the repository (give others with --schema-location)")))
                } else {
                    let p = crate::source::confine(l).map_err(config_error)?;
                    Ok(root.join(p.as_str()).to_string_lossy().into_owned())
                }
            })
            .collect::<Result<_, _>>()?
    };
    let opts = KubernetesOptions {
        version: req
            .version
            .clone()
            .or(spec.version.clone())
            .unwrap_or_else(|| "master".into()),
        locations,
        strict: req.strict || spec.strict,
        skip_kinds: spec.skip_kinds.clone(),
    };
    let fetch = Arc::new(HostFetch {
        trusted,
        root: root.clone(),
        cache: req.schema_cache.clone(),
        offline: req.offline,
        agent: agent(),
    });
    let mut fingerprint = format!("{opts:?}");
    let mut crds = Vec::new();
    for given in &spec.crds {
        let path = crate::source::confine(given).map_err(config_error)?;
        for file in crd_files(sources, &path).map_err(config_error)? {
            let src = sources
                .get(&file)
                .map_err(|e| config_error(format!("crds: {}: {e}", file.as_str())))?;
            fingerprint.push_str(&format!(
                "|crd {}:{}",
                file.as_str(),
                digest(src.text().as_bytes())
            ));
            let docs = crate::yaml::parse::parse(&src, false)
                .map_err(|e| config_error(format!("crds: {}: {e}", file.as_str())))?;
            for d in &docs.docs {
                crds.extend(crate::kubernetes::crd::versions(&d.value, opts.strict));
            }
        }
    }
    for l in &opts.locations {
        if !is_url(l) && l != "default" {
            fingerprint.push_str(&format!("|{}", folder_fingerprint(&static_prefix(l))));
        }
    }
    fingerprint.push_str(&format!(
        "|offline {}|cache {:?}",
        req.offline, req.schema_cache
    ));
    if let Some(warm) = warm {
        let kept = warm.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(k) = kept.as_ref() {
            if k.fingerprint == fingerprint && !k.schemas.has_failures() {
                return Ok(Some(k.clone()));
            }
        }
    }
    let schemas = Schemas::new(opts, fetch).map_err(|e| UsageError(format!("kubernetes: {e}")))?;
    let check = Arc::new(KubernetesCheck {
        schemas,
        crds,
        fingerprint,
    });
    if let Some(warm) = warm {
        *warm.0.lock().unwrap_or_else(|e| e.into_inner()) = Some(check.clone());
    }
    Ok(Some(check))
}

/// The files a `crds:` entry names: a file, or the YAML files under a folder.
fn crd_files(sources: &SourceCache, path: &RepoPath) -> Result<Vec<RepoPath>, String> {
    use crate::source::EntryKind;
    let snap = sources.snapshot();
    match snap.kind(path.as_str()) {
        Ok(EntryKind::Dir) => {
            let mut out = Vec::new();
            let mut todo = vec![path.clone()];
            while let Some(dir) = todo.pop() {
                for (name, kind) in snap.list_kinds(dir.as_str()).map_err(|e| e.to_string())? {
                    let Some(child) = RepoPath::new(&format!("{}/{name}", dir.as_str())) else {
                        continue;
                    };
                    match kind {
                        Ok(EntryKind::Dir) => todo.push(child),
                        Ok(EntryKind::File) if child.is_yaml() => out.push(child),
                        _ => {}
                    }
                    if out.len() > MAX_CRD_FILES {
                        return Err(format!(
                            "crds: {} holds more than {MAX_CRD_FILES} YAML files",
                            path.as_str()
                        ));
                    }
                }
            }
            out.sort();
            Ok(out)
        }
        Ok(EntryKind::File) => Ok(vec![path.clone()]),
        Ok(_) => Err(format!("crds: {} is not a file or folder", path.as_str())),
        Err(e) => Err(format!("crds: {}: {e}", path.as_str())),
    }
}

/// The part of a location before its first variable: a folder or URL
/// prefix.
fn static_prefix(location: &str) -> String {
    let head = location.split("{{").next().unwrap_or("");
    head.rsplit_once('/').map_or(head, |(f, _)| f).to_string() + "/"
}

fn digest(bytes: &[u8]) -> String {
    use sha2::Digest;
    let d = sha2::Sha256::digest(bytes);
    d.iter().take(16).map(|b| format!("{b:02x}")).collect()
}

/// What identifies a local schema folder's content without reading it: the
/// name, size and modification time of every file under it. A schema
/// edited in place changes it, so no memo or cached result outlives it.
fn folder_fingerprint(folder: &str) -> String {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    let mut todo = vec![PathBuf::from(folder)];
    let mut seen = 0usize;
    while let Some(dir) = todo.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut entries: Vec<_> = entries.flatten().collect();
        entries.sort_by_key(|e| e.file_name());
        for e in entries {
            seen += 1;
            if seen > 200_000 {
                return format!("{folder}: too many files");
            }
            let Ok(meta) = e.metadata() else { continue };
            e.file_name().hash(&mut h);
            if meta.is_dir() {
                todo.push(e.path());
            } else {
                meta.len().hash(&mut h);
                meta.modified().ok().hash(&mut h);
            }
        }
    }
    format!("{folder}:{:x}", h.finish())
}

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
    /// Prefixes of the locations the flags gave: anything under them is
    /// read as asked.
    trusted: Vec<String>,
    /// The repository (canonical): the configuration's folders are in it.
    root: PathBuf,
    cache: Option<PathBuf>,
    offline: bool,
    agent: ureq::Agent,
}

impl SchemaFetch for HostFetch {
    fn fetch(&self, location: &str) -> Result<Option<Arc<[u8]>>, String> {
        let trusted = self
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
            if !real.starts_with(&self.root) {
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
        let name = digest(url.as_bytes());
        if let Some(dir) = &self.cache {
            if let Ok(bytes) = read_bounded(&dir.join(format!("{name}.json"))) {
                return Ok(Some(Arc::from(bytes)));
            }
            if dir.join(format!("{name}.missing")).is_file() {
                return Ok(None);
            }
        }
        if self.offline {
            return Err(match &self.cache {
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

    /// Writes a cache entry (a temporary file renamed into place: a reader
    /// never sees half of it, and no link is followed). A cache that cannot
    /// be written only costs a fetch next time.
    fn keep(&self, name: &str, ext: &str, bytes: &[u8]) {
        let Some(dir) = &self.cache else { return };
        if std::fs::create_dir_all(dir).is_err() {
            return;
        }
        let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
        let written = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
            .and_then(|mut f| std::io::Write::write_all(&mut f, bytes));
        if written.is_err() || std::fs::rename(&tmp, dir.join(format!("{name}.{ext}"))).is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
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
    use super::*;

    #[test]
    fn the_static_prefix_is_the_folder_before_the_first_variable() {
        assert_eq!(static_prefix("/s/{{ .X }}/a.json"), "/s/");
        assert_eq!(static_prefix("/s/v1-{{ .X }}/a.json"), "/s/");
        assert_eq!(
            static_prefix("http://127.0.0.1:80/x/{{.K}}.json"),
            "http://127.0.0.1:80/x/"
        );
    }
}
