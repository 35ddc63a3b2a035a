//! ytt's `end`-closed Starlark -> indentation-based Starlark.
//!
//! ytt runs a fork of starlark-go whose scanner ignores indentation: a line
//! ending in `:` opens a block, `end` closes it, `else`/`elif` close and reopen.
//! starlark-rust only knows indentation, so this module re-indents the program.
//! Along the way it does what ytt does to the program AST:
//!
//! * a `def` whose body builds YAML nodes is a *fragment function*: it gets a
//!   `start_ctx` at its start, `return end_ctx()` at its end, and its `return x`
//!   statements become `return end_ctx(x)`;
//! * `pass` is rejected (ytt reserves it);
//!
//! and it smooths over starlark-rust's differences:
//!
//! * `assert` is a reserved word there but ytt code names its module `assert`:
//!   the identifier is renamed (and renamed back in messages);
//! * `while` is not supported there: `while c:` becomes a bounded `for` loop that
//!   breaks when `c` is false (the evaluation budget still stops endless loops).
//!
//! Every output line remembers the template position it came from, so errors
//! point at the template, not at generated code.

use crate::yaml::Pos;

use super::text::START_TEXT;
use super::{CodeLine, LineKind, END_CTX, NODES_GLOBAL, START_CTX};

/// The identifier `assert` is renamed to this in generated code.
pub const ASSERT_RENAMED: &str = "__ytt_assert";

/// Indented Starlark source with, for each line, the template position it maps to.
#[derive(Debug, Clone)]
pub struct Program {
    pub source: String,
    /// `line_map[i]` is the position for line `i + 1` of `source`.
    pub line_map: Vec<Option<Pos>>,
    /// The original (ytt-dialect) text of each output line, for "(generated)"
    /// messages.
    pub line_text: Vec<String>,
    /// Frames in this program show the line without the file name (ytt
    /// positions the code of `.star` files that way).
    pub bare_lines: bool,
}

pub use super::lines::BlockError;

use super::lines::{logical_lines, scan_line, Logical, ScanState, Tok, Token};

// ------------------------------------------------------------------ blocks

struct OpenBlock {
    is_def: bool,
    def_id: Option<usize>,
    body_lines: usize,
    src: Option<Pos>,
}

#[derive(Debug)]
enum Entry {
    Line {
        depth: usize,
        text: String,
        src: Option<Pos>,
        orig: String,
    },
    DefStart {
        def_id: usize,
        depth: usize,
    },
    DefEnd {
        def_id: usize,
        depth: usize,
    },
    Return {
        depth: usize,
        def_id: usize,
        lg: usize,
    },
}

