//! `@ytt:yaml`, `@ytt:json`, `@ytt:base64`, `@ytt:sha256`, `@ytt:md5`.

use std::sync::OnceLock;

use base64::Engine;
use starlark::environment::{FrozenModule, GlobalsBuilder};
use starlark::eval::Evaluator;
use starlark::starlark_module;
use starlark::values::tuple::UnpackTuple;
use starlark::values::Value;

use crate::template::runtime::convert::{from_yaml, MapAs};
use crate::template::runtime::convert::{yaml_decode, yaml_encode};
use crate::template::runtime::current_store;
use crate::yaml::print::format_float;
use crate::yaml::Value as YValue;

use super::{err, static_module};

fn one_arg<'v>(name: &str, args: &UnpackTuple<Value<'v>>) -> starlark::Result<Value<'v>> {
    if args.items.len() != 1 {
        return Err(err(format!("{name}: expected exactly one argument")));
    }
    Ok(args.items[0])
}

fn str_arg<'v>(name: &str, v: Value<'v>) -> starlark::Result<&'v str> {
    v.unpack_str().ok_or_else(|| {
        err(format!(
            "{name}: expected a string, but was {}",
            v.get_type()
        ))
    })
}

#[starlark_module]
fn yaml_members(builder: &mut GlobalsBuilder) {
    fn encode<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        eval: &mut Evaluator<'v, '_, '_>,
    ) -> starlark::Result<Value<'v>> {
        let v = one_arg("yaml.encode", &args)?;
        let s = yaml_encode(v, eval).map_err(|e| err(format!("yaml.encode: {e}")))?;
        Ok(eval.heap().alloc_str(&s).to_value())
    }

    fn decode<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        eval: &mut Evaluator<'v, '_, '_>,
    ) -> starlark::Result<Value<'v>> {
        let v = one_arg("yaml.decode", &args)?;
        let s = str_arg("yaml.decode", v)?;
        yaml_decode(s, eval.heap()).map_err(|e| err(format!("yaml.decode: {e}")))
    }
}

pub fn yaml_module() -> &'static FrozenModule {
    static CELL: OnceLock<FrozenModule> = OnceLock::new();
    static_module(&CELL, |b| b.namespace("yaml", yaml_members))
}

// ------------------------------------------------------------------ json

/// Go's `encoding/json` output: sorted keys, HTML escaping by default.
pub fn json_encode(v: &YValue, indent: usize, escape_html: bool) -> Result<String, String> {
    let mut out = String::new();
    write_json(v, indent, escape_html, 0, &mut out)?;
    Ok(out)
}

fn write_json(
    v: &YValue,
    indent: usize,
    esc: bool,
    level: usize,
    out: &mut String,
) -> Result<(), String> {
    match v {
        YValue::Null => out.push_str("null"),
        YValue::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        YValue::Int(i) => out.push_str(&i.to_string()),
        YValue::UInt(u) => out.push_str(&u.to_string()),
        YValue::Float(f) => out.push_str(&json_float(*f)?),
        YValue::Str(s) => json_string(s, esc, out),
        YValue::Binary(b) => json_string(&String::from_utf8_lossy(b), esc, out),
        YValue::Array(a) => {
            if a.items.is_empty() {
                out.push_str("[]");
                return Ok(());
            }
            out.push('[');
            for (i, it) in a.items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                newline(indent, level + 1, out);
                write_json(&it.value, indent, esc, level + 1, out)?;
            }
            newline(indent, level, out);
            out.push(']');
        }
        YValue::Map(m) => {
            if m.items.is_empty() {
                out.push_str("{}");
                return Ok(());
            }
            let mut items: Vec<(&str, &YValue)> = Vec::new();
            for it in &m.items {
                let YValue::Str(k) = &it.key else {
                    return Err("Expected key to be string".to_string());
                };
                items.push((k, &it.value));
            }
            items.sort_by(|a, b| a.0.cmp(b.0));
            out.push('{');
            for (i, (k, val)) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                newline(indent, level + 1, out);
                json_string(k, esc, out);
                out.push(':');
                if indent > 0 {
                    out.push(' ');
                }
                write_json(val, indent, esc, level + 1, out)?;
            }
            newline(indent, level, out);
            out.push('}');
        }
    }
    Ok(())
}

