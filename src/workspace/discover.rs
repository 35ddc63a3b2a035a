//! Finding libraries and environments: by convention, or as `.yttcheck.yml`
//! declares them.
//!
//! Conventions (zero-config):
//!
//! * a **library** is a folder holding a `#@data/values-schema` document, or,
//!   without any schema, `#@data/values` defaults. Its root climbs from that
//!   folder while the folder above directly holds ytt files (YAML, Starlark,
//!   text) and no other library: a schema in `libs/web/config/` with values
//!   in `libs/web/` makes `libs/web` the library. A library inside another is part of
//!   it; `_ytt_lib/` folders are private libraries, never libraries of their
//!   own;
//! * an **environment root** is a folder named `envs/` or `environments/`
//!   (each sub-folder and each YAML file in it is an environment; a folder
//!   and a file of the same name are one environment), or `values/` (each
//!   sub-folder is one). It applies to the libraries inside the folder that
//!   holds it: at the repository root, to every library;
//! * in an environment folder, `<library>.yml` and `<library>/` are for that
//!   library alone, every other file for every library;
//! * an environment YAML file with a `#@data/values` (or schema) document is
//!   given to ytt with `-f`, a plain one with `--data-values-file`; other
//!   files (helpers) with `-f`;
//! * a library with no environment is checked with its defaults alone.

use std::collections::{BTreeMap, BTreeSet};

use globset::{GlobBuilder, GlobMatcher, GlobSet, GlobSetBuilder};

use std::sync::Arc;

use crate::source::{walk, RepoPath, SourceCache};
use crate::yaml::SourceFile;

use super::config::{Config, EnvironmentSpec, CONFIG_FILE};
use super::plan::{EnvInputs, FileArg, Library, Pair, Plan, PlanProblem, DEFAULTS_ENV};

/// Folder names that hold environments.
const ENV_ROOTS: &[&str] = &["envs", "environments"];
/// Folder names whose sub-folders (only) are environments.
const ENV_ROOTS_DIRS_ONLY: &[&str] = &["values"];
const PRIVATE_LIB_DIR: &str = "_ytt_lib";

/// A glob where `*` stays within one path piece (`libs/*` is the folders in
/// `libs`, not everything below it).
pub fn glob(pattern: &str) -> Result<GlobMatcher, String> {
    GlobBuilder::new(pattern.trim_end_matches('/'))
        .literal_separator(true)
        .build()
        .map(|g| g.compile_matcher())
        .map_err(|e| format!("bad glob '{pattern}': {e}"))
}

fn glob_set(patterns: &[String]) -> Option<GlobSet> {
    if patterns.is_empty() {
        return None;
    }
    let mut b = GlobSetBuilder::new();
    for p in patterns {
        let p = p.trim_end_matches('/');
        for variant in [p.to_string(), format!("{p}/**")] {
            if let Ok(g) = GlobBuilder::new(&variant).literal_separator(true).build() {
                b.add(g);
            }
        }
    }
    b.build().ok()
}

/// The files of a repository (their texts read once, through the cache the
/// check reads them from too).
pub struct RepoFiles<'a> {
    pub sources: &'a SourceCache<'a>,
    /// Sorted.
    pub files: Vec<RepoPath>,
    /// Every folder holding a file, sorted.
    pub dirs: BTreeSet<RepoPath>,
    pub problems: Vec<PlanProblem>,
}

