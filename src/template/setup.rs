//! An evaluator's setup, shared by the session (`eval`, `cache`, `loader`)
//! and a template's function (`function`): the options and budgets, the
//! globals every ytt file sees, where `print()` goes, and parsing the
//! generated Starlark in ytt's dialect. It reaches none of the files that
//! use it, so a template's function is no part of the session's circle.

use std::collections::HashMap;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use starlark::environment::{Globals, GlobalsBuilder, LibraryExtension, Module};
use starlark::eval::Evaluator;
use starlark::syntax::AstModule;
use starlark::PrintHandler;

use super::compiler::dialect;
use super::runtime::guard::{self, Tracker};
use super::runtime::values::ValueStore;
use super::runtime::{self, Runtime};

/// Limits and options for evaluations.
#[derive(Debug, Clone)]
pub struct EvalOpts {
    pub ignore_unknown_comments: bool,
    /// ytt's `--strict`: only unambiguous YAML scalars.
    pub strict: bool,
    pub implicit_map_key_overrides: bool,
    /// Deepest Starlark call stack.
    pub max_call_depth: usize,
    /// Most evaluation steps (starlark-rust "ticks") per file evaluation.
    pub max_steps: u64,
    /// Wall-clock limit per file evaluation.
    pub timeout: Duration,
    /// Largest Starlark heap per file evaluation, in bytes.
    pub max_heap: usize,
}

impl Default for EvalOpts {
    fn default() -> Self {
        EvalOpts {
            ignore_unknown_comments: false,
            strict: false,
            implicit_map_key_overrides: false,
            max_call_depth: 256,
            max_steps: 50_000_000,
            timeout: Duration::from_secs(10),
            max_heap: 1 << 30,
        }
    }
}

static GLOBALS: OnceLock<Globals> = OnceLock::new();

/// The global environment every ytt file sees.
pub fn globals() -> &'static Globals {
    GLOBALS.get_or_init(|| {
        GlobalsBuilder::extended_by(&[LibraryExtension::Print, LibraryExtension::SetType])
            .with(runtime::instructions)
            .with(guard::guarded_operators)
            .build()
    })
}

/// Builds [`globals`] on another thread, if no one has yet. starlark-rust
/// builds the documentation of every built-in function as it makes them
/// (parsing doc strings with regular expressions: 2-3 ms), so a process
/// that is about to evaluate starts this while it reads and plans.
pub fn prepare_globals_in_background() {
    if GLOBALS.get().is_none() {
        // a detached thread: the first evaluation waits for it if need be
        let _ = std::thread::Builder::new()
            .name("starlark-globals".into())
            .spawn(|| {
                globals();
            });
    }
}

/// Where Starlark's `print()` goes. The engine never writes to a terminal
/// itself: the host (the command line) sets a sink once at start-up; without
/// one, printed text is dropped.
type PrintSink = Box<dyn Fn(&str) + Send + Sync>;
static PRINT_SINK: std::sync::OnceLock<PrintSink> = std::sync::OnceLock::new();

/// Sets where Starlark's `print()` output goes (once per process; later
/// calls are ignored).
pub fn set_print_sink(sink: impl Fn(&str) + Send + Sync + 'static) {
    let _ = PRINT_SINK.set(Box::new(sink));
}

pub(super) struct InjectedPrint;

impl PrintHandler for InjectedPrint {
    fn println(&self, text: &str) -> starlark::Result<()> {
        if let Some(sink) = PRINT_SINK.get() {
            sink(text);
        }
        Ok(())
    }
}

/// Applies the evaluation limits (see [`guard`]).
pub fn configure(ev: &mut Evaluator, opts: &EvalOpts, tracker: &Tracker) {
    let _ = ev.set_max_callstack_size(opts.max_call_depth);
    let _ = ev.set_max_tick_count(opts.max_steps.max(1));
    let _ = ev.set_max_heap_size(opts.max_heap);
    let deadline = Instant::now() + opts.timeout;
    ev.set_check_cancelled(Box::new(move || Instant::now() > deadline));
    ev.before_stmt_for_dap(tracker.hook(opts.max_heap, deadline));
    static PRINT: InjectedPrint = InjectedPrint;
    ev.set_print_handler(&PRINT);
}

/// Runs `f` with a fresh module and evaluator (for calling functions out of
/// templates: overlay matchers, validation rules).
pub fn call_in_fresh_evaluator<R>(
    opts: &EvalOpts,
    f: impl for<'v> FnOnce(&mut Evaluator<'v, '_, '_>) -> starlark::Result<R>,
) -> starlark::Result<R> {
    Module::with_temp_heap(|module| {
        module.set_extra_value(module.heap().alloc(ValueStore::default()));
        let rt = Runtime::new(None);
        let tracker = Tracker::default();
        let result = guard::catch_panics(|| {
            let mut ev = Evaluator::new(&module);
            configure(&mut ev, opts, &tracker);
            ev.extra = Some(&rt);
            f(&mut ev)
        });
        result.unwrap_or_else(|panic| {
            Err(starlark::Error::new_other(anyhow::anyhow!(
                "evaluation failed inside the Starlark interpreter: {panic}"
            )))
        })
    })
}

/// Parses generated Starlark in ytt's dialect, with `*` routed through the
/// guarded multiplication (see [`guard::MUL_FUNCTION`]).
pub(super) fn parse_source(name: &str, source: String) -> starlark::Result<AstModule> {
    let mut ast = AstModule::parse(name, source, &dialect())?;
    let replace = HashMap::from([
        ("*".to_string(), guard::MUL_FUNCTION.to_string()),
        ("<<".to_string(), guard::SHL_FUNCTION.to_string()),
        (">>".to_string(), guard::SHR_FUNCTION.to_string()),
    ]);
    ast.replace_binary_operators(&replace);
    Ok(ast)
}
