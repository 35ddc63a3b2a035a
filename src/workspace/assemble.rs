//! Assembling the plan from what discovery found and what `.yttcheck.yml`
//! says, one step per function: the libraries, each library's environments,
//! the matrix that narrows them, the pairs, and the files nobody can read.

use std::collections::{BTreeMap, BTreeSet};

use globset::GlobMatcher;

use crate::source::RepoPath;

use super::config::Config;
use super::declared::{expand, globbed_envs, named_env};
use super::discover::{
    discover_libraries, env_files, find_envs, in_private_lib, inputs_for, left_out, library_files,
    sort_inputs, RepoFiles,
};
use super::names::library_names;
use super::pack::{Manifest, MANIFEST};
use super::patterns::glob;
use super::plan::{
    EnvInputs, Library, PackInfo, Pair, Plan, PlanProblem, Policy, SkippedPair, UnmatchedFile,
    DEFAULTS_ENV,
};

/// Problems found while planning, reported at the config file unless they
/// name a file of their own.
struct Problems {
    config_path: RepoPath,
    list: Vec<PlanProblem>,
    /// Environment files named after no library (path, environment).
    unmatched: Vec<(RepoPath, String)>,
    /// What a convention decided of a path, and why.
    conventions: Vec<(RepoPath, String)>,
}

impl Problems {
    /// A problem with the value `about` of the config file.
    fn config_about(&mut self, about: Option<&str>, message: String) {
        self.list.push(PlanProblem {
            path: self.config_path.clone(),
            message,
            about: about.map(str::to_string),
            line: None,
            in_config: false,
        });
    }
}

/// One environment of one library: its name, its inputs, and the files it
/// was made from.
pub(super) type LibraryEnv = (String, EnvInputs, Vec<RepoPath>);

/// Makes the plan for a repository: from `config` when given, else by
/// convention (and by convention for whatever the config leaves out).
pub fn plan(files: &RepoFiles, config: Option<(&RepoPath, &Config)>) -> Plan {
    plan_keeping(files, config, || None)
}

/// [`plan`], keeping only the pairs that read one of the paths `keep`
/// gives (when it gives some), before the environment files are read to
/// sort them: planning one pair reads its files, not every file.
pub fn plan_keeping(
    files: &RepoFiles,
    config: Option<(&RepoPath, &Config)>,
    keep: impl FnOnce() -> Option<Vec<RepoPath>>,
) -> Plan {
    let mut plan = unsorted_plan(files, config);
    if let Some(paths) = keep() {
        plan.retain_reading(&paths);
    }
    read_unsorted(files, &plan.pairs);
    for pair in &mut plan.pairs {
        sort_inputs(files, &mut pair.inputs);
    }
    plan
}

/// Reads the environments' YAML files that sorting looks into, on all
/// cores, once each (an environment's common files are shared by many
/// pairs); sorting, and then the check, find them in the cache.
fn read_unsorted(files: &RepoFiles, pairs: &[Pair]) {
    use rayon::prelude::*;
    let mut paths: Vec<&RepoPath> = pairs
        .iter()
        .flat_map(|p| p.inputs.unsorted.iter().map(|a| &a.path))
        .filter(|p| p.is_yaml())
        .collect();
    paths.sort_unstable();
    paths.dedup();
    paths.par_iter().with_min_len(16).for_each(|p| {
        files.text(p);
    });
}

