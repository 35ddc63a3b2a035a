//! What a long-lived process (the daemon) keeps between checks: the compile
//! cache, the worker threads, each library's shared start (its files,
//! compiled; its schema; its own values) and each pair's outcome — keyed by
//! the content of everything they read, so a check re-evaluates only the
//! pairs whose inputs changed, and reuses an unchanged library's start for a
//! pair whose environment changed.
//!
//! A one-off check uses a fresh memo: the same code runs either way, so the
//! daemon's answers are the in-process answers. A memo may also be given an
//! [`OutcomeStore`] (the persistent cache across runs, `--cache-dir`): pair
//! outcomes are then looked up there and kept there, under keys that are
//! stable across processes (BLAKE3 of the contents, the options and the
//! build of yttcheck that computed them).

// several times faster than SipHash on paths and keys (a warm daemon looks up
// thousands a check); seeded per process, which is all the defence against
// colliding paths it has: at worst a slower check
use foldhash::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};

use crate::diagnostics::RuleId;
use crate::source::{RepoPath, SourceCache};
use crate::template::CompileCache;
use crate::workspace::{Pair, Plan};

use super::outcome::{CheckOptions, PairOutcome};
use super::runner::LibraryStart;

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
    /// Pair outcomes found in the persistent store, and not found there.
    #[serde(default)]
    pub stored_hits: u64,
    #[serde(default)]
    pub stored_misses: u64,
}

/// A key of the memo: 128 bits of a BLAKE3 hash of everything a start or an
/// outcome depends on (stable across processes and machines of the same
/// build, unlike `std`'s hashers).
pub type Key = u128;

/// Where pair outcomes are kept between processes (the persistent cache):
/// bytes by key. The host gives one (the command line's `--cache-dir`);
/// what is stored is this module's to encode and to check when read back.
pub trait OutcomeStore: Send + Sync {
    /// The bytes kept under `key` (32 hex digits), if any.
    fn load(&self, key: &str) -> Option<Vec<u8>>;
    /// Keeps `bytes` under `key`; a store that cannot write drops them.
    fn save(&self, key: &str, bytes: &[u8]);
    /// Says that the entry under `key` is still needed, though this run did
    /// not read it (a store that drops old entries keeps it with this
    /// run's).
    fn keep(&self, _key: &str) {}
}

