//! Which data values a library's templates read, from rendering each pair
//! with `data.values` recording its reads (`template::runtime::values::ReadLog`):
//!
//! * `template/undeclared-value`: a render failed reading a value the
//!   library does not declare; the finding names the path and the nearest
//!   declared one;
//! * `schema/unused-value`: a declared value no template read in any pair,
//!   and that no source of the library mentions (reported only when every
//!   pair of the library rendered and something read `data.values`, so the
//!   reads seen are the whole story);
//! * `schema/unreached-value`: a declared value no pair read, though a
//!   source mentions it: the read is on a path no environment takes (under
//!   an `if`, in a lambda no one calls): a note naming the line.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use crate::diagnostics::{Finding, Location, RuleId};
use crate::render::{RenderError, Renderer};
use crate::schema::{DocType, Type};
use crate::template::compiler::metas::strsim;
use crate::template::runtime::values::ReadLog;
use crate::template::{CompileCache, EvalOpts, TemplateErrorKind};
use crate::values::Envelope;
use crate::yaml::{Document, Value};

use super::from_errors::{from_output_invalidations, from_render_error, Subject};
use super::outcome::PairOutcome;

pub use super::outcome::{Declared, ValueUsage};

/// The paths a schema declares, or (without a schema) the pair's values.
pub fn declared(schema: Option<&DocType>, values: &Value) -> Declared {
    Arc::new(match schema {
        Some(dt) => declared_in_schema(&dt.value_type),
        None => declared_in_values(values),
    })
}

/// What rendering one pair needs.
pub(super) struct PairRender<'a> {
    pub tree: Arc<crate::files::LibraryTree>,
    pub cache: &'a Arc<CompileCache>,
    pub eval: &'a EvalOpts,
    pub skip_validation: bool,
    /// The pair's final data values (`keep_values` keeps a copy).
    pub values: Document,
    pub values_for_libraries: Vec<Envelope>,
    pub schemas_for_libraries: Vec<Envelope>,
    pub declared: Declared,
    /// The pair's data values and schema files, which are not output.
    pub not_for_output: Result<std::collections::HashSet<String>, crate::values::ValuesError>,
    /// The pair's policies (their output documents apply to the render).
    pub policies: Vec<Arc<super::policy::LoadedPolicy>>,
    /// Kubernetes schemas the rendered documents are checked against.
    pub kubernetes: Option<Arc<super::kubernetes::KubernetesCheck>>,
    /// Keep the rendered documents (`keep_values`: `diff` compares them).
    pub keep_rendered: bool,
}

/// What rendering a pair gave: findings, what its templates read, and the
/// rendered documents when they are kept.
pub(super) type Rendered = (
    Vec<Finding>,
    Option<Arc<ValueUsage>>,
    Option<Arc<Vec<Document>>>,
);

/// Renders a pair's templates: findings for a failure, and what the
/// templates read when it succeeded.
pub(super) fn render_pair(r: PairRender, who: &Subject) -> Rendered {
    let log = Arc::new(ReadLog::default());
    let renderer = Renderer::new(r.tree, r.cache.clone(), r.skip_validation)
        .with_reads(log.clone())
        .repeatedly();
    let declared = r.declared;
    // the final values name where a rejected field's value came from
    let values = r.kubernetes.as_ref().map(|_| r.values.clone());
    let rendered = r
        .not_for_output
        .map_err(crate::render::RenderError::Values)
        .and_then(|not_for_output| {
            renderer
                .render_root_with_values(
                    r.eval,
                    r.values,
                    r.values_for_libraries,
                    r.schemas_for_libraries,
                    &not_for_output,
                )
                .map(|rendered| (rendered, not_for_output))
        });
    match rendered {
        Ok((rendered, not_for_output)) => {
            let mut findings = validate_outputs(&rendered.docs.docs, r.eval, who);
            if let Some(k) = &r.kubernetes {
                findings.extend(k.check(
                    &rendered.docs.docs,
                    &|file: &str| not_for_output.contains(file),
                    values.as_ref(),
                    who,
                ));
            }
            for p in &r.policies {
                findings.extend(super::policy::apply_to_outputs(
                    p,
                    &rendered.docs.docs,
                    r.eval,
                    who,
                ));
            }
            let log = log.snapshot();
            let kept = r.keep_rendered.then(|| Arc::new(rendered.docs.docs));
            (
                findings,
                Some(Arc::new(ValueUsage {
                    declared,
                    read: log.read,
                    null: log.null,
                })),
                kept,
            )
        }
        Err(e) => {
            let mut findings = from_render_error(&e, who);
            if let Some(f) = undeclared(&e, &log, &declared, who) {
                findings = vec![f];
            }
            (findings, None, None)
        }
    }
}

