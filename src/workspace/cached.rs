//! Plans a long-lived process (the daemon) keeps between checks.
//!
//! A plan depends on the repository's paths, the config file, and of each
//! file only whether it reads as text (or why not) and its `#@` lines —
//! discovery looks at nothing else — except the files whose documents tie
//! pairs (Package CRs, PackageInstalls, Secrets: see
//! `packages::shapes_plan`), whose whole text counts. So editing a values
//! file, the common case, leaves the plan as it was: the key below stays
//! the same, and the plan is reused instead of discovered again.

// several times faster than SipHash on paths; seeded per process, which is
// all the defence against colliding paths it has: at worst a slower check
use foldhash::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};

use crate::source::{walk, ContentId, RepoPath, SourceCache};

use super::{load, ConfigError, Plan, CONFIG_FILE};

/// Plans kept, by key (the work tree's and the index's, say).
const PLANS_KEPT: usize = 4;

/// Content ids a file's facts are kept for: its work tree's and its
/// index's (a hook's check reads the index, the editor's the work tree).
const IDS_KEPT: usize = 2;

/// Files' facts kept before starting afresh.
const FACTS_KEPT: usize = 200_000;

/// A walk of a snapshot: its files, and what could not be walked.
type Walk = Arc<(Vec<RepoPath>, Vec<crate::source::SourceError>)>;

/// A walk, and the id of each folder it listed.
struct FolderWalk {
    folders: Vec<(RepoPath, ContentId)>,
    walk: Walk,
}

/// How long before a walk a folder must have last changed for the walk to
/// be kept: a change within the clock's tick of the listing may leave the
/// folder's times as they were (git's "racily clean" entries).
const SETTLED: std::time::Duration = std::time::Duration::from_secs(2);

#[derive(Default)]
pub struct PlanCache {
    /// Each file's facts, with the content id each was found for.
    facts: Mutex<HashMap<RepoPath, Vec<(ContentId, u64)>>>,
    walks: Mutex<Vec<(u64, Walk)>>,
    /// A walk of a watched work tree, with the id of every folder it
    /// listed (see [`PlanCache::walk_by_folders`]).
    folder_walk: Mutex<Option<Arc<FolderWalk>>>,
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
            return self.walk_by_folders(snap);
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

    /// The walk of a snapshot whose folders have ids (a watched work
    /// tree), kept while every folder it listed has the same id: a stat
    /// of each folder instead of a listing (listing a thousand unchanged
    /// folders was a third of a daemon's plan). The snapshot's own walk
    /// (discovery and `--changed-since` walk it too) is this one.
    fn walk_by_folders(&self, snap: &dyn crate::source::Snapshot) -> Walk {
        let Some(shared) = snap.kept_walk() else {
            return self.kept_or_fresh_walk(snap);
        };
        let mut mine = None;
        let walked = shared.get_or_init(|| {
            let w = self.kept_or_fresh_walk(snap);
            let copy = (*w).clone();
            mine = Some(w);
            copy
        });
        mine.unwrap_or_else(|| Arc::new(walked.clone()))
    }

    /// The kept walk when every folder it listed has the same id, else a
    /// fresh walk, kept unless it met a symlink or an error, or listed a
    /// folder that changed while it did or just before.
    fn kept_or_fresh_walk(&self, snap: &dyn crate::source::Snapshot) -> Walk {
        let kept = self.folder_walk.lock().expect("plan cache").clone();
        if let Some(kept) = kept {
            let same = |(dir, id): &(RepoPath, ContentId)| {
                snap.folder_id(dir.as_str()).map(|(now, _)| now) == Some(*id)
            };
            if kept.folders.iter().all(same) {
                return kept.walk.clone();
            }
        }
        let started = std::time::SystemTime::now();
        let (walked, listed, linked) = crate::source::walk_noting_folders(snap, &RepoPath::root());
        let walked: Walk = Arc::new(walked);
        let settled = started.checked_sub(SETTLED);
        let folders: Option<Vec<(RepoPath, ContentId)>> = (!linked && walked.1.is_empty())
            .then(|| {
                // the same id before its listing and after the walk, and
                // last changed well before the walk began
                listed
                    .into_iter()
                    .map(|(dir, before)| {
                        let (id, changed) = snap.folder_id(dir.as_str())?;
                        let same = before.is_some_and(|(was, _)| was == id);
                        (same && Some(changed) < settled).then_some((dir, id))
                    })
                    .collect()
            })
            .flatten();
        *self.folder_walk.lock().expect("plan cache") = folders.map(|folders| {
            Arc::new(FolderWalk {
                folders,
                walk: walked.clone(),
            })
        });
        walked
    }