pub struct Memo {
    /// Whether results are kept for later runs (a one-off check keeps
    /// nothing, and so computes no content keys).
    remember: bool,
    pub(super) compile: Arc<CompileCache>,
    pool: Mutex<Option<(usize, Arc<rayon::ThreadPool>)>>,
    libraries: Mutex<HashMap<Key, Arc<LibraryStart>>>,
    pairs: Mutex<HashMap<Key, Arc<PairOutcome>>>,
    /// Findings about a whole library (its unused values).
    findings: Mutex<HashMap<Key, Vec<crate::diagnostics::Finding>>>,
    store: Option<Arc<dyn OutcomeStore>>,
    /// Declared paths read from the store (or written to it) in this
    /// process, by their key: shared by the pairs of a library.
    declared: Mutex<HashMap<String, super::usage::Declared>>,
    stored_hits: AtomicU64,
    stored_misses: AtomicU64,
    library_hits: AtomicU64,
    library_misses: AtomicU64,
    pair_hits: AtomicU64,
    pair_misses: AtomicU64,
    /// The keys of the last checks (a memo that remembers).
    pub(super) digests: Option<Digests>,
    /// The order of the last check's findings (a memo that remembers).
    pub(super) order: Option<super::finding::OrderHint>,
    /// Pair outcomes whose budget ran out are kept too, in memory only
    /// (the language server: a template that loops is not evaluated again
    /// until what it reads changes).
    keep_budget_failures: bool,
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
            findings: Mutex::default(),
            library_hits: AtomicU64::new(0),
            library_misses: AtomicU64::new(0),
            pair_hits: AtomicU64::new(0),
            pair_misses: AtomicU64::new(0),
            store: None,
            declared: Mutex::default(),
            stored_hits: AtomicU64::new(0),
            stored_misses: AtomicU64::new(0),
            digests: None,
            order: None,
            keep_budget_failures: false,
        }
    }

    /// This memo, also looking pair outcomes up in `store` and keeping them
    /// there.
    pub fn with_store(mut self, store: Option<Arc<dyn OutcomeStore>>) -> Memo {
        self.store = store;
        self
    }

    /// A memo that keeps what checks computed, for the next check.
    pub fn persistent() -> Memo {
        Memo {
            remember: true,
            digests: Some(Digests::default()),
            order: Some(Default::default()),
            ..Memo::new()
        }
    }

    /// This memo, also keeping the outcomes of pairs whose budget ran out
    /// (in memory, for this process: another may finish in time), under
    /// the same keys: a pair is evaluated again only when something it
    /// reads, or the budget, changes.
    pub fn keeping_budget_failures(mut self) -> Memo {
        self.keep_budget_failures = true;
        self
    }

    /// Keeps the compile cache bounded between runs.
    pub(super) fn bound(&self) {
        if let Some(d) = &self.digests {
            d.next_check();
        }
        if self.remember && self.compile.len() > 4 * LIMIT {
            self.compile.clear();
        }
    }

    /// Whether this memo keeps what it is given (and so needs the keys).
    pub(super) fn remembers(&self) -> bool {
        self.remember || self.store.is_some()
    }

    /// Whether this memo keeps what it is given in memory, for a later run
    /// of this process.
    pub(super) fn keeps_in_memory(&self) -> bool {
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
            stored_hits: self.stored_hits.load(Relaxed),
            stored_misses: self.stored_misses.load(Relaxed),
        }
    }

    /// Runs `op` on the check's threads (`jobs` of them, 0: one per core):
    /// what it does in parallel (framing thousands of findings) uses the
    /// threads the check was given, and no others.
    pub fn install<R: Send>(&self, jobs: usize, op: impl FnOnce() -> R + Send) -> R {
        self.pool(jobs).install(op)
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

    pub(super) fn library(&self, key: Key) -> Option<Arc<LibraryStart>> {
        let found = self.libraries.lock().expect("memo").get(&key).cloned();
        self.count(found.is_some(), &self.library_hits, &self.library_misses);
        found
    }

    pub(super) fn keep_library(&self, key: Key, start: Arc<LibraryStart>) {
        if !self.remember {
            return;
        }
        let mut libraries = self.libraries.lock().expect("memo");
        if libraries.len() >= LIMIT {
            libraries.clear();
        }
        libraries.insert(key, start);
    }

    /// A pair's outcome kept in memory, or else in the store (not for a
    /// run that keeps values: the store keeps none). Without `usage`, an
    /// outcome read from the store leaves out what its templates read
    /// (decoding it is most of the work, and only a library's unused-value
    /// findings need it).
    pub(super) fn pair(
        &self,
        key: Key,
        keep_values: bool,
        usage: bool,
    ) -> Option<Arc<PairOutcome>> {
        if self.remember {
            let found = self.pairs.lock().expect("memo").get(&key).cloned();
            self.count(found.is_some(), &self.pair_hits, &self.pair_misses);
            if found.is_some() {
                return found;
            }
        }
        let store = self.store.as_ref().filter(|_| !keep_values)?;
        let hex = format!("{key:032x}");
        let declared = |key: &str| {
            if let Some(d) = self.declared.lock().expect("memo").get(key) {
                return Some(d.clone());
            }
            let d = super::stored::decode_declared(&store.load(key)?, key)?;
            self.declared
                .lock()
                .expect("memo")
                .insert(key.to_string(), d.clone());
            Some(d)
        };
        let found = store.load(&hex).and_then(|bytes| {
            let mut skipped = None;
            let found =
                super::stored::decode(&bytes, &hex, usage.then_some(declared), Some(&mut skipped))?;
            // the declared paths it names are not read now, but a later run
            // that needs the usage will read them
            if let Some(d) = skipped {
                store.keep(&d);
            }
            Some(found)
        });
        self.count(found.is_some(), &self.stored_hits, &self.stored_misses);
        found.map(Arc::new)
    }

    pub(super) fn keep_pair(&self, key: Key, outcome: &Arc<PairOutcome>, keep_values: bool) {
        // a budget that ran out may not run out next time (a busy machine),
        // and a schema that could not be read may be readable (the network)
        let has = |rule: RuleId| outcome.findings.iter().any(|f| f.rule == rule);
        if has(RuleId::KubernetesSchemaUnavailable) {
            return;
        }
        if has(RuleId::TemplateBudget) {
            if self.keep_budget_failures && self.remember {
                self.keep_in_memory(key, outcome);
            }
            return;
        }
        if let Some(store) = self.store.as_ref().filter(|_| !keep_values) {
            let hex = format!("{key:032x}");
            let declared_key = outcome.usage.as_ref().map(|u| {
                let (key, bytes) = super::stored::encode_declared(&u.declared);
                // once per process and library
                let mut kept = self.declared.lock().expect("memo");
                if !kept.contains_key(&key) {
                    store.save(&key, &bytes);
                    kept.insert(key.clone(), u.declared.clone());
                }
                key
            });
            store.save(
                &hex,
                &super::stored::encode(outcome, &hex, declared_key.as_deref()),
            );
        }
        if self.remember {
            self.keep_in_memory(key, outcome);
        }
    }

    fn keep_in_memory(&self, key: Key, outcome: &Arc<PairOutcome>) {
        let mut pairs = self.pairs.lock().expect("memo");
        if pairs.len() >= LIMIT {
            pairs.clear();
        }
        pairs.insert(key, outcome.clone());
    }

    /// Findings kept under `key` in memory, or else in the store.
    pub(super) fn findings(&self, key: Key) -> Option<Vec<crate::diagnostics::Finding>> {
        if self.remember {
            if let Some(f) = self.findings.lock().expect("memo").get(&key) {
                return Some(f.clone());
            }
        }
        let hex = format!("{key:032x}");
        let bytes = self.store.as_ref()?.load(&hex)?;
        super::stored::decode_findings(&bytes, &hex)
    }

    pub(super) fn keep_findings(&self, key: Key, findings: &[crate::diagnostics::Finding]) {
        if let Some(store) = &self.store {
            let hex = format!("{key:032x}");
            store.save(&hex, &super::stored::encode_findings(findings, &hex));
        }
        if self.remember {
            let mut kept = self.findings.lock().expect("memo");
            if kept.len() >= LIMIT {
                kept.clear();
            }
            kept.insert(key, findings.to_vec());
        }
    }

    fn count(&self, hit: bool, hits: &AtomicU64, misses: &AtomicU64) {
        if hit { hits } else { misses }.fetch_add(1, Relaxed);
    }
}

