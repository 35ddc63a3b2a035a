//! Where files come from: the work tree, the git index or a git tree.
//!
//! Everything above this module reads files through a [`Snapshot`], so
//! checking what is staged, or a commit, needs no checkout. This module also
//! turns ytt's `-f` arguments into the ordered list of input files ytt would
//! process ([`collect_inputs`]).

pub mod cache;
pub mod git;
pub mod listing;
pub mod overlay;
pub mod repo_path;
pub mod worktree;

pub use cache::SourceCache;
pub use repo_path::{confine, is_confined, walk, walk_noting_folders, RepoPath};

use std::fmt;
use std::sync::Arc;

use crate::files::InputFile;
use crate::yaml::SourceFile;

/// Largest file yttcheck reads (larger ones are reported, not read).
pub const MAX_FILE_SIZE: u64 = 16 * 1024 * 1024;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryKind {
    File,
    Dir,
    Symlink,
}

/// A read failure, worded like Go's `os` errors where ytt shows them.
#[derive(Debug, Clone)]
pub struct SourceError {
    pub path: String,
    pub message: String,
    /// Where in the file, when the problem is at a place (a byte that is
    /// not UTF-8); 0 when it is the whole file.
    pub line: u32,
    pub column: u32,
    /// When the bytes are not UTF-8: how go-yaml's reader words the first
    /// bad sequence (ytt's message for a YAML file that is not UTF-8).
    pub not_utf8: Option<&'static str>,
}

impl SourceError {
    /// A failure of the whole file (not at a place in it).
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> SourceError {
        SourceError {
            path: path.into(),
            message: message.into(),
            line: 0,
            column: 0,
            not_utf8: None,
        }
    }
}

impl fmt::Display for SourceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.message)
    }
}

/// A read-only view of a file tree.
pub trait Snapshot: Send + Sync {
    /// What is at `path` (without following symlinks).
    fn kind(&self, path: &str) -> Result<EntryKind, SourceError>;
    /// Names in a directory.
    fn list(&self, dir: &str) -> Result<Vec<String>, SourceError>;
    /// Names in a directory, sorted, each with what it is (as [`Snapshot::kind`]
    /// says). A work tree answers from the listing itself, without an
    /// `lstat` per entry: a walk of a big repository is mostly that.
    fn list_kinds(&self, dir: &str) -> Result<Vec<(String, EntryKindResult)>, SourceError> {
        let names = self.list(dir)?;
        Ok(names
            .into_iter()
            .map(|name| {
                let kind = self.kind(&child_path(dir, &name));
                (name, kind)
            })
            .collect())
    }
    /// File contents.
    fn read(&self, path: &str) -> Result<Vec<u8>, SourceError>;
    /// Where a symlink points, resolved within the snapshot, if it stays inside.
    fn resolve_symlink(&self, path: &str) -> Option<String>;
    /// A short description for messages (`work tree`, `index`, `HEAD~1`).
    fn describe(&self) -> String;
    /// An id of the file's content that changes whenever the content does
    /// (git's blob id; a file's stat for a watched work tree), when the
    /// snapshot knows one without reading the file. Lets a long-lived
    /// process (the daemon) reuse what it read and parsed before.
    fn content_id(&self, _path: &str) -> Option<ContentId> {
        None
    }
    /// An id of a folder's listing (its names, and what each is) and when
    /// the folder last changed, when the snapshot knows them without
    /// listing it (a watched work tree: the folder's stat). A listing made
    /// well after that time stays the folder's while its id stays the same.
    fn folder_id(&self, _dir: &str) -> Option<(ContentId, std::time::SystemTime)> {
        None
    }
    /// A hash of every path (and where each link leads), when the snapshot
    /// knows it without listing folders: equal fingerprints, equal walks.
    fn paths_fingerprint(&self) -> Option<u64> {
        None
    }
    /// Where the snapshot keeps its whole walk ([`walk`] of the root), when
    /// it keeps it: a work tree lives for one run (or one request of the
    /// daemon), and discovery, `--changed-since` and the daemon's plan key
    /// each walk it; the first walks, the others wait for it and share.
    fn kept_walk(&self) -> Option<&std::sync::OnceLock<Walk>> {
        None
    }
}

