//! The work tree: files on disk, relative to a root directory.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use super::{EntryKind, Snapshot, SourceError};

/// Files under `root`. A repository's work tree ([`WorkTree::new`]) reads
/// only inside it: an absolute path or one that climbs out with `..` is
/// refused whoever asks, as a link out of it is. The files of a ytt-style
/// command line ([`WorkTree::command_line`]) may be anywhere a person
/// typed (`inspect -f ../lib`, `-f /abs/path`), as ytt allows.
pub struct WorkTree {
    root: PathBuf,
    /// Paths leave the root only when a person typed them.
    confined: bool,
    /// The root with every link resolved, once, and whether that is not
    /// the `Path` `root` is (a root named through a link).
    real_root: std::sync::OnceLock<Option<(PathBuf, bool)>>,
    /// With content ids from stat (see [`WorkTree::with_stat_ids`]).
    change_count: Option<ChangeCount>,
    /// Folders already resolved: whether each leads out of the root. A work
    /// tree lives for one run (or one request of the daemon), so a folder
    /// is resolved once per run instead of once per file in it.
    folders: std::sync::Mutex<std::collections::HashMap<String, bool>>,
    /// The walk of the whole tree, once per run (see [`Snapshot::kept_walk`]).
    walked: std::sync::OnceLock<super::Walk>,
}

/// How many times a file watcher saw a path (absolute) change: part of a work tree
/// file's content id, so that a rewrite within one tick of the clock (same
/// size, same times) still counts as a change.
pub type ChangeCount = std::sync::Arc<dyn Fn(&Path) -> u64 + Send + Sync>;

impl WorkTree {
    /// A repository's work tree: nothing outside `root` is read.
    pub fn new(root: impl Into<PathBuf>) -> WorkTree {
        WorkTree {
            root: root.into(),
            confined: true,
            real_root: std::sync::OnceLock::new(),
            change_count: None,
            folders: Default::default(),
            walked: std::sync::OnceLock::new(),
        }
    }

    /// The files of a command line (`inspect`, `render`), relative to
    /// `cwd`: absolute and `..` paths are the person's own, and are read.
    pub fn command_line(cwd: impl Into<PathBuf>) -> WorkTree {
        WorkTree {
            confined: false,
            ..WorkTree::new(cwd)
        }
    }

    /// The refusal of a path that is not the repository's own (absolute,
    /// or climbing out of the root), in a confined work tree.
    fn outside(&self, path: &str) -> Result<(), SourceError> {
        if !self.confined || super::is_confined(path) {
            return Ok(());
        }
        Err(SourceError {
            path: path.to_string(),
            message: format!(
                "'{path}' is outside the repository: yttcheck reads only files inside it"
            ),
            line: 0,
            column: 0,
            not_utf8: None,
        })
    }

    /// A work tree whose files have content ids made of what `stat` says
    /// (device, inode, size, modification and change times, in
    /// nanoseconds, as git's index trusts them) and of `change_count`, so a
    /// long-lived process can keep what it read while those stay the same.
    pub fn with_stat_ids(root: impl Into<PathBuf>, change_count: ChangeCount) -> WorkTree {
        WorkTree {
            change_count: Some(change_count),
            ..WorkTree::new(root)
        }
    }

    /// The id of what stat says of `path` (device, inode, mode, size,
    /// modification and change times, in nanoseconds, as git's index trusts
    /// them) and of the watcher's count, with the stat; only in a watched
    /// work tree, and only for what `wanted` accepts (a file, a folder).
    fn stat_id(
        &self,
        path: &str,
        wanted: fn(&fs::Metadata) -> bool,
    ) -> Option<(super::ContentId, fs::Metadata)> {
        use std::os::unix::fs::MetadataExt;
        let count = self.change_count.as_ref()?;
        self.outside(path).ok()?;
        let full = self.full(path);
        let md = fs::metadata(&full).ok()?;
        if !wanted(&md) {
            return None;
        }
        // (ids are compared only within the process that made them; a
        // fixed-seed foldhash is several times cheaper than SipHash, and a
        // check stats every file of the repository)
        use std::hash::BuildHasher;
        const IDENTITY: foldhash::quality::FixedState = foldhash::quality::FixedState::with_seed(1);
        const TIMES: foldhash::quality::FixedState = foldhash::quality::FixedState::with_seed(2);
        let mut id = [0u8; 20];
        let identity = IDENTITY.hash_one((md.dev(), md.ino(), md.mode()));
        id[..8].copy_from_slice(&identity.to_le_bytes());
        let times = TIMES.hash_one((
            md.size(),
            md.mtime(),
            md.mtime_nsec(),
            md.ctime(),
            md.ctime_nsec(),
        ));
        id[8..16].copy_from_slice(&times.to_le_bytes());
        let changes = match self.watched_root() {
            Some(watched) if !Path::new(path).is_absolute() => count(&joined(watched, path)),
            _ => count(&full),
        };
        id[16..].copy_from_slice(&(changes as u32).to_le_bytes());
        Some((id, md))
    }

