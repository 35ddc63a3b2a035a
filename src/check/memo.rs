//! What a long-lived process (the daemon) keeps between checks: the compile
//! cache, the worker threads, each library's shared start (its files,
//! compiled; its schema; its own values) and each pair's outcome — keyed by
//! the content of everything they read, so a check re-evaluates only the
//! pairs whose inputs changed, and reuses an unchanged library's start for a
//! pair whose environment changed.
//!
//! A one-off check uses a fresh memo: the same code runs either way, so the
//! daemon's answers are the in-process answers.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};

use crate::diagnostics::RuleId;
use crate::source::{RepoPath, SourceCache};
use crate::template::CompileCache;
use crate::workspace::{Pair, Plan};

use super::runner::{CheckOptions, LibraryStart, PairOutcome};

/// Entries kept before a cache starts afresh (a bound on memory, not a
/// tuning knob: the benchmark's 1,000 pairs fit many times over).
const LIMIT: usize = 20_000;

/// The most worker threads a check runs on (`-j`; a larger request is
/// refused by the command line and capped here, so that no request can
/// make a long-lived daemon start thousands of threads).
pub const MAX_JOBS: usize = 256;

/// Hit and miss counts of the memo's caches.
#[derive(Debug, Clone, Copy, Default, serde::Serialize, serde::Deserialize)]
pub struct MemoStats {
    pub library_entries: usize,
    pub library_hits: u64,
    pub library_misses: u64,
    pub pair_entries: usize,
    pub pair_hits: u64,
    pub pair_misses: u64,
}

pub struct Memo {
    /// Whether results are kept for later runs (a one-off check keeps
    /// nothing, and so computes no content keys).
    remember: bool,
    pub(super) compile: Arc<CompileCache>,
    pool: Mutex<Option<(usize, Arc<rayon::ThreadPool>)>>,
    libraries: Mutex<HashMap<u64, Arc<LibraryStart>>>,
    pairs: Mutex<HashMap<u64, PairOutcome>>,
    library_hits: AtomicU64,
    library_misses: AtomicU64,
    pair_hits: AtomicU64,
    pair_misses: AtomicU64,
}

impl Default for Memo {
    fn default() -> Memo {
        Memo::new()
    }
}

impl Memo {
    /// A memo for one check: nothing is kept for later.
    pub fn new() -> Memo {
        Memo {
            remember: false,
            compile: Arc::new(CompileCache::new(crate::ytt::stdlib())),
            pool: Mutex::default(),
            libraries: Mutex::default(),
            pairs: Mutex::default(),
            library_hits: AtomicU64::new(0),
            library_misses: AtomicU64::new(0),
            pair_hits: AtomicU64::new(0),
            pair_misses: AtomicU64::new(0),
        }
    }

    /// A memo that keeps what checks computed, for the next check.
    pub fn persistent() -> Memo {
        Memo {
            remember: true,
            ..Memo::new()
        }
    }

    /// Keeps the compile cache bounded between runs.
    pub(super) fn bound(&self) {
        if self.remember && self.compile.len() > 4 * LIMIT {
            self.compile.clear();
        }
    }

    pub(super) fn remembers(&self) -> bool {
        self.remember
    }

    pub fn stats(&self) -> MemoStats {
        MemoStats {
            library_entries: self.libraries.lock().expect("memo").len(),
            library_hits: self.library_hits.load(Relaxed),
            library_misses: self.library_misses.load(Relaxed),
            pair_entries: self.pairs.lock().expect("memo").len(),
            pair_hits: self.pair_hits.load(Relaxed),
            pair_misses: self.pair_misses.load(Relaxed),
        }
    }

    /// The worker threads for `jobs` (0: one per core; never more than
    /// [`MAX_JOBS`], whatever a request says), made once.
    pub(super) fn pool(&self, jobs: usize) -> Arc<rayon::ThreadPool> {
        let jobs = jobs.min(MAX_JOBS);
        let mut pool = self.pool.lock().expect("memo");
        if let Some((j, p)) = pool.as_ref() {
            if *j == jobs {
                return p.clone();
            }
        }
        let p = Arc::new(
            rayon::ThreadPoolBuilder::new()
                .num_threads(jobs)
                // templates recurse (deep values, Starlark calls): the
                // default 2 MiB stack is not enough
                .stack_size(64 << 20)
                .build()
                // the system refused threads: one will do
                .or_else(|_| {
                    rayon::ThreadPoolBuilder::new()
                        .num_threads(1)
                        .stack_size(64 << 20)
                        .build()
                })
                .expect("a thread pool of one thread"),
        );
        *pool = Some((jobs, p.clone()));
        p
    }

