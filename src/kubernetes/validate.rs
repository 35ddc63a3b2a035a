//! One pair's rendered documents against their kinds' schemas. Each schema
//! error becomes a [`Violation`] at the YAML node that holds the offending
//! field: the template line that wrote it, or, when the template copied a
//! whole subtree from data values, the template line that copied it, with
//! the data value's own line as a related place.
//!
//! Messages name the field and the schema's words (`expected integer,
//! found string`), never the value itself: a value may be a secret, and
//! findings never carry values.

use std::collections::HashMap;

use jsonschema::error::{TypeKind, ValidationErrorKind};
use jsonschema::paths::LocationSegment;
use serde_json::Value as Json;

use crate::diagnostics::RuleId;
use crate::yaml::{Document, Pos, Value};

use super::crd::CrdVersion;
use super::json::to_json;
use super::{Kind, Lookup, Schemas};

/// A problem of one rendered document.
#[derive(Debug, Clone)]
pub struct Violation {
    pub rule: RuleId,
    /// `rendered Deployment web: spec.replicas: expected integer, found string`.
    pub message: String,
    /// The template line that wrote the field.
    pub pos: Pos,
    /// More places (the data value the field's value came from).
    pub related: Vec<(Pos, String)>,
    /// The field's path in the rendered document (`spec.replicas`).
    pub key_path: Option<String>,
}

/// What a schema found in one object: each error's rule, field path and
/// message (all of them functions of the object's content and the schema,
/// so shared by every pair that renders the same object).
pub(crate) type Found = std::sync::Arc<Vec<(RuleId, Vec<Segment>, String)>>;

/// A digest of a YAML value's content (its JSON form is a function of it).
fn content_digest(v: &Value) -> [u8; 32] {
    fn feed(v: &Value, h: &mut blake3::Hasher) {
        match v {
            Value::Null => {
                h.update(b"n");
            }
            Value::Bool(b) => {
                h.update(if *b { b"t" } else { b"f" });
            }
            Value::Int(i) => {
                h.update(b"i");
                h.update(&i.to_le_bytes());
            }
            Value::UInt(u) => {
                h.update(b"u");
                h.update(&u.to_le_bytes());
            }
            Value::Float(f) => {
                h.update(b"d");
                h.update(&f.to_bits().to_le_bytes());
            }
            Value::Str(s) => {
                h.update(b"s");
                h.update(&(s.len() as u64).to_le_bytes());
                h.update(s.as_bytes());
            }
            Value::Binary(b) => {
                h.update(b"b");
                h.update(&(b.len() as u64).to_le_bytes());
                h.update(b);
            }
            Value::Map(m) => {
                h.update(b"m");
                h.update(&(m.items.len() as u64).to_le_bytes());
                for i in &m.items {
                    feed(&i.key, h);
                    feed(&i.value, h);
                }
            }
            Value::Array(a) => {
                h.update(b"a");
                h.update(&(a.items.len() as u64).to_le_bytes());
                for i in &a.items {
                    feed(&i.value, h);
                }
            }
        }
    }
    let mut h = blake3::Hasher::new();
    feed(v, &mut h);
    *h.finalize().as_bytes()
}

/// What one pair's validation needs besides its documents.
pub struct PairDocs<'a> {
    pub docs: &'a [Document],
    /// CRDs named by the configuration (every pair has them).
    pub crds: &'a [CrdVersion],
    /// Whether a file holds data values (or a schema): a node from it was
    /// copied by a template, which is where the finding goes.
    pub is_values_file: &'a dyn Fn(&str) -> bool,
    /// The pair's final data values, to name where a value came from.
    pub values: Option<&'a Document>,
}