/// Converts ytt-dialect code into indented Starlark.
pub fn convert(code: &[CodeLine]) -> Result<Program, BlockError> {
    let logicals = logical_lines(code)?;
    let mut entries: Vec<Entry> = Vec::new();
    let mut stack: Vec<OpenBlock> = Vec::new();
    let mut def_count = 0usize;
    // per def: 0 plain, 1 builds text, 2 builds YAML nodes (wins)
    let mut def_uses_tpl: Vec<u8> = Vec::new();
    let mut while_count = 0usize;

    let current_def =
        |stack: &[OpenBlock]| stack.iter().rev().find(|b| b.is_def).and_then(|b| b.def_id);

    for (li, lg) in logicals.iter().enumerate() {
        let first = lg.first_ident().map(|s| s.to_string());
        // `pass` is reserved in ytt
        if let Some(t) = lg
            .significant()
            .find(|t| matches!(&t.tok, Tok::Ident(s) if s == "pass"))
        {
            let _ = t;
            return Err(BlockError {
                pos: lg.src(),
                message: "use of reserved keyword 'pass' is not allowed".to_string(),
            });
        }
        if first.as_deref() == Some("end") && lg.significant().count() == 1 {
            let Some(block) = stack.pop() else {
                return Err(BlockError {
                    pos: lg.src(),
                    message: "unexpected end".to_string(),
                });
            };
            close_block(&mut entries, &block, stack.len());
            continue;
        }
        if matches!(first.as_deref(), Some("else") | Some("elif")) && lg.ends_with_colon() {
            let Some(block) = stack.pop() else {
                return Err(BlockError {
                    pos: lg.src(),
                    message: "unexpected end".to_string(),
                });
            };
            close_block(&mut entries, &block, stack.len());
            let depth = stack.len();
            push_logical(&mut entries, lg, depth);
            stack.push(OpenBlock {
                is_def: false,
                def_id: None,
                body_lines: 0,
                src: lg.src(),
            });
            continue;
        }
        if let Some(b) = stack.last_mut() {
            b.body_lines += 1;
        }
        let depth = stack.len();
        let builds = match lg.kind {
            LineKind::Instr { node: true } => 2,
            LineKind::Text => 1,
            _ => 0,
        };
        if builds > 0 {
            if let Some(d) = current_def(&stack) {
                def_uses_tpl[d] = def_uses_tpl[d].max(builds);
            }
        }
        if first.as_deref() == Some("return") {
            if let Some(d) = current_def(&stack) {
                entries.push(Entry::Return {
                    depth,
                    def_id: d,
                    lg: li,
                });
                continue;
            }
        }
        if lg.ends_with_colon() {
            let is_def = first.as_deref() == Some("def");
            if first.as_deref() == Some("while") {
                while_count += 1;
                push_while(&mut entries, lg, depth, while_count);
                stack.push(OpenBlock {
                    is_def: false,
                    def_id: None,
                    body_lines: 1,
                    src: lg.src(),
                });
                continue;
            }
            push_logical(&mut entries, lg, depth);
            let def_id = if is_def {
                def_count += 1;
                def_uses_tpl.push(0);
                entries.push(Entry::DefStart {
                    def_id: def_count - 1,
                    depth: depth + 1,
                });
                Some(def_count - 1)
            } else {
                None
            };
            stack.push(OpenBlock {
                is_def,
                def_id,
                body_lines: 0,
                src: lg.src(),
            });
            continue;
        }
        push_logical(&mut entries, lg, depth);
    }
    if let Some(b) = stack.last() {
        return Err(BlockError {
            pos: b.src.clone(),
            message: "mismatched set of block openings (if/else/elif/for/def) and closing (end)"
                .to_string(),
        });
    }

    // emit
    let mut source = String::new();
    let mut line_map = Vec::new();
    let mut line_text = Vec::new();
    let mut emit = |depth: usize, text: &str, src: Option<Pos>, orig: &str| {
        for _ in 0..depth {
            source.push_str("  ");
        }
        source.push_str(text);
        source.push('\n');
        line_map.push(src);
        line_text.push(orig.to_string());
    };
    for e in &entries {
        match e {
            Entry::Line {
                depth,
                text,
                src,
                orig,
            } => emit(*depth, text, src.clone(), orig),
            Entry::DefStart { def_id, depth } => {
                if def_uses_tpl[*def_id] == 1 {
                    let t = format!("{START_TEXT}()");
                    emit(*depth, &t, None, &t);
                } else if def_uses_tpl[*def_id] == 2 {
                    let t = format!("{START_CTX}({NODES_GLOBAL})");
                    emit(*depth, &t, None, &t);
                }
            }
            Entry::DefEnd { def_id, depth } => {
                if def_uses_tpl[*def_id] > 0 {
                    let t = format!("return {END_CTX}()");
                    emit(*depth, &t, None, &t);
                }
            }
            Entry::Return { depth, def_id, lg } => {
                let lg = &logicals[*lg];
                if def_uses_tpl[*def_id] > 0 {
                    for (i, text) in rewrite_return(lg).into_iter().enumerate() {
                        emit(
                            if i == 0 { *depth } else { 0 },
                            &text,
                            lg.srcs[i].clone(),
                            &lg.lines[i],
                        );
                    }
                } else {
                    for (i, text) in rewrite_tokens(lg).into_iter().enumerate() {
                        emit(
                            if i == 0 { *depth } else { 0 },
                            &text,
                            lg.srcs[i].clone(),
                            &lg.lines[i],
                        );
                    }
                }
            }
        }
    }
    Ok(Program {
        source,
        line_map,
        line_text,
        bare_lines: false,
    })
}

