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

use crate::yaml::Value;

use super::json::to_json;

/// The schema of one version of a CRD's kind.
#[derive(Debug, Clone)]
pub struct CrdVersion {
    /// `widgets.example.com`.
    pub crd_name: String,
    /// `example.com/v1`.
    pub api_version: String,
    pub kind: String,
    pub schema: Json,
}

/// The versions a document defines, when it is a CRD (none otherwise).
pub fn versions(doc: &Value, strict: bool) -> Vec<CrdVersion> {
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
    let mut names: Vec<(String, &Json)> = Vec::new();
    match spec["versions"].as_array() {
        Some(vs) => {
            for v in vs {
                if let Some(name) = v["name"].as_str() {
                    let schema = match &v["schema"]["openAPIV3Schema"] {
                        Json::Null => shared,
                        s => s,
                    };
                    names.push((name.to_string(), schema));
                }
            }
        }
        None => {
            if let Some(name) = spec["version"].as_str() {
                names.push((name.to_string(), shared));
            }
        }
    }
    names
        .into_iter()
        .filter(|(_, s)| s.is_object())
        .map(|(version, schema)| CrdVersion {
            crd_name: crd_name.clone(),
            api_version: format!("{group}/{version}"),
            kind: kind.to_string(),
            schema: top(schema, strict),
        })
        .collect()
}

/// The top of a custom resource's schema: converted, with the fields every
/// object has.
fn top(schema: &Json, strict: bool) -> Json {
    let mut s = convert(schema, strict);
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
    s
}

/// OpenAPI v3 (Kubernetes' dialect) -> JSON Schema.
fn convert(schema: &Json, strict: bool) -> Json {
    let Json::Object(obj) = schema else {
        return schema.clone();
    };
    let mut out = Map::new();
    for (k, v) in obj {
        let v = match k.as_str() {
            "properties" | "patternProperties" | "definitions" => match v {
                Json::Object(props) => Json::Object(
                    props
                        .iter()
                        .map(|(name, s)| (name.clone(), convert(s, strict)))
                        .collect(),
                ),
                other => other.clone(),
            },
            "items" | "additionalProperties" | "not" => convert(v, strict),
            "allOf" | "anyOf" | "oneOf" => match v {
                Json::Array(a) => Json::Array(a.iter().map(|s| convert(s, strict)).collect()),
                other => other.clone(),
            },
            _ => v.clone(),
        };
        out.insert(k.clone(), v);
    }
    let flag = |name: &str| obj.get(name).and_then(Json::as_bool) == Some(true);
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
    Json::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Value {
        crate::yaml::parse::parse(&crate::yaml::SourceFile::new("crd.yml", text), false)
            .unwrap()
            .docs
            .remove(0)
            .value
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
        let vs = versions(&parse(CRD), true);
        assert_eq!(vs.len(), 1);
        let v = &vs[0];
        assert_eq!(
            (v.api_version.as_str(), v.kind.as_str(), v.crd_name.as_str()),
            ("example.com/v1", "Widget", "widgets.example.com")
        );
        let spec = &v.schema["properties"]["spec"];
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
        assert_eq!(v.schema["properties"]["kind"], json!({"type": "string"}));
        assert_eq!(v.schema["additionalProperties"], json!(false));
        // not strict: unknown fields allowed
        let loose = versions(&parse(CRD), false);
        assert!(loose[0].schema["properties"]["spec"]
            .get("additionalProperties")
            .is_none());
    }

    #[test]
    fn other_documents_define_nothing() {
        assert!(versions(&parse("apiVersion: v1\nkind: ConfigMap\n"), true).is_empty());
        assert!(versions(
            &parse("kind: CustomResourceDefinition\napiVersion: example.com/v1\n"),
            true
        )
        .is_empty());
        assert!(versions(&parse("- 1\n"), true).is_empty());
    }
}
