//! Source files and positions in them.
//!
//! Every node of a YAML tree, every annotation and every finding points at a
//! [`Pos`]: a line (and column) in a [`SourceFile`]. The source keeps its text so
//! that error messages can show the offending line (ytt's `file.yml:4 | key: v`
//! frames) without reading the file again. Values given on the command line get
//! a synthetic source (`(data-value arg)`) whose "text" is the flag itself.

use std::fmt;
use std::sync::Arc;

/// A named piece of text that positions point into.
#[derive(Debug)]
pub struct SourceFile {
    name: String,
    text: String,
    /// Byte offset of the start of each line (line 1 starts at
    /// `line_starts[0]`), found when first asked: discovery reads every
    /// YAML file of a repository for its `#@` lines, and most are never
    /// asked for a line.
    line_starts: std::sync::OnceLock<Vec<usize>>,
    /// What follows `#@` on each annotation line, found once (discovery
    /// asks a file several times, and a daemon keeps the file).
    annotation_lines: std::sync::OnceLock<Box<[Box<str>]>>,
    /// The SHA-256 of the text, found once: content keys of a check's memo
    /// hash every file a pair reads, and a daemon keeps the file between
    /// checks (hashing a real monorepo's 8 MB took a seventh of a check).
    digest: std::sync::OnceLock<[u8; 32]>,
    /// The lines of `#! yttcheck: ignore[...]` comments and the rules each
    /// names, found once by `check::suppress` (which knows their syntax):
    /// a daemon's check asks it of every file its pairs read, and looking
    /// through all their text again took a tenth of a check.
    inline_suppressions: std::sync::OnceLock<Box<[InlineSuppression]>>,
}

/// A line of a file and the rules its inline suppression names.
pub type InlineSuppression = (u32, Vec<String>);

impl SourceFile {
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> Arc<SourceFile> {
        Arc::new(SourceFile {
            name: name.into(),
            text: text.into(),
            line_starts: std::sync::OnceLock::new(),
            annotation_lines: std::sync::OnceLock::new(),
            digest: std::sync::OnceLock::new(),
            inline_suppressions: std::sync::OnceLock::new(),
        })
    }

    fn line_starts(&self) -> &[usize] {
        self.line_starts.get_or_init(|| {
            let mut starts = vec![0];
            for (i, b) in self.text.bytes().enumerate() {
                if b == b'\n' {
                    starts.push(i + 1);
                }
            }
            starts
        })
    }

    /// The text after `#@` (and spaces) of every line that starts, after
    /// indentation, with `#@` (after a byte order mark, as ytt reads it, the
    /// first line is content).
    pub fn annotation_lines(&self) -> &[Box<str>] {
        self.annotation_lines.get_or_init(|| {
            self.text
                .lines()
                .filter_map(|l| l.trim_start().strip_prefix("#@"))
                .map(|rest| rest.trim_start().into())
                .collect()
        })
    }

    /// The BLAKE3 hash of the text: what the results of a pair that read
    /// the file are keyed by (`check::memo`), in the daemon and across runs
    /// (`--cache-dir`). A cryptographic hash, so that no file made to meet
    /// another's hash can be given the other's results; BLAKE3 rather than
    /// SHA-256 because a re-run with the cache hashes every file it reads:
    /// without SHA instructions (many x86 machines), SHA-256 of 34 MB of
    /// real packages was 70% of such a run.
    pub fn digest(&self) -> &[u8; 32] {
        self.digest
            .get_or_init(|| blake3::hash(self.text.as_bytes()).into())
    }

    /// The file's inline suppressions, found by `find` the first time
    /// (the text never changes, so neither do they).
    pub fn inline_suppressions(
        &self,
        find: impl FnOnce(&str) -> Vec<InlineSuppression>,
    ) -> &[InlineSuppression] {
        self.inline_suppressions
            .get_or_init(|| find(&self.text).into_boxed_slice())
    }

    /// The name shown in messages: a path relative to where the user ran the
    /// command, or a description such as `(data-value arg)`.
    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    pub fn line_count(&self) -> usize {
        self.line_starts().len()
    }

    /// The text of 1-based line `line`, without its line break.
    pub fn line_text(&self, line: u32) -> Option<&str> {
        let idx = (line as usize).checked_sub(1)?;
        let start = *self.line_starts().get(idx)?;
        let end = self
            .line_starts()
            .get(idx + 1)
            .map(|e| e - 1)
            .unwrap_or(self.text.len());
        let s = self.text.get(start..end)?;
        Some(s.strip_suffix('\r').unwrap_or(s))
    }

