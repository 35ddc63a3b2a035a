//! The persistent result cache (`--cache-dir DIR`): each pair's outcome,
//! kept between runs under a key of everything it read (see
//! [`crate::check::memo`]), so a re-run on an unchanged repository
//! evaluates nothing and one changed values file costs what its pairs cost.
//!
//! The folder is the user's to name, and safe to delete. Entries live in a
//! sub-folder named after the build of yttcheck that wrote them
//! (`DIR/<build>/ab/cdef....json`): another build never reads them, and the
//! first run of a new build removes the old builds' folders. Writes go
//! through [`super::write::output_file`] (a temporary file renamed over the
//! entry: a reader never sees half an entry; no link is followed). The
//! folder is bounded: past [`MAX_ENTRIES`] entries or [`MAX_BYTES`], the
//! oldest quarter goes.
//!
//! A cache is trusted: an entry is an answer. So a folder the checked
//! repository could have planted is refused: inside the repository's work
//! tree, no file under it may be known to git, and no folder on the way may
//! be a link (a pull request cannot commit its own "clean" results, or
//! point the cache at a folder of the runner). A folder that holds other
//! things than a yttcheck cache is refused too, so that pruning never
//! deletes what is not ours.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;

use crate::check::memo::OutcomeStore;

/// The most entries kept (a pair's entry is a few KiB).
pub const MAX_ENTRIES: usize = 100_000;

/// The most bytes kept.
pub const MAX_BYTES: u64 = 512 << 20;

/// The largest entry read back (anything larger is not ours).
const MAX_ENTRY: u64 = 64 << 20;

/// The tag that marks a cache folder (backup tools skip it:
/// <https://bford.info/cachedir/>).
const TAG_NAME: &str = "CACHEDIR.TAG";
const TAG: &str = "Signature: 8a477f597d28d172789f06886806bc55\n# This folder is yttcheck's result cache (--cache-dir); it is safe to delete.\n";

/// This build's name (see `build.rs`).
const BUILD: &str = env!("YTTCHECK_BUILD_ID");

pub struct DiskStore {
    /// `DIR/<build>`.
    entries: PathBuf,
    saved: AtomicU64,
    failed: AtomicU64,
}

/// Opens (making it when missing) the cache folder `dir` for a check of the
/// folder `checked`, or says why it cannot be used.
pub fn open(dir: &Path, checked: &Path) -> Result<Arc<DiskStore>, String> {
    let dir = std::path::absolute(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    refuse_planted(&dir, checked)?;
    match std::fs::symlink_metadata(&dir) {
        Ok(m) if m.file_type().is_symlink() => {
            return Err(format!("{} is a symlink", dir.display()))
        }
        Ok(m) if !m.is_dir() => return Err(format!("{} is not a folder", dir.display())),
        Ok(_) => {
            let tagged = std::fs::read_to_string(dir.join(TAG_NAME)).is_ok_and(|t| t == TAG);
            let empty = std::fs::read_dir(&dir)
                .map_err(|e| e.to_string())?
                .next()
                .is_none();
            if !tagged && !empty {
                return Err(format!(
                    "{} holds other files: name a new or empty folder for the cache",
                    dir.display()
                ));
            }
        }
        Err(_) => std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?,
    }
    for (name, text) in [(TAG_NAME, TAG), (".gitignore", "*\n")] {
        let current = std::fs::read_to_string(dir.join(name)).ok();
        if current.as_deref() != Some(text) {
            super::write::output_file(&dir, name, text.as_bytes())
                .map_err(|e| format!("{}: {e}", dir.display()))?;
        }
    }
    // the folders of other builds: never read again
    if let Ok(entries) = std::fs::read_dir(&dir) {
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().to_string();
            let is_build = name.len() == BUILD.len() && name.chars().all(|c| c.is_ascii_hexdigit());
            if is_build && name != BUILD && e.file_type().is_ok_and(|t| t.is_dir()) {
                let _ = std::fs::remove_dir_all(e.path());
            }
        }
    }
    Ok(Arc::new(DiskStore {
        entries: dir.join(BUILD),
        saved: AtomicU64::new(0),
        failed: AtomicU64::new(0),
    }))
}