fn unsorted_plan(files: &RepoFiles, config: Option<(&RepoPath, &Config)>) -> Plan {
    let cfg = config.map(|(_, c)| c.clone()).unwrap_or_default();
    let mut problems = Problems {
        config_path: config.map(|(p, _)| p.clone()).unwrap_or_default(),
        list: files.problems.clone(),
        unmatched: Vec::new(),
        conventions: Vec::new(),
    };
    let declared: Vec<RepoPath> = cfg
        .libraries
        .iter()
        .filter_map(|l| l.path.as_deref())
        .filter_map(|p| crate::source::confine(p).ok())
        .collect();
    let vendored_folders = super::vendored::vendir_folders(files);
    let (found_envs, mut claimed) = find_envs(
        files,
        &declared,
        &|f| super::vendored::is_other_tools(files, f),
        &mut problems.conventions,
    );
    // policy files are neither libraries nor environments
    claimed.extend(cfg.policies.iter().filter_map(|p| RepoPath::new(&p.path)));
    // (looked up by binary search)
    claimed.sort();
    let (libraries, ambiguous) = libraries(files, &cfg, &claimed, &mut problems);
    let mut per_lib = environments(
        files,
        &cfg,
        &libraries,
        &found_envs,
        &ambiguous,
        &mut problems,
    );
    // values files outside libraries and environment folders, where the
    // configuration does not say what the environments are
    let loose_files = if cfg.environments.is_empty() {
        super::loose::match_files(files, &libraries, &claimed, &|f| {
            super::vendored::is_other_tools(files, f)
                || vendored_folders.iter().any(|v| f.starts_with(v))
        })
    } else {
        Vec::new()
    };
    super::loose::add_environments(&loose_files, &mut per_lib);
    let matrix = matrix(&cfg, &libraries, &per_lib, &mut problems);
    let (mut pairs, mut skipped) = pairs(files, &libraries, &mut per_lib, &matrix);
    let samples = samples(files, &cfg, &libraries, &mut problems);
    super::installs::add_pairs(files, &libraries, &samples, &mut pairs, &mut skipped);
    let policies = policies(files, &cfg, &libraries, &mut pairs, &mut problems);
    let names: Vec<String> = libraries.iter().map(|l| l.name.clone()).collect();
    let unmatched_files: Vec<UnmatchedFile> = std::mem::take(&mut problems.unmatched)
        .into_iter()
        .map(|(path, environment)| {
            let named = path
                .as_str()
                .rsplit('/')
                .next()
                .map(|n| n.split('.').next().unwrap_or(n).to_string())
                .unwrap_or_default();
            UnmatchedFile {
                closest: closest_library(&named, &names),
                path,
                environment,
            }
        })
        .collect();
    let mut unused_files = unread_yaml(files, config, &libraries, &pairs, &policies, &mut problems);
    unused_files.retain(|f| !unmatched_files.iter().any(|u| &u.path == f));
    // a test harness's input is explained by `list --all`, not a note; a
    // vendored package's files are upstream's, rendered by other tools
    unused_files.retain(|f| {
        !loose_files
            .iter()
            .any(|l| &l.path == f && l.outcome == super::plan::LooseOutcome::TestInput)
            && !vendored_folders.iter().any(|v| f.starts_with(v))
    });
    Plan {
        libraries,
        pairs,
        config: config.map(|(p, _)| p.clone()),
        private_libraries: cfg.private_libraries,
        fail_on: cfg.fail_on.clone(),
        min_severity: cfg
            .min_severity
            .as_deref()
            .and_then(crate::diagnostics::Severity::parse),
        budget: cfg.budget.clone(),
        secret_words: cfg.secret_words.clone(),
        problems: problems.list,
        unused_files,
        unmatched_files,
        conventions: problems.conventions,
        loose_files,
        skipped,
        vendored: vendored_folders,
        vendored_globs: cfg.vendored.clone(),
        baseline: cfg
            .baseline
            .as_deref()
            .and_then(|b| crate::source::confine(b).ok()),
        fail_on_existing: cfg.fail_on_existing,
        exports: cfg.exports.clone(),
        rules: cfg.rules.clone(),
        ignore: cfg.ignore.clone(),
        policies,
        kubernetes: cfg.kubernetes.clone(),
        shard: None,
        read_by_pairs: Default::default(),
    }
}