fn close_block(entries: &mut Vec<Entry>, block: &OpenBlock, depth: usize) {
    if block.body_lines == 0 && !(block.is_def) {
        entries.push(Entry::Line {
            depth: depth + 1,
            text: "pass".to_string(),
            src: None,
            orig: "end".to_string(),
        });
    }
    if let Some(d) = block.def_id {
        if block.body_lines == 0 {
            // an empty def still needs a body; `return end_ctx()` may be absent
            entries.push(Entry::Line {
                depth: depth + 1,
                text: "pass".to_string(),
                src: None,
                orig: "end".to_string(),
            });
        }
        entries.push(Entry::DefEnd {
            def_id: d,
            depth: depth + 1,
        });
    }
}

fn push_logical(entries: &mut Vec<Entry>, lg: &Logical, depth: usize) {
    if lg.fixed {
        entries.push(Entry::Line {
            depth,
            text: lg.lines[0].clone(),
            src: lg.srcs[0].clone(),
            orig: lg.lines[0].clone(),
        });
        return;
    }
    let mut lines = rewrite_tokens(lg);
    if lines.len() == 1 {
        if let Some(guarded) = guard_mul_assign(&lines[0]) {
            lines[0] = guarded;
        }
    }
    for (i, text) in lines.into_iter().enumerate() {
        entries.push(Entry::Line {
            depth: if i == 0 { depth } else { 0 },
            text,
            src: lg.srcs[i].clone(),
            orig: lg.lines[i].clone(),
        });
    }
}

/// `target *= n` -> `target = MUL(target, (n))`, so that repetition goes
/// through the size-checked multiplication (see `guard::MUL_FUNCTION`; the
/// `*` operator itself is replaced in the AST). go-starlark evaluates `x *= n`
/// as `x = x * n` for every type, so this keeps ytt's meaning. Only simple
/// targets (`a`, `a.b`, `a[0]`, no calls) are rewritten: they can be evaluated
/// twice without side effects.
fn guard_mul_assign(line: &str) -> Option<String> {
    // the operator is `*` right before `=`
    if !line.contains("*=") {
        return None;
    }
    let mut tokens = Vec::new();
    let mut state = ScanState::default();
    scan_line(line, 0, &mut state, &mut tokens);
    let mut depth = 0usize;
    let mut op = None;
    let mut end = line.len();
    for (i, t) in tokens.iter().enumerate() {
        match t.tok {
            Tok::Open => depth += 1,
            Tok::Close => depth = depth.saturating_sub(1),
            Tok::Comment => end = t.start,
            Tok::Other if depth == 0 && &line[t.start..t.end] == ";" => return None,
            Tok::Other if depth == 0 && &line[t.start..t.end] == "*" => {
                if let Some(next) = tokens.get(i + 1) {
                    if next.start == t.end && &line[next.start..next.end] == "=" {
                        // `**=` is not Starlark; `a *= b` once per line
                        if op.is_some()
                            || (i > 0
                                && tokens[i - 1].end == t.start
                                && &line[tokens[i - 1].start..tokens[i - 1].end] == "*")
                        {
                            return None;
                        }
                        op = Some((t.start, next.end));
                    }
                }
            }
            _ => {}
        }
    }
    let (star, after) = op?;
    let target = line[..star].trim();
    let value = line[after..end].trim();
    let simple = regex_lite_target(target);
    if !simple || value.is_empty() {
        return None;
    }
    Some(format!(
        "{target} = {}({target}, ({value}))",
        super::limits::MUL_FUNCTION
    ))
}

