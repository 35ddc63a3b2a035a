//! The diff of two revisions: the final data values of every pair a change
//! affects, at base and at head, and the schema changes, without checking
//! anything out.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::budget::{eval_opts, Budget};
use super::UsageError;
use crate::check::CheckOptions;
use crate::diff::compare_results;
use crate::diff::values::Secrets;
use crate::diff::DiffReport;
use crate::source::git::{changed_paths, Git, GitSnapshot, Listing};
use crate::source::overlay::Overlay;
use crate::source::worktree::WorkTree;
use crate::source::{RepoPath, Snapshot, SourceCache};
use crate::workspace;

/// Which revisions to compare, and which pairs.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DiffRequest {
    /// A folder of the repository.
    pub root: PathBuf,
    /// The base revision (a pull request's target); the diff starts from
    /// its merge base with head.
    pub base: String,
    /// The head revision (none: the work tree, or the index when `staged`).
    pub head: Option<String>,
    pub staged: bool,
    pub libraries: Vec<String>,
    pub environments: Vec<String>,
    /// Every pair, not only those the change affects.
    pub all: bool,
    /// More words that mark a key as secret.
    pub secrets: Vec<String>,
    pub budget: Budget,
    /// Values only: do not render each pair (no rendered objects compared).
    #[serde(default)]
    pub no_render: bool,
}

enum Head {
    Work(WorkTree),
    Git(Box<GitSnapshot>),
}

impl Head {
    fn snapshot(&self) -> &dyn Snapshot {
        match self {
            Head::Work(w) => w,
            Head::Git(g) => g.as_ref(),
        }
    }

    fn listing(&self, git: &Git) -> Listing {
        match self {
            Head::Work(w) => git.worktree_listing(w),
            Head::Git(g) => g.listing(),
        }
    }
}

