//! The plan of a check: libraries, and the library x environment pairs with
//! every file and flag each pair reads.

use std::borrow::Cow;

use crate::source::RepoPath;

/// A file given to ytt with `-f`, and its path as ytt sees it (relative to
/// the folder the `-f` named: `sub/x.star` for `-f shared/helpers`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FileArg {
    pub path: RepoPath,
    pub rel: String,
}

impl FileArg {
    /// A file named on its own: ytt sees its base name.
    pub fn single(path: RepoPath) -> FileArg {
        let rel = path.file_name().to_string();
        FileArg { path, rel }
    }
}

/// A Package CR (one document of a file) tied to a library.
#[derive(Debug, Clone, Hash, PartialEq, Eq)]
pub struct PackageCr {
    pub path: RepoPath,
    /// Which document of the file it is (0-based, as parsed).
    pub document: usize,
    /// Its `metadata.name` (empty when it has none).
    pub name: String,
    /// Its `spec.refName` and `spec.version`: what a `PackageInstall`
    /// asks for (empty when it has none).
    pub ref_name: String,
    pub version: String,
    /// How it was tied to the library (`yttcheck list` says it).
    pub tied_by: String,
}

/// A ytt library: a folder given to ytt with `-f`, with its own schema.
#[derive(Debug, Clone, Hash)]
pub struct Library {
    pub name: String,
    /// Where the name came from, when it is not the folder's own
    /// (`yttcheck list` says it): a folder above a layout folder, what
    /// tells it apart from a library of the same name, the configuration.
    pub name_origin: Option<String>,
    /// Declared in `.yttcheck.yml` (else discovered).
    pub declared: bool,
    /// The folder (`-f <root>`); its files' ytt paths are relative to it.
    pub root: RepoPath,
    /// Every file of the library, sorted (what `-f <root>` reads, less
    /// environment folders inside it and excluded files).
    pub files: Vec<RepoPath>,
    /// Extra `-f` inputs read with the library (config `files:`), in order.
    pub extra_files: Vec<FileArg>,
    /// `--file-mark`s for its files (config `file_marks:`).
    pub file_marks: Vec<String>,
    /// Files under its folder that it does not read (environment folders
    /// inside it, excluded paths), relative to the folder: what the
    /// equivalent ytt command excludes with `--file-mark`.
    pub left_out: Vec<String>,
    /// The Package CRs of the repository that package it
    /// (`package/schema-drift` holds their `valuesSchema` to its schema).
    pub packages: Vec<PackageCr>,
}

/// What an environment gives one library: ytt's inputs after `-f <library>`.
#[derive(Debug, Clone, Default, PartialEq, Hash)]
pub struct EnvInputs {
    /// Environment files not sorted yet into `files` and
    /// `data_values_files`: sorting reads each file, so it is done for the
    /// pairs a run keeps (`--changed-since` plans one pair without reading
    /// every environment file). Empty in a plan that `workspace::load`
    /// returns.
    pub unsorted: Vec<FileArg>,
    /// `-f` files (templates, `@data/values` documents, helpers), in order.
    pub files: Vec<FileArg>,
    /// `--data-values-file` (plain YAML), in order.
    pub data_values_files: Vec<RepoPath>,
    /// `--data-values-file`s kept inside another file (a key of a Secret a
    /// `PackageInstall` takes its values from), after `data_values_files`,
    /// in order.
    pub embedded_values: Vec<EmbeddedValues>,
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
        self.paths_read().map(Cow::into_owned).collect()
    }

    /// [`EnvInputs::files_read`], borrowed where the plan holds the path
    /// (all but `--data-value-file`'s): keys and suppression walk every
    /// pair's files on every check of a daemon.
    pub fn paths_read(&self) -> impl Iterator<Item = Cow<'_, RepoPath>> {
        let held = self
            .unsorted
            .iter()
            .chain(&self.files)
            .map(|f| &f.path)
            .chain(&self.data_values_files)
            .chain(self.embedded_values.iter().map(|e| &e.path))
            .map(Cow::Borrowed);
        let named = self.data_value_files.iter().filter_map(|kv| {
            let (_, path) = kv.rsplit_once('=')?;
            RepoPath::new(path).map(Cow::Owned)
        });
        held.chain(named)
    }

    /// Appends `more` (both sorted: see [`EnvInputs::unsorted`]).
    pub fn merge(&mut self, more: EnvInputs) {
        debug_assert!(self.unsorted.is_empty() && more.unsorted.is_empty());
        self.files.extend(more.files);
        self.data_values_files.extend(more.data_values_files);
        self.embedded_values.extend(more.embedded_values);
        self.data_values.extend(more.data_values);
        self.data_values_yaml.extend(more.data_values_yaml);
        self.data_value_files.extend(more.data_value_files);
        self.env_prefixes.extend(more.env_prefixes);
        self.env_yaml_prefixes.extend(more.env_yaml_prefixes);
        self.env.extend(more.env);
    }
}