/// The path of `name` in folder `dir` (the root is the empty path).
fn child_path(dir: &str, name: &str) -> String {
    if dir.is_empty() {
        name.to_string()
    } else {
        format!("{dir}/{name}")
    }
}

/// What an entry is, or why that cannot be told.
pub type EntryKindResult = Result<EntryKind, SourceError>;

/// A walk of a snapshot: its files (sorted), and what could not be walked.
pub type Walk = (Vec<RepoPath>, Vec<SourceError>);

/// See [`Snapshot::content_id`].
pub type ContentId = [u8; 20];

/// Decodes file bytes as UTF-8 text, with a message that says what to do.
pub fn decode_text(path: &str, bytes: Vec<u8>) -> Result<String, SourceError> {
    if bytes.len() as u64 > MAX_FILE_SIZE {
        return Err(SourceError {
            path: path.to_string(),
            message: format!(
                "file '{path}' is {} bytes, more than the {} MiB yttcheck reads (is it generated or binary?)",
                bytes.len(),
                MAX_FILE_SIZE / 1024 / 1024
            ),

            line: 0,
            column: 0,
            not_utf8: None,
        });
    }
    if bytes.contains(&0) {
        return Err(SourceError {
            path: path.to_string(),
            message: format!(
                "file '{path}' looks binary (contains NUL bytes); ytt inputs must be text"
            ),

            line: 0,
            column: 0,
            not_utf8: None,
        });
    }
    // a UTF-8 byte order mark stays: ytt reads it as content (it puts `---`
    // before a file, and go-yaml skips a mark only at the start of its
    // input), so `#@data/values` after one is no annotation
    String::from_utf8(bytes).map_err(|e| {
        let offset = e.utf8_error().valid_up_to();
        let bytes = e.as_bytes();
        let line = 1 + bytes[..offset].iter().filter(|&&b| b == b'\n').count();
        let col = 1 + offset
            - bytes[..offset]
                .iter()
                .rposition(|&b| b == b'\n')
                .map_or(0, |i| i + 1);
        SourceError {
            path: path.to_string(),
            message: format!(
                "{path}:{line}:{col}: file is not valid UTF-8 (byte 0x{:02x}); save it as UTF-8",
                bytes[offset]
            ),
            line: line as u32,
            column: col as u32,
            not_utf8: Some(go_yaml_utf8_problem(&bytes[offset..])),
        }
    })
}

/// go-yaml's reader problem for the first sequence of `rest`, which is not
/// UTF-8 (its checks, in its order: the leading byte, a sequence cut by the
/// end of the input, a trailing byte, an overlong form, a surrogate or a
/// value past U+10FFFF).
fn go_yaml_utf8_problem(rest: &[u8]) -> &'static str {
    let lead = rest[0];
    let (width, bits) = match lead {
        b if b & 0x80 == 0 => (1, u32::from(b)),
        b if b & 0xE0 == 0xC0 => (2, u32::from(b & 0x1F)),
        b if b & 0xF0 == 0xE0 => (3, u32::from(b & 0x0F)),
        b if b & 0xF8 == 0xF0 => (4, u32::from(b & 0x07)),
        _ => return "invalid leading UTF-8 octet",
    };
    if width > rest.len() {
        return "incomplete UTF-8 octet sequence";
    }
    let mut value = bits;
    for b in &rest[1..width] {
        if b & 0xC0 != 0x80 {
            return "invalid trailing UTF-8 octet";
        }
        value = (value << 6) | u32::from(b & 0x3F);
    }
    let shortest = match width {
        2 => value >= 0x80,
        3 => value >= 0x800,
        4 => value >= 0x10000,
        _ => true,
    };
    if !shortest {
        return "invalid length of a UTF-8 sequence";
    }
    "invalid Unicode character"
}

