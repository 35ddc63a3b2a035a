//! Finding libraries and environments: by convention, or as `.yttcheck.yml`
//! declares them.
//!
//! Conventions (zero-config):
//!
//! * a **library** is a folder holding a `#@data/values-schema` document (the
//!   folder above, when the schema sits in `schema/` or `schemas/`), or, when
//!   there is no schema, `#@data/values` defaults. A library inside another
//!   is part of it (`-f outer` reads it anyway); `_ytt_lib/` folders are
//!   private libraries, never libraries of their own;
//! * an **environment root** is a folder named `envs/` or `environments/`
//!   (each sub-folder and each YAML file in it is an environment), or
//!   `values/` (each sub-folder is one). It applies to the libraries inside
//!   the folder that holds it: at the repository root, to every library;
//! * in an environment folder, `<library>.yml` and `<library>/` are for that
//!   library alone, every other file is for every library;
//! * an environment file with `#@` annotations (a `#@data/values` document)
//!   is given to ytt with `-f`, a plain one with `--data-values-file`;
//! * a library with no environment is checked with its defaults alone.

use std::collections::{BTreeMap, BTreeSet};

use globset::{Glob, GlobSet, GlobSetBuilder};

use crate::source::{walk, RepoPath, Snapshot};

use super::config::{Config, EnvironmentSpec, CONFIG_FILE};
use super::plan::{EnvInputs, Library, Pair, Plan, PlanProblem, DEFAULTS_ENV};

/// Folder names that hold environments.
const ENV_ROOTS: &[&str] = &["envs", "environments"];
/// Folder names whose sub-folders (only) are environments.
const ENV_ROOTS_DIRS_ONLY: &[&str] = &["values"];
/// Folder names that hold a library's schema, not the library.
const SCHEMA_DIRS: &[&str] = &["schema", "schemas"];
const PRIVATE_LIB_DIR: &str = "_ytt_lib";

/// The files of a repository, read once.
pub struct RepoFiles<'a> {
    pub snap: &'a dyn Snapshot,
    pub files: Vec<RepoPath>,
    pub problems: Vec<PlanProblem>,
    texts: std::sync::Mutex<BTreeMap<RepoPath, Option<String>>>,
}

