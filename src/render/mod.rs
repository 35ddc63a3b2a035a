//! Full rendering, as `ytt` does without `--data-values-inspect`: a library's
//! schema and data values, then every template of the library evaluated with
//! them (YAML and text), library files evaluated for their exports, the
//! documents annotated `@overlay/match` applied to all the others in file
//! order, and `@ytt:library` for private libraries (`library.get(...)`).
//!
//! The order of the steps, which files are output, and the errors for
//! library values and schemas that no library took, are ytt's
//! (`LibraryExecution.Eval`). The host gives the library tree and a compile
//! cache; nothing here prints or touches the file system.

use std::collections::HashSet;
use std::sync::Arc;

use starlark::environment::FrozenModule;

use crate::files::{FileType, LibraryCtx, LibraryTree};
use crate::overlay::{expects::Expects, Op, OverlayError};
use crate::template::eval::{
    call_in_fresh_evaluator, Libraries, LibraryAnswer, LibraryOp, LibraryRequest,
};
use crate::template::runtime::values::ReadLog;
use crate::template::{CompileCache, EvalOpts, EvalSession, TemplateError};
use crate::values::flags::{as_plain_merge_overlay, Overlays};
use crate::values::schema_pipeline::schema_envelope;
use crate::values::{
    library_schema, library_values, private_library_values, Envelope, LibRef, ParentEnvelopes,
    ValuesError,
};
use crate::yaml::{DocSet, Document, Meta, Pos, Value};

/// Why a render failed. `message()` is ytt's text.
#[derive(Debug, Clone)]
pub enum RenderError {
    /// Schema or data values (as `inspect` reports them).
    Values(ValuesError),
    /// A template or library file failed to parse, compile or evaluate.
    Template(TemplateError),
    /// An output overlay could not be applied.
    Overlay { message: String, pos: Option<Pos> },
    /// Library data values or schemas that no library took.
    Unused(String),
}

impl RenderError {
    /// ytt's error text.
    pub fn message(&self) -> &str {
        match self {
            RenderError::Values(e) => &e.message,
            RenderError::Template(e) => &e.message,
            RenderError::Overlay { message, .. } => message,
            RenderError::Unused(m) => m,
        }
    }
}

/// One output file (`--output-files`): a YAML template's documents after
/// overlays, or a text template's text.
#[derive(Debug, Clone)]
pub struct OutputFile {
    /// The path relative to the library, as ytt names output files.
    pub path: String,
    pub content: OutputContent,
}

#[derive(Debug, Clone)]
pub enum OutputContent {
    /// The file's documents: this range of [`Rendered::docs`] (kept once,
    /// not copied for each view: a large package renders thousands).
    Yaml(std::ops::Range<usize>),
    Text(String),
}

/// What rendering a library gives.
#[derive(Clone, Default)]
pub struct Rendered {
    /// Every YAML output document, in file order (what ytt prints).
    pub docs: DocSet,
    /// Output files: text templates first (in evaluation order), then YAML.
    pub files: Vec<OutputFile>,
    /// Each library file's globals (for `library.export`).
    pub exports: Vec<(String, FrozenModule)>,
}

/// Renders libraries of one library tree.
#[derive(Clone)]
pub struct Renderer {
    tree: Arc<LibraryTree>,
    cache: Arc<CompileCache>,
    skip_validation: bool,
    /// Where the library's templates' reads of `data.values` go (not those
    /// of its private libraries, which have data values of their own).
    reads: Option<Arc<ReadLog>>,
    /// The same templates are rendered with many sets of values: call them
    /// as functions from the first render (`EvalSession::functions_at_once`).
    repeated: bool,
}

impl Renderer {
    pub fn new(tree: Arc<LibraryTree>, cache: Arc<CompileCache>, skip_validation: bool) -> Self {
        Renderer {
            tree,
            cache,
            skip_validation,
            reads: None,
            repeated: false,
        }
    }

    /// The renderer, for templates rendered again and again with other
    /// values (`check`'s pairs of a library).
    pub fn repeatedly(mut self) -> Self {
        self.repeated = true;
        self
    }

    /// The renderer, recording which data values the templates read.
    pub fn with_reads(mut self, reads: Arc<ReadLog>) -> Self {
        self.reads = Some(reads);
        self
    }