/// A data values file kept inside another file: one key of a Kubernetes
/// `Secret`'s `stringData` or `data` (kapp-controller writes each key of a
/// `PackageInstall`'s values Secret to a file and gives it to ytt as
/// `--data-values-file`). Findings in it are placed at the Secret's lines.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct EmbeddedValues {
    /// The file holding the Secret.
    pub path: RepoPath,
    /// Which document of the file (0-based, as parsed).
    pub document: usize,
    /// The key of `stringData`/`data`.
    pub key: String,
}

/// Name of the environment of a library that has none: its defaults alone.
pub const DEFAULTS_ENV: &str = "defaults";

/// One library checked with one environment.
#[derive(Debug, Clone, Hash)]
pub struct Pair {
    /// Index into [`Plan::libraries`].
    pub library: usize,
    pub environment: String,
    pub inputs: EnvInputs,
    /// The environment folders and files this pair's inputs come from (so a
    /// file deleted from them still selects the pair).
    pub sources: Vec<RepoPath>,
    /// Indexes into [`Plan::policies`] of the policies applied to it.
    pub policies: Vec<usize>,
}

/// One policy file of `.yttcheck.yml`'s `policies:`.
#[derive(Debug, Clone, Hash)]
pub struct Policy {
    /// Its name in findings (`prod`, `pack/replicas`).
    pub name: String,
    /// The policy file.
    pub file: RepoPath,
    /// The other files of its folder it may `load()` (`.star`, `.lib.yml`).
    pub helpers: Vec<RepoPath>,
    /// `error`, `warning` or `note`.
    pub severity: String,
    /// What the pack's manifest says it checks.
    pub description: Option<String>,
    /// The pack it belongs to, when it came from one with a manifest.
    pub pack: Option<PackInfo>,
}

/// A policy pack's manifest, as `explain` shows it.
#[derive(Debug, Clone, PartialEq, Hash)]
pub struct PackInfo {
    pub name: String,
    pub version: Option<String>,
    pub description: Option<String>,
    /// The manifest file (an input of the pairs the pack applies to).
    pub manifest: RepoPath,
}

impl Pair {
    /// `<library>@<environment>`, the pair's name in every report.
    pub fn name(&self, plan: &Plan) -> String {
        format!("{}@{}", plan.libraries[self.library].name, self.environment)
    }
}

/// An environment's YAML file named after no library, in an environment of
/// several: read by no pair (a values file meant for one library would
/// break every other).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct UnmatchedFile {
    pub path: RepoPath,
    pub environment: String,
    /// The library whose name is nearest the file's.
    pub closest: Option<String>,
}

/// A library x environment combination that gets no pair.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SkippedPair {
    /// Index into [`Plan::libraries`].
    pub library: usize,
    pub environment: String,
    pub reason: String,
}