impl<'a> RepoFiles<'a> {
    /// Walks the snapshot, leaving out `exclude` globs (a pattern naming a
    /// folder leaves out everything in it).
    pub fn scan(sources: &'a SourceCache<'a>, exclude: &[String]) -> RepoFiles<'a> {
        let (files, errors) = walk(sources.snapshot(), &RepoPath::root());
        let excluded = glob_set(exclude);
        let files: Vec<RepoPath> = files
            .into_iter()
            .filter(|f| !excluded.as_ref().is_some_and(|g| g.is_match(f.as_str())))
            .collect();
        let mut dirs = BTreeSet::new();
        dirs.insert(RepoPath::root());
        for f in &files {
            let mut p = f.parent();
            while let Some(d) = p {
                if !dirs.insert(d.clone()) {
                    break;
                }
                p = d.parent();
            }
        }
        RepoFiles {
            sources,
            files,
            dirs,
            problems: errors
                .into_iter()
                .map(|e| PlanProblem {
                    path: RepoPath::new(&e.path).unwrap_or_default(),
                    message: e.message,
                })
                .collect(),
        }
    }

    /// A file's text, or `None` when it cannot be read as text.
    pub fn text(&self, path: &RepoPath) -> Option<Arc<SourceFile>> {
        self.sources.get(path).ok()
    }

    /// Files in `dir` (at any depth), by binary search: paths with a common
    /// prefix are contiguous in sorted order.
    pub fn under<'s>(&'s self, dir: &RepoPath) -> &'s [RepoPath] {
        if dir.is_root() {
            return &self.files;
        }
        let prefix = format!("{}/", dir.as_str());
        let start = self.files.partition_point(|f| f.as_str() < prefix.as_str());
        let len = self.files[start..]
            .iter()
            .take_while(|f| f.as_str().starts_with(&prefix))
            .count();
        &self.files[start..start + len]
    }

    pub fn is_dir(&self, dir: &RepoPath) -> bool {
        self.dirs.contains(dir)
    }

    pub fn is_file(&self, path: &RepoPath) -> bool {
        self.files.binary_search(path).is_ok()
    }
}

/// Whether `text` has a document annotated `annotation` (a cheap scan of
/// comment lines; the check parses the file properly).
fn has_annotation(text: &str, annotation: &str) -> bool {
    text.trim_start_matches('\u{feff}').lines().any(|l| {
        l.trim_start()
            .strip_prefix("#@")
            .map(|rest| {
                let rest = rest.trim_start();
                rest.starts_with(annotation)
                    && !rest[annotation.len()..]
                        .starts_with(|c: char| c.is_alphanumeric() || c == '-' || c == '/')
            })
            .unwrap_or(false)
    })
}

fn in_private_lib(p: &RepoPath) -> bool {
    p.components().any(|c| c == PRIVATE_LIB_DIR)
}

/// ytt reads these as templates or Starlark.
fn is_ytt_file(p: &RepoPath) -> bool {
    let n = p.file_name();
    p.is_yaml() || n.ends_with(".star") || n.ends_with(".txt")
}

/// An environment found on disk: folders and files of one name in one
/// environment root.
#[derive(Debug, Clone)]
struct FoundEnv {
    name: String,
    /// The folder and/or YAML file(s) it is made of.
    parts: Vec<(RepoPath, bool)>,
    /// Libraries under this folder are the ones it applies to.
    scope: RepoPath,
}

fn find_envs(files: &RepoFiles) -> (Vec<FoundEnv>, Vec<RepoPath>) {
    let mut out: Vec<FoundEnv> = Vec::new();
    let mut claimed: Vec<RepoPath> = Vec::new();
    for d in &files.dirs {
        let name = d.file_name();
        let dirs_only = ENV_ROOTS_DIRS_ONLY.contains(&name);
        if d.is_root() || !(ENV_ROOTS.contains(&name) || dirs_only) || in_private_lib(d) {
            continue;
        }
        // an environment root inside another environment is part of that one
        if claimed.iter().any(|c| d.starts_with(c)) {
            continue;
        }
        let scope = d.parent().unwrap_or_default();
        let mut by_name: BTreeMap<String, Vec<(RepoPath, bool)>> = BTreeMap::new();
        for f in files.under(d) {
            let rel = f.strip_prefix(d).unwrap_or("");
            match rel.split_once('/') {
                Some((child, _)) => {
                    let path = d.join(child);
                    let parts = by_name.entry(child.to_string()).or_default();
                    if !parts.contains(&(path.clone(), true)) {
                        parts.push((path, true));
                    }
                }
                None if !dirs_only && f.is_yaml() => {
                    by_name
                        .entry(f.stem().to_string())
                        .or_default()
                        .push((f.clone(), false));
                }
                None => {}
            }
        }
        for (name, parts) in by_name {
            claimed.extend(parts.iter().map(|(p, _)| p.clone()));
            out.push(FoundEnv {
                name,
                parts,
                scope: scope.clone(),
            });
        }
    }
    claimed.sort();
    (out, claimed)
}

