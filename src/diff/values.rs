//! Structural diff of final data values: maps by key, arrays of maps by an
//! identifying key (`name`, `id`, `key`) when every item has it and it is
//! unique, otherwise by index.

use serde::Serialize;

pub use crate::secrets::Secrets;
use crate::yaml::Value;

/// A data value, detached from positions and annotations. In JSON a map is
/// an object (its keys in order), not a list of pairs.
#[derive(Debug, Clone, PartialEq)]
pub enum Tree {
    Null,
    Bool(bool),
    Int(i128),
    Float(f64),
    Str(String),
    Map(Vec<(String, Tree)>),
    Array(Vec<Tree>),
    /// A secret's value, left out (printed and serialized as
    /// `(value not shown)`).
    Hidden(Hidden),
}

impl Serialize for Tree {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        match self {
            Tree::Null => s.serialize_unit(),
            Tree::Bool(b) => s.serialize_bool(*b),
            Tree::Int(i) => s.serialize_i128(*i),
            Tree::Float(f) => s.serialize_f64(*f),
            Tree::Str(v) => s.serialize_str(v),
            Tree::Map(items) => {
                let mut m = s.serialize_map(Some(items.len()))?;
                for (k, v) in items {
                    m.serialize_entry(k, v)?;
                }
                m.end()
            }
            Tree::Array(items) => s.collect_seq(items),
            Tree::Hidden(h) => h.serialize(s),
        }
    }
}

/// The marker of a value left out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hidden;

