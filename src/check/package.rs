//! A Package CR's `spec.valuesSchema.openAPIv3` held to its library's
//! schema: the CR is what `kctrl` and `tanzu package available get
//! --values-schema` show a package's users, the schema is what ytt checks
//! their values against, and the two are kept in step by hand.
//!
//! The library's side is ytt's own export (`--data-values-schema-inspect -o
//! openapi-v3`, [`crate::schema::export::openapi`]), so a CR written by that
//! export matches exactly. Per property: presence, type (with `nullable`)
//! and default that differ are `package/schema-drift` (an error, with a
//! fix-it that writes the `valuesSchema` block afresh from the schema,
//! leaving the rest of the file byte for byte); title, description,
//! examples and deprecation that differ are a `package/doc-drift` note. A
//! library without a schema has nothing typed to compare: it is said once
//! (`package/untyped-library`), and the keys its data values declare are
//! compared with the CR's (`package/key-drift`, warnings).

use std::sync::Arc;

use crate::diagnostics::{Finding, Fix, Location, RuleId};
use crate::schema::Schema;
use crate::source::SourceCache;
use crate::workspace::packages::at;
use crate::workspace::plan::PackageCr;

use crate::workspace::plan::Library;
use crate::yaml::{DocSet, MapItem, SourceFile, Value};

use super::from_errors::Subject;

/// The findings about each Package CR of `lib`: `schema` is the library's,
/// `values` its data values before any environment's (for a library without
/// a schema).
pub(super) fn findings(
    sources: &SourceCache,
    lib: &Library,
    schema: &Schema,
    values: Option<&Value>,
    who: &Subject,
) -> Vec<Finding> {
    let mut out = Vec::new();
    for cr in &lib.packages {
        let Ok(src) = sources.get(&cr.path) else {
            continue;
        };
        let Ok(docs) = crate::yaml::parse::parse(&src, false) else {
            continue;
        };
        let Some(doc) = docs.docs.get(cr.document) else {
            continue;
        };
        let place = |line: u32| {
            let mut l = Location::file(cr.path.as_str());
            l.line = line.max(1);
            l
        };
        let named = package_label(cr);
        let given = at(&doc.value, &["spec", "valuesSchema", "openAPIv3"]);
        let given_line = value_line(&doc.value, &["spec", "valuesSchema", "openAPIv3"]);
        if schema.doc_type.is_none() {
            if let Some(given) = given {
                untyped(&named, given, given_line, values, who, &place, &mut out);
            }
            continue;
        }
        let exported = exported_values(schema);
        let Some(given) = given else {
            let line = at(&doc.value, &["spec"])
                .and_then(Value::pos)
                .map_or(doc.pos.line(), |p| p.line());
            let mut f = who.finding(
                RuleId::PackageMissingValuesSchema,
                format!("{named} has no spec.valuesSchema.openAPIv3, while library '{}' has a schema: the package's users are shown no values", lib.name),
                Some(place(line)),
            );
            f.detail.push(format!(
                "hint: `yttcheck inspect -f {} --data-values-schema-inspect -o openapi-v3` prints it (under components.schemas.dataValues)",
                lib.root
            ));
            out.push(f);
            continue;
        };
        let mut drifts = Vec::new();
        compare(&exported, given, "", given_line, &mut drifts);
        let fix = drifts
            .iter()
            .any(|d| d.rule == RuleId::PackageSchemaDrift)
            .then(|| rewrite(&src, &cr.path, &docs, cr.document, &exported, given))
            .flatten();
        for d in drifts {
            let mut f = who.finding(
                d.rule,
                format!("{named}: {}", d.message),
                Some(place(d.line)),
            );
            f.key_path = Some(if d.path.is_empty() {
                "(root)".to_string()
            } else {
                d.path.clone()
            });
            f.detail = d.detail;
            if d.rule == RuleId::PackageSchemaDrift {
                f.fix = fix.clone();
                f.detail.push(format!(
                    "hint: write the CR's valuesSchema from the schema: the fix-it, `yttcheck docs`, or `yttcheck inspect -f {} --data-values-schema-inspect -o openapi-v3`",
                    if lib.root.is_root() { "." } else { lib.root.as_str() }
                ));
            }
            out.push(f);
        }
    }
    out
}