    fn fact(&self, sources: &SourceCache, path: &RepoPath, id: ContentId) -> u64 {
        // (looked up by the path's text: no copy of thousands of paths a check)
        if let Some(found) = self.facts.lock().expect("plan cache").get(path.as_str()) {
            if let Some((_, f)) = found.iter().find(|(was, _)| *was == id) {
                return *f;
            }
        }
        let mut h = std::collections::hash_map::DefaultHasher::new();
        match sources.get(path) {
            Ok(file) => {
                let text = file.text();
                // the plan reads all of some files: Package CRs, the keys
                // of values files and schemas (`loose`), scripts that run
                // ytt on generated input (`discover`)
                let name = path.file_name();
                let whole = super::packages::shapes_plan(text)
                    || name.ends_with(".sh")
                    || name.contains("values")
                    || file
                        .annotation_lines()
                        .iter()
                        .any(|l| l.starts_with("data/values"));
                let says = whole.then_some(text);
                (true, file.annotation_lines(), says).hash(&mut h)
            }
            Err(e) => (false, e.message).hash(&mut h),
        }
        let f = h.finish();
        let mut facts = self.facts.lock().expect("plan cache");
        if facts.len() >= FACTS_KEPT {
            facts.clear();
        }
        let kept = facts.entry(path.clone()).or_default();
        if kept.len() >= IDS_KEPT {
            kept.remove(0);
        }
        kept.push((id, f));
        f
    }
}

/// What the plan of `sources` depends on, or `None` when a file has no
/// content id (a plain work tree: nothing tells it did not change).
fn key(sources: &SourceCache, cache: &PlanCache) -> Option<u64> {
    use std::hash::BuildHasher;
    let snap = sources.snapshot();
    // (compared only within this process: a fixed-seed foldhash, several
    // times cheaper than SipHash over thousands of paths)
    let mut h = foldhash::quality::FixedState::with_seed(0).build_hasher();
    match snap.read(CONFIG_FILE) {
        Ok(bytes) => (true, bytes).hash(&mut h),
        Err(e) => (false, e.message).hash(&mut h),
    }
    let walked = cache.walk(sources);
    let (files, errors) = &*walked;
    for e in errors {
        (&e.path, &e.message).hash(&mut h);
    }
    // each file's id (a stat in a watched work tree, kept for the check
    // that follows) and fact
    let facts: Option<Vec<u64>> = files
        .iter()
        .map(|f| Some(cache.fact(sources, f, sources.content_id(f)?)))
        .collect();
    for (f, fact) in files.iter().zip(facts?) {
        (f, fact).hash(&mut h);
    }
    Some(h.finish())
}

