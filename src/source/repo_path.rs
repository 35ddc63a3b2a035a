//! Paths inside a repository, and walking a snapshot.

use std::fmt;

use super::{EntryKind, Snapshot, SourceError, Walk};

/// A path relative to the repository root, `/`-separated, without `.` or `..`
/// pieces (`libs/web/schema.yml`). The root itself is the empty path.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct RepoPath(String);

/// The one gate for a path that comes from the repository (`.yttcheck.yml`,
/// a policy pack, a values flag in the config): the repository path it
/// names, or why it names none. An absolute path (`/etc/passwd`,
/// `C:\\x`, `\\\\server\\share`) and a path whose `..` pieces climb
/// above the root are refused: a pull request must not make yttcheck read
/// anything outside the checkout. (Links that lead out are refused where
/// files are read: see `source::worktree`.) Only paths a person typed on
/// the command line may leave the repository.
pub fn confine(given: &str) -> Result<RepoPath, String> {
    if given.chars().any(crate::escape::is_unsafe) {
        return Err(format!(
            "'{}' holds a control or invisible character: paths in the repository's configuration are printable text",
            crate::escape::control(given)
        ));
    }
    if in_git_dir(given) {
        return Err(format!(
            "'{given}' is inside .git: git's own files (its config may hold the job's credentials) are never read or written"
        ));
    }
    if is_absolute(given) {
        return Err(format!(
            "'{given}' is an absolute path: paths in the repository's configuration are relative to its root and stay inside it"
        ));
    }
    RepoPath::new(given).ok_or_else(|| {
        format!("'{given}' leads out of the repository: paths in the repository's configuration stay inside it")
    })
}

/// Whether [`confine`] takes `given`, without making the path: a work tree
/// asks this of every file it stats, thousands of times a check.
pub fn is_confined(given: &str) -> bool {
    // (no `..` in it, nothing to climb with: the common case, one search)
    !is_absolute(given) && (!given.contains("..") || !climbs_out(given)) && !in_git_dir(given)
}

/// Whether a path has a `.git` piece (in any case: `.GIT` is `.git` on a
/// file system that ignores case): git's own files are never an input or
/// an output of yttcheck, whatever names them (a template's `data.read`, a
/// link, a config entry, a values file). Its config may hold the job's
/// token (actions/checkout's `persist-credentials`).
pub fn in_git_dir(path: &str) -> bool {
    // (one search in the common case: no `.git` anywhere)
    let lower = path.as_bytes();
    if !lower.windows(4).any(|w| w.eq_ignore_ascii_case(b".git")) {
        return false;
    }
    path.split(['/', '\\'])
        .any(|piece| piece.eq_ignore_ascii_case(".git"))
}

/// An absolute path on any system (`/x`, `\\\\srv\\s`, `C:\\x`).
fn is_absolute(given: &str) -> bool {
    let bytes = given.as_bytes();
    given.starts_with('/')
        || given.starts_with('\\')
        || (bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':')
}

/// Whether a relative path's `..` pieces climb above where it starts.
fn climbs_out(path: &str) -> bool {
    let mut depth = 0usize;
    for piece in path.split(['/', '\\']) {
        match piece {
            "" | "." => {}
            ".." => match depth.checked_sub(1) {
                Some(d) => depth = d,
                None => return true,
            },
            _ => depth += 1,
        }
    }
    false
}

/// Whether `path` is already as [`RepoPath::new`] makes it: `/`-separated
/// pieces, none empty, `.`, `..` or holding a `\\`.
fn is_normal(path: &str) -> bool {
    // one pass over the bytes (a daemon's check asks it of thousands of
    // paths: splitting them took ten times as long)
    let bytes = path.as_bytes();
    let mut start = 0;
    for i in 0..=bytes.len() {
        match bytes.get(i) {
            Some(b'\\') => return false,
            Some(b'/') | None => {
                if matches!(&bytes[start..i], b"" | b"." | b"..") {
                    return path.is_empty();
                }
                start = i + 1;
            }
            Some(_) => {}
        }
    }
    true
}

/// A relative path's pieces without empty and `.` ones, each `..` taking
/// the piece before it, joined by `/`; `None` if a `..` has none to take.
fn normalised(path: &str) -> Option<String> {
    let mut out: Vec<&str> = Vec::new();
    for piece in path.split(['/', '\\']) {
        match piece {
            "" | "." => {}
            ".." => {
                out.pop()?;
            }
            p => out.push(p),
        }
    }
    Some(out.join("/"))
}

