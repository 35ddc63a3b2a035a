//! Evaluating templates and Starlark files on starlark-rust.
//!
//! An [`EvalSession`] evaluates the files of one library tree with one set of
//! data values (`data.values`). Parsing and compiling are cached in a
//! [`CompileCache`] that is shared across sessions and threads; evaluated
//! modules (what `load()` returns) are cached per session.
//!
//! Every evaluation runs under limits: a call-depth limit, a step budget, a
//! wall-clock deadline and a heap limit, so a hostile template (`while True`,
//! unbounded recursion, `"x" * 10**10`) becomes an error, not a hang.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use starlark::environment::{FrozenModule, Globals, GlobalsBuilder, LibraryExtension, Module};
use starlark::eval::{Evaluator, FileLoader};
use starlark::syntax::{AstModule, Dialect, DialectTypes};
use starlark::values::{OwnedFrozenValue, Value as SValue};
use starlark::PrintHandler;

use crate::files::{FileInLibrary, FileType, InputFile, LibraryCtx, LibraryTree};
use crate::yaml::parse::parse_opts;
use crate::yaml::{AnnValue, DocSet, Meta, Pos, Value};

use super::blocks::{self, Program};
use super::compile::{
    self, CodeLine, CompileOpts, LineKind, NodeTable, END_CTX, NODES_GLOBAL, START_CTX,
};
use super::error::{render_starlark_error, ProgramRegistry, TemplateError, TemplateErrorKind};
use super::guard::{self, Runaway, Tracker};
use super::runtime::{self, Runtime};
use super::values::{store_get, NodeTableValue, ValueStore};

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

/// The Starlark dialect of ytt: top-level `if`/`for`, lambdas, nested defs,
/// no f-strings, no type annotations.
pub fn dialect() -> Dialect {
    Dialect {
        enable_def: true,
        enable_lambda: true,
        enable_load: true,
        enable_keyword_only_arguments: false,
        enable_types: DialectTypes::Disable,
        enable_load_reexport: true,
        enable_top_level_stmt: true,
        enable_f_strings: false,
        ..Dialect::Standard
    }
}

/// The global environment every ytt file sees.
pub fn globals() -> &'static Globals {
    static GLOBALS: OnceLock<Globals> = OnceLock::new();
    GLOBALS.get_or_init(|| {
        GlobalsBuilder::extended_by(&[LibraryExtension::Print, LibraryExtension::SetType])
            .with(runtime::instructions)
            .with(guard::guarded_operators)
            .build()
    })
}

/// Services the ytt modules need from the library a file belongs to.
pub trait Host: Send + Sync {
    /// `data.list(path)`.
    fn data_list(&self, path: &str) -> Result<Vec<String>, String>;
    /// `data.read(path)`.
    fn data_read(&self, path: &str) -> Result<String, String>;
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

struct InjectedPrint;

impl PrintHandler for InjectedPrint {
    fn println(&self, text: &str) -> starlark::Result<()> {
        if let Some(sink) = PRINT_SINK.get() {
            sink(text);
        }
        Ok(())
    }
}

// ------------------------------------------------------------------ compiling

/// A parsed and compiled file.
#[derive(Debug)]
pub enum Compiled {
    /// YAML without templating (comments dropped, duplicate keys resolved).
    Plain(DocSet),
    /// A YAML template.
    Template {
        program: Arc<Program>,
        ast: AstModule,
        nodes: Arc<NodeTable>,
    },
    /// A Starlark file.
    Starlark {
        program: Arc<Program>,
        ast: AstModule,
    },
}

/// Cached results by file identity (the `Arc<InputFile>` address; the file
/// itself is kept alongside so the address stays valid).
type ByFile<T> = Mutex<HashMap<usize, (Arc<InputFile>, Arc<Result<T, TemplateError>>)>>;

/// Parse/compile results shared across sessions and threads, keyed by file.
pub struct CompileCache {
    entries: ByFile<Compiled>,
    raw: ByFile<DocSet>,
    stdlib: Arc<dyn StdLib>,
}

/// The `@ytt:` standard library, supplied by the host (as starlark-rust's
/// `FileLoader` lets a host supply loads): the template language knows how
/// to load a module, not what ytt's modules are.
pub trait StdLib: Send + Sync {
    /// `load("@ytt:<name>", ...)` (all but `data`).
    fn module(&self, name: &str, session: &EvalSession) -> Result<FrozenModule, TemplateError>;
    /// `@ytt:data` for a session whose `data.values` are `values`.
    fn data_module(&self, values: &Value) -> Result<FrozenModule, String>;
}

impl CompileCache {
    /// A cache whose templates load `@ytt:` modules from `stdlib`.
    pub fn new(stdlib: Arc<dyn StdLib>) -> CompileCache {
        CompileCache {
            entries: Default::default(),
            raw: Default::default(),
            stdlib,
        }
    }

