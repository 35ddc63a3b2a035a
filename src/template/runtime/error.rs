//! Template errors, worded and located as ytt words and locates them.
//!
//! A Starlark error in starlark-rust carries a call stack whose locations are
//! in generated code. ytt prints the template's own lines instead:
//!
//! ```text
//! - fail: value > 2
//!     in lambda
//!       assert.max:1 | (unavailable)
//!     in <toplevel>
//!       values.yml:5 | max_of_int: #@ assert.max(2).check(3)
//! ```
//!
//! This module maps generated lines back through each program's line map.

use std::collections::HashMap;
use std::sync::Arc;

use crate::yaml::Pos;

use crate::template::compiler::blocks::{Program, ASSERT_RENAMED};

/// An error from parsing, compiling or evaluating a template, with ytt's text
/// and the template position it is about.
#[derive(Debug, Clone)]
pub struct TemplateError {
    /// ytt's message (before the multi-line formatter).
    pub message: String,
    /// Where the error is, for findings (innermost template frame).
    pub pos: Option<Pos>,
    /// The kind of failure, for rule ids.
    pub kind: TemplateErrorKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TemplateErrorKind {
    Yaml,
    Compile,
    Starlark,
    Budget,
    Load,
}

impl TemplateError {
    pub fn new(kind: TemplateErrorKind, message: impl Into<String>, pos: Option<Pos>) -> Self {
        TemplateError {
            message: message.into(),
            pos,
            kind,
        }
    }

    /// The same error under a heading (ytt's `Evaluating starlark template: ...`).
    pub fn prefixed(mut self, prefix: &str) -> Self {
        self.message = format!("{prefix}{}", self.message);
        self
    }
}

impl std::fmt::Display for TemplateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.message)
    }
}

/// Programs by the file name starlark-rust knows them by.
pub type ProgramRegistry = HashMap<String, Arc<Program>>;

struct FrameLine {
    context: String,
    file: String,
    line: u32,
}

/// Formats a starlark-rust error the way ytt formats a CompiledTemplateMultiError.
pub fn render_starlark_error(
    e: &starlark::Error,
    programs: &ProgramRegistry,
) -> (String, Option<Pos>, bool) {
    let (msg, budget) = error_message(e);
    // a name the resolver could not find is go-starlark's resolve error:
    // no call stack, only where the name is
    let resolving = matches!(e.kind(), starlark::ErrorKind::Scope(_));
    let mut frames = if resolving {
        resolve_place(e)
    } else {
        frame_lines(e)
    };
    // a call to one of `@ytt:assert`'s lambdas that lacks its argument:
    // go-starlark fails inside the lambda, which ytt defines in a source of
    // its own (`assert.not_null`), and shows that frame first
    let raw = format!("{}", e.without_diagnostic());
    if let Some(module) = raw
        .split_once("` for call to `")
        .and_then(|(_, f)| f.trim_end().trim_end_matches('`').strip_suffix(".lambda"))
        .filter(|m| m.starts_with("assert.") && raw.starts_with("Missing parameter `"))
    {
        frames.push(FrameLine {
            context: "lambda".to_string(),
            file: module.to_string(),
            line: 1,
        });
    }
    let mut out = String::new();
    out.push('\n');
    out.push_str(&format!("- {}{}", msg.topic, hint(&msg.topic)));
    let mut primary: Option<Pos> = None;
    // Deep recursion repeats one frame hundreds of times: show it once.
    let mut runs: Vec<(&FrameLine, usize)> = Vec::new();
    for f in frames.iter().rev() {
        match runs.last_mut() {
            Some((g, n)) if g.context == f.context && g.file == f.file && g.line == f.line => {
                *n += 1
            }
            _ => runs.push((f, 1)),
        }
    }
    for (f, repeats) in runs {
        if repeats > 1 {
            out.push_str(&format!(
                "\n    ({} more frames like the one below)",
                repeats - 1
            ));
        }
        let Some(program) = programs.get(&f.file) else {
            out.push_str(&format!(
                "\n    in {}\n      {}:{} | (unavailable)",
                f.context, f.file, f.line
            ));
            continue;
        };
        let idx = f.line.saturating_sub(1) as usize;
        let mapped = program.line_map.get(idx).cloned().flatten();
        // (a resolve error's place has no context: ytt shows the line alone)
        let indent = if f.context.is_empty() {
            "    "
        } else {
            out.push_str(&format!("\n    in {}", f.context));
            "      "
        };
        match mapped {
            Some(pos) => {
                if primary.is_none() {
                    primary = Some(pos.clone());
                }
                let text = pos.line_text().unwrap_or("");
                let place = if program.bare_lines {
                    pos.line().to_string()
                } else {
                    pos.compact()
                };
                out.push_str(&format!("\n{indent}{place} | {text}"));
            }
            None => {
                // generated line: show the closest template lines around it
                let before = (0..idx)
                    .rev()
                    .find_map(|i| program.line_map.get(i).cloned().flatten());
                let after = (idx + 1..program.line_map.len())
                    .find_map(|i| program.line_map.get(i).cloned().flatten());
                if let Some(b) = &before {
                    out.push_str(&format!(
                        "\n      {} | {}",
                        b.compact(),
                        b.line_text().unwrap_or("")
                    ));
                }
                let gen = program.line_text.get(idx).cloned().unwrap_or_default();
                out.push_str(&format!(
                    "\n      {}:? | {} (generated)",
                    f.file,
                    gen.trim()
                ));
                if let Some(a) = &after {
                    out.push_str(&format!(
                        "\n      {} | {}",
                        a.compact(),
                        a.line_text().unwrap_or("")
                    ));
                }
                if primary.is_none() {
                    primary = before.or(after);
                }
            }
        }
    }
    if !msg.rest.is_empty() {
        out.push_str("\n\n    reason:");
        for l in &msg.rest {
            out.push_str(&format!("\n     {l}"));
        }
    }
    (out, primary, budget)
}

