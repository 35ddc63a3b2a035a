//! Structural diff of final data values: maps by key, arrays of maps by an
//! identifying key (`name`, `id`, `key`) when every item has it and it is
//! unique, otherwise by index.

use serde::Serialize;

pub use crate::secrets::Secrets;
use crate::yaml::Value;

/// A data value, detached from positions and annotations.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Tree {
    Null,
    Bool(bool),
    Int(i128),
    Float(f64),
    Str(String),
    Map(Vec<(String, Tree)>),
    Array(Vec<Tree>),
}

impl Tree {
    pub fn from_value(v: &Value) -> Tree {
        match v {
            Value::Null => Tree::Null,
            Value::Bool(b) => Tree::Bool(*b),
            Value::Int(i) => Tree::Int(*i as i128),
            Value::UInt(u) => Tree::Int(*u as i128),
            Value::Float(f) => Tree::Float(*f),
            Value::Str(s) => Tree::Str(s.to_string()),
            Value::Binary(b) => Tree::Str(String::from_utf8_lossy(b).into_owned()),
            Value::Map(m) => Tree::Map(
                m.items
                    .iter()
                    .map(|i| (i.key.scalar_display(), Tree::from_value(&i.value)))
                    .collect(),
            ),
            Value::Array(a) => {
                Tree::Array(a.items.iter().map(|i| Tree::from_value(&i.value)).collect())
            }
        }
    }