/// Something discovery could not read or understand; reported as a finding.
#[derive(Debug, Clone)]
pub struct PlanProblem {
    pub path: RepoPath,
    pub message: String,
    /// The value of `.yttcheck.yml` the problem is about (a path, glob or
    /// name), so a finding can point at its line.
    pub about: Option<String>,
    /// The line, when the problem knows it (a parse error).
    pub line: Option<u32>,
    /// The file is configuration (a policy pack's manifest), so the problem
    /// is `config/invalid`, not an unreadable file.
    pub in_config: bool,
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
    /// `fail_on:` of the config file.
    pub fail_on: Option<String>,
    /// `min_severity:` of the config file: findings below it are not
    /// reported.
    pub min_severity: Option<crate::diagnostics::Severity>,
    /// `budget:` of the config file.
    pub budget: Option<super::config::BudgetSpec>,
    /// `secret_words:` of the config file.
    pub secret_words: Vec<String>,
    pub problems: Vec<PlanProblem>,
    /// YAML files of the repository that no pair reads (reported as notes).
    pub unused_files: Vec<RepoPath>,
    /// Environment files named after no library (reported as warnings).
    pub unmatched_files: Vec<UnmatchedFile>,
    /// Values files outside libraries and environment folders, and what
    /// became of each (`yttcheck list --all`).
    pub loose_files: Vec<LooseFile>,
    /// Folders a convention set aside (values but no library, a root that
    /// is no library), with why (`yttcheck list --all`).
    pub conventions: Vec<(RepoPath, String)>,
    /// Library x environment combinations that get no pair, with why
    /// (`yttcheck list --all`).
    pub skipped: Vec<SkippedPair>,
    /// Folders of vendored packages (synced by vendir), sorted.
    pub vendored: Vec<RepoPath>,
    /// `vendored:` globs of the config file.
    pub vendored_globs: Vec<String>,
    /// `baseline:` of the config file.
    pub baseline: Option<RepoPath>,
    /// `exports:` of the config file.
    pub exports: Vec<super::config::ExportSpec>,
    /// `fail_on_existing:` of the config file.
    pub fail_on_existing: bool,
    /// `.yttcheck.yml`'s per-rule severities and per-path ignores.
    pub rules: indexmap::IndexMap<String, String>,
    pub ignore: Vec<super::config::IgnoreSpec>,
    /// `policies:` of the config file, one per policy file.
    pub policies: Vec<Policy>,
    /// `kubernetes:` of the config file.
    pub kubernetes: Option<super::config::KubernetesSpec>,
    /// When the plan is one shard of a whole: which shard (`(index,
    /// count)`, 1-based) and which policies the whole plan applies to some
    /// pair. Shard 1 owns the repository-wide findings (unused files, a
    /// policy that selects nothing), so that the shards' reports add up to
    /// the whole run's.
    pub shard: Option<Shard>,
    /// [`Plan::files_read_by_pairs`], gathered once for these pairs and
    /// shared by the plan's copies (a daemon copies its kept plan for every
    /// check, and gathering a thousand pairs' files was a twentieth of
    /// one). Narrowing the pairs ([`Plan::retain_pairs`],
    /// [`Plan::retain_reading`]) starts it afresh; discovery makes the
    /// pairs before anything asks.
    pub(super) read_by_pairs: ReadByPairs,
}

/// See [`Plan::read_by_pairs`].
pub(super) type ReadByPairs = std::sync::Arc<std::sync::OnceLock<std::sync::Arc<[RepoPath]>>>;

/// See [`Plan::shard`].
#[derive(Debug, Clone)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
    /// Per policy of [`Plan::policies`]: whether any pair of the whole plan
    /// takes it.
    pub policies_applied: Vec<bool>,
}

impl Shard {
    /// Whether this shard reports what belongs to the whole repository.
    pub fn owns_repository(&self) -> bool {
        self.index == 1
    }
}

impl Plan {
    /// Whether a path is in a vendored package (a vendir folder, or a
    /// `vendored:` glob).
    pub fn is_vendored(&self, path: &str) -> bool {
        self.vendored
            .iter()
            .any(|v| path.starts_with(v.as_str()) && path[v.as_str().len()..].starts_with('/'))
            || self.vendored_globs.iter().any(|g| {
                super::patterns::glob(g).is_ok_and(|m| {
                    m.is_match(path) || path.match_indices('/').any(|(i, _)| m.is_match(&path[..i]))
                })
            })
    }

