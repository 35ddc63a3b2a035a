//! Running a plan: every library x environment pair, in parallel.
//!
//! Work is shared where ytt's semantics allow it. A library's files are read,
//! parsed and compiled once (the compile cache is shared by all threads), and
//! its schema and the values of its own `@data/values` files — the first
//! steps of ytt's merge order, the same for every environment — are computed
//! once. Each pair then only evaluates its environment's files, overlays them
//! and the flags onto that shared start, type-checks and validates.
//!
//! An environment that brings its own schema documents changes the first
//! steps; such a pair is evaluated from scratch.

use crate::diagnostics::RuleId;
use std::collections::HashSet;
use std::sync::Arc;

use rayon::prelude::*;

use super::usage::ValueUsage;
use crate::diagnostics::Severity;
use crate::files::{FileInLibrary, InputFile, LibraryCtx, LibraryTree};
use crate::schema::{DocType, Type};
use crate::source::{RepoPath, SourceCache, Stdin};
use crate::template::{CompileCache, EvalSession};
use crate::values::envelope::{ANN_DATA_VALUES, ANN_DATA_VALUES_SCHEMA};
use crate::values::pipeline::{
    collect_envelopes, files_with_annotation, merge_envelopes, select_files_with_annotation,
    validate_values, values_and_schema_files, Merged,
};
use crate::values::{
    library_schema, private_libraries, private_library_values, DataValuesFlags, Envelope,
    LibrarySchema, ParentEnvelopes, ValuesError,
};
use crate::workspace::{Library, Pair, Plan};
use crate::yaml::{Document, Value};

use super::finding::{Finding, Location};
use super::from_errors::{from_values_error, Stage, Subject};
use super::inputs::{embedded_values, input_files, marked_input_files, PairSnapshot};
use super::outcome::CheckOptions;

/// A file's ytt order offset for environment `-f` files: after every library
/// file, in the environment's order.
const ENV_FILE_ORDER: usize = 1_000_000;

/// `annotation/unknown`: annotations in ytt's namespaces that ytt does not
/// know, and `annotation/not-template`: code written as `#@code` (no
/// space), which ytt reads as an annotation. ytt ignores both, so the check
/// reports them and evaluates on.
fn unknown_annotations(
    cache: &CompileCache,
    opts: &CheckOptions,
    files: &[Arc<InputFile>],
    who: &Subject,
) -> Vec<Finding> {
    let mut out = Vec::new();
    for f in files {
        if f.src.text().starts_with('\u{feff}') && f.file_type() != crate::files::FileType::Unknown
        {
            out.push(who.finding(
                RuleId::FileByteOrderMark,
                format!(
                    "'{}' starts with a byte order mark, which ytt reads as content: its first line is no annotation (save it as UTF-8 without the mark)",
                    f.rel_path
                ),
                Some(Location::file(f.src.name())),
            ));
        }
        if f.file_type() != crate::files::FileType::Yaml {
            continue;
        }
        let raw = cache.raw_yaml_opts(f, opts.eval.strict);
        let Ok(ds) = &*raw else { continue };
        for u in crate::template::compiler::metas::unknown_annotations(ds) {
            let mut message = format!(
                "unknown annotation '@{}': ytt ignores annotations it does not know, so this one has no effect",
                u.name
            );
            if let Some(s) = &u.suggestion {
                message.push_str(&format!(" (did you mean '@{s}'?)"));
            }
            let location = crate::yaml::Pos::location(&u.pos);
            let fix = u.suggestion.as_ref().zip(location.clone()).map(|(s, l)| {
                crate::diagnostics::Fix::replace(l, &format!("@{}", u.name), &format!("@{s}"))
            });
            let mut f = who.finding(RuleId::AnnotationUnknown, message, location);
            f.fix = fix;
            out.push(f);
        }
        for (name, pos) in crate::template::compiler::metas::code_like_annotations(ds) {
            // `#@overlay.remove`: a known annotation with `.` for `/`, not
            // code (`#@ overlay.remove` would break the render)
            let annotation = crate::template::compiler::metas::annotation_meant(&name);
            let (message, new) = match &annotation {
                Some(a) => (
                    format!(
                        "'#@{name}' is read as an annotation named '{name}', which ytt does not know and ignores; write the annotation '#@{a}'"
                    ),
                    format!("#@{a}"),
                ),
                None => (
                    format!(
                        "'#@{name}' is read as an annotation named '{name}', which ytt ignores (the node gets no value from it); write '#@ {name}' to make it code"
                    ),
                    format!("#@ {name}"),
                ),
            };
            let location = crate::yaml::Pos::location(&pos);
            let fix = location
                .clone()
                .map(|l| crate::diagnostics::Fix::replace(l, &format!("#@{name}"), &new));
            let mut f = who.finding(RuleId::AnnotationNotTemplate, message, location);
            f.fix = fix;
            out.push(f);
        }
    }
    out
}

