//! `check`'s Kubernetes schemas: the request's flags and `.yttcheck.yml`'s
//! `kubernetes:` merged, CRD files read, and what the host's
//! [`SchemaFetch`] may read ([`FetchPolicy`]; the hosts' fetcher,
//! `fetch::schemas`, reads files and HTTPS through a disk cache).
//!
//! A repository is not trusted (a pull request writes its configuration),
//! so what the configuration names is confined: its schema locations are
//! `https://` URLs or folders inside the repository (read through no link
//! that leaves it), redirects are not followed, and a kind or version that
//! is not of Kubernetes' form never becomes part of a path or URL
//! (`kubernetes::validate`). Flags are the runner's own: they may name any
//! folder, or a plain-`http` server (a mirror, a test's loopback server).

pub use crate::fetch::{
    digest, network, FetchPolicy, MakeFetch, DEFAULT_HOST_TIMEOUT, RUN_FETCH_DEADLINE,
};

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::check::kubernetes::KubernetesCheck;
use crate::kubernetes::location::is_url;
use crate::kubernetes::{KubernetesOptions, Schemas};
use crate::source::cache::SourceCache;
use crate::source::RepoPath;
use crate::workspace::Plan;

use super::UsageError;

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
    /// `--allow-schema-host HOST[:PORT]`: hosts the repository's
    /// configuration may name besides public names on 443.
    #[serde(default)]
    pub allow_hosts: Vec<String>,
    /// `--schema-timeout SECONDS`: how long a schema host may take to
    /// connect and answer before it is given up for the run.
    #[serde(default)]
    pub timeout_secs: Option<u64>,
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