    /// Every file a pair reads: its library's and its environment's.
    pub fn files_read(&self, pair: &Pair) -> Vec<RepoPath> {
        let mut out: Vec<RepoPath> = self.library_files(pair.library).cloned().collect();
        out.extend(pair.inputs.files_read());
        for &i in &pair.policies {
            out.extend(self.policy_files(i).cloned());
        }
        out
    }

    /// Every file some pair reads ([`Plan::files_read`] of every pair),
    /// sorted, each once: a library's and a policy's files are taken once,
    /// not once per pair (a thousand pairs read the same few hundred).
    pub fn files_read_by_pairs(&self) -> std::sync::Arc<[RepoPath]> {
        self.read_by_pairs
            .get_or_init(|| self.gather_files_read_by_pairs().into())
            .clone()
    }

    fn gather_files_read_by_pairs(&self) -> Vec<RepoPath> {
        let mut libraries = vec![false; self.libraries.len()];
        let mut policies = vec![false; self.policies.len()];
        // (paths borrowed while gathered, copied once each at the end)
        let mut seen: foldhash::HashSet<Cow<'_, RepoPath>> = Default::default();
        for pair in &self.pairs {
            libraries[pair.library] = true;
            for &i in &pair.policies {
                if let Some(taken) = policies.get_mut(i) {
                    *taken = true;
                }
            }
            seen.extend(pair.inputs.paths_read());
        }
        for (i, _) in libraries.iter().enumerate().filter(|(_, &read)| read) {
            seen.extend(self.library_files(i).map(Cow::Borrowed));
        }
        for (i, _) in policies.iter().enumerate().filter(|(_, &taken)| taken) {
            seen.extend(self.policy_files(i).map(Cow::Borrowed));
        }
        let mut files: Vec<RepoPath> = seen.into_iter().map(Cow::into_owned).collect();
        files.sort_unstable();
        files
    }

    /// A library's own files and the files it is given.
    fn library_files(&self, library: usize) -> impl Iterator<Item = &RepoPath> {
        let lib = &self.libraries[library];
        lib.files
            .iter()
            .chain(lib.extra_files.iter().map(|f| &f.path))
            .chain(lib.packages.iter().map(|p| &p.path))
    }

    /// A policy's file, its helpers and its pack's manifest (none for an
    /// index out of range).
    fn policy_files(&self, policy: usize) -> impl Iterator<Item = &RepoPath> {
        self.policies.get(policy).into_iter().flat_map(|p| {
            std::iter::once(&p.file)
                .chain(&p.helpers)
                .chain(p.pack.iter().map(|k| &k.manifest))
        })
    }

    /// Keeps the pairs that `keep` accepts (libraries stay, so that pair
    /// indexes stay valid; a library without pairs is not evaluated).
    pub fn retain_pairs(&mut self, mut keep: impl FnMut(&Plan, &Pair) -> bool) {
        // files no pair reads are news of a whole-repository check only
        self.unused_files.clear();
        self.unmatched_files.clear();
        self.read_by_pairs = ReadByPairs::default();
        let pairs = std::mem::take(&mut self.pairs);
        let kept: Vec<Pair> = pairs.into_iter().filter(|p| keep(self, p)).collect();
        self.pairs = kept;
    }

