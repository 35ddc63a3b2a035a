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
use std::sync::{Arc, OnceLock};

use starlark::environment::{FrozenModule, GlobalsBuilder, Module};
use starlark::eval::Evaluator;
use starlark::syntax::AstModule;
use starlark::values::{OwnedFrozenValue, Value as SValue};
use starlark::PrintHandler;

use crate::files::{FileInLibrary, InputFile, LibraryCtx, LibraryTree};
use crate::yaml::{AnnValue, DocSet, Meta, Value};

use super::compiler::blocks::Program;
use super::compiler::{NodeTable, NODES_GLOBAL};
use super::runtime::error::{
    render_starlark_error, ProgramRegistry, TemplateError, TemplateErrorKind,
};
use super::runtime::guard::{self, Runaway, Tracker};
use super::runtime::values::{store_get, NodeTableValue, ValueStore};
use super::runtime::{self, Runtime};

pub use super::cache::{CompileCache, Compiled, StdLib};
use super::loader::{LibraryHost, Loader};
use super::setup::InjectedPrint;
pub use super::setup::{
    call_in_fresh_evaluator, configure, globals, prepare_globals_in_background, set_print_sink,
    EvalOpts,
};

pub use super::compiler::dialect;

pub use super::runtime::host::{Host, LibraryAnswer, LibraryOp, LibraryRequest};

/// Evaluates private libraries for `@ytt:library`. The template language
/// cannot do it itself (a library's data values need the schema and data
/// values pipeline above it), so the host that renders injects this, as
/// starlark-rust's `FileLoader` lets a host supply loads. Without one,
/// `load("@ytt:library", ...)` is an error.
pub trait Libraries: Send + Sync {
    /// Runs `op` on the library `req` names, seen from `caller`.
    fn call(
        &self,
        caller: LibraryCtx,
        req: &LibraryRequest,
        op: &LibraryOp,
    ) -> Result<LibraryAnswer, String>;
}

/// `print()` kept until the evaluation is known to have succeeded.
#[derive(Default)]
struct BufferedPrint {
    lines: std::sync::Mutex<Vec<String>>,
}

impl PrintHandler for BufferedPrint {
    fn println(&self, text: &str) -> starlark::Result<()> {
        if let Ok(mut lines) = self.lines.lock() {
            lines.push(text.to_string());
        }
        Ok(())
    }
}

