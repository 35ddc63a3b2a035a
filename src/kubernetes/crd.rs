//! A CustomResourceDefinition turned into the JSON schemas of its versions,
//! so a package that ships its CRDs validates its own custom resources.
//!
//! A CRD's `openAPIV3Schema` is OpenAPI's dialect of JSON Schema; what
//! differs is made explicit, as kubeconform's `openapi2jsonschema` does:
//! `nullable: true` admits null, `x-kubernetes-int-or-string` admits an
//! integer or a string, and under strict an object that lists its
//! properties (and does not `x-kubernetes-preserve-unknown-fields`) gets
//! `additionalProperties: false`. `apiVersion`, `kind` and `metadata` are
//! always allowed at the top, as the API server allows them.

use serde_json::{json, Map, Value as Json};

use crate::yaml::{Pos, Value};

use super::json::to_json;

/// The deepest a CRD's schema may nest schemas (`properties`, `items`,
/// `allOf`...). Real CRDs nest a few dozen levels; compiling a schema costs
/// memory in the square of its depth (each level keeps its whole path), so a
/// CRD of thousands of levels would take gigabytes.
pub const MAX_SCHEMA_DEPTH: usize = 128;

/// The `format`s checked in a CRD's schema: those the API server checks as
/// JSON Schema does.
const CHECKED_FORMATS: &[&str] = &["ipv4", "ipv6", "uuid", "date"];

/// The schema of one version of a CRD's kind.
#[derive(Debug, Clone)]
pub struct CrdVersion {
    /// `widgets.example.com`.
    pub crd_name: String,
    /// `example.com/v1`.
    pub api_version: String,
    pub kind: String,
    /// The JSON schema, or why the CRD's schema cannot be used (it nests
    /// too deep): its resources are then not checked, and the finding is at
    /// the CRD's line.
    pub schema: Result<Json, String>,
    /// Where the CRD's document starts.
    pub pos: Pos,
    /// The CRD marks this version `deprecated: true` (with its
    /// `deprecationWarning`, when it has one).
    pub deprecated: Option<Option<String>>,
}

/// The API groups Kubernetes serves itself (the core group is `v1`'s, with
/// no group): a CRD of one of them never replaces a built-in kind.
const BUILT_IN_GROUPS: &[&str] = &[
    "admissionregistration.k8s.io",
    "apiextensions.k8s.io",
    "apiregistration.k8s.io",
    "apps",
    "authentication.k8s.io",
    "authorization.k8s.io",
    "autoscaling",
    "batch",
    "certificates.k8s.io",
    "coordination.k8s.io",
    "core",
    "discovery.k8s.io",
    "events.k8s.io",
    "extensions",
    "flowcontrol.apiserver.k8s.io",
    "internal.apiserver.k8s.io",
    "networking.k8s.io",
    "node.k8s.io",
    "policy",
    "rbac.authorization.k8s.io",
    "resource.k8s.io",
    "scheduling.k8s.io",
    "storage.k8s.io",
    "storagemigration.k8s.io",
];

/// Whether `api_version` (`group/version`, or `version` for the core
/// group) is one Kubernetes serves itself.
pub fn is_built_in_group(api_version: &str) -> bool {
    match api_version.split_once('/') {
        None => true,
        Some((group, _)) => group.is_empty() || BUILT_IN_GROUPS.contains(&group),
    }
}

/// The versions a document defines, when it is a CRD (none otherwise).
pub fn versions(doc: &Value, pos: &Pos, strict: bool) -> Vec<CrdVersion> {
    let json = match doc {
        Value::Map(m) => {
            let is_crd = matches!(m.get("kind").map(|i| &i.value), Some(Value::Str(k)) if &**k == "CustomResourceDefinition")
                && matches!(m.get("apiVersion").map(|i| &i.value), Some(Value::Str(a)) if a.starts_with("apiextensions.k8s.io/"));
            if !is_crd {
                return Vec::new();
            }
            to_json(doc)
        }
        _ => return Vec::new(),
    };
    let spec = &json["spec"];
    let (Some(group), Some(kind)) = (spec["group"].as_str(), spec["names"]["kind"].as_str()) else {
        return Vec::new();
    };
    let crd_name = json["metadata"]["name"]
        .as_str()
        .unwrap_or(kind)
        .to_string();
    let shared = &spec["validation"]["openAPIV3Schema"];
    let mut names: Vec<(String, &Json, Option<Option<String>>)> = Vec::new();
    match spec["versions"].as_array() {
        Some(vs) => {
            for v in vs {
                if let Some(name) = v["name"].as_str() {
                    let schema = match &v["schema"]["openAPIV3Schema"] {
                        Json::Null => shared,
                        s => s,
                    };
                    let deprecated = (v["deprecated"].as_bool() == Some(true))
                        .then(|| v["deprecationWarning"].as_str().map(str::to_string));
                    names.push((name.to_string(), schema, deprecated));
                }
            }
        }
        None => {
            if let Some(name) = spec["version"].as_str() {
                names.push((name.to_string(), shared, None));
            }
        }
    }
    names
        .into_iter()
        .filter(|(_, s, _)| s.is_object())
        .map(|(version, schema, deprecated)| CrdVersion {
            crd_name: crd_name.clone(),
            api_version: format!("{group}/{version}"),
            kind: kind.to_string(),
            schema: top(schema, strict)
                .ok_or_else(|| format!("its schema nests deeper than {MAX_SCHEMA_DEPTH} levels")),
            pos: pos.clone(),
            deprecated,
        })
        .collect()
}

