//! A snapshot with some files replaced, added or removed: another snapshot
//! seen through a few changes.
//!
//! `diff` plans a pull request's base with the head's `.yttcheck.yml` (the
//! base read through an overlay holding head's config), so that adopting or
//! editing the configuration does not read as every pair changing; an
//! editor's unsaved buffers are an overlay over the work tree.

use std::collections::{BTreeMap, BTreeSet};

use super::{EntryKind, RepoPath, Snapshot, SourceError};

/// `base`, with `files` changed: `Some(bytes)` is a file with these bytes
/// (added or replaced), `None` a file removed.
pub struct Overlay<'a> {
    base: &'a dyn Snapshot,
    files: BTreeMap<RepoPath, Option<Vec<u8>>>,
    /// Folders the added files need, and the folders above them.
    added_dirs: BTreeSet<RepoPath>,
}

impl<'a> Overlay<'a> {
    pub fn new(base: &'a dyn Snapshot, files: BTreeMap<RepoPath, Option<Vec<u8>>>) -> Overlay<'a> {
        let mut added_dirs = BTreeSet::new();
        for (p, bytes) in &files {
            if bytes.is_some() {
                let mut d = p.parent();
                while let Some(dir) = d {
                    if !added_dirs.insert(dir.clone()) {
                        break;
                    }
                    d = dir.parent();
                }
            }
        }
        Overlay {
            base,
            files,
            added_dirs,
        }
    }

    fn changed(&self, path: &str) -> Option<&Option<Vec<u8>>> {
        self.files.get(&RepoPath::new(path)?)
    }

    fn missing(&self, path: &str) -> SourceError {
        SourceError {
            path: path.to_string(),
            message: format!("lstat {path}: no such file or directory"),
            line: 0,
            column: 0,
            not_utf8: None,
        }
    }
}

impl Snapshot for Overlay<'_> {
    fn kind(&self, path: &str) -> Result<EntryKind, SourceError> {
        match self.changed(path) {
            Some(Some(_)) => Ok(EntryKind::File),
            Some(None) => Err(self.missing(path)),
            None => match self.base.kind(path) {
                Ok(k) => Ok(k),
                Err(e) => match RepoPath::new(path) {
                    Some(p) if self.added_dirs.contains(&p) => Ok(EntryKind::Dir),
                    _ => Err(e),
                },
            },
        }
    }

    fn list(&self, dir: &str) -> Result<Vec<String>, SourceError> {
        let d = RepoPath::new(dir).ok_or_else(|| self.missing(dir))?;
        let mut names: BTreeSet<String> = match self.base.list(dir) {
            Ok(n) => n.into_iter().collect(),
            Err(_) if self.added_dirs.contains(&d) => BTreeSet::new(),
            Err(e) => return Err(e),
        };
        for (p, bytes) in &self.files {
            let Some(rest) = (if d.is_root() {
                Some(p.as_str())
            } else {
                p.as_str().strip_prefix(&format!("{d}/"))
            }) else {
                continue;
            };
            let first = rest.split('/').next().unwrap_or(rest);
            match bytes {
                Some(_) => {
                    names.insert(first.to_string());
                }
                // a removed file leaves its folder's listing; a folder it
                // was in stays (other files may be there)
                None if !rest.contains('/') => {
                    names.remove(first);
                }
                None => {}
            }
        }
        Ok(names.into_iter().collect())
    }

    fn read(&self, path: &str) -> Result<Vec<u8>, SourceError> {
        match self.changed(path) {
            Some(Some(bytes)) => Ok(bytes.clone()),
            Some(None) => Err(self.missing(path)),
            None => self.base.read(path),
        }
    }

    fn resolve_symlink(&self, path: &str) -> Option<String> {
        match self.changed(path) {
            Some(_) => None,
            None => self.base.resolve_symlink(path),
        }
    }

    fn describe(&self) -> String {
        self.base.describe()
    }

    fn content_id(&self, path: &str) -> Option<super::ContentId> {
        match self.changed(path) {
            // an id of the bytes themselves (as git's blob id is)
            Some(Some(bytes)) => {
                use sha2::{Digest, Sha256};
                let digest = Sha256::digest(bytes);
                let mut id = [0u8; 20];
                id.copy_from_slice(&digest[..20]);
                id[0] ^= 0x5a; // never equal to a git blob id of the same bytes
                Some(id)
            }
            Some(None) => None,
            None => self.base.content_id(path),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Two;
    impl Snapshot for Two {
        fn kind(&self, path: &str) -> Result<EntryKind, SourceError> {
            match path {
                "" | "a" => Ok(EntryKind::Dir),
                "a/x.yml" | "b.yml" => Ok(EntryKind::File),
                _ => Err(SourceError {
                    path: path.into(),
                    message: "missing".into(),
                    line: 0,
                    column: 0,
                    not_utf8: None,
                }),
            }
        }
        fn list(&self, dir: &str) -> Result<Vec<String>, SourceError> {
            match dir {
                "" => Ok(vec!["a".into(), "b.yml".into()]),
                "a" => Ok(vec!["x.yml".into()]),
                _ => Err(self.kind("nope").unwrap_err()),
            }
        }
        fn read(&self, path: &str) -> Result<Vec<u8>, SourceError> {
            self.kind(path).map(|_| path.as_bytes().to_vec())
        }
        fn resolve_symlink(&self, _: &str) -> Option<String> {
            None
        }
        fn describe(&self) -> String {
            "two".into()
        }
    }

    #[test]
    fn changes_show_through_and_the_rest_is_the_base() {
        let mut files = BTreeMap::new();
        files.insert(RepoPath::new("b.yml").unwrap(), None);
        files.insert(RepoPath::new("a/x.yml").unwrap(), Some(b"new".to_vec()));
        files.insert(RepoPath::new("c/d/e.yml").unwrap(), Some(b"e".to_vec()));
        let o = Overlay::new(&Two, files);
        assert_eq!(o.list("").unwrap(), ["a", "c"]);
        assert_eq!(o.list("c").unwrap(), ["d"]);
        assert_eq!(o.kind("c/d").unwrap(), EntryKind::Dir);
        assert_eq!(o.read("a/x.yml").unwrap(), b"new");
        assert!(o.read("b.yml").is_err());
        assert_eq!(o.read("c/d/e.yml").unwrap(), b"e");
        let (files, errors) = super::super::walk(&o, &RepoPath::root());
        assert!(errors.is_empty());
        let names: Vec<&str> = files.iter().map(RepoPath::as_str).collect();
        assert_eq!(names, ["a/x.yml", "c/d/e.yml"]);
    }
}