/// What every pair of a library starts from.
struct LibraryBase {
    files: Vec<Arc<InputFile>>,
    schema: LibrarySchema,
    merged: Merged,
    /// The paths the schema declares (`schema/unused-value`).
    declared: std::sync::OnceLock<super::usage::Declared>,
    /// The library's own data values and schema files (not rendered).
    not_for_output: std::sync::OnceLock<Result<HashSet<String>, ValuesError>>,
    /// Whether the schema marks any value deprecated or removed (most mark
    /// none, and then no pair's values need walking for them).
    marks_deprecations: std::sync::OnceLock<bool>,
}

/// A pair's data values and schema files: the library's own, found once
/// for all its pairs, and the environment's.
fn pair_not_for_output(
    session: &EvalSession,
    library_files: &std::sync::OnceLock<Result<HashSet<String>, ValuesError>>,
) -> Result<HashSet<String>, ValuesError> {
    let files = session.tree.accessible_files(LibraryCtx::ROOT.current);
    let (env, own): (Vec<_>, Vec<_>) = files
        .into_iter()
        .partition(|f| f.file.order >= ENV_FILE_ORDER);
    let mut out = library_files
        .get_or_init(|| values_and_schema_files(session, own))
        .clone()?;
    out.extend(values_and_schema_files(session, env)?);
    Ok(out)
}

/// A library's files, after its `file_marks:` (a mark that cannot be
/// applied is a `config/invalid` finding of the library).
fn library_input_files(
    sources: &SourceCache,
    lib: &Library,
    who: &Subject,
) -> Result<Vec<Arc<InputFile>>, Vec<Finding>> {
    let inputs = library_inputs(lib);
    if lib.file_marks.is_empty() {
        return input_files(sources, inputs, who);
    }
    let bad = |e: String| {
        vec![who.finding(
            RuleId::ConfigInvalid,
            format!("file_marks of library '{}': {e}", lib.name),
            Some(Location::file(crate::workspace::CONFIG_FILE)),
        )]
    };
    let marks = lib
        .file_marks
        .iter()
        .map(|m| crate::files::marks::FileMark::parse(m))
        .collect::<Result<Vec<_>, _>>()
        .map_err(bad)?;
    let markable = inputs
        .into_iter()
        .map(|(path, rel, order)| crate::files::marks::Markable {
            original: rel.clone(),
            rel_path: rel,
            marks: crate::files::Marks::default(),
            item: (path, order),
        })
        .collect();
    let marked = crate::files::marks::apply(&marks, markable).map_err(bad)?;
    marked_input_files(
        sources,
        marked
            .into_iter()
            .map(|m| (m.item.0, m.rel_path, m.item.1, m.marks)),
        who,
    )
}

fn library_inputs(lib: &Library) -> Vec<(RepoPath, String, usize)> {
    let mut out: Vec<(RepoPath, String, usize)> = lib
        .files
        .iter()
        .enumerate()
        .map(|(i, f)| {
            // ytt names a file by its path below the folder it was given
            // in, a file given alone by its name
            let rel = match f.strip_prefix(&lib.root) {
                Some("") => f.file_name(),
                Some(rel) => rel,
                None => f.as_str(),
            };
            (f.clone(), rel.to_string(), i)
        })
        .collect();
    let n = out.len();
    for (i, f) in lib.extra_files.iter().enumerate() {
        out.push((f.path.clone(), f.rel.clone(), n + i));
    }
    out
}

fn empty_values() -> Value {
    Value::new_map(Default::default())
}

/// A library's shared start, and the warnings about its own files that every
/// pair of it reports (even when the start failed).
pub(super) struct LibraryStart {
    warnings: Vec<Finding>,
    base: Result<LibraryBase, Vec<Finding>>,
}