    /// The root with every link resolved, once per work tree.
    fn real_root(&self) -> Option<&PathBuf> {
        self.resolved_root().map(|(real, _)| real)
    }

    fn resolved_root(&self) -> Option<&(PathBuf, bool)> {
        self.real_root
            .get_or_init(|| {
                let real = fs::canonicalize(&self.root).ok()?;
                let differs = real.as_path() != self.root.as_path();
                Some((real, differs))
            })
            .as_ref()
    }

    /// The root as the watcher names its paths, when the root is spelt
    /// otherwise: a watcher resolves the links of the folder it watches, so
    /// a check of `-C link/repo` asks the counts of the real paths, or it
    /// would never find one. (`/repo/.`, as the daemon spells its client's
    /// folder, is the same `Path`, and costs no second path per file.)
    fn watched_root(&self) -> Option<&PathBuf> {
        self.resolved_root()
            .filter(|(_, differs)| *differs)
            .map(|(real, _)| real)
    }

    /// Whether a relative `path` leads out of the root through a symlink
    /// (of the file or of a folder on the way): such a file is never read,
    /// whoever asks (discovery, the check, a code frame of a report).
    /// `is_link` is what `lstat` says of the file itself.
    fn escapes(&self, path: &str, is_link: bool) -> bool {
        // absolute and `..` paths come from the command line (`inspect -f
        // ../lib`, as ytt allows); repository paths never have them
        if Path::new(path).is_absolute() || path.split('/').any(|c| c == "..") {
            return false;
        }
        let Some(root) = self.real_root() else {
            return false;
        };
        // (a link into `.git` leaves the repository's content as surely:
        // git's config may hold the job's token)
        let leaves = |p: &str| match fs::canonicalize(self.full(p)) {
            Ok(real) => match real.strip_prefix(root) {
                Ok(inside) => super::repo_path::in_git_dir(&inside.to_string_lossy()),
                Err(_) => true,
            },
            Err(_) => false,
        };
        if is_link {
            return leaves(path);
        }
        // not a link itself: it leads out only if its folder does
        match path.rsplit_once('/') {
            Some((folder, _)) => self.folder_escapes(folder, &leaves),
            None => false,
        }
    }

    /// Whether a folder leads out of the root: when the folder above does,
    /// or when it is itself a link that does. One `lstat` per folder of the
    /// run (remembered), instead of resolving every piece of its path.
    fn folder_escapes(&self, folder: &str, leaves: &dyn Fn(&str) -> bool) -> bool {
        if let Some(known) = self
            .folders
            .lock()
            .ok()
            .and_then(|f| f.get(folder).copied())
        {
            return known;
        }
        let above_out = match folder.rsplit_once('/') {
            Some((above, _)) => self.folder_escapes(above, leaves),
            None => false,
        };
        let out = above_out
            || match fs::symlink_metadata(self.full(folder)) {
                Ok(md) if md.file_type().is_symlink() => leaves(folder),
                _ => false,
            };
        if let Ok(mut f) = self.folders.lock() {
            f.insert(folder.to_string(), out);
        }
        out
    }

    /// Where a repository path is on disk.
    pub fn path_of(&self, path: &str) -> PathBuf {
        self.full(path)
    }

    fn full(&self, path: &str) -> PathBuf {
        let p = Path::new(path);
        if p.is_absolute() {
            return p.to_path_buf();
        }
        joined(&self.root, path)
    }
}

