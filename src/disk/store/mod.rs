//! The persistent result cache (`--cache-dir`): each pair's outcome,
//! kept between runs under a key of everything it read (see
//! [`crate::check::memo`]), so a re-run on an unchanged repository
//! evaluates nothing and one changed values file costs what its pairs cost.
//!
//! The folder is the user's to name, and safe to delete. Entries live in
//! one file ([`pack`]) in a sub-folder named after the build of yttcheck
//! that wrote them (`DIR/<build>/results.pack`): another build never reads
//! them, and the first run of a new build removes the old builds' folders.
//! The pack is read once at the first lookup and written once at the end
//! of a run that added to it, through [`crate::disk::write::output_file`] (a
//! temporary file renamed over it: a reader never sees half a pack; no
//! link is followed). Two runs at once each write what they used; the
//! last one's pack stays, and the other's new entries are computed again
//! next time. The pack is bounded: the entries of the run that writes it
//! come first, then older entries while the pack stays under
//! [`MAX_BYTES`].
//!
//! A cache is trusted: an entry is an answer. So a folder the checked
//! repository could have planted is refused: inside the repository's work
//! tree, no file under it may be known to git, and no folder on the way may
//! be a link (a pull request cannot commit its own "clean" results, or
//! point the cache at a folder of the runner). A folder that holds other
//! things than a yttcheck cache is refused too, so that removing old
//! builds never deletes what is not ours.

mod pack;

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex, OnceLock};

use crate::check::memo::OutcomeStore;
use pack::Pack;

/// The most bytes the pack keeps (a pair's entry is under a KiB to a few
/// KiB: tens of thousands of pairs' results).
pub const MAX_BYTES: usize = 64 << 20;

/// The pack's name in the build's folder.
const PACK_NAME: &str = "results.pack";

/// The tag that marks a cache folder (backup tools skip it:
/// <https://bford.info/cachedir/>).
const TAG_NAME: &str = "CACHEDIR.TAG";
const TAG: &str = "Signature: 8a477f597d28d172789f06886806bc55\n# This folder is yttcheck's result cache (--cache-dir); it is safe to delete.\n";

/// This build's name (see `build.rs`).
const BUILD: &str = env!("YTTCHECK_BUILD_ID");

pub struct DiskStore {
    /// `DIR/<build>`.
    entries: PathBuf,
    pack: OnceLock<Pack>,
    used: Mutex<Used>,
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
            crate::disk::write::output_file(&dir, name, text.as_bytes())
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
        pack: OnceLock::new(),
        used: Mutex::default(),
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
    // a path git knows at `rel`, under it, or above it (a submodule's
    // folder whose files cannot be read); compared without case, since a
    // checkout on a file system that ignores case puts `.Cache/x` in
    // `.cache`
    let rel = rel.to_lowercase();
    let known = |p: &str| {
        let p = p.to_lowercase();
        rel.is_empty()
            || p == rel
            || p.strip_prefix(rel.as_str())
                .is_some_and(|r| r.starts_with('/'))
            || rel
                .strip_prefix(p.as_str())
                .is_some_and(|r| r.starts_with('/'))
    };
    let under = |snapshot: &crate::source::git::GitSnapshot| {
        snapshot.paths().any(|p| known(p.as_str()))
            || snapshot.unreadable_folders().any(|p| known(p.as_str()))
    };
    // what git cannot tell counts as known (refused)
    let in_index = git.index().map(|ix| under(&ix)).unwrap_or(true);
    let in_head = match git.commit("HEAD") {
        Ok(c) => git.tree(c, "HEAD").map(|t| under(&t)).unwrap_or(true),
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
    /// The pack, read on the first lookup.
    fn pack(&self) -> &Pack {
        self.pack.get_or_init(|| {
            let path = self.entries.join(PACK_NAME);
            // the pack is a plain file of ours: opened without following a
            // link, and read no further than the bound
            Pack::parse(read_plain(&path, MAX_BYTES as u64).unwrap_or_default())
        })
    }

    /// Entries written by this process (0 or 1: the pack), and writes that
    /// failed.
    pub fn written(&self) -> (u64, u64) {
        (self.saved.load(Relaxed), self.failed.load(Relaxed))
    }

    /// Writes the pack again when this run added to it or found it
    /// wanting: the entries this run used first, then the older ones that
    /// still fit in [`MAX_BYTES`].
    pub fn finish(&self) {
        self.finish_within(MAX_BYTES);
    }

    fn finish_within(&self, max_bytes: usize) {
        let used = std::mem::take(&mut *self.used.lock().expect("cache"));
        if !used.changed {
            return;
        }
        let pack = self.pack();
        let this_run = used.order.iter().filter_map(|key| {
            let bytes = match used.new.get(key) {
                Some(b) => &b[..],
                None => pack.get(key)?,
            };
            Some((key.as_str(), bytes))
        });
        let older = pack
            .entries()
            .filter(|(k, _)| !used.new.contains_key(*k) && !used.seen.contains(*k));
        let bytes = pack::encode(this_run.chain(older), max_bytes);
        match crate::disk::write::output_file(&self.entries_made(), PACK_NAME, &bytes) {
            Ok(_) => self.saved.fetch_add(1, Relaxed),
            Err(_) => self.failed.fetch_add(1, Relaxed),
        };
    }

    /// The build's folder, made when missing.
    fn entries_made(&self) -> PathBuf {
        if std::fs::symlink_metadata(&self.entries).is_err() {
            let _ = std::fs::create_dir(&self.entries);
        }
        self.entries.clone()
    }
}

/// The bytes of the plain file at `path`, when it is one (not a link, not a
/// device or a pipe) of at most `max` bytes.
fn read_plain(path: &Path, max: u64) -> Option<Vec<u8>> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::File::options()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
        .ok()?;
    let m = file.metadata().ok()?;
    if !m.is_file() || m.len() > max {
        return None;
    }
    let mut bytes = Vec::with_capacity(m.len() as usize);
    file.take(max + 1).read_to_end(&mut bytes).ok()?;
    (bytes.len() as u64 <= max).then_some(bytes)
}

