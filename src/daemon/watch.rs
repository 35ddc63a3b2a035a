//! The daemon's file watcher (notify): counts the changes it sees per path,
//! which become part of work tree files' content ids, so a file rewritten
//! within one tick of the clock (same size, same times) is still read
//! again; and tells the server when `.yttcheck.yml` changed.
//!
//! The watcher is not what makes answers correct — every work tree read is
//! checked against the file's stat, as git's index does — it closes the gap
//! stat alone leaves. Events inside `.git` are ignored (the index and trees
//! are read by content id).

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};

use notify::{RecursiveMode, Watcher as _};

use crate::source::worktree::ChangeCount;

#[derive(Default)]
struct Seen {
    counts: Mutex<Counts>,
    total: AtomicU64,
    config_changed: AtomicBool,
}

/// The changes seen, by path.
#[derive(Default)]
struct Counts {
    by_path: HashMap<PathBuf, u64>,
    /// The file names of the paths in `by_path`: a check asks the count of
    /// every file it stats, nearly all of them never changed, and a path
    /// whose name no changed path has is answered without hashing it
    /// whole (a `Path` hashes component by component).
    names: foldhash::HashSet<OsString>,
}

impl Counts {
    fn add(&mut self, path: PathBuf) {
        if let Some(name) = path.file_name() {
            if !self.names.contains(name) {
                self.names.insert(name.to_os_string());
            }
        }
        *self.by_path.entry(path).or_insert(0) += 1;
    }

    fn of(&self, path: &Path) -> u64 {
        if self.by_path.is_empty() {
            return 0;
        }
        // (a path without a name, `/` or one ending in `..`, is looked up)
        if path.file_name().is_some_and(|n| !self.names.contains(n)) {
            return 0;
        }
        self.by_path.get(path).copied().unwrap_or(0)
    }
}

/// Whether an event can change what a path holds (created, written,
/// renamed, removed), as opposed to opening or reading it.
fn changes_content(kind: &notify::EventKind) -> bool {
    use notify::event::{AccessKind, AccessMode, EventKind};
    match kind {
        // a file closed after writing is the end of a write
        EventKind::Access(AccessKind::Close(AccessMode::Write)) => true,
        EventKind::Access(_) => false,
        _ => true,
    }
}

pub struct Watcher {
    seen: Arc<Seen>,
    // kept alive: dropping it stops the watch
    _watcher: Option<notify::RecommendedWatcher>,
}

impl Watcher {
    /// Watches `root` recursively. A watcher that cannot start (too many
    /// watches) is no error: stat still catches every change but those
    /// within one clock tick.
    pub fn start(root: &Path) -> Result<Watcher, String> {
        let seen = Arc::new(Seen::default());
        let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
        let config = root.join(crate::workspace::CONFIG_FILE);
        let git = root.join(".git");
        let s = seen.clone();
        let watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
            let Ok(event) = event else { return };
            // reading a file is no change: inotify reports opens and closes
            // after reading (the daemon's own reads, on every request), and
            // counting them made every read file's content id new, and
            // `.yttcheck.yml` look edited at every check
            if !changes_content(&event.kind) {
                return;
            }
            for path in event.paths {
                if path.starts_with(&git) {
                    continue;
                }
                if path == config {
                    s.config_changed.store(true, Relaxed);
                }
                s.counts.lock().expect("watcher").add(path);
                s.total.fetch_add(1, Relaxed);
            }
        })
        .and_then(|mut w| w.watch(&root, RecursiveMode::Recursive).map(|_| w));
        let watcher = match watcher {
            Ok(w) => Some(w),
            Err(e) => {
                // the daemon's log (its stderr): no raw control character
                eprintln!(
                    "{}",
                    crate::escape::control(&format!(
                        "yttcheck daemon: warning: cannot watch {} ({e}); changes are seen by stat only",
                        root.display()
                    ))
                );
                None
            }
        };
        Ok(Watcher {
            seen,
            _watcher: watcher,
        })
    }

    /// Changes seen so far.
    pub fn changes(&self) -> u64 {
        self.seen.total.load(Relaxed)
    }

    /// Whether `.yttcheck.yml` changed since the last call.
    pub fn config_changed(&self) -> bool {
        self.seen.config_changed.swap(false, Relaxed)
    }

    /// The count of changes to a path, for work tree content ids.
    pub fn change_count(&self) -> ChangeCount {
        let seen = self.seen.clone();
        Arc::new(move |path: &Path| seen.counts.lock().expect("watcher").of(path))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A count is found whatever way the path is spelt (`.` pieces, as the
    /// daemon's root `/repo/.` gives), and a path whose name changed
    /// nowhere, or changed elsewhere, counts nothing.
    #[test]
    fn a_change_is_counted_for_its_path_only() {
        let mut c = Counts::default();
        assert_eq!(c.of(Path::new("/repo/envs/a.yml")), 0);
        c.add(PathBuf::from("/repo/envs/a.yml"));
        c.add(PathBuf::from("/repo/envs/a.yml"));
        c.add(PathBuf::from("/repo/lib/b.yml"));
        assert_eq!(c.of(Path::new("/repo/envs/a.yml")), 2);
        assert_eq!(c.of(Path::new("/repo/./envs/a.yml")), 2);
        assert_eq!(c.of(Path::new("/repo/envs/a.yml/.")), 2);
        assert_eq!(c.of(Path::new("/repo/./lib/b.yml")), 1);
        // the same name in another folder, and another name
        assert_eq!(c.of(Path::new("/repo/other/a.yml")), 0);
        assert_eq!(c.of(Path::new("/repo/envs/c.yml")), 0);
        assert_eq!(c.of(Path::new("/")), 0);
    }

    /// A check whose folder is named through a link (`-C link/repo`) finds
    /// the changes the watcher saw: the watcher names the real paths, and
    /// the work tree asks by them, so the count is part of the file's
    /// content id however the folder is spelt.
    #[test]
    fn a_folder_named_through_a_link_finds_its_changes() {
        use crate::source::worktree::WorkTree;
        use crate::source::Snapshot as _;
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("repo");
        std::fs::create_dir(&real).unwrap();
        std::os::unix::fs::symlink(&real, dir.path().join("link")).unwrap();
        let watcher = Watcher::start(&real).unwrap();
        std::fs::write(real.join("a.yml"), "a: 1\n").unwrap();
        let started = std::time::Instant::now();
        while watcher.changes() == 0 {
            assert!(
                started.elapsed() < std::time::Duration::from_secs(10),
                "the watcher saw no change"
            );
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        let count = |root: PathBuf| {
            let tree = WorkTree::with_stat_ids(root, watcher.change_count());
            let id = tree.content_id("a.yml").expect("a stat id");
            u32::from_le_bytes(id[16..].try_into().unwrap())
        };
        let seen = count(real.clone());
        assert!(seen > 0);
        assert_eq!(count(dir.path().join("link")), seen);
        assert_eq!(count(real.join(".")), seen);
    }
}