/// [`load`], reusing a plan `cache` holds when nothing it depends on
/// changed: the kept plan itself, shared (a copy of a thousand pairs' plan
/// was a thirtieth of a daemon's check); whoever narrows it narrows a copy
/// (`Arc::make_mut`).
pub fn load_with(
    sources: &SourceCache,
    cache: Option<&PlanCache>,
) -> Result<Arc<Plan>, ConfigError> {
    let Some(cache) = cache else {
        return load(sources).map(Arc::new);
    };
    let Some(key) = key(sources, cache) else {
        return load(sources).map(Arc::new);
    };
    if let Some((_, plan)) = cache
        .plans
        .lock()
        .expect("plan cache")
        .iter()
        .find(|(k, _)| *k == key)
    {
        cache.hits.fetch_add(1, Relaxed);
        return Ok(plan.clone());
    }
    cache.misses.fetch_add(1, Relaxed);
    let plan = Arc::new(load(sources)?);
    let mut plans = cache.plans.lock().expect("plan cache");
    if plans.len() >= PLANS_KEPT {
        plans.remove(0);
    }
    plans.push((key, plan.clone()));
    Ok(plan)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::worktree::WorkTree;
    use crate::source::{walk_noting_folders, EntryKind, EntryKindResult, Snapshot, SourceError};
    use std::sync::atomic::AtomicUsize;

    /// A work tree that counts its listings.
    struct Counted(WorkTree, AtomicUsize);

    impl Snapshot for Counted {
        fn kind(&self, path: &str) -> Result<EntryKind, SourceError> {
            self.0.kind(path)
        }
        fn list(&self, dir: &str) -> Result<Vec<String>, SourceError> {
            self.1.fetch_add(1, Relaxed);
            self.0.list(dir)
        }
        fn list_kinds(&self, dir: &str) -> Result<Vec<(String, EntryKindResult)>, SourceError> {
            self.1.fetch_add(1, Relaxed);
            self.0.list_kinds(dir)
        }
        fn read(&self, path: &str) -> Result<Vec<u8>, SourceError> {
            self.0.read(path)
        }
        fn resolve_symlink(&self, path: &str) -> Option<String> {
            self.0.resolve_symlink(path)
        }
        fn describe(&self) -> String {
            self.0.describe()
        }
        fn folder_id(&self, dir: &str) -> Option<(ContentId, std::time::SystemTime)> {
            self.0.folder_id(dir)
        }
    }

    /// An in-memory tree whose folder `envs` gains a file right after its
    /// first listing, with a change time long past (a file system whose
    /// clock is behind this machine's, as a network share's may be).
    struct ChangedWhileListed {
        envs: Mutex<Vec<String>>,
        listings: AtomicUsize,
    }

    impl Snapshot for ChangedWhileListed {
        fn kind(&self, path: &str) -> Result<EntryKind, SourceError> {
            Ok(if matches!(path, "" | "envs") {
                EntryKind::Dir
            } else {
                EntryKind::File
            })
        }
        fn list(&self, dir: &str) -> Result<Vec<String>, SourceError> {
            Ok(self.list_kinds(dir)?.into_iter().map(|(n, _)| n).collect())
        }
        fn list_kinds(&self, dir: &str) -> Result<Vec<(String, EntryKindResult)>, SourceError> {
            if dir.is_empty() {
                return Ok(vec![("envs".to_string(), Ok(EntryKind::Dir))]);
            }
            let mut envs = self.envs.lock().unwrap();
            let listed = envs
                .iter()
                .map(|n| (n.clone(), Ok(EntryKind::File)))
                .collect();
            if self.listings.fetch_add(1, Relaxed) == 0 {
                envs.push("new.yml".into());
            }
            Ok(listed)
        }
        fn read(&self, path: &str) -> Result<Vec<u8>, SourceError> {
            Err(SourceError::new(path, "not read here"))
        }
        fn resolve_symlink(&self, _path: &str) -> Option<String> {
            None
        }
        fn describe(&self) -> String {
            "memory".into()
        }
        fn folder_id(&self, dir: &str) -> Option<(ContentId, std::time::SystemTime)> {
            let mut id = [0u8; 20];
            id[0] = dir.len() as u8;
            id[1] = self.envs.lock().unwrap().len() as u8;
            let long_ago = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000);
            Some((id, long_ago))
        }
    }

    /// A folder that changed while the walk listed the tree does not let
    /// the walk be kept, whatever its change time says.
    #[test]
    fn a_walk_during_which_a_folder_changed_is_not_kept() {
        let tree = ChangedWhileListed {
            envs: Mutex::new(vec!["dev.yml".into()]),
            listings: AtomicUsize::new(0),
        };
        let cache = PlanCache::new();
        let first = cache.kept_or_fresh_walk(&tree);
        assert_eq!(first.0, [RepoPath::new("envs/dev.yml").unwrap()]);
        let second = cache.kept_or_fresh_walk(&tree);
        assert_eq!(
            second.0,
            [
                RepoPath::new("envs/dev.yml").unwrap(),
                RepoPath::new("envs/new.yml").unwrap()
            ]
        );
        // now settled: kept, and not listed again
        let listed = tree.listings.load(Relaxed);
        assert_eq!(cache.kept_or_fresh_walk(&tree).0, second.0);
        assert_eq!(tree.listings.load(Relaxed), listed);
    }

    /// A walk is kept while its folders are unchanged (and then lists
    /// nothing), and every change of a folder's names or their kinds gives
    /// the walk a fresh one would.
    #[test]
    fn a_kept_walk_is_the_walk_of_the_folders_as_they_are() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for f in [
            "libs/web/schema.yml",
            "envs/dev/web.yml",
            "envs/prod/web.yml",
        ] {
            std::fs::create_dir_all(root.join(f).parent().unwrap()).unwrap();
            std::fs::write(root.join(f), "a: 1\n").unwrap();
        }
        // folders changed just before a walk are not trusted to keep it
        let tree = Counted(
            WorkTree::with_stat_ids(root, Arc::new(|_: &std::path::Path| 0)),
            AtomicUsize::new(0),
        );
        let cache = PlanCache::new();
        let fresh = |tree: &Counted| walk_noting_folders(&tree.0, &RepoPath::root()).0 .0;
        let first = cache.walk_by_folders(&tree);
        assert_eq!(first.0, fresh(&tree));
        let listed = tree.1.load(Relaxed);
        cache.walk_by_folders(&tree);
        assert!(
            tree.1.load(Relaxed) > listed,
            "a walk of folders changed just now was kept"
        );

        std::thread::sleep(SETTLED + std::time::Duration::from_millis(200));
        cache.walk_by_folders(&tree);
        let listed = tree.1.load(Relaxed);
        let kept = cache.walk_by_folders(&tree);
        assert_eq!(
            tree.1.load(Relaxed),
            listed,
            "an unchanged tree was listed again"
        );
        assert_eq!(kept.0, fresh(&tree));

        // each change is seen, in any folder
        let changes: Vec<Box<dyn Fn()>> = vec![
            Box::new(|| std::fs::write(root.join("envs/qa.yml"), "a: 2\n").unwrap()),
            Box::new(|| std::fs::remove_file(root.join("envs/prod/web.yml")).unwrap()),
            Box::new(|| std::fs::rename(root.join("envs/dev"), root.join("envs/stage")).unwrap()),
            Box::new(|| std::fs::create_dir_all(root.join("libs/web/deep/er")).unwrap()),
            Box::new(|| std::fs::write(root.join("libs/web/deep/er/x.yml"), "").unwrap()),
            Box::new(|| {
                std::fs::remove_file(root.join("envs/qa.yml")).unwrap();
                std::fs::create_dir(root.join("envs/qa.yml")).unwrap();
                std::fs::write(root.join("envs/qa.yml/in.yml"), "").unwrap();
            }),
        ];
        for (i, change) in changes.iter().enumerate() {
            change();
            assert_eq!(cache.walk_by_folders(&tree).0, fresh(&tree), "change {i}");
        }
    }
}
