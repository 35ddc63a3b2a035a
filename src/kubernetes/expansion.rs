//! How much work validating one object against a schema may take, bounded
//! before the schema is compiled. A validator walks every subschema that
//! applies, following `$ref`s each time it meets them: a 3 KB schema whose
//! definitions each refer twice to the next (`allOf: [{$ref: a2}, {$ref:
//! a2}]`) costs 2^depth per object (depth 30: 18 s; 40: hours), and the
//! validator has no budget of its own. So the schema's expansion (every
//! subschema, each `$ref` counted as the whole of what it names) is
//! counted first, memoised by target, and a schema over
//! [`MAX_EXPANSION`] is refused. Kubernetes' own schemas expand to at most
//! about 2,600 (`pod-v1.json`, 1.37); a reference back to a schema being
//! expanded (a recursive type: JSONSchemaProps) counts once, as its work
//! is bounded by the object's own depth.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

/// The most subschemas one schema may expand to (about 400 times
/// Kubernetes' largest).
pub const MAX_EXPANSION: u64 = 1_000_000;
/// The most `$ref`s followed one inside another.
const MAX_REF_DEPTH: usize = 256;

/// Finds the document a `$ref` names by its file part: `""` is the schema
/// itself; another name is a file beside it (`_definitions.json`), `None`
/// when there is none to read.
pub type Documents<'a> = dyn Fn(&str) -> Option<std::sync::Arc<Value>> + 'a;

/// `Ok` when validating against `schema` stays within [`MAX_EXPANSION`];
/// else why not, for the user.
pub fn within_bound(schema: &Value, documents: &Documents) -> Result<u64, String> {
    let mut walk = Walk {
        documents,
        loaded: HashMap::new(),
        memo: HashMap::new(),
        open: HashSet::new(),
        depth: 0,
    };
    let root = std::sync::Arc::new(schema.clone());
    walk.loaded.insert(String::new(), Some(root.clone()));
    match walk.count("", &root) {
        Some(n) if n <= MAX_EXPANSION => Ok(n),
        _ => Err(format!(
            "validating one object against it would visit more than {MAX_EXPANSION} subschemas (its `$ref`s name the same definitions again and again, or nest more than {MAX_REF_DEPTH} deep): refused"
        )),
    }
}

struct Walk<'a> {
    documents: &'a Documents<'a>,
    loaded: HashMap<String, Option<std::sync::Arc<Value>>>,
    /// `(file, pointer)` -> the expansion of what it names.
    memo: HashMap<(String, String), u64>,
    /// The references being expanded (a reference back to one counts 1).
    open: HashSet<(String, String)>,
    depth: usize,
}

/// Keywords whose values are data, not subschemas.
fn is_data(key: &str) -> bool {
    matches!(
        key,
        "enum"
            | "const"
            | "default"
            | "examples"
            | "description"
            | "title"
            | "required"
            | "type"
            | "format"
            | "pattern"
            | "$id"
            | "$schema"
            | "$comment"
            | "$anchor"
    )
}

impl Walk<'_> {
    /// The expansion of `node`, a part of the document `file`; `None` when
    /// it is over the bound.
    fn count(&mut self, file: &str, node: &Value) -> Option<u64> {
        match node {
            Value::Object(map) => {
                let mut n: u64 = 1;
                for (k, v) in map {
                    let more = if k == "$ref" {
                        match v {
                            Value::String(r) => self.reference(file, r)?,
                            _ => 1,
                        }
                    } else if is_data(k) {
                        0
                    } else {
                        self.count(file, v)?
                    };
                    n = n.checked_add(more).filter(|n| *n <= MAX_EXPANSION)?;
                }
                Some(n)
            }
            Value::Array(items) => {
                let mut n: u64 = 0;
                for v in items {
                    n = n
                        .checked_add(self.count(file, v)?)
                        .filter(|n| *n <= MAX_EXPANSION)?;
                }
                Some(n)
            }
            _ => Some(0),
        }
    }

    /// The expansion of what `$ref: r` (in `file`) names.
    fn reference(&mut self, file: &str, r: &str) -> Option<u64> {
        let (target_file, pointer) = r.split_once('#').unwrap_or((r, ""));
        // a reference to another file is by its name, beside this one
        let target_file = if target_file.is_empty() {
            file.to_string()
        } else {
            target_file.rsplit('/').next().unwrap_or("").to_string()
        };
        let key = (target_file.clone(), pointer.to_string());
        if let Some(n) = self.memo.get(&key) {
            return Some(*n);
        }
        if self.open.contains(&key) {
            return Some(1);
        }
        if self.depth >= MAX_REF_DEPTH {
            return None;
        }
        let document = match self.loaded.get(&target_file) {
            Some(d) => d.clone(),
            None => {
                let d = (self.documents)(&target_file);
                self.loaded.insert(target_file.clone(), d.clone());
                d
            }
        };
        // what cannot be found is the validator's error to give
        let Some(document) = document else {
            return Some(1);
        };
        let Some(target) = (if pointer.is_empty() {
            Some(&*document)
        } else {
            document.pointer(pointer)
        }) else {
            return Some(1);
        };
        self.open.insert(key.clone());
        self.depth += 1;
        let n = self.count(&target_file, target);
        self.depth -= 1;
        self.open.remove(&key);
        let n = n?;
        self.memo.insert(key, n);
        Some(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Definitions `a0`..`a{depth}`, each referring twice to the next.
    fn chain(depth: usize) -> Value {
        let mut defs = serde_json::Map::new();
        for i in 0..depth {
            let next = format!("#/$defs/a{}", i + 1);
            defs.insert(
                format!("a{i}"),
                serde_json::json!({"allOf": [{"$ref": next}, {"$ref": next}]}),
            );
        }
        defs.insert(format!("a{depth}"), serde_json::json!({"type": "object"}));
        serde_json::json!({"$defs": defs, "$ref": "#/$defs/a0"})
    }

    #[test]
    fn a_doubling_chain_of_references_is_refused_and_a_short_one_is_not() {
        let none = |_: &str| None;
        assert!(within_bound(&chain(10), &none).is_ok());
        let e = within_bound(&chain(30), &none).unwrap_err();
        assert!(e.contains("more than 1000000 subschemas"), "{e}");
        // fast, whatever the depth: each definition is counted once
        let t = std::time::Instant::now();
        assert!(within_bound(&chain(10_000), &none).is_err());
        assert!(t.elapsed().as_secs() < 5);
    }

    #[test]
    fn a_recursive_type_counts_its_reference_back_once() {
        let none = |_: &str| None;
        let s = serde_json::json!({
            "$defs": {"props": {"properties": {"items": {"$ref": "#/$defs/props"}, "allOf": {"items": {"$ref": "#/$defs/props"}}}}},
            "$ref": "#/$defs/props"
        });
        let n = within_bound(&s, &none).unwrap();
        assert!(n < 40, "{n}");
    }

    #[test]
    fn references_into_a_file_beside_it_are_followed() {
        let defs = std::sync::Arc::new(chain(30));
        let files = move |name: &str| (name == "_definitions.json").then(|| defs.clone());
        let s =
            serde_json::json!({"$ref": "https://kubernetes.io/api/_definitions.json#/$defs/a0"});
        assert!(within_bound(&s, &files).is_err());
    }
}