    pub(super) fn library(&self, key: u64) -> Option<Arc<LibraryStart>> {
        let found = self.libraries.lock().expect("memo").get(&key).cloned();
        self.count(found.is_some(), &self.library_hits, &self.library_misses);
        found
    }

    pub(super) fn keep_library(&self, key: u64, start: Arc<LibraryStart>) {
        let mut libraries = self.libraries.lock().expect("memo");
        if libraries.len() >= LIMIT {
            libraries.clear();
        }
        libraries.insert(key, start);
    }

    pub(super) fn pair(&self, key: u64) -> Option<PairOutcome> {
        let found = self.pairs.lock().expect("memo").get(&key).cloned();
        self.count(found.is_some(), &self.pair_hits, &self.pair_misses);
        found
    }

    pub(super) fn keep_pair(&self, key: u64, outcome: &PairOutcome) {
        // a budget that ran out may not run out next time (a busy machine)
        if outcome
            .findings
            .iter()
            .any(|f| f.rule == RuleId::TemplateBudget)
        {
            return;
        }
        let mut pairs = self.pairs.lock().expect("memo");
        if pairs.len() >= LIMIT {
            pairs.clear();
        }
        pairs.insert(key, outcome.clone());
    }

    fn count(&self, hit: bool, hits: &AtomicU64, misses: &AtomicU64) {
        if hit { hits } else { misses }.fetch_add(1, Relaxed);
    }
}

/// Content hashes of the files a check reads, each computed once per run.
pub(super) struct Keys<'a> {
    sources: &'a SourceCache<'a>,
    files: Mutex<HashMap<RepoPath, u64>>,
    options: u64,
}

impl<'a> Keys<'a> {
    pub(super) fn new(sources: &'a SourceCache<'a>, plan: &Plan, opts: &CheckOptions) -> Keys<'a> {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        // everything but the progress bar and the thread count changes results
        (
            format!("{:?}", opts.eval),
            opts.skip_validation,
            opts.keep_values,
            opts.render,
            plan.private_libraries,
        )
            .hash(&mut h);
        Keys {
            sources,
            files: Mutex::default(),
            options: h.finish(),
        }
    }

    fn file(&self, path: &RepoPath) -> u64 {
        if let Some(k) = self.files.lock().expect("keys").get(path) {
            return *k;
        }
        let mut h = std::collections::hash_map::DefaultHasher::new();
        path.hash(&mut h);
        match self.sources.get(path) {
            Ok(f) => f.text().hash(&mut h),
            // a file that cannot be read as text: its bytes (a binary file's
            // finding), or its error
            Err(e) => match self.sources.snapshot().read(path.as_str()) {
                Ok(bytes) => bytes.hash(&mut h),
                Err(_) => e.message.hash(&mut h),
            },
        }
        let k = h.finish();
        self.files.lock().expect("keys").insert(path.clone(), k);
        k
    }

    /// A library's start depends on its definition, its files and the
    /// environments it is checked in (they label its findings).
    pub(super) fn library(&self, plan: &Plan, index: usize, environments: &[String]) -> u64 {
        let lib = &plan.libraries[index];
        let mut h = std::collections::hash_map::DefaultHasher::new();
        (self.options, format!("{lib:?}"), environments).hash(&mut h);
        for f in lib
            .files
            .iter()
            .chain(lib.extra_files.iter().map(|f| &f.path))
        {
            self.file(f).hash(&mut h);
        }
        h.finish()
    }

    /// A pair's outcome depends on its library's start and its own inputs.
    pub(super) fn pair(&self, library_key: u64, plan: &Plan, pair: &Pair) -> u64 {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        (library_key, pair.name(plan), format!("{pair:?}")).hash(&mut h);
        for f in pair.inputs.files_read() {
            self.file(&f).hash(&mut h);
        }
        // the policies applied to it, by name, severity and content
        for &i in &pair.policies {
            if let Some(p) = plan.policies.get(i) {
                format!("{p:?}").hash(&mut h);
                for f in std::iter::once(&p.file).chain(p.helpers.iter()) {
                    self.file(f).hash(&mut h);
                }
            }
        }
        h.finish()
    }
}