/// Refuses a cache folder in the checked repository's work tree that git
/// knows files under, or that is reached through a link.
fn refuse_planted(dir: &Path, checked: &Path) -> Result<(), String> {
    let Some((workdir, _)) = crate::source::git::find_git_dir(checked) else {
        // no git to ask what the checkout holds: nothing under the checked
        // folder is trusted
        let inside = std::path::absolute(dir)
            .ok()
            .zip(checked.canonicalize().ok())
            .is_some_and(|(d, c)| {
                d.starts_with(&c) || d.canonicalize().is_ok_and(|d| d.starts_with(&c))
            });
        return if inside {
            Err(format!(
                "{} is inside {}, which is not a git repository: a cache there could be anyone's answers",
                dir.display(),
                checked.display()
            ))
        } else {
            Ok(())
        };
    };
    let workdir = workdir.canonicalize().unwrap_or(workdir);
    // the deepest part of `dir` that exists (links not followed), resolved
    let mut existing = dir.to_path_buf();
    let mut missing = Vec::new();
    while std::fs::symlink_metadata(&existing).is_err() {
        match (existing.file_name(), existing.parent()) {
            (Some(n), Some(p)) => {
                missing.push(n.to_os_string());
                existing = p.to_path_buf();
            }
            _ => return Ok(()),
        }
    }
    let resolved = existing
        .canonicalize()
        .map_err(|e| format!("{}: {e}", existing.display()))?;
    // no folder on the way may be a link in the work tree: a checkout
    // could point it anywhere
    if links_in(&existing, &workdir) {
        return Err(format!(
            "{} is reached through a link inside the repository, which a checkout could point anywhere",
            dir.display()
        ));
    }
    if !resolved.starts_with(&workdir) {
        return Ok(());
    }
    let mut rel = resolved
        .strip_prefix(&workdir)
        .unwrap_or(Path::new(""))
        .to_path_buf();
    for n in missing.iter().rev() {
        rel.push(n);
    }
    let rel = rel.to_string_lossy().replace('\\', "/");
    let git = crate::source::git::Git::discover(&workdir).map_err(|e| e.0)?;
    let under = |listing: &crate::source::git::Listing| {
        let folder = format!("{rel}/");
        listing
            .keys()
            .any(|p| rel.is_empty() || p.as_str() == rel || p.as_str().starts_with(&folder))
    };
    // what git cannot tell counts as known (refused)
    let in_index = git.index().map(|ix| under(&ix.listing())).unwrap_or(true);
    let in_head = match git.commit("HEAD") {
        Ok(c) => git
            .tree(c, "HEAD")
            .map(|t| under(&t.listing()))
            .unwrap_or(true),
        // a repository without commits yet
        Err(_) => false,
    };
    if in_index || in_head {
        return Err(format!(
            "git knows files under {}: a cache the repository holds could be anyone's answers (keep the cache out of git, or outside the checkout)",
            dir.display()
        ));
    }
    Ok(())
}

/// Whether `path` or a folder above it is a link that lies in `workdir`.
fn links_in(path: &Path, workdir: &Path) -> bool {
    path.ancestors().any(|a| {
        std::fs::symlink_metadata(a).is_ok_and(|m| m.file_type().is_symlink())
            && a.parent()
                .and_then(|p| p.canonicalize().ok())
                .is_some_and(|p| p.starts_with(workdir))
    })
}

impl DiskStore {
    fn entry(&self, key: &str) -> Option<(PathBuf, String)> {
        if key.len() < 3 || !key.chars().all(|c| c.is_ascii_hexdigit()) {
            return None;
        }
        Some((self.entries.join(&key[..2]), format!("{}.json", &key[2..])))
    }

    /// Entries written by this process, and writes that failed.
    pub fn written(&self) -> (u64, u64) {
        (self.saved.load(Relaxed), self.failed.load(Relaxed))
    }

    /// Keeps the folder within its bounds (after a run that wrote): the
    /// oldest entries go first.
    pub fn prune(&self) {
        if self.saved.load(Relaxed) > 0 {
            self.prune_to(MAX_ENTRIES, MAX_BYTES);
        }
    }

