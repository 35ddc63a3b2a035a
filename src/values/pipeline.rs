//! Computing a library's final data values, in ytt's order.
//!
//! 1. schema defaults;
//! 2. `@data/values` documents of the library's files, in file order (each
//!    file is a template, evaluated with empty `data.values`);
//! 3. overlays from outside: flags of the ytt invocation, or values sent by a
//!    parent library;
//!
//! each merged onto the previous result as an overlay, and type-checked against
//! the schema after every step. Documents addressed to other libraries are set
//! aside for them.

use crate::files::{FileType, LibraryCtx};
use crate::overlay::overlay_document;
use crate::template::compiler::metas::{classify, MetaKind};
use crate::template::eval::{call_in_fresh_evaluator, EvalSession};
use crate::template::TemplateError;
use crate::yaml::{DocSet, Document, Meta, Pos, Value};

use super::envelope::{Envelope, ANN_DATA_VALUES, ANN_DATA_VALUES_SCHEMA};

/// Why data values could not be computed. `message` is ytt's text.
#[derive(Debug, Clone)]
pub struct ValuesError {
    pub message: String,
    pub kind: ValuesErrorKind,
}

#[derive(Debug, Clone)]
pub enum ValuesErrorKind {
    /// A file failed to parse, compile or evaluate.
    Template(TemplateError),
    /// An overlay could not be applied; `pos` is the innermost node ytt's
    /// message names.
    Overlay {
        pos: Option<Pos>,
        hints: Vec<String>,
        /// A key to write instead of one that matched nothing.
        rename: Option<(String, String)>,
    },
    /// Values do not conform to the schema (or the schema is invalid:
    /// `summary` is ytt's headline of it).
    Schema {
        violations: Vec<crate::schema::Violation>,
        summary: String,
    },
    /// Validation rules failed.
    Validation(Vec<crate::validation::Invalidation>),
    /// Anything else (bad annotations, misplaced documents, misused rules),
    /// of the rule chosen where it was found.
    Other {
        pos: Option<Pos>,
        rule: crate::diagnostics::RuleId,
    },
}

impl ValuesError {
    pub fn other(message: impl Into<String>, pos: Option<Pos>) -> ValuesError {
        ValuesError::of(crate::diagnostics::RuleId::ValuesError, message, pos)
    }

    /// An error of `rule` (not a template, overlay, schema or validation
    /// result).
    pub fn of(
        rule: crate::diagnostics::RuleId,
        message: impl Into<String>,
        pos: Option<Pos>,
    ) -> ValuesError {
        ValuesError {
            message: message.into(),
            kind: ValuesErrorKind::Other { pos, rule },
        }
    }

    pub fn wrap(mut self, prefix: &str) -> ValuesError {
        self.message = format!("{prefix}{}", self.message);
        self
    }
}

/// The result for one library.
#[derive(Debug, Clone)]
pub struct LibraryValues {
    pub doc: Document,
    /// Documents for private libraries (addressed with `@library/ref`).
    pub for_libraries: Vec<Envelope>,
    /// The files that contributed values, in order, by
    /// [`crate::files::FileInLibrary::output_key`] (they are no output).
    pub files: Vec<String>,
}

