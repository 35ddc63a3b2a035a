//! Plans a long-lived process (the daemon) keeps between checks.
//!
//! A plan depends on the repository's paths, the config file, and of each
//! file only whether it reads as text (or why not) and its `#@` lines —
//! discovery looks at nothing else. So editing a values file, the common
//! case, leaves the plan as it was: the key below stays the same, and the
//! plan is reused instead of discovered again.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};

use crate::source::{walk, ContentId, RepoPath, SourceCache};

use super::{load, ConfigError, Plan, CONFIG_FILE};

/// Plans kept, by key (the work tree's and the index's, say).
const PLANS_KEPT: usize = 4;

/// Files' facts kept before starting afresh.
const FACTS_KEPT: usize = 200_000;

/// A walk of a snapshot: its files, and what could not be walked.
type Walk = Arc<(Vec<RepoPath>, Vec<crate::source::SourceError>)>;

#[derive(Default)]
pub struct PlanCache {
    facts: Mutex<HashMap<(RepoPath, ContentId), u64>>,
    walks: Mutex<Vec<(u64, Walk)>>,
    plans: Mutex<Vec<(u64, Arc<Plan>)>>,
    hits: AtomicU64,
    misses: AtomicU64,
}

impl PlanCache {
    pub fn new() -> PlanCache {
        PlanCache::default()
    }

    /// (hits, misses)
    pub fn stats(&self) -> (u64, u64) {
        (self.hits.load(Relaxed), self.misses.load(Relaxed))
    }

    /// The walk of the snapshot, reused while its paths are the same.
    fn walk(&self, sources: &SourceCache) -> Walk {
        let snap = sources.snapshot();
        let Some(fp) = snap.paths_fingerprint() else {
            return Arc::new(walk(snap, &RepoPath::root()));
        };
        if let Some((_, w)) = self
            .walks
            .lock()
            .expect("plan cache")
            .iter()
            .find(|(k, _)| *k == fp)
        {
            return w.clone();
        }
        let w: Walk = Arc::new(walk(snap, &RepoPath::root()));
        let mut walks = self.walks.lock().expect("plan cache");
        if walks.len() >= PLANS_KEPT {
            walks.remove(0);
        }
        walks.push((fp, w.clone()));
        w
    }

    fn fact(&self, sources: &SourceCache, path: &RepoPath, id: ContentId) -> u64 {
        let key = (path.clone(), id);
        if let Some(f) = self.facts.lock().expect("plan cache").get(&key) {
            return *f;
        }
        let mut h = std::collections::hash_map::DefaultHasher::new();
        match sources.get(path) {
            Ok(file) => (true, file.annotation_lines()).hash(&mut h),
            Err(e) => (false, e.message).hash(&mut h),
        }
        let f = h.finish();
        let mut facts = self.facts.lock().expect("plan cache");
        if facts.len() >= FACTS_KEPT {
            facts.clear();
        }
        facts.insert(key, f);
        f
    }
}

/// What the plan of `sources` depends on, or `None` when a file has no
/// content id (a plain work tree: nothing tells it did not change).
fn key(sources: &SourceCache, cache: &PlanCache) -> Option<u64> {
    let snap = sources.snapshot();
    let mut h = std::collections::hash_map::DefaultHasher::new();
    match snap.read(CONFIG_FILE) {
        Ok(bytes) => (true, bytes).hash(&mut h),
        Err(e) => (false, e.message).hash(&mut h),
    }
    let walked = cache.walk(sources);
    let (files, errors) = &*walked;
    for e in errors {
        (&e.path, &e.message).hash(&mut h);
    }
    // each file's id and fact: thousands of stats, made on every core of
    // the pool this runs in (they are kept for the check that follows)
    let fact = |f: &RepoPath| Some(cache.fact(sources, f, sources.content_id(f)?));
    let facts: Option<Vec<u64>> = if rayon::current_thread_index().is_some() {
        use rayon::prelude::*;
        files.par_iter().map(fact).collect()
    } else {
        files.iter().map(fact).collect()
    };
    for (f, fact) in files.iter().zip(facts?) {
        (f, fact).hash(&mut h);
    }
    Some(h.finish())
}

/// [`load`], reusing a plan `cache` holds when nothing it depends on changed.
pub fn load_with(sources: &SourceCache, cache: Option<&PlanCache>) -> Result<Plan, ConfigError> {
    let Some(cache) = cache else {
        return load(sources);
    };
    let Some(key) = key(sources, cache) else {
        return load(sources);
    };
    if let Some((_, plan)) = cache
        .plans
        .lock()
        .expect("plan cache")
        .iter()
        .find(|(k, _)| *k == key)
    {
        cache.hits.fetch_add(1, Relaxed);
        return Ok((**plan).clone());
    }
    cache.misses.fetch_add(1, Relaxed);
    let plan = load(sources)?;
    let mut plans = cache.plans.lock().expect("plan cache");
    if plans.len() >= PLANS_KEPT {
        plans.remove(0);
    }
    plans.push((key, Arc::new(plan.clone())));
    Ok(plan)
}