/// Reads standard input at most once per process (ytt's rule for `-`).
pub struct Stdin {
    used: std::sync::Mutex<bool>,
}

impl Default for Stdin {
    fn default() -> Self {
        Stdin {
            used: std::sync::Mutex::new(false),
        }
    }
}

impl Stdin {
    /// A standard input that must not be read (checks read only the
    /// repository).
    pub fn closed() -> Stdin {
        Stdin {
            used: std::sync::Mutex::new(true),
        }
    }

    pub fn read(&self) -> Result<Vec<u8>, String> {
        let mut used = self.used.lock().expect("stdin lock");
        if *used {
            return Err(
                "Standard input has already been read, has the '-' argument been used in more than one flag?"
                    .to_string(),
            );
        }
        *used = true;
        read_bounded(std::io::stdin(), None).map_err(|e| match e {
            BoundedReadError::TooLarge => too_large("-", None),
            BoundedReadError::Io(e) => e.to_string(),
        })
    }
}

/// Why a bounded read failed.
pub enum BoundedReadError {
    /// More than [`MAX_FILE_SIZE`] bytes.
    TooLarge,
    Io(std::io::Error),
}

/// Reads at most [`MAX_FILE_SIZE`] bytes, and stops with an error as soon as
/// there are more: a huge or endless input never fills memory. `size`,
/// when `stat` told it, sizes the buffer so that a file is read in one
/// `read` (and one more that finds its end), not in growing steps.
pub fn read_bounded(
    reader: impl std::io::Read,
    size: Option<u64>,
) -> Result<Vec<u8>, BoundedReadError> {
    let mut buf = Vec::with_capacity(size.map_or(0, |n| n.min(MAX_FILE_SIZE) as usize + 1));
    std::io::Read::read_to_end(
        &mut std::io::Read::take(reader, MAX_FILE_SIZE + 1),
        &mut buf,
    )
    .map_err(BoundedReadError::Io)?;
    if buf.len() as u64 > MAX_FILE_SIZE {
        return Err(BoundedReadError::TooLarge);
    }
    Ok(buf)
}

/// A file a person named on the command line, or the runner named in the
/// environment (`--baseline`, the event payload): read as text through the
/// same bound as every input, and only if it is a regular file (a device
/// such as `/dev/zero`, a FIFO or a folder is refused before it is read).
pub fn read_local_text(path: &std::path::Path) -> Result<String, String> {
    let shown = path.display().to_string();
    let md = std::fs::metadata(path).map_err(|e| e.to_string())?;
    if !md.is_file() {
        return Err(format!("'{shown}' is not a regular file"));
    }
    if md.len() > MAX_FILE_SIZE {
        return Err(too_large(&shown, Some(md.len())));
    }
    let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let bytes = read_bounded(file, Some(md.len())).map_err(|e| match e {
        BoundedReadError::TooLarge => too_large(&shown, None),
        BoundedReadError::Io(e) => e.to_string(),
    })?;
    String::from_utf8(bytes).map_err(|_| format!("'{shown}' is not UTF-8 text"))
}

/// The message for an input over the size limit (`size` when it is known).
pub fn too_large(path: &str, size: Option<u64>) -> String {
    let mib = MAX_FILE_SIZE / 1024 / 1024;
    match size {
        Some(n) => format!(
            "file '{path}' is {n} bytes, more than the {mib} MiB yttcheck reads (is it generated or binary?)"
        ),
        None => format!(
            "file '{path}' is larger than the {mib} MiB yttcheck reads (is it generated or binary?)"
        ),
    }
}

/// A file as ytt's `NewSortedFilesFromPaths` finds it.
pub struct FoundFile {
    /// Path to read (in the snapshot).
    pub path: String,
    /// ytt's relative path: base name for a named file, path under the
    /// directory for a walked one, or the `rel=` override.
    pub rel_path: String,
    pub implied: bool,
    /// Contents already read (stdin).
    pub bytes: Option<Vec<u8>>,
    /// ytt's original relative path, which `--file-mark`s match: the path
    /// under the `-f` folder, or the base name of a `-f FILE` (a `rel=`
    /// override is not it).
    pub original: String,
    /// What `--file-mark`s say of it.
    pub marks: crate::files::Marks,
}