impl LibraryStart {
    /// The library's files (none when its start failed).
    pub(super) fn files(&self) -> &[Arc<InputFile>] {
        self.base.as_ref().map_or(&[], |b| b.files.as_slice())
    }

    /// The library's schema, when it has one and it could be built.
    pub(super) fn schema_type(&self) -> Option<DocType> {
        self.base
            .as_ref()
            .ok()
            .and_then(|b| b.schema.schema.doc_type.clone())
    }
}

pub(super) fn library_start(
    sources: &SourceCache,
    cache: &CompileCache,
    opts: &CheckOptions,
    lib: &Library,
    who: &Subject,
) -> LibraryStart {
    let files = match library_input_files(sources, lib, who) {
        Ok(files) => files,
        Err(problems) => {
            return LibraryStart {
                warnings: Vec::new(),
                base: Err(problems),
            }
        }
    };
    let mut warnings = unknown_annotations(cache, opts, &files, who);
    let base = library_base(cache, opts, files, who);
    if let (Ok(b), false) = (&base, lib.packages.is_empty()) {
        warnings.extend(super::package::findings(
            sources,
            lib,
            &b.schema.schema,
            Some(&b.merged.doc.value),
            who,
        ));
    }
    LibraryStart { warnings, base }
}

/// Each library's schema (its `@data/values-schema` documents merged), from
/// the library's own files only, whatever pairs it has: `diff` compares
/// schemas per library, so deleting an environment is no schema change.
/// `None` for a library without a schema, or whose schema fails.
pub fn library_schemas(
    sources: &SourceCache,
    plan: &Plan,
    opts: &CheckOptions,
) -> std::collections::BTreeMap<String, Option<DocType>> {
    library_schemas_of(sources, plan, opts, |_| true)
}

/// [`library_schemas`] of the libraries `wanted` names.
pub fn library_schemas_of(
    sources: &SourceCache,
    plan: &Plan,
    opts: &CheckOptions,
    wanted: impl Fn(&str) -> bool + Sync,
) -> std::collections::BTreeMap<String, Option<DocType>> {
    let cache = CompileCache::new(crate::ytt::stdlib());
    plan.libraries
        .par_iter()
        .filter(|lib| wanted(&lib.name))
        .map(|lib| {
            let who = Subject {
                library: lib.name.clone(),
                environments: Vec::new(),
            };
            let dt = library_input_files(sources, lib, &who)
                .ok()
                .and_then(|files| {
                    let tree = Arc::new(LibraryTree::new(files));
                    let session = EvalSession::new(tree, &opts.eval, &cache, empty_values());
                    library_schema(&session, LibraryCtx::ROOT, &[]).ok()
                })
                .and_then(|s| s.schema.doc_type);
            (lib.name.clone(), dt)
        })
        .collect()
}

fn library_base(
    cache: &CompileCache,
    opts: &CheckOptions,
    files: Vec<Arc<InputFile>>,
    who: &Subject,
) -> Result<LibraryBase, Vec<Finding>> {
    let tree = Arc::new(LibraryTree::new(files.clone()));
    let session = EvalSession::new(tree, &opts.eval, cache, empty_values());
    let schema = library_schema(&session, LibraryCtx::ROOT, &[])
        .map_err(|e| from_values_error(&e, Stage::Schema, who))?;
    let values_err = |e: ValuesError| from_values_error(&e, Stage::Values, who);
    let dv_files =
        files_with_annotation(&session, LibraryCtx::ROOT, ANN_DATA_VALUES).map_err(values_err)?;
    let mut envelopes = Vec::new();
    if let Some(defaults) = schema.schema.defaults() {
        envelopes
            .push(Envelope::new(defaults).map_err(|e| values_err(ValuesError::other(e, None)))?);
    }
    envelopes.extend(collect_envelopes(&session, LibraryCtx::ROOT, &dv_files).map_err(values_err)?);
    let merged = merge_envelopes(&session, None, envelopes, &schema.schema).map_err(values_err)?;
    // the schema and values files were evaluated for the last time (pairs
    // start from `merged`): their programs need not stay in memory
    let done: std::collections::HashSet<&str> = schema
        .files
        .iter()
        .map(String::as_str)
        .chain(dv_files.iter().map(|f| f.rel_path.as_str()))
        .collect();
    for f in &files {
        if done.contains(f.rel_path.as_str()) {
            cache.forget(f);
        }
    }
    Ok(LibraryBase {
        files,
        schema,
        merged,
        declared: Default::default(),
        not_for_output: Default::default(),
        marks_deprecations: Default::default(),
    })
}