    fn stdlib(&self) -> Result<&Arc<dyn StdLib>, TemplateError> {
        Ok(&self.stdlib)
    }

    /// The file parsed with comments (for annotation discovery), not templated.
    pub fn raw_yaml(&self, file: &Arc<InputFile>) -> Arc<Result<DocSet, TemplateError>> {
        self.raw_yaml_opts(file, false)
    }

    /// [`Self::raw_yaml`], optionally with `--strict` scalars.
    pub fn raw_yaml_opts(
        &self,
        file: &Arc<InputFile>,
        strict: bool,
    ) -> Arc<Result<DocSet, TemplateError>> {
        let key = Arc::as_ptr(file) as usize;
        if let Some((_, r)) = self.raw.lock().expect("cache lock").get(&key) {
            return r.clone();
        }
        let with_comments = file.is_template() || file.is_library();
        let r = Arc::new(parse_opts(&file.src, with_comments, strict).map_err(|e| {
            TemplateError::new(
                TemplateErrorKind::Yaml,
                format!(
                    "Unmarshaling YAML template '{}': {}",
                    file.rel_path,
                    e.ytt_message()
                ),
                Some(Pos::new(&file.src, e.line.max(1), e.col)),
            )
        }));
        self.raw
            .lock()
            .expect("cache lock")
            .insert(key, (file.clone(), r.clone()));
        r
    }

    pub fn compiled(
        &self,
        file: &Arc<InputFile>,
        opts: &EvalOpts,
    ) -> Arc<Result<Compiled, TemplateError>> {
        let key = Arc::as_ptr(file) as usize;
        if let Some((_, r)) = self.entries.lock().expect("cache lock").get(&key) {
            return r.clone();
        }
        let r = Arc::new(self.compile(file, opts));
        self.entries
            .lock()
            .expect("cache lock")
            .insert(key, (file.clone(), r.clone()));
        r
    }

