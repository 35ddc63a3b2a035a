//! Running a plan: every library x environment pair, in parallel (rayon).
//!
//! A library is started by the first of its pairs to run and let go after
//! its last (unless values are kept): the run holds the starts of the
//! libraries in progress, not of every library. With a memo that keeps
//! results (the daemon's, or one with a persistent store), each library and
//! pair has a content key, and what the memo knows is not computed again.
//! After the pairs, the findings about the whole run: unused values per
//! library, policies that apply to no pair, the plan's problems and the
//! YAML files no pair reads.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use rayon::prelude::*;

use super::finding::{dedupe_mapped, Finding, Location};
use super::from_errors::Subject;
use super::memo::Memo;
use super::outcome::{CheckOptions, CheckResult, PairOutcome};
use super::runner::{library_start, run_pair, LibraryStart};
use crate::diagnostics::RuleId;
use crate::source::{RepoPath, SourceCache};
use crate::workspace::Plan;

/// The line of `file` where `value` is written (the first that is not a
/// comment), to point a configuration problem at its key.
fn line_of_value(sources: &SourceCache, file: &RepoPath, value: &str) -> Option<u32> {
    let src = sources.get(file).ok()?;
    src.text()
        .lines()
        .position(|l| {
            let code = l.split(" #").next().unwrap_or(l);
            !l.trim_start().starts_with('#') && code.contains(value)
        })
        .map(|i| i as u32 + 1)
}

/// The key of each library's unused-value findings: they depend on the
/// keys of its pairs alone, in the order of the run (the pairs' keys cover
/// the library's files).
fn unused_values_keys(
    plan: &Plan,
    pair_keys: &[super::memo::Key],
    keys: &super::memo::Keys,
) -> HashMap<String, super::memo::Key> {
    let mut of_library: HashMap<&str, Vec<super::memo::Key>> = HashMap::new();
    for (p, k) in plan.pairs.iter().zip(pair_keys) {
        of_library
            .entry(&plan.libraries[p.library].name)
            .or_default()
            .push(*k);
    }
    of_library
        .into_iter()
        .map(|(library, ks)| (library.to_string(), keys.derived("unused-values", &ks)))
        .collect()
}

/// `schema/unused-value` and `schema/unreached-value` of every library;
/// with keys, a library's are computed once for the same pairs' outcomes,
/// and `known` are those found in the memo before the pairs ran.
fn unused_values(
    sources: &SourceCache,
    plan: &Plan,
    outcomes: &[Arc<PairOutcome>],
    keyed: Option<(&HashMap<String, super::memo::Key>, &Memo)>,
    mut known: HashMap<String, Vec<Finding>>,
) -> Vec<Finding> {
    let Some((library_keys, memo)) = keyed else {
        return super::usage::unused_values(outcomes, plan, sources);
    };
    let libraries: Vec<_> = super::usage::by_library(outcomes)
        .into_iter()
        .map(|(library, pairs)| {
            let found = known.remove(library);
            (library, pairs, found)
        })
        .collect();
    libraries
        .into_par_iter()
        .flat_map_iter(|(library, pairs, known)| {
            if let Some(found) = known {
                return found;
            }
            let found = super::usage::unused_values_of(library, &pairs, plan, sources);
            // a pair that did not render (a budget ran out) leaves the
            // library's findings partial: they are not kept
            let whole = pairs.iter().all(|p| {
                p.usage.is_some() && !p.findings.iter().any(|f| f.rule == RuleId::TemplateBudget)
            });
            if let (true, Some(key)) = (whole, library_keys.get(library)) {
                memo.keep_findings(*key, &found);
            }
            found
        })
        .collect()
}

/// Where a library's start is in a run.
enum LibrarySlot {
    NotStarted,
    Started(Arc<LibraryStart>),
    /// Not needed, or every pair of it has run.
    Done,
}