/// Finds the files of one `-f`-style argument (`path`, `rel=path`, `-`),
/// sorted by relative path as ytt sorts them.
pub fn find_files(snap: &dyn Snapshot, arg: &str, stdin: &Stdin) -> Result<Vec<FoundFile>, String> {
    let pieces: Vec<&str> = arg.split('=').collect();
    let (rel_override, path) = match pieces.len() {
        1 => (None, arg),
        2 => (Some(pieces[0]), pieces[1]),
        _ => {
            return Err(format!(
                "Expected file '{arg}' to only have single '=' sign to for relative path assignment"
            ))
        }
    };
    let mut out = Vec::new();
    if path == "-" {
        let bytes = stdin.read()?;
        out.push(FoundFile {
            path: "-".to_string(),
            rel_path: rel_override.unwrap_or("stdin.yml").to_string(),
            implied: false,
            bytes: Some(bytes),
            original: "stdin.yml".to_string(),
            marks: Default::default(),
        });
        return Ok(out);
    }
    if path.starts_with("http://") || path.starts_with("https://") {
        return Err(format!(
            "Checking file '{path}': yttcheck does not fetch URLs (inputs must be in the repository)"
        ));
    }
    let kind = snap
        .kind(path)
        .map_err(|e| format!("Checking file '{path}': {}", e.message))?;
    match kind {
        EntryKind::Dir => {
            let mut stack = vec![path.trim_end_matches('/').to_string()];
            let root = path.trim_end_matches('/');
            while let Some(dir) = stack.pop() {
                let names = snap
                    .list(&dir)
                    .map_err(|e| format!("Listing files '{path}': {}", e.message))?;
                for name in names {
                    let p = if dir.is_empty() || dir == "." {
                        name.clone()
                    } else {
                        format!("{dir}/{name}")
                    };
                    let k = snap
                        .kind(&p)
                        .map_err(|e| format!("Listing files '{path}': {}", e.message))?;
                    let rel = relative_to(root, &p);
                    match k {
                        EntryKind::Dir => stack.push(p),
                        EntryKind::File => out.push(FoundFile {
                            implied: rel.contains('/'),
                            path: p,
                            original: rel.clone(),
                            rel_path: rel,
                            bytes: None,
                            marks: Default::default(),
                        }),
                        EntryKind::Symlink => match snap.resolve_symlink(&p) {
                            Some(target) if matches!(snap.kind(&target), Ok(EntryKind::File)) => {
                                out.push(FoundFile {
                                    implied: rel.contains('/'),
                                    path: target,
                                    original: rel.clone(),
                                    rel_path: rel,
                                    bytes: None,
                                    marks: Default::default(),
                                })
                            }
                            _ => {
                                return Err(format!(
                                    "Listing files '{path}': Expected symlink file '{p}' to point to a file inside the repository, but it does not (symlinks out of the repository are refused as a security measure)"
                                ))
                            }
                        },
                    }
                }
            }
        }
        EntryKind::File => out.push(FoundFile {
            path: path.to_string(),
            rel_path: rel_override
                .map(|s| s.to_string())
                .unwrap_or_else(|| crate::files::base_name(path).to_string()),
            implied: false,
            bytes: None,
            original: crate::files::base_name(path).to_string(),
            marks: Default::default(),
        }),
        EntryKind::Symlink => match snap.resolve_symlink(path) {
            Some(target) => out.push(FoundFile {
                path: target,
                rel_path: rel_override
                    .map(|s| s.to_string())
                    .unwrap_or_else(|| crate::files::base_name(path).to_string()),
                implied: false,
                bytes: None,
                original: crate::files::base_name(path).to_string(),
                marks: Default::default(),
            }),
            None => {
                return Err(format!(
                    "Expected symlink file '{path}' to point inside the repository, but it does not (symlinks out of the repository are refused as a security measure)"
                ))
            }
        },
    }
    out.sort_by(|a, b| a.rel_path.cmp(&b.rel_path));
    Ok(out)
}

