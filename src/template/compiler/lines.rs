//! ytt-dialect code as logical lines: each line scanned into tokens
//! (identifiers, strings, brackets, `:`; a string or bracket may span
//! lines, and a backslash joins the next), and physical lines joined into
//! the logical lines that [`super::blocks`] re-indents.

use crate::yaml::Pos;

use super::{CodeLine, LineKind};

/// A block that does not close, or a line the scanner cannot read.
#[derive(Debug, Clone)]
pub struct BlockError {
    pub pos: Option<Pos>,
    pub message: String,
}

// ------------------------------------------------------------------ scanning

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Tok {
    Ident(String),
    Str,
    Colon,
    Dot,
    Open,
    Close,
    Comment,
    Other,
}

#[derive(Debug, Clone)]
pub(super) struct Token {
    pub(super) tok: Tok,
    /// index of the physical line within the logical line
    pub(super) line: usize,
    pub(super) start: usize,
    pub(super) end: usize,
}

#[derive(Default, Clone, Copy)]
pub(super) struct ScanState {
    pub(super) depth: usize,
    /// inside a string: (quote, triple)
    pub(super) string: Option<(char, bool)>,
    pub(super) string_start: Option<(usize, usize)>,
}

/// Scans one physical line, continuing `state`; returns tokens and whether the
/// line ends with a backslash continuation.
pub(super) fn scan_line(
    text: &str,
    line_idx: usize,
    state: &mut ScanState,
    out: &mut Vec<Token>,
) -> bool {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut i = 0;
    let byte_at = |i: usize| chars.get(i).map(|c| c.0).unwrap_or(text.len());
    while i < chars.len() {
        if let Some((q, triple)) = state.string {
            let c = chars[i].1;
            if c == '\\' {
                i += 2;
                continue;
            }
            if c == q {
                if triple {
                    if i + 2 < chars.len()
                        && chars.get(i + 1).map(|x| x.1) == Some(q)
                        && chars.get(i + 2).map(|x| x.1) == Some(q)
                    {
                        i += 3;
                        state.string = None;
                        let (sl, sb) = state.string_start.take().unwrap_or((line_idx, 0));
                        out.push(Token {
                            tok: Tok::Str,
                            line: sl,
                            start: sb,
                            end: byte_at(i),
                        });
                        continue;
                    }
                } else {
                    i += 1;
                    state.string = None;
                    let (sl, sb) = state.string_start.take().unwrap_or((line_idx, 0));
                    out.push(Token {
                        tok: Tok::Str,
                        line: sl,
                        start: sb,
                        end: byte_at(i),
                    });
                    continue;
                }
            }
            i += 1;
            continue;
        }
        let (b, c) = chars[i];
        match c {
            ' ' | '\t' | '\r' => i += 1,
            '#' => {
                out.push(Token {
                    tok: Tok::Comment,
                    line: line_idx,
                    start: b,
                    end: text.len(),
                });
                return false;
            }
            '\\' if i + 1 == chars.len() => return true,
            '"' | '\'' => {
                let triple = chars.get(i + 1).map(|x| x.1) == Some(c)
                    && chars.get(i + 2).map(|x| x.1) == Some(c);
                state.string = Some((c, triple));
                state.string_start = Some((line_idx, b));
                i += if triple { 3 } else { 1 };
            }
            '(' | '[' | '{' => {
                state.depth += 1;
                out.push(Token {
                    tok: Tok::Open,
                    line: line_idx,
                    start: b,
                    end: b + 1,
                });
                i += 1;
            }
            ')' | ']' | '}' => {
                state.depth = state.depth.saturating_sub(1);
                out.push(Token {
                    tok: Tok::Close,
                    line: line_idx,
                    start: b,
                    end: b + 1,
                });
                i += 1;
            }
            ':' => {
                out.push(Token {
                    tok: Tok::Colon,
                    line: line_idx,
                    start: b,
                    end: b + 1,
                });
                i += 1;
            }
            '.' if !chars
                .get(i + 1)
                .map(|x| x.1.is_ascii_digit())
                .unwrap_or(false) =>
            {
                out.push(Token {
                    tok: Tok::Dot,
                    line: line_idx,
                    start: b,
                    end: b + 1,
                });
                i += 1;
            }
            c if c.is_alphabetic() || c == '_' => {
                let start = i;
                while i < chars.len() && (chars[i].1.is_alphanumeric() || chars[i].1 == '_') {
                    i += 1;
                }
                // string prefixes such as r"..." are part of the string
                let word: String = chars[start..i].iter().map(|x| x.1).collect();
                if i < chars.len()
                    && (chars[i].1 == '"' || chars[i].1 == '\'')
                    && matches!(word.as_str(), "r" | "b" | "rb" | "br")
                {
                    continue;
                }
                out.push(Token {
                    tok: Tok::Ident(word),
                    line: line_idx,
                    start: b,
                    end: byte_at(i),
                });
            }
            c if c.is_ascii_digit() => {
                let start = b;
                while i < chars.len()
                    && (chars[i].1.is_alphanumeric() || chars[i].1 == '.' || chars[i].1 == '_')
                {
                    i += 1;
                }
                out.push(Token {
                    tok: Tok::Other,
                    line: line_idx,
                    start,
                    end: byte_at(i),
                });
            }
            _ => {
                out.push(Token {
                    tok: Tok::Other,
                    line: line_idx,
                    start: b,
                    end: b + c.len_utf8(),
                });
                i += 1;
            }
        }
    }
    false
}