    /// Keeps at most `max_entries` entries and `max_bytes` bytes: past
    /// either, the oldest go until three quarters of both are left.
    fn prune_to(&self, max_entries: usize, max_bytes: u64) {
        let mut entries = Vec::new();
        let Ok(folders) = std::fs::read_dir(&self.entries) else {
            return;
        };
        for folder in folders.flatten() {
            let Ok(files) = std::fs::read_dir(folder.path()) else {
                continue;
            };
            for f in files.flatten() {
                if let Ok(m) = f.metadata() {
                    let when = m.modified().unwrap_or(std::time::UNIX_EPOCH);
                    entries.push((when, m.len(), f.path()));
                }
            }
        }
        let total: u64 = entries.iter().map(|e| e.1).sum();
        if entries.len() <= max_entries && total <= max_bytes {
            return;
        }
        entries.sort();
        let (mut count, mut bytes) = (entries.len(), total);
        for (_, len, path) in entries {
            if count <= three_quarters(max_entries as u64) as usize
                && bytes <= three_quarters(max_bytes)
            {
                break;
            }
            if std::fs::remove_file(&path).is_ok() {
                count -= 1;
                bytes -= len;
            }
        }
    }
}

/// The floor of three quarters of `n`, for any `n` (no overflow).
fn three_quarters(n: u64) -> u64 {
    n / 4 * 3 + n % 4 * 3 / 4
}

impl OutcomeStore for DiskStore {
    fn load(&self, key: &str) -> Option<Vec<u8>> {
        let (folder, name) = self.entry(key)?;
        let path = folder.join(name);
        // an entry is a plain file of ours: never a link, never huge
        let m = std::fs::symlink_metadata(&path).ok()?;
        if !m.is_file() || m.len() > MAX_ENTRY {
            return None;
        }
        std::fs::read(&path).ok()
    }

    fn save(&self, key: &str, bytes: &[u8]) {
        let Some((folder, name)) = self.entry(key) else {
            return;
        };
        let rel = format!(
            "{}/{name}",
            folder.file_name().unwrap_or_default().to_string_lossy()
        );
        match super::write::output_file(&self.entries_made(), &rel, bytes) {
            Ok(_) => self.saved.fetch_add(1, Relaxed),
            Err(_) => self.failed.fetch_add(1, Relaxed),
        };
    }
}

impl DiskStore {
    /// The build's folder, made when missing.
    fn entries_made(&self) -> PathBuf {
        if std::fs::symlink_metadata(&self.entries).is_err() {
            let _ = std::fs::create_dir(&self.entries);
        }
        self.entries.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_folder_keeps_within_its_bounds_and_the_newest_stay() {
        let d = tempfile::tempdir().unwrap();
        let checked = tempfile::tempdir().unwrap();
        // a cache inside a checked folder that is no git repository is
        // refused (nothing says the checkout did not plant it)
        assert!(open(&checked.path().join("c"), checked.path()).is_err());
        let store = open(&d.path().join("c"), checked.path()).unwrap();
        for i in 0..20u32 {
            store.save(&format!("{i:032x}"), format!("entry {i}").as_bytes());
            // distinct times, oldest first
            let (folder, name) = store.entry(&format!("{i:032x}")).unwrap();
            let f = std::fs::File::options()
                .write(true)
                .open(folder.join(name))
                .unwrap();
            f.set_modified(
                std::time::UNIX_EPOCH + std::time::Duration::from_secs(1000 + u64::from(i)),
            )
            .unwrap();
        }
        assert_eq!(store.written(), (20, 0));
        store.prune_to(10, u64::MAX);
        let left: Vec<u32> = (0..20u32)
            .filter(|i| store.load(&format!("{i:032x}")).is_some())
            .collect();
        assert_eq!(left, (13..20).collect::<Vec<_>>());
        // by size too
        store.prune_to(usize::MAX, 8 * 3);
        assert!(
            (0..20u32)
                .filter(|i| store.load(&format!("{i:032x}")).is_some())
                .count()
                <= 2
        );
        // keys that are not ours name no file
        assert!(store.load("../../etc/passwd").is_none());
        store.save("../x", b"no");
        assert_eq!(store.written(), (20, 0));
    }
}
