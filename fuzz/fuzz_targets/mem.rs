//! An in-memory snapshot, so a fuzz input never touches the file system.

use std::collections::BTreeMap;

use yttcheck::source::{EntryKind, Snapshot, SourceError};

pub struct Mem(pub BTreeMap<String, Vec<u8>>);

fn missing(path: &str) -> SourceError {
    SourceError::new(path, format!("lstat {path}: no such file or directory"))
}

impl Mem {
    fn is_dir(&self, path: &str) -> bool {
        let path = path.trim_end_matches('/');
        path.is_empty() || path == "." || self.0.keys().any(|k| k.starts_with(&format!("{path}/")))
    }
}

impl Snapshot for Mem {
    fn kind(&self, path: &str) -> Result<EntryKind, SourceError> {
        if self.0.contains_key(path) {
            Ok(EntryKind::File)
        } else if self.is_dir(path) {
            Ok(EntryKind::Dir)
        } else {
            Err(missing(path))
        }
    }

    fn list(&self, dir: &str) -> Result<Vec<String>, SourceError> {
        if !self.is_dir(dir) {
            return Err(missing(dir));
        }
        let dir = dir.trim_end_matches('/');
        let prefix = if dir.is_empty() || dir == "." {
            String::new()
        } else {
            format!("{dir}/")
        };
        let mut names: Vec<String> = self
            .0
            .keys()
            .filter_map(|k| k.strip_prefix(&prefix))
            .map(|rest| rest.split('/').next().unwrap_or(rest).to_string())
            .collect();
        names.dedup();
        Ok(names)
    }

    fn read(&self, path: &str) -> Result<Vec<u8>, SourceError> {
        self.0.get(path).cloned().ok_or_else(|| missing(path))
    }

    fn resolve_symlink(&self, _path: &str) -> Option<String> {
        None
    }

    fn describe(&self) -> String {
        "fuzz input".into()
    }
}
