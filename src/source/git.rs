//! Git snapshots, read with gix: the tree of any revision and the index
//! (what is staged). Nothing is checked out and nothing is written: the work
//! tree and the index stay as they are.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use gix::ObjectId;

use super::repo_path::walk;
use super::worktree::WorkTree;
use super::{EntryKind, RepoPath, Snapshot, SourceError};

/// A git problem, worded for someone running CI: what happened and what to do.
#[derive(Debug, Clone)]
pub struct GitError(pub String);

impl std::fmt::Display for GitError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}

const SHALLOW_HINT: &str = "this is a shallow clone (GitHub's actions/checkout fetches one commit by default): fetch the history, e.g. `fetch-depth: 0` in actions/checkout, or `git fetch --unshallow`";

/// The files of commits read so far, by commit id (a commit never changes,
/// so neither do its files): a long-lived process (the daemon) reads HEAD's
/// tree once, not on every `--changed-since HEAD`.
type Files = std::sync::Arc<Listed>;
static TREES: std::sync::Mutex<BTreeMap<ObjectId, Files>> = std::sync::Mutex::new(BTreeMap::new());
const TREES_KEPT: usize = 16;

/// The work tree and git dir of the repository holding `dir`, found the
/// quick way (the nearest `.git` folder, or a `.git` file's `gitdir:`),
/// without opening the repository: a client that only needs to know where
/// the repository's daemon lives saves the milliseconds gix takes to read
/// the configuration. `None` when it cannot tell (then open it with gix).
pub fn find_git_dir(dir: &Path) -> Option<(PathBuf, PathBuf)> {
    let mut d = dir.canonicalize().ok()?;
    loop {
        let dot = d.join(".git");
        match std::fs::symlink_metadata(&dot) {
            Ok(m) if m.is_dir() => return Some((d, dot)),
            Ok(m) if m.is_file() => {
                let text = std::fs::read_to_string(&dot).ok()?;
                let target = text.strip_prefix("gitdir:")?.trim();
                let git_dir = d.join(target).canonicalize().ok()?;
                return Some((d, git_dir));
            }
            Ok(_) => return None,
            Err(_) => {}
        }
        if !d.pop() {
            return None;
        }
    }
}

/// A repository yttcheck reads from.
pub struct Git {
    repo: gix::ThreadSafeRepository,
    workdir: PathBuf,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    File,
    Link,
}