/// Whether `f` is (in) one of the `claimed` paths (sorted): one binary
/// search per ancestor.
fn is_claimed(claimed: &[RepoPath], f: &RepoPath) -> bool {
    let mut p = Some(f.clone());
    while let Some(x) = p {
        if x.is_root() {
            return false;
        }
        if claimed.binary_search(&x).is_ok() {
            return true;
        }
        p = x.parent();
    }
    false
}

fn discover_libraries(files: &RepoFiles, claimed: &[RepoPath]) -> Vec<RepoPath> {
    let marked = |annotation: &str| -> BTreeSet<RepoPath> {
        files
            .files
            .iter()
            .filter(|f| f.is_yaml() && !is_claimed(claimed, f) && !in_private_lib(f))
            .filter(|f| {
                files
                    .text(f)
                    .is_some_and(|t| has_annotation(t.text(), annotation))
            })
            .filter_map(|f| f.parent())
            .collect()
    };
    let mut roots = marked("data/values-schema");
    // libraries without a schema: folders with `@data/values` defaults that
    // are neither inside nor around a schema library
    for r in marked("data/values") {
        if !roots.iter().any(|s| r.starts_with(s) || s.starts_with(&r)) {
            roots.insert(r);
        }
    }
    // climb while the folder above holds more of this library's files and
    // no other library
    let candidates: Vec<RepoPath> = roots.iter().cloned().collect();
    let mut climbed = BTreeSet::new();
    for root in candidates.iter() {
        let mut r = root.clone();
        while let Some(parent) = r.parent() {
            if parent.is_root() {
                break;
            }
            let others = candidates
                .iter()
                .any(|o| o != root && o.starts_with(&parent));
            // ytt files right in the folder above (not in other sub-folders,
            // which may be other things entirely)
            let more_files = files.under(&parent).iter().any(|f| {
                f.parent().as_ref() == Some(&parent) && is_ytt_file(f) && !is_claimed(claimed, f)
            });
            if others || !more_files {
                break;
            }
            r = parent;
        }
        climbed.insert(r);
    }
    let all: Vec<RepoPath> = climbed.iter().cloned().collect();
    climbed
        .into_iter()
        .filter(|r| !all.iter().any(|o| o != r && r.starts_with(o)))
        .collect()
}

/// Library names: the folder name, or the path (`libs-web`) when folders of
/// several libraries share a name.
fn library_names(roots: &[RepoPath]) -> Vec<String> {
    let base = |r: &RepoPath| {
        if r.is_root() {
            "root".to_string()
        } else {
            r.file_name().to_string()
        }
    };
    let mut count: BTreeMap<String, usize> = BTreeMap::new();
    for r in roots {
        *count.entry(base(r)).or_default() += 1;
    }
    let mut taken = BTreeSet::new();
    roots
        .iter()
        .map(|r| {
            let mut name = if count[&base(r)] > 1 {
                r.as_str().replace('/', "-")
            } else {
                base(r)
            };
            let stem = name.clone();
            let mut n = 2;
            while !taken.insert(name.clone()) {
                name = format!("{stem}-{n}");
                n += 1;
            }
            name
        })
        .collect()
}

fn library_files(files: &RepoFiles, root: &RepoPath, claimed: &[RepoPath]) -> Vec<RepoPath> {
    files
        .under(root)
        .iter()
        .filter(|f| !is_claimed(claimed, f) && f.as_str() != CONFIG_FILE)
        .cloned()
        .collect()
}

/// Sorts an environment's files for one library into `-f` files and plain
/// values files.
fn classify(files: &RepoFiles, args: impl IntoIterator<Item = FileArg>, inputs: &mut EnvInputs) {
    for a in args {
        let plain = a.path.is_yaml()
            && files.text(&a.path).is_some_and(|t| {
                !has_annotation(t.text(), "data/values")
                    && !has_annotation(t.text(), "data/values-schema")
            });
        if plain {
            inputs.data_values_files.push(a.path);
        } else {
            // annotated, a helper, or unreadable (reported when read)
            inputs.files.push(a);
        }
    }
}