/// A hasher over BLAKE3 (`std::hash::Hash` feeds it): the same bytes give
/// the same key in every process of a build. What `Hash` writes, piece by
/// piece (a pair's key is hundreds of small writes), is gathered first and
/// digested in one go.
struct Stable(Vec<u8>);

impl Stable {
    fn new() -> Stable {
        let mut h = Stable(Vec::with_capacity(512));
        // a build's keys are its own: another build (other code, another
        // machine word) never reads them
        (
            env!("YTTCHECK_BUILD_ID"),
            env!("CARGO_PKG_VERSION"),
            std::env::consts::ARCH,
            std::env::consts::OS,
        )
            .hash(&mut h);
        h
    }

    fn key(self) -> Key {
        digest_key(&self.0)
    }

    /// [`Stable::key`], looked up in `digests` first.
    fn key_in(self, digests: Option<&Digests>) -> Key {
        match digests {
            Some(d) => d.key(&self.0),
            None => self.key(),
        }
    }
}

/// The first 128 bits of the BLAKE3 hash of `bytes` (a cryptographic
/// hash, so that no input made to meet another's key is given its outcome;
/// SHA-256 in software, on processors without SHA instructions, was a
/// tenth of a re-run with `--cache-dir`: a key for every file, library
/// and pair).
fn digest_key(bytes: &[u8]) -> Key {
    let digest = blake3::hash(bytes);
    let mut first = [0u8; 16];
    first.copy_from_slice(&digest.as_bytes()[..16]);
    u128::from_le_bytes(first)
}

