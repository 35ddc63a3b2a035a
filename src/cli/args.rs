//! Flags that several commands share, and how they become the
//! application's requests.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use clap::Args;

use crate::app::{Budget, Selection, UsageError};

/// Which pairs to run (`check`'s, `list`'s and `explain`'s flags).
#[derive(Args, Debug, Clone, Default)]
pub struct SelectionArgs {
    /// Only pairs that read one of these files or folders
    #[arg(value_name = "PATH")]
    pub paths: Vec<String>,

    /// Only these libraries (repeatable)
    #[arg(long = "library", value_name = "NAME")]
    pub libraries: Vec<String>,

    /// Only these environments (repeatable)
    #[arg(long = "env", value_name = "NAME")]
    pub environments: Vec<String>,

    /// Run shard I of N (1-based; a stable split of the pairs, for CI matrices)
    #[arg(long, value_name = "I/N")]
    pub shard: Option<String>,

    /// The repository root (default: the current directory)
    #[arg(short = 'C', long = "root", value_name = "DIR")]
    pub root: Option<PathBuf>,

    /// Check what is staged (the git index), not the work tree
    #[arg(long, conflicts_with = "rev")]
    pub staged: bool,

    /// Check a revision (`HEAD~1`, `origin/main`, a SHA) without checking it out
    #[arg(long, value_name = "REV")]
    pub rev: Option<String>,

    /// Only pairs whose inputs changed since the merge base of REV and HEAD
    #[arg(long = "changed-since", value_name = "REV")]
    pub changed_since: Option<String>,
}

impl SelectionArgs {
    /// The selection, its root relative to `cwd` (the current folder by
    /// default).
    pub fn selection(&self, cwd: &Path) -> Selection {
        Selection {
            paths: self.paths.clone(),
            libraries: self.libraries.clone(),
            environments: self.environments.clone(),
            shard: self.shard.clone(),
            root: cwd.join(self.root.as_deref().unwrap_or(Path::new("."))),
            staged: self.staged,
            rev: self.rev.clone(),
            changed_since: self.changed_since.clone(),
        }
    }
}

/// Kubernetes schemas for rendered documents (kubeconform's flags).
#[derive(Args, Debug, Clone, Default)]
pub struct KubernetesArgs {
    /// Check rendered documents against this Kubernetes version's schemas
    /// (`1.30.0`; default: .yttcheck.yml's `kubernetes.version`, else master)
    #[arg(long = "kubernetes-version", value_name = "VERSION")]
    pub kubernetes_version: Option<String>,

    /// Where schemas are (repeatable, tried in order; replaces
    /// .yttcheck.yml's): a folder, a URL, or a kubeconform template such as
    /// `DIR/{{ .NormalizedKubernetesVersion }}-standalone{{ .StrictSuffix }}/{{ .ResourceKind }}{{ .KindSuffix }}.json`
    #[arg(long = "schema-location", value_name = "LOCATION")]
    pub schema_locations: Vec<String>,

    /// Unknown fields in rendered documents are findings
    #[arg(long = "kubernetes-strict")]
    pub kubernetes_strict: bool,

    /// Never fetch schemas: use the schema cache only
    #[arg(long)]
    pub offline: bool,

    /// Let .yttcheck.yml's schema locations name this host (repeatable;
    /// `HOST` on port 443, or `HOST:PORT`): an IP address or an internal
    /// name the repository may fetch from. Without it, a repository's
    /// configuration reaches public host names on 443 only
    #[arg(long = "allow-schema-host", value_name = "HOST[:PORT]")]
    pub allow_schema_hosts: Vec<String>,

    /// Seconds a schema host may take to connect, and then to answer,
    /// before it is given up for the run (default 5; all fetches of a run
    /// end within 60 s)
    #[arg(long = "schema-timeout", value_name = "SECONDS", value_parser = clap::value_parser!(u64).range(1..=600))]
    pub schema_timeout: Option<u64>,
}

impl KubernetesArgs {
    /// The request, with the schema cache in the user's cache folder
    /// (`--cache-dir` moves it once that folder is known to be usable).
    pub fn request(&self) -> crate::app::kubernetes::KubernetesRequest {
        crate::app::kubernetes::KubernetesRequest {
            version: self.kubernetes_version.clone(),
            locations: self.schema_locations.clone(),
            strict: self.kubernetes_strict,
            offline: self.offline,
            schema_cache: crate::app::kubernetes::user_schema_cache(
                std::env::var_os("XDG_CACHE_HOME"),
                std::env::var_os("HOME"),
            ),
            allow_hosts: self.allow_schema_hosts.clone(),
            timeout_secs: self.schema_timeout,
        }
    }
}

/// Evaluation budgets (yttcheck extensions: ytt has none, so a runaway
/// template would hang it).
#[derive(Args, Debug, Clone, Default)]
pub struct BudgetArgs {
    /// Most Starlark steps one file evaluation may take [default: 50000000]
    #[arg(long = "max-steps", value_name = "N")]
    pub max_steps: Option<u64>,

    /// Most seconds one file evaluation may take [default: 10]
    #[arg(long = "timeout", value_name = "SECONDS")]
    pub timeout: Option<f64>,
}

impl BudgetArgs {
    pub fn budget(&self) -> Budget {
        Budget {
            max_steps: self.max_steps,
            timeout: self.timeout,
        }
    }
}

/// `-j N`: 0 (one per core) to [`crate::check::memo::MAX_JOBS`].
pub fn parse_jobs(s: &str) -> Result<usize, String> {
    let max = crate::check::memo::MAX_JOBS;
    match s.parse::<usize>() {
        Ok(n) if n <= max => Ok(n),
        _ => Err(format!(
            "expected a number of threads from 0 (one per core) to {max}"
        )),
    }
}

/// `--color WHEN`: whether to colour what goes to stdout (`NO_COLOR` is
/// respected).
pub fn use_color(when: &str) -> Result<bool, UsageError> {
    match when {
        "always" => Ok(true),
        "never" => Ok(false),
        "auto" => Ok(std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
            && std::io::stdout().is_terminal()),
        other => Err(UsageError(format!(
            "--color expects auto, always or never, got '{other}'"
        ))),
    }
}

/// The current folder, which relative paths of the flags are relative to.
pub fn current_dir() -> Result<PathBuf, UsageError> {
    std::env::current_dir().map_err(|e| UsageError(format!("cannot read the current folder: {e}")))
}