/// `@assert/validate` on rendered documents (ytt ignores them there; the
/// validations proposal asks for them, so `check` runs them).
fn validate_outputs(docs: &[Document], eval: &EvalOpts, who: &Subject) -> Vec<Finding> {
    let mut out = Vec::new();
    for doc in docs.iter().filter(|d| has_validations(d)) {
        match crate::validation::run(doc, None, eval) {
            Ok(invs) => out.extend(from_output_invalidations(&invs, who)),
            Err(e) => out.push(who.finding(
                e.rule,
                format!(
                    "rendered output: {}",
                    e.message.lines().next().unwrap_or("")
                ),
                e.pos.as_ref().and_then(crate::yaml::Pos::location),
            )),
        }
    }
    out
}

fn has_validations(doc: &Document) -> bool {
    const ANN: &str = "assert/validate";
    fn value(v: &Value) -> bool {
        match v {
            Value::Map(m) => {
                m.meta.has(ANN) || m.items.iter().any(|i| i.meta.has(ANN) || value(&i.value))
            }
            Value::Array(a) => {
                a.meta.has(ANN) || a.items.iter().any(|i| i.meta.has(ANN) || value(&i.value))
            }
            _ => false,
        }
    }
    doc.meta.has(ANN) || value(&doc.value)
}

/// A render that failed reading a value nothing declares.
fn undeclared(
    e: &RenderError,
    log: &ReadLog,
    declared: &[(String, Option<Location>)],
    who: &Subject,
) -> Option<Finding> {
    let RenderError::Template(te) = e else {
        return None;
    };
    if te.kind != TemplateErrorKind::Starlark {
        return None;
    }
    let missing = log.snapshot().missing;
    // the read that failed is the last missing one the message names
    let path = missing.iter().rev().find(|p| {
        let attr = p.rsplit('.').next().unwrap_or(p);
        te.message.contains(&format!("`{attr}`")) || te.message.contains(&format!(".{attr} "))
    })?;
    let parent = path.rsplit_once('.').map(|(p, _)| p).unwrap_or("");
    let siblings: Vec<&str> = declared
        .iter()
        .map(|(d, _)| d.as_str())
        .filter(|d| d.rsplit_once('.').map(|(p, _)| p).unwrap_or("") == parent)
        .collect();
    let best = nearest(path, &siblings);
    let mut message =
        format!("the template reads data.values.{path}, which the library does not declare");
    if let Some(b) = best {
        message.push_str(&format!(" (did you mean data.values.{b}?)"));
    }
    let mut f = who.finding(
        RuleId::TemplateUndeclaredValue,
        message,
        te.pos.as_ref().and_then(crate::yaml::Pos::location),
    );
    f.detail = te
        .message
        .trim_matches('\n')
        .lines()
        .map(|l| l.to_string())
        .collect();
    Some(f)
}

/// The declared path nearest to `path`: a small edit away, or sharing all
/// but the last character of the shorter name (`replicas` ~ `replica_count`).
fn nearest<'a>(path: &str, candidates: &[&'a str]) -> Option<&'a str> {
    let last = |p: &str| p.rsplit('.').next().unwrap_or(p).to_string();
    let want = last(path);
    candidates
        .iter()
        .filter_map(|c| {
            let name = last(c);
            let dist = strsim(&want, &name);
            let common = want
                .chars()
                .zip(name.chars())
                .take_while(|(a, b)| a == b)
                .count();
            let shorter = want.chars().count().min(name.chars().count());
            let close = dist <= 3 || (common >= 4 && common + 1 >= shorter);
            close.then_some((dist, *c))
        })
        .min_by_key(|(dist, _)| *dist)
        .map(|(_, c)| c)
}