/// The text of the file of a Package CR (`document` of `src`, at `path`)
/// with its valuesSchema written from `schema` (what the fix-it of
/// `package/schema-drift` writes; `yttcheck docs` writes it too); `None`
/// when the library has no schema, the CR has no valuesSchema block to
/// rewrite, or it already says what the schema says.
pub fn with_values_schema(
    src: &Arc<SourceFile>,
    path: &crate::source::RepoPath,
    document: usize,
    schema: &Schema,
) -> Option<String> {
    schema.doc_type.as_ref()?;
    let docs = crate::yaml::parse::parse(src, false).ok()?;
    let given = at(
        &docs.docs.get(document)?.value,
        &["spec", "valuesSchema", "openAPIv3"],
    )?;
    let exported = exported_values(schema);
    let mut drifts = Vec::new();
    compare(&exported, given, "", 1, &mut drifts);
    if drifts.is_empty() {
        return None;
    }
    rewrite(src, path, &docs, document, &exported, given)?.apply(src.text())
}

/// How a CR is named in messages: `Package CR 'name'`.
fn package_label(cr: &PackageCr) -> String {
    if cr.name.is_empty() {
        "the Package CR".to_string()
    } else {
        format!("Package CR '{}'", cr.name)
    }
}

/// ytt's OpenAPI export of the schema: its `dataValues` schema.
fn exported_values(schema: &Schema) -> Value {
    let doc = crate::schema::export::openapi(schema, Default::default());
    at(&doc, &["components", "schemas", "dataValues"])
        .cloned()
        .unwrap_or_default()
}

/// The line of the value at `path` (its key's line).
fn value_line(v: &Value, path: &[&str]) -> u32 {
    let Some((last, parents)) = path.split_last() else {
        return v.pos().map_or(1, |p| p.line());
    };
    at(v, parents)
        .and_then(Value::as_map)
        .and_then(|m| m.get(last))
        .map_or(1, |i| i.pos.line())
}

/// One difference between the schema and the CR.
struct Drift {
    rule: RuleId,
    path: String,
    line: u32,
    message: String,
    detail: Vec<String>,
}

