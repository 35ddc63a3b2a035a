//! Which files a request reads: the work tree, the git index or a revision,
//! and which pairs it selects.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::UsageError;
use crate::source::git::{changed_paths, Git, GitSnapshot};
use crate::source::worktree::{ChangeCount, WorkTree};
use crate::source::{RepoPath, Snapshot};

/// Which pairs to run, and from which files.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Selection {
    /// Only pairs that read one of these files or folders.
    pub paths: Vec<String>,
    /// Only these libraries.
    pub libraries: Vec<String>,
    /// Only these environments.
    pub environments: Vec<String>,
    /// Shard `I/N` (1-based; a stable split of the pairs, for CI matrices).
    pub shard: Option<String>,
    /// The folder checked (a repository, or a folder in one).
    pub root: PathBuf,
    /// What is staged (the git index), not the work tree.
    pub staged: bool,
    /// A revision, read without checking it out.
    pub rev: Option<String>,
    /// Only pairs whose inputs changed since the merge base of this and HEAD.
    pub changed_since: Option<String>,
}

impl Selection {
    /// The whole repository at `root`'s work tree.
    pub fn whole(root: PathBuf) -> Selection {
        Selection {
            root,
            ..Selection::default()
        }
    }

    /// Whether the files come from git (the index, a revision, a change).
    pub fn reads_git(&self) -> bool {
        self.staged || self.rev.is_some() || self.changed_since.is_some()
    }

    /// Every pair of the repository, as it is: no filter, no change.
    pub fn is_whole(&self) -> bool {
        !self.staged
            && self.changed_since.is_none()
            && self.paths.is_empty()
            && self.libraries.is_empty()
            && self.environments.is_empty()
            && self.shard.is_none()
    }

    /// Whether what the selected pairs' libraries read is known in full, so
    /// a value no template reads is unused (a shard holds whole libraries).
    pub fn sees_whole_libraries(&self) -> bool {
        self.environments.is_empty()
            && self.paths.is_empty()
            && !self.staged
            && self.changed_since.is_none()
    }
}

/// Where a request reads files from.
pub enum Opened {
    Work(WorkTree),
    Git(Box<GitSnapshot>),
}

impl Opened {
    pub fn snapshot(&self) -> &dyn Snapshot {
        match self {
            Opened::Work(w) => w,
            Opened::Git(g) => g.as_ref(),
        }
    }
}

/// The files to check, and the repository they are in (for git modes).
pub struct Source {
    pub opened: Opened,
    pub git: Option<Git>,
}

/// How a long-lived process opens sources (see [`open_source_with`]).
#[derive(Default, Clone)]
pub struct SourceOptions {
    /// The index git gave a hook (`GIT_INDEX_FILE`): `git commit FILE`
    /// stages into a temporary index, which is what the commit will hold.
    pub index_file: Option<PathBuf>,
    /// Content ids for the work tree, from stat and a file watcher.
    pub change_count: Option<ChangeCount>,
    /// Files as an editor holds them (unsaved buffers; `None`: deleted),
    /// read instead of the opened source's, by path in the checked folder.
    pub buffers: Option<std::sync::Arc<std::collections::BTreeMap<RepoPath, Option<Vec<u8>>>>>,
}

/// Opens the work tree, the index or a revision, as the selection says.
pub fn open_source(sel: &Selection) -> Result<Source, UsageError> {
    open_source_with(sel, &SourceOptions::default())
}

/// [`open_source`], with a given index file or work tree content ids.
pub fn open_source_with(sel: &Selection, opts: &SourceOptions) -> Result<Source, UsageError> {
    let work_tree = |dir: PathBuf| match &opts.change_count {
        Some(c) => WorkTree::with_stat_ids(dir, c.clone()),
        None => WorkTree::new(dir),
    };
    let dir = sel.root.clone();
    if !dir.is_dir() {
        return Err(UsageError(format!("{} is not a folder", dir.display())));
    }
    if !sel.reads_git() {
        return Ok(Source {
            opened: Opened::Work(work_tree(dir)),
            git: None,
        });
    }
    let git = Git::discover(&dir)?;
    let opened = if sel.staged {
        let index = match &opts.index_file {
            Some(f) => git.index_file(f),
            None => git.index(),
        };
        Opened::Git(Box::new(index?))
    } else if let Some(rev) = &sel.rev {
        let commit = git.commit(rev)?;
        Opened::Git(Box::new(git.tree(commit, rev)?))
    } else {
        Opened::Work(work_tree(git.workdir().to_path_buf()))
    };
    Ok(Source {
        opened,
        git: Some(git),
    })
}

/// The repository paths that changed since the merge base of `rev` and the
/// checked revision (HEAD when the work tree or the index is checked).
pub(super) fn changed_since(
    source: &Source,
    rev: &str,
    head_rev: Option<&str>,
) -> Result<Vec<RepoPath>, UsageError> {
    let git = source.git.as_ref().expect("git modes open a repository");
    let base = git.merge_base(rev, head_rev.unwrap_or("HEAD"))?;
    let base = git.tree(base, rev)?.listing();
    let head = match &source.opened {
        Opened::Git(g) => g.listing(),
        Opened::Work(w) => git.worktree_listing(w),
    };
    Ok(changed_paths(&base, &head))
}

/// Whether `path` (or a file under it) is in the index or HEAD of the
/// repository around the checked folder: a file the work tree deleted.
pub(super) fn known_to_git(sel: &Selection, path: &RepoPath) -> bool {
    let dir = &sel.root;
    let Ok(git) = Git::discover(dir) else {
        return false;
    };
    // the checked folder may be below the repository's root
    let prefix = match (dir.canonicalize(), git.workdir().canonicalize()) {
        (Ok(d), Ok(w)) => match d.strip_prefix(&w) {
            Ok(rel) => rel.to_string_lossy().replace('\\', "/"),
            Err(_) => return false,
        },
        _ => return false,
    };
    let full = if prefix.is_empty() {
        Some(path.clone())
    } else {
        RepoPath::new(&format!("{prefix}/{path}"))
    };
    let Some(full) = full else { return false };
    let under = |listing: &crate::source::git::Listing| {
        listing.keys().any(|p| p == &full || p.starts_with(&full))
    };
    let in_index = git.index().map(|ix| under(&ix.listing())).unwrap_or(false);
    in_index
        || git
            .commit("HEAD")
            .and_then(|c| git.tree(c, "HEAD"))
            .map(|t| under(&t.listing()))
            .unwrap_or(false)
}

/// Where the checked folder `root` is in its git repository, as a path
/// prefix (`deploy/`), or empty (at the root, or not in a repository).
pub fn repo_prefix(root: &std::path::Path) -> String {
    let Some((workdir, _)) = crate::source::git::find_git_dir(root) else {
        return String::new();
    };
    match root.canonicalize() {
        Ok(r) => match r.strip_prefix(&workdir) {
            Ok(rel) if !rel.as_os_str().is_empty() => {
                format!("{}/", rel.to_string_lossy().replace('\\', "/"))
            }
            _ => String::new(),
        },
        Err(_) => String::new(),
    }
}

/// The opened files seen through an editor's buffers, when there are any.
pub fn buffered<'a>(
    source: &'a Source,
    opts: &SourceOptions,
) -> Option<crate::source::overlay::Overlay<'a>> {
    opts.buffers
        .as_ref()
        .map(|b| crate::source::overlay::Overlay::new(source.opened.snapshot(), (**b).clone()))
}