    pub fn type_name(&self) -> &'static str {
        match self {
            Tree::Null => "null",
            Tree::Bool(_) => "boolean",
            Tree::Int(_) => "integer",
            Tree::Float(_) => "float",
            Tree::Str(_) => "string",
            Tree::Map(_) => "map",
            Tree::Array(_) => "array",
        }
    }

    fn get(&self, key: &str) -> Option<&Tree> {
        match self {
            Tree::Map(items) => items.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// A one-line rendering (`{name: http, port: 80}`).
    pub fn short(&self) -> String {
        match self {
            Tree::Null => "null".into(),
            Tree::Bool(b) => b.to_string(),
            Tree::Int(i) => i.to_string(),
            Tree::Float(f) => crate::yaml::print::format_float(*f),
            Tree::Str(s) => {
                if crate::yaml::scalar::string_needs_quotes(s)
                    || s.contains([',', '{', '}', '[', ']'])
                {
                    format!("{s:?}")
                } else {
                    s.clone()
                }
            }
            Tree::Map(items) => format!(
                "{{{}}}",
                items
                    .iter()
                    .map(|(k, v)| format!("{k}: {}", v.short()))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Tree::Array(items) => format!(
                "[{}]",
                items.iter().map(Tree::short).collect::<Vec<_>>().join(", ")
            ),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ChangeKind {
    Added,
    Removed,
    Changed,
    TypeChanged,
}

/// One difference between base and head.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Change {
    /// `database.port`, `ports[name=http].port`, `args[2]`.
    pub path: String,
    pub kind: ChangeKind,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub before: Option<Tree>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after: Option<Tree>,
    /// The value looks like a secret: shown as changed, never printed.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub redacted: bool,
}

const ID_KEYS: &[&str] = &["name", "id", "key"];

/// The key that identifies the maps of both arrays, if there is one.
fn identity_key(a: &[Tree], b: &[Tree]) -> Option<&'static str> {
    if a.is_empty() && b.is_empty() {
        return None;
    }
    ID_KEYS.iter().copied().find(|k| {
        [a, b].iter().all(|items| {
            let mut seen = Vec::new();
            items.iter().all(|item| match item.get(k) {
                Some(id @ (Tree::Str(_) | Tree::Int(_))) if !seen.contains(&id) => {
                    seen.push(id);
                    true
                }
                _ => false,
            })
        })
    })
}

fn child(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

/// The changes from `before` to `after`.
pub fn diff(before: &Tree, after: &Tree, secrets: &Secrets) -> Vec<Change> {
    let mut out = Vec::new();
    walk("", before, after, false, secrets, &mut out);
    out
}

fn walk(path: &str, a: &Tree, b: &Tree, secret: bool, secrets: &Secrets, out: &mut Vec<Change>) {
    let change = |kind, before: Option<&Tree>, after: Option<&Tree>| Change {
        path: path.to_string(),
        kind,
        before: if secret { None } else { before.cloned() },
        after: if secret { None } else { after.cloned() },
        redacted: secret,
    };
    match (a, b) {
        (Tree::Map(x), Tree::Map(y)) => {
            for (k, va) in x {
                let s = secret || secrets.is_secret(k);
                let p = child(path, k);
                match y.iter().find(|(kb, _)| kb == k) {
                    Some((_, vb)) => walk(&p, va, vb, s, secrets, out),
                    None => out.push(Change {
                        path: p,
                        kind: ChangeKind::Removed,
                        before: if s { None } else { Some(va.clone()) },
                        after: None,
                        redacted: s,
                    }),
                }
            }
            for (k, vb) in y {
                if !x.iter().any(|(ka, _)| ka == k) {
                    let s = secret || secrets.is_secret(k);
                    out.push(Change {
                        path: child(path, k),
                        kind: ChangeKind::Added,
                        before: None,
                        after: if s { None } else { Some(vb.clone()) },
                        redacted: s,
                    });
                }
            }
        }
        (Tree::Array(x), Tree::Array(y)) => match identity_key(x, y) {
            Some(key) => {
                let id = |t: &Tree| t.get(key).map(Tree::short).unwrap_or_default();
                for va in x {
                    let p = format!("{path}[{key}={}]", id(va));
                    match y.iter().find(|vb| id(vb) == id(va)) {
                        Some(vb) => walk(&p, va, vb, secret, secrets, out),
                        None => out.push(Change {
                            path: p,
                            kind: ChangeKind::Removed,
                            before: (!secret).then(|| va.clone()),
                            after: None,
                            redacted: secret,
                        }),
                    }
                }
                for vb in y {
                    if !x.iter().any(|va| id(va) == id(vb)) {
                        out.push(Change {
                            path: format!("{path}[{key}={}]", id(vb)),
                            kind: ChangeKind::Added,
                            before: None,
                            after: (!secret).then(|| vb.clone()),
                            redacted: secret,
                        });
                    }
                }
            }
            None => {
                for i in 0..x.len().max(y.len()) {
                    let p = format!("{path}[{i}]");
                    match (x.get(i), y.get(i)) {
                        (Some(va), Some(vb)) => walk(&p, va, vb, secret, secrets, out),
                        (Some(va), None) => out.push(Change {
                            path: p,
                            kind: ChangeKind::Removed,
                            before: (!secret).then(|| va.clone()),
                            after: None,
                            redacted: secret,
                        }),
                        (None, Some(vb)) => out.push(Change {
                            path: p,
                            kind: ChangeKind::Added,
                            before: None,
                            after: (!secret).then(|| vb.clone()),
                            redacted: secret,
                        }),
                        (None, None) => {}
                    }
                }
            }
        },
        (x, y) if x == y => {}
        (x, y) if std::mem::discriminant(x) == std::mem::discriminant(y) => {
            out.push(change(ChangeKind::Changed, Some(x), Some(y)))
        }
        (x, y) => out.push(change(ChangeKind::TypeChanged, Some(x), Some(y))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(items: &[(&str, Tree)]) -> Tree {
        Tree::Map(
            items
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
        )
    }

    fn s(v: &str) -> Tree {
        Tree::Str(v.to_string())
    }

    #[test]
    fn maps_by_key_arrays_by_identity() {
        let port = |n: &str, p: i128| map(&[("name", s(n)), ("port", Tree::Int(p))]);
        let a = map(&[
            ("replicas", Tree::Int(2)),
            (
                "ports",
                Tree::Array(vec![port("http", 80), port("metrics", 9090)]),
            ),
            ("old", Tree::Bool(true)),
        ]);
        let b = map(&[
            ("replicas", s("2")),
            (
                "ports",
                Tree::Array(vec![
                    port("metrics", 9091),
                    port("http", 80),
                    port("grpc", 50051),
                ]),
            ),
            ("db_password", s("x")),
        ]);
        let changes = diff(&a, &b, &Secrets::default());
        let summary: Vec<(String, ChangeKind)> =
            changes.iter().map(|c| (c.path.clone(), c.kind)).collect();
        assert_eq!(
            summary,
            vec![
                ("replicas".to_string(), ChangeKind::TypeChanged),
                ("ports[name=metrics].port".to_string(), ChangeKind::Changed),
                ("ports[name=grpc]".to_string(), ChangeKind::Added),
                ("old".to_string(), ChangeKind::Removed),
                ("db_password".to_string(), ChangeKind::Added),
            ]
        );
        assert!(changes[4].redacted && changes[4].after.is_none());
    }

    #[test]
    fn arrays_without_identity_go_by_index() {
        let a = Tree::Array(vec![s("a"), s("b")]);
        let b = Tree::Array(vec![s("a"), s("c"), s("d")]);
        let paths: Vec<String> = diff(&a, &b, &Secrets::default())
            .into_iter()
            .map(|c| c.path)
            .collect();
        assert_eq!(paths, vec!["[1]", "[2]"]);
    }
}