/// `root` joined with a relative `path`, as `Path::join` gives it, by
/// concatenation: `join` parses both paths, and a daemon's check stats every
/// file of the repository.
fn joined(root: &Path, path: &str) -> PathBuf {
    let root = root.as_os_str();
    let mut full = std::ffi::OsString::with_capacity(root.len() + 1 + path.len());
    full.push(root);
    if !root.is_empty() && !root.as_encoded_bytes().ends_with(b"/") {
        full.push("/");
    }
    full.push(path);
    PathBuf::from(full)
}

/// Go's wording of common I/O errors (`lstat x: no such file or directory`).
pub fn go_io_error(op: &str, path: &str, e: &io::Error) -> String {
    let what = match e.kind() {
        io::ErrorKind::NotFound => "no such file or directory".to_string(),
        io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        _ => {
            let s = e.to_string();
            match s.find(" (os error") {
                Some(i) => s[..i].to_lowercase(),
                None => s,
            }
        }
    };
    format!("{op} {path}: {what}")
}

impl Snapshot for WorkTree {
    fn content_id(&self, path: &str) -> Option<super::ContentId> {
        self.stat_id(path, fs::Metadata::is_file).map(|(id, _)| id)
    }

    fn folder_id(&self, dir: &str) -> Option<(super::ContentId, std::time::SystemTime)> {
        use std::os::unix::fs::MetadataExt;
        // a name added, removed or renamed sets the folder's modification
        // and change times; a folder replaced has another inode
        let (id, md) = self.stat_id(dir, fs::Metadata::is_dir)?;
        let changed = std::time::UNIX_EPOCH
            + std::time::Duration::new(
                u64::try_from(md.ctime()).ok()?,
                u32::try_from(md.ctime_nsec()).ok()?,
            );
        Some((id, changed.max(md.modified().ok()?)))
    }

    fn kind(&self, path: &str) -> Result<EntryKind, SourceError> {
        self.outside(path)?;
        let md = fs::symlink_metadata(self.full(path)).map_err(|e| SourceError {
            path: path.to_string(),
            message: go_io_error("lstat", path, &e),

            line: 0,
            column: 0,
            not_utf8: None,
        })?;
        Ok(if md.file_type().is_symlink() {
            EntryKind::Symlink
        } else if md.is_dir() {
            EntryKind::Dir
        } else {
            EntryKind::File
        })
    }

    fn list(&self, dir: &str) -> Result<Vec<String>, SourceError> {
        // the listing with kinds costs no more (they come with it)
        Ok(self
            .list_kinds(dir)?
            .into_iter()
            .map(|(name, _)| name)
            .collect())
    }

    fn list_kinds(&self, dir: &str) -> Result<Vec<(String, super::EntryKindResult)>, SourceError> {
        let listing_error = |op: &str, e: &io::Error| SourceError {
            path: dir.to_string(),
            message: go_io_error(op, dir, e),
            line: 0,
            column: 0,
            not_utf8: None,
        };
        self.outside(dir)?;
        let rd = fs::read_dir(self.full(dir)).map_err(|e| listing_error("open", &e))?;
        let mut out = Vec::new();
        for entry in rd {
            let entry = entry.map_err(|e| listing_error("readdir", &e))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            // the type the listing carries (`d_type`); the standard library
            // asks `lstat` itself when the file system does not tell
            let kind = match entry.file_type() {
                Ok(t) if t.is_symlink() => Ok(EntryKind::Symlink),
                Ok(t) if t.is_dir() => Ok(EntryKind::Dir),
                Ok(_) => Ok(EntryKind::File),
                Err(e) => {
                    let path = super::child_path(dir, &name);
                    Err(SourceError {
                        message: go_io_error("lstat", &path, &e),
                        path,
                        line: 0,
                        column: 0,
                        not_utf8: None,
                    })
                }
            };
            out.push((name, kind));
        }
        out.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(out)
    }

    fn kept_walk(&self) -> Option<&std::sync::OnceLock<super::Walk>> {
        Some(&self.walked)
    }

