//! What the YAML reader shares with the event reader below it: the limits
//! that keep hostile input from exhausting memory or the stack, go-yaml's
//! wording of syntax errors, and lines and columns counted as go-yaml
//! counts them.

/// Limits that keep hostile input from exhausting memory or the stack.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Deepest nesting of collections.
    pub max_depth: usize,
    /// Most nodes that alias expansion may create in one document.
    pub max_alias_nodes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_depth: 10_000,
            max_alias_nodes: 200_000,
        }
    }
}

/// A YAML syntax error, worded as go-yaml words them (`yaml: line 3: ...`).
#[derive(Debug, Clone)]
pub struct ParseError {
    /// 1-based line in the original file (0 when unknown).
    pub line: u32,
    pub col: u32,
    pub message: String,
    /// Scanner errors name their line in ytt's text; decoding errors
    /// (scalar resolution, aliases) do not.
    pub line_in_message: bool,
}

impl ParseError {
    /// ytt's rendering: `yaml: line N: message`.
    pub fn ytt_message(&self) -> String {
        if self.line > 0 && self.line_in_message {
            format!("yaml: line {}: {}", self.line, self.message)
        } else {
            format!("yaml: {}", self.message)
        }
    }
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.ytt_message())
    }
}

/// What a byte order mark stands in as while the parser reads the text (see
/// `parse_inner`): a private-use character of the same length in UTF-8.
pub(super) const BOM_KEPT: char = '\u{E0FF}';

/// The 1-based line and column (in characters) of byte `offset`, counting
/// line breaks as go-yaml does (`\r\n`, `\r`, `\n`, NEL, LS, PS).
/// An offset inside a character (a reader chunk's boundary is one of bytes)
/// counts as that character's place.
pub(super) fn line_col(text: &str, offset: usize) -> (u32, u32) {
    let mut end = offset.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let before = &text[..end];
    let mut line = 1u32;
    let mut col = 1u32;
    let mut chars = before.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' if chars.peek() == Some(&'\n') => {}
            '\r' | '\n' | '\u{85}' | '\u{2028}' | '\u{2029}' => {
                line += 1;
                col = 1;
            }
            _ => col += 1,
        }
    }
    (line, col)
}

pub(super) fn raw_line(line: u32, shift: u32) -> u32 {
    line.saturating_sub(shift)
}