    fn compile(&self, file: &Arc<InputFile>, opts: &EvalOpts) -> Result<Compiled, TemplateError> {
        match file.file_type() {
            FileType::Starlark => compile_starlark(file),
            FileType::Yaml => {
                let raw = self.raw_yaml_opts(file, opts.strict);
                let ds = match &*raw {
                    Ok(ds) => ds.clone(),
                    Err(e) => return Err(e.clone()),
                };
                if !(file.is_template() || file.is_library()) || !compile::has_templating(&ds) {
                    let mut ds = ds;
                    strip_comments_and_override(&mut ds);
                    return Ok(Compiled::Plain(ds));
                }
                compile_yaml_template(file, &ds, opts)
            }
            FileType::Text | FileType::Unknown => Err(TemplateError::new(
                TemplateErrorKind::Compile,
                format!(
                    "File '{}' is not a YAML or Starlark file (text templates are not supported by yttcheck)",
                    file.rel_path
                ),
                None,
            )),
        }
    }
}

fn strip_comments_and_override(ds: &mut DocSet) {
    fn walk(v: &mut Value) {
        match v {
            Value::Map(m) => {
                m.meta = Meta::default();
                m.override_duplicate_keys();
                for i in &mut m.items {
                    i.meta = Meta::default();
                    walk(&mut i.value);
                }
            }
            Value::Array(a) => {
                a.meta = Meta::default();
                for i in &mut a.items {
                    i.meta = Meta::default();
                    walk(&mut i.value);
                }
            }
            _ => {}
        }
    }
    for d in &mut ds.docs {
        d.meta.comments.clear();
        walk(&mut d.value);
    }
}

fn compile_yaml_template(
    file: &InputFile,
    ds: &DocSet,
    opts: &EvalOpts,
) -> Result<Compiled, TemplateError> {
    let copts = CompileOpts {
        ignore_unknown_comments: opts.ignore_unknown_comments,
    };
    let code = compile::compile(&file.rel_path, ds, &copts).map_err(|e| {
        TemplateError::new(
            TemplateErrorKind::Compile,
            format!("Compiling YAML template '{}': {}", file.rel_path, e.message),
            Some(e.pos),
        )
    })?;
    let mut lines = Vec::with_capacity(code.lines.len() + 2);
    lines.push(CodeLine {
        text: format!("{START_CTX}({NODES_GLOBAL})"),
        kind: LineKind::Instr { node: false },
        src: None,
    });
    lines.extend(code.lines);
    lines.push(CodeLine {
        text: format!("{END_CTX}(None)"),
        kind: LineKind::Instr { node: false },
        src: None,
    });
    let program = to_program(&file.rel_path, &lines)?;
    let ast = parse_ast(&file.rel_path, &program)?;
    Ok(Compiled::Template {
        program,
        ast,
        nodes: code.nodes,
    })
}

fn compile_starlark(file: &InputFile) -> Result<Compiled, TemplateError> {
    let lines: Vec<CodeLine> = file
        .src
        .text()
        .split('\n')
        .enumerate()
        .map(|(i, l)| CodeLine {
            text: l.strip_suffix('\r').unwrap_or(l).to_string(),
            kind: LineKind::User,
            src: Some(Pos::new(&file.src, i as u32 + 1, 1)),
        })
        .collect();
    let program = to_program(&file.rel_path, &lines)?;
    let ast = parse_ast(&file.rel_path, &program)?;
    Ok(Compiled::Starlark { program, ast })
}

fn to_program(name: &str, lines: &[CodeLine]) -> Result<Arc<Program>, TemplateError> {
    blocks::convert(lines).map(Arc::new).map_err(|e| {
        let loc = e
            .pos
            .as_ref()
            .map(|p| format!("\n    {} | {}", p.compact(), p.line_text().unwrap_or("")))
            .unwrap_or_default();
        TemplateError::new(
            TemplateErrorKind::Compile,
            format!("\n- {}{loc}", e.message),
            e.pos.or_else(|| Some(Pos::unknown())),
        )
        .with_file(name)
    })
}

impl TemplateError {
    fn with_file(mut self, _name: &str) -> Self {
        self.message = self.message.to_string();
        self
    }
}

fn parse_ast(name: &str, program: &Arc<Program>) -> Result<AstModule, TemplateError> {
    let parsed = AstModule::parse(name, program.source.clone(), &dialect()).map(|mut ast| {
        let replace = HashMap::from([("*".to_string(), guard::MUL_FUNCTION.to_string())]);
        ast.replace_binary_operators(&replace);
        ast
    });
    parsed.map_err(|e| {
        let mut registry = ProgramRegistry::new();
        registry.insert(name.to_string(), program.clone());
        let (msg, pos, _) = render_starlark_error(&e, &registry);
        TemplateError::new(TemplateErrorKind::Starlark, msg, pos)
    })
}

// ------------------------------------------------------------------ sessions

/// Evaluates files of one library tree with one set of data values.
pub struct EvalSession<'a> {
    pub tree: Arc<LibraryTree>,
    pub opts: &'a EvalOpts,
    pub cache: &'a CompileCache,
    /// `data.values` for templates in this session (ytt gives data values files
    /// and schemas an empty map).
    pub data_values: Value,
    state: RefCell<SessionState>,
}

#[derive(Default)]
struct SessionState {
    modules: HashMap<(String, LibraryCtx), FrozenModule>,
    loading: Vec<String>,
    programs: ProgramRegistry,
    data_module: Option<FrozenModule>,
}

/// What evaluating a YAML file gives: its documents, and its globals (when it
/// was a template).
pub struct YamlResult {
    pub docset: DocSet,
    pub module: Option<FrozenModule>,
}

impl<'a> EvalSession<'a> {
    pub fn new(
        tree: Arc<LibraryTree>,
        opts: &'a EvalOpts,
        cache: &'a CompileCache,
        data_values: Value,
    ) -> Self {
        EvalSession {
            tree,
            opts,
            cache,
            data_values,
            state: RefCell::new(SessionState::default()),
        }
    }

