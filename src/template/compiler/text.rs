//! ytt's text templates: `(@ code @)`, `(@= expression @)` and the trimming
//! forms `(@-` / `-@)`, in `.txt` files and in YAML strings under
//! `@yaml/text-templated-strings`.
//!
//! A text template compiles, like a YAML one, to ytt-dialect code lines: it
//! opens a text context, appends its literal pieces and printed values to it,
//! and closes it, which gives the string. Code pieces are user code, so
//! `(@ for x in xs: @)...(@ end @)` repeats the text between them, and a
//! `def` whose body appends text is a text fragment function (it returns the
//! string its body built).

use crate::yaml::Pos;

use super::{CodeLine, LineKind, END_CTX};

/// Opens a text context.
pub const START_TEXT: &str = "__ytt_start_text";
/// Appends a literal to the open text context.
pub const TEXT: &str = "__ytt_text";
/// Appends a printed value (a string) to the open text context.
pub const TEXT_VALUE: &str = "__ytt_text_value";

/// A piece of a text template.
#[derive(Debug, Clone, PartialEq)]
enum Piece {
    Text { content: String, line: u32 },
    Code { content: String, line: u32 },
}

/// A text template that does not parse (unbalanced `(@` / `@)`).
#[derive(Debug, Clone)]
pub struct TextError {
    pub message: String,
    pub line: u32,
}

/// Splits `data` into literal text and code pieces, as ytt's scanner does:
/// `(@` opens code anywhere (no escapes), `@)` closes it.
fn parse(data: &str, start_line: u32) -> Result<Vec<Piece>, TextError> {
    let mut pieces = Vec::new();
    let mut in_code = false;
    let mut start = 0usize;
    let mut piece_line = start_line;
    let (mut line, mut col) = (start_line, 1u32);
    let mut last = '\0';
    for (i, c) in data.char_indices() {
        if last == '(' && c == '@' {
            if in_code {
                return Err(TextError {
                    message: format!("Unexpected code opening '(@' at line {line} col {col}"),
                    line,
                });
            }
            pieces.push(Piece::Text {
                content: data[start..i - 1].to_string(),
                line: piece_line,
            });
            in_code = true;
            start = i + 1;
            piece_line = line;
        } else if last == '@' && c == ')' {
            if !in_code {
                return Err(TextError {
                    message: format!("Unexpected code closing '@)' at line {line} col {col}"),
                    line,
                });
            }
            pieces.push(Piece::Code {
                content: data[start..i - 1].to_string(),
                line: piece_line,
            });
            in_code = false;
            start = i + 1;
            piece_line = line;
        }
        if c == '\n' {
            line += 1;
            col = 1;
        } else {
            col += 1;
        }
        // a closing `@)` must not also start the next opening: `@)(@` is two tokens,
        // but `(@)` is an opening only
        last = if (last == '(' && c == '@') || (last == '@' && c == ')') {
            '\0'
        } else {
            c
        };
    }
    if in_code {
        return Err(TextError {
            message: format!("Missing code closing '@)' at line {line} col {col}"),
            line,
        });
    }
    pieces.push(Piece::Text {
        content: data[start..].to_string(),
        line: piece_line,
    });
    Ok(pieces)
}

/// Whether a string holds any text-template code.
pub fn has_code(s: &str) -> bool {
    s.contains("(@")
}

/// Compiles `data` (starting at `at`'s line) into code that leaves the
/// rendered string as the value of the expression `__ytt_end_ctx()`: the
/// lines returned open the context and fill it; the caller writes the line
/// that closes it and uses the string.
pub fn compile_inline(data: &str, at: &Pos) -> Result<Vec<CodeLine>, TextError> {
    let mut pieces = parse(data, at.line().max(1))?;
    let mut out = vec![CodeLine {
        text: format!("{START_TEXT}()"),
        kind: LineKind::Instr { node: false },
        src: known(at),
    }];
    body(&mut pieces, at, &mut out);
    Ok(out)
}