impl Kind {
    /// What an index entry is to us: a file or a link (submodules and
    /// sparse folders are not ours).
    fn of_index_entry(e: &gix::index::Entry) -> Option<Kind> {
        match e.mode {
            gix::index::entry::Mode::SYMLINK => Some(Kind::Link),
            gix::index::entry::Mode::FILE | gix::index::entry::Mode::FILE_EXECUTABLE => {
                Some(Kind::File)
            }
            _ => None,
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct Entry {
    id: ObjectId,
    kind: Kind,
    /// Which repository holds the blob: 0 is the repository itself, the
    /// others are submodules (see [`Listed::repos`]).
    repo: u16,
}

/// A submodule met while listing: its path and the commit recorded for it.
type Gitlink = (RepoPath, ObjectId);

/// The files of a tree or an index, submodules' included.
#[derive(Clone)]
struct Listed {
    entries: BTreeMap<RepoPath, Entry>,
    /// The submodules whose files are listed, by [`Entry::repo`] - 1.
    repos: Vec<gix::ThreadSafeRepository>,
    /// Submodules whose recorded commit cannot be read (not initialised,
    /// not fetched): the folder, and why. Listing it is an error that says
    /// so, which the check reports as a finding of that folder.
    unreadable: BTreeMap<RepoPath, String>,
}

/// Submodules inside submodules are read this deep.
const SUBMODULE_DEPTH: usize = 4;

/// The files of a revision or of the index.
pub struct GitSnapshot {
    repo: gix::ThreadSafeRepository,
    submodules: Vec<gix::ThreadSafeRepository>,
    entries: BTreeMap<RepoPath, Entry>,
    unreadable: BTreeMap<RepoPath, String>,
    dirs: BTreeSet<RepoPath>,
    description: String,
}

pub use super::listing::{changed_paths, Listing};

impl Git {
    /// The repository holding `dir`.
    pub fn discover(dir: &Path) -> Result<Git, GitError> {
        let mut repo = gix::discover(dir).map_err(|e| {
            GitError(format!(
                "{} is not inside a git repository ({e}); --staged, --rev, --changed-since and diff need one",
                dir.display()
            ))
        })?;
        // the index is read as git reads it, without hashing the whole file
        // to compare with its checksum (git does that in `fsck` only): an
        // eighth of a daemon's hook. (In memory: nothing is written.)
        let mut config = repo.config_snapshot_mut();
        let _ = config.set_value(&gix::config::tree::Index::SKIP_HASH, "true");
        let _ = config.commit();
        let workdir = repo
            .workdir()
            .map(Path::to_path_buf)
            .ok_or_else(|| GitError("the repository is bare: yttcheck needs a work tree".into()))?;
        Ok(Git {
            repo: repo.into_sync(),
            workdir,
        })
    }

    /// The root of the work tree.
    pub fn workdir(&self) -> &Path {
        &self.workdir
    }

    /// Whether the clone is shallow (`fetch-depth: 1`, the default of actions/checkout).
    pub fn is_shallow(&self) -> bool {
        self.repo.to_thread_local().is_shallow().unwrap_or(false)
    }

    fn unknown(&self, rev: &str, why: String) -> GitError {
        let mut m = format!("unknown revision '{rev}': {why}");
        if self.is_shallow() {
            m.push_str(&format!("; {SHALLOW_HINT}"));
        } else if rev.contains('/') {
            m.push_str(&format!(
                "; is the remote branch fetched? (`git fetch origin {}`)",
                rev.split_once('/').map(|x| x.1).unwrap_or(rev)
            ));
        }
        GitError(m)
    }

    /// The commit a revision names (`HEAD`, `origin/main`, a SHA, `HEAD~3`).
    pub fn commit(&self, rev: &str) -> Result<ObjectId, GitError> {
        let repo = self.repo.to_thread_local();
        if rev == "HEAD" || rev.starts_with("HEAD~") || rev.starts_with("HEAD^") {
            if let Ok(head) = repo.head() {
                if head.is_unborn() {
                    return Err(GitError(
                        "the repository has no commits yet: --rev, --changed-since and diff --base need one (--staged works)".into(),
                    ));
                }
            }
        }
        let id = repo
            .rev_parse_single(rev)
            .map_err(|e| self.unknown(rev, e.to_string()))?;
        let commit = id
            .object()
            .map_err(|e| self.unknown(rev, e.to_string()))?
            .peel_to_commit()
            .map_err(|e| GitError(format!("'{rev}' does not name a commit: {e}")))?;
        Ok(commit.id)
    }

    /// The best common ancestor of `rev` and `HEAD` (what a pull request is
    /// compared with).
    pub fn merge_base_with_head(&self, rev: &str) -> Result<ObjectId, GitError> {
        self.merge_base(rev, "HEAD")
    }

    /// The best common ancestor of two revisions.
    pub fn merge_base(&self, rev: &str, other: &str) -> Result<ObjectId, GitError> {
        let base = self.commit(rev)?;
        let head = self.commit(other)?;
        let repo = self.repo.to_thread_local();
        match repo.merge_base(base, head) {
            Ok(Some(id)) => Ok(id.detach()),
            Ok(None) => Err(GitError(format!(
                "'{rev}' and {other} have no common ancestor{}",
                if self.is_shallow() {
                    format!("; {SHALLOW_HINT}")
                } else {
                    String::new()
                }
            ))),
            Err(e) => Err(GitError(format!(
                "cannot find the merge base of '{rev}' and {other}: {e}{}",
                if self.is_shallow() {
                    format!("; {SHALLOW_HINT}")
                } else {
                    String::new()
                }
            ))),
        }
    }

    /// The files of a commit.
    pub fn tree(&self, commit: ObjectId, description: &str) -> Result<GitSnapshot, GitError> {
        if let Some(listed) = TREES.lock().ok().and_then(|t| t.get(&commit).cloned()) {
            return Ok(GitSnapshot::new(
                self.repo.clone(),
                (*listed).clone(),
                description.to_string(),
            ));
        }
        let repo = self.repo.to_thread_local();
        let tree_id = repo
            .find_object(commit)
            .map_err(|e| GitError(format!("cannot read commit {commit}: {e}")))?
            .peel_to_commit()
            .map_err(|e| GitError(format!("cannot read commit {commit}: {e}")))?
            .tree_id()
            .map_err(|e| GitError(format!("cannot read the tree of {commit}: {e}")))?
            .detach();
        // the index's cached tree ids say which folders it holds exactly as
        // the commit does (after a commit, all of them): those are listed
        // from the index, and only the other folders' tree objects are read
        let index = repo.index_or_empty().ok();
        let cached: Option<&gix::index::File> = index
            .as_deref()
            .map(|ix| &**ix)
            .filter(|ix| !ix.is_sparse());
        let mut entries = BTreeMap::new();
        let mut gitlinks = Vec::new();
        let mut walk = TreeWalk {
            repo: &repo,
            index: cached,
            path: Vec::new(),
            entries: &mut entries,
            gitlinks: &mut gitlinks,
            repo_index: 0,
        };
        walk.visit(tree_id, cached.and_then(|ix| ix.tree()))
            .map_err(|e| GitError(format!("cannot read the tree of {commit}: {e}")))?;
        let listed = self.with_submodules(entries, gitlinks);
        // a submodule that could not be read may be fetched later: only a
        // listing that is whole is kept
        if listed.unreadable.is_empty() {
            if let Ok(mut trees) = TREES.lock() {
                if trees.len() >= TREES_KEPT {
                    trees.clear();
                }
                trees.insert(commit, std::sync::Arc::new(listed.clone()));
            }
        }
        Ok(GitSnapshot::new(
            self.repo.clone(),
            listed,
            description.to_string(),
        ))
    }

    /// The files of the index: exactly what would be committed.
    pub fn index(&self) -> Result<GitSnapshot, GitError> {
        let repo = self.repo.to_thread_local();
        let index = repo
            .index_or_empty()
            .map_err(|e| GitError(format!("cannot read the index: {e}")))?;
        self.snapshot_of_index(&index)
    }

    /// The files of another index file: the temporary index `git commit
    /// FILE` gives its hooks in `GIT_INDEX_FILE`.
    pub fn index_file(&self, path: &Path) -> Result<GitSnapshot, GitError> {
        let kind = self.repo.to_thread_local().object_hash();
        // (as the repository's own index: without its checksum, which git
        // reads for `fsck` only; a commit's hooks get `index.lock`)
        let index = gix::index::File::at(path, kind, true, Default::default())
            .map_err(|e| GitError(format!("cannot read the index {}: {e}", path.display())))?;
        self.snapshot_of_index(&index)
    }

    /// Where git runs hooks from: `core.hooksPath` (relative to the work
    /// tree, as git reads it), else the common git dir's `hooks`.
    pub fn hooks_dir(&self) -> PathBuf {
        let repo = self.repo.to_thread_local();
        let configured = repo
            .config_snapshot()
            .trusted_path("core.hooksPath")
            .ok()
            .flatten();
        match configured {
            Some(p) if p.is_absolute() => p,
            Some(p) => self.workdir.join(p),
            None => repo.common_dir().join("hooks"),
        }
    }

    /// The repository's private folder (`.git`, or a worktree's own).
    pub fn git_dir(&self) -> PathBuf {
        self.repo.to_thread_local().git_dir().to_path_buf()
    }

    fn snapshot_of_index(&self, index: &gix::index::File) -> Result<GitSnapshot, GitError> {
        // (gathered in the index's order, sorted by path, and built into a
        // map at once: inserting thousands one by one was a sixth of a hook)
        let mut entries = Vec::new();
        let mut gitlinks = Vec::new();
        let mut conflicts = BTreeSet::new();
        for e in index.entries() {
            let path = e.path(index);
            let Some(path) = std::str::from_utf8(path.as_ref())
                .ok()
                .and_then(RepoPath::new)
            else {
                continue;
            };
            if e.stage_raw() != 0 {
                conflicts.insert(path.to_string());
                continue;
            }
            if e.mode == gix::index::entry::Mode::COMMIT {
                gitlinks.push((path, e.id));
                continue;
            }
            let Some(kind) = Kind::of_index_entry(e) else {
                continue;
            };
            entries.push((
                path,
                Entry {
                    id: e.id,
                    kind,
                    repo: 0,
                },
            ));
        }
        let entries: BTreeMap<RepoPath, Entry> = entries.into_iter().collect();
        if !conflicts.is_empty() {
            let list: Vec<String> = conflicts.into_iter().collect();
            return Err(GitError(format!(
                "the index has unmerged paths ({}); resolve the conflicts and stage them first",
                list.join(", ")
            )));
        }
        Ok(GitSnapshot::new(
            self.repo.clone(),
            self.with_submodules(entries, gitlinks),
            "index".to_string(),
        ))
    }

    /// The listing with each submodule's files at its recorded commit, read
    /// from the submodule's own repository (its checkout's `.git`, else the
    /// superproject's `modules/<path>`). A submodule whose commit is not
    /// there is [`Listed::unreadable`], with what to do.
    fn with_submodules(
        &self,
        mut entries: BTreeMap<RepoPath, Entry>,
        gitlinks: Vec<Gitlink>,
    ) -> Listed {
        let mut listed = Listed {
            entries: BTreeMap::new(),
            repos: Vec::new(),
            unreadable: BTreeMap::new(),
        };
        let common = self.repo.to_thread_local().common_dir().to_path_buf();
        let mut pending: Vec<(Gitlink, PathBuf, usize)> = gitlinks
            .into_iter()
            .map(|l| (l, self.workdir.clone(), 0))
            .collect();
        while let Some(((path, commit), workdir, depth)) = pending.pop() {
            let short = &commit.to_string()[..7];
            if depth >= SUBMODULE_DEPTH {
                listed.unreadable.insert(
                    path.clone(),
                    format!(
                        "{path} is a submodule nested more than {SUBMODULE_DEPTH} deep: not read"
                    ),
                );
                continue;
            }
            let sub_path = path.as_str().to_string();
            let opened = [
                workdir.join(&sub_path),
                common.join("modules").join(&sub_path),
            ]
            .into_iter()
            .find_map(|dir| {
                gix::open_opts(&dir, gix::open::Options::isolated())
                    .ok()
                    .filter(|r| r.find_object(commit).is_ok())
            });
            let Some(sub) = opened else {
                listed.unreadable.insert(
                    path.clone(),
                    format!(
                        "the submodule {path} (commit {short}) is not in this clone, so its files cannot be read; run `git submodule update --init` (actions/checkout: `submodules: true`)"
                    ),
                );
                continue;
            };
            let repo_index = (listed.repos.len() + 1) as u16;
            let tree = sub
                .find_object(commit)
                .ok()
                .and_then(|o| o.peel_to_commit().ok())
                .and_then(|c| c.tree_id().ok())
                .map(|t| t.detach());
            let Some(tree) = tree else {
                listed.unreadable.insert(
                    path.clone(),
                    format!("the submodule {path} (commit {short}) has no readable tree"),
                );
                continue;
            };
            let mut sub_entries = BTreeMap::new();
            let mut sub_links = Vec::new();
            let mut walk = TreeWalk {
                repo: &sub,
                index: None,
                path: Vec::new(),
                entries: &mut sub_entries,
                gitlinks: &mut sub_links,
                repo_index,
            };
            if let Err(e) = walk.visit(tree, None) {
                listed.unreadable.insert(
                    path.clone(),
                    format!("cannot read the submodule {path} (commit {short}): {e}"),
                );
                continue;
            }
            for (p, e) in sub_entries {
                if let Some(full) = RepoPath::new(&format!("{path}/{p}")) {
                    entries.insert(full, e);
                }
            }
            let sub_workdir = sub
                .workdir()
                .map(Path::to_path_buf)
                .unwrap_or_else(|| workdir.join(&sub_path));
            for (p, c) in sub_links {
                if let Some(full) = RepoPath::new(&format!("{path}/{p}")) {
                    pending.push(((full, c), sub_workdir.clone(), depth + 1));
                }
            }
            listed.repos.push(sub.into_sync());
        }
        listed.entries = entries;
        listed
    }

    /// Paths and blob ids of the work tree, as `git status` finds them: a
    /// regular file whose `stat` data (size, times, inode) is what the index
    /// recorded, and that was not written in the same tick as the index
    /// ("racy git"), has the index's blob id; any other file is read and
    /// hashed. So `--changed-since` with one edited file reads one file, not
    /// the whole repository.
    pub fn worktree_listing(&self, worktree: &WorkTree) -> Listing {
        let repo = self.repo.to_thread_local();
        let kind = repo.object_hash();
        let index = repo.index_or_empty().ok();
        let stat_options = gix::index::entry::stat::Options {
            trust_ctime: true,
            check_stat: true,
            use_nsec: true,
            use_stdev: false,
        };
        let recorded: std::collections::HashMap<&[u8], &gix::index::Entry> = index
            .as_deref()
            .map(|ix| {
                ix.entries()
                    .iter()
                    .filter(|e| {
                        e.stage_raw() == 0
                            && matches!(
                                e.mode,
                                gix::index::entry::Mode::FILE
                                    | gix::index::entry::Mode::FILE_EXECUTABLE
                            )
                            && !e.stat.is_racy(ix.timestamp(), stat_options)
                    })
                    .map(|e| (e.path(ix).as_ref(), e))
                    .collect()
            })
            .unwrap_or_default();
        let (files, _) = walk(worktree, &RepoPath::root());
        let mut out = Listing::new();
        for f in files {
            let unchanged = recorded.get(f.as_str().as_bytes()).and_then(|e| {
                let md =
                    gix::index::fs::Metadata::from_path_no_follow(&worktree.path_of(f.as_str()))
                        .ok()?;
                if !md.is_file() {
                    return None;
                }
                let now = gix::index::entry::Stat::from_fs(&md).ok()?;
                e.stat.matches(&now, stat_options).then_some(e.id)
            });
            if let Some(id) = unchanged {
                out.insert(f, id);
                continue;
            }
            if let Ok(bytes) = worktree.read(f.as_str()) {
                if let Ok(id) = gix::objs::compute_hash(kind, gix::objs::Kind::Blob, &bytes) {
                    out.insert(f, id);
                }
            }
        }
        out
    }
}

/// A commit's files, folder by folder.
struct TreeWalk<'a> {
    repo: &'a gix::Repository,
    /// The index, when its cached tree ids can stand in for tree objects.
    index: Option<&'a gix::index::File>,
    /// The folder being walked, with a trailing `/` (empty at the root).
    path: Vec<u8>,
    entries: &'a mut BTreeMap<RepoPath, Entry>,
    /// Submodules met on the way.
    gitlinks: &'a mut Vec<Gitlink>,
    /// [`Entry::repo`] of what is listed.
    repo_index: u16,
}

impl TreeWalk<'_> {
    /// Lists the folder `id` at `self.path`; `cached` is the index's cached
    /// tree of the same folder, if it has one.
    fn visit(
        &mut self,
        id: ObjectId,
        cached: Option<&gix::index::extension::Tree>,
    ) -> Result<(), String> {
        if let (Some(ix), Some(node)) = (self.index, cached) {
            // a valid cached tree with this id: the index holds this folder
            // exactly as the tree object does
            if node.num_entries.is_some() && node.id == id && self.list_from_index(ix) {
                return Ok(());
            }
        }
        let tree = self
            .repo
            .find_object(id)
            .map_err(|e| e.to_string())?
            .try_into_tree()
            .map_err(|e| e.to_string())?;
        let decoded = tree.decode().map_err(|e| e.to_string())?;
        for e in &decoded.entries {
            let len = self.path.len();
            self.path.extend_from_slice(e.filename);
            if e.mode.is_tree() {
                self.path.push(b'/');
                let child = cached.and_then(|n| {
                    n.children
                        .iter()
                        .find(|c| c.name.as_slice() == e.filename.as_ref() as &[u8])
                });
                self.visit(e.oid.to_owned(), child)?;
            } else {
                let kind = if e.mode.is_link() {
                    Some(Kind::Link)
                } else if e.mode.is_blob() {
                    Some(Kind::File)
                } else {
                    None
                };
                if let Some(kind) = kind {
                    self.insert(kind, e.oid.to_owned());
                } else if e.mode.is_commit() {
                    if let Some(p) = std::str::from_utf8(&self.path).ok().and_then(RepoPath::new) {
                        self.gitlinks.push((p, e.oid.to_owned()));
                    }
                }
            }
            self.path.truncate(len);
        }
        Ok(())
    }

    /// Lists the folder from the index; false (nothing listed) when the
    /// index has entries there it cannot vouch for (conflicts).
    fn list_from_index(&mut self, ix: &gix::index::File) -> bool {
        use gix::bstr::ByteSlice;
        let range = ix
            .prefixed_entries_range(self.path.as_bstr())
            .unwrap_or(0..0);
        let entries = &ix.entries()[range];
        if entries.iter().any(|e| e.stage_raw() != 0) {
            return false;
        }
        let folder = std::mem::take(&mut self.path);
        for e in entries {
            if e.mode == gix::index::entry::Mode::COMMIT {
                if let Some(p) = std::str::from_utf8(e.path(ix).as_ref())
                    .ok()
                    .and_then(RepoPath::new)
                {
                    self.gitlinks.push((p, e.id));
                }
                continue;
            }
            let Some(kind) = Kind::of_index_entry(e) else {
                continue;
            };
            self.path.clear();
            self.path.extend_from_slice(e.path(ix));
            self.insert(kind, e.id);
        }
        self.path = folder;
        true
    }

    fn insert(&mut self, kind: Kind, id: ObjectId) {
        let Some(path) = std::str::from_utf8(&self.path).ok().and_then(RepoPath::new) else {
            return;
        };
        self.entries.insert(
            path,
            Entry {
                id,
                kind,
                repo: self.repo_index,
            },
        );
    }
}

impl GitSnapshot {
    fn new(repo: gix::ThreadSafeRepository, listed: Listed, description: String) -> GitSnapshot {
        let Listed {
            entries,
            repos,
            unreadable,
        } = listed;
        let mut dirs = BTreeSet::new();
        dirs.insert(RepoPath::root());
        // the folder of the last path: listed, so a path beside it (the
        // paths are sorted: most are) has nothing new on its way
        let mut last = "";
        for p in entries.keys() {
            // each folder on the way, deepest first, allocated only when new
            // (a snapshot of the index is made on every request of the
            // daemon)
            let path = p.as_str();
            let folder = path
                .bytes()
                .rposition(|b| b == b'/')
                .map_or("", |i| &path[..i]);
            if folder == last {
                continue;
            }
            last = folder;
            for (i, _) in path.rmatch_indices('/') {
                let dir = &path[..i];
                if dirs.contains(dir) {
                    break;
                }
                if let Some(d) = RepoPath::new(dir) {
                    dirs.insert(d);
                }
            }
        }
        // an unreadable submodule is a folder (whose listing says why)
        for u in unreadable.keys() {
            let mut d = Some(u.clone());
            while let Some(dir) = d {
                if !dirs.insert(dir.clone()) {
                    break;
                }
                d = dir.parent();
            }
        }
        GitSnapshot {
            repo,
            submodules: repos,
            entries,
            unreadable,
            dirs,
            description,
        }
    }