    /// 1-based (line, column) of a byte offset; the column counts characters.
    pub fn line_col(&self, offset: usize) -> (u32, u32) {
        let idx = match self.line_starts().binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let start = self.line_starts()[idx];
        let col = self
            .text
            .get(start..offset.min(self.text.len()))
            .map(|s| s.chars().count())
            .unwrap_or(0);
        (idx as u32 + 1, col as u32 + 1)
    }
}

/// A position: a line (1-based) and column (1-based, 0 when unknown) in a source.
///
/// A position may be *unknown* (no line), optionally still naming its file; ytt
/// prints those as `file:?`.
#[derive(Clone, Default)]
pub struct Pos {
    src: Option<Arc<SourceFile>>,
    line: u32,
    col: u32,
}

impl Pos {
    pub fn new(src: &Arc<SourceFile>, line: u32, col: u32) -> Pos {
        Pos {
            src: Some(src.clone()),
            line,
            col,
        }
    }

    pub fn unknown() -> Pos {
        Pos::default()
    }

    pub fn unknown_in(src: &Arc<SourceFile>) -> Pos {
        Pos {
            src: Some(src.clone()),
            line: 0,
            col: 0,
        }
    }

    pub fn is_known(&self) -> bool {
        self.line > 0
    }

    /// 1-based line, 0 when unknown.
    pub fn line(&self) -> u32 {
        self.line
    }

    /// 1-based column, 0 when unknown.
    pub fn col(&self) -> u32 {
        self.col
    }

    pub fn source(&self) -> Option<&Arc<SourceFile>> {
        self.src.as_ref()
    }

    pub fn file_name(&self) -> &str {
        self.src.as_ref().map(|s| s.name()).unwrap_or("")
    }

    /// The source text of this position's line.
    pub fn line_text(&self) -> Option<&str> {
        if !self.is_known() {
            return None;
        }
        self.src.as_ref()?.line_text(self.line)
    }

    /// `file:line`, `file:?` or `?` (ytt's `AsCompactString`).
    pub fn compact(&self) -> String {
        let file = self.file_name();
        let prefix = if file.is_empty() {
            String::new()
        } else {
            format!("{file}:")
        };
        if self.is_known() {
            format!("{prefix}{}", self.line)
        } else {
            format!("{prefix}?")
        }
    }

    /// `line file:line` (ytt's `AsString`).
    pub fn as_line_string(&self) -> String {
        format!("line {}", self.compact())
    }

    /// Same position, other line (same file).
    pub fn with_line(&self, line: u32) -> Pos {
        Pos {
            src: self.src.clone(),
            line,
            col: 0,
        }
    }

    /// Whether two positions are on the same or adjacent lines of one file.
    pub fn is_next_to(&self, other: &Pos) -> bool {
        self.is_known()
            && other.is_known()
            && self.file_name() == other.file_name()
            && (self.line as i64 - other.line as i64).abs() <= 1
    }
}

impl fmt::Debug for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.compact())
    }
}

impl PartialEq for Pos {
    fn eq(&self, other: &Pos) -> bool {
        self.line == other.line && self.col == other.col && self.file_name() == other.file_name()
    }
}

impl Pos {
    /// This position as a diagnostics [`Location`](crate::diagnostics::Location),
    /// when it is in a file (not a flag's `(data-value arg)` or stdin).
    pub fn location(&self) -> Option<crate::diagnostics::Location> {
        crate::diagnostics::Location::in_file(self.file_name(), self.line(), self.col())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_columns() {
        let src = SourceFile::new("a.yml", "a: 1\r\nbb: 2\n\nlast");
        assert_eq!(src.line_text(1), Some("a: 1"));
        assert_eq!(src.line_text(2), Some("bb: 2"));
        assert_eq!(src.line_text(3), Some(""));
        assert_eq!(src.line_text(4), Some("last"));
        assert_eq!(src.line_text(5), None);
        assert_eq!(src.line_col(7), (2, 2));
        let pos = Pos::new(&src, 2, 1);
        assert_eq!(pos.compact(), "a.yml:2");
        assert_eq!(Pos::unknown_in(&src).compact(), "a.yml:?");
        assert_eq!(Pos::unknown().compact(), "?");
    }
}
