//! One pair of the repository, evaluated as `check` evaluates it: its final
//! data values, its library's schema and its findings (`inspect
//! LIBRARY@ENV`; an editor's hover asks the same of every environment).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::budget::{eval_opts, Budget};
use super::plan::load_plan;
use super::source::{open_source, Selection};
use super::UsageError;
use crate::check::{CheckOptions, Finding};
use crate::schema::DocType;
use crate::yaml::Document;

/// Which pair, and how to evaluate it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PairRequest {
    /// A folder of the repository.
    pub root: PathBuf,
    pub library: String,
    pub environment: String,
    /// Only unambiguous YAML scalars (ytt's `--strict`).
    pub strict: bool,
    pub skip_validation: bool,
    pub budget: Budget,
}

/// A pair's final data values (when they could be computed), its library's
/// schema (when it has one that could be built) and its findings, with what
/// the repository silences left out.
#[derive(Debug, Clone)]
pub struct PairValues {
    pub values: Option<Document>,
    pub schema: Option<DocType>,
    pub findings: Vec<Finding>,
}

/// Evaluates the pair `req` names.
pub fn pair(req: &PairRequest) -> Result<PairValues, UsageError> {
    let name = format!("{}@{}", req.library, req.environment);
    let selection = Selection {
        libraries: vec![req.library.clone()],
        environments: vec![req.environment.clone()],
        ..Selection::whole(req.root.clone())
    };
    let source = open_source(&selection)?;
    let cache = crate::source::SourceCache::new(source.opened.snapshot());
    let plan = load_plan(&cache, &source, &selection)?;
    if plan.pairs.len() != 1 {
        return Err(UsageError(format!(
            "no pair '{name}'; `yttcheck list --names` lists the pairs"
        )));
    }
    let mut eval = eval_opts(&req.budget, plan.budget.as_ref())?;
    eval.strict = req.strict;
    let opts = CheckOptions {
        jobs: 1,
        eval,
        skip_validation: req.skip_validation,
        progress: false,
        keep_values: true,
        // final values are all these need
        render: false,
        unused_values: false,
        kubernetes: None,
    };
    let mut result = crate::check::run(&cache, &plan, &opts);
    // what the repository silenced stays silent here too
    crate::check::suppress::apply(&mut result, &plan, &cache, None, false, false, None);
    Ok(PairValues {
        values: result.pairs.first().and_then(|p| p.values.clone()),
        schema: result.schemas.get(&req.library).cloned().flatten(),
        findings: result.findings,
    })
}

/// One pair's final values, for a question about a file it reads.
#[derive(Debug, Clone)]
pub struct PairReading {
    pub library: String,
    pub environment: String,
    pub values: Option<Document>,
    pub schema: Option<DocType>,
    /// More words that mark a key as secret (`.yttcheck.yml`'s
    /// `secret_words`).
    pub secret_words: Vec<String>,
    /// The library's own files (its templates, helpers, values and schema).
    pub library_files: Vec<crate::source::RepoPath>,
}

/// The final values of every pair that reads `file` (a path in the folder
/// `root`), with the sources `sources` says (an editor's buffers): what an
/// editor shows on hover. No pair reads it: empty.
pub fn pairs_reading(
    root: &std::path::Path,
    file: &str,
    sources: &super::SourceOptions,
    budget: &Budget,
) -> Result<Vec<PairReading>, UsageError> {
    let selection = Selection::whole(root.to_path_buf());
    let source = super::source::open_source_with(&selection, sources)?;
    let buffered = super::source::buffered(&source, sources);
    let snapshot: &dyn crate::source::Snapshot = match &buffered {
        Some(o) => o,
        None => source.opened.snapshot(),
    };
    let cache = crate::source::SourceCache::new(snapshot);
    let mut plan = load_plan(&cache, &source, &selection)?;
    let Some(path) = crate::source::RepoPath::new(file) else {
        return Ok(Vec::new());
    };
    plan.retain_reading(&[path]);
    if plan.pairs.is_empty() {
        return Ok(Vec::new());
    }
    let opts = values_only(eval_opts(budget, plan.budget.as_ref())?);
    let result = crate::check::run(&cache, &plan, &opts);
    Ok(result
        .pairs
        .into_iter()
        .map(|p| {
            // the run's own outcomes (no memo holds them): taken, not copied
            let p = std::sync::Arc::unwrap_or_clone(p);
            PairReading {
                secret_words: plan.secret_words.clone(),
                library_files: plan
                    .libraries
                    .iter()
                    .find(|l| l.name == p.library)
                    .map(|l| l.files.clone())
                    .unwrap_or_default(),
                schema: result.schemas.get(&p.library).cloned().flatten(),
                library: p.library,
                environment: p.environment,
                values: p.values,
            }
        })
        .collect())
}

/// A check's options for the final values of pairs and nothing more: no
/// rendering, every validation, on every core.
pub(super) fn values_only(eval: crate::template::eval::EvalOpts) -> CheckOptions {
    CheckOptions {
        jobs: 0,
        eval,
        skip_validation: false,
        progress: false,
        keep_values: true,
        render: false,
        unused_values: false,
        kubernetes: None,
    }
}

/// What `inspect LIBRARY@ENV` shows of a pair: its findings as messages
/// (those ytt fails on, only when nothing is printed: ytt prints its error
/// instead of the values), and the values (or with `schema`, the schema as
/// OpenAPI) when ytt would print them.
pub struct Shown {
    pub messages: Vec<String>,
    pub output: Option<String>,
}

/// What to show of `result` (see [`Shown`]).
pub fn shown(result: &PairValues, schema: bool, openapi_validations: bool) -> Shown {
    // the values are printed whenever ytt would print them: unless a
    // finding is one ytt fails on (other findings, lints and policies, go
    // to stderr beside the values)
    let fails = |f: &crate::diagnostics::Finding| {
        f.severity == crate::diagnostics::Severity::Error && f.rule.ytt_fails()
    };
    // the schema is printable when it could be built, whatever the values
    let printable = if schema {
        result.schema.is_some()
    } else {
        result.values.is_some() && !result.findings.iter().any(fails)
    };
    let messages = result
        .findings
        .iter()
        .filter(|f| !(printable && fails(f)))
        .map(|f| {
            let place = f.location.as_ref().map(|l| l.display()).unwrap_or_default();
            format!(
                "{}[{}] {place}: {}",
                f.severity.as_str(),
                f.rule_id(),
                f.message
            )
        })
        .collect();
    let output = printable.then(|| {
        if schema {
            let schema = crate::schema::Schema {
                doc_type: result.schema.clone(),
            };
            crate::yaml::print::print_value(&crate::schema::export::openapi(
                &schema,
                crate::schema::export::OpenApiOpts {
                    with_validations: openapi_validations,
                },
            ))
        } else {
            match &result.values {
                Some(doc) => crate::yaml::print::print_docset(&crate::yaml::DocSet {
                    docs: vec![doc.clone()],
                    ..crate::yaml::DocSet::default()
                }),
                None => String::new(),
            }
        }
    });
    Shown { messages, output }
}