/// Validates every rendered document of one pair.
pub fn validate_documents(schemas: &Schemas, pair: &PairDocs) -> Vec<Violation> {
    let mut crds: HashMap<(String, String), &CrdVersion> = HashMap::new();
    let own: Vec<CrdVersion> = pair
        .docs
        .iter()
        .flat_map(|d| super::crd::versions(&d.value, &d.pos, schemas.options().strict))
        .collect();
    let mut out = Vec::new();
    for c in pair.crds.iter().chain(own.iter()) {
        // a built-in kind is the API server's own: a CRD never replaces it
        if super::crd::is_built_in_group(&c.api_version) {
            if !out.iter().any(|v: &Violation| v.pos == c.pos) {
                out.push(Violation {
                    rule: RuleId::KubernetesCrdShadowsBuiltIn,
                    message: format!(
                        "CRD {} defines {} {}, a built-in kind: it is ignored, and the built-in schema checks that kind",
                        quoted(&c.crd_name),
                        crate::escape::control(&c.api_version),
                        crate::escape::control(&c.kind)
                    ),
                    pos: c.pos.clone(),
                    related: Vec::new(),
                    key_path: None,
                });
            }
            continue;
        }
        crds.entry((c.api_version.clone(), c.kind.clone()))
            .or_insert(c);
    }
    for doc in pair.docs {
        validate_one(schemas, &crds, pair, doc, &mut out);
    }
    out
}

fn validate_one(
    schemas: &Schemas,
    crds: &HashMap<(String, String), &CrdVersion>,
    pair: &PairDocs,
    doc: &Document,
    out: &mut Vec<Violation>,
) {
    let Value::Map(map) = &doc.value else {
        if !matches!(doc.value, Value::Null) {
            out.push(Violation {
                rule: RuleId::KubernetesInvalid,
                message: "rendered document: a Kubernetes object is a map with apiVersion and kind, this document is not a map".into(),
                pos: doc.pos.clone(),
                related: Vec::new(),
                key_path: None,
            });
        }
        return;
    };
    let field = |k: &str| match map.get(k).map(|i| &i.value) {
        Some(Value::Str(s)) => Some(s.to_string()),
        _ => None,
    };
    let (Some(api_version), Some(kind)) = (field("apiVersion"), field("kind")) else {
        let missing = if field("apiVersion").is_none() {
            "apiVersion"
        } else {
            "kind"
        };
        out.push(Violation {
            rule: RuleId::KubernetesInvalid,
            message: format!("rendered document: no {missing} (a Kubernetes object names its apiVersion and kind as strings)"),
            pos: doc.pos.clone(),
            related: Vec::new(),
            key_path: Some(missing.to_string()),
        });
        return;
    };
    let name = match map.get("metadata").map(|i| &i.value) {
        Some(Value::Map(m)) => match m.get("name").map(|i| &i.value) {
            Some(Value::Str(s)) => Some(s.to_string()),
            _ => None,
        },
        _ => None,
    };
    let what = match &name {
        Some(n) => format!("rendered {kind} {n}"),
        None => format!("rendered {kind}"),
    };
    // the kind and version name a file or URL: only Kubernetes' own forms
    // (a `kind: ../../x` must not name another file)
    if !super::location::is_kind(&kind) || !super::location::is_api_version(&api_version) {
        out.push(Violation {
            rule: RuleId::KubernetesInvalid,
            message: format!(
                "{what}: apiVersion {} and kind {} are not of Kubernetes' forms (`group/version` of lowercase letters, digits, dots and dashes; a kind of letters and digits)",
                quoted(&api_version),
                quoted(&kind)
            ),
            pos: doc.pos.clone(),
            related: Vec::new(),
            key_path: Some("kind".into()),
        });
        return;
    }
    let k = Kind {
        api_version: &api_version,
        kind: &kind,
    };
    if schemas.skips(&k) {
        return;
    }
    // the API's lifecycle in the environment's version: a removed API is
    // refused by the server (nothing else of the object matters then)
    if let (Some(life), Some(minor)) = (
        super::lifecycle::of(&api_version, &kind),
        super::lifecycle::minor(&schemas.options().version),
    ) {
        let version = &schemas.options().version;
        let instead = life.replacement.map_or_else(
            || "it has no replacement".to_string(),
            |r| format!("use {r}"),
        );
        match super::lifecycle::status(life, minor) {
            Some(super::lifecycle::Status::Removed) => {
                out.push(at(
                    pair,
                    doc,
                    &[Segment::Key("apiVersion".into())],
                    RuleId::KubernetesRemovedApi,
                    format!(
                        "{what}: {api_version} {kind} was removed in Kubernetes 1.{} (deprecated in 1.{}), and this environment targets {version}: {instead}",
                        life.removed.unwrap_or_default(),
                        life.deprecated
                    ),
                ));
                return;
            }
            Some(super::lifecycle::Status::Deprecated) => out.push(at(
                pair,
                doc,
                &[Segment::Key("apiVersion".into())],
                RuleId::KubernetesDeprecatedApi,
                format!(
                    "{what}: {api_version} {kind} is deprecated since Kubernetes 1.{}{} (this environment targets {version}): {instead}",
                    life.deprecated,
                    life.removed
                        .map(|r| format!(" and removed in 1.{r}"))
                        .unwrap_or_default()
                ),
            )),
            None => {}
        }
    }
    // a CRD's structural schema: the server prunes and defaults first
    let mut structural: Option<&serde_json::Value> = None;
    let cell = match crds.get(&(api_version.clone(), kind.clone())) {
        Some(crd) => match &crd.schema {
            Ok(schema) => {
                if let Some(warning) = &crd.deprecated {
                    out.push(at(
                        pair,
                        doc,
                        &[Segment::Key("apiVersion".into())],
                        RuleId::KubernetesDeprecatedApi,
                        format!(
                            "{what}: {api_version} {kind} is deprecated by its CRD {}{}",
                            quoted(&crd.crd_name),
                            warning
                                .as_ref()
                                .map(|w| format!(": {}", crate::escape::control(w)))
                                .unwrap_or_default()
                        ),
                    ));
                }
                structural = Some(schema);
                schemas.crd_schema(&crd.crd_name, schema)
            }
            Err(why) => {
                // at the CRD's line: the one finding its resources share
                out.push(Violation {
                    rule: RuleId::KubernetesSchemaUnavailable,
                    message: format!(
                        "the schema of CRD {} cannot be used: {why}; its {kind} resources are not checked",
                        quoted(&crd.crd_name)
                    ),
                    pos: crd.pos.clone(),
                    related: Vec::new(),
                    key_path: None,
                });
                return;
            }
        },
        None => schemas.lookup(&k),
    };
    let Some(lookup) = cell.get() else { return };
    let validator = match lookup {
        Lookup::Schema { validator, .. } => validator,
        Lookup::Missing { tried } => {
            out.push(Violation {
                rule: RuleId::KubernetesNoSchema,
                message: format!(
                    "{what}: no schema for {api_version} {kind} (tried {}); it is not checked",
                    tried.join(", ")
                ),
                pos: doc.pos.clone(),
                related: Vec::new(),
                key_path: None,
            });
            return;
        }
        Lookup::Failed(e) => {
            out.push(Violation {
                rule: RuleId::KubernetesSchemaUnavailable,
                message: format!(
                    "{what}: the schema of {api_version} {kind} could not be read: {e}"
                ),
                pos: doc.pos.clone(),
                related: Vec::new(),
                key_path: None,
            });
            return;
        }
    };
    // an object seen before with this schema (another environment's, most
    // often) has the same errors: found once, placed for each pair
    let schema_id = &**validator as *const jsonschema::Validator as usize;
    let found = schemas.found_once(schema_id, content_digest(&doc.value), || {
        std::sync::Arc::new(schema_errors(structural, validator, &what, &doc.value))
    });
    for (rule, path, message) in found.iter() {
        out.push(at(pair, doc, path, *rule, message.clone()));
    }
}