/// What a run asked of the store and gave it.
#[derive(Default)]
struct Used {
    /// Keys found or saved, in the order they were.
    order: Vec<String>,
    seen: HashSet<String>,
    /// Entries saved by this run.
    new: HashMap<String, Vec<u8>>,
    /// Whether the pack should be written again.
    changed: bool,
}

impl Used {
    /// Notes `key` as this run's, once.
    fn mark(&mut self, key: &str) {
        if !self.seen.contains(key) {
            self.seen.insert(key.to_string());
            self.order.push(key.to_string());
        }
    }
}

impl OutcomeStore for DiskStore {
    fn load(&self, key: &str) -> Option<Vec<u8>> {
        let bytes = self.pack().get(key)?.to_vec();
        let mut used = self.used.lock().expect("cache");
        used.mark(key);
        Some(bytes)
    }

    fn keep(&self, key: &str) {
        if self.pack().get(key).is_some() {
            let mut used = self.used.lock().expect("cache");
            used.mark(key);
        }
    }

    fn save(&self, key: &str, bytes: &[u8]) {
        let mut used = self.used.lock().expect("cache");
        used.mark(key);
        used.new.insert(key.to_string(), bytes.to_vec());
        used.changed = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(i: u32) -> String {
        format!("{i:032x}")
    }

    #[test]
    fn a_run_writes_one_pack_and_the_next_reads_it_newest_first() {
        let d = tempfile::tempdir().unwrap();
        let checked = tempfile::tempdir().unwrap();
        // a cache inside a checked folder that is no git repository is
        // refused (nothing says the checkout did not plant it)
        assert!(open(&checked.path().join("c"), checked.path()).is_err());
        let dir = d.path().join("c");
        let store = open(&dir, checked.path()).unwrap();
        for i in 0..4 {
            assert_eq!(store.load(&key(i)), None);
            store.save(&key(i), format!("entry {i}").as_bytes());
        }
        store.finish();
        assert_eq!(store.written(), (1, 0));

        // a run that only reads writes nothing
        let store = open(&dir, checked.path()).unwrap();
        assert_eq!(store.load(&key(2)).as_deref(), Some(&b"entry 2"[..]));
        assert_eq!(store.load("../../etc/passwd"), None);
        store.finish();
        assert_eq!(store.written(), (0, 0));

        // a run that adds: its own entries first, then the older ones that
        // fit (here: one of them)
        let store = open(&dir, checked.path()).unwrap();
        assert!(store.load(&key(3)).is_some());
        store.save(&key(9), b"entry 9");
        store.finish_within(160);
        let store = open(&dir, checked.path()).unwrap();
        let kept: Vec<String> = store.pack().entries().map(|(k, _)| k.to_string()).collect();
        assert_eq!(kept, [key(3), key(9), key(0)]);

        // an entry kept without being read stays with this run's entries
        let store = open(&dir, checked.path()).unwrap();
        store.keep(&key(0));
        store.save(&key(10), b"entry 10");
        store.finish_within(160);
        let store = open(&dir, checked.path()).unwrap();
        let kept: Vec<String> = store.pack().entries().map(|(k, _)| k.to_string()).collect();
        assert_eq!(kept, [key(0), key(10), key(3)]);

        // a link in the pack's place is not followed
        let pack = dir.join(BUILD).join(PACK_NAME);
        let elsewhere = d.path().join("elsewhere.pack");
        std::fs::rename(&pack, &elsewhere).unwrap();
        std::os::unix::fs::symlink(&elsewhere, &pack).unwrap();
        let store = open(&dir, checked.path()).unwrap();
        assert_eq!(store.load(&key(0)), None);
        assert!(read_plain(&elsewhere, 10).is_none(), "past the bound");
        assert!(read_plain(&elsewhere, 1 << 20).is_some());
    }
}