/// The diff a request asks for.
pub fn compute(args: &DiffRequest) -> Result<DiffReport, UsageError> {
    let dir = &args.root;
    let git = Git::discover(dir).map_err(|e| UsageError(e.0))?;
    // head
    let (head, head_name, head_rev) = if args.staged {
        (
            Head::Git(Box::new(git.index().map_err(|e| UsageError(e.0))?)),
            "index".to_string(),
            "HEAD",
        )
    } else if let Some(rev) = &args.head {
        let c = git.commit(rev).map_err(|e| UsageError(e.0))?;
        let snap = git.tree(c, rev).map_err(|e| UsageError(e.0))?;
        (
            Head::Git(Box::new(snap)),
            format!("{rev} ({})", short(&c.to_string())),
            rev.as_str(),
        )
    } else {
        (
            Head::Work(WorkTree::new(git.workdir())),
            "work tree".to_string(),
            "HEAD",
        )
    };
    // base: the merge base, as a pull request sees it
    let base_commit = git
        .merge_base(&args.base, head_rev)
        .map_err(|e| UsageError(e.0))?;
    let base = git
        .tree(base_commit, &args.base)
        .map_err(|e| UsageError(e.0))?;
    let base_name = format!("{} ({})", args.base, short(&base_commit.to_string()));

    // both sides are planned with head's configuration: adopting or
    // editing `.yttcheck.yml` is not every pair changing; pairs are then
    // the same pairs at both sides (same library folder, same environment)
    let config = RepoPath::new(workspace::CONFIG_FILE).expect("config path");
    let head_config = head.snapshot().read(config.as_str()).ok();
    let base_as_head = Overlay::new(&base, [(config.clone(), head_config)].into_iter().collect());
    let base_cache = SourceCache::new(&base_as_head);
    let head_cache = SourceCache::new(head.snapshot());
    let mut base_plan =
        workspace::load(&base_cache).map_err(|e| UsageError(format!("at {base_name}: {e}")))?;
    let mut head_plan = workspace::load(&head_cache).map_err(|e| UsageError(format!("{e}")))?;
    let notes = config_notes(&base, &base_plan, &base_name);
    for l in &args.libraries {
        if !head_plan
            .libraries
            .iter()
            .chain(&base_plan.libraries)
            .any(|x| &x.name == l)
        {
            return Err(UsageError(format!(
                "no library named '{l}' at either side (`yttcheck list` lists them)"
            )));
        }
    }
    for e in &args.environments {
        if !head_plan
            .pairs
            .iter()
            .chain(&base_plan.pairs)
            .any(|p| &p.environment == e)
        {
            return Err(UsageError(format!(
                "no environment named '{e}' at either side (`yttcheck list` lists them)"
            )));
        }
    }
    for plan in [&mut base_plan, &mut head_plan] {
        if !args.libraries.is_empty() {
            plan.retain_pairs(|p, pair| args.libraries.contains(&p.libraries[pair.library].name));
        }
        if !args.environments.is_empty() {
            plan.retain_pairs(|_, pair| args.environments.contains(&pair.environment));
        }
    }
    if !args.all {
        // a pair is compared when it reads a changed path at either side
        // (a deleted file selects its pairs at base only, say), and then
        // at both sides
        let changed = changed_paths(&base.listing(), &head.listing(&git));
        let mut affected = std::collections::BTreeSet::new();
        for plan in [&base_plan, &head_plan] {
            let mut narrowed = plan.clone();
            narrowed.retain_reading(&changed);
            affected.extend(narrowed.pairs.iter().map(|p| p.name(&narrowed)));
        }
        for plan in [&mut base_plan, &mut head_plan] {
            plan.retain_pairs(|plan, pair| affected.contains(&pair.name(plan)));
        }
    }

    let eval = eval_opts(&args.budget, head_plan.budget.as_ref())?;
    let opts = CheckOptions {
        jobs: 0,
        eval: eval.clone(),
        skip_validation: false,
        progress: false,
        keep_values: true,
        // rendered, so the change's objects are compared too (and a pair
        // whose templates fail now says so)
        render: !args.no_render,
        unused_values: false,
        kubernetes: None,
    };
    // one memo for both sides: a pair whose inputs the change leaves alone
    // is the same outcome at head (its key is the digest of everything it
    // reads), and the files both sides share are compiled once
    let memo = crate::check::Memo::persistent();
    let mut before = crate::check::run_with(&base_cache, &base_plan, &opts, &memo);
    let mut after = crate::check::run_with(&head_cache, &head_plan, &opts, &memo);
    // each side as its own configuration judges it: a finding an inline
    // ignore or `rules:` silences does not make its pair fail
    let render = opts.render;
    let (b_min, h_min) = (base_plan.min_severity, head_plan.min_severity);
    crate::check::suppress::apply(
        &mut before,
        &base_plan,
        &base_cache,
        None,
        false,
        render,
        b_min,
    );
    crate::check::suppress::apply(
        &mut after,
        &head_plan,
        &head_cache,
        None,
        false,
        render,
        h_min,
    );
    // schemas per library, from the library's files, whatever its pairs
    // each compared library's schema: the check made it for every library
    // it started; those it did not (their pairs came from the memo) are
    // made here, and no other library's
    let schemas =
        |result: &crate::check::CheckResult, cache: &SourceCache, plan: &crate::workspace::Plan| {
            let mut made = result.schemas.clone();
            let wanted: std::collections::BTreeSet<&str> = plan
                .pairs
                .iter()
                .map(|p| plan.libraries[p.library].name.as_str())
                .filter(|name| !made.contains_key(*name))
                .collect();
            if !wanted.is_empty() {
                made.extend(crate::check::library_schemas_of(
                    cache,
                    plan,
                    &opts,
                    |name| wanted.contains(name),
                ));
            }
            made
        };
    let base_schemas = schemas(&before, &base_cache, &base_plan);
    let head_schemas = schemas(&after, &head_cache, &head_plan);
    let mut words = head_plan.secret_words.clone();
    words.extend(args.secrets.iter().cloned());
    // the values PackageInstalls keep in their Secrets, of either side:
    // never printed, whatever path carries them (a rendered field, an
    // array item's identity in a change's path)
    let install_values: Vec<String> = [(&base_plan, &base_cache), (&head_plan, &head_cache)]
        .iter()
        .flat_map(|(plan, cache)| {
            plan.pairs.iter().flat_map(|p| {
                crate::workspace::embedded::secret_scalars(cache, &p.inputs.embedded_values)
            })
        })
        .collect();
    let mut report = compare_results(
        &before,
        &after,
        &base_schemas,
        &head_schemas,
        &base_name,
        &head_name,
        &Secrets::new(&words),
        &eval,
        &install_values,
    );
    report.notes = notes;
    // a pair whose values a Secret gives (a PackageInstall's): its changes
    // are said, their values never printed
    let from_secrets: std::collections::BTreeSet<String> = [&base_plan, &head_plan]
        .iter()
        .flat_map(|plan| {
            plan.pairs
                .iter()
                .filter(|p| !p.inputs.embedded_values.is_empty())
                .map(|p| p.name(plan))
        })
        .collect();
    let hide_in_paths = Secrets::default().with_values(install_values.iter().map(String::as_str));
    for pair in report
        .pairs
        .iter_mut()
        .filter(|p| from_secrets.contains(&p.name))
    {
        for change in &mut pair.changes {
            change.before = None;
            change.after = None;
            change.lines.clear();
            change.redacted = true;
            // an array item's identity is a value of the Secret too
            change.path = match hide_in_paths.mask_text(&change.path) {
                Some(masked) => masked.into_owned(),
                None => crate::secrets::HIDDEN.to_string(),
            };
        }
    }
    Ok(report)
}