/// `policies:`: each policy file (a folder is a pack: its YAML files), the
/// files beside it that it may load, and the pairs it applies to.
fn policies(
    files: &RepoFiles,
    cfg: &Config,
    libraries: &[Library],
    pairs: &mut [Pair],
    problems: &mut Problems,
) -> Vec<Policy> {
    let mut out = Vec::new();
    for spec in &cfg.policies {
        let path = match crate::source::confine(&spec.path) {
            Ok(p) => p,
            Err(why) => {
                problems.config_about(Some(&spec.path), format!("policy path {why}"));
                continue;
            }
        };
        if let Some(severity) = &spec.severity {
            if crate::diagnostics::Severity::parse(severity).is_none() {
                problems.config_about(
                    Some(severity),
                    format!("policy severity '{severity}' must be error, warning or note"),
                );
                continue;
            }
        }
        let matchers = |globs: &[String], problems: &mut Problems| -> Option<Vec<_>> {
            let mut ms = Vec::new();
            for g in globs {
                match glob(g) {
                    Ok(m) => ms.push(m),
                    Err(e) => {
                        problems.config_about(Some(g), e);
                        return None;
                    }
                }
            }
            Some(ms)
        };
        let (Some(envs), Some(libs)) = (
            matchers(&spec.environments, problems),
            matchers(&spec.libraries, problems),
        ) else {
            continue;
        };
        let (policy_files, dir): (Vec<RepoPath>, RepoPath) = if files.is_file(&path) {
            (
                vec![path.clone()],
                path.parent().unwrap_or_else(RepoPath::root),
            )
        } else if files.is_dir(&path) {
            let yaml: Vec<RepoPath> = files
                .under(&path)
                .iter()
                .filter(|f| {
                    f.is_yaml() && !f.file_name().ends_with(".lib.yml") && f.file_name() != MANIFEST
                })
                .cloned()
                .collect();
            if yaml.is_empty() {
                problems.config_about(
                    Some(&spec.path),
                    format!("policy folder '{path}' holds no policy file (*.yml)"),
                );
                continue;
            }
            (yaml, path.clone())
        } else if files
            .problems
            .iter()
            .any(|u| u.path == path || path.starts_with(&u.path))
        {
            // its folder could not be read (a submodule not fetched): that
            // is already a finding of the folder, which says what to do; the
            // policy is skipped, not called missing
            continue;
        } else {
            problems.config_about(Some(&spec.path), format!("policy '{path}' does not exist"));
            continue;
        };
        let helpers: Vec<RepoPath> = files
            .under(&dir)
            .iter()
            .filter(|f| f.as_str().ends_with(".star") || f.file_name().ends_with(".lib.yml"))
            .cloned()
            .collect();
        let manifest = if files.is_dir(&path) {
            match pack_manifest(files, &path, &policy_files, problems) {
                Ok(m) => m,
                Err(()) => continue,
            }
        } else {
            None
        };
        for file in policy_files {
            let in_manifest = manifest
                .as_ref()
                .and_then(|(m, _)| m.policies.get(file.file_name()));
            let pack_name = manifest
                .as_ref()
                .and_then(|(m, _)| m.name.clone())
                .unwrap_or_else(|| path.file_name().to_string());
            let name = match (&spec.name, files.is_dir(&path)) {
                (Some(n), false) => n.clone(),
                (Some(n), true) => format!("{n}/{}", file.stem()),
                (None, false) => file.stem().to_string(),
                (None, true) => format!("{pack_name}/{}", file.stem()),
            };
            // .yttcheck.yml, then the manifest's file, then its pack
            let severity = spec
                .severity
                .clone()
                .or_else(|| in_manifest.and_then(|p| p.severity.clone()))
                .or_else(|| manifest.as_ref().and_then(|(m, _)| m.severity.clone()))
                .unwrap_or_else(|| "error".to_string());
            let index = out.len();
            for pair in pairs.iter_mut() {
                let lib = &libraries[pair.library].name;
                let lib_ok = libs.is_empty() || libs.iter().any(|m| m.is_match(lib));
                let env_ok = envs.is_empty() || envs.iter().any(|m| m.is_match(&pair.environment));
                if lib_ok && env_ok {
                    pair.policies.push(index);
                }
            }
            out.push(Policy {
                name,
                file,
                helpers: helpers.clone(),
                severity,
                description: in_manifest.and_then(|p| p.description.clone()),
                pack: manifest.as_ref().map(|(m, manifest)| PackInfo {
                    name: spec.name.clone().unwrap_or_else(|| pack_name.clone()),
                    version: m.version.clone(),
                    description: m.description.clone(),
                    manifest: manifest.clone(),
                }),
            });
        }
    }
    out
}