/// Runs every pair of `plan`.
pub fn run(sources: &SourceCache, plan: &Plan, opts: &CheckOptions) -> CheckResult {
    run_with(sources, plan, opts, &Memo::new())
}

/// [`run`], reusing (and filling) what `memo` kept from earlier runs: a
/// pair whose inputs are unchanged is not evaluated again, and a library
/// whose files are unchanged is not started again.
pub fn run_with(
    sources: &SourceCache,
    plan: &Plan,
    opts: &CheckOptions,
    memo: &Memo,
) -> CheckResult {
    let started = Instant::now();
    let cache = &memo.compile;
    memo.bound();
    let pool = memo.pool(opts.jobs);
    let progress = super::progress::Progress::new(opts.progress, plan.pairs.len());
    let keys = memo
        .remembers()
        .then(|| super::memo::Keys::new(sources, plan, opts, memo.digests.as_ref()));

    let (policies, policy_problems) = super::policy::load(sources, plan, cache, &opts.eval);
    let (bases, outcomes, unused_keys, unused_known) = pool.install(|| {
        // each library's environments, in one pass over the pairs (per
        // library, scanning every pair is quadratic in a 10,000-pair run)
        let mut environments: Vec<Vec<String>> = vec![Vec::new(); plan.libraries.len()];
        for p in &plan.pairs {
            environments[p.library].push(p.environment.clone());
        }
        let in_use = |i: usize| !environments[i].is_empty();
        // content keys, and what is already known (a daemon's memo only)
        let library_keys: Vec<super::memo::Key> = match &keys {
            Some(k) => (0..plan.libraries.len())
                .into_par_iter()
                .map(|i| {
                    if in_use(i) {
                        k.library(plan, i, &environments[i])
                    } else {
                        0
                    }
                })
                .collect(),
            None => vec![0; plan.libraries.len()],
        };
        let pair_keys: Vec<super::memo::Key> = match &keys {
            Some(k) => plan
                .pairs
                .par_iter()
                .map(|p| k.pair(library_keys[p.library], plan, p))
                .collect(),
            None => vec![0; plan.pairs.len()],
        };
        // each library's unused-value findings, when they are known: its
        // pairs' value usage is then not needed (and not decoded)
        let wants_unused = opts.render && opts.unused_values;
        let unused_keys = match &keys {
            Some(k) if wants_unused => unused_values_keys(plan, &pair_keys, k),
            _ => HashMap::new(),
        };
        let unused_known: HashMap<String, Vec<Finding>> = unused_keys
            .par_iter()
            .filter_map(|(library, key)| Some((library.clone(), memo.findings(*key)?)))
            .collect();
        let known: Vec<Option<Arc<PairOutcome>>> = pair_keys
            .par_iter()
            .zip(&plan.pairs)
            .map(|(k, p)| {
                keys.as_ref()?;
                let library = &plan.libraries[p.library].name;
                let usage = wants_unused && !unused_known.contains_key(library);
                memo.pair(*k, opts.keep_values, usage)
            })
            .collect();
        // pairs of each library left to evaluate (not known from the memo)
        let mut to_run = vec![0usize; plan.libraries.len()];
        for (p, k) in plan.pairs.iter().zip(&known) {
            if k.is_none() {
                to_run[p.library] += 1;
            }
        }
        let needs_start = |i: usize| (opts.keep_values && in_use(i)) || to_run[i] > 0;
        // a library is started by the first of its pairs to run, and let go
        // after its last one (unless the values are kept): the run holds
        // the starts of the libraries in progress, not of every library
        let slots: Vec<Mutex<LibrarySlot>> = (0..plan.libraries.len())
            .map(|i| {
                Mutex::new(if needs_start(i) {
                    LibrarySlot::NotStarted
                } else {
                    LibrarySlot::Done
                })
            })
            .collect();
        let remaining: Vec<AtomicUsize> = to_run.iter().map(|&n| AtomicUsize::new(n)).collect();
        let start_of = |i: usize| -> Arc<LibraryStart> {
            let mut slot = slots[i].lock().unwrap_or_else(|e| e.into_inner());
            if let LibrarySlot::Started(s) = &*slot {
                return s.clone();
            }
            let start = match keys.as_ref().and_then(|_| memo.library(library_keys[i])) {
                Some(s) => s,
                None => {
                    let who = Subject {
                        library: plan.libraries[i].name.clone(),
                        environments: environments[i].clone(),
                    };
                    let start = Arc::new(library_start(
                        sources,
                        cache,
                        opts,
                        &plan.libraries[i],
                        &who,
                    ));
                    if keys.is_some() {
                        memo.keep_library(library_keys[i], start.clone());
                    }
                    start
                }
            };
            *slot = LibrarySlot::Started(start.clone());
            start
        };
        if opts.keep_values {
            (0..plan.libraries.len())
                .into_par_iter()
                .filter(|&i| needs_start(i))
                .for_each(|i| {
                    start_of(i);
                });
        }
        let outcomes: Vec<Arc<PairOutcome>> = plan
            .pairs
            .par_iter()
            .zip(known)
            .zip(&pair_keys)
            .map(|((pair, known), key)| {
                if let Some(outcome) = known {
                    progress.tick();
                    return outcome;
                }
                let t = Instant::now();
                let start = start_of(pair.library);
                let (findings, values, usage, rendered) =
                    run_pair(sources, cache, opts, plan, pair, &start, &policies);
                // (hashed here, once: the copies every later check merges
                // keep it)
                for f in &findings {
                    f.identity_hash();
                }
                drop(start);
                if remaining[pair.library].fetch_sub(1, Ordering::AcqRel) == 1 && !opts.keep_values
                {
                    let mut slot = slots[pair.library]
                        .lock()
                        .unwrap_or_else(|e| e.into_inner());
                    let done = std::mem::replace(&mut *slot, LibrarySlot::Done);
                    // a one-off run needs the library's compiled files no
                    // more (a daemon keeps them for the next check)
                    if let (LibrarySlot::Started(s), false) = (done, memo.keeps_in_memory()) {
                        for f in s.files() {
                            cache.forget_all(f);
                        }
                    }
                }
                progress.tick();
                let outcome = Arc::new(PairOutcome {
                    name: pair.name(plan),
                    library: plan.libraries[pair.library].name.clone(),
                    environment: pair.environment.clone(),
                    findings,
                    duration: t.elapsed(),
                    values: if opts.keep_values { values } else { None },
                    usage,
                    rendered,
                });
                if keys.is_some() {
                    memo.keep_pair(*key, &outcome, opts.keep_values);
                }
                outcome
            })
            .collect();
        let bases: Vec<Option<Arc<LibraryStart>>> = slots
            .into_iter()
            .map(
                |s| match s.into_inner().unwrap_or_else(|e| e.into_inner()) {
                    LibrarySlot::Started(s) => Some(s),
                    _ => None,
                },
            )
            .collect();
        (bases, outcomes, unused_keys, unused_known)
    });
    let mut schemas = std::collections::BTreeMap::new();
    if opts.keep_values {
        for (lib, base) in plan.libraries.iter().zip(&bases) {
            let Some(base) = base else { continue };
            schemas.insert(lib.name.clone(), base.schema_type());
        }
    }
    drop(bases);
    progress.finish();

    // the run's own copy of each pair's findings (the outcomes are shared
    // with the memo), made on every core: thousands of findings of a dozen
    // strings each
    let mut all: Vec<Finding> = pool.install(|| {
        outcomes
            .par_iter()
            .flat_map_iter(|o| o.findings.iter().cloned())
            .collect()
    });
    let from_pairs = all.len();
    if opts.render && opts.unused_values {
        all.extend(unused_values(
            sources,
            plan,
            &outcomes,
            keys.as_ref().map(|_| (&unused_keys, memo)),
            unused_known,
        ));
    }
    all.extend(policy_problems);
    // a complete run (or the shard that owns the repository's findings): a
    // policy no pair of the whole plan took selects nothing
    let owns_repository = plan.shard.as_ref().is_none_or(|s| s.owns_repository());
    if opts.unused_values && owns_repository {
        for (i, p) in plan.policies.iter().enumerate() {
            let applied = match &plan.shard {
                Some(s) => s.policies_applied.get(i).copied().unwrap_or(false),
                None => plan.pairs.iter().any(|pair| pair.policies.contains(&i)),
            };
            if applied {
                continue;
            }
            let who = Subject {
                library: String::new(),
                environments: Vec::new(),
            };
            let location = plan.config.as_ref().map(|c| {
                let mut l = Location::file(c.as_str());
                if let Some(line) = line_of_value(sources, c, &format!("name: {}", p.name))
                    .or_else(|| line_of_value(sources, c, p.file.as_str()))
                {
                    l.line = line;
                }
                l
            });
            all.push(who.finding(
                RuleId::PolicyUnused,
                format!(
                    "policy '{}' ({}) applies to no library x environment pair",
                    p.name, p.file
                ),
                location,
            ));
        }
    }
    for p in plan.problems.iter().filter(|_| owns_repository) {
        let who = Subject {
            library: String::new(),
            environments: Vec::new(),
        };
        let rule = if p.in_config || Some(&p.path) == plan.config.as_ref() {
            RuleId::ConfigInvalid
        } else {
            RuleId::FileUnreadable
        };
        let mut location = Location::file(p.path.as_str());
        if let Some(line) = p.line.or_else(|| {
            p.about
                .as_deref()
                .and_then(|v| line_of_value(sources, &p.path, v))
        }) {
            location.line = line;
        }
        all.push(who.finding(rule, p.message.clone(), Some(location)));
    }
    for u in &plan.unmatched_files {
        let who = Subject {
            library: String::new(),
            environments: vec![u.environment.clone()],
        };
        let hint = match &u.closest {
            Some(c) => format!(" (did you mean the library '{c}'? name the file {c}.yml)"),
            None => String::new(),
        };
        all.push(who.finding(
            RuleId::WorkspaceUnmatchedValuesFile,
            format!(
                "this file of environment '{}' is named after no library, so no library reads it{hint}; a file for every library of the environment has an environment-wide name (common.yml, values.yml, _all.yml)",
                u.environment
            ),
            Some(Location::file(u.path.as_str())),
        ));
    }
    for f in &plan.unused_files {
        let who = Subject {
            library: String::new(),
            environments: Vec::new(),
        };
        let message = match plan.loose_files.iter().find(|l| &l.path == f) {
            Some(loose) => format!(
                "no library x environment pair reads this values file: {}",
                loose.explain(&plan.libraries)
            ),
            None => "no library x environment pair reads this YAML file: it is not a ytt library, an environment (envs/, environments/, values/) or a file of one".to_string(),
        };
        all.push(who.finding(
            RuleId::WorkspaceUnusedFile,
            message,
            Some(Location::file(f.as_str())),
        ));
    }
    let (findings, went) = pool.install(|| dedupe_mapped(all, memo.order.as_ref()));
    // each pair's findings, as the merged findings they became
    let mut went = went[..from_pairs].iter().copied();
    let reported = outcomes
        .iter()
        .map(|o| went.by_ref().take(o.findings.len()).collect())
        .collect();
    // each environment's Kubernetes version, when rendered objects were
    // checked against Kubernetes (reports carry it: a fleet's view)
    let kubernetes_versions = opts
        .kubernetes
        .as_ref()
        .map(|k| {
            outcomes
                .iter()
                .map(|o| {
                    (
                        o.environment.clone(),
                        k.schemas_for(&o.environment).options().version.clone(),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    CheckResult {
        findings,
        pairs: outcomes,
        reported,
        elapsed: started.elapsed(),
        schemas,
        kubernetes_versions,
        silenced: Vec::new(),
    }
}