/// A pair's findings, its final values, what its templates read and its
/// rendered documents (kept for `diff`).
pub(super) type PairRun = (
    Vec<Finding>,
    Option<Document>,
    Option<Arc<ValueUsage>>,
    Option<Arc<Vec<Document>>>,
);

/// Evaluates one pair; returns its findings and final values.
#[allow(clippy::too_many_arguments)] // one pair: what it reads, its shared start, the policies
pub(super) fn run_pair(
    sources: &SourceCache,
    cache: &Arc<CompileCache>,
    opts: &CheckOptions,
    plan: &Plan,
    pair: &Pair,
    start: &LibraryStart,
    policies: &[Option<Arc<super::policy::LoadedPolicy>>],
) -> PairRun {
    let lib = &plan.libraries[pair.library];
    let who = Subject {
        library: lib.name.clone(),
        environments: vec![pair.environment.clone()],
    };
    let for_this_pair = |findings: &[Finding]| -> Vec<Finding> {
        findings
            .iter()
            .cloned()
            .map(|mut f| {
                f.environments = who.environments.clone();
                f
            })
            .collect()
    };
    let mut findings = for_this_pair(&start.warnings);
    let base = match &start.base {
        Ok(b) => b,
        Err(problems) => {
            findings.extend(for_this_pair(problems));
            return (findings, None, None, None);
        }
    };
    let evaluated = evaluate_pair(
        sources,
        cache,
        opts,
        plan,
        pair,
        base,
        &who,
        &mut findings,
        policies,
    );
    let run = match evaluated {
        Ok((more, values, usage, rendered)) => {
            findings.extend(more);
            (findings, Some(values), usage, rendered)
        }
        Err(more) => {
            findings.extend(more);
            (findings, None, None, None)
        }
    };
    without_secrets(sources, pair, run)
}

/// A pair's run with nothing of the Secrets its values are kept in: not
/// their internal names, not their values.
fn without_secrets(sources: &SourceCache, pair: &Pair, mut run: PairRun) -> PairRun {
    if pair.inputs.embedded_values.is_empty() {
        return run;
    }
    let secrets = super::inputs::secret_values_of(sources, &pair.inputs.embedded_values);
    for f in run.0.iter_mut() {
        super::inputs::without_embedded_paths(f);
        super::inputs::without_secret_values(f, &secrets);
    }
    run
}

/// A pair's findings, final values and what its templates read.
type Evaluated = (
    Vec<Finding>,
    Document,
    Option<Arc<ValueUsage>>,
    Option<Arc<Vec<Document>>>,
);

