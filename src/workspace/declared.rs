//! Environments and files as `.yttcheck.yml` declares them: a file pattern
//! expanded into `-f` arguments, environments from a glob, and an
//! environment named with its files.

use std::collections::BTreeMap;

use crate::source::RepoPath;

use super::config::EnvironmentSpec;
use super::discover::{FoundEnv, RepoFiles};
use super::patterns::glob;
use super::plan::{EnvInputs, FileArg, PlanProblem};

/// Expands a file pattern (a path, a folder or a glob; `{library}`
/// replaced) into `-f` arguments. A pattern naming nothing is a problem
/// unless it is per-library (`{library}`), where absence just means "no such
/// file for this library".
pub(super) fn expand(
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
                    about: Some(pattern.to_string()),
                    line: None,
                    in_config: false,
                });
                return vec![];
            }
        }
    } else {
        let confined = match crate::source::confine(&pattern) {
            Ok(p) => Some(p),
            Err(why) => {
                problems.push(PlanProblem {
                    path: config.clone(),
                    message: why,
                    about: Some(pattern.to_string()),
                    line: None,
                    in_config: false,
                });
                return vec![];
            }
        };
        match confined {
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
            about: Some(pattern.to_string()),
            line: None,
            in_config: false,
        });
    }
    out
}

pub(super) fn globbed_envs(
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
                about: Some(g.to_string()),
                line: None,
                in_config: false,
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
            about: Some(g.to_string()),
            line: None,
            in_config: false,
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

pub(super) fn named_env(
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
    // `[@lib:]key=path`: the path must stay in the repository (the value of
    // a file named here ends up in the report, through `fail()` say)
    inputs.data_value_files = subst(&spec.data_value_files)
        .into_iter()
        .filter(|kv| {
            let path = kv.split_once('=').map_or(kv.as_str(), |(_, p)| p);
            match crate::source::confine(path) {
                Ok(_) => true,
                Err(why) => {
                    problems.push(PlanProblem {
                        path: config.clone(),
                        message: format!("data_value_files: {why}"),
                        about: Some(kv.clone()),
                        line: None,
                        in_config: false,
                    });
                    false
                }
            }
        })
        .collect();
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