    /// Renders the root library with the data values given on the command
    /// line (`overlays.root`) and those addressed to private libraries.
    pub fn render_root(
        &self,
        opts: &EvalOpts,
        overlays: &Overlays,
    ) -> Result<Rendered, RenderError> {
        self.render(
            LibraryCtx::ROOT,
            opts,
            self.skip_validation,
            &[],
            &overlays.root,
            &overlays.libraries,
        )
    }

    /// Renders the root library with final data values computed elsewhere
    /// (`check` computes them once per pair, sharing each library's start):
    /// ytt's `Eval` step alone. `values_for_libraries` and
    /// `schemas_for_libraries` are what the root addresses to its private
    /// libraries; `not_for_output` are the root's data values and schema
    /// files (`values::pipeline::values_and_schema_files`, which `check`
    /// finds once for a library's own files).
    pub fn render_root_with_values(
        &self,
        opts: &EvalOpts,
        values: Document,
        values_for_libraries: Vec<Envelope>,
        schemas_for_libraries: Vec<Envelope>,
        not_for_output: &HashSet<String>,
    ) -> Result<Rendered, RenderError> {
        self.eval(
            LibraryCtx::ROOT,
            opts,
            values,
            values_for_libraries,
            schemas_for_libraries,
            not_for_output,
        )
    }

    /// ytt's `Schemas`, `Values` then `Eval` for library `ctx`: `schemas`
    /// and `values` are what its parent sent it (already addressed to it),
    /// `extra_for_libraries` go to its own private libraries.
    fn render(
        &self,
        ctx: LibraryCtx,
        opts: &EvalOpts,
        skip_validation: bool,
        schemas: &[Envelope],
        values: &[Envelope],
        extra_for_libraries: &[Envelope],
    ) -> Result<Rendered, RenderError> {
        let (schema, values) = self.values(ctx, opts, skip_validation, schemas, values)?;
        let mut values_for_libraries = values.for_libraries.clone();
        values_for_libraries.extend(extra_for_libraries.iter().cloned());
        let not_for_output: HashSet<String> = schema
            .files
            .iter()
            .chain(values.files.iter())
            .cloned()
            .collect();
        self.eval(
            ctx,
            opts,
            values.doc,
            values_for_libraries,
            schema.for_libraries.clone(),
            &not_for_output,
        )
    }

    fn values(
        &self,
        ctx: LibraryCtx,
        opts: &EvalOpts,
        skip_validation: bool,
        schemas: &[Envelope],
        values: &[Envelope],
    ) -> Result<(crate::values::LibrarySchema, crate::values::LibraryValues), RenderError> {
        // data values and schema files see empty data values
        let session = EvalSession::new(
            self.tree.clone(),
            opts,
            &self.cache,
            Value::new_map(Default::default()),
        );
        let schema = library_schema(&session, ctx, schemas).map_err(RenderError::Values)?;
        let values = library_values(&session, ctx, values, &schema.schema, skip_validation)
            .map_err(RenderError::Values)?;
        Ok((schema, values))
    }

