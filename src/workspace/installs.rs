//! Consumers' values, checked against the package: kapp-controller
//! `PackageInstall`s of the repository (GitOps repositories keep them beside
//! the Secret of their values) and sample values files named in
//! `.yttcheck.yml`, each a pair of the library it configures.
//!
//! A `PackageInstall` asks for a package by `spec.packageRef.refName` (and a
//! version constraint); the Package CR of that name in the repository is
//! tied to its library (`workspace::packages`), so the install is a pair of
//! that library whose `--data-values-file`s are the keys of the Secrets its
//! `spec.values[].secretRef` names, in kapp-controller's order: each Secret
//! in turn, its keys sorted. An install whose package is not in the
//! repository is no pair (it comes from a package repository elsewhere); one
//! whose Secret is not (sealed, external) is a skipped pair that says why.

use crate::source::RepoPath;
use crate::yaml::node::{DocSet, Value};

use super::discover::RepoFiles;
use super::embedded::{may_hold_secrets, secrets_in, SecretDoc};
use super::packages::at;
use super::plan::{EmbeddedValues, EnvInputs, Library, PackageCr, Pair, SkippedPair};

/// The annotation that makes an install's values ytt files (`-f`, data
/// values overlays) instead of `--data-values-file`s.
const OVERLAYS_ANNOTATION: &str = "ext.packaging.carvel.dev/ytt-data-values-overlays";

/// One `PackageInstall` document.
#[derive(Debug, Clone)]
struct Install {
    path: RepoPath,
    name: String,
    namespace: Option<String>,
    ref_name: String,
    constraints: Option<String>,
    prereleases: bool,
    /// `spec.values[].secretRef.name`, in order.
    secrets: Vec<String>,
    overlays: bool,
}

/// Whether a file's text may hold a `PackageInstall`.
fn may_hold_installs(text: &str) -> bool {
    text.contains("packaging.carvel.dev/") && crate::secrets::has_top_kind(text, "PackageInstall")
}

fn installs_in(path: &RepoPath, docs: &DocSet) -> Vec<Install> {
    docs.docs
        .iter()
        .filter_map(|d| {
            let m = d.value.as_map()?;
            let api = m.get("apiVersion")?.value.as_str()?;
            let kind = m.get("kind")?.value.as_str()?;
            if !api.starts_with("packaging.carvel.dev/") || kind != "PackageInstall" {
                return None;
            }
            let v = &d.value;
            let text = |p: &[&str]| at(v, p).and_then(Value::as_str).map(str::to_string);
            let secrets = at(v, &["spec", "values"])
                .and_then(Value::as_array)
                .map(|a| {
                    a.items
                        .iter()
                        .filter_map(|i| at(&i.value, &["secretRef", "name"])?.as_str())
                        .map(str::to_string)
                        .collect()
                })
                .unwrap_or_default();
            let selection = ["spec", "packageRef", "versionSelection"];
            Some(Install {
                path: path.clone(),
                name: text(&["metadata", "name"]).unwrap_or_default(),
                namespace: text(&["metadata", "namespace"]),
                ref_name: text(&["spec", "packageRef", "refName"])?,
                constraints: text(&[selection[0], selection[1], selection[2], "constraints"]),
                prereleases: at(
                    v,
                    &[selection[0], selection[1], selection[2], "prereleases"],
                )
                .is_some(),
                secrets,
                overlays: at(v, &["metadata", "annotations"])
                    .and_then(Value::as_map)
                    .is_some_and(|m| m.get(OVERLAYS_ANNOTATION).is_some()),
            })
        })
        .collect()
}