/// `name`, `name.attr`, `name[index]` chains without calls or strings.
fn regex_lite_target(target: &str) -> bool {
    const KEYWORDS: &[&str] = &[
        "if", "for", "elif", "else", "return", "def", "load", "lambda", "not", "and", "or", "in",
    ];
    let first: String = target
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    !first.is_empty()
        && !first.starts_with(|c: char| c.is_ascii_digit())
        && !KEYWORDS.contains(&first.as_str())
        && target
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '.' | '[' | ']' | ' ' | '-'))
}

/// `while cond:` -> `for _ in range(MAX):` + `if not (cond): break`.
fn push_while(entries: &mut Vec<Entry>, lg: &Logical, depth: usize, n: usize) {
    let lines = rewrite_tokens(lg);
    let mut joined = lines.join("\n");
    // drop the leading `while` and the trailing `:`
    joined = joined.trim_start().trim_start_matches("while").to_string();
    if let Some(idx) = joined.rfind(':') {
        joined.truncate(idx);
    }
    entries.push(Entry::Line {
        depth,
        text: format!("for __ytt_while_{n} in range(2147483647):"),
        src: lg.src(),
        orig: lg.lines[0].clone(),
    });
    let cond_lines: Vec<&str> = joined.split('\n').collect();
    let last = cond_lines.len() - 1;
    for (i, l) in cond_lines.iter().enumerate() {
        let mut text = String::new();
        if i == 0 {
            text.push_str("if not (");
        }
        text.push_str(l);
        if i == last {
            text.push_str("): break");
        }
        entries.push(Entry::Line {
            depth: if i == 0 { depth + 1 } else { 0 },
            text,
            src: lg.srcs.get(i).cloned().flatten(),
            orig: lg.lines.get(i).cloned().unwrap_or_default(),
        });
    }
}

/// Applies token-level renames (`assert`) to a logical line's physical lines.
fn rewrite_tokens(lg: &Logical) -> Vec<String> {
    let mut lines = lg.lines.clone();
    let is_load = lg.first_ident() == Some("load");
    // collect replacements per line: (start, end, text), applied right to left
    let mut repl: Vec<Vec<(usize, usize, String)>> = vec![Vec::new(); lines.len()];
    let sig: Vec<&Token> = lg.significant().collect();
    for (i, t) in sig.iter().enumerate() {
        match &t.tok {
            Tok::Ident(s) if s == "assert" => {
                let after_dot = i > 0 && sig[i - 1].tok == Tok::Dot;
                if !after_dot {
                    repl[t.line].push((t.start, t.end, ASSERT_RENAMED.to_string()));
                }
            }
            Tok::Str if is_load && t.line < lines.len() => {
                // a string left open runs on to later lines: its end is not
                // on this one (and then it is not "assert")
                let Some(text) = lines[t.line].get(t.start..t.end.min(lines[t.line].len())) else {
                    continue;
                };
                let prev_is_eq = i > 0 && matches!(&sig[i - 1].tok, Tok::Other) && {
                    let p = sig[i - 1];
                    lines.get(p.line).and_then(|l| l.get(p.start..p.end)) == Some("=")
                };
                if (text == "\"assert\"" || text == "'assert'") && !prev_is_eq {
                    repl[t.line].push((t.start, t.end, format!("{ASSERT_RENAMED}={text}")));
                }
            }
            _ => {}
        }
    }
    kwargs_of_structs(lg, &lines, &sig, &mut repl);
    for (li, r) in repl.iter_mut().enumerate() {
        r.sort_by_key(|x| std::cmp::Reverse(x.0));
        for (s, e, text) in r.iter() {
            if lines[li].get(*s..*e).is_none() {
                continue;
            }
            lines[li].replace_range(*s..*e, text);
        }
    }
    lines
}