    /// ytt's `LibraryExecution.Eval`.
    fn eval(
        &self,
        ctx: LibraryCtx,
        opts: &EvalOpts,
        values: Document,
        values_for_libraries: Vec<Envelope>,
        schemas_for_libraries: Vec<Envelope>,
        not_for_output: &HashSet<String>,
    ) -> Result<Rendered, RenderError> {
        let runner = Arc::new(LibraryRunner {
            renderer: Renderer {
                reads: None,
                ..self.clone()
            },
            opts: opts.clone(),
            values: values_for_libraries.clone(),
            schemas: schemas_for_libraries.clone(),
        });
        let mut session = EvalSession::new(self.tree.clone(), opts, &self.cache, values.value)
            .with_libraries(runner);
        session.reads = self.reads.clone();
        session.functions_at_once = self.repeated;
        let mut docsets: Vec<(usize, String, DocSet)> = Vec::new();
        let mut rendered = Rendered::default();
        for f in self.tree.accessible_files_in_tree_order(ctx.current) {
            let file_ctx = LibraryCtx {
                current: f.dir,
                root: ctx.root,
            };
            let kind = f.file.file_type();
            // ytt's `IsForOutput`: templates, and plain YAML and text files
            // (a `--file-mark` may make either of a file)
            if f.file.is_for_output()
                && !f.file.is_library()
                && !not_for_output.contains(&f.output_key())
            {
                match kind {
                    FileType::Yaml => {
                        let r = session
                            .eval_yaml(&f, file_ctx)
                            .map_err(RenderError::Template)?;
                        docsets.push((f.file.order, f.rel_path.clone(), r.docset));
                    }
                    FileType::Text if f.file.is_template() => {
                        let (_, text) = session
                            .eval_text(&f, file_ctx)
                            .map_err(RenderError::Template)?;
                        rendered.files.push(OutputFile {
                            path: f.rel_path.clone(),
                            content: OutputContent::Text(text),
                        });
                    }
                    FileType::Text => rendered.files.push(OutputFile {
                        path: f.rel_path.clone(),
                        content: OutputContent::Text(f.file.src.text().to_string()),
                    }),
                    _ => {}
                }
            } else if f.file.is_library()
                && matches!(kind, FileType::Yaml | FileType::Text | FileType::Starlark)
            {
                let module = session
                    .eval_module(&f, file_ctx)
                    .map_err(RenderError::Template)?;
                rendered.exports.push((f.rel_path.clone(), module));
            }
        }
        check_unused(&values_for_libraries, &schemas_for_libraries)?;
        docsets.sort_by_key(|(order, _, _)| *order);
        let docsets = overlay_outputs(
            opts,
            docsets.into_iter().map(|(_, p, ds)| (p, ds)).collect(),
        )?;
        for (path, ds) in docsets {
            let start = rendered.docs.docs.len();
            rendered.docs.docs.extend(ds.docs);
            rendered.files.push(OutputFile {
                path,
                content: OutputContent::Yaml(start..rendered.docs.docs.len()),
            });
        }
        Ok(rendered)
    }
}

/// ytt's `checkUnusedDVsOrSchemas`.
fn check_unused(values: &[Envelope], schemas: &[Envelope]) -> Result<(), RenderError> {
    let mut descs: Vec<String> = values
        .iter()
        .filter(|e| !e.is_used())
        .map(Envelope::describe)
        .collect();
    let unused_values = descs.len();
    descs.extend(
        schemas
            .iter()
            .filter(|e| !e.is_used())
            .map(Envelope::describe_schema),
    );
    if descs.is_empty() {
        return Ok(());
    }
    let mut kinds = Vec::new();
    if unused_values > 0 {
        kinds.push("data values");
    }
    if descs.len() > unused_values {
        kinds.push("schema");
    }
    Err(RenderError::Unused(format!(
        "Expected all provided library {} documents to be used but found unused: {}",
        kinds.join(", and "),
        descs.join(", ")
    )))
}

/// ytt's `OverlayPostProcessing`: documents annotated `@overlay/match` are
/// overlays, applied (in file order) to the other documents of every file;
/// empty documents are dropped.
fn overlay_outputs(
    opts: &EvalOpts,
    docsets: Vec<(String, DocSet)>,
) -> Result<Vec<(String, DocSet)>, RenderError> {
    let mut overlays: Vec<(String, Document)> = Vec::new();
    let mut paths = Vec::new();
    let mut lefts = Vec::new();
    let mut overlay_files: Vec<String> = Vec::new();
    for (path, ds) in docsets {
        let mut kept = Vec::new();
        for doc in ds.docs {
            if doc.meta.has("overlay/match") {
                if !overlay_files.contains(&path) {
                    overlay_files.push(path.clone());
                }
                overlays.push((path.clone(), doc));
            } else if !doc.is_empty() {
                kept.push(doc);
            }
        }
        if !kept.is_empty() {
            paths.push(path);
            lefts.push(DocSet {
                docs: kept,
                pos: ds.pos,
                meta: ds.meta,
            });
        }
    }
    if !overlays.is_empty() {
        let order = overlay_files.join(", ");
        let result = call_in_fresh_evaluator(opts, |ev| {
            for (_, doc) in &overlays {
                let right = DocSet {
                    docs: vec![doc.clone()],
                    pos: Pos::unknown(),
                    meta: Meta::default(),
                };
                let mut op = Op::new(ev, false);
                if let Err(e) = op.apply_docsets(&mut lefts, &right, &Expects::default()) {
                    return Ok(Err(e));
                }
            }
            Ok(Ok(()))
        });
        let failed = |e: OverlayError| RenderError::Overlay {
            message: format!("Overlaying (in following order: {order}): {}", e.message),
            pos: e.pos,
        };
        match result {
            Ok(Ok(())) => {}
            Ok(Err(e)) => return Err(failed(e)),
            Err(e) => {
                return Err(RenderError::Overlay {
                    message: format!("Overlaying (in following order: {order}): {e}"),
                    pos: None,
                })
            }
        }
    }
    Ok(paths.into_iter().zip(lefts).collect())
}

