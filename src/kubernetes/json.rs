//! A rendered YAML value as the JSON the API server receives.

use serde_json::Value as Json;

use crate::yaml::Value;

/// A rendered YAML value as the JSON Kubernetes receives (keys as
/// strings, bytes as base64, as `ytt | kubectl` sends them).
pub fn to_json(v: &Value) -> Json {
    match v {
        Value::Null => Json::Null,
        Value::Bool(b) => Json::Bool(*b),
        Value::Int(i) => Json::from(*i),
        Value::UInt(u) => Json::from(*u),
        Value::Float(f) => serde_json::Number::from_f64(*f)
            .map(Json::Number)
            .unwrap_or_else(|| Json::String(f.to_string())),
        Value::Str(s) => Json::String(s.to_string()),
        Value::Binary(b) => {
            use base64::Engine;
            Json::String(base64::engine::general_purpose::STANDARD.encode(b))
        }
        Value::Map(m) => Json::Object(
            m.items
                .iter()
                .map(|i| {
                    let key = match &i.key {
                        Value::Str(s) => s.to_string(),
                        other => other.scalar_display(),
                    };
                    (key, to_json(&i.value))
                })
                .collect(),
        ),
        Value::Array(a) => Json::Array(a.items.iter().map(|i| to_json(&i.value)).collect()),
    }
}