struct Msg {
    topic: String,
    rest: Vec<String>,
}

fn error_message(e: &starlark::Error) -> (Msg, bool) {
    let raw = format!("{}", e.without_diagnostic());
    // every line counts, the empty ones at the end too: a nested library's
    // validation error closes with blank lines, which ytt indents with the
    // reason like any other
    let budget = raw.contains("ytt-budget:");
    let raw = raw
        .replace(ASSERT_RENAMED, "assert")
        .replace("ytt-budget: ", "");
    let code = e.span().map(|s| s.source_span().to_string());
    let raw = normalize(&raw);
    let mut lines = raw.split('\n');
    let topic = crate::gocompat::starlark_message(lines.next().unwrap_or(""), code.as_deref());
    let rest = lines.map(|s| s.to_string()).collect();
    (Msg { topic, rest }, budget)
}

/// Rewords starlark-rust messages into go-starlark's where they differ in ways
/// users (and ytt's hints) rely on.
fn normalize(msg: &str) -> String {
    let mut m = crate::template::runtime::go::attribute_error(msg)
        .or_else(|| crate::template::runtime::go::missing_parameter(msg))
        .unwrap_or_else(|| msg.to_string());
    if let Some(rest) = m.strip_prefix("Variable `") {
        if let Some(name) = rest.strip_suffix("` not found") {
            m = format!("undefined: {name}");
        } else if let Some((name, better)) = rest
            .split_once("` not found, did you mean `")
            .and_then(|(n, b)| Some((n, b.strip_suffix("`?")?)))
        {
            // go-starlark's resolver words its suggestion so
            m = format!("undefined: {name} (did you mean {better}?)");
        }
    }
    // The compiler's own instructions must never show in messages: a parse
    // error "at" one of them means the code before a YAML node is unfinished.
    use crate::template::compiler::{
        ANNOTATION, END_CTX, NODE, NODE_RUN, SET_KEY, SET_NODE, START_CTX, START_NODE,
    };
    for internal in [
        START_NODE, SET_NODE, NODE, NODE_RUN, ANNOTATION, SET_KEY, START_CTX, END_CTX,
    ] {
        let quoted = format!("identifier '{internal}'");
        if m.contains(&quoted) {
            m = m.replace(
                &quoted,
                "YAML node (is a bracket, string or block in the code above it left open?)",
            );
        }
    }
    m
}