/// `@ytt:library` for the templates of one library execution: the values
/// and schemas that library addresses to its private libraries, and the
/// renderer to run them with.
struct LibraryRunner {
    renderer: Renderer,
    opts: EvalOpts,
    values: Vec<Envelope>,
    schemas: Vec<Envelope>,
}

impl Libraries for LibraryRunner {
    fn call(
        &self,
        caller: LibraryCtx,
        req: &LibraryRequest,
        op: &LibraryOp,
    ) -> Result<LibraryAnswer, String> {
        if let LibraryOp::Find = op {
            self.renderer
                .tree
                .find_accessible_library(caller.current, &req.path)?;
            return Ok(LibraryAnswer::Found);
        }
        let me = LibRef {
            path: req.path.clone(),
            alias: req.alias.clone(),
        };
        let mut opts = self.opts.clone();
        if let Some(b) = req.ignore_unknown_comments {
            opts.ignore_unknown_comments = b;
        }
        if let Some(b) = req.implicit_map_key_overrides {
            opts.implicit_map_key_overrides = b;
        }
        if let Some(b) = req.strict {
            opts.strict = b;
        }
        // what this library sends, then what the template adds
        let mut from_parent = ParentEnvelopes {
            values: self.values.clone(),
            schemas: self.schemas.clone(),
        };
        for s in &req.schemas {
            from_parent
                .schemas
                .push(schema_envelope(programmatic(s.clone()))?);
        }
        for (v, plain) in &req.data_values {
            let mut doc = programmatic(v.clone());
            if *plain {
                doc = as_plain_merge_overlay(doc)?;
            }
            from_parent.values.push(Envelope::new(doc)?);
        }
        let r = &self.renderer;
        // data values and schema files see empty data values
        let session = EvalSession::new(
            r.tree.clone(),
            &opts,
            &r.cache,
            Value::new_map(Default::default()),
        );
        let skip = req.skip_validation || r.skip_validation;
        let lib = private_library_values(&session, caller, &me, &from_parent, skip)
            .map_err(|e| e.message)?;
        let (symbol, path) = match op {
            LibraryOp::DataValues => return Ok(LibraryAnswer::Values(lib.values.doc.value)),
            LibraryOp::Find | LibraryOp::Eval => (None, None),
            LibraryOp::Export { symbol, path } => (Some(symbol), path.as_ref()),
        };
        let not_for_output: HashSet<String> = lib
            .schema
            .files
            .iter()
            .chain(lib.values.files.iter())
            .cloned()
            .collect();
        // ytt's library execution factory: a library that skips validation
        // makes its own libraries skip it too
        let skipping;
        let r = if skip && !r.skip_validation {
            skipping = Renderer {
                skip_validation: true,
                ..r.clone()
            };
            &skipping
        } else {
            r
        };
        let rendered = r
            .eval(
                lib.ctx,
                &opts,
                lib.values.doc,
                lib.values_for_libraries,
                lib.schemas_for_libraries,
                &not_for_output,
            )
            .map_err(|e| e.message().to_string())?;
        match symbol {
            None => Ok(LibraryAnswer::Docs(rendered.docs)),
            Some(symbol) => {
                let found: Vec<&(String, FrozenModule)> = rendered
                    .exports
                    .iter()
                    .filter(|(p, m)| {
                        m.get_option(symbol).ok().flatten().is_some()
                            && path.is_none_or(|want| want == p)
                    })
                    .collect();
                match found.as_slice() {
                    [] => Err(format!(
                        "Expected to find exported symbol '{symbol}', but did not"
                    )),
                    [(_, m)] => m
                        .get(symbol)
                        .map(LibraryAnswer::Symbol)
                        .map_err(|e| e.to_string()),
                    many => Err(format!(
                        "Expected to find exactly one exported symbol '{symbol}', but found multiple across files: {}",
                        many.iter().map(|(p, _)| p.as_str()).collect::<Vec<_>>().join(", ")
                    )),
                }
            }
        }
    }
}

/// A document made by a program (`with_data_values(...)`): no position.
fn programmatic(value: Value) -> Document {
    Document {
        value,
        pos: Pos::unknown(),
        meta: Meta::default(),
        injected: false,
    }
}
