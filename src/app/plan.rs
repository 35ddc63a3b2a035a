//! The plan a request runs: the repository's library x environment pairs,
//! narrowed to its selection.

use super::source::{changed_since, known_to_git, Selection, Source};
use super::UsageError;
use crate::source::{RepoPath, SourceCache};
use crate::workspace::{self, Plan};
use std::sync::Arc;

/// Loads the plan and applies the selection.
pub fn load_plan(
    cache: &SourceCache,
    source: &Source,
    sel: &Selection,
) -> Result<Plan, UsageError> {
    load_plan_with(cache, source, sel, None).map(Arc::unwrap_or_clone)
}

/// [`load_plan`], reusing a plan a long-lived process kept: shared while
/// the selection keeps it whole, else a narrowed copy.
pub fn load_plan_with(
    cache: &SourceCache,
    source: &Source,
    sel: &Selection,
    plans: Option<&workspace::PlanCache>,
) -> Result<Arc<Plan>, UsageError> {
    // what changed (git) and the plan (the files) are independent: on two
    // cores, one is found while the other is made; the plan then keeps the
    // pairs that read a changed file before it reads environment files
    let (plan, failed) = std::thread::scope(|s| {
        let finding = sel
            .changed_since
            .as_ref()
            .map(|rev| s.spawn(move || changed_since(source, rev, sel.rev.as_deref())));
        let mut failed = None;
        let keep = || {
            let joined = finding?
                .join()
                .unwrap_or_else(|_| Err(UsageError("finding the changed files failed".into())));
            match joined {
                Ok(paths) => Some(paths),
                Err(e) => {
                    failed = Some(e);
                    None
                }
            }
        };
        let plan = match plans {
            None => workspace::load_keeping(cache, keep).map(Arc::new),
            // a kept plan is whole: narrowed here
            Some(_) => workspace::load_with(cache, plans).map(|mut plan| {
                if let Some(paths) = keep() {
                    Arc::make_mut(&mut plan).retain_reading(&paths);
                }
                plan
            }),
        };
        (plan, failed)
    });
    let mut plan = plan.map_err(|e| UsageError(format!("{e}")))?;
    if let Some(e) = failed {
        return Err(e);
    }
    if !sel.libraries.is_empty() {
        for l in &sel.libraries {
            if !plan.libraries.iter().any(|x| &x.name == l) {
                let names: Vec<&str> = plan.libraries.iter().map(|x| x.name.as_str()).collect();
                return Err(UsageError(format!(
                    "no library named '{l}' (libraries: {})",
                    listed(&names)
                )));
            }
        }
        Arc::make_mut(&mut plan)
            .retain_pairs(|p, pair| sel.libraries.contains(&p.libraries[pair.library].name));
    }
    if !sel.environments.is_empty() {
        for e in &sel.environments {
            if !plan.pairs.iter().any(|p| &p.environment == e) {
                let mut names: Vec<&str> =
                    plan.pairs.iter().map(|p| p.environment.as_str()).collect();
                names.sort();
                names.dedup();
                return Err(UsageError(format!(
                    "no environment named '{e}' (environments: {})",
                    listed(&names)
                )));
            }
        }
        Arc::make_mut(&mut plan)
            .retain_pairs(|_, pair| sel.environments.contains(&pair.environment));
    }
    if !sel.paths.is_empty() {
        let mut paths = Vec::new();
        for p in &sel.paths {
            let path = RepoPath::new(p)
                .ok_or_else(|| UsageError(format!("'{p}' is not a path inside the repository")))?;
            // a typo must not pass as "nothing to check"; a path git knows
            // (deleted in the work tree, or in git modes) still selects the
            // pairs that read it
            if !sel.reads_git()
                && cache.snapshot().kind(path.as_str()).is_err()
                && !known_to_git(sel, &path)
            {
                return Err(UsageError(format!(
                    "no such path '{p}' in {}",
                    cache.snapshot().describe()
                )));
            }
            paths.push(path);
        }
        Arc::make_mut(&mut plan).retain_reading(&paths);
    }
    if let Some(s) = &sel.shard {
        let (i, n) = parse_shard(s).ok_or_else(|| {
            UsageError(format!(
                "--shard expects I/N with 1 <= I <= N (like 2/4), got '{s}'"
            ))
        })?;
        Arc::make_mut(&mut plan).shard(i, n);
    }
    Ok(plan)
}

fn listed(names: &[&str]) -> String {
    if names.is_empty() {
        "none found".to_string()
    } else {
        names.join(", ")
    }
}

fn parse_shard(s: &str) -> Option<(usize, usize)> {
    let (i, n) = s.split_once('/')?;
    let (i, n): (usize, usize) = (i.trim().parse().ok()?, n.trim().parse().ok()?);
    (n >= 1 && (1..=n).contains(&i)).then_some((i, n))
}

#[cfg(test)]
mod tests {
    use super::parse_shard;

    #[test]
    fn shards_are_one_based_and_within_their_count() {
        assert_eq!(parse_shard("2/4"), Some((2, 4)));
        assert_eq!(parse_shard(" 1 / 1 "), Some((1, 1)));
        for bad in ["0/4", "5/4", "1/0", "x/2", "3", ""] {
            assert_eq!(parse_shard(bad), None, "{bad}");
        }
    }
}