impl RepoPath {
    /// Normalises a relative path; `None` if it leaves the repository.
    pub fn new(path: &str) -> Option<RepoPath> {
        if path.starts_with('/') {
            return None;
        }
        // most paths (a listing's, a plan's) are normal already: taken as
        // they are, without splitting and joining them again
        if is_normal(path) {
            return Some(RepoPath(path.to_string()));
        }
        normalised(path).map(RepoPath)
    }

    pub fn root() -> RepoPath {
        RepoPath(String::new())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn is_root(&self) -> bool {
        self.0.is_empty()
    }

    /// The path of `name` in this folder. A plain name (as a directory
    /// listing gives) is taken as it is, even with a `\\` in it; a path with
    /// `/` pieces is normalised.
    pub fn join(&self, name: &str) -> RepoPath {
        let plain = !name.is_empty() && !name.contains('/') && name != "." && name != "..";
        match (plain, self.0.is_empty()) {
            (true, true) => RepoPath(name.to_string()),
            (true, false) => RepoPath(format!("{}/{name}", self.0)),
            (false, true) => RepoPath::new(name).unwrap_or_default(),
            (false, false) => RepoPath::new(&format!("{}/{name}", self.0)).unwrap_or_default(),
        }
    }

    /// The last piece (`schema.yml`).
    pub fn file_name(&self) -> &str {
        self.0.rsplit('/').next().unwrap_or("")
    }

    /// The file name without its last extension (`prod` for `prod.yml`).
    pub fn stem(&self) -> &str {
        let name = self.file_name();
        match name.rfind('.') {
            Some(i) if i > 0 => &name[..i],
            _ => name,
        }
    }

    pub fn parent(&self) -> Option<RepoPath> {
        if self.0.is_empty() {
            return None;
        }
        Some(match self.0.rfind('/') {
            Some(i) => RepoPath(self.0[..i].to_string()),
            None => RepoPath::root(),
        })
    }

    /// Whether `self` is `dir` or inside it.
    pub fn starts_with(&self, dir: &RepoPath) -> bool {
        dir.0.is_empty()
            || self.0 == dir.0
            || (self.0.starts_with(&dir.0) && self.0.as_bytes().get(dir.0.len()) == Some(&b'/'))
    }

    /// The path below `dir` (`schema.yml` for `libs/web/schema.yml` under `libs/web`).
    pub fn strip_prefix(&self, dir: &RepoPath) -> Option<&str> {
        if dir.0.is_empty() {
            return Some(&self.0);
        }
        if !self.starts_with(dir) {
            return None;
        }
        Some(self.0[dir.0.len()..].trim_start_matches('/'))
    }

    /// Pieces of the path.
    pub fn components(&self) -> impl Iterator<Item = &str> {
        self.0.split('/').filter(|s| !s.is_empty())
    }

    pub fn is_yaml(&self) -> bool {
        let n = self.file_name();
        n.ends_with(".yml") || n.ends_with(".yaml")
    }
}

/// Orders and hashes as its text (the derives are on it), so maps keyed by
/// `RepoPath` can be searched by `&str` ranges.
impl std::borrow::Borrow<str> for RepoPath {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for RepoPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            write!(f, ".")
        } else {
            write!(f, "{}", self.0)
        }
    }
}

/// Most symlinks to folders followed in one path.
const MAX_LINKS: usize = 8;

/// Directories never walked: version control, dependencies and build output.
pub const SKIPPED_DIRS: &[&str] = &[".git", "node_modules", "target", ".venv", "__pycache__"];

/// Every file in the snapshot under `dir`, sorted, skipping [`SKIPPED_DIRS`]
/// and hidden directories. A symlink to a folder is walked under the link's
/// own path (the folder it points to, once: `a -> .` cannot loop); links
/// that lead out of the snapshot are never followed. Unreadable folders are
/// returned as errors, not skipped, so that a caller can report them.
/// A snapshot that keeps its walk ([`Snapshot::kept_walk`]) is walked once
/// from the root, however many ask.
pub fn walk(snap: &dyn Snapshot, dir: &RepoPath) -> Walk {
    match snap.kept_walk() {
        Some(kept) if dir.is_root() => kept.get_or_init(|| walk_uncached(snap, dir)).clone(),
        _ => walk_uncached(snap, dir),
    }
}

fn walk_uncached(snap: &dyn Snapshot, dir: &RepoPath) -> Walk {
    walk_noting_folders(snap, dir).0
}

/// A folder a walk listed (its real path), with its id just before the
/// listing ([`Snapshot::folder_id`]).
pub type ListedFolder = (RepoPath, Option<(super::ContentId, std::time::SystemTime)>);