/// An environment's files, by owner: the library a file or folder is named
/// after (or `None`: for every library).
struct EnvFiles {
    by_owner: BTreeMap<Option<String>, Vec<FileArg>>,
}

fn env_files(
    files: &RepoFiles,
    env: &FoundEnv,
    names: &BTreeSet<String>,
    ambiguous: &BTreeSet<String>,
    problems: &mut Vec<PlanProblem>,
) -> EnvFiles {
    let mut by_owner: BTreeMap<Option<String>, Vec<FileArg>> = BTreeMap::new();
    for (path, is_dir) in &env.parts {
        if !is_dir {
            by_owner
                .entry(None)
                .or_default()
                .push(FileArg::single(path.clone()));
            continue;
        }
        for f in files.under(path) {
            let rel = f.strip_prefix(path).unwrap_or("");
            let named = match rel.split_once('/') {
                Some((dir, _)) => dir,
                None => f.stem(),
            };
            if ambiguous.contains(named) {
                // several libraries are named after this folder: whose is it?
                problems.push(PlanProblem {
                    path: f.clone(),
                    message: format!(
                        "several libraries have a folder named '{named}' (so they are named by their paths): which one is {f} for? Rename it after the library's name (see `yttcheck list`) or declare the environment in .yttcheck.yml"
                    ),
                });
                continue;
            }
            let (owner, arg) = match rel.split_once('/') {
                // `<library>/...`: ytt paths relative to that folder
                Some((dir, rest)) if names.contains(dir) => (
                    Some(dir.to_string()),
                    FileArg {
                        path: f.clone(),
                        rel: rest.to_string(),
                    },
                ),
                Some(_) => (
                    None,
                    FileArg {
                        path: f.clone(),
                        rel: rel.to_string(),
                    },
                ),
                None if names.contains(f.stem()) && f.is_yaml() => {
                    (Some(f.stem().to_string()), FileArg::single(f.clone()))
                }
                None => (None, FileArg::single(f.clone())),
            };
            by_owner.entry(owner).or_default().push(arg);
        }
    }
    EnvFiles { by_owner }
}

fn inputs_for(files: &RepoFiles, ef: &EnvFiles, library: &str) -> EnvInputs {
    let mut inputs = EnvInputs::default();
    let common = ef.by_owner.get(&None).cloned().unwrap_or_default();
    let own = ef
        .by_owner
        .get(&Some(library.to_string()))
        .cloned()
        .unwrap_or_default();
    classify(files, common.into_iter().chain(own), &mut inputs);
    inputs
}

