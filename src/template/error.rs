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

use super::blocks::{Program, ASSERT_RENAMED};

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
    let frames = frame_lines(e);
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
        out.push_str(&format!("\n    in {}", f.context));
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
                out.push_str(&format!("\n      {place} | {text}"));
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
    let raw = raw.trim_end().to_string();
    let budget = raw.contains("ytt-budget:");
    let raw = raw
        .replace(ASSERT_RENAMED, "assert")
        .replace("ytt-budget: ", "");
    let code = e.span().map(|s| s.source_span().to_string());
    let raw = normalize(&raw);
    let mut lines = raw.lines();
    let topic = crate::gocompat::starlark_message(lines.next().unwrap_or(""), code.as_deref());
    let rest = lines.map(|s| s.to_string()).collect();
    (Msg { topic, rest }, budget)
}

/// Rewords starlark-rust messages into go-starlark's where they differ in ways
/// users (and ytt's hints) rely on.
fn normalize(msg: &str) -> String {
    let mut m = msg.to_string();
    if let Some(rest) = m.strip_prefix("Variable `") {
        if let Some(name) = rest.strip_suffix("` not found") {
            m = format!("undefined: {name}");
        }
    }
    // The compiler's own instructions must never show in messages: a parse
    // error "at" one of them means the code before a YAML node is unfinished.
    use super::compile::{
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
        context = crate::template::go::short_function_name(&f.name).to_string();
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

/// ytt's go-cli-ui `MultiLineError`: on the first line, outside brackets,
/// `: X` (X an upper-case letter) starts a new, further indented line.
pub fn multi_line_error(msg: &str) -> String {
    let mut lines: Vec<&str> = msg.split('\n').collect();
    let first = lines.remove(0);
    // split the first line into top-level text and bracketed containers
    let mut out = String::new();
    let mut depth = 0usize;
    let chars: Vec<char> = first.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '[' | '(' | '{' => depth += 1,
            ']' | ')' | '}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        if depth == 0
            && c == ':'
            && chars.get(i + 1) == Some(&' ')
            && chars
                .get(i + 2)
                .map(|c| c.is_ascii_uppercase())
                .unwrap_or(false)
        {
            out.push_str(":\n");
            i += 2;
            continue;
        }
        out.push(c);
        i += 1;
    }
    let mut first_lines = Vec::new();
    for (i, chunk) in out.split('\n').enumerate() {
        first_lines.push(format!("{}{}", "  ".repeat(i), chunk));
    }
    let mut result = first_lines.join("\n");
    for l in lines {
        result.push('\n');
        result.push_str(l);
    }
    result
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
    }
}
