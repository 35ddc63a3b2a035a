//! A YAML template compiled once to a Starlark function, for files that are
//! evaluated again and again (a library's templates, once per environment).
//!
//! starlark-rust compiles a module's syntax tree to bytecode every time it
//! evaluates it; for a template rendered for 1,000 pairs that compilation
//! cost more than running the bytecode. A function defined in a frozen
//! module is compiled once and can be called from any evaluator and thread,
//! so a template evaluated a second time (or from its first evaluation, when
//! the host says it will render it again: `check`) is turned into one:
//!
//! ```text
//! def ytt_template(data, yaml):               <- was __ytt_start_ctx(...)
//!   __ytt_start_ctx(__ytt_nodes, True); __ytt_start_node(0)
//!   ...
//!   pass                                     <- was load("@ytt:data", "data")
//! ```
//!
//! Each line keeps its number, so positions and the line map stay right.
//! The loaded names become parameters: the caller resolves the loads with the
//! session's loader and passes the values. Only templates whose loads come
//! before any code of theirs are turned (loading then evaluating gives what
//! evaluating in order gives), and none with a string spanning lines (which
//! the indentation would change). Every error of a function run is answered
//! by evaluating the file as a module again, as before, so error messages,
//! positions and call stacks are exactly the module's; only a step, time or
//! memory limit is reported from the run itself (at the same line), so a
//! runaway template does not run twice.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

use starlark::environment::Module;
use starlark::eval::Evaluator;
use starlark::syntax::AstModule;
use starlark::values::OwnedFrozenValue;

use super::compiler::blocks::Program;
use super::compiler::{NodeTable, NODES_GLOBAL, START_CTX};
use super::runtime::guard::{self, Tracker};
use super::runtime::values::NodeTableValue;
use super::runtime::Runtime;
use super::setup::{configure, globals, EvalOpts};

/// The name the template's function is defined under (a name with a
/// leading `_` would be private to its module, and not to be had from it).
const FUNCTION: &str = "ytt_template";

/// One `load()` of a template: the module and (local name, exported name).
pub(super) struct TemplateLoad {
    pub module: String,
    pub symbols: Vec<(String, String)>,
}

/// A template as a function, and the loads that give its arguments.
pub(super) struct TemplateFunction {
    pub function: OwnedFrozenValue,
    pub loads: Vec<TemplateLoad>,
}

/// A template's function, made when the template is evaluated again after
/// an evaluation as a module succeeded (a file evaluated once is cheaper as
/// a module, and a template that fails to compile fails as a module), or at
/// its first evaluation when the host asks for that.
#[derive(Default)]
pub struct FunctionSlot {
    succeeded: AtomicBool,
    made: OnceLock<Option<TemplateFunction>>,
}

impl std::fmt::Debug for FunctionSlot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FunctionSlot")
            .field("made", &self.made.get().map(|m| m.is_some()))
            .finish()
    }
}

impl FunctionSlot {
    /// Whether the template was compiled to a function.
    pub fn is_made(&self) -> bool {
        matches!(self.made.get(), Some(Some(_)))
    }

    /// An evaluation of the template as a module succeeded.
    pub(super) fn succeeded(&self) {
        self.succeeded.store(true, Ordering::Relaxed);
    }

    /// The function to evaluate the template with, or `None` to evaluate it
    /// as a module (until one evaluation as a module succeeded, unless
    /// `at_once`, or for a template that cannot be turned into a function).
    pub(super) fn get(
        &self,
        name: &str,
        program: &Program,
        ast: &AstModule,
        nodes: &Arc<NodeTable>,
        opts: &EvalOpts,
        at_once: bool,
    ) -> Option<&TemplateFunction> {
        if !at_once && !self.succeeded.load(Ordering::Relaxed) {
            return None;
        }
        self.made
            .get_or_init(|| make(name, program, ast, nodes, opts))
            .as_ref()
    }
}

/// Compiles the template's function, or `None` when it cannot be one.
fn make(
    name: &str,
    program: &Program,
    ast: &AstModule,
    nodes: &Arc<NodeTable>,
    opts: &EvalOpts,
) -> Option<TemplateFunction> {
    let (source, loads) = function_source(program, ast)?;
    let parsed = super::setup::parse_source(name, source).ok()?;
    let function = Module::with_temp_heap(|module| {
        module.set(
            NODES_GLOBAL,
            module.heap().alloc(NodeTableValue {
                table: nodes.clone(),
            }),
        );
        let rt = Runtime::new(None);
        let tracker = Tracker::default();
        let defined = guard::catch_panics(|| {
            let mut ev = Evaluator::new(&module);
            // the same instrumentation as a module evaluation: the function's
            // bytecode is compiled here, with the statement hook the limits use
            configure(&mut ev, opts, &tracker);
            ev.extra = Some(&rt);
            ev.eval_module(parsed, globals()).map(|_| ())
        });
        if !matches!(defined, Ok(Ok(()))) {
            return None;
        }
        module.freeze().ok()?.get(FUNCTION).ok()
    })?;
    Some(TemplateFunction { function, loads })
}