impl<'a> RepoFiles<'a> {
    /// Walks the snapshot, leaving out `exclude` globs.
    pub fn scan(snap: &'a dyn Snapshot, exclude: &[String]) -> RepoFiles<'a> {
        let (files, errors) = walk(snap, &RepoPath::root());
        let excluded = globs(exclude);
        let files = files
            .into_iter()
            .filter(|f| !excluded.as_ref().is_some_and(|g| g.is_match(f.as_str())))
            .collect();
        RepoFiles {
            snap,
            files,
            problems: errors
                .into_iter()
                .map(|e| PlanProblem {
                    path: RepoPath::new(&e.path).unwrap_or_default(),
                    message: e.message,
                })
                .collect(),
            texts: Default::default(),
        }
    }

    /// A file's text, or `None` when it cannot be read as text (the check
    /// reports that file when it reads it).
    pub fn text(&self, path: &RepoPath) -> Option<String> {
        if let Some(t) = self.texts.lock().expect("texts").get(path) {
            return t.clone();
        }
        let t = self
            .snap
            .read(path.as_str())
            .ok()
            .and_then(|b| crate::source::decode_text(path.as_str(), b).ok());
        self.texts
            .lock()
            .expect("texts")
            .insert(path.clone(), t.clone());
        t
    }

    fn under(&self, dir: &RepoPath) -> impl Iterator<Item = &RepoPath> {
        let dir = dir.clone();
        self.files.iter().filter(move |f| f.starts_with(&dir))
    }

    fn is_dir(&self, dir: &RepoPath) -> bool {
        self.files.iter().any(|f| f != dir && f.starts_with(dir))
    }
}

fn globs(patterns: &[String]) -> Option<GlobSet> {
    if patterns.is_empty() {
        return None;
    }
    let mut b = GlobSetBuilder::new();
    for p in patterns {
        if let Ok(g) = Glob::new(p) {
            b.add(g);
        }
    }
    b.build().ok()
}

fn glob_matcher(pattern: &str) -> Option<globset::GlobMatcher> {
    Glob::new(pattern.trim_end_matches('/'))
        .ok()
        .map(|g| g.compile_matcher())
}

/// Whether a text has a document annotated `annotation` (a cheap scan: the
/// check parses the file properly).
fn has_annotation(text: &str, annotation: &str) -> bool {
    text.lines().any(|l| {
        let t = l.trim_start();
        t.strip_prefix("#@")
            .map(|rest| {
                let rest = rest.trim_start();
                rest.starts_with(annotation)
                    && !rest[annotation.len()..]
                        .starts_with(|c: char| c.is_alphanumeric() || c == '-' || c == '/')
            })
            .unwrap_or(false)
    })
}

/// Whether a file uses ytt annotations at all (then it is a `-f` input).
fn is_annotated(text: &str) -> bool {
    text.lines().any(|l| l.trim_start().starts_with("#@"))
}

fn in_private_lib(p: &RepoPath) -> bool {
    p.components().any(|c| c == PRIVATE_LIB_DIR)
}

/// An environment found on disk: a folder or a YAML file.
#[derive(Debug, Clone)]
struct FoundEnv {
    name: String,
    path: RepoPath,
    is_dir: bool,
    /// Libraries under this folder are the ones it applies to.
    scope: RepoPath,
}

fn find_env_roots(files: &RepoFiles) -> Vec<FoundEnv> {
    let mut dirs: BTreeSet<RepoPath> = BTreeSet::new();
    for f in &files.files {
        let mut p = f.parent();
        while let Some(d) = p {
            if d.is_root() {
                break;
            }
            dirs.insert(d.clone());
            p = d.parent();
        }
    }
    let mut out = Vec::new();
    for d in &dirs {
        let name = d.file_name();
        let dirs_only = ENV_ROOTS_DIRS_ONLY.contains(&name);
        if !(ENV_ROOTS.contains(&name) || dirs_only) || in_private_lib(d) {
            continue;
        }
        let scope = d.parent().unwrap_or_default();
        let mut children: BTreeMap<String, (RepoPath, bool)> = BTreeMap::new();
        for f in files.under(d) {
            let rel = f.strip_prefix(d).unwrap_or("");
            match rel.split_once('/') {
                Some((child, _)) => {
                    children.insert(child.to_string(), (d.join(child), true));
                }
                None if !dirs_only && f.is_yaml() => {
                    children.insert(f.stem().to_string(), (f.clone(), false));
                }
                None => {}
            }
        }
        for (name, (path, is_dir)) in children {
            out.push(FoundEnv {
                name,
                path,
                is_dir,
                scope: scope.clone(),
            });
        }
    }
    // an environment root inside another environment is part of it
    let roots: Vec<RepoPath> = out.iter().map(|e| e.path.clone()).collect();
    out.retain(|e| !roots.iter().any(|r| r != &e.path && e.path.starts_with(r)));
    out
}

fn discover_libraries(files: &RepoFiles, claimed: &dyn Fn(&RepoPath) -> bool) -> Vec<RepoPath> {
    let candidates = |annotation: &str, holder_dirs: &[&str]| -> BTreeSet<RepoPath> {
        files
            .files
            .iter()
            .filter(|f| f.is_yaml() && !claimed(f) && !in_private_lib(f))
            .filter(|f| {
                files
                    .text(f)
                    .is_some_and(|t| has_annotation(&t, annotation))
            })
            .filter_map(|f| {
                let dir = f.parent()?;
                Some(if holder_dirs.contains(&dir.file_name()) {
                    dir.parent().unwrap_or_default()
                } else {
                    dir
                })
            })
            .collect()
    };
    let mut roots = candidates("data/values-schema", SCHEMA_DIRS);
    // libraries without a schema: folders with `@data/values` defaults that no
    // schema library holds
    for r in candidates("data/values", &["values", "defaults"]) {
        if !roots.iter().any(|s| r.starts_with(s) || s.starts_with(&r)) {
            roots.insert(r);
        }
    }
    let all: Vec<RepoPath> = roots.iter().cloned().collect();
    roots
        .into_iter()
        .filter(|r| !all.iter().any(|o| o != r && r.starts_with(o)))
        .collect()
}

fn library_name(root: &RepoPath, taken: &BTreeSet<String>) -> String {
    let base = if root.is_root() {
        "root".to_string()
    } else {
        root.file_name().to_string()
    };
    if taken.contains(&base) {
        root.as_str().replace('/', "-")
    } else {
        base
    }
}

fn library_files(
    files: &RepoFiles,
    root: &RepoPath,
    claimed: &dyn Fn(&RepoPath) -> bool,
) -> Vec<RepoPath> {
    files
        .under(root)
        .filter(|f| !claimed(f) && f.as_str() != CONFIG_FILE)
        .cloned()
        .collect()
}

/// Sorts an environment's files for one library into `-f` files and plain
/// values files.
fn classify(files: &RepoFiles, paths: impl IntoIterator<Item = RepoPath>, inputs: &mut EnvInputs) {
    for p in paths {
        if !p.is_yaml() {
            continue;
        }
        match files.text(&p) {
            Some(t) if !is_annotated(&t) => inputs.data_values_files.push(p),
            // annotated, or unreadable (the check reports it when reading it)
            _ => inputs.files.push(p),
        }
    }
}

/// What a found environment gives one library of its scope: the files for
/// every library, then the library's own (`<library>.yml`, `<library>/`).
/// Files named after another library of the scope are that library's.
fn env_inputs(
    files: &RepoFiles,
    env: &FoundEnv,
    library: &str,
    names: &BTreeSet<String>,
) -> EnvInputs {
    let mut inputs = EnvInputs::default();
    if !env.is_dir {
        classify(files, [env.path.clone()], &mut inputs);
        return inputs;
    }
    let mut common = Vec::new();
    let mut own = Vec::new();
    for f in files.under(&env.path) {
        let rel = f.strip_prefix(&env.path).unwrap_or("");
        let owner = match rel.split_once('/') {
            Some((dir, _)) => dir,
            None => f.stem(),
        };
        if owner == library {
            own.push(f.clone());
        } else if !names.contains(owner) {
            common.push(f.clone());
        }
    }
    classify(files, common.into_iter().chain(own), &mut inputs);
    inputs
}

/// Makes the plan for a repository: from `config` when given, else by
/// convention (and by convention for whatever the config leaves out).
pub fn plan(files: &RepoFiles, config: Option<(&RepoPath, &Config)>) -> Plan {
    let cfg = config.map(|(_, c)| c.clone()).unwrap_or_default();
    let found_envs = find_env_roots(files);
    let env_paths: Vec<RepoPath> = found_envs.iter().map(|e| e.path.clone()).collect();
    let claimed = |f: &RepoPath| env_paths.iter().any(|e| f.starts_with(e));

    // libraries
    let mut libraries: Vec<Library> = Vec::new();
    let mut taken = BTreeSet::new();
    let mut problems = files.problems.clone();
    if cfg.libraries.is_empty() {
        for root in discover_libraries(files, &claimed) {
            let name = library_name(&root, &taken);
            taken.insert(name.clone());
            libraries.push(Library {
                name,
                files: library_files(files, &root, &claimed),
                root,
                extra_files: Vec::new(),
            });
        }
    } else {
        for spec in &cfg.libraries {
            let roots: Vec<RepoPath> = match (&spec.path, &spec.glob) {
                (Some(p), _) => match RepoPath::new(p) {
                    Some(r) if files.is_dir(&r) => vec![r],
                    _ => {
                        problems.push(PlanProblem {
                            path: config.map(|(p, _)| p.clone()).unwrap_or_default(),
                            message: format!(
                                "library path '{p}' is not a folder of the repository"
                            ),
                        });
                        vec![]
                    }
                },
                (None, Some(g)) => {
                    let Some(m) = glob_matcher(g) else { continue };
                    let mut dirs: BTreeSet<RepoPath> = BTreeSet::new();
                    for f in &files.files {
                        let mut p = f.parent();
                        while let Some(d) = p {
                            if m.is_match(d.as_str()) && !in_private_lib(&d) {
                                dirs.insert(d.clone());
                            }
                            p = d.parent();
                        }
                    }
                    dirs.into_iter().collect()
                }
                _ => vec![],
            };
            for root in roots {
                let name = match (&spec.name, &spec.path) {
                    (Some(n), Some(_)) => n.clone(),
                    _ => library_name(&root, &taken),
                };
                taken.insert(name.clone());
                let mut extra = Vec::new();
                for f in &spec.files {
                    extra.extend(expand(
                        files,
                        f,
                        None,
                        &mut problems,
                        config.map(|(p, _)| p),
                    ));
                }
                libraries.push(Library {
                    name,
                    files: library_files(files, &root, &claimed),
                    root,
                    extra_files: extra,
                });
            }
        }
    }

    // environments, per library
    let names_in_scope = |scope: &RepoPath| -> BTreeSet<String> {
        libraries
            .iter()
            .filter(|l| l.root.starts_with(scope))
            .map(|l| l.name.clone())
            .collect()
    };
    let mut pairs = Vec::new();
    for (li, lib) in libraries.iter().enumerate() {
        let mut envs: Vec<(String, EnvInputs)> = Vec::new();
        if cfg.environments.is_empty() {
            for e in found_envs.iter().filter(|e| lib.root.starts_with(&e.scope)) {
                envs.push((
                    e.name.clone(),
                    env_inputs(files, e, &lib.name, &names_in_scope(&e.scope)),
                ));
            }
        } else {
            for spec in &cfg.environments {
                let names = names_in_scope(&RepoPath::root());
                envs.extend(configured_envs(
                    files,
                    spec,
                    lib,
                    &names,
                    &mut problems,
                    config.map(|(p, _)| p),
                ));
            }
        }
        // matrix
        if let Some(allowed) = matrix_for(&cfg, &lib.name) {
            envs.retain(|(name, _)| allowed.iter().any(|m| m.is_match(name)));
        }
        envs.retain(|(_, inputs)| !inputs.is_empty());
        // one environment per name: folders and files of the same name merge
        let mut merged: Vec<(String, EnvInputs)> = Vec::new();
        for (name, inputs) in envs {
            match merged.iter_mut().find(|(n, _)| *n == name) {
                Some((_, m)) => merge_inputs(m, inputs),
                None => merged.push((name, inputs)),
            }
        }
        if merged.is_empty() {
            merged.push((DEFAULTS_ENV.to_string(), EnvInputs::default()));
        }
        for (name, inputs) in merged {
            pairs.push(Pair {
                library: li,
                environment: name,
                inputs,
            });
        }
    }

    Plan {
        libraries,
        pairs,
        config: config.map(|(p, _)| p.clone()),
        private_libraries: cfg.private_libraries,
        problems,
    }
}

fn merge_inputs(into: &mut EnvInputs, more: EnvInputs) {
    into.files.extend(more.files);
    into.data_values_files.extend(more.data_values_files);
    into.data_values.extend(more.data_values);
    into.data_values_yaml.extend(more.data_values_yaml);
    into.data_value_files.extend(more.data_value_files);
    into.env_prefixes.extend(more.env_prefixes);
    into.env_yaml_prefixes.extend(more.env_yaml_prefixes);
    into.env.extend(more.env);
}

fn matrix_for(cfg: &Config, library: &str) -> Option<Vec<globset::GlobMatcher>> {
    let (_, envs) = cfg
        .matrix
        .iter()
        .find(|(lib, _)| glob_matcher(lib).is_some_and(|m| m.is_match(library)))?;
    Some(envs.iter().filter_map(|e| glob_matcher(e)).collect())
}

/// Expands a file pattern (a path or a glob; `{library}` replaced) into the
/// files it names. A pattern naming nothing is a problem unless it is
/// per-library (`{library}`), where absence just means "no such file here".
fn expand(
    files: &RepoFiles,
    pattern: &str,
    library: Option<&str>,
    problems: &mut Vec<PlanProblem>,
    config: Option<&RepoPath>,
) -> Vec<RepoPath> {
    let per_library = pattern.contains("{library}");
    let pattern = match library {
        Some(l) => pattern.replace("{library}", l),
        None => pattern.to_string(),
    };
    let is_glob = pattern.contains(['*', '?', '[', '{']);
    let out: Vec<RepoPath> = if is_glob {
        match glob_matcher(&pattern) {
            Some(m) => files
                .files
                .iter()
                .filter(|f| m.is_match(f.as_str()))
                .cloned()
                .collect(),
            None => vec![],
        }
    } else {
        match RepoPath::new(&pattern) {
            Some(p) if files.is_dir(&p) => files.under(&p).cloned().collect(),
            Some(p) if files.files.contains(&p) => vec![p],
            _ => vec![],
        }
    };
    if out.is_empty() && !per_library {
        problems.push(PlanProblem {
            path: config.cloned().unwrap_or_default(),
            message: format!("'{pattern}' names no file of the repository"),
        });
    }
    out
}

fn configured_envs(
    files: &RepoFiles,
    spec: &EnvironmentSpec,
    lib: &Library,
    names: &BTreeSet<String>,
    problems: &mut Vec<PlanProblem>,
    config: Option<&RepoPath>,
) -> Vec<(String, EnvInputs)> {
    if let Some(g) = &spec.glob {
        let Some(m) = glob_matcher(g) else {
            return vec![];
        };
        let mut found: BTreeMap<RepoPath, bool> = BTreeMap::new();
        for f in &files.files {
            if m.is_match(f.as_str()) && f.is_yaml() {
                found.insert(f.clone(), false);
            }
            let mut p = f.parent();
            while let Some(d) = p {
                if m.is_match(d.as_str()) {
                    found.insert(d.clone(), true);
                }
                p = d.parent();
            }
        }
        return found
            .into_iter()
            .map(|(path, is_dir)| {
                let env = FoundEnv {
                    name: if is_dir {
                        path.file_name().to_string()
                    } else {
                        path.stem().to_string()
                    },
                    path,
                    is_dir,
                    scope: RepoPath::root(),
                };
                let inputs = env_inputs(files, &env, &lib.name, names);
                (env.name, inputs)
            })
            .collect();
    }
    let name = spec.name.clone().unwrap_or_default();
    let mut inputs = EnvInputs::default();
    for f in &spec.files {
        inputs
            .files
            .extend(expand(files, f, Some(&lib.name), problems, config));
    }
    for f in &spec.data_values_files {
        inputs
            .data_values_files
            .extend(expand(files, f, Some(&lib.name), problems, config));
    }
    let subst = |v: &Vec<String>| {
        v.iter()
            .map(|s| s.replace("{library}", &lib.name))
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
    vec![(name, inputs)]
}