/// The schema cache of the user: `$XDG_CACHE_HOME/yttcheck`, else
/// `~/.cache/yttcheck`, then [`SCHEMA_CACHE`] (the faces pass the process's
/// variables: the application reads none).
pub fn user_schema_cache(
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
        .map(|d| d.join("yttcheck").join(SCHEMA_CACHE))
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
    make_fetch: Option<&MakeFetch>,
) -> Result<Option<Arc<KubernetesCheck>>, UsageError> {
    let spec = plan.kubernetes.clone();
    if !req.asked() && spec.is_none() {
        return Ok(None);
    }
    let spec = spec.unwrap_or_default();
    let config_error = |m: String| UsageError(format!(".yttcheck.yml: kubernetes: {m}"));
    // a configuration error at the line that holds what it names
    let config_error_at = |needle: &str, m: String| match config_line(sources, needle) {
        Some(line) => UsageError(format!(".yttcheck.yml:{line}: kubernetes: {m}")),
        None => config_error(m),
    };
    if let Some(v) = &spec.version {
        network::check_version(v).map_err(|m| config_error_at(v, m))?;
    }
    if let Some(v) = &req.version {
        network::check_version(v).map_err(|m| UsageError(format!("--kubernetes-version: {m}")))?;
    }
    for v in spec.versions.values() {
        network::check_version(v).map_err(|m| config_error_at(v, format!("versions: {m}")))?;
    }
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
                if l == "default" {
                    Ok(l.to_string())
                } else if l.to_ascii_lowercase().starts_with("https://") {
                    network::check_config_url(l, &req.allow_hosts)
                        .map_err(|m| config_error_at(l, crate::escape::control(&m).into_owned()))?;
                    Ok(l.to_string())
                } else if is_url(l) {
                    Err(config_error_at(l, format!("the schema location {} is not https: a repository's configuration may name https:// URLs and folders of the repository (give others with --schema-location)", crate::escape::control(l))))
                } else {
                    let p = crate::source::confine(l).map_err(config_error)?;
                    Ok(root.join(p.as_str()).to_string_lossy().into_owned())
                }
            })
            .collect::<Result<_, _>>()?
    };
    let version = req
        .version
        .clone()
        .or(spec.version.clone())
        .unwrap_or_else(|| "master".into());
    let strict = req.strict || spec.strict;
    let locations = locations
        .into_iter()
        .map(|l| local_layout(l, &version, strict))
        .collect();
    let opts = KubernetesOptions {
        version,
        locations,
        strict,
        skip_kinds: spec.skip_kinds.clone(),
    };
    let Some(make_fetch) = make_fetch else {
        return Err(UsageError(
            "this check cannot read Kubernetes schemas (no fetcher was given)".into(),
        ));
    };
    let fetch = make_fetch(FetchPolicy {
        trusted,
        root: root.clone(),
        cache: req.schema_cache.clone(),
        offline: req.offline,
        allow_hosts: req.allow_hosts.clone(),
        host_timeout: req.timeout_secs.map_or(DEFAULT_HOST_TIMEOUT, |s| {
            Duration::from_secs(s.clamp(1, 600))
        }),
    });
    let mut fingerprint = format!("{opts:?}|versions {:?}", spec.versions);
    let mut crds = Vec::new();
    for given in &spec.crds {
        let path = crate::source::confine(given).map_err(config_error)?;
        for file in crd_files(sources, &path).map_err(config_error)? {
            read_crds(sources, &file, opts.strict, &mut crds, &mut fingerprint)
                .map_err(|e| config_error(format!("crds: {}: {e}", file.as_str())))?;
        }
    }
    // CRDs lying in the repository that no pair reads (vendored, or the
    // package's `crds/` folder) validate the custom resources too; a file
    // that does not read or parse is reported as an unused file already
    for file in &plan.unused_files {
        let _ = read_crds(sources, file, opts.strict, &mut crds, &mut fingerprint);
    }
    for l in &opts.locations {
        if !is_url(l) && l != "default" {
            let folder = crate::kubernetes::Location::parse(l)
                .map(|l| l.folder(&opts.version, opts.strict))
                .unwrap_or_else(|_| static_prefix(l));
            fingerprint.push_str(&format!("|{}", folder_fingerprint(&folder)));
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
    // each environment's own version: its schemas, its removed APIs
    let mut by_environment = Vec::new();
    let mut made: Vec<(String, Arc<Schemas>)> = Vec::new();
    for (environment, version) in &spec.versions {
        let schemas = match made.iter().find(|(v, _)| v == version) {
            Some((_, s)) => s.clone(),
            None => {
                let mut o = opts.clone();
                o.version = version.clone();
                o.locations = o
                    .locations
                    .into_iter()
                    .map(|l| local_layout(l, version, o.strict))
                    .collect();
                let s = Arc::new(
                    Schemas::new(o, fetch.clone())
                        .map_err(|e| UsageError(format!("kubernetes: {e}")))?,
                );
                // an environment's own version is held to it too: a
                // version no location has (`"*": 0.0.0`) checks nothing
                checks_something(&s)?;
                made.push((version.clone(), s.clone()));
                s
            }
        };
        by_environment.push((environment.clone(), schemas));
    }
    let schemas = Schemas::new(opts, fetch).map_err(|e| UsageError(format!("kubernetes: {e}")))?;
    checks_something(&schemas)?;
    let check = Arc::new(KubernetesCheck {
        schemas,
        by_environment,
        crds,
        fingerprint,
    });
    if let Some(warm) = warm {
        *warm.0.lock().unwrap_or_else(|e| e.into_inner()) = Some(check.clone());
    }
    Ok(Some(check))
}

/// A folder given without a layout gets kubeconform's (`-standalone`);
/// when that folder does not exist and the `-local` one does (the
/// kubernetes-validate wheel's layout, with `_definitions.json`), the
/// `-local` layout. Every other location is kept as given.
fn local_layout(location: String, version: &str, strict: bool) -> String {
    use crate::kubernetes::Location;
    if location == "default" || is_url(&location) || location.trim_end().ends_with("json") {
        return location;
    }
    let exists = |l: &str| {
        Location::parse(l)
            .map(|l| Path::new(&l.folder(version, strict)).is_dir())
            .unwrap_or(false)
    };
    if exists(&location) {
        return location;
    }
    let local = format!(
        "{}/{{{{ .NormalizedKubernetesVersion }}}}-local{{{{ .StrictSuffix }}}}/{{{{ .ResourceKind }}}}{{{{ .KindSuffix }}}}.json",
        location.trim_end_matches('/')
    );
    if exists(&local) {
        local
    } else {
        location
    }
}

/// Refuses locations that have no schema for the built-in kinds: a check
/// whose every kind is a `kubernetes/no-schema` note checked nothing, and
/// must not pass as clean (a folder of another layout, a version the
/// folder lacks). A location that could not be read is its own finding.
fn checks_something(schemas: &Schemas) -> Result<(), UsageError> {
    use crate::kubernetes::{Kind, Lookup};
    let mut tried = Vec::new();
    for (api_version, kind) in [
        ("v1", "ConfigMap"),
        ("v1", "Service"),
        ("apps/v1", "Deployment"),
    ] {
        let cell = schemas.lookup(&Kind { api_version, kind });
        match cell.get() {
            Some(Lookup::Missing { tried: t }) => tried.extend(t.iter().cloned()),
            _ => return Ok(()),
        }
    }
    tried.truncate(3);
    Err(UsageError(format!(
        "kubernetes: no schema location has the built-in kinds (ConfigMap, Service, Deployment) for version {}: a check that checked nothing is not a pass (tried {}); check --schema-location and --kubernetes-version (a folder of kubeconform's layout holds <version>-standalone[-strict]/, the kubernetes-validate wheel's <version>-local[-strict]/; both are found)",
        schemas.options().version,
        tried.join(", ")
    )))
}

/// The line of `.yttcheck.yml` that holds `needle` (outside comments).
fn config_line(sources: &SourceCache, needle: &str) -> Option<usize> {
    let path = RepoPath::new(crate::workspace::config::CONFIG_FILE)?;
    let src = sources.get(&path).ok()?;
    src.text()
        .lines()
        .position(|l| !l.trim_start().starts_with('#') && l.contains(needle))
        .map(|i| i + 1)
}

/// The CRDs of one file, added to `crds`; the file's content joins the
/// fingerprint when it defines any.
fn read_crds(
    sources: &SourceCache,
    file: &RepoPath,
    strict: bool,
    crds: &mut Vec<crate::kubernetes::crd::CrdVersion>,
    fingerprint: &mut String,
) -> Result<(), String> {
    let src = sources.get(file).map_err(|e| e.to_string())?;
    if !src.text().contains("CustomResourceDefinition") {
        return Ok(());
    }
    let docs = crate::yaml::parse::parse(&src, false).map_err(|e| e.to_string())?;
    let before = crds.len();
    for d in &docs.docs {
        crds.extend(crate::kubernetes::crd::versions(&d.value, &d.pos, strict));
    }
    if crds.len() > before {
        fingerprint.push_str(&format!(
            "|crd {}:{}",
            file.as_str(),
            digest(src.text().as_bytes())
        ));
    }
    Ok(())
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

/// What identifies a local schema folder's content without reading it: the
/// name, size and modification time of every file under it, read through
/// links (a schema file, or `_definitions.json`, may be a link: its
/// target's change must change the fingerprint), and each link's own
/// target and time (a link aimed elsewhere). A schema edited in place, or a
/// link re-aimed, changes it, so no memo or cached result outlives it.
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
            e.file_name().hash(&mut h);
            let Ok(own) = e.metadata() else { continue };
            if own.file_type().is_symlink() {
                std::fs::read_link(e.path()).ok().hash(&mut h);
                own.modified().ok().hash(&mut h);
            }
            // what a read of it gives: through the link
            let Ok(meta) = std::fs::metadata(e.path()) else {
                continue;
            };
            if meta.is_dir() {
                // a linked folder is walked as the fetcher reads it (a
                // loop of links ends at the bound above)
                todo.push(e.path());
            } else {
                meta.len().hash(&mut h);
                meta.modified().ok().hash(&mut h);
                file_identity(&meta).hash(&mut h);
            }
        }
    }
    format!("{folder}:{:x}", h.finish())
}

/// The device, inode and change time of a file: a file replaced by another
/// of the same size and time is still told apart.
#[cfg(unix)]
fn file_identity(meta: &std::fs::Metadata) -> (u64, u64, i64, i64) {
    use std::os::unix::fs::MetadataExt;
    (meta.dev(), meta.ino(), meta.ctime(), meta.ctime_nsec())
}

#[cfg(not(unix))]
fn file_identity(_: &std::fs::Metadata) -> (u64, u64, i64, i64) {
    (0, 0, 0, 0)
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