/// The errors of an object against its schema (a CRD's structural schema
/// prunes and defaults it first, as the server does): rule, field path,
/// message.
fn schema_errors(
    structural: Option<&serde_json::Value>,
    validator: &jsonschema::Validator,
    what: &str,
    value: &Value,
) -> Vec<(RuleId, Vec<Segment>, String)> {
    let mut out = Vec::new();
    let mut json = to_json(value);
    if let Some(schema) = structural {
        super::structural::prune_and_default(schema, &mut json);
        for d in super::structural::duplicate_map_keys(schema, &json) {
            let path: Vec<Segment> = d
                .path
                .into_iter()
                .map(|p| match p {
                    super::structural::PathPart::Key(k) => Segment::Key(k),
                    super::structural::PathPart::Index(i) => Segment::Index(i),
                })
                .collect();
            let message = format!(
                "{what}: {}: the same {} as item {} of the list (the server keys the list by them and refuses a duplicate)",
                key_path(&path),
                d.keys,
                d.first
            );
            out.push((RuleId::KubernetesInvalid, path, message));
        }
    }
    for e in validator.iter_errors(&json) {
        let segments: Vec<Segment> = e
            .instance_path()
            .iter()
            .map(|s| match s {
                LocationSegment::Property(p) => Segment::Key(p.to_string()),
                LocationSegment::Index(i) => Segment::Index(i),
            })
            .collect();
        match e.kind() {
            ValidationErrorKind::AdditionalProperties { unexpected }
            | ValidationErrorKind::UnevaluatedProperties { unexpected } => {
                for field in unexpected {
                    let mut path = segments.clone();
                    path.push(Segment::Key(field.clone()));
                    let message = format!(
                        "{what}: {}: unknown field {}",
                        key_path(&path),
                        quoted(field)
                    );
                    out.push((RuleId::KubernetesUnknownField, path, message));
                }
            }
            kind => {
                let words = words(kind, e.instance());
                let message = format!("{what}: {}: {words}", key_path(&segments));
                out.push((RuleId::KubernetesInvalid, segments, message));
            }
        }
    }
    out
}