    /// Evaluates a YAML file (template or plain).
    pub fn eval_yaml(
        &self,
        file: &FileInLibrary,
        lib: LibraryCtx,
    ) -> Result<YamlResult, TemplateError> {
        let compiled = self.cache.compiled(&file.file, self.opts);
        match &*compiled {
            Err(e) => Err(e.clone()),
            Ok(Compiled::Plain(ds)) => Ok(YamlResult {
                docset: ds.clone(),
                module: None,
            }),
            Ok(Compiled::Template {
                program,
                ast,
                nodes,
            }) => {
                let (module, ds) = self.run(&file.file, program, ast, Some(nodes), lib)?;
                Ok(YamlResult {
                    docset: ds.unwrap_or_default(),
                    module: Some(module),
                })
            }
            Ok(Compiled::Starlark { .. }) => Err(TemplateError::new(
                TemplateErrorKind::Load,
                format!("File '{}' is not a YAML file", file.file.rel_path),
                None,
            )),
        }
    }

    /// Evaluates a file as a module for `load()`.
    pub fn eval_module(
        &self,
        file: &FileInLibrary,
        lib: LibraryCtx,
    ) -> Result<FrozenModule, TemplateError> {
        let key = (file.file.rel_path.clone(), lib);
        if let Some(m) = self.state.borrow().modules.get(&key) {
            return Ok(m.clone());
        }
        if self.state.borrow().loading.contains(&file.file.rel_path) {
            let chain = self.state.borrow().loading.join(" -> ");
            return Err(TemplateError::new(
                TemplateErrorKind::Load,
                format!("cycle in load graph: {chain} -> {}", file.file.rel_path),
                None,
            ));
        }
        self.state
            .borrow_mut()
            .loading
            .push(file.file.rel_path.clone());
        let compiled = self.cache.compiled(&file.file, self.opts);
        let result = match &*compiled {
            Err(e) => Err(e.clone()),
            Ok(Compiled::Plain(_)) => {
                // A library file without templating still is a module (with no globals).
                Module::with_temp_heap(|m| m.freeze()).map_err(|e| {
                    TemplateError::new(TemplateErrorKind::Load, format!("{e:?}"), None)
                })
            }
            Ok(Compiled::Template {
                program,
                ast,
                nodes,
            }) => self
                .run(&file.file, program, ast, Some(nodes), lib)
                .map(|(m, _)| m),
            Ok(Compiled::Starlark { program, ast }) => self
                .run(&file.file, program, ast, None, lib)
                .map(|(m, _)| m),
        };
        self.state.borrow_mut().loading.pop();
        let module = result?;
        self.state.borrow_mut().modules.insert(key, module.clone());
        Ok(module)
    }

    fn register(&self, name: &str, program: &Arc<Program>) {
        self.state
            .borrow_mut()
            .programs
            .entry(name.to_string())
            .or_insert_with(|| program.clone());
    }

    fn run(
        &self,
        file: &Arc<InputFile>,
        program: &Arc<Program>,
        ast: &AstModule,
        nodes: Option<&Arc<NodeTable>>,
        lib: LibraryCtx,
    ) -> Result<(FrozenModule, Option<DocSet>), TemplateError> {
        self.register(&file.rel_path, program);
        let host: Arc<dyn Host> = Arc::new(LibraryHost {
            tree: self.tree.clone(),
            lib,
        });
        let loader = Loader {
            session: self,
            lib,
            file: file.clone(),
        };
        Module::with_temp_heap(|module| {
            let heap = module.heap();
            if let Some(nodes) = nodes {
                module.set(
                    NODES_GLOBAL,
                    heap.alloc(NodeTableValue {
                        table: nodes.clone(),
                    }),
                );
            }
            module.set_extra_value(heap.alloc(ValueStore::default()));
            let mut rt = Runtime::new(Some(host));
            rt.implicit_map_key_overrides = self.opts.implicit_map_key_overrides;
            let tracker = Tracker::default();
            let result = guard::catch_panics(|| {
                let mut ev = Evaluator::new(&module);
                configure(&mut ev, self.opts, &tracker);
                ev.extra = Some(&rt);
                ev.set_loader(&loader);
                ev.eval_module(ast.clone(), globals()).map(|_| ())
            });
            let runaway = match &result {
                Err(panic) => Some(Runaway::Panic(panic.clone())),
                Ok(Err(e)) => guard::runaway_kind(e, self.opts.max_steps, self.opts.timeout),
                Ok(Ok(())) => None,
            };
            if let Some(limit) = runaway {
                let state = self.state.borrow();
                return Err(guard::runaway_error(
                    &limit,
                    tracker.last(),
                    &state.programs,
                ));
            }
            if let Ok(Err(e)) = result {
                return Err(self.starlark_error(&e));
            }
            let ds = rt.result.borrow_mut().take();
            let frozen = module.freeze().map_err(|e| {
                TemplateError::new(
                    TemplateErrorKind::Starlark,
                    format!("freezing module: {e:?}"),
                    None,
                )
            })?;
            let ds = match ds {
                Some(mut ds) => {
                    let store = frozen.owned_extra_value();
                    resolve_docset(&mut ds, store.as_ref());
                    Some(ds)
                }
                None => None,
            };
            Ok((frozen, ds))
        })
    }