/// Wraps the operand of `**` in a call argument list as `**__ytt_kwargs(x)`:
/// go-starlark unpacks any mapping there, and ytt's structs are mappings
/// (`dict(**data.values.x)`), while starlark-rust takes only dicts.
fn kwargs_of_structs(
    lg: &Logical,
    lines: &[String],
    sig: &[&Token],
    repl: &mut [Vec<(usize, usize, String)>],
) {
    if lg.first_ident() == Some("def") {
        return;
    }
    let text = |t: &Token| -> &str {
        lines
            .get(t.line)
            .and_then(|l| l.get(t.start..t.end))
            .unwrap_or("")
    };
    for i in 1..sig.len().saturating_sub(2) {
        let (a, b) = (sig[i], sig[i + 1]);
        if text(a) != "*" || text(b) != "*" || a.line != b.line || a.end != b.start {
            continue;
        }
        let prev = text(sig[i - 1]);
        if prev != "(" && prev != "," {
            continue;
        }
        // not in a lambda's parameters (`lambda **kw: ...`)
        let mut depth = 0i32;
        let mut in_lambda = false;
        for t in sig[..i].iter().rev() {
            match t.tok {
                Tok::Close => depth += 1,
                Tok::Open if depth == 0 => break,
                Tok::Open => depth -= 1,
                Tok::Colon if depth == 0 => break,
                Tok::Ident(ref w) if depth == 0 && w == "lambda" => {
                    in_lambda = true;
                    break;
                }
                _ => {}
            }
        }
        if in_lambda {
            continue;
        }
        let mut depth = 0i32;
        let mut j = i + 2;
        while j < sig.len() {
            match sig[j].tok {
                Tok::Open => depth += 1,
                Tok::Close if depth == 0 => break,
                Tok::Close => depth -= 1,
                _ if depth == 0 && text(sig[j]) == "," => break,
                _ => {}
            }
            j += 1;
        }
        if j == i + 2 {
            continue;
        }
        let last = sig[j - 1];
        repl[b.line].push((b.end, b.end, format!("{KWARGS}(")));
        repl[last.line].push((last.end, last.end, ")".to_string()));
    }
}

/// The function [`kwargs_of_structs`] calls.
pub const KWARGS: &str = "__ytt_kwargs";

/// `return x` -> `return __ytt_end_ctx(x)` inside fragment functions.
fn rewrite_return(lg: &Logical) -> Vec<String> {
    let mut lines = rewrite_tokens(lg);
    // the rewritten first line starts with `return`
    let first = &lines[0];
    let rest = first.trim_start().strip_prefix("return").unwrap_or("");
    let has_value = lg.significant().count() > 1;
    if !has_value {
        lines[0] = format!("return {END_CTX}()");
        return lines;
    }
    lines[0] = format!("return {END_CTX}({}", rest.trim_start());
    // close the call before a trailing comment of the last line
    let last = lines.len() - 1;
    let comment_start = lg
        .tokens
        .iter()
        .filter(|t| t.tok == Tok::Comment && t.line == last)
        .map(|t| t.start)
        .next();
    match comment_start {
        Some(cs) if last > 0 => {
            let l = &mut lines[last];
            l.insert(cs.min(l.len()), ')');
        }
        Some(_) => {
            // single line: find the comment in the rewritten text
            let l = &mut lines[0];
            if let Some(idx) = l.find('#') {
                l.insert(idx, ')');
            } else {
                l.push(')');
            }
        }
        None => lines[last].push(')'),
    }
    lines
}

#[cfg(test)]
mod tests {