#[derive(Debug, Clone)]
pub(crate) enum Segment {
    Key(String),
    Index(usize),
}

/// `spec.containers[0].ports[0].containerPort`, or `(document)`.
fn key_path(path: &[Segment]) -> String {
    let mut s = String::new();
    for seg in path {
        match seg {
            Segment::Key(k) => {
                if !s.is_empty() {
                    s.push('.');
                }
                s.push_str(k);
            }
            Segment::Index(i) => s.push_str(&format!("[{i}]")),
        }
    }
    if s.is_empty() {
        "(document)".into()
    } else {
        s
    }
}

fn quoted(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| s.to_string())
}

/// The violation at the node `path` leads to.
fn at(
    pair: &PairDocs,
    doc: &Document,
    path: &[Segment],
    rule: RuleId,
    message: String,
) -> Violation {
    // the position of every node on the way, document first
    let mut chain: Vec<Pos> = vec![doc.pos.clone()];
    let mut node = &doc.value;
    for seg in path {
        let next = match (node, seg) {
            (Value::Map(m), Segment::Key(k)) => m
                .items
                .iter()
                .find(|i| i.key.scalar_display() == *k)
                .map(|i| (&i.value, &i.pos)),
            (Value::Array(a), Segment::Index(i)) => a.items.get(*i).map(|i| (&i.value, &i.pos)),
            _ => None,
        };
        let Some((value, pos)) = next else { break };
        if pos.is_known() {
            chain.push(pos.clone());
        }
        node = value;
    }
    let is_values = |p: &Pos| (pair.is_values_file)(p.file_name());
    let own = chain.last().cloned().unwrap_or_default();
    let mut related = Vec::new();
    let pos = if is_values(&own) {
        // copied from data values: the template line that copied it
        related.push((
            own.clone(),
            "the value comes from this data value".to_string(),
        ));
        chain
            .iter()
            .rev()
            .find(|p| !is_values(p))
            .cloned()
            .unwrap_or(own)
    } else {
        if let Some(from) = value_origin(pair, &own) {
            related.push((from, "the value comes from this data value".to_string()));
        }
        own
    };
    Violation {
        rule,
        message,
        pos,
        related,
        key_path: (!path.is_empty()).then(|| key_path(path)),
    }
}

/// Where the value written on a template line came from, when the line
/// reads exactly one data value (`port: #@ data.values.port`): that value's
/// line in the pair's final values.
fn value_origin(pair: &PairDocs, pos: &Pos) -> Option<Pos> {
    let line = pos.line_text()?;
    let values = pair.values?;
    let mut paths = Vec::new();
    let mut rest = line;
    while let Some(i) = rest.find("data.values.") {
        let after = &rest[i + "data.values.".len()..];
        let end = after
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
            .unwrap_or(after.len());
        let path = after[..end].trim_end_matches('.');
        if !path.is_empty() && !paths.contains(&path) {
            paths.push(path);
        }
        rest = &after[end..];
    }
    let [path] = paths.as_slice() else {
        return None;
    };
    let mut node = &values.value;
    let mut found = None;
    for key in path.split('.') {
        let Value::Map(m) = node else { return None };
        let item = m.get(key)?;
        found = Some(item.pos.clone());
        node = &item.value;
    }
    found.filter(|p| p.is_known() && p.location().is_some())
}