    /// Keeps the pairs that a change to one of `paths` can affect: the pairs
    /// that read it (or a file in it). A path no pair reads — a deleted file —
    /// affects the pairs of the library or environment folder it was in. A
    /// change to the config file keeps everything.
    pub fn retain_reading(&mut self, paths: &[RepoPath]) {
        self.unused_files.clear();
        // a changed file that no library reads is still news
        self.unmatched_files
            .retain(|u| paths.iter().any(|p| u.path.starts_with(p)));
        if let Some(c) = &self.config {
            if paths.iter().any(|p| c.starts_with(p)) {
                return;
            }
        }
        self.read_by_pairs = ReadByPairs::default();
        let mut keep = vec![false; self.pairs.len()];
        for path in paths {
            let readers: Vec<usize> = (0..self.pairs.len())
                .filter(|&i| self.reads_within(&self.pairs[i], path))
                .collect();
            if !readers.is_empty() {
                for i in readers {
                    keep[i] = true;
                }
                continue;
            }
            for (i, pair) in self.pairs.iter().enumerate() {
                let root = &self.libraries[pair.library].root;
                let in_env = pair.sources.iter().any(|s| path.starts_with(s));
                if path.starts_with(root) || in_env {
                    keep[i] = true;
                }
            }
        }
        let mut i = 0;
        self.pairs.retain(|_| {
            i += 1;
            keep[i - 1]
        });
    }

    /// Whether `pair` reads `path` or a file in it ([`Plan::files_read`],
    /// without gathering them: a hook asks this of every pair).
    fn reads_within(&self, pair: &Pair, path: &RepoPath) -> bool {
        self.library_files(pair.library)
            .any(|f| f.starts_with(path))
            || pair.inputs.paths_read().any(|f| f.starts_with(path))
            || pair
                .policies
                .iter()
                .any(|&i| self.policy_files(i).any(|f| f.starts_with(path)))
    }

    /// Shard `index` of `count` (1-based): whole libraries, so that a
    /// library's shared work is done on one shard, balanced by number of
    /// pairs (largest first, ties by name: stable for the same repository).
    pub fn shard(&mut self, index: usize, count: usize) {
        // reported by shard 1 only, not once per shard
        if index != 1 {
            self.unused_files.clear();
            self.unmatched_files.clear();
        }
        let policies_applied = (0..self.policies.len())
            .map(|i| self.pairs.iter().any(|p| p.policies.contains(&i)))
            .collect();
        self.shard = Some(Shard {
            index,
            count,
            policies_applied,
        });
        let mut sizes: Vec<(usize, &str, usize)> = self
            .libraries
            .iter()
            .enumerate()
            .map(|(i, l)| {
                (
                    self.pairs.iter().filter(|p| p.library == i).count(),
                    l.name.as_str(),
                    i,
                )
            })
            .filter(|(n, _, _)| *n > 0)
            .collect();
        sizes.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
        let mut load = vec![0usize; count];
        let mut mine = std::collections::BTreeSet::new();
        for (n, _, lib) in sizes {
            let target = (0..count).min_by_key(|&s| (load[s], s)).unwrap_or(0);
            load[target] += n;
            if target == index - 1 {
                mine.insert(lib);
            }
        }
        // (retain_pairs forgets unused files: shard 1 keeps them)
        let unused = std::mem::take(&mut self.unused_files);
        let unmatched = std::mem::take(&mut self.unmatched_files);
        self.retain_pairs(|_, pair| mine.contains(&pair.library));
        self.unused_files = unused;
        self.unmatched_files = unmatched;
    }

    /// Environments of a library, in plan order.
    pub fn environments_of(&self, library: usize) -> Vec<&str> {
        self.pairs
            .iter()
            .filter(|p| p.library == library)
            .map(|p| p.environment.as_str())
            .collect()
    }

    /// Libraries that have pairs.
    pub fn libraries_in_use(&self) -> usize {
        let mut used: Vec<usize> = self.pairs.iter().map(|p| p.library).collect();
        used.sort_unstable();
        used.dedup();
        used.len()
    }
}

/// What became of a values file outside libraries and environment folders.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LooseOutcome {
    /// An environment of the library (index into the plan's libraries),
    /// named after the file; `by_name` when the library declares no values
    /// and the file is named after it.
    Environment { library: usize, by_name: bool },
    /// Input of a test harness: no pair.
    TestInput,
    /// Several libraries declare every key it sets.
    Ambiguous(Vec<String>),
    /// No library declares every key it sets; the keys no library declares.
    NoLibrary { undeclared: Vec<String> },
}