impl BufferedPrint {
    fn pass_on(&self) {
        let lines = std::mem::take(&mut *self.lines.lock().unwrap_or_else(|e| e.into_inner()));
        for line in lines {
            let _ = InjectedPrint.println(&line);
        }
    }
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
    /// `@ytt:library`, when the host renders.
    pub libraries: Option<Arc<dyn Libraries>>,
    /// Where reads of `data.values` are recorded, when the host asks.
    pub reads: Option<Arc<super::runtime::values::ReadLog>>,
    /// Templates are called as functions from their first evaluation (see
    /// [`super::function`]): set by a host that evaluates the same templates
    /// with many sets of values (`check`, a library's pairs), so a template
    /// is compiled once, not once as a module and once as a function.
    pub functions_at_once: bool,
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
            libraries: None,
            reads: None,
            functions_at_once: false,
            state: RefCell::new(SessionState::default()),
        }
    }

    /// The session with `@ytt:library` available.
    pub fn with_libraries(mut self, libraries: Arc<dyn Libraries>) -> Self {
        self.libraries = Some(libraries);
        self
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
                function,
                ..
            }) => {
                let turned = function.get(
                    &file.file.rel_path,
                    program,
                    ast,
                    nodes,
                    self.opts,
                    self.functions_at_once,
                );
                if let Some(done) =
                    turned.and_then(|f| self.run_function(&file.file, program, f, lib))
                {
                    return done;
                }
                let (module, ds) = self.run(&file.file, program, ast, Some(nodes), lib)?;
                function.succeeded();
                Ok(YamlResult {
                    docset: ds.unwrap_or_default(),
                    module: Some(module),
                })
            }
            Ok(Compiled::Starlark { .. } | Compiled::Text { .. }) => Err(TemplateError::new(
                TemplateErrorKind::Load,
                format!("File '{}' is not a YAML file", file.file.rel_path),
                None,
            )),
        }
    }

    /// Evaluates a text template (`.txt`): its globals and its text.
    pub fn eval_text(
        &self,
        file: &FileInLibrary,
        lib: LibraryCtx,
    ) -> Result<(FrozenModule, String), TemplateError> {
        let compiled = self.cache.compiled(&file.file, self.opts);
        match &*compiled {
            Err(e) => Err(e.clone()),
            Ok(Compiled::Text { program, ast }) => {
                let (module, _, text) = self
                    .run_any(&file.file, program, ast, None, lib)
                    .map_err(|e| e.prefixed("Evaluating text template: "))?;
                Ok((module, text.unwrap_or_default()))
            }
            Ok(_) => Err(TemplateError::new(
                TemplateErrorKind::Load,
                format!("File '{}' is not a text file", file.file.rel_path),
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
                shared,
                ..
            }) => self.shared_or(&file.file, program, shared, || {
                self.run(&file.file, program, ast, Some(nodes), lib)
                    .map(|(m, _)| m)
            }),
            Ok(Compiled::Starlark {
                program,
                ast,
                shared,
            }) => self.shared_or(&file.file, program, shared, || {
                self.run(&file.file, program, ast, None, lib)
                    .map(|(m, _)| m)
                    .map_err(|e| e.prefixed("Evaluating starlark template: "))
            }),
            Ok(Compiled::Text { program, ast }) => self
                .run(&file.file, program, ast, None, lib)
                .map(|(m, _)| m)
                .map_err(|e| e.prefixed("Evaluating text template: ")),
        };
        self.state.borrow_mut().loading.pop();
        let module = result?;
        self.state.borrow_mut().modules.insert(key, module.clone());
        Ok(module)
    }

    /// A loaded file's module: the one kept for all sessions, else
    /// `evaluate`'s (kept when the file's module is the same for all).
    fn shared_or(
        &self,
        file: &Arc<InputFile>,
        program: &Arc<Program>,
        shared: &super::cache::SharedModule,
        evaluate: impl FnOnce() -> Result<FrozenModule, TemplateError>,
    ) -> Result<FrozenModule, TemplateError> {
        if let Some(m) = shared.get() {
            // its functions' errors are shown with its lines
            self.register(&file.rel_path, program);
            return Ok(m.clone());
        }
        let m = evaluate()?;
        shared.keep(&m);
        Ok(m)
    }

    /// The template runtime of an evaluation in library context `lib`.
    fn runtime(&self, lib: LibraryCtx) -> Runtime {
        let host: Arc<dyn Host> = Arc::new(LibraryHost {
            tree: self.tree.clone(),
            lib,
            libraries: self.libraries.clone(),
        });
        let mut rt = Runtime::new(Some(host));
        rt.implicit_map_key_overrides = self.opts.implicit_map_key_overrides;
        rt
    }

    /// The error of an evaluation stopped by `limit`, at the statement it
    /// was running.
    fn runaway_error(&self, limit: &Runaway, tracker: &Tracker) -> TemplateError {
        let state = self.state.borrow();
        guard::runaway_error(limit, tracker.last(), &state.programs)
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
        self.run_any(file, program, ast, nodes, lib)
            .map(|(m, ds, _)| (m, ds))
    }

    #[allow(clippy::type_complexity)]
    fn run_any(
        &self,
        file: &Arc<InputFile>,
        program: &Arc<Program>,
        ast: &AstModule,
        nodes: Option<&Arc<NodeTable>>,
        lib: LibraryCtx,
    ) -> Result<(FrozenModule, Option<DocSet>, Option<String>), TemplateError> {
        self.register(&file.rel_path, program);
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
            let rt = self.runtime(lib);
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
                return Err(self.runaway_error(&limit, &tracker));
            }
            if let Ok(Err(e)) = result {
                return Err(self.starlark_error(&e));
            }
            let ds = rt.result.borrow_mut().take();
            let text = rt.text_result.borrow_mut().take();
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
            Ok((frozen, ds, text))
        })
    }

    /// Evaluates a template by calling its function (see [`super::function`]):
    /// its loads resolved by this session, its result as a module's. `None`
    /// for an error: the caller evaluates the template as a module, which
    /// gives the error exactly as before (text printed here is only passed on
    /// when the call succeeds, so it is not printed twice). A step, time or
    /// memory limit is the error itself (at the same line: the function
    /// keeps the template's lines), so a runaway template is not run twice.
    fn run_function(
        &self,
        file: &Arc<InputFile>,
        program: &Arc<Program>,
        function: &super::function::TemplateFunction,
        lib: LibraryCtx,
    ) -> Option<Result<YamlResult, TemplateError>> {
        use starlark::eval::FileLoader;
        self.register(&file.rel_path, program);
        let loader = Loader {
            session: self,
            lib,
            file: file.clone(),
        };
        let mut loaded = Vec::new();
        for load in &function.loads {
            let module = loader.load(&load.module).ok()?;
            for (_, exported) in &load.symbols {
                loaded.push(module.get(exported).ok()?);
            }
        }
        let printed = BufferedPrint::default();
        Module::with_temp_heap(|module| {
            module.set_extra_value(module.heap().alloc(ValueStore::default()));
            let rt = self.runtime(lib);
            let tracker = Tracker::default();
            let result = guard::catch_panics(|| {
                let mut ev = Evaluator::new(&module);
                configure(&mut ev, self.opts, &tracker);
                ev.set_print_handler(&printed);
                ev.extra = Some(&rt);
                // the function's heap and the loaded modules' heaps are kept
                // alive by this module's heap (as a load keeps a module's)
                let heap = module.heap();
                let f = heap.access_owned_frozen_value(&function.function);
                let args: Vec<SValue> = loaded
                    .iter()
                    .map(|v| heap.access_owned_frozen_value(v))
                    .collect();
                ev.eval_function(f, &args, &[]).map(|_| ())
            });
            match &result {
                Ok(Ok(())) => {}
                Ok(Err(e)) => {
                    let limit = guard::runaway_kind(e, self.opts.max_steps, self.opts.timeout);
                    if let Some(
                        limit @ (Runaway::Steps(_) | Runaway::Time(_) | Runaway::Memory(_)),
                    ) = limit
                    {
                        return Some(Err(self.runaway_error(&limit, &tracker)));
                    }
                    return None;
                }
                Err(_) => return None,
            }
            let ds = rt.result.borrow_mut().take();
            let frozen = module.freeze().ok()?;
            let mut ds = ds?;
            let store = frozen.owned_extra_value();
            resolve_docset(&mut ds, store.as_ref());
            printed.pass_on();
            Some(Ok(YamlResult {
                docset: ds,
                module: Some(frozen),
            }))
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
            .data_module(&self.data_values, self.reads.as_ref())
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
    // (only the nodes that hold one change: values from elsewhere, such
    // as a plain file's documents, stay shared)
    fn value(v: &mut Value, store: Option<&OwnedFrozenValue>) {
        let _ = v.change_nodes(
            &|_, m: &Meta| m.has_live_values(),
            &mut |_, m: &mut Meta| {
                meta(m, store);
                Ok::<(), std::convert::Infallible>(())
            },
        );
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

#[cfg(test)]
mod tests {
    use super::globals;

    /// The build compiles the vendored starlark-rust (vendor/starlark), whose
    /// one change is that built-in functions keep no documentation parsed
    /// from their doc comments: that parsing was 5 ms of every `render`. If
    /// the `[patch]` in Cargo.toml is lost, `len` has its documentation again
    /// and this fails.
    #[test]
    fn the_built_ins_keep_no_parsed_documentation() {
        let docs = globals().documentation();
        for name in ["len", "str", "range", "sorted"] {
            let item = docs
                .members
                .get(name)
                .unwrap_or_else(|| panic!("{name} is a built-in"));
            assert!(item.get_doc_string().is_none(), "{name}: {item:?}");
        }
    }
}