fn child_path(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

fn shown_path(path: &str) -> String {
    if path.is_empty() {
        "the data values (the root)".to_string()
    } else {
        format!("'{path}'")
    }
}

fn properties(v: &Value) -> Option<&crate::yaml::Map> {
    at(v, &["properties"]).and_then(Value::as_map)
}

/// Compares the schema's export `want` with the CR's `given` at `path`,
/// whose key is on `line` of the CR.
fn compare(want: &Value, given: &Value, path: &str, line: u32, out: &mut Vec<Drift>) {
    let (want_type, given_type) = (type_of(want), type_of(given));
    let want_default = at(want, &["default"]);
    let given_default = at(given, &["default"]);
    let mut differs = Vec::new();
    if want_type != given_type {
        differs.push("type");
    }
    // (an object's default is its properties': ytt exports none)
    if want_default.is_some() && !same_value(want_default, given_default) {
        differs.push("default");
    }
    if !differs.is_empty() {
        let secret =
            crate::secrets::Secrets::shared().is_secret(path.rsplit('.').next().unwrap_or(""));
        let side = |t: &str, d: Option<&Value>| {
            let d = match d {
                None => "no default".to_string(),
                Some(_) if secret => "a default (not shown: the key looks secret)".to_string(),
                Some(d) => format!("default {}", compact(d)),
            };
            format!("{t}, {d}")
        };
        out.push(Drift {
            rule: RuleId::PackageSchemaDrift,
            path: path.to_string(),
            line,
            message: format!(
                "the {} of {} differ{} from the library's schema",
                differs.join(" and "),
                shown_path(path),
                if differs.len() == 1 { "s" } else { "" }
            ),
            detail: vec![
                format!("schema: {}", side(&want_type, want_default)),
                format!("Package CR: {}", side(&given_type, given_default)),
            ],
        });
    }
    let documented: Vec<&str> = [
        "title",
        "description",
        "example",
        "x-example-description",
        "deprecated",
    ]
    .into_iter()
    .filter(|k| !same_value(at(want, &[k]), at(given, &[k])))
    .collect();
    if !documented.is_empty() {
        out.push(Drift {
            rule: RuleId::PackageDocDrift,
            path: path.to_string(),
            line,
            message: format!(
                "the {} of {} differ{} from the library's schema",
                documented.join(", "),
                shown_path(path),
                if documented.len() == 1 { "s" } else { "" }
            ),
            detail: documented
                .iter()
                .flat_map(|k| {
                    [
                        format!(
                            "schema's {k}: {}",
                            at(want, &[k]).map_or("(none)".to_string(), compact)
                        ),
                        format!(
                            "Package CR's {k}: {}",
                            at(given, &[k]).map_or("(none)".to_string(), compact)
                        ),
                    ]
                })
                .collect(),
        });
    }
    if want_type != given_type && !(want_type.ends_with("object") && given_type.ends_with("object"))
    {
        return;
    }
    let (want_props, given_props) = (properties(want), properties(given));
    if let Some(wp) = want_props {
        let props_line = given
            .as_map()
            .and_then(|m| m.get("properties"))
            .map_or(line, |i| i.pos.line());
        for item in &wp.items {
            let key = item.key_display();
            let here = child_path(path, &key);
            match given_props.and_then(|g| g.items.iter().find(|i| i.key.scalar_eq(&item.key))) {
                Some(g) => compare(&item.value, &g.value, &here, g.pos.line(), out),
                None => out.push(Drift {
                    rule: RuleId::PackageSchemaDrift,
                    path: here.clone(),
                    line: props_line,
                    message: format!(
                        "'{here}' is in the library's schema but not in the CR: its users are not shown it"
                    ),
                    detail: vec![format!("schema: {}", type_of(&item.value))],
                }),
            }
        }
    }
    for g in given_props.iter().flat_map(|g| g.items.iter()) {
        if want_props.is_some_and(|w| w.items.iter().any(|i| i.key.scalar_eq(&g.key))) {
            continue;
        }
        let here = child_path(path, &g.key_display());
        out.push(Drift {
            rule: RuleId::PackageSchemaDrift,
            path: here.clone(),
            line: g.pos.line(),
            message: format!(
                "the CR offers '{here}', which the library's schema does not declare: ytt refuses a value for it"
            ),
            detail: vec![format!("Package CR: {}", type_of(&g.value))],
        });
    }
    if let (Some(w), Some(g)) = (at(want, &["items"]), at(given, &["items"])) {
        let items_line = given
            .as_map()
            .and_then(|m| m.get("items"))
            .map_or(line, |i| i.pos.line());
        compare(w, g, &format!("{path}[]"), items_line, out);
    }
}

/// A property's type as the API server reads it: `type` (none: any) and
/// whether it is `nullable`.
fn type_of(v: &Value) -> String {
    let t = at(v, &["type"]).and_then(Value::as_str).unwrap_or("any");
    let nullable = matches!(at(v, &["nullable"]), Some(Value::Bool(true)));
    if nullable {
        format!("nullable {t}")
    } else {
        t.to_string()
    }
}

/// Two optional values alike (maps whatever their keys' order; an integer
/// and a float of one value alike, as JSON reads them).
fn same_value(a: Option<&Value>, b: Option<&Value>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => alike(a, b),
        _ => false,
    }
}