/// The keys of the last two checks, by their exact input: a daemon's check
/// asks for thousands of keys (every file, library and pair), nearly all
/// the same as the check before, and digesting them all again cost a
/// tenth of such a check (SHA-256 in software, then) where a lookup costs
/// a fast hash and a comparison.
///
/// An entry is found by the fast hash of its input and used only when its
/// input is the same, byte for byte: a key never differs from the digest
/// of what it is asked for. Two generations: what the last check and this
/// one asked for; [`Digests::next_check`] lets the older go.
#[derive(Default)]
pub(super) struct Digests {
    generations: Mutex<[Generation; 2]>,
    /// Seeded per process, as the other maps.
    state: foldhash::fast::RandomState,
}

/// Keys by the fast hash of their input, with the input.
type Generation = HashMap<u64, (Box<[u8]>, Key)>;

impl Digests {
    fn key(&self, input: &[u8]) -> Key {
        use std::hash::BuildHasher;
        let h = self.state.hash_one(input);
        {
            let mut g = self.generations.lock().expect("digests");
            if let Some((kept, key)) = g[0].get(&h) {
                if **kept == *input {
                    return *key;
                }
            }
            // asked for by the last check: kept for the next one too
            if let Some((kept, key)) = g[1].remove(&h) {
                if *kept == *input {
                    g[0].insert(h, (kept, key));
                    return key;
                }
            }
        }
        let key = digest_key(input);
        // (another input of the same fast hash, rare, is replaced)
        self.generations.lock().expect("digests")[0].insert(h, (input.into(), key));
        key
    }

    /// A check begins: what the check before the last asked for, and the
    /// last did not, goes.
    pub(super) fn next_check(&self) {
        let mut g = self.generations.lock().expect("digests");
        // (made as big as the last check's at once: a check asks for
        // thousands of keys, and a map grown from empty rehashes them all a
        // dozen times)
        let asked = g[0].len();
        let now = std::mem::replace(
            &mut g[0],
            HashMap::with_capacity_and_hasher(asked, Default::default()),
        );
        g[1] = now;
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        let g = self.generations.lock().expect("digests");
        g[0].len() + g[1].len()
    }
}

impl Hasher for Stable {
    fn write(&mut self, bytes: &[u8]) {
        self.0.extend_from_slice(bytes);
    }
    fn finish(&self) -> u64 {
        unreachable!("a stable hash is read with Stable::key")
    }
}

/// Content hashes of the files a check reads, each computed once per run.
pub(super) struct Keys<'a> {
    sources: &'a SourceCache<'a>,
    digests: Option<&'a Digests>,
    files: Mutex<HashMap<RepoPath, Key>>,
    options: Key,
}