#[allow(clippy::too_many_arguments)] // one pair: what it reads, its shared start, where warnings go
fn evaluate_pair(
    sources: &SourceCache,
    cache: &Arc<CompileCache>,
    opts: &CheckOptions,
    plan: &Plan,
    pair: &Pair,
    base: &LibraryBase,
    who: &Subject,
    warnings: &mut Vec<Finding>,
    policies: &[Option<Arc<super::policy::LoadedPolicy>>],
) -> Result<Evaluated, Vec<Finding>> {
    let values_err = |e: ValuesError| from_values_error(&e, Stage::Values, who);
    let env_inputs: Vec<(RepoPath, String, usize)> = pair
        .inputs
        .files
        .iter()
        .enumerate()
        .map(|(i, f)| (f.path.clone(), f.rel.clone(), ENV_FILE_ORDER + i))
        .collect();
    let env_files = input_files(sources, env_inputs, who)?;
    warnings.extend(unknown_annotations(cache, opts, &env_files, who));
    let mut all_files = base.files.clone();
    all_files.extend(env_files.iter().cloned());
    let tree = Arc::new(LibraryTree::new(all_files));
    let session = EvalSession::new(tree, &opts.eval, cache, empty_values());

    // flags: plain values files, -v, --data-value-yaml, ...
    let embedded = embedded_values(sources, &pair.inputs.embedded_values, who)?;
    let flags = DataValuesFlags {
        env_from_strings: pair.inputs.env_prefixes.clone(),
        env_from_yaml: pair.inputs.env_yaml_prefixes.clone(),
        kvs_from_strings: pair.inputs.data_values.clone(),
        kvs_from_yaml: pair.inputs.data_values_yaml.clone(),
        kvs_from_files: pair.inputs.data_value_files.clone(),
        // `name=path` keeps the repository path as the file's name in findings
        from_files: pair
            .inputs
            .data_values_files
            .iter()
            .map(|p| format!("{p}={p}"))
            .chain(embedded.iter().map(|e| e.flag()))
            .collect(),
    };
    let stdin = Stdin::closed();
    let snap = PairSnapshot {
        sources,
        embedded: &embedded,
    };
    let mut overlays = flags
        .as_overlays(&snap, &stdin, &pair.inputs.env, opts.eval.strict)
        .map_err(|m| vec![super::from_errors::from_flag_error(&m, who)])?;

    // an environment with schema documents of its own: from scratch
    let env_has_schema = env_files.iter().any(|f| {
        let raw = cache.raw_yaml_opts(f, opts.eval.strict);
        matches!(&*raw, Ok(ds) if ds.docs.iter().any(|d| d.meta.has(ANN_DATA_VALUES_SCHEMA)))
    });
    let owned_schema;
    let (schema, start) = if env_has_schema {
        owned_schema = library_schema(&session, LibraryCtx::ROOT, &[])
            .map_err(|e| from_values_error(&e, Stage::Schema, who))?;
        (&owned_schema, None)
    } else {
        (&base.schema, Some(base.merged.clone()))
    };

    // the library's own files were read for the shared start; only the
    // environment's are new here (all of them when starting from scratch)
    let candidates: Vec<FileInLibrary> = session
        .tree
        .accessible_files(LibraryCtx::ROOT.current)
        .into_iter()
        .filter(|f| env_has_schema || f.file.order >= ENV_FILE_ORDER)
        .collect();
    let env_dv_files =
        select_files_with_annotation(&session, candidates, ANN_DATA_VALUES).map_err(values_err)?;
    let mut envelopes = Vec::new();
    if start.is_none() {
        if let Some(defaults) = schema.schema.defaults() {
            envelopes.push(
                Envelope::new(defaults).map_err(|e| values_err(ValuesError::other(e, None)))?,
            );
        }
    }
    envelopes
        .extend(collect_envelopes(&session, LibraryCtx::ROOT, &env_dv_files).map_err(values_err)?);
    envelopes.append(&mut overlays.root);
    let mut merged =
        merge_envelopes(&session, start, envelopes, &schema.schema).map_err(values_err)?;

    let mut findings = Vec::new();
    if let Some(dt) = &schema.schema.doc_type {
        let marks = if env_has_schema {
            marks_deprecations(&dt.value_type)
        } else {
            *base
                .marks_deprecations
                .get_or_init(|| marks_deprecations(&dt.value_type))
        };
        if marks {
            findings.extend(deprecations(dt, &merged.doc, who));
        }
    }
    if !opts.skip_validation {
        if let Err(e) = validate_values(&session, &merged.doc, &schema.schema) {
            findings.extend(values_err(e));
        }
    }

    if plan.private_libraries {
        let mut values = merged.for_libraries.clone();
        values.extend(overlays.libraries.iter().cloned());
        let from_root = ParentEnvelopes {
            values,
            schemas: schema.for_libraries.clone(),
        };
        for (name, _) in private_libraries(&session, LibraryCtx::ROOT) {
            let private = Subject {
                library: format!("{}/_ytt_lib/{name}", who.library),
                environments: who.environments.clone(),
            };
            let me = crate::values::LibRef {
                path: name.clone(),
                alias: String::new(),
            };
            if let Err(e) = private_library_values(
                &session,
                LibraryCtx::ROOT,
                &me,
                &from_root,
                opts.skip_validation,
            ) {
                findings.extend(from_values_error(&e, Stage::Values, &private));
            }
        }
    }
    let failed = findings.iter().any(|f| f.severity == Severity::Error);
    for &i in &pair.policies {
        if let Some(Some(policy)) = policies.get(i) {
            findings.extend(super::policy::apply(policy, &merged.doc, &opts.eval, who));
        }
    }
    let mut usage = None;
    let mut rendered = None;
    if opts.render && !failed {
        // ytt renders only with valid values; a pair whose values fail has
        // its findings already
        let mut values_for_libraries = merged.for_libraries.clone();
        values_for_libraries.extend(overlays.libraries.iter().cloned());
        let declared = match (&schema.schema.doc_type, env_has_schema) {
            // the library's own schema: computed once for its pairs
            (Some(dt), false) => base
                .declared
                .get_or_init(|| super::usage::declared(Some(dt), &merged.doc.value))
                .clone(),
            (dt, _) => super::usage::declared(dt.as_ref(), &merged.doc.value),
        };
        // the render takes the values; they are kept only when asked for
        let values = if opts.keep_values {
            merged.doc.clone()
        } else {
            std::mem::take(&mut merged.doc)
        };
        let (more, used, docs) = super::usage::render_pair(
            super::usage::PairRender {
                tree: session.tree.clone(),
                cache,
                eval: &opts.eval,
                skip_validation: opts.skip_validation,
                values,
                values_for_libraries,
                schemas_for_libraries: schema.for_libraries.clone(),
                declared,
                not_for_output: pair_not_for_output(&session, &base.not_for_output),
                policies: pair
                    .policies
                    .iter()
                    .filter_map(|&i| policies.get(i).cloned().flatten())
                    .filter(|p| !p.outputs.is_empty())
                    .collect(),
                kubernetes: opts.kubernetes.clone(),
                keep_rendered: opts.keep_values,
            },
            who,
        );
        findings.extend(more);
        usage = used;
        rendered = docs;
    }
    Ok((findings, merged.doc, usage, rendered))
}