/// Makes the plan for a repository: from `config` when given, else by
/// convention (and by convention for whatever the config leaves out).
pub fn plan(files: &RepoFiles, config: Option<(&RepoPath, &Config)>) -> Plan {
    let cfg = config.map(|(_, c)| c.clone()).unwrap_or_default();
    let config_path = config.map(|(p, _)| p.clone()).unwrap_or_default();
    let mut problems = files.problems.clone();
    let problem = |problems: &mut Vec<PlanProblem>, message: String| {
        problems.push(PlanProblem {
            path: config_path.clone(),
            message,
        })
    };
    let (found_envs, claimed) = find_envs(files);

    // libraries
    let mut roots: Vec<(RepoPath, Option<String>, Vec<FileArg>)> = Vec::new();
    if cfg.libraries.is_empty() {
        for root in discover_libraries(files, &claimed) {
            roots.push((root, None, Vec::new()));
        }
    } else {
        for spec in &cfg.libraries {
            let found: Vec<RepoPath> = match (&spec.path, &spec.glob) {
                (Some(p), _) => match RepoPath::new(p) {
                    Some(r) if files.is_dir(&r) => vec![r],
                    _ => {
                        problem(
                            &mut problems,
                            format!("library path '{p}' is not a folder of the repository"),
                        );
                        vec![]
                    }
                },
                (None, Some(g)) => match glob(g) {
                    Ok(m) => {
                        let mut dirs: Vec<RepoPath> = files
                            .dirs
                            .iter()
                            .filter(|d| {
                                !d.is_root() && m.is_match(d.as_str()) && !in_private_lib(d)
                            })
                            .cloned()
                            .collect();
                        let all = dirs.clone();
                        dirs.retain(|d| !all.iter().any(|o| o != d && d.starts_with(o)));
                        if dirs.is_empty() {
                            problem(
                                &mut problems,
                                format!("library glob '{g}' matches no folder"),
                            );
                        }
                        dirs
                    }
                    Err(e) => {
                        problem(&mut problems, e);
                        vec![]
                    }
                },
                _ => vec![],
            };
            for root in found {
                let name = spec.path.as_ref().and(spec.name.clone());
                roots.push((root, name, Vec::new()));
                let idx = roots.len() - 1;
                let lib_name = roots[idx]
                    .1
                    .clone()
                    .unwrap_or_else(|| roots[idx].0.file_name().to_string());
                let mut extra = Vec::new();
                for f in &spec.files {
                    extra.extend(expand(
                        files,
                        f,
                        Some(&lib_name),
                        &mut problems,
                        &config_path,
                    ));
                }
                roots[idx].2 = extra;
            }
        }
    }
    let auto_names = library_names(&roots.iter().map(|r| r.0.clone()).collect::<Vec<_>>());
    // folder names several auto-named libraries share
    let ambiguous: BTreeSet<String> = {
        let mut count: BTreeMap<&str, usize> = BTreeMap::new();
        for (r, name, _) in &roots {
            if name.is_none() && !r.is_root() {
                *count.entry(r.file_name()).or_default() += 1;
            }
        }
        count
            .into_iter()
            .filter(|(_, n)| *n > 1)
            .map(|(k, _)| k.to_string())
            .collect()
    };
    let mut libraries: Vec<Library> = roots
        .into_iter()
        .zip(auto_names)
        .map(|((root, name, extra), auto)| Library {
            name: name.unwrap_or(auto),
            files: library_files(files, &root, &claimed),
            root,
            extra_files: extra,
        })
        .collect();
    libraries.sort_by(|a, b| a.name.cmp(&b.name));

    // environments
    let names_in = |scope: &RepoPath| -> BTreeSet<String> {
        libraries
            .iter()
            .filter(|l| l.root.starts_with(scope))
            .map(|l| l.name.clone())
            .collect()
    };
    // per library: (name, inputs, sources)
    let mut per_lib: Vec<Vec<(String, EnvInputs, Vec<RepoPath>)>> =
        vec![Vec::new(); libraries.len()];
    if cfg.environments.is_empty() {
        for env in &found_envs {
            let names = names_in(&env.scope);
            let ef = env_files(files, env, &names, &ambiguous, &mut problems);
            let sources: Vec<RepoPath> = env.parts.iter().map(|(p, _)| p.clone()).collect();
            for (li, lib) in libraries.iter().enumerate() {
                if lib.root.starts_with(&env.scope) {
                    per_lib[li].push((
                        env.name.clone(),
                        inputs_for(files, &ef, &lib.name),
                        sources.clone(),
                    ));
                }
            }
        }
    } else {
        let all_names = names_in(&RepoPath::root());
        for spec in &cfg.environments {
            if let Some(g) = &spec.glob {
                let envs = globbed_envs(files, g, &mut problems, &config_path);
                for env in &envs {
                    let ef = env_files(files, env, &all_names, &ambiguous, &mut problems);
                    let sources: Vec<RepoPath> = env.parts.iter().map(|(p, _)| p.clone()).collect();
                    for (li, lib) in libraries.iter().enumerate() {
                        per_lib[li].push((
                            env.name.clone(),
                            inputs_for(files, &ef, &lib.name),
                            sources.clone(),
                        ));
                    }
                }
            } else {
                // problems of patterns without `{library}` are reported once
                let mut seen = Vec::new();
                for (li, lib) in libraries.iter().enumerate() {
                    let mut local = Vec::new();
                    let (inputs, sources) =
                        named_env(files, spec, &lib.name, &mut local, &config_path);
                    for p in local {
                        if !seen.iter().any(|s: &PlanProblem| s.message == p.message) {
                            seen.push(p);
                        }
                    }
                    per_lib[li].push((spec.name.clone().unwrap_or_default(), inputs, sources));
                }
                problems.extend(seen);
            }
        }
    }

    // matrix: the first exact entry for the library, else the first glob, in
    // file order
    let matrix: Vec<(GlobMatcher, bool, String, Vec<GlobMatcher>)> = cfg
        .matrix
        .iter()
        .filter_map(|(lib, envs)| {
            let lm = glob(lib).ok()?;
            let exact = !lib.contains(['*', '?', '[', '{']);
            Some((
                lm,
                exact,
                lib.clone(),
                envs.iter().filter_map(|e| glob(e).ok()).collect(),
            ))
        })
        .collect();
    for (lib_pattern, envs) in &cfg.matrix {
        let Ok(lm) = glob(lib_pattern) else { continue };
        if !libraries.iter().any(|l| lm.is_match(&l.name)) {
            problem(
                &mut problems,
                format!("matrix: '{lib_pattern}' names no library"),
            );
        }
        for e in envs {
            let Ok(em) = glob(e) else { continue };
            let any = per_lib
                .iter()
                .flatten()
                .any(|(n, inputs, _)| em.is_match(n) && !inputs.is_empty());
            if !any {
                problem(
                    &mut problems,
                    format!("matrix: environment '{e}' (for '{lib_pattern}') names no environment"),
                );
            }
        }
    }

    let mut pairs = Vec::new();
    for (li, lib) in libraries.iter().enumerate() {
        let mut envs = std::mem::take(&mut per_lib[li]);
        let rule = matrix
            .iter()
            .find(|(m, exact, _, _)| *exact && m.is_match(&lib.name))
            .or_else(|| {
                matrix
                    .iter()
                    .find(|(m, exact, _, _)| !*exact && m.is_match(&lib.name))
            });
        if let Some((_, _, _, allowed)) = rule {
            envs.retain(|(name, _, _)| allowed.iter().any(|m| m.is_match(name)));
        }
        envs.retain(|(_, inputs, _)| !inputs.is_empty());
        // one environment per name
        let mut merged: Vec<(String, EnvInputs, Vec<RepoPath>)> = Vec::new();
        for (name, inputs, sources) in envs {
            match merged.iter_mut().find(|(n, _, _)| *n == name) {
                Some((_, m, s)) => {
                    m.merge(inputs);
                    s.extend(sources);
                }
                None => merged.push((name, inputs, sources)),
            }
        }
        if merged.is_empty() {
            merged.push((DEFAULTS_ENV.to_string(), EnvInputs::default(), Vec::new()));
        }
        for (name, inputs, sources) in merged {
            pairs.push(Pair {
                library: li,
                environment: name,
                inputs,
                sources,
            });
        }
    }

    // YAML files nobody reads because they cannot be decoded would otherwise
    // vanish (a schema with a stray Latin-1 byte is no library at all)
    let mut read: BTreeSet<&RepoPath> = BTreeSet::new();
    for l in &libraries {
        read.extend(l.files.iter());
    }
    for p in &pairs {
        read.extend(p.inputs.files.iter().map(|f| &f.path));
        read.extend(p.inputs.data_values_files.iter());
    }
    for f in &files.files {
        if f.is_yaml() && !read.contains(f) && files.text(f).is_none() {
            let message = files
                .sources
                .get(f)
                .err()
                .map(|e| e.message)
                .unwrap_or_else(|| format!("{f}: cannot be read"));
            problems.push(PlanProblem {
                path: f.clone(),
                message,
            });
        }
    }

    Plan {
        libraries,
        pairs,
        config: config.map(|(p, _)| p.clone()),
        private_libraries: cfg.private_libraries,
        fail_on: cfg.fail_on.clone(),
        budget: cfg.budget.clone(),
        secret_words: cfg.secret_words.clone(),
        problems,
    }
}

