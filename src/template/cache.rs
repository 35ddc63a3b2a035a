//! Parsing and compiling files once per run, shared by every thread: YAML
//! templates and Starlark files become frozen programs; plain YAML is parsed
//! once. The `@ytt:` standard library a cache's templates load is supplied by
//! the host ([`StdLib`]).

use std::any::Any;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use starlark::environment::FrozenModule;
use starlark::syntax::AstModule;

use crate::files::{FileType, InputFile};
use crate::yaml::parse::parse_opts;
use crate::yaml::{DocSet, Meta, Pos, Value};

use super::compiler::blocks::{self, Program};
use super::compiler::{
    self, CodeLine, CompileOpts, LineKind, NodeTable, END_CTX, NODES_GLOBAL, START_CTX,
};
use super::runtime::error::{
    render_starlark_error, ProgramRegistry, TemplateError, TemplateErrorKind,
};
use super::runtime::guard::{self};

use super::eval::*;
use super::setup::parse_source;

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
        /// The template as a function, for its later evaluations.
        function: super::function::FunctionSlot,
        /// The template loaded as a module, when that is the same for all.
        shared: SharedModule,
    },
    /// A Starlark file.
    Starlark {
        program: Arc<Program>,
        ast: AstModule,
        /// The file as a module, when that is the same for all.
        shared: SharedModule,
    },
    /// A text template (`.txt`).
    Text {
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
    facts: Facts,
    stdlib: Arc<dyn StdLib>,
}