    /// Renders a Starlark error with this session's programs.
    pub fn starlark_error(&self, e: &starlark::Error) -> TemplateError {
        let state = self.state.borrow();
        let (msg, pos, budget) = render_starlark_error(e, &state.programs);
        TemplateError::new(
            if budget {
                TemplateErrorKind::Budget
            } else {
                TemplateErrorKind::Starlark
            },
            msg,
            pos,
        )
    }

    /// The `@ytt:data` module of this session.
    pub fn data_module(&self) -> Result<FrozenModule, TemplateError> {
        if let Some(m) = &self.state.borrow().data_module {
            return Ok(m.clone());
        }
        let m = self
            .cache
            .stdlib()?
            .data_module(&self.data_values)
            .map_err(|e| TemplateError::new(TemplateErrorKind::Starlark, e, None))?;
        self.state.borrow_mut().data_module = Some(m.clone());
        Ok(m)
    }

    /// Calls a frozen Starlark function in a fresh evaluator.
    pub fn call<R>(
        &self,
        f: impl for<'v> FnOnce(&mut Evaluator<'v, '_, '_>) -> starlark::Result<R>,
    ) -> Result<R, TemplateError> {
        call_in_fresh_evaluator(self.opts, f).map_err(|e| self.starlark_error(&e))
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

/// Turns `AnnValue::Live` handles into frozen ones once the module is frozen.
fn resolve_docset(ds: &mut DocSet, store: Option<&OwnedFrozenValue>) {
    fn ann(a: &mut AnnValue, store: Option<&OwnedFrozenValue>) {
        if let AnnValue::Live(i) = *a {
            if let Some(s) = store {
                let idx = i;
                let resolved = s.try_map(|v| match store_get(v.to_value(), idx) {
                    Some(x) => x.unpack_frozen().ok_or(()),
                    None => Err(()),
                });
                *a = match resolved {
                    Ok(v) => AnnValue::Frozen(v),
                    Err(()) => AnnValue::None,
                };
            }
        }
    }
    fn meta(m: &mut Meta, store: Option<&OwnedFrozenValue>) {
        for an in &mut m.annotations {
            for a in &mut an.args {
                ann(a, store);
            }
            for (_, a) in &mut an.kwargs {
                ann(a, store);
            }
        }
    }
    fn value(v: &mut Value, store: Option<&OwnedFrozenValue>) {
        match v {
            Value::Map(m) => {
                meta(&mut m.meta, store);
                for i in &mut m.items {
                    meta(&mut i.meta, store);
                    value(&mut i.value, store);
                }
            }
            Value::Array(a) => {
                meta(&mut a.meta, store);
                for i in &mut a.items {
                    meta(&mut i.meta, store);
                    value(&mut i.value, store);
                }
            }
            _ => {}
        }
    }
    meta(&mut ds.meta, store);
    for d in &mut ds.docs {
        meta(&mut d.meta, store);
        value(&mut d.value, store);
    }
}

/// Gives a Starlark value for an annotation argument in `ev`.
pub fn ann_value<'v>(a: &AnnValue, ev: &Evaluator<'v, '_, '_>) -> SValue<'v> {
    let heap = ev.heap();
    match a {
        AnnValue::None => SValue::new_none(),
        AnnValue::Bool(b) => SValue::new_bool(*b),
        AnnValue::Int(i) => heap.alloc(*i),
        AnnValue::Str(s) => heap.alloc_str(s).to_value(),
        AnnValue::Frozen(v) => heap.access_owned_frozen_value(v),
        AnnValue::Live(i) => runtime::current_store(ev)
            .and_then(|s| store_get(s, *i))
            .unwrap_or_else(SValue::new_none),
    }
}

