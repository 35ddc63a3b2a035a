//! The plan of a check: libraries, and the library x environment pairs with
//! every file and flag each pair reads.

use std::collections::BTreeSet;

use crate::source::RepoPath;

/// A ytt library: a folder given to ytt with `-f`, with its own schema.
#[derive(Debug, Clone)]
pub struct Library {
    pub name: String,
    /// The folder (`-f <root>`); its files' ytt paths are relative to it.
    pub root: RepoPath,
    /// Every file of the library, sorted (what `-f <root>` reads).
    pub files: Vec<RepoPath>,
    /// Extra `-f` inputs read with the library (config `files:`), in order.
    pub extra_files: Vec<RepoPath>,
}

/// What an environment gives one library: ytt's inputs after `-f <library>`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EnvInputs {
    /// `-f` files (templates, `@data/values` documents), in order.
    pub files: Vec<RepoPath>,
    /// `--data-values-file` (plain YAML), in order.
    pub data_values_files: Vec<RepoPath>,
    /// `-v`.
    pub data_values: Vec<String>,
    /// `--data-value-yaml`.
    pub data_values_yaml: Vec<String>,
    /// `--data-value-file key=path` (path relative to the repository).
    pub data_value_files: Vec<String>,
    pub env_prefixes: Vec<String>,
    pub env_yaml_prefixes: Vec<String>,
    /// Variables for the prefixes.
    pub env: Vec<(String, String)>,
}

impl EnvInputs {
    pub fn is_empty(&self) -> bool {
        *self == EnvInputs::default()
    }

    /// Repository files this environment reads.
    pub fn files_read(&self) -> Vec<RepoPath> {
        let mut out: Vec<RepoPath> = self.files.clone();
        out.extend(self.data_values_files.iter().cloned());
        for kv in &self.data_value_files {
            if let Some((_, path)) = kv.rsplit_once('=') {
                if let Some(p) = RepoPath::new(path) {
                    out.push(p);
                }
            }
        }
        out
    }
}

/// Name of the environment of a library that has none: its defaults alone.
pub const DEFAULTS_ENV: &str = "defaults";

/// One library checked with one environment.
#[derive(Debug, Clone)]
pub struct Pair {
    /// Index into [`Plan::libraries`].
    pub library: usize,
    pub environment: String,
    pub inputs: EnvInputs,
}

impl Pair {
    /// `<library>@<environment>`, the pair's name in every report.
    pub fn name(&self, plan: &Plan) -> String {
        format!("{}@{}", plan.libraries[self.library].name, self.environment)
    }
}

/// Something discovery could not read or understand; reported as a finding.
#[derive(Debug, Clone)]
pub struct PlanProblem {
    pub path: RepoPath,
    pub message: String,
}

/// Everything a check will do.
#[derive(Debug, Clone, Default)]
pub struct Plan {
    pub libraries: Vec<Library>,
    pub pairs: Vec<Pair>,
    /// The config file, if the plan came from one.
    pub config: Option<RepoPath>,
    /// Check private libraries too.
    pub private_libraries: bool,
    pub problems: Vec<PlanProblem>,
}

impl Plan {
    /// Every file a pair reads: its library's and its environment's.
    pub fn files_read(&self, pair: &Pair) -> Vec<RepoPath> {
        let lib = &self.libraries[pair.library];
        let mut out = lib.files.clone();
        out.extend(lib.extra_files.iter().cloned());
        out.extend(pair.inputs.files_read());
        out
    }

    /// Keeps the pairs that `keep` accepts (filters, shards), and the
    /// libraries they use.
    pub fn retain_pairs(&mut self, mut keep: impl FnMut(&Plan, &Pair) -> bool) {
        let pairs = std::mem::take(&mut self.pairs);
        let kept: Vec<Pair> = pairs.into_iter().filter(|p| keep(self, p)).collect();
        self.pairs = kept;
    }

    /// Keeps the pairs that read one of `paths` (a file, or a folder: every
    /// file under it). A change to the config file keeps everything.
    pub fn retain_reading(&mut self, paths: &[RepoPath]) {
        if let Some(c) = &self.config {
            if paths.iter().any(|p| c.starts_with(p)) {
                return;
            }
        }
        self.retain_pairs(|plan, pair| {
            plan.files_read(pair)
                .iter()
                .any(|f| paths.iter().any(|p| f.starts_with(p)))
        });
    }

    /// A stable shard: pair `i` of the sorted pair names goes to shard `i % n`.
    pub fn shard(&mut self, index: usize, count: usize) {
        let mut names: Vec<String> = self.pairs.iter().map(|p| p.name(self)).collect();
        names.sort();
        let mine: BTreeSet<String> = names
            .into_iter()
            .enumerate()
            .filter(|(i, _)| i % count == index - 1)
            .map(|(_, n)| n)
            .collect();
        self.retain_pairs(|plan, pair| mine.contains(&pair.name(plan)));
    }

    /// Environments of a library, in plan order.
    pub fn environments_of(&self, library: usize) -> Vec<&str> {
        self.pairs
            .iter()
            .filter(|p| p.library == library)
            .map(|p| p.environment.as_str())
            .collect()
    }
}