/// The top of a custom resource's schema: converted, with the fields every
/// object has (none when it nests deeper than [`MAX_SCHEMA_DEPTH`]).
fn top(schema: &Json, strict: bool) -> Option<Json> {
    let mut s = convert(schema, strict, 0)?;
    if let Some(obj) = s.as_object_mut() {
        let props = obj
            .entry("properties")
            .or_insert_with(|| Json::Object(Map::new()));
        if let Some(props) = props.as_object_mut() {
            props
                .entry("apiVersion")
                .or_insert(json!({"type": "string"}));
            props.entry("kind").or_insert(json!({"type": "string"}));
            props.entry("metadata").or_insert(json!({"type": "object"}));
        }
    }
    Some(s)
}

/// OpenAPI v3 (Kubernetes' dialect) -> JSON Schema; none when it nests
/// deeper than [`MAX_SCHEMA_DEPTH`] (`depth` is this schema's).
fn convert(schema: &Json, strict: bool, depth: usize) -> Option<Json> {
    let Json::Object(obj) = schema else {
        return Some(schema.clone());
    };
    if depth >= MAX_SCHEMA_DEPTH {
        return None;
    }
    let below = |s: &Json| convert(s, strict, depth + 1);
    let mut out = Map::new();
    for (k, v) in obj {
        let v = match k.as_str() {
            "properties" | "patternProperties" | "definitions" => match v {
                Json::Object(props) => Json::Object(
                    props
                        .iter()
                        .map(|(name, s)| Some((name.clone(), below(s)?)))
                        .collect::<Option<_>>()?,
                ),
                other => other.clone(),
            },
            "items" | "additionalProperties" | "not" => below(v)?,
            "allOf" | "anyOf" | "oneOf" => match v {
                Json::Array(a) => Json::Array(a.iter().map(below).collect::<Option<_>>()?),
                other => other.clone(),
            },
            _ => v.clone(),
        };
        out.insert(k.clone(), v);
    }
    let flag = |name: &str| obj.get(name).and_then(Json::as_bool) == Some(true);
    // OpenAPI 3.0: `exclusiveMaximum: true` qualifies `maximum`; JSON
    // Schema's is the bound itself
    for (exclusive, bound) in [
        ("exclusiveMaximum", "maximum"),
        ("exclusiveMinimum", "minimum"),
    ] {
        match out.get(exclusive) {
            Some(Json::Bool(true)) => match out.remove(bound) {
                Some(b) => {
                    out.insert(exclusive.into(), b);
                }
                None => {
                    out.remove(exclusive);
                }
            },
            Some(Json::Bool(false)) => {
                out.remove(exclusive);
            }
            _ => {}
        }
    }
    // formats the API server checks as JSON Schema does; the others it
    // checks otherwise (`duration` is Go's, `date-time` has more forms) or
    // not at all, and are not checked here
    if let Some(Json::String(f)) = out.get("format") {
        if !CHECKED_FORMATS.contains(&f.as_str()) {
            out.remove("format");
        }
    }
    // `x-kubernetes-list-type: set`: the server refuses a duplicate item
    // (`map` lists' keys are checked by `structural`)
    if obj.get("x-kubernetes-list-type").and_then(Json::as_str) == Some("set") {
        out.insert("uniqueItems".into(), Json::Bool(true));
    }
    // an embedded resource is an object with its own apiVersion, kind and
    // metadata, whatever its schema lists
    if flag("x-kubernetes-embedded-resource") {
        let props = out
            .entry("properties")
            .or_insert_with(|| Json::Object(Map::new()));
        if let Some(props) = props.as_object_mut() {
            props
                .entry("apiVersion")
                .or_insert(json!({"type": "string"}));
            props.entry("kind").or_insert(json!({"type": "string"}));
            props.entry("metadata").or_insert(json!({"type": "object"}));
        }
    }
    if flag("x-kubernetes-int-or-string") {
        out.remove("type");
        out.insert(
            "anyOf".into(),
            json!([{"type": "integer"}, {"type": "string"}]),
        );
    }
    if flag("nullable") {
        match out.get("type").cloned() {
            Some(Json::String(t)) => {
                out.insert("type".into(), json!([t, "null"]));
            }
            Some(Json::Array(mut ts)) => {
                if !ts.contains(&json!("null")) {
                    ts.push(json!("null"));
                }
                out.insert("type".into(), Json::Array(ts));
            }
            _ => {}
        }
        if let Some(Json::Array(e)) = out.get_mut("enum") {
            if !e.contains(&Json::Null) {
                e.push(Json::Null);
            }
        }
    }
    if strict
        && out.contains_key("properties")
        && !out.contains_key("additionalProperties")
        && !flag("x-kubernetes-preserve-unknown-fields")
    {
        out.insert("additionalProperties".into(), Json::Bool(false));
    }
    Some(Json::Object(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> (Value, Pos) {
        let d = crate::yaml::parse::parse(&crate::yaml::SourceFile::new("crd.yml", text), false)
            .unwrap()
            .docs
            .remove(0);
        (d.value, d.pos)
    }

    fn versions(text: &str, strict: bool) -> Vec<CrdVersion> {
        let (v, pos) = parse(text);
        super::versions(&v, &pos, strict)
    }

    const CRD: &str = "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [size]
            properties:
              size: {type: integer}
              port: {x-kubernetes-int-or-string: true}
              note: {type: string, nullable: true}
              extra: {type: object, x-kubernetes-preserve-unknown-fields: true, properties: {a: {type: string}}}
";

    #[test]
    fn a_crd_gives_its_versions_schema_with_openapis_dialect_made_explicit() {
        let vs = versions(CRD, true);
        assert_eq!(vs.len(), 1);
        let v = &vs[0];
        assert_eq!(
            (v.api_version.as_str(), v.kind.as_str(), v.crd_name.as_str()),
            ("example.com/v1", "Widget", "widgets.example.com")
        );
        let schema = v.schema.as_ref().unwrap();
        let spec = &schema["properties"]["spec"];
        assert_eq!(spec["additionalProperties"], json!(false));
        assert_eq!(
            spec["properties"]["port"]["anyOf"],
            json!([{"type": "integer"}, {"type": "string"}])
        );
        assert_eq!(
            spec["properties"]["note"]["type"],
            json!(["string", "null"])
        );
        assert!(spec["properties"]["extra"]
            .get("additionalProperties")
            .is_none());
        assert_eq!(schema["properties"]["kind"], json!({"type": "string"}));
        assert_eq!(schema["additionalProperties"], json!(false));
        // not strict: unknown fields allowed
        let loose = versions(CRD, false);
        assert!(loose[0].schema.as_ref().unwrap()["properties"]["spec"]
            .get("additionalProperties")
            .is_none());
    }

    #[test]
    fn other_documents_define_nothing() {
        assert!(versions("apiVersion: v1\nkind: ConfigMap\n", true).is_empty());
        assert!(versions(
            "kind: CustomResourceDefinition\napiVersion: example.com/v1\n",
            true
        )
        .is_empty());
        assert!(versions("- 1\n", true).is_empty());
    }

    /// A CRD nesting thousands of levels (160 KB of YAML) took 695 MB to
    /// compile: its schema is refused before, with the CRD's position.
    #[test]
    fn a_crd_nesting_deeper_than_the_bound_is_refused_at_its_line() {
        let nest = |levels: usize| {
            let mut s = String::from("{type: string}");
            for _ in 0..levels {
                s = format!("{{type: object, properties: {{a: {s}}}}}");
            }
            format!(
                "# a comment\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {{name: deep.example.com}}\nspec:\n  group: example.com\n  names: {{kind: Deep, plural: deeps}}\n  versions:\n  - name: v1\n    schema:\n      openAPIV3Schema: {s}\n"
            )
        };
        let ok = versions(&nest(MAX_SCHEMA_DEPTH - 2), true);
        assert!(ok[0].schema.is_ok());
        // YAML this deep is parsed on the big stacks evaluation runs on
        std::thread::Builder::new()
            .stack_size(64 << 20)
            .spawn(move || {
                let deep = versions(&nest(4_900), true);
                let e = deep[0].schema.as_ref().unwrap_err();
                assert!(e.contains("nests deeper than"), "{e}");
                assert_eq!(deep[0].pos.line(), 1);
            })
            .unwrap()
            .join()
            .unwrap();
    }
}