fn hint(msg: &str) -> String {
    let h = match msg {
        "undefined: true" => Some("use 'True' instead of 'true' for boolean assignment"),
        "undefined: false" => Some("use 'False' instead of 'false' for boolean assignment"),
        "undefined: null" => Some("use 'None' instead of 'null' to indicate no value"),
        "undefined: nil" => Some("use 'None' instead of 'nil' to indicate no value"),
        "undefined: none" => Some("use 'None' instead of 'none' to indicate no value"),
        _ => None,
    };
    match h {
        Some(h) => format!(" (hint: {h})"),
        None => String::new(),
    }
}

/// Where a resolve error is: its span's line, with no context.
fn resolve_place(e: &starlark::Error) -> Vec<FrameLine> {
    e.span()
        .map(|span| FrameLine {
            context: String::new(),
            file: span.filename().to_string(),
            line: span.resolve_span().begin.line as u32 + 1,
        })
        .into_iter()
        .collect()
}

/// The call stack as (context name, file, line) from outermost to innermost.
fn frame_lines(e: &starlark::Error) -> Vec<FrameLine> {
    let stack = e.call_stack();
    let frames = &stack.frames;
    let mut out = Vec::new();
    let mut context = "<toplevel>".to_string();
    for f in frames {
        if let Some(loc) = &f.location {
            let resolved = loc.resolve_span();
            out.push(FrameLine {
                context: context.clone(),
                file: loc.filename().to_string(),
                line: resolved.begin.line as u32 + 1,
            });
        }
        context = crate::template::runtime::go::short_function_name(&f.name).to_string();
    }
    if let Some(span) = e.span() {
        let resolved = span.resolve_span();
        let line = resolved.begin.line as u32 + 1;
        let file = span.filename().to_string();
        // When the innermost frame is a native function (`fail`, ...), the
        // error span is that function's call site, already listed: ytt shows
        // no line for builtins.
        let same_as_last = frames
            .last()
            .and_then(|f| f.location.as_ref())
            .map(|loc| loc.filename() == span.filename() && loc.resolve_span() == resolved)
            .unwrap_or(false);
        if !same_as_last {
            out.push(FrameLine {
                context,
                file,
                line,
            });
        }
    }
    out
}

/// ytt's go-cli-ui `MultiLineError`: the first line is read into pieces
/// (bracketed containers `[..]`, `(..)`, `{..}` and raw `...|..|...`
/// ones), and outside any container `: X` (X an upper-case letter) starts
/// a new, further indented line. As go-cli-ui does: a closing bracket
/// closes the innermost container whatever its kind (and is printed as
/// that container's own closer), and one with no container open ends the
/// reading, so the rest of the first line is dropped
/// (`did not find expected ',' or ']'` prints as `... ',' or '`).
pub fn multi_line_error(msg: &str) -> String {
    let mut lines: Vec<&str> = msg.split('\n').collect();
    let first = lines.remove(0);
    let mut result = first_line(first);
    for l in lines {
        result.push('\n');
        result.push_str(l);
    }
    result
}

/// A piece of the first line: text, or a container of pieces.
enum Piece {
    Text(String),
    Container {
        /// `[`, `(`, `{`, or `|` for a raw `...|` container.
        open: char,
        pieces: Vec<Piece>,
        closed: bool,
    },
}

fn add_text(pieces: &mut Vec<Piece>, s: &str) {
    if let Some(Piece::Text(t)) = pieces.last_mut() {
        t.push_str(s);
    } else {
        pieces.push(Piece::Text(s.to_string()));
    }
}

/// The container at `path` (indexes of containers from the root).
fn container_at<'p>(root: &'p mut Vec<Piece>, path: &[usize]) -> &'p mut Vec<Piece> {
    let mut cur = root;
    for &i in path {
        cur = match &mut cur[i] {
            Piece::Container { pieces, .. } => pieces,
            Piece::Text(_) => unreachable!("a path names containers"),
        };
    }
    cur
}

fn close_at(root: &mut [Piece], path: &[usize]) {
    let Some((last, parents)) = path.split_last() else {
        return;
    };
    let mut cur = root;
    for &i in parents {
        cur = match &mut cur[i] {
            Piece::Container { pieces, .. } => pieces,
            Piece::Text(_) => return,
        };
    }
    if let Piece::Container { closed, .. } = &mut cur[*last] {
        *closed = true;
    }
}