    /// Submodules whose files could not be read (not initialised, not
    /// fetched): what they hold is unknown, not absent.
    pub fn unreadable_folders(&self) -> impl Iterator<Item = &RepoPath> {
        self.unreadable.keys()
    }

    /// The paths of its files, in order.
    pub fn paths(&self) -> impl Iterator<Item = &RepoPath> {
        self.entries.keys()
    }

    /// Paths and blob ids.
    pub fn listing(&self) -> Listing {
        self.entries
            .iter()
            .map(|(p, e)| (p.clone(), e.id))
            .collect()
    }

    fn not_found(&self, path: &str) -> SourceError {
        SourceError {
            path: path.to_string(),
            message: format!(
                "lstat {path}: no such file or directory (in {})",
                self.description
            ),

            line: 0,
            column: 0,
            not_utf8: None,
        }
    }

    fn blob(&self, path: &str, e: Entry) -> Result<Vec<u8>, SourceError> {
        let id = e.id;
        let repo = match e.repo {
            0 => self.repo.to_thread_local(),
            n => self.submodules[n as usize - 1].to_thread_local(),
        };
        repo.find_object(id)
            .map(|o| o.detach().data)
            .map_err(|e| SourceError {
                path: path.to_string(),
                message: format!("cannot read {path} from {}: {e}", self.description),

                line: 0,
                column: 0,
                not_utf8: None,
            })
    }
}

impl Snapshot for GitSnapshot {
    fn kind(&self, path: &str) -> Result<EntryKind, SourceError> {
        let p = RepoPath::new(path).ok_or_else(|| self.not_found(path))?;
        if let Some(e) = self.entries.get(&p) {
            return Ok(match e.kind {
                Kind::File => EntryKind::File,
                Kind::Link => EntryKind::Symlink,
            });
        }
        if self.dirs.contains(&p) {
            return Ok(EntryKind::Dir);
        }
        Err(self.not_found(path))
    }