/// The `PackageInstall`s of the repository's YAML files, then the
/// `Secret`s they name: a file is parsed only when its text may hold what
/// is wanted (a package's bundle holds Secret templates by the dozen).
fn scan(files: &RepoFiles) -> (Vec<Install>, Vec<SecretDoc>) {
    let parse = |path: &RepoPath, wanted: &dyn Fn(&str) -> bool| {
        let src = files.text(path)?;
        if !wanted(src.text()) {
            return None;
        }
        crate::yaml::parse::parse(&src, false).ok()
    };
    let yaml = || files.files.iter().filter(|f| f.is_yaml());
    let installs: Vec<Install> = yaml()
        .filter_map(|path| Some(installs_in(path, &parse(path, &may_hold_installs)?)))
        .flatten()
        .collect();
    let names: Vec<&str> = installs
        .iter()
        .flat_map(|i| i.secrets.iter().map(String::as_str))
        .collect();
    if names.is_empty() {
        return (installs, Vec::new());
    }
    let names_one = |text: &str| may_hold_secrets(text) && names.iter().any(|n| text.contains(n));
    let secrets = yaml()
        .filter_map(|path| Some(secrets_in(path, &parse(path, &names_one)?)))
        .flatten()
        .collect();
    (installs, secrets)
}

/// Adds a pair for each `PackageInstall` of a package in the repository
/// and each sample values file (`samples`: the library's index, the file),
/// named so that no two pairs of a library share a name.
pub(super) fn add_pairs(
    files: &RepoFiles,
    libraries: &[Library],
    samples: &[(usize, RepoPath)],
    pairs: &mut Vec<Pair>,
    skipped: &mut Vec<SkippedPair>,
) {
    let (installs, secrets) = scan(files);
    let mut new: Vec<(usize, String, EnvInputs, Vec<RepoPath>)> = Vec::new();
    for install in &installs {
        let Some(lib) = package_of(libraries, install, skipped) else {
            continue;
        };
        let mut skip = |reason: String| {
            skipped.push(SkippedPair {
                library: lib,
                environment: install_name(install),
                reason,
            })
        };
        if install.overlays {
            skip(format!(
                "the PackageInstall ({}) gives its values as ytt overlays ({OVERLAYS_ANNOTATION}), which yttcheck does not check yet",
                install.path
            ));
            continue;
        }
        let mut inputs = EnvInputs::default();
        let mut sources = vec![install.path.clone()];
        let mut missing = None;
        for name in &install.secrets {
            match secret_for(install, name, &secrets) {
                Ok(secret) => {
                    inputs.embedded_values.extend(values_files(secret));
                    sources.push(secret.path.clone());
                }
                Err(why) => {
                    missing = Some(why);
                    break;
                }
            }
        }
        if let Some(why) = missing {
            skip(why);
            continue;
        }
        sources.dedup();
        new.push((lib, install_name(install), inputs, sources));
    }
    for (lib, path) in samples {
        let mut inputs = EnvInputs::default();
        let held: Vec<SecretDoc> = files
            .text(path)
            .filter(|src| may_hold_secrets(src.text()))
            .and_then(|src| crate::yaml::parse::parse(&src, false).ok())
            .map(|docs| secrets_in(path, &docs))
            .unwrap_or_default();
        if held.is_empty() {
            inputs.data_values_files.push(path.clone());
        }
        for secret in &held {
            inputs.embedded_values.extend(values_files(secret));
        }
        let stem = path.file_name();
        let stem = stem
            .strip_suffix(".yml")
            .or_else(|| stem.strip_suffix(".yaml"))
            .unwrap_or(stem);
        new.push((*lib, format!("sample-{stem}"), inputs, vec![path.clone()]));
    }
    for (lib, name, inputs, sources) in new {
        let taken = |n: &str| pairs.iter().any(|p| p.library == lib && p.environment == n);
        let mut unique = name.clone();
        let mut n = 2;
        while taken(&unique) {
            unique = format!("{name}-{n}");
            n += 1;
        }
        pairs.push(Pair {
            library: lib,
            environment: unique,
            inputs,
            sources,
            policies: Vec::new(),
        });
    }
}

