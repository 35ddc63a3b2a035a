//! Computing a library's schema: `@data/values-schema` documents of its files,
//! in file order, overlaid on one another (plus schemas sent by a parent
//! library), then turned into types.

use crate::files::LibraryCtx;
use crate::overlay::overlay_document;
use crate::schema::Schema;
use crate::template::eval::{call_in_fresh_evaluator, EvalSession};
use crate::yaml::{Document, Pos};

use super::envelope::{parse_lib_ref, Envelope, ANN_DATA_VALUES_SCHEMA, ANN_LIBRARY_REF};
use super::pipeline::{
    check_once_per_document, extract_docs, files_with_annotation, ValuesError, ValuesErrorKind,
};

/// The schema of a library, and schema documents for its private libraries.
pub struct LibrarySchema {
    pub schema: Schema,
    /// The merged schema document (for tools that show it).
    pub source: Option<Document>,
    pub for_libraries: Vec<Envelope>,
    /// The schema files, by [`crate::files::FileInLibrary::output_key`]
    /// (they are no output).
    pub files: Vec<String>,
}

pub fn schema_envelope(doc: Document) -> Result<Envelope, String> {
    let mut lib_ref = Vec::new();
    if let Some(ann) = doc.meta.annotation(ANN_LIBRARY_REF) {
        if ann.args.len() != 1 {
            return Err(format!(
                "Expected {ANN_LIBRARY_REF} annotation to have one arg, got {}",
                ann.args.len()
            ));
        }
        let s = match &ann.args[0] {
            crate::yaml::AnnValue::Str(s) => s.clone(),
            crate::yaml::AnnValue::Frozen(f) => f.unpack_str().unwrap_or_default().to_string(),
            _ => String::new(),
        };
        lib_ref = parse_lib_ref(&s).map_err(|e| format!("Annotation {ANN_LIBRARY_REF}: {e}"))?;
    }
    Ok(Envelope {
        doc,
        after_library_module: false,
        original_ref: lib_ref.clone(),
        lib_ref,
        used: Default::default(),
    })
}

/// Computes the schema of the library rooted at `lib`.
pub fn library_schema(
    session: &EvalSession,
    lib: LibraryCtx,
    overlays: &[Envelope],
) -> Result<LibrarySchema, ValuesError> {
    let files = files_with_annotation(session, lib, ANN_DATA_VALUES_SCHEMA)?;
    // as ytt's schema collection does, before any schema file is templated
    for f in &files {
        if let Ok(raw) = &*session.cache.raw_yaml_opts(&f.file, session.opts.strict) {
            check_once_per_document(raw, ANN_DATA_VALUES_SCHEMA)?;
        }
    }
    let mut descs: Vec<String> = files.iter().map(|f| f.file.rel_path.clone()).collect();
    if !overlays.is_empty() {
        descs.push("additional data value schema".to_string());
    }
    let prefix = format!(
        "Overlaying data values schema (in following order: {}): ",
        descs.join(", ")
    );
    let wrap = |mut e: ValuesError| {
        e.message = format!("{prefix}{}", e.message);
        e
    };
    let mut all = Vec::new();
    for f in &files {
        let file_lib = LibraryCtx {
            current: f.dir,
            root: lib.root,
        };
        let result = session.eval_yaml(f, file_lib).map_err(|e| {
            wrap(ValuesError {
                message: format!("Templating file '{}': {}", f.file.rel_path, e.message),
                kind: ValuesErrorKind::Template(e),
            })
        })?;
        let (docs, others) =
            extract_docs(result.docset, ANN_DATA_VALUES_SCHEMA).map_err(|mut e| {
                e.message = format!("Templating file '{}': {}", f.file.rel_path, e.message);
                wrap(e)
            })?;
        if others.iter().any(|d| !d.is_empty()) {
            return Err(wrap(ValuesError::other(
                format!(
                    "Templating file '{}': Expected schema file '{}' to only have schema documents",
                    f.file.rel_path, f.file.rel_path
                ),
                Some(Pos::unknown_in(&f.file.src)),
            )));
        }
        for d in docs {
            let at = super::pipeline::annotations_pos(&d);
            all.push(schema_envelope(d).map_err(|e| wrap(ValuesError::other(e, Some(at))))?);
        }
    }
    all.extend(overlays.iter().cloned());
    let mut for_libraries = Vec::new();
    let mut current: Option<Document> = None;
    for env in all {
        if env.intended_for_another_library() {
            for_libraries.push(env);
            continue;
        }
        current = Some(match current.take() {
            None => env.doc,
            Some(left) => {
                let right = env.doc;
                call_in_fresh_evaluator(session.opts, |ev| Ok(overlay_document(ev, left, right)))
                    .map_err(|e| {
                        wrap(ValuesError::other(session.starlark_error(&e).message, None))
                    })?
                    .map_err(|m| {
                        wrap(ValuesError {
                            message: m.message,
                            kind: ValuesErrorKind::Overlay {
                                pos: m.pos,
                                hints: m.hints,
                                rename: m.rename.map(|r| *r),
                            },
                        })
                    })?
            }
        });
    }
    let schema = match &current {
        None => Schema::null(),
        Some(doc) => Schema::from_document(doc).map_err(|e| {
            let violations = e.all_violations();
            wrap(if violations.is_empty() {
                // a plain error: a finding of its own rule, never none
                ValuesError::of(e.rule, e.message(), None)
            } else {
                ValuesError {
                    message: e.message(),
                    kind: ValuesErrorKind::Schema {
                        violations,
                        summary: e.headline(),
                    },
                }
            })
        })?,
    };
    Ok(LibrarySchema {
        schema,
        source: current,
        for_libraries,
        files: files.iter().map(|f| f.output_key()).collect(),
    })
}