/// `values/deprecated` and `values/removed`: a value given (not a schema
/// default) for a key the schema marks so.
fn deprecations(dt: &DocType, doc: &Document, who: &Subject) -> Vec<Finding> {
    let mut out = Vec::new();
    walk_deprecations(
        &dt.value_type,
        &doc.value,
        &mut String::new(),
        who,
        &mut out,
    );
    out
}

/// Whether any value [`walk_deprecations`] can reach is marked deprecated or
/// removed.
fn marks_deprecations(t: &Type) -> bool {
    match crate::schema::check::resolve(t) {
        Type::Map(mt) => mt.items.iter().any(|it| {
            let doc = it.value_type.doc();
            doc.deprecated || doc.removed.is_some() || marks_deprecations(&it.value_type)
        }),
        Type::Array(at) => marks_deprecations(&at.item_type.value_type),
        _ => false,
    }
}

/// `path` is one buffer for the whole walk (children push onto it and
/// truncate it back): most values are not deprecated.
fn walk_deprecations(
    t: &Type,
    v: &Value,
    path: &mut String,
    who: &Subject,
    out: &mut Vec<Finding>,
) {
    let len = path.len();
    match (crate::schema::check::resolve(t), v) {
        (Type::Map(mt), Value::Map(m)) => {
            for item in &m.items {
                let Some(it) = mt.items.iter().find(|i| i.key.scalar_eq(&item.key)) else {
                    continue;
                };
                crate::yaml::push_key_path(path, &item.key);
                let doc = it.value_type.doc();
                let given = item.pos.file_name() != it.pos.file_name();
                if given && (doc.deprecated || doc.removed.is_some()) {
                    let (rule, notice, what) = match &doc.removed {
                        Some(n) => (RuleId::ValuesRemoved, n.clone(), "removed"),
                        None => (
                            RuleId::ValuesDeprecated,
                            doc.deprecation_notice.clone(),
                            "deprecated",
                        ),
                    };
                    let mut message = format!("{path}: this value is {what}");
                    if !notice.is_empty() {
                        message.push_str(&format!(": {notice}"));
                    }
                    let mut f = who.finding(rule, message, crate::yaml::Pos::location(&item.pos));
                    f.key_path = Some(path.clone());
                    if let Some(l) = crate::yaml::Pos::location(&it.pos) {
                        f.related.push(super::finding::Related {
                            location: l,
                            message: format!("marked {what} here"),
                        });
                    }
                    out.push(f);
                }
                walk_deprecations(&it.value_type, &item.value, path, who, out);
                path.truncate(len);
            }
        }
        (Type::Array(at), Value::Array(a)) => {
            use std::fmt::Write;
            for (i, item) in a.items.iter().enumerate() {
                let _ = write!(path, "[{i}]");
                walk_deprecations(&at.item_type.value_type, &item.value, path, who, out);
                path.truncate(len);
            }
        }
        _ => {}
    }
}