/// A Secret's values files, as kapp-controller gives them to ytt: one per
/// key, in key order.
fn values_files(secret: &SecretDoc) -> impl Iterator<Item = EmbeddedValues> + '_ {
    secret.keys.iter().map(|key| EmbeddedValues {
        path: secret.path.clone(),
        document: secret.document,
        key: key.clone(),
    })
}

/// The pair name of an install: its `metadata.name`, which names the App
/// kapp-controller makes of it (a name no folder can take is made plain).
fn install_name(install: &Install) -> String {
    let plain: String = install
        .name
        .chars()
        .map(|c| {
            if c == '/' || c == '\\' || c.is_control() {
                '-'
            } else {
                c
            }
        })
        .collect();
    match plain.as_str() {
        "" | "." | ".." => "install".to_string(),
        _ => plain,
    }
}

/// The library whose Package CR the install asks for (the highest version
/// that its constraints allow, as kapp-controller picks).
/// `None` when no Package of its `refName` is in the repository; when some
/// are and none is allowed, the install is a skipped pair of the newest.
fn package_of(
    libraries: &[Library],
    install: &Install,
    skipped: &mut Vec<SkippedPair>,
) -> Option<usize> {
    let mut named: Vec<(usize, &PackageCr)> = libraries
        .iter()
        .enumerate()
        .flat_map(|(i, l)| l.packages.iter().map(move |p| (i, p)))
        .filter(|(_, p)| p.ref_name == install.ref_name)
        .collect();
    if named.is_empty() {
        return None;
    }
    named.sort_by(|a, b| by_version(&b.1.version, &a.1.version));
    let allowed = named.iter().find(|(_, p)| {
        let Ok(v) = semver::Version::parse(p.version.trim_start_matches('v')) else {
            // a version that is no semver is taken only without constraints
            return install.constraints.is_none();
        };
        (install.prereleases || v.pre.is_empty())
            && install
                .constraints
                .as_deref()
                .is_none_or(|c| satisfies(&v, c))
    });
    match allowed {
        Some(&(lib, _)) => Some(lib),
        None => {
            let versions: Vec<&str> = named.iter().map(|(_, p)| p.version.as_str()).collect();
            skipped.push(SkippedPair {
                library: named[0].0,
                environment: install_name(install),
                reason: format!(
                    "no Package {} in the repository is a version the PackageInstall ({}) allows ({}; here: {})",
                    install.ref_name,
                    install.path,
                    install.constraints.as_deref().unwrap_or("no prereleases"),
                    versions.join(", ")
                ),
            });
            None
        }
    }
}

/// Orders versions as semver does (build metadata aside), a version that
/// is no semver before every one that is.
fn by_version(a: &str, b: &str) -> std::cmp::Ordering {
    let parse = |s: &str| semver::Version::parse(s.trim_start_matches('v')).ok();
    match (parse(a), parse(b)) {
        (Some(a), Some(b)) => a.cmp_precedence(&b),
        (a, b) => a.is_some().cmp(&b.is_some()),
    }
}

/// Whether `v` satisfies a kapp-controller version constraint: ranges
/// joined by `||`, each comparisons joined by spaces or commas (`>=1.2.0
/// <2.0.0`), a bare version meaning `=`; wildcards (`1.2.x`, `*`) allowed.
pub(super) fn satisfies(v: &semver::Version, constraints: &str) -> bool {
    constraints.split("||").any(|range| {
        let mut parts = range
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|p| !p.is_empty())
            .peekable();
        parts.peek().is_some() && parts.all(|p| comparison(v, p))
    })
}