fn newline(indent: usize, level: usize, out: &mut String) {
    if indent > 0 {
        out.push('\n');
        out.push_str(&" ".repeat(indent * level));
    }
}

fn json_string(s: &str, esc: bool, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '<' | '>' | '&' if esc => out.push_str(&format!("\\u{:04x}", c as u32)),
            '\u{2028}' | '\u{2029}' => out.push_str(&format!("\\u{:04x}", c as u32)),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Go's JSON float formatting.
fn json_float(f: f64) -> Result<String, String> {
    if !f.is_finite() {
        return Err(format!("json: unsupported value: {}", format_float(f)));
    }
    let abs = f.abs();
    if abs != 0.0 && !(1e-6..1e21).contains(&abs) {
        // exponent form, Go cleans "e-07" to "e-7"
        let s = format!("{:e}", f);
        let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
        let e: i32 = e.parse().unwrap_or(0);
        return Ok(format!("{m}e{}{}", if e < 0 { "-" } else { "+" }, e.abs()));
    }
    // shortest decimal without exponent
    let s = format!("{}", f);
    Ok(s)
}

fn json_to_yaml(v: &serde_json::Value) -> YValue {
    match v {
        serde_json::Value::Null => YValue::Null,
        serde_json::Value::Bool(b) => YValue::Bool(*b),
        serde_json::Value::Number(n) => YValue::Float(n.as_f64().unwrap_or(0.0)),
        serde_json::Value::String(s) => YValue::str(s),
        serde_json::Value::Array(a) => {
            let mut arr = crate::yaml::Array::default();
            for x in a {
                arr.items.push(crate::yaml::ArrayItem {
                    value: json_to_yaml(x),
                    ..Default::default()
                });
            }
            YValue::Array(crate::yaml::Shared::new(arr))
        }
        serde_json::Value::Object(o) => {
            let mut keys: Vec<&String> = o.keys().collect();
            keys.sort();
            let mut map = crate::yaml::Map::default();
            for k in keys {
                map.items.push(crate::yaml::MapItem {
                    key: YValue::str(k),
                    value: json_to_yaml(&o[k]),
                    ..Default::default()
                });
            }
            YValue::Map(crate::yaml::Shared::new(map))
        }
    }
}

#[starlark_module]
fn json_members(builder: &mut GlobalsBuilder) {
    fn encode<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        #[starlark(require = named)] indent: Option<i32>,
        #[starlark(require = named)] escape_html: Option<bool>,
        eval: &mut Evaluator<'v, '_, '_>,
    ) -> starlark::Result<Value<'v>> {
        let v = one_arg("json.encode", &args)?;
        let indent = indent.unwrap_or(0);
        if !(0..=8).contains(&indent) {
            return Err(err("json.encode: indent value must be between 0 and 8"));
        }
        let y = crate::template::runtime::convert::to_yaml(v, current_store(eval))
            .map_err(|e| err(format!("json.encode: {e}")))?;
        let s = json_encode(&y, indent as usize, escape_html.unwrap_or(true))
            .map_err(|e| err(format!("json.encode: {e}")))?;
        Ok(eval.heap().alloc_str(&s).to_value())
    }

    fn decode<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        eval: &mut Evaluator<'v, '_, '_>,
    ) -> starlark::Result<Value<'v>> {
        let v = one_arg("json.decode", &args)?;
        let s = str_arg("json.decode", v)?;
        let parsed: serde_json::Value = serde_json::from_str(s).map_err(|e| {
            // Go's encoding/json wording, as ytt reports it
            let msg =
                crate::gocompat::json_syntax::check(s.as_bytes()).unwrap_or_else(|| e.to_string());
            err(format!("json.decode: {msg}"))
        })?;
        from_yaml(&json_to_yaml(&parsed), eval.heap(), MapAs::Dict)
    }
}

pub fn json_module() -> &'static FrozenModule {
    static CELL: OnceLock<FrozenModule> = OnceLock::new();
    static_module(&CELL, |b| b.namespace("json", json_members))
}

// ------------------------------------------------------------------ base64

fn b64_engine(url: bool, raw: bool) -> base64::engine::GeneralPurpose {
    use base64::engine::general_purpose::*;
    match (url, raw) {
        (false, false) => STANDARD,
        (false, true) => STANDARD_NO_PAD,
        (true, false) => URL_SAFE,
        (true, true) => URL_SAFE_NO_PAD,
    }
}

