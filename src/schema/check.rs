//! Type-checking data values against a schema, as ytt does it: first assign
//! types to the tree (filling in defaults of missing keys, reporting structural
//! mismatches), then, if the structure fits, check every typed node (unknown
//! keys, scalar kinds), in document order.

use crate::yaml::{Document, Meta, Pos, Value};

use super::error::Violation;
use super::types::{DocType, MapType, Type};

/// Follows `Null` to the type that describes a non-null value.
pub fn resolve(t: &Type) -> &Type {
    match t {
        Type::Null(n) => resolve(&n.value_type),
        other => other,
    }
}

fn mismatch(t: &Type, found: &str, pos: &Pos) -> Violation {
    let def = t.pos();
    let expected_type = if def.is_known() {
        t.name()
    } else {
        String::new()
    };
    Violation {
        rule: crate::diagnostics::RuleId::SchemaTypeMismatch,
        pos: pos.clone(),
        expected: format!("{expected_type} (by {})", def.compact()),
        found: found.to_string(),
        schema_pos: def.is_known().then(|| def.clone()),
        ..Violation::of(
            crate::diagnostics::RuleId::SchemaTypeMismatch,
            Pos::unknown(),
        )
    }
}

// ------------------------------------------------------------------ assignment

/// Assigns `t` to a collection value, filling in defaults; `holder_pos` is the
/// position of the item or document holding it.
fn assign(t: &Type, v: &mut Value, out: &mut Vec<Violation>) {
    match (resolve(t), v) {
        (Type::Any(_), _) => {}
        (Type::Map(mt), Value::Map(m)) => {
            // declarations given a value
            let mut found = vec![false; mt.items.len()];
            let mut next = 0;
            for item in m.items.iter_mut() {
                if let Some(idx) = mt.declaration_of(&item.key, next) {
                    found[idx] = true;
                    next = idx + 1;
                    if item.value.is_collection() {
                        assign(&mt.items[idx].value_type, &mut item.value, out);
                    }
                }
            }
            for (idx, it) in mt.items.iter().enumerate() {
                if found[idx] {
                    continue;
                }
                let mut value = it.default.clone();
                if value.is_collection() {
                    assign(&it.value_type, &mut value, out);
                }
                m.items.push(crate::yaml::MapItem {
                    key: it.key.clone(),
                    value,
                    pos: it.pos.clone(),
                    meta: Meta::default(),
                });
            }
        }
        (Type::Array(at), Value::Array(a)) => {
            for item in a.items.iter_mut() {
                if item.value.is_collection() {
                    assign(&at.item_type.value_type, &mut item.value, out);
                }
            }
        }
        (t, v) => {
            let pos = v.pos().cloned().unwrap_or_default();
            out.push(mismatch(t, v.type_name(), &pos));
        }
    }
}

// ------------------------------------------------------------------ checking

fn scalar_ok(t: &Type, value: &Value) -> bool {
    match t {
        Type::Null(n) => value.is_null() || scalar_ok(&n.value_type, value),
        Type::Any(_) => true,
        Type::Scalar(s) => {
            use super::types::ScalarKind::*;
            matches!(
                (s.kind, value),
                (String, Value::Str(_))
                    | (Float, Value::Float(_))
                    | (Float, Value::Int(_))
                    | (Float, Value::UInt(_))
                    | (Int, Value::Int(_))
                    | (Int, Value::UInt(_))
                    | (Bool, Value::Bool(_))
            )
        }
        Type::Map(_) | Type::Array(_) => false,
    }
}

/// CheckType of a holder (map item, array item, document) whose value is a
/// scalar.
pub(crate) fn check_scalar(t: &Type, value: &Value, pos: &Pos) -> Vec<Violation> {
    if scalar_ok(t, value) {
        return Vec::new();
    }
    vec![mismatch(resolve(t), value.type_name(), pos)]
}

/// `key` is the holder's key (a map item's), `None` for an array item or
/// a document.
fn check_holder(
    t: &Type,
    value: &Value,
    pos: &Pos,
    key: Option<&Value>,
    path: &mut String,
    out: &mut Vec<Violation>,
) {
    if value.is_collection() {
        check_node(resolve(t), value, path, out);
    } else {
        out.extend(check_scalar(t, value, pos).into_iter().map(|mut v| {
            v.key_path = Some(path.clone());
            if !pos.is_known() {
                v.memory_line = Some(memory_line(key, value));
            }
            v
        }));
    }
}