/// What the configuration change itself does, said once: the libraries it
/// names anew (planned at base with base's own configuration against head's)
/// and the pairs it adds or removes by declaring environments otherwise.
fn config_notes(base: &GitSnapshot, as_head: &workspace::Plan, base_name: &str) -> Vec<String> {
    let own_cache = SourceCache::new(base);
    let Ok(own) = workspace::load(&own_cache) else {
        return Vec::new();
    };
    let mut notes = Vec::new();
    for lib in &as_head.libraries {
        if let Some(old) = own.libraries.iter().find(|l| l.root == lib.root) {
            if old.name != lib.name {
                notes.push(format!(
                    "the configuration names the library in {} '{}' (it was '{}' at {base_name}); its pairs are compared as the same pairs",
                    if lib.root.is_root() { "." } else { lib.root.as_str() },
                    lib.name,
                    old.name
                ));
            }
        }
    }
    let key = |plan: &workspace::Plan, p: &workspace::Pair| {
        (
            plan.libraries[p.library].root.clone(),
            p.environment.clone(),
        )
    };
    let own_keys: std::collections::BTreeSet<_> = own.pairs.iter().map(|p| key(&own, p)).collect();
    let head_keys: std::collections::BTreeSet<_> =
        as_head.pairs.iter().map(|p| key(as_head, p)).collect();
    let (gained, lost) = (
        head_keys.difference(&own_keys).count(),
        own_keys.difference(&head_keys).count(),
    );
    if gained + lost > 0 {
        notes.push(format!(
            "the configuration changes which pairs exist: {gained} pair{} only with the new configuration, {lost} only with the old (the diff plans both sides with the new one)",
            if gained == 1 { "" } else { "s" }
        ));
    }
    notes
}

/// A revision's id, shortened as people read it.
fn short(id: &str) -> &str {
    &id[..id.len().min(9)]
}

/// The diff's reports asked for: `FORMAT[=FILE]` specs (`--format`; none:
/// text; `md` is markdown), one at most to standard output.
pub fn formats(specs: &[String]) -> Result<Vec<(String, Option<PathBuf>)>, UsageError> {
    let specs: Vec<String> = if specs.is_empty() {
        vec!["text".into()]
    } else {
        specs.to_vec()
    };
    let mut out = Vec::new();
    for s in &specs {
        let (name, file) = match s.split_once('=') {
            Some((n, f)) => (n.to_string(), Some(PathBuf::from(f))),
            None => (s.clone(), None),
        };
        let name = if name == "md" {
            "markdown".to_string()
        } else {
            name
        };
        if !["text", "markdown", "json"].contains(&name.as_str()) {
            return Err(UsageError(format!(
                "unknown format '{name}' (expected one of: text, markdown, json)"
            )));
        }
        out.push((name, file));
    }
    if out.iter().filter(|(_, f)| f.is_none()).count() > 1 {
        return Err(UsageError(
            "only one format can go to standard output; give the others a file (--format markdown=diff.md)".into(),
        ));
    }
    Ok(out)
}