fn alike(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Map(x), Value::Map(y)) => {
            x.items.len() == y.items.len()
                && x.items.iter().all(|i| {
                    y.items
                        .iter()
                        .find(|j| j.key.scalar_eq(&i.key))
                        .is_some_and(|j| alike(&i.value, &j.value))
                })
        }
        (Value::Array(x), Value::Array(y)) => {
            x.items.len() == y.items.len()
                && x.items
                    .iter()
                    .zip(&y.items)
                    .all(|(i, j)| alike(&i.value, &j.value))
        }
        (Value::Int(i), Value::Float(f)) | (Value::Float(f), Value::Int(i)) => *i as f64 == *f,
        _ => a.scalar_eq(b),
    }
}

/// A value on one line, as JSON writes it (at most 120 characters).
fn compact(v: &Value) -> String {
    let mut s = String::new();
    write_compact(v, &mut s);
    if s.chars().count() > 120 {
        s = s.chars().take(117).collect::<String>() + "...";
    }
    s
}

fn write_compact(v: &Value, out: &mut String) {
    match v {
        Value::Map(m) => {
            out.push('{');
            for (n, i) in m.items.iter().enumerate() {
                if n > 0 {
                    out.push_str(", ");
                }
                out.push_str(&i.key_display());
                out.push_str(": ");
                write_compact(&i.value, out);
            }
            out.push('}');
        }
        Value::Array(a) => {
            out.push('[');
            for (n, i) in a.items.iter().enumerate() {
                if n > 0 {
                    out.push_str(", ");
                }
                write_compact(&i.value, out);
            }
            out.push(']');
        }
        Value::Str(s) => out.push_str(&serde_json::to_string(&**s).unwrap_or_default()),
        Value::Null => out.push_str("null"),
        other => out.push_str(&other.scalar_display()),
    }
}

/// A library without a schema: said once, and the keys its data values
/// declare compared with the CR's (the topmost key that differs only).
fn untyped(
    named: &str,
    given: &Value,
    line: u32,
    values: Option<&Value>,
    who: &Subject,
    place: &dyn Fn(u32) -> Location,
    out: &mut Vec<Finding>,
) {
    let declared = values
        .and_then(Value::as_map)
        .filter(|m| !m.items.is_empty());
    out.push(who.finding(
        RuleId::PackageUntypedLibrary,
        format!(
            "{named}: library '{}' has no schema (`#@data/values-schema`), so its valuesSchema cannot be compared by type{}",
            who.library,
            if declared.is_some() {
                "; its keys are compared with the keys the library's data values declare"
            } else {
                ", nor by key (the library declares no data values)"
            }
        ),
        Some(place(line)),
    ));
    let Some(declared) = declared else { return };
    let mut keys = Vec::new();
    let props_line = given
        .as_map()
        .and_then(|m| m.get("properties"))
        .map_or(line, |i| i.pos.line());
    compare_keys(declared, properties(given), "", props_line, &mut keys);
    for (path, line, in_values) in keys {
        let message = if in_values {
            format!("{named}: the library's data values declare '{path}', which the CR does not offer: its users are not shown it")
        } else {
            format!("{named}: the CR offers '{path}', which the library's data values do not declare: ytt refuses a value for it")
        };
        let mut f = who.finding(RuleId::PackageKeyDrift, message, Some(place(line)));
        f.key_path = Some(path);
        out.push(f);
    }
}