/// Expands a file pattern (a path, a folder or a glob; `{library}`
/// replaced) into `-f` arguments. A pattern naming nothing is a problem
/// unless it is per-library (`{library}`), where absence just means "no such
/// file for this library".
fn expand(
    files: &RepoFiles,
    pattern: &str,
    library: Option<&str>,
    problems: &mut Vec<PlanProblem>,
    config: &RepoPath,
) -> Vec<FileArg> {
    let per_library = pattern.contains("{library}");
    let pattern = match library {
        Some(l) => pattern.replace("{library}", l),
        None => pattern.to_string(),
    };
    let is_glob = pattern.contains(['*', '?', '[']);
    let out: Vec<FileArg> = if is_glob {
        match glob(&pattern) {
            Ok(m) => files
                .files
                .iter()
                .filter(|f| m.is_match(f.as_str()))
                .map(|f| FileArg::single(f.clone()))
                .collect(),
            Err(e) => {
                problems.push(PlanProblem {
                    path: config.clone(),
                    message: e,
                });
                return vec![];
            }
        }
    } else {
        match RepoPath::new(&pattern) {
            Some(p) if files.is_dir(&p) && !p.is_root() => files
                .under(&p)
                .iter()
                .map(|f| FileArg {
                    path: f.clone(),
                    rel: f.strip_prefix(&p).unwrap_or(f.file_name()).to_string(),
                })
                .collect(),
            Some(p) if files.is_file(&p) => vec![FileArg::single(p)],
            _ => vec![],
        }
    };
    if out.is_empty() && !per_library {
        problems.push(PlanProblem {
            path: config.clone(),
            message: format!("'{pattern}' names no file of the repository"),
        });
    }
    out
}