/// A document-level annotation check, ytt's `DocExtractor.checkNonDocs`.
pub fn check_annotation_only_on_docs(ds: &DocSet, ann: &str) -> Result<(), ValuesError> {
    fn meta_has(meta: &Meta, pos: &Pos, ann: &str) -> bool {
        meta.comments.iter().any(|c| {
            matches!(classify(c, pos, true), Ok(MetaKind::Annotation { ref name, .. }) if name == ann)
        }) || meta.has(ann)
    }
    fn walk(v: &Value, ann: &str) -> Result<(), ValuesError> {
        let fail = |kind: &str, pos: &Pos| {
            ValuesError::other(
                format!(
                    "Found @{ann} on {kind} ({}); only documents (---) can be annotated with @{ann}",
                    pos.compact()
                ),
                Some(pos.clone()),
            )
        };
        match v {
            Value::Map(m) => {
                if meta_has(&m.meta, &m.pos, ann) {
                    return Err(fail("map", &m.pos));
                }
                for i in &m.items {
                    if meta_has(&i.meta, &i.pos, ann) {
                        return Err(fail("map item", &i.pos));
                    }
                    walk(&i.value, ann)?;
                }
            }
            Value::Array(a) => {
                if meta_has(&a.meta, &a.pos, ann) {
                    return Err(fail("array", &a.pos));
                }
                for i in &a.items {
                    if meta_has(&i.meta, &i.pos, ann) {
                        return Err(fail("array item", &i.pos));
                    }
                    walk(&i.value, ann)?;
                }
            }
            _ => {}
        }
        Ok(())
    }
    for d in &ds.docs {
        walk(&d.value, ann)?;
    }
    Ok(())
}

/// Splits templated documents into (annotated with `ann`, others), ytt's
/// `DocExtractor`.
pub fn extract_docs(ds: DocSet, ann: &str) -> Result<(Vec<Document>, Vec<Document>), ValuesError> {
    check_annotation_only_on_docs(&ds, ann)?;
    Ok(ds.docs.into_iter().partition(|d| d.meta.has(ann)))
}

/// How many `#@ann` comments a (not yet templated) document carries.
fn annotation_comments(d: &Document, ann: &str) -> usize {
    d.meta
        .comments
        .iter()
        .filter(|c| {
            matches!(classify(c, &d.pos, true), Ok(MetaKind::Annotation { ref name, .. }) if name == ann)
        })
        .count()
}

/// ytt's extractor counts the comments: an annotation given twice on one
/// document is an error.
pub fn check_once_per_document(ds: &DocSet, ann: &str) -> Result<(), ValuesError> {
    match ds.docs.iter().find(|d| annotation_comments(d, ann) > 1) {
        Some(d) => Err(ValuesError::other(
            format!("{ann} annotation may only be used once per document"),
            Some(d.pos.clone()),
        )),
        None => Ok(()),
    }
}

/// Files of a library that hold documents annotated with `ann` (ytt's
/// `filesByAnnotation`), in order.
pub fn files_with_annotation(
    session: &EvalSession,
    lib: LibraryCtx,
    ann: &'static str,
) -> Result<Vec<crate::files::FileInLibrary>, ValuesError> {
    select_files_with_annotation(session, session.tree.accessible_files(lib.current), ann)
}

/// Those of `files` that hold documents annotated with `ann`, in order.
pub fn select_files_with_annotation(
    session: &EvalSession,
    files: Vec<crate::files::FileInLibrary>,
    ann: &'static str,
) -> Result<Vec<crate::files::FileInLibrary>, ValuesError> {
    let mut out = Vec::new();
    for f in files {
        if f.file.file_type() != FileType::Yaml || !f.file.is_template() {
            continue;
        }
        // (every pair of a library asks this of the same files)
        let annotated = session.cache.fact(&f.file, ann, || {
            let raw = session.cache.raw_yaml_opts(&f.file, session.opts.strict);
            let ds = match &*raw {
                Ok(ds) => ds,
                Err(e) => {
                    return Err(ValuesError {
                        message: e.message.clone(),
                        kind: ValuesErrorKind::Template(e.clone()),
                    })
                }
            };
            check_annotation_only_on_docs(ds, ann)?;
            Ok(ds.docs.iter().any(|d| annotation_comments(d, ann) > 0))
        })?;
        if annotated {
            out.push(f);
        }
    }
    Ok(out)
}