/// A values file outside libraries and environment folders, and what
/// became of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LooseFile {
    pub path: RepoPath,
    /// Whether it holds a `#@data/values` document (given with `-f`), or is
    /// plain YAML (`--data-values-file`).
    pub annotated: bool,
    pub outcome: LooseOutcome,
}

impl LooseFile {
    /// The environment it makes: the file's name without its extension.
    pub fn environment(&self) -> String {
        self.path.stem().to_string()
    }

    /// What `list --all` says of it.
    pub fn explain(&self, libraries: &[Library]) -> String {
        match &self.outcome {
            LooseOutcome::Environment { library, by_name } => {
                let name = &libraries[*library].name;
                if *by_name {
                    format!(
                        "environment '{}' of {name}: named after {name}, which declares no values",
                        self.environment()
                    )
                } else {
                    format!(
                        "environment '{}' of {name}: every key it sets is a value {name} declares",
                        self.environment()
                    )
                }
            }
            LooseOutcome::TestInput => {
                "in a test folder: input of a test harness, no environment".to_string()
            }
            LooseOutcome::Ambiguous(names) => format!(
                "no environment: {} all declare every key it sets; name it in .yttcheck.yml's environments",
                names.join(", ")
            ),
            LooseOutcome::NoLibrary { undeclared } => format!(
                "no environment: no library declares {}",
                undeclared
                    .iter()
                    .take(5)
                    .map(|k| format!("'{k}'"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::source::{worktree::WorkTree, RepoPath, SourceCache};

    /// The files every pair reads are gathered once and shared by the
    /// plan's copies; narrowing the pairs gathers them again, for the pairs
    /// left.
    #[test]
    fn the_files_pairs_read_follow_the_pairs() {
        let dir = tempfile::tempdir().unwrap();
        let write = |path: &str, text: &str| {
            let full = dir.path().join(path);
            std::fs::create_dir_all(full.parent().unwrap()).unwrap();
            std::fs::write(full, text).unwrap();
        };
        for lib in ["a", "b"] {
            write(
                &format!("libs/{lib}/schema.yml"),
                "#@data/values-schema\n---\nn: 1\n",
            );
            write(&format!("libs/{lib}/t.yml"), "x: 1\n");
        }
        write("envs/dev/values.yml", "#@data/values\n---\nn: 2\n");
        let tree = WorkTree::new(dir.path());
        let plan = crate::workspace::load(&SourceCache::new(&tree)).unwrap();
        let gathered = |plan: &super::Plan| {
            let mut all: Vec<RepoPath> =
                plan.pairs.iter().flat_map(|p| plan.files_read(p)).collect();
            all.sort();
            all.dedup();
            all
        };
        let whole = plan.files_read_by_pairs();
        assert_eq!(*whole, *gathered(&plan));
        assert!(whole.iter().any(|p| p.as_str() == "libs/b/t.yml"));
        let copy = plan.clone();
        assert!(std::sync::Arc::ptr_eq(&whole, &copy.files_read_by_pairs()));
        let mut narrowed = plan.clone();
        narrowed.retain_pairs(|p, pair| p.libraries[pair.library].name.ends_with('a'));
        assert!(!narrowed.pairs.is_empty() && narrowed.pairs.len() < plan.pairs.len());
        assert_eq!(*narrowed.files_read_by_pairs(), *gathered(&narrowed));
        assert!(!narrowed
            .files_read_by_pairs()
            .iter()
            .any(|p| p.as_str() == "libs/b/t.yml"));
        let mut reading = plan.clone();
        reading.retain_reading(&[RepoPath::new("libs/b/t.yml").unwrap()]);
        assert_eq!(*reading.files_read_by_pairs(), *gathered(&reading));
        assert!(!reading
            .files_read_by_pairs()
            .iter()
            .any(|p| p.as_str() == "libs/a/t.yml"));
        // the plan narrowed from is as it was
        assert!(std::sync::Arc::ptr_eq(&whole, &plan.files_read_by_pairs()));
    }
}