/// Keys of a data values map and of a CR's properties that differ, the
/// topmost of each (path, the CR's line, whether the values have it).
fn compare_keys(
    values: &crate::yaml::Map,
    props: Option<&crate::yaml::Map>,
    path: &str,
    line: u32,
    out: &mut Vec<(String, u32, bool)>,
) {
    for item in &values.items {
        let here = child_path(path, &item.key_display());
        match props.and_then(|p| p.items.iter().find(|g| g.key.scalar_eq(&item.key))) {
            None => out.push((here, line, true)),
            Some(g) => {
                if let Some(inner) = item.value.as_map() {
                    // (a CR's free-form object has no properties to compare)
                    if let Some(gp) = properties(&g.value) {
                        let inner_line = g
                            .value
                            .as_map()
                            .and_then(|m| m.get("properties"))
                            .map_or(g.pos.line(), |i| i.pos.line());
                        compare_keys(inner, Some(gp), &here, inner_line, out);
                    }
                }
            }
        }
    }
    for g in props.iter().flat_map(|p| p.items.iter()) {
        if !values.items.iter().any(|i| i.key.scalar_eq(&g.key)) {
            out.push((child_path(path, &g.key_display()), g.pos.line(), false));
        }
    }
}

/// The fix-it: the CR's `valuesSchema:` block written afresh from the
/// schema's export, at its indentation, the rest of the file kept byte for
/// byte (the title and description of the CR's root kept when the schema's
/// root has none). `None` when the block is not written in block style on
/// lines of its own.
fn rewrite(
    src: &Arc<SourceFile>,
    path: &crate::source::RepoPath,
    docs: &DocSet,
    document: usize,
    exported: &Value,
    given: &Value,
) -> Option<Fix> {
    let doc = docs.docs.get(document)?;
    let spec = at(&doc.value, &["spec"])?.as_map()?;
    let index = spec
        .items
        .iter()
        .position(|i| i.key.as_str() == Some("valuesSchema"))?;
    let first = spec.items[index].pos.line();
    let text = src.text();
    let lines: Vec<&str> = text.split('\n').collect();
    let key_line = *lines.get(first as usize - 1)?;
    let indent = key_line.len() - key_line.trim_start_matches(' ').len();
    if !key_line[indent..].starts_with("valuesSchema:")
        || !key_line[indent + 13..].trim().is_empty()
    {
        return None;
    }
    // the block ends before the next key of spec, or of the document
    // above it, or the next document: blank and comment lines at its end
    // are not its
    let next_line = |items: &[MapItem], from: usize| items.get(from).map(|i| i.pos.line());
    let mut end = next_line(&spec.items, index + 1)
        .or_else(|| {
            let top = doc.value.as_map()?;
            let at = top
                .items
                .iter()
                .position(|i| i.key.as_str() == Some("spec"))?;
            next_line(&top.items, at + 1)
        })
        .or_else(|| docs.docs.get(document + 1).map(|d| d.pos.line()))
        .unwrap_or(lines.len() as u32 + 1)
        - 1;
    // (a document end `...` and the next document's directives, `%YAML
    // 1.1`, at the start of their lines, are not the block's either)
    while end > first {
        let raw = lines.get(end as usize - 1)?;
        let l = raw.trim();
        if l.is_empty()
            || l.starts_with('#')
            || raw.starts_with('%')
            || raw.trim_end() == "---"
            || raw.trim_end() == "..."
        {
            end -= 1;
        } else {
            break;
        }
    }
    let mut written = exported.clone();
    if let (Some(m), Some(g)) = (written.as_map_mut(), given.as_map()) {
        for key in ["description", "title"] {
            if m.get(key).is_none() {
                if let Some(kept) = g.get(key) {
                    let mut kept = kept.clone();
                    kept.pos = Default::default();
                    m.items.insert(0, kept);
                }
            }
        }
    }
    let body = crate::yaml::print::print_value(&written);
    let pad = " ".repeat(indent);
    let mut new = format!("{pad}valuesSchema:\n{pad}  openAPIv3:");
    for l in body.trim_end_matches('\n').split('\n') {
        new.push('\n');
        if !l.is_empty() {
            new.push_str(&pad);
            new.push_str("    ");
            new.push_str(l);
        }
    }
    let old = lines.get(first as usize - 1..end as usize)?.join("\n");
    let mut location = Location::file(path.as_str());
    location.line = first;
    Some(Fix::replace_lines(
        "write the Package CR's valuesSchema from the library's schema".to_string(),
        location,
        &old,
        new,
    ))
}
