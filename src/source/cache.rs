//! Reading each file of a snapshot once: discovery and the check share what
//! they read.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::yaml::SourceFile;

use super::{decode_text, RepoPath, Snapshot, SourceError, MAX_FILE_SIZE};

/// A snapshot and the text of every file read from it so far (thread-safe).
pub struct SourceCache<'a> {
    snap: &'a dyn Snapshot,
    files: Mutex<HashMap<RepoPath, Result<Arc<SourceFile>, SourceError>>>,
}

impl<'a> SourceCache<'a> {
    pub fn new(snap: &'a dyn Snapshot) -> SourceCache<'a> {
        SourceCache {
            snap,
            files: Mutex::default(),
        }
    }

    pub fn snapshot(&self) -> &'a dyn Snapshot {
        self.snap
    }

    /// A file as text (UTF-8, at most 16 MiB, not binary), read once.
    pub fn get(&self, path: &RepoPath) -> Result<Arc<SourceFile>, SourceError> {
        if let Some(r) = self.files.lock().expect("source cache").get(path) {
            return r.clone();
        }
        let r = self
            .snap
            .read(path.as_str())
            .and_then(|b| decode_text(path.as_str(), b))
            .map(|text| SourceFile::new(path.as_str(), text));
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