/// The schema's words for an error, without the value.
fn words(kind: &ValidationErrorKind, instance: &Json) -> String {
    let found = json_type(instance);
    match kind {
        ValidationErrorKind::Type { kind } => {
            format!("expected {}, found {found}", expected_types(kind))
        }
        ValidationErrorKind::Required { property } => match property {
            Json::String(p) => format!("the required field {} is missing", quoted(p)),
            other => format!("the required field {other} is missing"),
        },
        ValidationErrorKind::Enum { options } => match options.as_array() {
            Some(opts) if opts.len() <= 8 => format!(
                "expected one of {}, found another {found}",
                opts.iter()
                    .map(|o| o.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            _ => "is not one of the values the schema allows".into(),
        },
        ValidationErrorKind::Constant { expected_value } => {
            format!("expected {expected_value}, found another {found}")
        }
        ValidationErrorKind::OneOfNotValid { context } | ValidationErrorKind::AnyOf { context } => {
            // every branch a plain type (int-or-string, quantity): name them
            let mut types: Vec<&'static str> = Vec::new();
            let plain = context.iter().all(|branch| {
                branch.iter().all(|e| match e.kind() {
                    ValidationErrorKind::Type { kind } => {
                        for t in type_names(kind) {
                            if t != "null" && !types.contains(&t) {
                                types.push(t);
                            }
                        }
                        true
                    }
                    _ => false,
                })
            });
            if plain && !types.is_empty() {
                format!("expected {}, found {found}", or_list(&types))
            } else {
                format!(
                    "matches none of the {} forms the schema allows",
                    context.len()
                )
            }
        }
        ValidationErrorKind::OneOfMultipleValid { .. } => {
            "matches more than one of the forms the schema allows (oneOf)".into()
        }
        ValidationErrorKind::Minimum { limit } => format!("must be at least {limit}"),
        ValidationErrorKind::Maximum { limit } => format!("must be at most {limit}"),
        ValidationErrorKind::ExclusiveMinimum { limit } => format!("must be more than {limit}"),
        ValidationErrorKind::ExclusiveMaximum { limit } => format!("must be less than {limit}"),
        ValidationErrorKind::MinLength { limit } => {
            format!("must be at least {limit} characters long")
        }
        ValidationErrorKind::MaxLength { limit } => {
            format!("must be at most {limit} characters long")
        }
        ValidationErrorKind::MinItems { limit } => format!("must have at least {limit} items"),
        ValidationErrorKind::MaxItems { limit } => format!("must have at most {limit} items"),
        ValidationErrorKind::MinProperties { limit } => {
            format!("must have at least {limit} fields")
        }
        ValidationErrorKind::MaxProperties { limit } => format!("must have at most {limit} fields"),
        ValidationErrorKind::Pattern { pattern } => {
            format!("must match the pattern {}", quoted(pattern))
        }
        ValidationErrorKind::Format { format } => format!("is not a valid {format}"),
        ValidationErrorKind::UniqueItems => "must not repeat an item".into(),
        ValidationErrorKind::MultipleOf { .. } => "is not a multiple the schema allows".into(),
        ValidationErrorKind::FalseSchema => "is not allowed here".into(),
        ValidationErrorKind::Not { .. } => "is a form the schema forbids".into(),
        other => format!("breaks the schema's {} rule", other.keyword()),
    }
}

fn type_names(kind: &TypeKind) -> Vec<&'static str> {
    match kind {
        TypeKind::Single(t) => vec![t.as_str()],
        TypeKind::Multiple(set) => set.iter().map(|t| t.as_str()).collect(),
    }
}

fn expected_types(kind: &TypeKind) -> String {
    or_list(&type_names(kind))
}

fn or_list(items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [one] => one.to_string(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

/// The JSON type of a value, as the schema words it.
fn json_type(v: &Json) -> &'static str {
    match v {
        Json::Null => "null",
        Json::Bool(_) => "boolean",
        Json::Number(n) => {
            if n.is_i64() || n.is_u64() {
                "integer"
            } else {
                "number"
            }
        }
        Json::String(_) => "string",
        Json::Array(_) => "array",
        Json::Object(_) => "object",
    }
}