fn globbed_envs(
    files: &RepoFiles,
    g: &str,
    problems: &mut Vec<PlanProblem>,
    config: &RepoPath,
) -> Vec<FoundEnv> {
    let m = match glob(g) {
        Ok(m) => m,
        Err(e) => {
            problems.push(PlanProblem {
                path: config.clone(),
                message: e,
            });
            return vec![];
        }
    };
    let mut by_name: BTreeMap<String, Vec<(RepoPath, bool)>> = BTreeMap::new();
    for d in files
        .dirs
        .iter()
        .filter(|d| !d.is_root() && m.is_match(d.as_str()))
    {
        by_name
            .entry(d.file_name().to_string())
            .or_default()
            .push((d.clone(), true));
    }
    for f in files
        .files
        .iter()
        .filter(|f| f.is_yaml() && m.is_match(f.as_str()))
    {
        by_name
            .entry(f.stem().to_string())
            .or_default()
            .push((f.clone(), false));
    }
    if by_name.is_empty() {
        problems.push(PlanProblem {
            path: config.clone(),
            message: format!("environment glob '{g}' matches no folder or YAML file"),
        });
    }
    by_name
        .into_iter()
        .map(|(name, parts)| FoundEnv {
            name,
            parts,
            scope: RepoPath::root(),
        })
        .collect()
}

fn named_env(
    files: &RepoFiles,
    spec: &EnvironmentSpec,
    library: &str,
    problems: &mut Vec<PlanProblem>,
    config: &RepoPath,
) -> (EnvInputs, Vec<RepoPath>) {
    let mut inputs = EnvInputs::default();
    for f in &spec.files {
        inputs
            .files
            .extend(expand(files, f, Some(library), problems, config));
    }
    for f in &spec.data_values_files {
        let found = expand(files, f, Some(library), problems, config);
        // a folder given as values files: its YAML files, as ytt takes them
        inputs.data_values_files.extend(
            found
                .into_iter()
                .filter(|a| a.path.is_yaml())
                .map(|a| a.path),
        );
    }
    let subst = |v: &Vec<String>| {
        v.iter()
            .map(|s| s.replace("{library}", library))
            .collect::<Vec<_>>()
    };
    inputs.data_values = subst(&spec.data_values);
    inputs.data_values_yaml = subst(&spec.data_values_yaml);
    inputs.data_value_files = subst(&spec.data_value_files);
    inputs.env_prefixes = spec.env_prefixes.clone();
    inputs.env_yaml_prefixes = spec.env_yaml_prefixes.clone();
    inputs.env = spec
        .env
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let sources = inputs.files_read();
    (inputs, sources)
}