    fn read(&self, path: &str) -> Result<Vec<u8>, SourceError> {
        self.outside(path)?;
        let full = self.full(path);
        let error = |message: String| SourceError {
            path: path.to_string(),
            message,
            line: 0,
            column: 0,
            not_utf8: None,
        };
        // most files are plain files in folders that stay in the root:
        // opened without following a link, and asked their kind and size
        // once open (one lookup of the path instead of two, and no read
        // past the end); a link, anything but a plain file, or an error
        // takes the careful way below, which says what it is
        if !self.escapes(path, false) {
            if let Some((file, size)) = open_plain_file(&full) {
                if size > super::MAX_FILE_SIZE {
                    return Err(error(super::too_large(path, Some(size))));
                }
                // a read that fails this way (a file system that honours
                // O_NONBLOCK for files, say) is tried again the careful way,
                // which says what is wrong
                if let Ok(bytes) = read_known_size(file, size as usize) {
                    return Ok(bytes);
                }
            }
        }
        let lstat = fs::symlink_metadata(&full).ok();
        let is_link = lstat.as_ref().is_some_and(|m| m.file_type().is_symlink());
        if self.escapes(path, is_link) {
            return Err(error(format!(
                "'{path}' is a symlink out of the repository or into its .git folder: it is never read (such links are refused as a security measure)"
            )));
        }
        // a device, a pipe or a socket is never read: /dev/zero never ends,
        // and opening a FIFO blocks (ytt refuses them too)
        let stat = if is_link || lstat.is_none() {
            fs::metadata(&full).ok()
        } else {
            lstat
        };
        let size = stat.as_ref().filter(|md| md.is_file()).map(|md| md.len());
        match stat {
            Some(md) if !md.is_file() && !md.is_dir() => {
                return Err(error(format!(
                    "Expected file '{path}' to be a regular file"
                )))
            }
            Some(md) if md.len() > super::MAX_FILE_SIZE => {
                return Err(error(super::too_large(path, Some(md.len()))));
            }
            _ => {}
        }
        let file = fs::File::open(&full).map_err(|e| error(go_io_error("open", path, &e)))?;
        super::read_bounded(file, size).map_err(|e| match e {
            super::BoundedReadError::TooLarge => error(super::too_large(path, None)),
            super::BoundedReadError::Io(e) => error(go_io_error("read", path, &e)),
        })
    }

    fn resolve_symlink(&self, path: &str) -> Option<String> {
        self.outside(path).ok()?;
        let full = self.full(path);
        let target = fs::canonicalize(&full).ok()?;
        let root = fs::canonicalize(&self.root).ok()?;
        let rel = target.strip_prefix(&root).ok()?.to_string_lossy();
        if self.confined && super::repo_path::in_git_dir(&rel) {
            return None;
        }
        Some(rel.into_owned())
    }

    fn describe(&self) -> String {
        "work tree".to_string()
    }
}

/// `full` opened, when it is a plain file, with its size: opened without
/// following a link (`O_NOFOLLOW`) and without waiting (`O_NONBLOCK`: a
/// FIFO would otherwise block the open), then asked its kind and size
/// (`fstat`). `None` for anything else (a link, a folder, a FIFO, a file
/// that is not there), which the caller reads the careful way.
fn open_plain_file(full: &Path) -> Option<(fs::File, u64)> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(full)
        .ok()?;
    let md = file.metadata().ok()?;
    md.is_file().then_some((file, md.len()))
}

