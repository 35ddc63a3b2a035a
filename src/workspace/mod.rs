//! What to check in a repository: its libraries, its environments and the
//! library x environment pairs, from `.yttcheck.yml` or by convention.
//!
//! * [`config`] — the config file;
//! * [`discover`] — conventions: finding libraries and environments;
//! * [`annotations`] — the look at a file's `#@data/values` annotations;
//! * [`declared`] — environments and files as the config declares them;
//! * [`patterns`] — the globs of the config and of discovery;
//! * [`assemble`] — the plan, step by step, from discovery and the config;
//! * [`plan`] — libraries, pairs, and the files each pair reads;
//! * [`cached`] — plans a long-lived process keeps, by what they depend on;
//! * [`packages`] — Package CRs, each tied to the library it packages;
//! * [`names`] — library names, after their package, never guessed;
//! * [`loose`] — values files outside libraries and environment folders, matched by their keys;
//! * [`installs`] — PackageInstalls and sample values files, pairs of the library they configure;
//! * [`embedded`] — data values kept in a Secret, read at the Secret's lines;
//! * [`vendored`] — vendored packages (vendir, `vendored:`) and other tools' files.

pub mod annotations;
pub mod assemble;
pub mod cached;
pub mod config;
pub mod declared;
pub mod discover;
pub mod embedded;
pub mod installs;
pub mod loose;
pub mod names;
pub mod pack;
pub mod packages;
pub mod patterns;
pub mod plan;
pub mod vendored;

pub use assemble::plan as make_plan;
pub use cached::{load_with, PlanCache};
pub use config::{Config, ConfigError, CONFIG_FILE};
pub use discover::RepoFiles;
pub use plan::{EnvInputs, Library, Pair, Plan, PlanProblem, DEFAULTS_ENV};

use crate::source::{RepoPath, SourceCache};

/// Reads the config file (if any) and makes the plan.
pub fn load(sources: &SourceCache) -> Result<Plan, ConfigError> {
    load_keeping(sources, || None)
}

/// [`load`], keeping only the pairs that read one of the paths `keep`
/// gives (see [`assemble::plan_keeping`]).
pub fn load_keeping(
    sources: &SourceCache,
    keep: impl FnOnce() -> Option<Vec<RepoPath>>,
) -> Result<Plan, ConfigError> {
    let snap = sources.snapshot();
    let config_path = RepoPath::new(CONFIG_FILE).expect("config path");
    let config = match snap.read(config_path.as_str()) {
        Ok(bytes) => {
            let text = crate::source::decode_text(CONFIG_FILE, bytes).map_err(|e| ConfigError {
                path: config_path.clone(),
                line: None,
                message: e.message,
            })?;
            Some(Config::parse(&config_path, &text)?)
        }
        Err(_) => None,
    };
    let exclude = config
        .as_ref()
        .map(|c| c.exclude.clone())
        .unwrap_or_default();
    let files = RepoFiles::scan(sources, &exclude);
    Ok(assemble::plan_keeping(
        &files,
        config.as_ref().map(|c| (&config_path, c)),
        keep,
    ))
}