fn comparison(v: &semver::Version, part: &str) -> bool {
    use std::cmp::Ordering::{Equal, Greater, Less};
    let (op, rest) = ["!=", ">=", "<=", "==", ">", "<", "="]
        .iter()
        .find_map(|op| part.strip_prefix(op).map(|r| (*op, r)))
        .unwrap_or(("=", part));
    let rest = rest.trim().trim_start_matches('v');
    if matches!(rest, "*" | "x" | "X") {
        return op != "!=";
    }
    // wildcards: `1.2.x` is every 1.2 version
    let pieces: Vec<&str> = rest.split('.').collect();
    if let Some(wild) = pieces.iter().position(|p| matches!(*p, "x" | "X" | "*")) {
        let fixed: Vec<u64> = pieces[..wild]
            .iter()
            .filter_map(|p| p.parse().ok())
            .collect();
        if fixed.len() != wild {
            return false;
        }
        let have = [v.major, v.minor, v.patch];
        let same = fixed.iter().zip(have).all(|(a, b)| *a == b);
        return if op == "!=" { !same } else { same };
    }
    let Ok(want) = semver::Version::parse(rest) else {
        return false;
    };
    let ord = v.cmp_precedence(&want);
    match op {
        "!=" => ord != Equal,
        ">=" => ord != Less,
        "<=" => ord != Greater,
        ">" => ord == Greater,
        "<" => ord == Less,
        _ => ord == Equal,
    }
}

/// The Secret `name` in the install's namespace (a document without a
/// namespace matches any), the nearest to the install's file when several
/// are; a reason to skip the install when there is none, or no nearest.
fn secret_for<'s>(
    install: &Install,
    name: &str,
    secrets: &'s [SecretDoc],
) -> Result<&'s SecretDoc, String> {
    let candidates: Vec<&SecretDoc> = secrets
        .iter()
        .filter(|s| s.name == name)
        .filter(|s| match (&install.namespace, &s.namespace) {
            (Some(a), Some(b)) => a == b,
            _ => true,
        })
        .collect();
    let near = |s: &SecretDoc| common_folders(&install.path, &s.path);
    let best = candidates.iter().map(|s| near(s)).max();
    let nearest: Vec<&&SecretDoc> = candidates
        .iter()
        .filter(|s| Some(near(s)) == best)
        .collect();
    match nearest.as_slice() {
        [one] => Ok(one),
        [] => Err(format!(
            "its values Secret {name} is not in the repository (the PackageInstall is {}): its values cannot be checked here",
            install.path
        )),
        many => Err(format!(
            "its values Secret {name} is in several files as near to the PackageInstall ({}): {}",
            install.path,
            many.iter()
                .map(|s| s.path.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

/// How many folders two paths share from the top.
fn common_folders(a: &RepoPath, b: &RepoPath) -> usize {
    let folders = |p: &RepoPath| -> Vec<String> {
        let s = p.as_str();
        s.rsplit_once('/')
            .map(|(d, _)| d.split('/').map(str::to_string).collect())
            .unwrap_or_default()
    };
    folders(a)
        .iter()
        .zip(folders(b).iter())
        .take_while(|(x, y)| x == y)
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> semver::Version {
        semver::Version::parse(s).unwrap()
    }

    #[test]
    fn constraints_are_read_as_kapp_controller_writes_them() {
        assert!(satisfies(&v("1.19.1"), "1.19.1"));
        assert!(satisfies(&v("1.19.1+vmware.1"), ">=1.19.0 <2.0.0"));
        assert!(!satisfies(&v("2.0.0"), ">=1.19.0, <2.0.0"));
        assert!(satisfies(&v("1.2.7"), "1.2.x"));
        assert!(!satisfies(&v("1.3.0"), "1.2.x"));
        assert!(satisfies(&v("3.0.0"), "<1.0.0 || >=3.0.0"));
        assert!(!satisfies(&v("1.0.0"), "!=1.0.0"));
        assert!(!satisfies(&v("1.0.0"), ""));
    }

    #[test]
    fn the_nearest_secret_is_the_installs() {
        let p = |s: &str| RepoPath::new(s).unwrap();
        assert_eq!(common_folders(&p("c/prod/a.yml"), &p("c/prod/s.yml")), 2);
        assert_eq!(common_folders(&p("c/prod/a.yml"), &p("c/dev/s.yml")), 1);
        assert_eq!(common_folders(&p("a.yml"), &p("s.yml")), 0);
    }
}