/// Reads up to `size` bytes (what `fstat` said), stopping at the end: as
/// git reads a file it has stat'ed, without a last read to find the end.
fn read_known_size(mut file: fs::File, size: usize) -> io::Result<Vec<u8>> {
    use std::io::Read;
    let mut buf = vec![0u8; size];
    let mut filled = 0;
    while filled < size {
        match file.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    buf.truncate(filled);
    Ok(buf)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    /// A file's full path is the root joined with it, as `Path::join`
    /// makes it, whatever the root looks like.
    #[test]
    fn a_full_path_is_the_joined_path() {
        for root in ["", "/", "r", "r/", "/abs/root", "/abs/root/", "./rel//x"] {
            let tree = WorkTree::new(root);
            for path in ["", "a", "a/b.yml", "a/./b", "a//b", "a/", "/abs/x", "../up"] {
                // (as bytes: `PathBuf`'s equality would take `r//a` for
                // `r/a`, and the path is what is stat'ed)
                let joined = Path::new(root).join(path);
                assert_eq!(
                    tree.full(path).as_os_str(),
                    joined.as_os_str(),
                    "{root:?} {path:?}"
                );
            }
        }
    }

    /// A file is refused when any folder on its way is a link out of the
    /// root, however deep below that folder it is, and read when the links
    /// on its way stay inside.
    #[test]
    fn a_folder_link_out_of_the_root_refuses_every_file_below_it() {
        let outside = tempfile::tempdir().unwrap();
        fs::create_dir_all(outside.path().join("sub")).unwrap();
        fs::write(outside.path().join("secret.yml"), "a: 1\n").unwrap();
        fs::write(outside.path().join("sub/secret.yml"), "a: 1\n").unwrap();
        let root = tempfile::tempdir().unwrap();
        let r = root.path();
        fs::create_dir_all(r.join("real/deeper")).unwrap();
        fs::write(r.join("real/x.yml"), "x: 1\n").unwrap();
        fs::write(r.join("real/deeper/y.yml"), "y: 1\n").unwrap();
        symlink(outside.path(), r.join("out")).unwrap();
        symlink(r.join("real"), r.join("inner")).unwrap();
        symlink(outside.path(), r.join("real/deeper/out2")).unwrap();
        let tree = WorkTree::new(r);
        for refused in [
            "out/secret.yml",
            "out/sub/secret.yml",
            "real/deeper/out2/secret.yml",
            "inner/deeper/out2/sub/secret.yml",
        ] {
            // twice: the second answer comes from what the first remembered
            for _ in 0..2 {
                let e = tree.read(refused).unwrap_err();
                assert!(
                    e.message.contains("symlink out of the repository"),
                    "{refused}: {e}"
                );
            }
        }
        for read in [
            "real/x.yml",
            "inner/x.yml",
            "inner/deeper/y.yml",
            "real/deeper/y.yml",
        ] {
            assert!(tree.read(read).is_ok(), "{read}");
        }
    }

    /// Every kind of entry reads as it did before plain files had their
    /// own way in: a plain file whole, a link inside by its target, a link
    /// out refused, a FIFO and a folder refused without blocking, a file
    /// over the limit refused with its size before it is read, and an
    /// empty file empty.
    #[test]
    fn each_kind_of_entry_reads_as_before() {
        let outside = tempfile::tempdir().unwrap();
        fs::write(outside.path().join("secret.yml"), "a: 1\n").unwrap();
        let root = tempfile::tempdir().unwrap();
        let r = root.path();
        fs::write(r.join("plain.yml"), "p: 1\n").unwrap();
        fs::write(r.join("empty.yml"), "").unwrap();
        fs::create_dir(r.join("folder")).unwrap();
        symlink(r.join("plain.yml"), r.join("inside.yml")).unwrap();
        symlink(outside.path().join("secret.yml"), r.join("out.yml")).unwrap();
        let fifo = std::ffi::CString::new(r.join("fifo.yml").to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
        let big = fs::File::create(r.join("big.yml")).unwrap();
        big.set_len(super::super::MAX_FILE_SIZE + 1).unwrap();
        let tree = WorkTree::new(r);
        assert_eq!(tree.read("plain.yml").unwrap(), b"p: 1\n");
        assert_eq!(tree.read("empty.yml").unwrap(), b"");
        assert_eq!(tree.read("inside.yml").unwrap(), b"p: 1\n");
        let out = tree.read("out.yml").unwrap_err();
        assert!(
            out.message.contains("symlink out of the repository"),
            "{out}"
        );
        let fifo = tree.read("fifo.yml").unwrap_err();
        assert!(fifo.message.contains("to be a regular file"), "{fifo}");
        assert!(tree.read("folder").is_err());
        let big = tree.read("big.yml").unwrap_err();
        assert!(
            big.message
                .contains(&format!("is {} bytes", super::super::MAX_FILE_SIZE + 1)),
            "{big}"
        );
        assert!(tree.read("missing.yml").is_err());
    }
}
