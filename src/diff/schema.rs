//! Schema compatibility between two versions of a library: what a change to
//! its schema means for the people who give it values.
//!
//! Breaking (their values may stop working): a value removed, a type changed
//! (other than widening int to float, or to any), a null no longer accepted,
//! a value that became required (its new default fails validation where the
//! old one passed), a validation added or tightened. Not breaking: a value
//! added, a default changed, a validation loosened or removed.

use serde::Serialize;

use crate::assertions::rules::NodeValidation;
use crate::schema::check::resolve;
use crate::schema::{DocType, Type};
use crate::yaml::AnnValue;

use super::values::{Secrets, Tree};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SchemaChangeKind {
    Removed,
    Added,
    TypeChanged,
    NullNoLongerAllowed,
    NullAllowed,
    DefaultChanged,
    NowRequired,
    ValidationTightened,
    ValidationLoosened,
    ValidationChanged,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SchemaChange {
    pub path: String,
    pub kind: SchemaChangeKind,
    pub breaking: bool,
    pub detail: String,
}

fn change(path: &str, kind: SchemaChangeKind, breaking: bool, detail: String) -> SchemaChange {
    SchemaChange {
        path: if path.is_empty() {
            "(document)".into()
        } else {
            path.to_string()
        },
        kind,
        breaking,
        detail,
    }
}

fn child(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

/// Changes from the `before` schema to the `after` one (`None`: no schema).
pub fn compare(
    before: Option<&DocType>,
    after: Option<&DocType>,
    secrets: &Secrets,
) -> Vec<SchemaChange> {
    let mut out = Vec::new();
    match (before, after) {
        (Some(a), Some(b)) => {
            validations(
                "",
                a.validation.as_deref(),
                b.validation.as_deref(),
                &mut out,
            );
            walk("", &a.value_type, &b.value_type, secrets, &mut out);
        }
        (None, Some(_)) => out.push(change(
            "",
            SchemaChangeKind::Added,
            true,
            "the library now has a schema: values it does not declare are errors".into(),
        )),
        (Some(_), None) => out.push(change(
            "",
            SchemaChangeKind::Removed,
            false,
            "the library no longer has a schema".into(),
        )),
        (None, None) => {}
    }
    out
}

fn walk(path: &str, a: &Type, b: &Type, secrets: &Secrets, out: &mut Vec<SchemaChange>) {
    let (na, nb) = (matches!(a, Type::Null(_)), matches!(b, Type::Null(_)));
    if na && !nb {
        out.push(change(
            path,
            SchemaChangeKind::NullNoLongerAllowed,
            true,
            "no longer @schema/nullable".into(),
        ));
    } else if !na && nb {
        out.push(change(
            path,
            SchemaChangeKind::NullAllowed,
            false,
            "now @schema/nullable".into(),
        ));
    }
    let (ra, rb) = (resolve(a), resolve(b));
    let (ta, tb) = (ra.name(), rb.name());
    if ta != tb {
        let widening = (ta == "integer" && tb == "float") || tb == "any";
        out.push(change(
            path,
            SchemaChangeKind::TypeChanged,
            !widening,
            format!("type {ta} -> {tb}"),
        ));
        return;
    }
    match (ra, rb) {
        (Type::Map(x), Type::Map(y)) => {
            for ia in &x.items {
                let key = ia.key.scalar_display();
                let p = child(path, &key);
                match y.items.iter().find(|ib| ib.key.scalar_eq(&ia.key)) {
                    Some(ib) => {
                        validations(&p, ia.validation.as_deref(), ib.validation.as_deref(), out);
                        default_changed(&p, &ia.default, &ib.default, secrets, out);
                        walk(&p, &ia.value_type, &ib.value_type, secrets, out);
                    }
                    None => out.push(change(
                        &p,
                        SchemaChangeKind::Removed,
                        true,
                        "removed: giving it is now an error".into(),
                    )),
                }
            }
            for ib in &y.items {
                if !x.items.iter().any(|ia| ia.key.scalar_eq(&ib.key)) {
                    let key = ib.key.scalar_display();
                    let p = child(path, &key);
                    let default = if secret_path(&p, secrets) {
                        crate::secrets::HIDDEN.to_string()
                    } else {
                        Tree::from_value(&ib.default).redacted(secrets).short()
                    };
                    out.push(change(
                        &p,
                        SchemaChangeKind::Added,
                        false,
                        format!("added (default: {default})"),
                    ));
                }
            }
        }
        (Type::Array(x), Type::Array(y)) => {
            let p = format!("{path}[]");
            validations(
                &p,
                x.item_type.validation.as_deref(),
                y.item_type.validation.as_deref(),
                out,
            );
            walk(
                &p,
                &x.item_type.value_type,
                &y.item_type.value_type,
                secrets,
                out,
            );
        }
        _ => {}
    }
}

/// Whether a piece of a schema path (`db.password`, `tokens[]`) is a
/// secret-looking key.
fn secret_path(path: &str, secrets: &Secrets) -> bool {
    path.split(['.', '[', ']'])
        .any(|piece| !piece.is_empty() && secrets.is_secret(piece))
}

fn default_changed(
    path: &str,
    a: &crate::yaml::Value,
    b: &crate::yaml::Value,
    secrets: &Secrets,
    out: &mut Vec<SchemaChange>,
) {
    let (ta, tb) = (Tree::from_value(a), Tree::from_value(b));
    // collections' defaults are compared through their children
    if matches!(ta, Tree::Map(_) | Tree::Array(_)) || ta == tb {
        return;
    }
    let detail = if secret_path(path, secrets) {
        "default changed (value not shown)".to_string()
    } else {
        format!("default {} -> {}", ta.short(), tb.short())
    };
    out.push(change(
        path,
        SchemaChangeKind::DefaultChanged,
        false,
        detail,
    ));
}

fn number(v: &AnnValue) -> Option<f64> {
    match v {
        AnnValue::Int(i) => Some(*i as f64),
        AnnValue::Frozen(f) => f.value().unpack_i32().map(f64::from).or_else(|| {
            f.value()
                .to_str()
                .parse()
                .ok()
                .filter(|_| f.value().get_type() == "float")
        }),
        _ => None,
    }
}

fn repr(v: &AnnValue) -> String {
    crate::schema::build::repr(v)
}

/// Named rules and custom rules of two versions of one node.
fn validations(
    path: &str,
    a: Option<&NodeValidation>,
    b: Option<&NodeValidation>,
    out: &mut Vec<SchemaChange>,
) {
    let empty: Vec<(String, AnnValue)> = Vec::new();
    let na = a.map(|v| &v.named).unwrap_or(&empty);
    let nb = b.map(|v| &v.named).unwrap_or(&empty);
    let find = |list: &[(String, AnnValue)], k: &str| {
        list.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone())
    };
    for (k, vb) in nb {
        match find(na, k) {
            None => out.push(change(
                path,
                SchemaChangeKind::ValidationTightened,
                true,
                format!("new rule {k}={}", repr(vb)),
            )),
            Some(va) if repr(&va) != repr(vb) => {
                // a larger minimum is tighter; a larger maximum looser
                let tighter = match (k.as_str(), number(&va), number(vb)) {
                    ("min" | "min_len", Some(x), Some(y)) => Some(y > x),
                    ("max" | "max_len", Some(x), Some(y)) => Some(y < x),
                    _ => None,
                };
                let detail = format!("{k}: {} -> {}", repr(&va), repr(vb));
                let (kind, breaking) = match tighter {
                    Some(true) => (SchemaChangeKind::ValidationTightened, true),
                    Some(false) => (SchemaChangeKind::ValidationLoosened, false),
                    None => (SchemaChangeKind::ValidationChanged, true),
                };
                out.push(change(path, kind, breaking, detail));
            }
            Some(_) => {}
        }
    }
    for (k, va) in na {
        if find(nb, k).is_none() {
            out.push(change(
                path,
                SchemaChangeKind::ValidationLoosened,
                false,
                format!("rule {k}={} removed", repr(va)),
            ));
        }
    }
    // custom rules: by their description
    let custom = |v: Option<&NodeValidation>| -> Vec<String> {
        v.map(|v| {
            v.rules
                .iter()
                .filter(|r| r.name == "custom")
                .map(|r| r.description())
                .collect()
        })
        .unwrap_or_default()
    };
    let (ca, cb) = (custom(a), custom(b));
    for d in cb.iter().filter(|d| !ca.contains(d)) {
        out.push(change(
            path,
            SchemaChangeKind::ValidationTightened,
            true,
            format!("new rule \"{d}\""),
        ));
    }
    for d in ca.iter().filter(|d| !cb.contains(d)) {
        out.push(change(
            path,
            SchemaChangeKind::ValidationLoosened,
            false,
            format!("rule \"{d}\" removed"),
        ));
    }
}

/// Values whose defaults fail validation at head but not at base ("became
/// required"), from the validation paths of each side's defaults.
pub fn now_required(before: &[String], after: &[String]) -> Vec<SchemaChange> {
    after
        .iter()
        .filter(|p| !before.contains(p))
        .map(|p| {
            change(
                p,
                SchemaChangeKind::NowRequired,
                true,
                "its default no longer passes validation: every environment must now give it"
                    .into(),
            )
        })
        .collect()
}