/// The function's source: the program with its first line turned into the
/// `def`, its loads into `pass`, and every other line indented; `None` when
/// the template cannot be turned (see the module documentation).
fn function_source(program: &Program, ast: &AstModule) -> Option<(String, Vec<TemplateLoad>)> {
    let source = &program.source;
    if source.contains("\"\"\"") || source.contains("'''") {
        return None;
    }
    let mut lines: Vec<String> = source.split('\n').map(str::to_string).collect();
    if lines.first()? != &format!("{START_CTX}({NODES_GLOBAL}, True)") {
        return None;
    }
    let second = lines.get(1)?;
    if !second.starts_with("__ytt_") || second.trim_end().ends_with(':') {
        return None;
    }
    let mut loads = Vec::new();
    let mut params: Vec<&str> = Vec::new();
    let mut last_load_line = 0;
    let ast_loads = ast.loads();
    let mut replaced: Vec<(usize, usize, usize)> = Vec::new();
    for load in &ast_loads {
        // the span is the module's name: the statement is `load(` before it
        // and the `)` after it, on the same line
        let span = load.span.resolve_span();
        let line = span.begin.line;
        let text = lines.get(line)?;
        if span.end.line != line || !text.is_ascii() {
            return None;
        }
        let (begin, end) = load_statement(text, span.begin.column, span.end.column)?;
        let mut symbols = Vec::new();
        for (local, exported) in load.symbols.iter() {
            // a private name is an error to load: the module says so
            if exported.starts_with('_') || params.contains(local) {
                return None;
            }
            params.push(local);
            symbols.push((local.to_string(), exported.to_string()));
        }
        loads.push(TemplateLoad {
            module: load.module_id.to_string(),
            symbols,
        });
        replaced.push((line, begin, end));
        last_load_line = last_load_line.max(line);
    }
    // nothing of the template's own runs before its last load
    for (i, line) in lines.iter().enumerate().take(last_load_line) {
        let is_load = replaced.iter().any(|(l, _, _)| *l == i);
        if !is_load && !line.trim_start().starts_with("__ytt_") && !line.trim().is_empty() {
            return None;
        }
    }
    // right to left, so earlier columns of a line stay where they are
    replaced.sort_by_key(|r| std::cmp::Reverse((r.0, r.1)));
    for (line, begin, end) in replaced {
        let text = &mut lines[line];
        if end > text.len() || begin > end {
            return None;
        }
        text.replace_range(begin..end, "pass");
    }
    let mut out = String::with_capacity(source.len() + 2 * lines.len() + 64);
    out.push_str(&format!("def {FUNCTION}({}):\n", params.join(", ")));
    for (i, line) in lines.iter().enumerate().skip(1) {
        if i == 1 {
            out.push_str(&format!("  {START_CTX}({NODES_GLOBAL}, True); {line}"));
        } else if !line.is_empty() {
            out.push_str("  ");
            out.push_str(line);
        }
        if i + 1 < lines.len() {
            out.push('\n');
        }
    }
    Some((out, loads))
}

/// The columns of the `load(...)` statement around the module name at
/// `name_begin..name_end` of `line`: `None` unless it is all on the line.
fn load_statement(line: &str, name_begin: usize, name_end: usize) -> Option<(usize, usize)> {
    let before = line.get(..name_begin)?.trim_end();
    let before = before.strip_suffix('(')?.trim_end();
    let begin = before.strip_suffix("load")?.len();
    // `load` itself, not the end of a longer name
    if line[..begin]
        .bytes()
        .last()
        .is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_')
    {
        return None;
    }
    let mut quote: Option<u8> = None;
    let mut escaped = false;
    for (i, b) in line.bytes().enumerate().skip(name_end) {
        match quote {
            Some(q) => {
                if escaped {
                    escaped = false;
                } else if b == b'\\' {
                    escaped = true;
                } else if b == q {
                    quote = None;
                }
            }
            None if b == b'"' || b == b'\'' => quote = Some(b),
            None if b == b')' => return Some((begin, i + 1)),
            None if b == b'#' => return None,
            None => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::load_statement;

    /// The columns of the module name in `line` (its first quoted string).
    fn name_span(line: &str) -> (usize, usize) {
        let begin = line.find('"').unwrap();
        let end = begin + 1 + line[begin + 1..].find('"').unwrap() + 1;
        (begin, end)
    }

    fn statement(line: &str) -> Option<&str> {
        let (b, e) = name_span(line);
        load_statement(line, b, e).map(|(b, e)| &line[b..e])
    }

    #[test]
    fn a_load_statement_is_found_around_its_module_name() {
        let l = r#"load("@ytt:data", "data")"#;
        assert_eq!(statement(l), Some(l));
        let l = r#"load ( "helpers.star", x="double", "y")  # a comment"#;
        assert_eq!(
            statement(l),
            Some(r#"load ( "helpers.star", x="double", "y")"#)
        );
        // a parenthesis in a quoted name is not the end
        let l = r#"load("x.star", "a)", 'b\')')"#;
        assert_eq!(statement(l), Some(l));
        let l = r#"x = 1; load("x.star", "a")"#;
        assert_eq!(statement(l), Some(r#"load("x.star", "a")"#));
    }

    #[test]
    fn a_load_over_several_lines_is_not_turned() {
        assert_eq!(statement(r#"load("x.star","#), None);
        assert_eq!(statement(r#"load("x.star", # names follow"#), None);
        assert_eq!(statement(r#"notload("x.star")"#), None);
    }
}