    #[test]
    fn fixed_instructions_are_only_tag_calls() {
        assert!(super::super::lines::is_fixed_instruction("__ytt_node(12)"));
        assert!(super::super::lines::is_fixed_instruction(
            "__ytt_start_node(0)"
        ));
        assert!(super::super::lines::is_fixed_instruction(
            "__ytt_set_node(7)"
        ));
        assert!(!super::super::lines::is_fixed_instruction(
            "__ytt_set_node(7, (x))"
        ));
        assert!(!super::super::lines::is_fixed_instruction("__ytt_node()"));
        assert!(super::super::lines::is_fixed_instruction(
            "__ytt_node_run(3, 12)"
        ));
        assert!(!super::super::lines::is_fixed_instruction(
            "__ytt_node_run(3)"
        ));
        assert!(!super::super::lines::is_fixed_instruction(
            "__ytt_node_run(3, x)"
        ));
        assert!(!super::super::lines::is_fixed_instruction(
            "__ytt_node(1) + f("
        ));
        assert!(!super::super::lines::is_fixed_instruction(
            "__ytt_ann(1, \"x\")"
        ));
    }

    use super::*;

    fn lines(code: &[(&str, LineKind)]) -> Vec<CodeLine> {
        code.iter()
            .map(|(t, k)| CodeLine {
                text: t.to_string(),
                kind: *k,
                src: None,
            })
            .collect()
    }

    const U: LineKind = LineKind::User;
    const N: LineKind = LineKind::Instr { node: true };

    #[test]
    fn reindents_blocks() {
        let p = convert(&lines(&[
            ("if x:", U),
            ("a = 1", U),
            ("elif y:", U),
            ("else:", U),
            ("b = [", U),
            ("  1,", U),
            ("]", U),
            ("end", U),
            ("for i in range(3):", U),
            ("end", U),
        ]))
        .unwrap();
        assert_eq!(
            p.source,
            "if x:\n  a = 1\nelif y:\n  pass\nelse:\n  b = [\n1,\n]\nfor i in range(3):\n  pass\n"
        );
        assert_eq!(p.line_map.len(), 10);
    }

    #[test]
    fn fragment_functions_get_contexts() {
        let p = convert(&lines(&[
            ("def f(x):", U),
            ("if x:", U),
            ("return 1 # early", U),
            ("end", U),
            ("__ytt_start_node(3)", N),
            ("end", U),
            ("def g():", U),
            ("return 2", U),
            ("end", U),
        ]))
        .unwrap();
        assert_eq!(
            p.source,
            "def f(x):\n  __ytt_start_ctx(__ytt_nodes)\n  if x:\n    return __ytt_end_ctx(1 )# early\n  __ytt_start_node(3)\n  return __ytt_end_ctx()\ndef g():\n  return 2\n"
        );
    }

    #[test]
    fn assert_and_while() {
        let p = convert(&lines(&[
            ("load(\"@ytt:assert\", \"assert\")", U),
            ("assert.fail(\"x\")", U),
            ("while n < 3:", U),
            ("n += 1", U),
            ("end", U),
        ]))
        .unwrap();
        assert_eq!(
            p.source,
            "load(\"@ytt:assert\", __ytt_assert=\"assert\")\n__ytt_assert.fail(\"x\")\nfor __ytt_while_1 in range(2147483647):\n  if not ( n < 3): break\n  n += 1\n"
        );
    }

    #[test]
    fn errors() {
        assert!(convert(&lines(&[("if x:", U)]))
            .unwrap_err()
            .message
            .contains("mismatched"));
        assert!(convert(&lines(&[("end", U)]))
            .unwrap_err()
            .message
            .contains("unexpected end"));
        assert!(convert(&lines(&[("pass", U)]))
            .unwrap_err()
            .message
            .contains("pass"));
    }

    #[test]
    fn strings_and_colons() {
        let p = convert(&lines(&[
            ("x = {\"a\": 1}", U),
            ("s = \"\"\"multi", U),
            ("line: with colon", U),
            ("\"\"\"", U),
            ("f = lambda v: v", U),
        ]))
        .unwrap();
        assert_eq!(
            p.source,
            "x = {\"a\": 1}\ns = \"\"\"multi\nline: with colon\n\"\"\"\nf = lambda v: v\n"
        );
    }
}