/// The leaf paths below a node: `children` gives a node's map items (key,
/// child, position), or nothing for a leaf.
fn leaf_paths<'n, N: 'n>(
    root: &'n N,
    children: &dyn Fn(&'n N) -> Vec<(String, &'n N, &'n crate::yaml::Pos)>,
) -> Vec<(String, Option<Location>)> {
    fn walk<'n, N>(
        node: &'n N,
        path: &str,
        children: &dyn Fn(&'n N) -> Vec<(String, &'n N, &'n crate::yaml::Pos)>,
        out: &mut Vec<(String, Option<Location>)>,
    ) {
        for (key, child, pos) in children(node) {
            let p = if path.is_empty() {
                key
            } else {
                format!("{path}.{key}")
            };
            let before = out.len();
            walk(child, &p, children, out);
            if out.len() == before {
                out.push((p, pos.location()));
            }
        }
    }
    let mut out = Vec::new();
    walk(root, "", children, &mut out);
    out
}

fn declared_in_schema(t: &Type) -> Vec<(String, Option<Location>)> {
    leaf_paths(t, &|t: &Type| match crate::schema::check::resolve(t) {
        Type::Map(mt) => mt
            .items
            .iter()
            .map(|it| (it.key.scalar_display(), &it.value_type, &it.pos))
            .collect(),
        _ => Vec::new(),
    })
}

fn declared_in_values(v: &Value) -> Vec<(String, Option<Location>)> {
    leaf_paths(v, &|v: &Value| match v {
        Value::Map(m) => m
            .items
            .iter()
            .map(|it| (it.key.scalar_display(), &it.value, &it.pos))
            .collect(),
        _ => Vec::new(),
    })
}

/// Where a library's code mentions a value: the file, the line, and the
/// line of the condition above it (or of the line itself when it holds the
/// `if` or `lambda`).
struct Mention {
    path: String,
    /// None: the names appear, but on no one line that reads the value.
    line: Option<u32>,
    condition: Option<u32>,
}

/// The code of a library's files, line by line: `#@` code of YAML
/// templates, Starlark files, text templates.
struct LibraryCode {
    files: Vec<CodeFile>,
}

/// One file's code: its lines, and the same as one text with where each line
/// starts (a name is found by one search of the text, then its line).
struct CodeFile {
    path: String,
    lines: Vec<String>,
    text: String,
    starts: Vec<usize>,
}

impl LibraryCode {
    fn of(
        plan: &crate::workspace::Plan,
        library: &str,
        sources: &crate::source::SourceCache,
    ) -> LibraryCode {
        let mut files = Vec::new();
        if let Some(lib) = plan.libraries.iter().find(|l| l.name == library) {
            let paths = lib
                .files
                .iter()
                .chain(lib.extra_files.iter().map(|f| &f.path));
            for p in paths {
                let name = p.as_str();
                let starlark = name.ends_with(".star");
                let text_template = name.ends_with(".txt");
                if !(starlark || text_template || p.is_yaml()) {
                    continue;
                }
                let Ok(src) = sources.get(p) else { continue };
                let lines = src
                    .text()
                    .lines()
                    .map(|l| {
                        if starlark || text_template {
                            l.to_string()
                        } else {
                            // the code of a YAML line is after `#@`
                            l.find("#@").map_or(String::new(), |i| l[i..].to_string())
                        }
                    })
                    .collect::<Vec<String>>();
                let text = lines.join("\n");
                let mut starts = Vec::with_capacity(lines.len());
                let mut at = 0;
                for l in &lines {
                    starts.push(at);
                    at += l.len() + 1;
                }
                files.push(CodeFile {
                    path: name.to_string(),
                    lines,
                    text,
                    starts,
                });
            }
        }
        LibraryCode { files }
    }

    /// The first place the code names the value by its path: its last key
    /// as an attribute or a string (`.velero`, `["velero"]`, `"velero"`),
    /// and, for a value inside another, its parent's key on the same line
    /// (`.autoscaler.replicas`, `.autoscaler["replicas"]`): a line naming
    /// `workloads.autoscaler.replicas` does not read
    /// `workloads.domain_mapping.replicas`.
    fn mention(&self, value_path: &str) -> Option<Mention> {
        let leaf = value_path.rsplit('.').next().unwrap_or(value_path);
        let parent = value_path.rsplit('.').nth(1).filter(|p| !p.is_empty());
        let ident = |c: char| c.is_alphanumeric() || c == '_';
        // the needles once, not per line (libraries have thousands)
        let quoted = |k: &str| (format!("\"{k}\""), format!("'{k}'"));
        let (double, single) = quoted(leaf);
        let attribute = match parent {
            Some(p) => format!(".{p}.{leaf}"),
            None => format!(".{leaf}"),
        };
        let parent_needles = parent.map(|p| {
            let (d, s) = quoted(p);
            (format!(".{p}"), d, s)
        });
        let names_parent = |line: &str| match &parent_needles {
            None => true,
            Some((attr, d, s)) => {
                line.match_indices(attr.as_str())
                    .any(|(i, m)| !line[i + m.len()..].chars().next().is_some_and(ident))
                    || line.contains(d.as_str())
                    || line.contains(s.as_str())
            }
        };
        let names = |line: &str| {
            if !line.contains(leaf) {
                return false;
            }
            let dotted = line
                .match_indices(attribute.as_str())
                .any(|(i, m)| !line[i + m.len()..].chars().next().is_some_and(ident));
            dotted
                || ((line.contains(double.as_str()) || line.contains(single.as_str()))
                    && names_parent(line))
        };
        for CodeFile {
            path,
            lines,
            text,
            starts,
        } in &self.files
        {
            // the lines holding the name, found by one search of the file's
            // code (a search per line costs a searcher per line)
            let mut last = usize::MAX;
            let candidates = text.match_indices(leaf).filter_map(|(off, _)| {
                let i = starts.partition_point(|&s| s <= off).checked_sub(1)?;
                (std::mem::replace(&mut last, i) != i).then_some(i)
            });
            for i in candidates {
                let line = &lines[i];
                if !names(line) {
                    continue;
                }
                let condition = if line.contains("if ") || line.contains("lambda") {
                    Some(i as u32 + 1)
                } else {
                    lines[..i]
                        .iter()
                        .rposition(|l| {
                            let t = l.trim_start().trim_start_matches("#@").trim_start();
                            t.starts_with("if ") || t.starts_with("elif ") || t.starts_with("else")
                        })
                        .map(|j| j as u32 + 1)
                };
                return Some(Mention {
                    path: path.clone(),
                    line: Some(i as u32 + 1),
                    condition,
                });
            }
        }
        // no line names it by its path, but its key and its parent's appear
        // (a variable may hold the value above it): read somewhere, at no
        // line yttcheck can name
        let anywhere = |needle: &str| self.files.iter().any(|f| f.text.contains(needle));
        let leaf_named = anywhere(&format!(".{leaf}")) || anywhere(&double) || anywhere(&single);
        let parent_named = parent_needles
            .as_ref()
            .is_none_or(|(a, d, s)| anywhere(a) || anywhere(d) || anywhere(s));
        (parent.is_some() && leaf_named && parent_named).then(|| Mention {
            path: String::new(),
            line: None,
            condition: None,
        })
    }
}

/// More `schema/unused-value` findings than this in one library is a flood
/// (a vendored package): each says how to silence the rule for its files.
const FLOOD: usize = 10;

/// Whether `path` is read: itself, a value above it (a struct read whole
/// covers what is below), or a value below it. Lookups in the sorted set, not
/// a walk over every read per declared value (libraries declare hundreds).
fn is_read(read: &BTreeSet<&str>, path: &str) -> bool {
    if read.contains(path) {
        return true;
    }
    // a value above: each prefix that ends before a `.`
    if path
        .match_indices('.')
        .any(|(i, _)| read.contains(&path[..i]))
    {
        return true;
    }
    // a value below: the first read at or after "path." starts with it
    let below = format!("{path}.");
    read.range(below.as_str()..)
        .next()
        .is_some_and(|r| r.starts_with(&below))
}

/// `schema/unused-value` and `schema/unreached-value` for each library all
/// of whose pairs rendered.
pub(super) fn unused_values(
    outcomes: &[std::sync::Arc<PairOutcome>],
    plan: &crate::workspace::Plan,
    sources: &crate::source::SourceCache,
) -> Vec<Finding> {
    by_library(outcomes)
        .into_iter()
        .flat_map(|(library, pairs)| unused_values_of(library, &pairs, plan, sources))
        .collect()
}

/// The outcomes of each library, in the order of the run.
pub(super) fn by_library(
    outcomes: &[std::sync::Arc<PairOutcome>],
) -> BTreeMap<&str, Vec<&PairOutcome>> {
    let mut by_library: BTreeMap<&str, Vec<&PairOutcome>> = BTreeMap::new();
    for o in outcomes {
        by_library.entry(&o.library).or_default().push(o);
    }
    by_library
}

/// [`unused_values`] of one library, from the outcomes of its pairs.
pub(super) fn unused_values_of(
    library: &str,
    pairs: &[&PairOutcome],
    plan: &crate::workspace::Plan,
    sources: &crate::source::SourceCache,
) -> Vec<Finding> {
    let mut out = Vec::new();
    {
        let Some(usages) = pairs
            .iter()
            .map(|p| p.usage.as_deref())
            .collect::<Option<Vec<&ValueUsage>>>()
        else {
            return out;
        };
        let read: BTreeSet<&str> = usages
            .iter()
            .flat_map(|u| u.read.iter().map(String::as_str))
            .collect();
        let null: BTreeSet<&str> = usages
            .iter()
            .flat_map(|u| u.null.iter().map(String::as_str))
            .collect();
        if (read.is_empty() && null.is_empty()) || read.contains("") {
            // nothing reads data.values (a values-only library), or the
            // whole of it is consumed
            return out;
        }
        let mut declared: BTreeMap<&str, &Option<Location>> = BTreeMap::new();
        for u in &usages {
            for (p, l) in u.declared.iter() {
                declared.entry(p.as_str()).or_insert(l);
            }
        }
        let environments: Vec<String> = pairs.iter().map(|p| p.environment.clone()).collect();
        let who = Subject {
            library: library.to_string(),
            environments: environments.clone(),
        };
        let code = LibraryCode::of(plan, library, sources);
        let mut unused = Vec::new();
        for (path, location) in declared {
            let used = null.contains(path) || is_read(&read, path);
            if used {
                continue;
            }
            match code.mention(path) {
                Some(Mention {
                    path: file,
                    line: Some(line),
                    condition,
                }) => {
                    let mut f = who.finding(
                        RuleId::SchemaUnreachedValue,
                        format!(
                            "data value '{path}' is read at {file}:{line}, but on a path no environment takes ({}){}",
                            environments.join(", "),
                            condition
                                .map(|c| format!(": see the condition at {file}:{c}"))
                                .unwrap_or_default()
                        ),
                        location.clone(),
                    );
                    f.related.push(crate::diagnostics::Related {
                        location: Location {
                            path: file,
                            line,
                            column: 0,
                        },
                        message: "read here".into(),
                    });
                    out.push(f);
                }
                Some(_) => out.push(who.finding(
                    RuleId::SchemaUnreachedValue,
                    format!(
                        "data value '{path}' is read in no environment ({}); the names of its keys appear in the code of library '{library}', but on no line that reads it by its path (a variable may hold a value above it, on a path no environment takes)",
                        environments.join(", ")
                    ),
                    location.clone(),
                )),
                None => unused.push(who.finding(
                    RuleId::SchemaUnusedValue,
                    format!(
                        "data value '{path}' is declared, but no template of library '{library}' mentions it, and none reads it in any environment ({})",
                        environments.join(", ")
                    ),
                    location.clone(),
                )),
            }
        }
        if unused.len() > FLOOD {
            let root = plan
                .libraries
                .iter()
                .find(|l| l.name == library)
                .map(|l| {
                    if l.root.is_root() {
                        "**".to_string()
                    } else {
                        format!("{}/**", l.root)
                    }
                })
                .unwrap_or_else(|| "**".into());
            let n = unused.len();
            for f in &mut unused {
                f.detail.push(format!(
                    "hint: library '{library}' has {n} of these (a vendored package?): silence them with `ignore: [{{rule: schema/unused-value, paths: [\"{root}\"]}}]` in .yttcheck.yml"
                ));
            }
        }
        out.extend(unused);
    }
    out
}