/// [`walk`] (never a kept one), with the folders it listed and whether it
/// met a symlink.
pub fn walk_noting_folders(snap: &dyn Snapshot, dir: &RepoPath) -> (Walk, Vec<ListedFolder>, bool) {
    let mut listed = Vec::new();
    let mut linked = false;
    let skipped = |name: &str| name.starts_with('.') || SKIPPED_DIRS.contains(&name);
    let mut files = Vec::new();
    let mut errors = Vec::new();
    // (path as shown, folder to list, how many links were followed)
    let mut stack = vec![(dir.clone(), dir.clone(), 0usize)];
    while let Some((shown, real, links)) = stack.pop() {
        listed.push((real.clone(), snap.folder_id(real.as_str())));
        let entries = match snap.list_kinds(real.as_str()) {
            Ok(n) => n,
            Err(e) => {
                errors.push(e);
                continue;
            }
        };
        for (name, kind) in entries {
            let path = shown.join(&name);
            let real_path = real.join(&name);
            match kind {
                Ok(EntryKind::Dir) => {
                    if !skipped(&name) {
                        stack.push((path, real_path, links));
                    }
                }
                Ok(EntryKind::Symlink) => {
                    linked = true;
                    // a link out of the repository is never read, and never
                    // dropped without a word either
                    let outside = || {
                        SourceError {
                        path: path.as_str().to_string(),
                        message: format!(
                            "'{path}' is a symlink out of the repository or into its .git folder: it is never read (such links are refused as a security measure; exclude it in .yttcheck.yml if that is intended)"
                        ),
                        line: 0,
                        column: 0,
                        not_utf8: None,
                    }
                    };
                    let Some(target) = snap
                        .resolve_symlink(real_path.as_str())
                        .and_then(|t| RepoPath::new(&t))
                    else {
                        if !skipped(&name) {
                            errors.push(outside());
                        }
                        continue;
                    };
                    match snap.kind(target.as_str()) {
                        Ok(EntryKind::Dir) => {
                            let hidden = skipped(&name) || target.components().any(skipped);
                            // a link to a folder around this one would loop
                            let looping = real.starts_with(&target) || links >= MAX_LINKS;
                            if !hidden && !looping {
                                stack.push((path, target, links + 1));
                            }
                        }
                        _ => files.push(path),
                    }
                }
                Ok(EntryKind::File) => files.push(path),
                Err(e) => errors.push(e),
            }
        }
    }
    files.sort();
    ((files, errors), listed, linked)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalises_and_refuses_escapes() {
        assert_eq!(RepoPath::new("./a//b/../c").unwrap().as_str(), "a/c");
        assert!(RepoPath::new("../x").is_none());
        assert!(RepoPath::new("/etc/passwd").is_none());
        for bad in [
            "/etc/passwd",
            "../x",
            "a/../../x",
            "C:\\x",
            "\\\\srv\\s",
            "..\\x",
        ] {
            assert!(confine(bad).is_err(), "{bad}");
        }
        assert_eq!(confine("./a/../b").unwrap().as_str(), "b");
        // the quick answers are the slow ones: every path of up to three
        // pieces of these
        let pieces = ["a", "bc", "", ".", "..", "x\\y", "C:", "/"];
        let mut paths = vec![String::new()];
        for _ in 0..3 {
            let longer: Vec<String> = paths
                .iter()
                .flat_map(|p| pieces.iter().map(move |x| format!("{p}{x}/")))
                .chain(
                    paths
                        .iter()
                        .flat_map(|p| pieces.iter().map(move |x| format!("{p}{x}"))),
                )
                .collect();
            paths.extend(longer);
        }
        for path in &paths {
            assert_eq!(is_confined(path), confine(path).is_ok(), "{path:?}");
            let slow = (!path.starts_with('/')).then(|| normalised(path));
            let fast = RepoPath::new(path).map(|p| p.0);
            assert_eq!(fast, slow.flatten(), "{path:?}");
        }
        let p = RepoPath::new("libs/web/schema.yml").unwrap();
        assert_eq!(p.stem(), "schema");
        assert_eq!(p.parent().unwrap().as_str(), "libs/web");
        assert!(p.starts_with(&RepoPath::new("libs").unwrap()));
        assert!(!p.starts_with(&RepoPath::new("lib").unwrap()));
        assert_eq!(
            p.strip_prefix(&RepoPath::new("libs").unwrap()),
            Some("web/schema.yml")
        );
    }
}
