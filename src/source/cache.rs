//! Reading each file of a snapshot once: discovery and the check share what
//! they read.

// several times faster than SipHash on paths (a warm daemon looks up each of
// thousands of files a few times a check); seeded per process, which is all
// the defence against colliding paths it has: at worst a slower check
use foldhash::HashMap;
use std::sync::{Arc, Mutex};

use crate::yaml::SourceFile;

use super::{decode_text, ContentId, RepoPath, Snapshot, SourceError, MAX_FILE_SIZE};

/// A snapshot and the text of every file read from it so far (thread-safe).
pub struct SourceCache<'a> {
    snap: &'a dyn Snapshot,
    files: Mutex<HashMap<RepoPath, Result<Arc<SourceFile>, SourceError>>>,
    /// Each file's content id, looked up once (a daemon's check asks for
    /// every file's twice: for its plan, then for its text).
    content_ids: Mutex<HashMap<RepoPath, Option<ContentId>>>,
    store: Option<&'a FileStore>,
}

/// Files read by earlier runs, by path and content id: a long-lived process
/// (the daemon) neither reads nor decodes a file again while its content id
/// stays the same. Bounded: past `limit` entries it starts afresh.
pub struct FileStore {
    files: Mutex<HashMap<(RepoPath, ContentId), Read>>,
    limit: usize,
    /// The most files a run has read: the next one's maps are made that
    /// big at once (grown from empty, each of a daemon's checks rehashed
    /// its thousands of paths a dozen times over).
    most_read: std::sync::atomic::AtomicUsize,
    hits: std::sync::atomic::AtomicU64,
    misses: std::sync::atomic::AtomicU64,
}

/// A file read as text, or why it could not be.
type Read = Result<Arc<SourceFile>, SourceError>;

/// How a [`FileStore`] has done.
#[derive(Debug, Clone, Copy, Default, serde::Serialize, serde::Deserialize)]
pub struct StoreStats {
    pub entries: usize,
    pub hits: u64,
    pub misses: u64,
}

impl FileStore {
    pub fn new(limit: usize) -> FileStore {
        FileStore {
            files: Mutex::default(),
            limit,
            most_read: Default::default(),
            hits: Default::default(),
            misses: Default::default(),
        }
    }

    pub fn stats(&self) -> StoreStats {
        use std::sync::atomic::Ordering::Relaxed;
        StoreStats {
            entries: self.files.lock().expect("file store").len(),
            hits: self.hits.load(Relaxed),
            misses: self.misses.load(Relaxed),
        }
    }

    fn get(&self, key: &(RepoPath, ContentId)) -> Option<Read> {
        use std::sync::atomic::Ordering::Relaxed;
        let found = self.files.lock().expect("file store").get(key).cloned();
        if found.is_some() {
            self.hits.fetch_add(1, Relaxed);
        } else {
            self.misses.fetch_add(1, Relaxed);
        }
        found
    }

    fn put(&self, key: (RepoPath, ContentId), value: Read) {
        let mut files = self.files.lock().expect("file store");
        if files.len() >= self.limit {
            files.clear();
        }
        files.insert(key, value);
    }
}

impl<'a> SourceCache<'a> {
    pub fn new(snap: &'a dyn Snapshot) -> SourceCache<'a> {
        SourceCache {
            snap,
            files: Mutex::default(),
            content_ids: Mutex::default(),
            store: None,
        }
    }

    /// A cache that also looks in, and fills, a store kept between runs.
    pub fn with_store(snap: &'a dyn Snapshot, store: &'a FileStore) -> SourceCache<'a> {
        let n = store.most_read.load(std::sync::atomic::Ordering::Relaxed);
        SourceCache {
            snap,
            files: Mutex::new(HashMap::with_capacity_and_hasher(n, Default::default())),
            content_ids: Mutex::new(HashMap::with_capacity_and_hasher(n, Default::default())),
            store: Some(store),
        }
    }

    /// How many files a run of the process is likely to read (the most an
    /// earlier one read), for maps made per run; 0 without a store.
    pub fn expected_files(&self) -> usize {
        self.store.map_or(0, |s| {
            s.most_read.load(std::sync::atomic::Ordering::Relaxed)
        })
    }

    pub fn snapshot(&self) -> &'a dyn Snapshot {
        self.snap
    }

    /// The snapshot's content id of a file ([`Snapshot::content_id`]), as
    /// it was when this cache first asked.
    pub fn content_id(&self, path: &RepoPath) -> Option<ContentId> {
        if let Some(id) = self.content_ids.lock().expect("source cache").get(path) {
            return *id;
        }
        let id = self.snap.content_id(path.as_str());
        self.content_ids
            .lock()
            .expect("source cache")
            .insert(path.clone(), id);
        id
    }

    /// [`SourceCache::get`] of a path given as text (a finding's): looked
    /// up as it is first, made a [`RepoPath`] only when not read yet;
    /// `None` when it is not a path in the repository.
    pub fn get_str(&self, path: &str) -> Option<Result<Arc<SourceFile>, SourceError>> {
        if let Some(r) = self.files.lock().expect("source cache").get(path) {
            return Some(r.clone());
        }
        Some(self.get(&RepoPath::new(path)?))
    }

    /// A file as text (UTF-8, at most 16 MiB, not binary), read once.
    pub fn get(&self, path: &RepoPath) -> Result<Arc<SourceFile>, SourceError> {
        if let Some(r) = self.files.lock().expect("source cache").get(path) {
            return r.clone();
        }
        let key = self
            .store
            .and_then(|_| self.content_id(path))
            .map(|id| (path.clone(), id));
        let stored = match (&key, self.store) {
            (Some(k), Some(store)) => store.get(k),
            _ => None,
        };
        let r = stored.unwrap_or_else(|| {
            let r = self
                .snap
                .read(path.as_str())
                .and_then(|b| decode_text(path.as_str(), b))
                .map(|text| SourceFile::new(path.as_str(), text));
            if let (Some(k), Some(store)) = (key, self.store) {
                store.put(k, r.clone());
            }
            r
        });
        self.files
            .lock()
            .expect("source cache")
            .insert(path.clone(), r.clone());
        r
    }

    /// A file ytt only reads as data (`data.read`): an image or a Latin-1
    /// text is no error, so it is taken as lossy text.
    pub fn get_data(&self, path: &RepoPath) -> Result<Arc<SourceFile>, SourceError> {
        match self.get(path) {
            Ok(s) => Ok(s),
            Err(e) => match self.snap.read(path.as_str()) {
                Ok(bytes) if bytes.len() as u64 <= MAX_FILE_SIZE => Ok(SourceFile::new(
                    path.as_str(),
                    String::from_utf8_lossy(&bytes).into_owned(),
                )),
                _ => Err(e),
            },
        }
    }
}

/// What a run read tells the store how big the next run's maps will be.
impl Drop for SourceCache<'_> {
    fn drop(&mut self) {
        if let Some(store) = self.store {
            let read = self.files.get_mut().map_or(0, |f| f.len());
            let ids = self.content_ids.get_mut().map_or(0, |f| f.len());
            store
                .most_read
                .fetch_max(read.max(ids), std::sync::atomic::Ordering::Relaxed);
        }
    }
}
