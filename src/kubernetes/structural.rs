//! What the API server does to a custom resource before and beside its
//! schema's validation, on the CRD's structural schema: null values of
//! fields that are not nullable are pruned, then defaults are applied
//! (`default:` of each property the object lacks, at every depth), so a
//! field the CRD defaults is not "missing" and a `null` is not reported
//! twice (by type and by enum); and the keys of `x-kubernetes-list-type:
//! map` lists are unique (the server refuses a duplicate).
//!
//! The schema is the converted one of [`super::crd`] (its `nullable` and
//! `x-kubernetes-*` keys are kept beside the JSON Schema they became).

use serde_json::Value as Json;

/// How deep the walk goes (the schema's own depth is bounded by
/// [`super::crd::MAX_SCHEMA_DEPTH`]; an instance may nest deeper, where
/// nothing is defaulted).
const MAX_DEPTH: usize = super::crd::MAX_SCHEMA_DEPTH + 2;

/// Prunes nulls the schema does not allow, then applies defaults, as the
/// API server does before it validates.
pub fn prune_and_default(schema: &Json, instance: &mut Json) {
    walk(schema, instance, 0);
}

fn nullable(schema: &Json) -> bool {
    schema.get("nullable").and_then(Json::as_bool) == Some(true)
        || schema
            .get("x-kubernetes-preserve-unknown-fields")
            .and_then(Json::as_bool)
            == Some(true)
            && schema.get("type").is_none()
}

fn walk(schema: &Json, instance: &mut Json, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    match instance {
        Json::Object(map) => {
            let props = schema.get("properties").and_then(Json::as_object);
            let additional = schema.get("additionalProperties").filter(|a| a.is_object());
            // prune: a null where the field's schema does not allow it
            map.retain(|k, v| {
                if !v.is_null() {
                    return true;
                }
                match props.and_then(|p| p.get(k)).or(additional) {
                    Some(s) => nullable(s),
                    None => true,
                }
            });
            // default: each property the object lacks that has a default
            if let Some(props) = props {
                for (k, s) in props {
                    if !map.contains_key(k) {
                        if let Some(d) = s.get("default") {
                            map.insert(k.clone(), d.clone());
                        }
                    }
                }
            }
            for (k, v) in map.iter_mut() {
                if let Some(s) = props.and_then(|p| p.get(k)).or(additional) {
                    walk(s, v, depth + 1);
                }
            }
        }
        Json::Array(items) => {
            if let Some(s) = schema.get("items").filter(|s| s.is_object()) {
                for item in items.iter_mut() {
                    walk(s, item, depth + 1);
                }
            }
        }
        _ => {}
    }
}

/// The items of `x-kubernetes-list-type: map` lists whose keys repeat an
/// earlier item's: (path to the item, the key fields, the earlier item's
/// index). No value is named (a value may be a secret).
pub fn duplicate_map_keys(schema: &Json, instance: &Json) -> Vec<Duplicate> {
    let mut out = Vec::new();
    let mut path = Vec::new();
    duplicates(schema, instance, &mut path, &mut out, 0);
    out
}

/// An item of a map list whose keys repeat an earlier item's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Duplicate {
    pub path: Vec<PathPart>,
    /// The list's key fields (`name, protocol`).
    pub keys: String,
    /// The earlier item with the same keys.
    pub first: usize,
}

/// A step of a path into an instance.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PathPart {
    Key(String),
    Index(usize),
}

fn duplicates(
    schema: &Json,
    instance: &Json,
    path: &mut Vec<PathPart>,
    out: &mut Vec<Duplicate>,
    depth: usize,
) {
    if depth > MAX_DEPTH {
        return;
    }
    match instance {
        Json::Object(map) => {
            let props = schema.get("properties").and_then(Json::as_object);
            let additional = schema.get("additionalProperties").filter(|a| a.is_object());
            for (k, v) in map {
                if let Some(s) = props.and_then(|p| p.get(k)).or(additional) {
                    path.push(PathPart::Key(k.clone()));
                    duplicates(s, v, path, out, depth + 1);
                    path.pop();
                }
            }
        }
        Json::Array(items) => {
            let is_map = schema.get("x-kubernetes-list-type").and_then(Json::as_str) == Some("map");
            let keys: Vec<&str> = schema
                .get("x-kubernetes-list-map-keys")
                .and_then(Json::as_array)
                .map(|k| k.iter().filter_map(Json::as_str).collect())
                .unwrap_or_default();
            if is_map && !keys.is_empty() {
                let mut seen: Vec<Vec<Option<&Json>>> = Vec::new();
                for (i, item) in items.iter().enumerate() {
                    let tuple: Vec<Option<&Json>> = keys.iter().map(|k| item.get(*k)).collect();
                    match seen.iter().position(|t| *t == tuple) {
                        Some(first) => {
                            let mut at = path.clone();
                            at.push(PathPart::Index(i));
                            out.push(Duplicate {
                                path: at,
                                keys: keys.join(", "),
                                first,
                            });
                        }
                        None => seen.push(tuple),
                    }
                }
            }
            if let Some(s) = schema.get("items").filter(|s| s.is_object()) {
                for (i, item) in items.iter().enumerate() {
                    path.push(PathPart::Index(i));
                    duplicates(s, item, path, out, depth + 1);
                    path.pop();
                }
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn nulls_are_pruned_where_not_nullable_then_defaults_applied() {
        let schema = json!({
            "type": "object",
            "properties": {
                "managementState": {"type": "string", "default": "Managed", "enum": ["Managed", "Unmanaged"]},
                "gateway": {"type": "object", "properties": {
                    "ingress": {"type": "object", "properties": {
                        "type": {"type": "string", "enum": ["ingress", "route"]},
                        "host": {"type": ["string", "null"], "nullable": true}
                    }}
                }},
                "items": {"type": "array", "items": {"type": "object", "properties": {
                    "port": {"type": "integer", "default": 80}
                }}}
            }
        });
        let mut instance = json!({
            "gateway": {"ingress": {"type": null, "host": null}},
            "items": [{}, {"port": 8080}]
        });
        prune_and_default(&schema, &mut instance);
        assert_eq!(
            instance,
            json!({
                "managementState": "Managed",
                "gateway": {"ingress": {"host": null}},
                "items": [{"port": 80}, {"port": 8080}]
            })
        );
    }

    #[test]
    fn a_map_lists_keys_repeated_are_found() {
        let schema = json!({"type": "object", "properties": {"ports": {
            "type": "array",
            "x-kubernetes-list-type": "map",
            "x-kubernetes-list-map-keys": ["name", "protocol"],
            "items": {"type": "object"}
        }}});
        let instance = json!({"ports": [
            {"name": "http", "protocol": "TCP"},
            {"name": "http", "protocol": "UDP"},
            {"name": "http", "protocol": "TCP"}
        ]});
        let d = duplicate_map_keys(&schema, &instance);
        assert_eq!(
            d,
            vec![Duplicate {
                path: vec![PathPart::Key("ports".into()), PathPart::Index(2)],
                keys: "name, protocol".to_string(),
                first: 0,
            }]
        );
    }
}