fn first_line(line: &str) -> String {
    let mut root: Vec<Piece> = Vec::new();
    // containers open, from the root; `None` once the root itself closed
    let mut stack: Option<Vec<(usize, char)>> = Some(Vec::new());
    let bytes = line.as_bytes();
    for (i, c) in line.char_indices() {
        let Some(open) = stack.as_mut() else { break };
        let path: Vec<usize> = open.iter().map(|(i, _)| *i).collect();
        let in_raw = open.last().is_some_and(|(_, k)| *k == '|');
        if !in_raw {
            match c {
                '[' | '(' | '{' => {
                    let here = container_at(&mut root, &path);
                    here.push(Piece::Container {
                        open: c,
                        pieces: Vec::new(),
                        closed: false,
                    });
                    let index = here.len() - 1;
                    open.push((index, c));
                    continue;
                }
                ']' | ')' | '}' => {
                    if open.is_empty() {
                        // the root closes: nothing more is read
                        stack = None;
                    } else {
                        close_at(&mut root, &path);
                        open.pop();
                    }
                    continue;
                }
                _ => {}
            }
        }
        let s = &line[i..i + c.len_utf8()];
        if line[i..].starts_with("...|") && i + 4 < bytes.len() {
            let here = container_at(&mut root, &path);
            here.push(Piece::Container {
                open: '|',
                pieces: vec![Piece::Text(s.to_string())],
                closed: false,
            });
            let index = here.len() - 1;
            open.push((index, '|'));
        } else if c == '.' && line[..i + 1].ends_with("|...") && !open.is_empty() {
            add_text(container_at(&mut root, &path), s);
            close_at(&mut root, &path);
            open.pop();
        } else {
            add_text(container_at(&mut root, &path), s);
        }
    }
    // outside containers, `: X` starts a new line
    let colon = regex::Regex::new(r"(: )([A-Z])").expect("a regular expression");
    let mut out = String::new();
    for p in &root {
        match p {
            Piece::Text(t) => out.push_str(&colon.replace_all(t, ":\n$2")),
            c => out.push_str(&piece_text(c)),
        }
    }
    out.split('\n')
        .enumerate()
        .map(|(i, chunk)| format!("{}{chunk}", "  ".repeat(i)))
        .collect::<Vec<_>>()
        .join("\n")
}

fn piece_text(p: &Piece) -> String {
    match p {
        Piece::Text(t) => t.clone(),
        Piece::Container {
            open,
            pieces,
            closed,
        } => {
            let (opener, closer) = match open {
                '[' => ("[", "]"),
                '(' => ("(", ")"),
                '{' => ("{", "}"),
                _ => ("", ""),
            };
            let inner: String = pieces.iter().map(piece_text).collect();
            format!("{opener}{inner}{}", if *closed { closer } else { "" })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn multi_line_formatting() {
        assert_eq!(
            multi_line_error("Overlaying data values (in following order: values.yml): Templating file 'values.yml': \n- x"),
            "Overlaying data values (in following order: values.yml):\n  Templating file 'values.yml': \n- x"
        );
        assert_eq!(
            multi_line_error("Extracting data value from file: Find files 'dv/nope.yml': Checking file 'dv/nope.yml': lstat dv/nope.yml: no such file or directory"),
            "Extracting data value from file:\n  Find files 'dv/nope.yml':\n    Checking file 'dv/nope.yml': lstat dv/nope.yml: no such file or directory"
        );
        // go-cli-ui's quirks: an unbalanced closer ends the first line, a
        // closer prints as its container's own
        assert_eq!(
            multi_line_error("Extracting data value from KV: Deserializing YAML value: yaml: line 1: did not find expected ',' or ']' more"),
            "Extracting data value from KV:\n  Deserializing YAML value: yaml: line 1: did not find expected ',' or '"
        );
        assert_eq!(multi_line_error("a (b] c: D"), "a (b) c:\n  D");
        assert_eq!(
            multi_line_error("x (a: B) y: Z\nnext: Line"),
            "x (a: B) y:\n  Z\nnext: Line"
        );
    }
}