// ------------------------------------------------------------------ loading

struct Loader<'s, 'a> {
    session: &'s EvalSession<'a>,
    lib: LibraryCtx,
    file: Arc<InputFile>,
}

impl FileLoader for Loader<'_, '_> {
    fn load(&self, path: &str) -> starlark::Result<FrozenModule> {
        self.load_inner(path).map_err(|e| {
            starlark::Error::new_other(anyhow::anyhow!("cannot load {path}: {}", e.message))
        })
    }
}

impl Loader<'_, '_> {
    fn load_inner(&self, module: &str) -> Result<FrozenModule, TemplateError> {
        let tree = &self.session.tree;
        let mut lib = self.lib;
        let mut path = module.to_string();
        if let Some(rest) = module.strip_prefix('@') {
            let Some((libname, p)) = rest.split_once(':') else {
                return Err(load_err(
                    "Expected library path to be in format '@name:path' e.g. '@github.com/vmware-tanzu/test:test.star' or '@ytt:base64'",
                ));
            };
            if libname == "ytt" {
                if p == "data" {
                    return self.session.data_module();
                }
                return self.session.cache.stdlib()?.module(p, self.session);
            }
            let dir = tree
                .find_accessible_library(lib.current, libname)
                .map_err(load_err)?;
            lib = LibraryCtx {
                current: dir,
                root: dir,
            };
            path = p.to_string();
        }
        let mut from = lib.current;
        if let Some(stripped) = path.strip_prefix('/') {
            from = lib.root;
            path = stripped.to_string();
        }
        let found = tree.find_file(from, &path).map_err(|e| {
            if path.split('/').any(|piece| piece == "..") {
                // ytt has no `..` in load paths (a library cannot reach out
                // of itself); say so rather than leave "Did not find ''".
                load_err(format!(
                    "{e} (hint: load() paths cannot go up with '..'; start the path with '/' to load from the library root)"
                ))
            } else {
                load_err(e)
            }
        })?;
        if !found.file.is_library() {
            return Err(load_err(format!(
                "Expected file '{}' to be a library file, but was not (hint: library filename must end with '.lib.yml' or '.star'; use data.read(...) for loading non-templated file contents)",
                found.file.rel_path
            )));
        }
        let _ = &self.file;
        let file_lib = LibraryCtx {
            current: found.dir,
            root: lib.root,
        };
        self.session.eval_module(&found, file_lib)
    }
}

fn load_err(msg: impl Into<String>) -> TemplateError {
    TemplateError::new(TemplateErrorKind::Load, msg, None)
}

/// `data.list()` / `data.read()` for a file in library `lib`.
struct LibraryHost {
    tree: Arc<LibraryTree>,
    lib: LibraryCtx,
}

impl Host for LibraryHost {
    fn data_list(&self, path: &str) -> Result<Vec<String>, String> {
        let mut dir = self.lib.current;
        let mut from_root = false;
        let mut p = path;
        if let Some(stripped) = p.strip_prefix('/') {
            from_root = true;
            dir = self.lib.root;
            p = stripped;
        }
        if !p.is_empty() {
            dir = self.tree.find_library(dir, p)?;
        }
        Ok(self
            .tree
            .accessible_files(dir)
            .into_iter()
            .map(|f| {
                if from_root {
                    format!("/{}", f.rel_path)
                } else {
                    f.rel_path
                }
            })
            .collect())
    }

    fn data_read(&self, path: &str) -> Result<String, String> {
        let (dir, p) = match path.strip_prefix('/') {
            Some(s) => (self.lib.root, s),
            None => (self.lib.current, path),
        };
        let f = self.tree.find_file(dir, p)?;
        Ok(f.file.src.text().to_string())
    }
}

/// Builds (once) a frozen module from a globals builder.
pub fn static_module(
    cell: &'static OnceLock<FrozenModule>,
    build: impl FnOnce(&mut GlobalsBuilder),
) -> &'static FrozenModule {
    cell.get_or_init(|| {
        let mut b = GlobalsBuilder::new();
        build(&mut b);
        let globals = b.build();
        FrozenModule::from_globals(&globals).expect("ytt module freezes")
    })
}