    fn list(&self, dir: &str) -> Result<Vec<String>, SourceError> {
        let d = RepoPath::new(dir).ok_or_else(|| self.not_found(dir))?;
        if !self.dirs.contains(&d) {
            return Err(self.not_found(dir));
        }
        if let Some(why) = self.unreadable.get(&d) {
            return Err(SourceError {
                path: dir.to_string(),
                message: why.clone(),
                line: 0,
                column: 0,
                not_utf8: None,
            });
        }
        let mut names = BTreeSet::new();
        let prefix = if d.is_root() {
            String::new()
        } else {
            format!("{d}/")
        };
        // the paths under `dir` are one run of each sorted set: a range,
        // not a scan (discovery lists every folder)
        let under = |p: &&str| p.starts_with(prefix.as_str());
        for p in self
            .entries
            .range::<str, _>((
                std::ops::Bound::Included(prefix.as_str()),
                std::ops::Bound::Unbounded,
            ))
            .map(|(p, _)| p.as_str())
            .take_while(under)
            .chain(
                self.dirs
                    .range::<str, _>((
                        std::ops::Bound::Included(prefix.as_str()),
                        std::ops::Bound::Unbounded,
                    ))
                    .map(|p| p.as_str())
                    .take_while(under),
            )
        {
            if let Some(rest) = p.strip_prefix(&prefix) {
                // (the root itself is in `dirs` as the empty path)
                if !rest.is_empty() {
                    names.insert(rest.split('/').next().unwrap_or(rest).to_string());
                }
            }
        }
        Ok(names.into_iter().collect())
    }