fn relative_to(root: &str, p: &str) -> String {
    if root.is_empty() || root == "." {
        return p.to_string();
    }
    p.strip_prefix(root)
        .map(|s| s.trim_start_matches('/').to_string())
        .unwrap_or_else(|| p.to_string())
}

/// Files that computing data values never parses: text templates, data
/// files, and everything inside a private library (`_ytt_lib/`).
fn never_parsed_for_values(rel_path: &str) -> bool {
    use crate::files::{file_type_of, FileType};
    rel_path.starts_with("_ytt_lib/")
        || rel_path.contains("/_ytt_lib/")
        || !matches!(file_type_of(rel_path), FileType::Yaml | FileType::Starlark)
}

/// Reads a found file into an [`InputFile`] named `display` in messages.
pub fn load_file(
    snap: &dyn Snapshot,
    f: FoundFile,
    order: usize,
) -> Result<Arc<InputFile>, SourceError> {
    let bytes = match f.bytes {
        Some(b) => b,
        None => snap.read(&f.path)?,
    };
    let text = match decode_text(&f.path, bytes) {
        Ok(text) => text,
        // ytt never parses a text template or a private library's file to
        // compute data values, so for `inspect` such a file need not be
        // UTF-8 (as in ytt); it is kept as lossy text
        Err(e) if never_parsed_for_values(&f.rel_path) => match snap.read(&f.path) {
            Ok(bytes) if !e.message.contains("more than") => {
                String::from_utf8_lossy(&bytes).into_owned()
            }
            _ => return Err(e),
        },
        Err(e) => return Err(e),
    };
    Ok(Arc::new(InputFile {
        src: SourceFile::new(f.rel_path.clone(), text),
        rel_path: f.rel_path,
        implied: f.implied,
        order,
        marks: f.marks,
    }))
}

/// ytt's `-f` handling: all files of all arguments, in order.
pub fn collect_inputs(
    snap: &dyn Snapshot,
    args: &[String],
    stdin: &Stdin,
    marks: &[crate::files::marks::FileMark],
) -> Result<Vec<Arc<InputFile>>, String> {
    let mut found = Vec::new();
    for arg in args {
        found.extend(find_files(snap, arg, stdin)?);
    }
    let found = mark(found, marks)?;
    let mut out = Vec::new();
    for (i, f) in found.into_iter().enumerate() {
        let kind = f
            .marks
            .kind
            .map_or_else(|| crate::files::file_type_of(&f.rel_path), |(t, _)| t);
        let rel_path = f.rel_path.clone();
        out.push(load_file(snap, f, i + 1).map_err(|e| match e.not_utf8 {
            // ytt hands a YAML file's bytes to go-yaml, whose reader words it
            Some(problem) if kind == crate::files::FileType::Yaml => {
                format!("Unmarshaling YAML template '{rel_path}': yaml: {problem}")
            }
            _ => e.message,
        })?);
    }
    Ok(out)
}

/// The found files after `--file-mark`s (excluded ones gone, the others
/// marked and maybe renamed), in order.
pub fn mark(
    found: Vec<FoundFile>,
    marks: &[crate::files::marks::FileMark],
) -> Result<Vec<FoundFile>, String> {
    if marks.is_empty() {
        return Ok(found);
    }
    let markable = found
        .into_iter()
        .map(|f| crate::files::marks::Markable {
            original: f.original.clone(),
            rel_path: f.rel_path.clone(),
            marks: f.marks.clone(),
            item: f,
        })
        .collect();
    Ok(crate::files::marks::apply(marks, markable)?
        .into_iter()
        .map(|m| FoundFile {
            rel_path: m.rel_path,
            marks: m.marks,
            ..m.item
        })
        .collect())
}