#[starlark_module]
fn base64_members(builder: &mut GlobalsBuilder) {
    fn encode<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        #[starlark(require = named)] url: Option<bool>,
        #[starlark(require = named)] raw: Option<bool>,
        #[starlark(require = named)] strict: Option<bool>,
        eval: &mut Evaluator<'v, '_, '_>,
    ) -> starlark::Result<Value<'v>> {
        let _ = strict;
        let v = one_arg("base64.encode", &args)?;
        let s = str_arg("base64.encode", v)?;
        let out = b64_engine(url.unwrap_or(false), raw.unwrap_or(false)).encode(s.as_bytes());
        Ok(eval.heap().alloc_str(&out).to_value())
    }

    fn decode<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        #[starlark(require = named)] url: Option<bool>,
        #[starlark(require = named)] raw: Option<bool>,
        #[starlark(require = named)] strict: Option<bool>,
        eval: &mut Evaluator<'v, '_, '_>,
    ) -> starlark::Result<Value<'v>> {
        let v = one_arg("base64.decode", &args)?;
        let s = str_arg("base64.decode", v)?;
        // Go's decoder: line feeds skipped, trailing bits taken unless
        // strict, Go's error text
        let encoding = crate::gocompat::base64::Encoding {
            url: url.unwrap_or(false),
            padded: !raw.unwrap_or(false),
            strict: strict.unwrap_or(false),
        };
        let bytes = encoding
            .decode(s.as_bytes())
            .map_err(|e| err(format!("base64.decode: {e}")))?;
        let text = String::from_utf8_lossy(&bytes).into_owned();
        Ok(eval.heap().alloc_str(&text).to_value())
    }
}

pub fn base64_module() -> &'static FrozenModule {
    static CELL: OnceLock<FrozenModule> = OnceLock::new();
    static_module(&CELL, |b| b.namespace("base64", base64_members))
}

// ------------------------------------------------------------------ hashes

#[starlark_module]
fn sha256_members(builder: &mut GlobalsBuilder) {
    fn sum<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        eval: &mut Evaluator<'v, '_, '_>,
    ) -> starlark::Result<Value<'v>> {
        use sha2::Digest;
        let v = one_arg("sha256.sum", &args)?;
        let s = str_arg("sha256.sum", v)?;
        let hex = hex(&sha2::Sha256::digest(s.as_bytes()));
        Ok(eval.heap().alloc_str(&hex).to_value())
    }
}

#[starlark_module]
fn md5_members(builder: &mut GlobalsBuilder) {
    fn sum<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        eval: &mut Evaluator<'v, '_, '_>,
    ) -> starlark::Result<Value<'v>> {
        use md5::Digest;
        let v = one_arg("md5.sum", &args)?;
        let s = str_arg("md5.sum", v)?;
        let hex = hex(&md5::Md5::digest(s.as_bytes()));
        Ok(eval.heap().alloc_str(&hex).to_value())
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

pub fn sha256_module() -> &'static FrozenModule {
    static CELL: OnceLock<FrozenModule> = OnceLock::new();
    static_module(&CELL, |b| b.namespace("sha256", sha256_members))
}

pub fn md5_module() -> &'static FrozenModule {
    static CELL: OnceLock<FrozenModule> = OnceLock::new();
    static_module(&CELL, |b| b.namespace("md5", md5_members))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::parse::parse;
    use crate::yaml::SourceFile;

    #[test]
    fn go_json() {
        let src = SourceFile::new("t", "b: 1\na: [x, 2.5, null]\nc: \"<&>\"\n");
        let ds = parse(&src, false).unwrap();
        let v = &ds.docs[0].value;
        assert_eq!(
            json_encode(v, 0, true).unwrap(),
            r#"{"a":["x",2.5,null],"b":1,"c":"\u003c\u0026\u003e"}"#
        );
        assert_eq!(
            json_encode(v, 2, false).unwrap(),
            "{\n  \"a\": [\n    \"x\",\n    2.5,\n    null\n  ],\n  \"b\": 1,\n  \"c\": \"<&>\"\n}"
        );
        assert_eq!(json_float(1e-7).unwrap(), "1e-7");
        assert_eq!(json_float(2.0).unwrap(), "2");
    }
}