/// The paths of those of `files` that hold data values or schema documents:
/// what a render does not output.
pub fn values_and_schema_files(
    session: &EvalSession,
    files: Vec<crate::files::FileInLibrary>,
) -> Result<std::collections::HashSet<String>, ValuesError> {
    let mut out = std::collections::HashSet::new();
    for ann in [ANN_DATA_VALUES, ANN_DATA_VALUES_SCHEMA] {
        for f in select_files_with_annotation(session, files.clone(), ann)? {
            out.insert(f.output_key());
        }
    }
    Ok(out)
}

/// Computes the data values of the library rooted at `lib`, and validates
/// them (unless `skip_validation`, ytt's
/// `--dangerous-data-values-disable-validation`).
pub fn library_values(
    session: &EvalSession,
    lib: LibraryCtx,
    overlays: &[Envelope],
    schema: &crate::schema::Schema,
    skip_validation: bool,
) -> Result<LibraryValues, ValuesError> {
    let files = files_with_annotation(session, lib, ANN_DATA_VALUES)?;
    let mut descs: Vec<String> = files.iter().map(|f| f.file.rel_path.clone()).collect();
    if !overlays.is_empty() {
        descs.push("additional data values".to_string());
    }
    let prefix = format!(
        "Overlaying data values (in following order: {}): ",
        descs.join(", ")
    );
    let (doc, for_libraries) =
        apply(session, lib, &files, overlays, schema).map_err(|e| e.wrap(&prefix))?;
    if !skip_validation {
        validate_values(session, &doc, schema)?;
    }
    Ok(LibraryValues {
        doc,
        for_libraries,
        files: files.iter().map(|f| f.output_key()).collect(),
    })
}

fn apply(
    session: &EvalSession,
    lib: LibraryCtx,
    files: &[crate::files::FileInLibrary],
    overlays: &[Envelope],
    schema: &crate::schema::Schema,
) -> Result<(Document, Vec<Envelope>), ValuesError> {
    let mut all: Vec<Envelope> = Vec::new();
    if let Some(defaults) = schema.defaults() {
        all.push(Envelope::new(defaults).map_err(|e| ValuesError::other(e, None))?);
    }
    all.extend(collect_envelopes(session, lib, files)?);
    all.extend(overlays.iter().cloned());
    let merged = merge_envelopes(session, None, all, schema)?;
    Ok((merged.doc, merged.for_libraries))
}

/// Where a document's `@library/ref` (or else `@data/values`, or else the
/// document itself) is written: the place of an error about its arguments.
pub fn annotations_pos(d: &Document) -> Pos {
    ["library/ref", ANN_DATA_VALUES, "data/values-schema"]
        .iter()
        .find_map(|a| d.meta.annotation(a))
        .map(|a| a.pos.clone())
        .filter(Pos::is_known)
        .unwrap_or_else(|| d.pos.clone())
}

/// Evaluates data values files (templates, with empty `data.values`) into
/// their `@data/values` documents, in order.
pub fn collect_envelopes(
    session: &EvalSession,
    lib: LibraryCtx,
    files: &[crate::files::FileInLibrary],
) -> Result<Vec<Envelope>, ValuesError> {
    let mut all = Vec::new();
    for f in files {
        let file_lib = LibraryCtx {
            current: f.dir,
            root: lib.root,
        };
        let result = session.eval_yaml(f, file_lib).map_err(|e| ValuesError {
            message: format!("Templating file '{}': {}", f.file.rel_path, e.message),
            kind: ValuesErrorKind::Template(e),
        })?;
        // an annotation given twice on a document: ytt's extractor counts
        // the comments once the file is templated, and names the file
        if let Ok(raw) = &*session.cache.raw_yaml_opts(&f.file, session.opts.strict) {
            check_once_per_document(raw, ANN_DATA_VALUES).map_err(|mut e| {
                e.message = format!("Templating file '{}': {}", f.file.rel_path, e.message);
                e
            })?;
        }
        let (docs, others) = extract_docs(result.docset, ANN_DATA_VALUES).map_err(|e| {
            let mut e = e;
            e.message = format!("Templating file '{}': {}", f.file.rel_path, e.message);
            e
        })?;
        if others.iter().any(|d| !d.is_empty()) {
            return Err(ValuesError::other(
                format!(
                    "Templating file '{}': Expected data values file '{}' to only have data values documents",
                    f.file.rel_path, f.file.rel_path
                ),
                Some(Pos::unknown_in(&f.file.src)),
            ));
        }
        for d in docs {
            // a bad `@library/ref` or `@data/values` argument: at its line
            let at = annotations_pos(&d);
            all.push(Envelope::new(d).map_err(|e| ValuesError::other(e, Some(at)))?);
        }
    }
    Ok(all)
}