// ------------------------------------------------------------------ logical lines

#[derive(Debug)]
pub(super) struct Logical {
    pub(super) lines: Vec<String>,
    pub(super) srcs: Vec<Option<Pos>>,
    pub(super) tokens: Vec<Token>,
    pub(super) kind: LineKind,
    /// A node instruction the compiler wrote (`__ytt_node(12)`): no user
    /// code in it, so nothing to scan or rewrite (most lines of a template).
    pub(super) fixed: bool,
}

/// Whether `text` is a node instruction with nothing but tags:
/// `__ytt_start_node(3)`, `__ytt_node(3)`, `__ytt_set_node(3)`,
/// `__ytt_node_run(3, 9)`.
pub(super) fn is_fixed_instruction(text: &str) -> bool {
    use super::{NODE, NODE_RUN, SET_NODE, START_NODE};
    let args = |name: &str| {
        text.strip_prefix(name)
            .and_then(|r| r.strip_prefix('('))
            .and_then(|r| r.strip_suffix(')'))
    };
    let tag = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    [START_NODE, NODE, SET_NODE]
        .iter()
        .any(|name| args(name).is_some_and(tag))
        || args(NODE_RUN)
            .and_then(|r| r.split_once(", "))
            .is_some_and(|(a, b)| tag(a) && tag(b))
}

impl Logical {
    pub(super) fn significant(&self) -> impl DoubleEndedIterator<Item = &Token> {
        self.tokens.iter().filter(|t| t.tok != Tok::Comment)
    }
    pub(super) fn first_ident(&self) -> Option<&str> {
        match self.significant().next().map(|t| &t.tok) {
            Some(Tok::Ident(s)) => Some(s),
            _ => None,
        }
    }
    pub(super) fn ends_with_colon(&self) -> bool {
        matches!(
            self.significant().next_back().map(|t| &t.tok),
            Some(Tok::Colon)
        )
    }
    pub(super) fn src(&self) -> Option<Pos> {
        self.srcs.iter().flatten().next().cloned()
    }
}

pub(super) fn logical_lines(code: &[CodeLine]) -> Result<Vec<Logical>, BlockError> {
    let mut out = Vec::new();
    let mut cur: Option<Logical> = None;
    let mut state = ScanState::default();
    let mut prev_backslash = false;
    for line in code {
        if cur.is_none()
            && !prev_backslash
            && state.depth == 0
            && state.string.is_none()
            && matches!(line.kind, LineKind::Instr { .. })
            && is_fixed_instruction(&line.text)
        {
            let end = line.text.len();
            out.push(Logical {
                lines: vec![line.text.clone()],
                srcs: vec![line.src.clone()],
                // what the block conversion looks at: not a keyword, not
                // ending with a colon
                tokens: vec![
                    Token {
                        tok: Tok::Other,
                        line: 0,
                        start: 0,
                        end: 0,
                    },
                    Token {
                        tok: Tok::Close,
                        line: 0,
                        start: end - 1,
                        end,
                    },
                ],
                kind: line.kind,
                fixed: true,
            });
            continue;
        }
        let text = if prev_backslash {
            line.text.clone()
        } else {
            line.text.trim_start().to_string()
        };
        let lg = cur.get_or_insert_with(|| Logical {
            lines: Vec::new(),
            srcs: Vec::new(),
            tokens: Vec::new(),
            kind: line.kind,
            fixed: false,
        });
        let idx = lg.lines.len();
        let backslash = scan_line(&text, idx, &mut state, &mut lg.tokens);
        lg.lines.push(text);
        lg.srcs.push(line.src.clone());
        prev_backslash = backslash;
        if state.depth == 0 && state.string.is_none() && !backslash {
            out.push(cur.take().expect("current logical line"));
        }
    }
    if let Some(lg) = cur {
        if state.string.is_some() {
            return Err(BlockError {
                pos: lg.src(),
                message: "unterminated string literal".to_string(),
            });
        }
        out.push(lg);
    }
    Ok(out)
}