    fn read(&self, path: &str) -> Result<Vec<u8>, SourceError> {
        let p = RepoPath::new(path).ok_or_else(|| self.not_found(path))?;
        let target = match self.entries.get(&p) {
            Some(e) if e.kind == Kind::Link => {
                let t = self.resolve_symlink(path).ok_or_else(|| SourceError {
                    path: path.to_string(),
                    message: format!("{path} is a symbolic link that leads outside the repository"),

                    line: 0,
                    column: 0,
                    not_utf8: None,
                })?;
                RepoPath::new(&t).ok_or_else(|| self.not_found(path))?
            }
            Some(_) => p,
            None => return Err(self.not_found(path)),
        };
        match self.entries.get(&target) {
            Some(e) => self.blob(path, *e),
            None => Err(self.not_found(path)),
        }
    }

    fn resolve_symlink(&self, path: &str) -> Option<String> {
        let mut p = RepoPath::new(path)?;
        // follow a chain of links, a few steps at most
        for _ in 0..16 {
            let e = self.entries.get(&p)?;
            if e.kind != Kind::Link {
                return Some(p.as_str().to_string());
            }
            let target = String::from_utf8(self.blob(path, *e).ok()?).ok()?;
            if target.starts_with('/') {
                return None;
            }
            let base = p.parent().unwrap_or_default();
            p = RepoPath::new(&format!("{}/{target}", base.as_str()))?;
            if self.dirs.contains(&p) {
                return Some(p.as_str().to_string());
            }
        }
        None
    }

    fn paths_fingerprint(&self) -> Option<u64> {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        for (p, e) in &self.entries {
            p.hash(&mut h);
            // a link's target is its blob: where it leads can change the walk
            match e.kind {
                Kind::File => 0u8.hash(&mut h),
                Kind::Link => (1u8, e.id.as_bytes()).hash(&mut h),
            }
        }
        Some(h.finish())
    }

    fn content_id(&self, path: &str) -> Option<super::ContentId> {
        // (a repository path as it is, else normalised: a check asks for
        // every file's, thousands of times)
        let e = match self.entries.get(path) {
            Some(e) => e,
            None => self.entries.get(&RepoPath::new(path)?)?,
        };
        let mut id = [0u8; 20];
        let bytes = e.id.as_bytes();
        let n = bytes.len().min(20);
        id[..n].copy_from_slice(&bytes[..n]);
        Some(id)
    }

    fn describe(&self) -> String {
        self.description.clone()
    }
}