/// What callers found in a file, by the file's identity (as the programs
/// are: a forgotten file is one removal), each by the name of the question,
/// for [`CompileCache::fact`].
type Facts = Mutex<
    HashMap<
        usize,
        (
            Arc<InputFile>,
            Vec<(&'static str, Arc<dyn Any + Send + Sync>)>,
        ),
    >,
>;

/// The `@ytt:` standard library, supplied by the host (as starlark-rust's
/// `FileLoader` lets a host supply loads): the template language knows how
/// to load a module, not what ytt's modules are.
pub trait StdLib: Send + Sync {
    /// `load("@ytt:<name>", ...)` (all but `data`).
    fn module(&self, name: &str, session: &EvalSession) -> Result<FrozenModule, TemplateError>;
    /// `@ytt:data` for a session whose `data.values` are `values` (whose
    /// reads go to `reads`, when given).
    fn data_module(
        &self,
        values: &Value,
        reads: Option<&Arc<super::runtime::values::ReadLog>>,
    ) -> Result<FrozenModule, String>;
}

impl CompileCache {
    /// A cache whose templates load `@ytt:` modules from `stdlib`.
    pub fn new(stdlib: Arc<dyn StdLib>) -> CompileCache {
        CompileCache {
            entries: Default::default(),
            raw: Default::default(),
            facts: Default::default(),
            stdlib,
        }
    }

    /// Files compiled or parsed so far.
    pub fn len(&self) -> usize {
        self.entries.lock().map(|e| e.len()).unwrap_or(0)
            + self.raw.lock().map(|e| e.len()).unwrap_or(0)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Templates compiled to a function so far (see
    /// [`super::function`]): evaluated again after a first evaluation.
    pub fn template_functions(&self) -> usize {
        self.entries
            .lock()
            .map(|e| {
                e.values()
                    .filter(|(_, r)| {
                        matches!(&**r, Ok(Compiled::Template { function, .. }) if function.is_made())
                    })
                    .count()
            })
            .unwrap_or(0)
    }

    /// Forgets one file's compiled program (a file evaluated once, such as
    /// a library's schema, need not keep its syntax tree for the rest of the
    /// run; if it is evaluated again it is compiled again).
    pub fn forget(&self, file: &Arc<InputFile>) {
        let key = Arc::as_ptr(file) as usize;
        if let Ok(mut e) = self.entries.lock() {
            e.remove(&key);
        }
    }

    /// Forgets one file altogether: its program, its parsed text and what
    /// was found in it (a library whose every pair has run, in a one-off
    /// check).
    pub fn forget_all(&self, file: &Arc<InputFile>) {
        self.forget(file);
        let key = Arc::as_ptr(file) as usize;
        if let Ok(mut r) = self.raw.lock() {
            r.remove(&key);
        }
        if let Ok(mut f) = self.facts.lock() {
            f.remove(&key);
        }
    }

    /// What `find` finds in a file, found once per cache: a layer above
    /// asks the same question of the same parsed file for every pair (does
    /// it hold data values documents, are they annotated where ytt allows),
    /// and the answer depends on the file alone. `name` tells the questions
    /// apart; one name always gives the same type.
    pub fn fact<T: Clone + Send + Sync + 'static>(
        &self,
        file: &Arc<InputFile>,
        name: &'static str,
        find: impl FnOnce() -> T,
    ) -> T {
        let key = Arc::as_ptr(file) as usize;
        if let Some((_, known)) = self.facts.lock().expect("cache lock").get(&key) {
            if let Some(t) = known
                .iter()
                .find(|(n, _)| *n == name)
                .and_then(|(_, t)| t.downcast_ref::<T>())
            {
                return t.clone();
            }
        }
        let found = find();
        let mut facts = self.facts.lock().expect("cache lock");
        let (_, known) = facts
            .entry(key)
            .or_insert_with(|| (file.clone(), Vec::new()));
        known.retain(|(n, _)| *n != name);
        known.push((name, Arc::new(found.clone())));
        found
    }

    /// Forgets everything (a long-lived process bounding its memory; what
    /// is still needed is compiled again).
    pub fn clear(&self) {
        if let Ok(mut e) = self.entries.lock() {
            e.clear();
        }
        if let Ok(mut r) = self.raw.lock() {
            r.clear();
        }
        if let Ok(mut f) = self.facts.lock() {
            f.clear();
        }
    }

    pub(super) fn stdlib(&self) -> Result<&Arc<dyn StdLib>, TemplateError> {
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
                if !(file.is_template() || file.is_library()) || !compiler::has_templating(&ds) {
                    let mut ds = ds;
                    strip_comments_and_override(&mut ds);
                    return Ok(Compiled::Plain(ds));
                }
                compile_yaml_template(file, &ds, opts)
            }
            FileType::Text => compile_text(file),
            FileType::Unknown => Err(TemplateError::new(
                TemplateErrorKind::Compile,
                format!(
                    "File '{}' is not a YAML, Starlark or text file",
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
    let code = compiler::compile(&file.rel_path, ds, &copts).map_err(|e| {
        TemplateError::new(
            TemplateErrorKind::Compile,
            format!("Compiling YAML template '{}': {}", file.rel_path, e.message),
            Some(e.pos),
        )
    })?;
    let mut lines = Vec::with_capacity(code.lines.len() + 2);
    lines.push(CodeLine {
        text: format!("{START_CTX}({NODES_GLOBAL}, True)"),
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
    let shared = SharedModule::new(&program, &ast);
    Ok(Compiled::Template {
        program,
        ast,
        nodes: code.nodes,
        function: Default::default(),
        shared,
    })
}

fn compile_text(file: &InputFile) -> Result<Compiled, TemplateError> {
    let at = Pos::new(&file.src, 1, 1);
    let lines = super::compiler::text::compile_file(file.src.text(), &at).map_err(|e| {
        TemplateError::new(
            TemplateErrorKind::Compile,
            format!("Parsing text template '{}': {}", file.rel_path, e.message),
            Some(at.with_line(e.line)),
        )
    })?;
    let program = to_program(&file.rel_path, &lines)?;
    let ast = parse_ast(&file.rel_path, &program)?;
    Ok(Compiled::Text { program, ast })
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
    let mut program = to_program(&file.rel_path, &lines)?;
    if let Some(p) = Arc::get_mut(&mut program) {
        p.bare_lines = true;
    }
    let ast = parse_ast(&file.rel_path, &program)?;
    let shared = SharedModule::new(&program, &ast);
    Ok(Compiled::Starlark {
        program,
        ast,
        shared,
    })
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
    if let Some((line, depth)) = guard::too_deep(&program.source) {
        let pos = program.line_map.get(line - 1).cloned().flatten();
        return Err(TemplateError::new(
            TemplateErrorKind::Budget,
            format!(
                "expression nested too deeply at {}: {depth} levels of brackets and operators in one statement, more than the {} yttcheck evaluates (deeper ones overflow the interpreter's stack)",
                pos.as_ref()
                    .map(|p| p.as_line_string())
                    .unwrap_or_else(|| format!("line {line}")),
                guard::MAX_EXPRESSION_DEPTH
            ),
            pos,
        ));
    }
    parse_source(name, program.source.clone()).map_err(|e| {
        let mut registry = ProgramRegistry::new();
        registry.insert(name.to_string(), program.clone());
        let (msg, pos, _) = render_starlark_error(&e, &registry);
        TemplateError::new(TemplateErrorKind::Starlark, msg, pos)
    })
}

/// A loaded file's module, evaluated once for every session that loads it
/// when nothing of a session can change it: the file loads nothing, or only
/// `@ytt:` modules that are the same for everyone (not `data`, `library` or
/// `template`), and prints nothing. A library's helpers (`helpers.star`) are
/// then evaluated once per run instead of once per environment. A failed
/// evaluation is not kept: every session gets the error as before.
#[derive(Default)]
pub struct SharedModule {
    pure: bool,
    module: std::sync::OnceLock<starlark::environment::FrozenModule>,
}

impl std::fmt::Debug for SharedModule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SharedModule")
            .field("pure", &self.pure)
            .field("kept", &self.module.get().is_some())
            .finish()
    }
}

/// The `@ytt:` modules that are the same in every session.
const SAME_FOR_ALL: &[&str] = &[
    "@ytt:assert",
    "@ytt:base64",
    "@ytt:ip",
    "@ytt:json",
    "@ytt:math",
    "@ytt:md5",
    "@ytt:overlay",
    "@ytt:regexp",
    "@ytt:sha256",
    "@ytt:struct",
    "@ytt:url",
    "@ytt:version",
    "@ytt:yaml",
];

impl SharedModule {
    fn new(program: &Program, ast: &AstModule) -> SharedModule {
        let pure = !program.source.contains("print")
            && ast
                .loads()
                .iter()
                .all(|l| SAME_FOR_ALL.contains(&l.module_id));
        SharedModule {
            pure,
            module: Default::default(),
        }
    }

    /// The kept module, if there is one.
    pub(super) fn get(&self) -> Option<&starlark::environment::FrozenModule> {
        self.module.get()
    }

    /// Keeps a successful evaluation's module, if the file is one whose
    /// module is the same for all.
    pub(super) fn keep(&self, module: &starlark::environment::FrozenModule) {
        if self.pure {
            let _ = self.module.set(module.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// No `@ytt:` module: these tests load none.
    struct NoStdLib;

    impl StdLib for NoStdLib {
        fn module(&self, name: &str, _: &EvalSession) -> Result<FrozenModule, TemplateError> {
            panic!("no module expected, asked for @ytt:{name}")
        }
        fn data_module(
            &self,
            _: &Value,
            _: Option<&Arc<super::super::runtime::values::ReadLog>>,
        ) -> Result<FrozenModule, String> {
            Err("no data module".into())
        }
    }

    fn file(path: &str) -> Arc<InputFile> {
        Arc::new(InputFile {
            rel_path: path.to_string(),
            implied: true,
            src: crate::yaml::SourceFile::new(path, "a: 1\n"),
            order: 0,
            marks: Default::default(),
        })
    }

    /// A fact is found once per file and name, kept apart by both, and
    /// found again once the file is forgotten.
    #[test]
    fn a_fact_is_found_once_per_file_and_name() {
        let cache = CompileCache::new(Arc::new(NoStdLib));
        let (a, b) = (file("a.yml"), file("b.yml"));
        let found = std::cell::Cell::new(0);
        let find = |answer: bool| {
            found.set(found.get() + 1);
            answer
        };
        assert!(cache.fact(&a, "x", || find(true)));
        assert!(cache.fact(&a, "x", || find(false)));
        assert_eq!(found.get(), 1);
        assert!(!cache.fact(&a, "y", || find(false)));
        assert!(!cache.fact(&b, "x", || find(false)));
        assert_eq!(found.get(), 3);
        cache.forget_all(&a);
        assert!(!cache.fact(&a, "x", || find(false)));
        assert!(!cache.fact(&b, "x", || find(true)));
        assert_eq!(found.get(), 4);
        cache.clear();
        assert!(cache.fact(&b, "x", || find(true)));
        assert_eq!(found.get(), 5);
    }
}