/// ytt's line for a node a template made (`convertToASTWithNoPosition`):
/// `key: <Go's %#v of the value>`, or `- <...>` for an array item.
fn memory_line(key: Option<&Value>, value: &Value) -> String {
    let v = match value {
        Value::Str(s) => crate::gocompat::go_quote(s),
        Value::Null => "<nil>".to_string(),
        other => other.scalar_display(),
    };
    match key {
        Some(k) => format!("{}: {v}", k.scalar_display()),
        None => format!("- {v}"),
    }
}

fn check_node(t: &Type, v: &Value, path: &mut String, out: &mut Vec<Violation>) {
    let len = path.len();
    match (t, v) {
        (Type::Map(mt), Value::Map(m)) => {
            // each item's declaration
            let mut next = 0;
            let declared: Vec<Option<&_>> = m
                .items
                .iter()
                .map(|item| {
                    mt.declaration_of(&item.key, next).map(|i| {
                        next = i + 1;
                        &mt.items[i]
                    })
                })
                .collect();
            for (item, decl) in m.items.iter().zip(&declared) {
                if decl.is_none() {
                    let mut v = unexpected_key(item, mt);
                    crate::yaml::push_key_path(path, &item.key);
                    v.key_path = Some(path.clone());
                    path.truncate(len);
                    out.push(v);
                }
            }
            for (item, decl) in m.items.iter().zip(&declared) {
                if let Some(it) = decl {
                    crate::yaml::push_key_path(path, &item.key);
                    check_holder(
                        &it.value_type,
                        &item.value,
                        &item.pos,
                        Some(&item.key),
                        path,
                        out,
                    );
                    path.truncate(len);
                }
            }
        }
        (Type::Array(at), Value::Array(a)) => {
            use std::fmt::Write;
            for (i, item) in a.items.iter().enumerate() {
                let _ = write!(path, "[{i}]");
                check_holder(
                    &at.item_type.value_type,
                    &item.value,
                    &item.pos,
                    None,
                    path,
                    out,
                );
                path.truncate(len);
            }
        }
        _ => {}
    }
}

/// ytt's "Given data value is not declared in schema".
fn unexpected_key(item: &crate::yaml::MapItem, mt: &MapType) -> Violation {
    let key = item.key_display();
    let mut allowed: Vec<String> = mt.items.iter().map(|i| i.key.scalar_display()).collect();
    allowed.sort();
    let def = mt.pos.compact();
    let expected = match allowed.len() {
        1 => format!(
            "a map item with the key named \"{}\" (from {def})",
            allowed[0]
        ),
        2..=9 => format!("one of {{ {} }} (from {def})", allowed.join(", ")),
        _ => format!("a key declared in map (from {def})"),
    };
    let mut hints = Vec::new();
    let mut rename = None;
    if let Some(near) = nearest(&key, &allowed) {
        hints.push(format!("did you mean \"{near}\"?"));
        rename = Some((key.clone(), near.to_string()));
    }
    Violation {
        rename,
        pos: item.pos.clone(),
        description: "Given data value is not declared in schema".into(),
        expected,
        found: key,
        hints,
        schema_pos: Some(mt.pos.clone()),
        ..Violation::of(
            crate::diagnostics::RuleId::SchemaUndeclaredKey,
            Pos::unknown(),
        )
    }
}

pub use crate::gocompat::nearest;

// ------------------------------------------------------------------ entry points

/// Assigns and checks a standalone collection (a default or example value).
pub(crate) fn assign_and_check_value(t: &Type, v: &mut Value) -> Vec<Violation> {
    let mut out = Vec::new();
    assign(t, v, &mut out);
    if !out.is_empty() {
        return out;
    }
    check_node(resolve(t), v, &mut String::new(), &mut out);
    out
}

/// Type-checks a data values document, completing it with defaults.
pub fn check_document(dt: &DocType, doc: &mut Document) -> Vec<Violation> {
    let mut out = Vec::new();
    if doc.value.is_collection() {
        assign(&dt.value_type, &mut doc.value, &mut out);
    }
    if !out.is_empty() {
        return out;
    }
    check_holder(
        &dt.value_type,
        &doc.value,
        &doc.pos,
        None,
        &mut String::new(),
        &mut out,
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spelling_hints() {
        let c = vec!["replicas".to_string(), "name".to_string()];
        assert_eq!(nearest("replica", &c), Some("replicas".into()));
        assert_eq!(nearest("zzz", &c), None);
    }
}