impl Serialize for Hidden {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(crate::secrets::HIDDEN)
    }
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
            Tree::Hidden(_) => "hidden",
        }
    }

    /// The tree with the value of every secret-looking key left out, at
    /// every depth (maps in arrays in maps...): what a change may show of
    /// a map or array added, removed or changed whole.
    pub fn redacted(&self, secrets: &Secrets) -> Tree {
        match self {
            Tree::Map(items) => Tree::Map(
                items
                    .iter()
                    .map(|(k, v)| {
                        let v = if secrets.is_secret(k) {
                            Tree::Hidden(Hidden)
                        } else {
                            v.redacted(secrets)
                        };
                        (k.clone(), v)
                    })
                    .collect(),
            ),
            Tree::Array(items) => Tree::Array(items.iter().map(|t| t.redacted(secrets)).collect()),
            // a secret value, whole or inside a string (an env var, an
            // embedded config), and an embedded document's secret keys
            Tree::Str(text) => match secrets.mask_text(text) {
                None => Tree::Hidden(Hidden),
                Some(masked) => Tree::Str(masked.into_owned()),
            },
            other => other.clone(),
        }
    }

    /// The values under secret-looking keys (at any depth below one), as
    /// text: what must not print wherever it turns up.
    pub fn secret_values(&self, secrets: &Secrets, under_secret: bool, out: &mut Vec<String>) {
        match self {
            Tree::Map(items) => {
                for (k, v) in items {
                    v.secret_values(secrets, under_secret || secrets.is_secret(k), out);
                }
            }
            Tree::Array(items) => {
                for v in items {
                    v.secret_values(secrets, under_secret, out);
                }
            }
            Tree::Str(s) if under_secret => out.push(s.clone()),
            Tree::Int(i) if under_secret => out.push(i.to_string()),
            _ => {}
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
            Tree::Hidden(_) => crate::secrets::HIDDEN.into(),
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
    /// A multi-line string changed: its line diff (`@@ line N @@`, `  kept`,
    /// `- old`, `+ new`; see [`super::bound::line_diff`]) in place of
    /// `before` and `after`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub lines: Vec<String>,
}

const ID_KEYS: &[&str] = &["name", "id", "key"];

/// The key that identifies the maps of both arrays, if there is one. A
/// secret-looking key (`key` is one) never does: its values would be
/// printed in the paths.
fn identity_key(a: &[Tree], b: &[Tree], secrets: &Secrets) -> Option<&'static str> {
    if a.is_empty() && b.is_empty() {
        return None;
    }
    ID_KEYS
        .iter()
        .copied()
        .filter(|k| !secrets.is_secret(k))
        .find(|k| {
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
    // every value printed whole is cut (see `bound`)
    for c in &mut out {
        for t in [&mut c.before, &mut c.after].into_iter().flatten() {
            *t = cut_tree(t);
        }
        if c.path.len() > super::bound::MAX_LINE_CHARS {
            c.path = super::bound::cut_str(&c.path, super::bound::MAX_LINE_CHARS).into_owned();
        }
    }
    out
}

fn walk(path: &str, a: &Tree, b: &Tree, secret: bool, secrets: &Secrets, out: &mut Vec<Change>) {
    // a multi-line string changed is shown as a line diff of its raw
    // lines, each masked (a changed secret line still shows its key)
    if let (Tree::Str(x), Tree::Str(y)) = (a, b) {
        if !secret && x != y {
            if let Some(lines) = super::bound::line_diff(x, y, secrets) {
                out.push(Change {
                    path: path.to_string(),
                    kind: ChangeKind::Changed,
                    before: None,
                    after: None,
                    redacted: false,
                    lines,
                });
                return;
            }
        }
    }
    let change = |kind, before: Option<&Tree>, after: Option<&Tree>| Change {
        path: path.to_string(),
        kind,
        before: if secret {
            None
        } else {
            before.map(|t| t.redacted(secrets))
        },
        after: if secret {
            None
        } else {
            after.map(|t| t.redacted(secrets))
        },
        redacted: secret,
        lines: Vec::new(),
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
                        before: if s { None } else { Some(va.redacted(secrets)) },
                        after: None,
                        redacted: s,
                        lines: Vec::new(),
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
                        after: if s { None } else { Some(vb.redacted(secrets)) },
                        redacted: s,
                        lines: Vec::new(),
                    });
                }
            }
        }
        (Tree::Array(x), Tree::Array(y)) => match identity_key(x, y, secrets) {
            Some(key) => {
                let id = |t: &Tree| t.get(key).map(Tree::short).unwrap_or_default();
                // an identity printed in a path is a value too: a secret one
                // is not shown (`upstreams[name=(value not shown)]`)
                let shown = |t: &Tree| match t.get(key).map(|i| i.redacted(secrets)) {
                    Some(Tree::Hidden(_)) => crate::secrets::HIDDEN.to_string(),
                    _ => id(t),
                };
                // an item named like a secret (`env[name=DB_PASSWORD]`) holds one
                let named_secret =
                    |t: &Tree| matches!(t.get(key), Some(Tree::Str(n)) if secrets.is_secret(n));
                for va in x {
                    let p = format!("{path}[{key}={}]", shown(va));
                    match y.iter().find(|vb| id(vb) == id(va)) {
                        Some(vb) => walk(&p, va, vb, secret || named_secret(va), secrets, out),
                        None => out.push(Change {
                            path: p,
                            kind: ChangeKind::Removed,
                            before: (!(secret || named_secret(va))).then(|| va.redacted(secrets)),
                            after: None,
                            redacted: secret || named_secret(va),
                            lines: Vec::new(),
                        }),
                    }
                }
                for vb in y {
                    if !x.iter().any(|va| id(va) == id(vb)) {
                        let hide = secret || named_secret(vb);
                        out.push(Change {
                            path: format!("{path}[{key}={}]", shown(vb)),
                            kind: ChangeKind::Added,
                            before: None,
                            after: (!hide).then(|| vb.redacted(secrets)),
                            redacted: hide,
                            lines: Vec::new(),
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
                            before: (!secret).then(|| va.redacted(secrets)),
                            after: None,
                            redacted: secret,
                            lines: Vec::new(),
                        }),
                        (None, Some(vb)) => out.push(Change {
                            path: p,
                            kind: ChangeKind::Added,
                            before: None,
                            after: (!secret).then(|| vb.redacted(secrets)),
                            redacted: secret,
                            lines: Vec::new(),
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

/// `t` as it may be printed: strings cut at [`super::bound::MAX_VALUE_CHARS`], and past
/// [`super::bound::MAX_TREE_CHARS`] in all, the remaining items of each collection
/// counted in one marker (`"… (cut: 1200 more items)"`).
pub fn cut_tree(t: &Tree) -> Tree {
    let mut budget = super::bound::MAX_TREE_CHARS;
    cut_within(t, &mut budget)
}

fn cut_within(t: &Tree, budget: &mut usize) -> Tree {
    match t {
        Tree::Str(s) => {
            let cut =
                super::bound::cut_str(s, super::bound::MAX_VALUE_CHARS.min((*budget).max(16)));
            *budget = budget.saturating_sub(cut.len());
            Tree::Str(cut.into_owned())
        }
        Tree::Map(items) => {
            let mut out = Vec::new();
            for (i, (k, v)) in items.iter().enumerate() {
                if *budget == 0 {
                    out.push((
                        "…".to_string(),
                        Tree::Str(format!("(cut: {} more keys)", items.len() - i)),
                    ));
                    break;
                }
                let key = super::bound::cut_str(k, super::bound::MAX_LINE_CHARS).into_owned();
                *budget = budget.saturating_sub(key.len() + 2);
                out.push((key, cut_within(v, budget)));
            }
            Tree::Map(out)
        }
        Tree::Array(items) => {
            let mut out = Vec::new();
            for (i, v) in items.iter().enumerate() {
                if *budget == 0 {
                    out.push(Tree::Str(format!(
                        "… (cut: {} more items)",
                        items.len() - i
                    )));
                    break;
                }
                *budget = budget.saturating_sub(2);
                out.push(cut_within(v, budget));
            }
            Tree::Array(out)
        }
        other => {
            *budget = budget.saturating_sub(8);
            other.clone()
        }
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
    fn secrets_stay_out_of_changes_whatever_their_shape_and_depth() {
        let secrets = Secrets::default();
        let db = map(&[
            ("host", s("db.qa")),
            ("password", s("qa-pw")),
            (
                "replicas",
                Tree::Array(vec![map(&[("name", s("r1")), ("apiToken", s("tok-1"))])]),
            ),
        ]);
        let empty = map(&[]);
        let with_db = map(&[("database", db.clone())]);
        let typed = map(&[("database", s("none"))]);
        // added whole, removed whole, type changed, inside arrays
        let keyed = |v: Tree| map(&[("items", Tree::Array(vec![v]))]);
        for (a, b) in [
            (&empty, &with_db),
            (&with_db, &empty),
            (&typed, &with_db),
            (&with_db, &typed),
            (
                &keyed(map(&[("key", s("k-secret"))])),
                &keyed(map(&[("key", s("k2-secret"))])),
            ),
        ] {
            let changes = diff(a, b, &secrets);
            assert!(!changes.is_empty());
            let all = serde_json::to_string(&changes).unwrap();
            for leaked in ["qa-pw", "tok-1", "k-secret", "k2-secret"] {
                assert!(!all.contains(leaked), "{all}");
            }
            for c in &changes {
                for t in [&c.before, &c.after].into_iter().flatten() {
                    assert!(!t.short().contains("qa-pw"), "{}", t.short());
                }
            }
        }
        // what is not secret is still shown
        let added = diff(&empty, &with_db, &secrets);
        let shown = added[0].after.as_ref().unwrap().short();
        assert!(
            shown.contains("db.qa") && shown.contains("(value not shown)"),
            "{shown}"
        );
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

    #[test]
    fn a_value_printed_whole_is_cut() {
        let big = Tree::Str("y".repeat(1_000_000));
        let Tree::Str(cut) = cut_tree(&big) else {
            panic!()
        };
        assert!(
            cut.ends_with("… (cut: 1000000 characters in all)"),
            "{}",
            &cut[cut.len() - 60..]
        );
        assert!(cut.len() < 2_100);
        let many = Tree::Array((0..100_000).map(Tree::Int).collect());
        let Tree::Array(items) = cut_tree(&many) else {
            panic!()
        };
        assert!(items.len() < 2_000, "{}", items.len());
        assert!(matches!(items.last(), Some(Tree::Str(s)) if s.contains("more items)")));
        // a change carries its values cut
        let c = diff(
            &map(&[("a", s("1"))]),
            &map(&[("a", big.clone())]),
            &Secrets::default(),
        );
        assert!(c[0].after.as_ref().unwrap().short().len() < 2_100);
    }
}