/// Data values part-way through the pipeline.
#[derive(Debug, Clone)]
pub struct Merged {
    pub doc: Document,
    /// Documents set aside for private libraries, in order.
    pub for_libraries: Vec<Envelope>,
    /// Whether no document made `doc` (it is an empty map): the next one
    /// is taken whole, as ytt takes the first values document, not
    /// overlaid onto nothing.
    pub empty: bool,
}

/// Overlays `envelopes` one by one onto `start` (the values so far, if any),
/// type-checking after every step as ytt does. Documents for other libraries
/// are set aside.
pub fn merge_envelopes(
    session: &EvalSession,
    start: Option<Merged>,
    envelopes: Vec<Envelope>,
    schema: &crate::schema::Schema,
) -> Result<Merged, ValuesError> {
    let (mut current, mut for_libraries) = match start {
        Some(m) if m.empty => (None, m.for_libraries),
        Some(m) => (Some(m.doc), m.for_libraries),
        None => (None, Vec::new()),
    };
    for env in envelopes {
        if env.intended_for_another_library() {
            for_libraries.push(env);
            continue;
        }
        let next = match current.take() {
            None => env.doc,
            Some(left) => {
                let right = env.doc;
                call_in_fresh_evaluator(session.opts, |ev| Ok(overlay_document(ev, left, right)))
                    .map_err(|e| ValuesError::other(session.starlark_error(&e).message, None))?
                    .map_err(|m| ValuesError {
                        message: m.message,
                        kind: ValuesErrorKind::Overlay {
                            pos: m.pos,
                            hints: m.hints,
                            rename: m.rename.map(|r| *r),
                        },
                    })?
            }
        };
        let mut next = next;
        let violations = schema.check(&mut next);
        if !violations.is_empty() {
            return Err(ValuesError {
                message: crate::schema::render_violations(
                    "One or more data values were invalid",
                    &violations,
                ),
                kind: ValuesErrorKind::Schema {
                    violations,
                    summary: crate::schema::SchemaError::INVALID.to_string(),
                },
            });
        }
        current = Some(next);
    }
    let empty = current.is_none();
    let doc = current.unwrap_or_else(|| Document {
        value: Value::new_map(Pos::unknown()),
        pos: Pos::unknown(),
        meta: Meta::default(),
        injected: false,
    });
    Ok(Merged {
        doc,
        for_libraries,
        empty,
    })
}

/// Runs the validations of final data values (ytt's "Validating final data
/// values").
pub fn validate_values(
    session: &EvalSession,
    doc: &Document,
    schema: &crate::schema::Schema,
) -> Result<(), ValuesError> {
    let invalidations = crate::validation::run(doc, schema.doc_type.as_ref(), session.opts)
        .map_err(|e| {
            ValuesError::of(
                e.rule,
                format!("Validating final data values:\n{}", e.message),
                e.pos,
            )
        })?;
    if invalidations.is_empty() {
        return Ok(());
    }
    Err(ValuesError {
        message: format!(
            "Validating final data values:\n{}",
            crate::validation::render(&invalidations)
        ),
        kind: ValuesErrorKind::Validation(invalidations),
    })
}