/// Compiles a whole `.txt` file: its code ends by closing the context, which
/// makes the file's result.
pub fn compile_file(data: &str, at: &Pos) -> Result<Vec<CodeLine>, TextError> {
    let mut out = compile_inline(data, at)?;
    out[0].text = format!("{START_TEXT}(True)");
    out.push(CodeLine {
        text: format!("{END_CTX}(None)"),
        kind: LineKind::Instr { node: false },
        src: None,
    });
    Ok(out)
}

fn known(p: &Pos) -> Option<Pos> {
    p.is_known().then(|| p.clone())
}

fn body(pieces: &mut [Piece], at: &Pos, out: &mut Vec<CodeLine>) {
    // trimming first: a code piece trims the text before it (`(@-`) or
    // after it (`-@)`)
    let mut trim_next = false;
    for i in 0..pieces.len() {
        match &mut pieces[i] {
            Piece::Text { content, .. } => {
                if trim_next {
                    *content = content.trim_start().to_string();
                    trim_next = false;
                }
            }
            Piece::Code { content, .. } => {
                let trim_left = content.starts_with('-');
                trim_next = content.ends_with('-');
                if trim_left && i > 0 {
                    if let Piece::Text { content: c, .. } = &mut pieces[i - 1] {
                        *c = c.trim_end().to_string();
                    }
                }
            }
        }
    }
    for piece in pieces.iter() {
        match piece {
            Piece::Text { content, line } => {
                if content.is_empty() {
                    continue;
                }
                out.push(CodeLine {
                    text: format!("{TEXT}({})", starlark_string(content)),
                    kind: LineKind::Text,
                    src: known(&at.with_line(*line)),
                });
            }
            Piece::Code { content, line } => {
                let printing = content.starts_with('=') || content.starts_with("-=");
                let code = content
                    .strip_prefix("-=")
                    .or_else(|| content.strip_prefix('='))
                    .or_else(|| content.strip_prefix('-'))
                    .unwrap_or(content);
                let code = code.strip_suffix('-').unwrap_or(code);
                if printing {
                    let code = code.replace('\n', " ");
                    out.push(CodeLine {
                        text: format!("{TEXT_VALUE}(({}))", code.trim()),
                        kind: LineKind::Text,
                        src: known(&at.with_line(*line)),
                    });
                } else {
                    for (k, l) in code.split('\n').enumerate() {
                        out.push(CodeLine {
                            text: l.trim().to_string(),
                            kind: LineKind::User,
                            src: known(&at.with_line(*line + k as u32)),
                        });
                    }
                }
            }
        }
    }
}

/// A Starlark string literal for any text.
fn starlark_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(p: &[Piece]) -> Vec<String> {
        p.iter()
            .map(|p| match p {
                Piece::Text { content, .. } => format!("T:{content}"),
                Piece::Code { content, .. } => format!("C:{content}"),
            })
            .collect()
    }

    #[test]
    fn splits_text_and_code() {
        let p = parse("a (@= x @) b(@ if y: @)c(@ end @)", 1).unwrap();
        assert_eq!(
            texts(&p),
            [
                "T:a ",
                "C:= x ",
                "T: b",
                "C: if y: ",
                "T:c",
                "C: end ",
                "T:"
            ]
        );
    }

    #[test]
    fn unbalanced_markers_are_errors_with_a_line() {
        let e = parse("a\n(@ x", 1).unwrap_err();
        assert_eq!(e.message, "Missing code closing '@)' at line 2 col 5");
        let e = parse("x @) y", 3).unwrap_err();
        assert_eq!(e.message, "Unexpected code closing '@)' at line 3 col 4");
        let e = parse("(@ (@ @)", 1).unwrap_err();
        assert!(e.message.starts_with("Unexpected code opening"));
    }

    #[test]
    fn trimming_removes_whitespace_beside_the_code() {
        let lines = compile_inline("a  \n(@- x = 1 -@)\n  b", &Pos::unknown()).unwrap();
        let text: Vec<&str> = lines.iter().map(|l| l.text.as_str()).collect();
        assert_eq!(
            text,
            [
                "__ytt_start_text()",
                "__ytt_text(\"a\")",
                "x = 1",
                "__ytt_text(\"b\")"
            ]
        );
    }

    #[test]
    fn literals_are_escaped() {
        assert_eq!(starlark_string("a\"b\\c\nd"), "\"a\\\"b\\\\c\\nd\"");
    }
}