impl<'a> Keys<'a> {
    pub(super) fn new(
        sources: &'a SourceCache<'a>,
        plan: &Plan,
        opts: &CheckOptions,
        digests: Option<&'a Digests>,
    ) -> Keys<'a> {
        let mut h = Stable::new();
        // everything but the progress bar and the thread count changes results
        (
            format!("{:?}", opts.eval),
            opts.skip_validation,
            opts.keep_values,
            opts.render,
            plan.private_libraries,
            opts.kubernetes.as_ref().map(|k| k.fingerprint.as_str()),
        )
            .hash(&mut h);
        Keys {
            sources,
            digests,
            files: Mutex::new(HashMap::with_capacity_and_hasher(
                sources.expected_files(),
                Default::default(),
            )),
            options: h.key_in(digests),
        }
    }

    fn file(&self, path: &RepoPath) -> Key {
        if let Some(k) = self.files.lock().expect("keys").get(path) {
            return *k;
        }
        let mut h = Stable::new();
        path.hash(&mut h);
        match self.sources.get(path) {
            // the text's own digest, which a daemon keeps with the file
            Ok(f) => (0u8, f.digest()).hash(&mut h),
            // a file that cannot be read as text: its bytes (a binary file's
            // finding), or its error
            Err(e) => match self.sources.snapshot().read(path.as_str()) {
                Ok(bytes) => (1u8, bytes).hash(&mut h),
                // a folder (`--data-value-file key=DIR` reads the one file
                // in it): the files in it, each by its own key
                Err(_) if self.is_folder(path) => {
                    let snap = self.sources.snapshot();
                    match crate::source::find_files(
                        snap,
                        path.as_str(),
                        &crate::source::Stdin::closed(),
                    ) {
                        Ok(found) => {
                            3u8.hash(&mut h);
                            for f in found {
                                let inner = RepoPath::new(&f.path)
                                    .filter(|p| p != path)
                                    .map(|p| self.file(&p));
                                (f.rel_path, inner).hash(&mut h);
                            }
                        }
                        Err(why) => (4u8, why).hash(&mut h),
                    }
                }
                Err(_) => (2u8, e.message).hash(&mut h),
            },
        }
        let k = h.key_in(self.digests);
        self.files.lock().expect("keys").insert(path.clone(), k);
        k
    }

    /// A folder, or a link that may lead to one (a link to a file reads
    /// as its file, and does not get here).
    fn is_folder(&self, path: &RepoPath) -> bool {
        matches!(
            self.sources.snapshot().kind(path.as_str()),
            Ok(crate::source::EntryKind::Dir | crate::source::EntryKind::Symlink)
        )
    }

    /// A library's start depends on its definition, its files and the
    /// environments it is checked in (they label its findings).
    pub(super) fn library(&self, plan: &Plan, index: usize, environments: &[String]) -> Key {
        let lib = &plan.libraries[index];
        let mut h = Stable::new();
        (self.options, lib, environments).hash(&mut h);
        for f in lib
            .files
            .iter()
            .chain(lib.extra_files.iter().map(|f| &f.path))
            .chain(lib.packages.iter().map(|p| &p.path))
        {
            self.file(f).hash(&mut h);
        }
        h.key_in(self.digests)
    }

    /// A key of `what` computed from other keys alone.
    pub(super) fn derived(&self, what: &str, parts: &[Key]) -> Key {
        let mut h = Stable::new();
        (self.options, what, parts).hash(&mut h);
        h.key_in(self.digests)
    }

    /// A pair's outcome depends on its library's start and its own inputs.
    pub(super) fn pair(&self, library_key: Key, plan: &Plan, pair: &Pair) -> Key {
        let mut h = Stable::new();
        // (the pair's name, `<library>@<environment>`, as its two parts:
        // not formatted a thousand times a check)
        let library = plan.libraries[pair.library].name.as_str();
        (library_key, library, pair.environment.as_str(), pair).hash(&mut h);
        for f in pair.inputs.paths_read() {
            self.file(&f).hash(&mut h);
        }
        // the policies applied to it, by name, severity and content
        for &i in &pair.policies {
            if let Some(p) = plan.policies.get(i) {
                p.hash(&mut h);
                for f in std::iter::once(&p.file).chain(p.helpers.iter()) {
                    self.file(f).hash(&mut h);
                }
            }
        }
        h.key_in(self.digests)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A kept key is the digest of what it is asked for, whatever was
    /// asked before; what two checks in a row did not ask for goes.
    #[test]
    fn a_kept_key_is_the_digest_of_its_input() {
        let d = Digests::default();
        let inputs: Vec<Vec<u8>> = (0..500u32)
            .map(|i| format!("file-{i}").repeat(1 + i as usize % 7).into_bytes())
            .collect();
        for round in 0..3 {
            for input in &inputs {
                assert_eq!(d.key(input), digest_key(input), "round {round}");
            }
            d.next_check();
        }
        // asked for in the last check: kept (one generation)
        assert_eq!(d.len(), inputs.len());
        // prefixes and extensions of a kept input are other inputs
        for input in &inputs[..20] {
            let longer = [input.as_slice(), b"x"].concat();
            assert_eq!(d.key(&longer), digest_key(&longer));
            assert_eq!(
                d.key(&input[..input.len() - 1]),
                digest_key(&input[..input.len() - 1])
            );
        }
        d.next_check();
        d.next_check();
        assert_eq!(d.len(), 0, "two checks that asked for nothing keep nothing");
    }
}