/// The manifest of the pack in `dir`, if it has one; `Err` (with the
/// problem recorded) when it cannot be used, so that the pack is not applied
/// half-configured.
fn pack_manifest(
    files: &RepoFiles,
    dir: &RepoPath,
    policy_files: &[RepoPath],
    problems: &mut Problems,
) -> Result<Option<(Manifest, RepoPath)>, ()> {
    let path = dir.join(MANIFEST);
    if !files.is_file(&path) {
        return Ok(None);
    }
    let mut problem = |message: String, line: Option<u32>| {
        problems.list.push(PlanProblem {
            path: path.clone(),
            message,
            about: None,
            line,
            in_config: true,
        });
    };
    let Some(text) = files.text(&path) else {
        let message = files
            .sources
            .get(&path)
            .err()
            .map(|e| e.message)
            .unwrap_or_else(|| format!("{path}: cannot be read"));
        problem(message, None);
        return Err(());
    };
    let names: Vec<&str> = policy_files.iter().map(|f| f.file_name()).collect();
    match Manifest::parse(&path, text.text(), &names) {
        Ok(m) => Ok(Some((m, path))),
        Err(e) => {
            problem(e.message, e.line);
            Err(())
        }
    }
}

/// The libraries, sorted by name: those `.yttcheck.yml` declares, and
/// those discovery finds (unless the configuration says `discover: false`),
/// a declared one taking the place of a discovered one at, inside or around
/// its folder; and the folder names several auto-named libraries share.
fn libraries(
    files: &RepoFiles,
    cfg: &Config,
    claimed: &[RepoPath],
    problems: &mut Problems,
) -> (Vec<Library>, BTreeSet<String>) {
    /// A library's folder and what the configuration says of it.
    struct Root<'c> {
        root: RepoPath,
        /// The configuration's entry, for a declared library.
        spec: Option<&'c super::config::LibrarySpec>,
    }
    let mut roots: Vec<Root> = Vec::new();
    for spec in &cfg.libraries {
        let found: Vec<RepoPath> = match (&spec.path, &spec.glob) {
            // a file is a library as a folder is, as ytt takes `-f` of either
            (Some(p), _) => match crate::source::confine(p).ok() {
                Some(r) if files.is_dir(&r) || files.is_file(&r) => vec![r],
                _ => {
                    problems.config_about(
                        Some(p),
                        format!("library path '{p}' is no folder or file of the repository"),
                    );
                    vec![]
                }
            },
            (None, Some(g)) => match glob(g) {
                Ok(m) => {
                    let mut dirs: Vec<RepoPath> = files
                        .dirs
                        .iter()
                        .filter(|d| !d.is_root() && m.is_match(d.as_str()) && !in_private_lib(d))
                        .cloned()
                        .collect();
                    let all = dirs.clone();
                    dirs.retain(|d| !all.iter().any(|o| o != d && d.starts_with(o)));
                    if dirs.is_empty() {
                        problems
                            .config_about(Some(g), format!("library glob '{g}' matches no folder"));
                    }
                    dirs
                }
                Err(e) => {
                    problems.config_about(Some(g), e);
                    vec![]
                }
            },
            _ => vec![],
        };
        for m in &spec.file_marks {
            if let Err(e) = crate::files::marks::FileMark::parse(m) {
                problems.config_about(Some(m), format!("file_marks: {e}"));
            }
        }
        for root in found {
            if !roots.iter().any(|r| r.root == root) {
                roots.push(Root {
                    root,
                    spec: Some(spec),
                });
            }
        }
    }
    if cfg.discover.unwrap_or(true) {
        let declared: Vec<RepoPath> = roots.iter().map(|r| r.root.clone()).collect();
        let (found, set_aside) = discover_libraries(files, claimed, &|f| {
            super::vendored::is_other_tools(files, f)
        });
        problems.conventions.extend(set_aside);
        for root in found {
            let overlaps = declared
                .iter()
                .any(|d| root.starts_with(d) || d.starts_with(&root));
            if !overlaps {
                roots.push(Root { root, spec: None });
            }
        }
    }
    let auto_names = library_names(&roots.iter().map(|r| r.root.clone()).collect::<Vec<_>>());
    let ambiguous: BTreeSet<String> = {
        let mut count: BTreeMap<&str, usize> = BTreeMap::new();
        for r in &roots {
            let named = r.spec.is_some_and(|s| s.path.is_some() && s.name.is_some());
            if !named && !r.root.is_root() {
                *count.entry(r.root.file_name()).or_default() += 1;
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
        .map(|(Root { root, spec }, auto)| {
            let given = spec.and_then(|s| s.path.as_ref().and(s.name.clone()));
            let (name, name_origin) = match given {
                Some(n) => (n, Some("named in .yttcheck.yml".to_string())),
                None => (auto.name, auto.origin),
            };
            let mut extra = Vec::new();
            for f in spec.iter().flat_map(|s| s.files.iter()) {
                extra.extend(expand(
                    files,
                    f,
                    Some(&name),
                    &mut problems.list,
                    &problems.config_path,
                ));
            }
            let own = library_files(files, &root, claimed);
            let left_out = left_out(files, &root, &own);
            Library {
                name,
                name_origin,
                declared: spec.is_some(),
                files: own,
                root,
                extra_files: extra,
                file_marks: spec.map(|s| s.file_marks.clone()).unwrap_or_default(),
                left_out,
                packages: Vec::new(),
            }
        })
        .collect();
    libraries.sort_by(|a, b| a.name.cmp(&b.name));
    // the Package CRs each library packages, named by its entry or found
    let mut named = Vec::new();
    for spec in &cfg.libraries {
        let (Some(package), Some(path)) = (&spec.package, &spec.path) else {
            if spec.package.is_some() {
                problems.config_about(
                    spec.package.as_deref(),
                    "package: names the Package CR of one library (an entry with path:), not of a glob's".to_string(),
                );
            }
            continue;
        };
        let root = RepoPath::new(path.trim_end_matches('/'));
        let lib = libraries
            .iter()
            .position(|l| Some(&l.root) == root.as_ref());
        match (lib, crate::source::confine(package).ok()) {
            (Some(lib), Some(file)) if files.is_file(&file) => named.push((lib, file)),
            _ => problems.config_about(
                Some(package),
                format!("package: {package} is no file of the repository"),
            ),
        }
    }
    super::packages::tie(files, &mut libraries, &named);
    (libraries, ambiguous)
}

/// The sample values files library entries name (`samples:`): the
/// library's index and the file.
fn samples(
    files: &RepoFiles,
    cfg: &Config,
    libraries: &[Library],
    problems: &mut Problems,
) -> Vec<(usize, RepoPath)> {
    let mut out = Vec::new();
    for spec in cfg.libraries.iter().filter(|s| !s.samples.is_empty()) {
        let lib = spec.path.as_deref().and_then(|path| {
            let root = RepoPath::new(path.trim_end_matches('/'));
            libraries
                .iter()
                .position(|l| Some(&l.root) == root.as_ref())
        });
        let Some(lib) = lib else {
            problems.config_about(
                spec.samples.first().map(String::as_str),
                "samples: names the sample values files of one library (an entry with path:), not of a glob's".to_string(),
            );
            continue;
        };
        for sample in &spec.samples {
            match crate::source::confine(sample).ok() {
                Some(file) if files.is_file(&file) => out.push((lib, file)),
                _ => problems.config_about(
                    Some(sample),
                    format!("samples: {sample} is no file of the repository"),
                ),
            }
        }
    }
    out
}

/// Each library's environments (declared, or found by convention), in the
/// order they were found.
fn environments(
    files: &RepoFiles,
    cfg: &Config,
    libraries: &[Library],
    found_envs: &[super::discover::FoundEnv],
    ambiguous: &BTreeSet<String>,
    problems: &mut Problems,
) -> Vec<Vec<LibraryEnv>> {
    let names_in = |scope: &RepoPath| -> BTreeSet<String> {
        libraries
            .iter()
            .filter(|l| l.root.starts_with(scope))
            .map(|l| l.name.clone())
            .collect()
    };
    let mut per_lib: Vec<Vec<LibraryEnv>> = vec![Vec::new(); libraries.len()];
    if cfg.environments.is_empty() {
        for env in found_envs {
            let names = names_in(&env.scope);
            let ef = env_files(files, env, &names, ambiguous, &mut problems.list);
            problems
                .unmatched
                .extend(ef.unmatched.iter().map(|f| (f.clone(), env.name.clone())));
            let sources: Vec<RepoPath> = env.parts.iter().map(|(p, _)| p.clone()).collect();
            for (li, lib) in libraries.iter().enumerate() {
                if lib.root.starts_with(&env.scope) {
                    per_lib[li].push((
                        env.name.clone(),
                        inputs_for(&ef, &lib.name),
                        sources.clone(),
                    ));
                }
            }
        }
        return per_lib;
    }
    let all_names = names_in(&RepoPath::root());
    for spec in &cfg.environments {
        if let Some(g) = &spec.glob {
            let envs = globbed_envs(files, g, &mut problems.list, &problems.config_path);
            for env in &envs {
                let ef = env_files(files, env, &all_names, ambiguous, &mut problems.list);
                problems
                    .unmatched
                    .extend(ef.unmatched.iter().map(|f| (f.clone(), env.name.clone())));
                let sources: Vec<RepoPath> = env.parts.iter().map(|(p, _)| p.clone()).collect();
                for (li, lib) in libraries.iter().enumerate() {
                    per_lib[li].push((
                        env.name.clone(),
                        inputs_for(&ef, &lib.name),
                        sources.clone(),
                    ));
                }
            }
        } else {
            // problems of patterns without `{library}` are reported once
            let mut seen: Vec<PlanProblem> = Vec::new();
            for (li, lib) in libraries.iter().enumerate() {
                let mut local = Vec::new();
                let (inputs, sources) =
                    named_env(files, spec, &lib.name, &mut local, &problems.config_path);
                for p in local {
                    if !seen.iter().any(|s| s.message == p.message) {
                        seen.push(p);
                    }
                }
                per_lib[li].push((spec.name.clone().unwrap_or_default(), inputs, sources));
            }
            problems.list.extend(seen);
        }
    }
    per_lib
}

/// A matrix entry: the library pattern, whether it is exact (no glob
/// characters), and the environment patterns it allows.
type MatrixRule = (GlobMatcher, bool, Vec<GlobMatcher>);

/// The matrix of `.yttcheck.yml`, and a problem for each entry that names
/// no library or no environment.
fn matrix(
    cfg: &Config,
    libraries: &[Library],
    per_lib: &[Vec<LibraryEnv>],
    problems: &mut Problems,
) -> Vec<MatrixRule> {
    let rules = cfg
        .matrix
        .iter()
        .filter_map(|(lib, envs)| {
            let lm = glob(lib).ok()?;
            let exact = !lib.contains(['*', '?', '[', '{']);
            Some((
                lm,
                exact,
                envs.iter().filter_map(|e| glob(e).ok()).collect(),
            ))
        })
        .collect();
    for (lib_pattern, envs) in &cfg.matrix {
        let Ok(lm) = glob(lib_pattern) else { continue };
        if !libraries.iter().any(|l| lm.is_match(&l.name)) {
            problems.config_about(
                Some(lib_pattern),
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
                problems.config_about(
                    Some(e),
                    format!("matrix: environment '{e}' (for '{lib_pattern}') names no environment"),
                );
            }
        }
    }
    rules
}

/// The library whose name is nearest a file's: by spelling, else the one
/// whose name holds the file's (or the file's the library's), shortest
/// first (`secretgen` -> `secretgen-controller`).
fn closest_library(named: &str, names: &[String]) -> Option<String> {
    crate::gocompat::nearest(named, names).or_else(|| {
        let named = named.to_ascii_lowercase();
        names
            .iter()
            .filter(|n| {
                let n = n.to_ascii_lowercase();
                named.len() >= 3 && (n.contains(&named) || named.contains(&n))
            })
            .min_by_key(|n| (n.len(), n.as_str()))
            .cloned()
    })
}

/// The pairs: each library with the environments the matrix allows (the
/// first exact entry for the library, else the first glob, in file order),
/// one per name, or with its defaults alone; and the library x environment
/// combinations that get no pair, with why.
fn pairs(
    files: &RepoFiles,
    libraries: &[Library],
    per_lib: &mut [Vec<LibraryEnv>],
    matrix: &[MatrixRule],
) -> (Vec<Pair>, Vec<SkippedPair>) {
    let mut pairs = Vec::new();
    let mut skipped = Vec::new();
    for (li, lib) in libraries.iter().enumerate() {
        let mut envs = std::mem::take(&mut per_lib[li]);
        let rule = matrix
            .iter()
            .find(|(m, exact, _)| *exact && m.is_match(&lib.name))
            .or_else(|| {
                matrix
                    .iter()
                    .find(|(m, exact, _)| !*exact && m.is_match(&lib.name))
            });
        if let Some((_, _, allowed)) = rule {
            envs.retain(|(name, _, _)| {
                let keep = allowed.iter().any(|m| m.is_match(name));
                if !keep {
                    skipped.push(SkippedPair {
                        library: li,
                        environment: name.clone(),
                        reason: "the matrix of .yttcheck.yml leaves it out".into(),
                    });
                }
                keep
            });
        }
        envs.retain(|(name, inputs, sources)| {
            if inputs.is_empty() {
                let place = sources.first().map_or_else(String::new, |s| format!(" ({s})"));
                skipped.push(SkippedPair {
                    library: li,
                    environment: name.clone(),
                    reason: format!(
                        "the environment{place} has files for other libraries and none for this one, nor an environment-wide one (common.yml, values.yml, _all.yml...): not deployed there"
                    ),
                });
            }
            !inputs.is_empty()
        });
        let mut merged: Vec<LibraryEnv> = Vec::new();
        for (name, mut inputs, sources) in envs {
            match merged.iter_mut().find(|(n, _, _)| *n == name) {
                Some((_, m, s)) => {
                    // one environment from several places: sorted now, so
                    // its files keep their order
                    sort_inputs(files, m);
                    sort_inputs(files, &mut inputs);
                    m.merge(inputs);
                    s.extend(sources);
                }
                None => merged.push((name, inputs, sources)),
            }
        }
        // a name given by one place and left out by another is a pair
        skipped.retain(|s| s.library != li || !merged.iter().any(|(n, _, _)| *n == s.environment));
        if merged.is_empty() {
            merged.push((DEFAULTS_ENV.to_string(), EnvInputs::default(), Vec::new()));
        }
        for (name, inputs, sources) in merged {
            pairs.push(Pair {
                library: li,
                environment: name,
                inputs,
                sources,
                policies: Vec::new(),
            });
        }
    }
    skipped.dedup_by(|a, b| a.library == b.library && a.environment == b.environment);
    (pairs, skipped)
}

/// YAML files no pair reads. One that cannot be decoded would otherwise
/// vanish (a schema with a stray Latin-1 byte is no library at all): it is a
/// problem of its own. The others are returned, to be reported as notes.
fn unread_yaml(
    files: &RepoFiles,
    config: Option<(&RepoPath, &Config)>,
    libraries: &[Library],
    pairs: &[Pair],
    policies: &[Policy],
    problems: &mut Problems,
) -> Vec<RepoPath> {
    let mut read: BTreeSet<&RepoPath> = BTreeSet::new();
    for p in policies {
        read.insert(&p.file);
        read.extend(p.helpers.iter());
        read.extend(p.pack.iter().map(|k| &k.manifest));
    }
    for l in libraries {
        read.extend(l.files.iter());
        read.extend(l.extra_files.iter().map(|f| &f.path));
        read.extend(l.packages.iter().map(|p| &p.path));
    }
    for p in pairs {
        read.extend(p.inputs.files.iter().map(|f| &f.path));
        read.extend(p.inputs.unsorted.iter().map(|f| &f.path));
        read.extend(p.inputs.data_values_files.iter());
        read.extend(p.inputs.embedded_values.iter().map(|e| &e.path));
    }
    // a policy's files are configuration, used or not (a pack whose
    // manifest is broken is reported as that)
    let policy_paths: Vec<RepoPath> = config
        .iter()
        .flat_map(|(_, c)| {
            let crds = c.kubernetes.iter().flat_map(|k| k.crds.iter());
            c.policies
                .iter()
                .map(|p| &p.path)
                .chain(crds)
                .filter_map(|p| RepoPath::new(p.trim_end_matches('/')))
        })
        .collect();
    let mut unused = Vec::new();
    for f in &files.files {
        if !f.is_yaml()
            || super::vendored::is_well_known(f)
            || read.contains(f)
            || config.is_some_and(|(c, _)| c == f)
            || policy_paths.iter().any(|p| f.starts_with(p))
        {
            continue;
        }
        if let Some(src) = files.text(f) {
            // kapp-controller's metadata of a package is no ytt input
            if !super::packages::holds_packaging_metadata(src.text()) {
                unused.push(f.clone());
            }
            continue;
        }
        let message = files
            .sources
            .get(f)
            .err()
            .map(|e| e.message)
            .unwrap_or_else(|| format!("{f}: cannot be read"));
        problems.list.push(PlanProblem {
            path: f.clone(),
            message,
            about: None,
            line: None,
            in_config: false,
        });
    }
    unused
}
