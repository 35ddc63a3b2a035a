//! `@ytt:url`: Go's `net/url` escaping, parsing and printing.

use std::sync::OnceLock;

use starlark::environment::{FrozenModule, GlobalsBuilder};
use starlark::starlark_module;
use starlark::values::dict::{AllocDict, DictRef};
use starlark::values::list::{AllocList, ListRef};
use starlark::values::tuple::UnpackTuple;
use starlark::values::{Heap, Value};

use super::args::{exactly, str_of};
use super::object::{Object, ObjectValue};
use super::{err, static_module};

// ------------------------------------------------------------------ url

const PATH_SEGMENT_SAFE: &[u8] = b"-_.~!$&'()*+,;=:@";

/// Go's `url.UserInfo.String` escaping: sub-delimiters stay, `@ / ? :` and
/// everything else outside the unreserved set are %-encoded.
pub(super) fn userinfo_escape(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~$&+,;=".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Go's `url.PathEscape`.
pub(super) fn path_escape(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || PATH_SEGMENT_SAFE.contains(&b) && b != b'/' {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Go's `url.QueryEscape`.
pub(super) fn query_escape(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(b as char);
        } else if b == b' ' {
            out.push('+');
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

pub(super) fn unescape(s: &str, plus_is_space: bool) -> Result<String, String> {
    let bytes = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => {
                let hex = s
                    .get(i + 1..i + 3)
                    .ok_or_else(|| format!("invalid URL escape \"{}\"", &s[i..]))?;
                let v = u8::from_str_radix(hex, 16)
                    .map_err(|_| format!("invalid URL escape \"%{hex}\""))?;
                out.push(v);
                i += 3;
            }
            b'+' if plus_is_space => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).map_err(|_| "invalid UTF-8 after unescaping".to_string())
}

/// A parsed URL (Go's `url.URL`, the parts ytt exposes).
#[derive(Debug, Clone, Default)]
pub(super) struct ParsedUrl {
    scheme: String,
    pub(super) user: Option<(String, Option<String>)>,
    host: String,
    rest: String,
}

impl ParsedUrl {
    pub(super) fn parse(s: &str) -> Result<ParsedUrl, String> {
        let mut u = ParsedUrl::default();
        let mut rest = s;
        if let Some(idx) = rest.find("://") {
            let scheme = &rest[..idx];
            if scheme.is_empty()
                || !scheme.chars().next().unwrap().is_ascii_alphabetic()
                || !scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
            {
                return Err(format!(
                    "parse \"{s}\": first path segment in URL cannot contain colon"
                ));
            }
            u.scheme = scheme.to_string();
            rest = &rest[idx + 3..];
            let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
            let authority = &rest[..end];
            u.rest = rest[end..].to_string();
            let host = match authority.rfind('@') {
                Some(at) => {
                    let info = &authority[..at];
                    let (name, pass) = match info.split_once(':') {
                        Some((n, p)) => (n, Some(p)),
                        None => (info, None),
                    };
                    u.user = Some((
                        unescape(name, false)?,
                        pass.map(|p| unescape(p, false)).transpose()?,
                    ));
                    &authority[at + 1..]
                }
                None => authority,
            };
            u.host = host.to_string();
        } else {
            u.rest = rest.to_string();
        }
        Ok(u)
    }

    pub(super) fn user_string(&self) -> String {
        match &self.user {
            None => String::new(),
            Some((n, None)) => userinfo_escape(n),
            Some((n, Some(p))) => format!("{}:{}", userinfo_escape(n), userinfo_escape(p)),
        }
    }

    pub(super) fn to_string_go(&self) -> String {
        let mut s = String::new();
        if !self.scheme.is_empty() {
            s.push_str(&self.scheme);
            s.push_str("://");
            if self.user.is_some() {
                s.push_str(&self.user_string());
                s.push('@');
            }
            s.push_str(&self.host);
        }
        s.push_str(&self.rest);
        s
    }

    pub(super) fn hostname(&self) -> String {
        let h = &self.host;
        if let Some(stripped) = h.strip_prefix('[') {
            return stripped.split(']').next().unwrap_or("").to_string();
        }
        h.rsplit_once(':')
            .filter(|(_, p)| p.chars().all(|c| c.is_ascii_digit()))
            .map(|(h, _)| h.to_string())
            .unwrap_or_else(|| h.clone())
    }
}

fn sorted_dict_of_lists<'v>(pairs: Vec<(String, String)>, heap: Heap<'v>) -> Value<'v> {
    let mut keys: Vec<String> = Vec::new();
    let mut map: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    for (k, v) in pairs {
        if !map.contains_key(&k) {
            keys.push(k.clone());
        }
        map.entry(k).or_default().push(v);
    }
    let items: Vec<(Value, Value)> = map
        .into_iter()
        .map(|(k, vs)| {
            let list: Vec<Value> = vs.iter().map(|v| heap.alloc_str(v).to_value()).collect();
            (heap.alloc_str(&k).to_value(), heap.alloc(AllocList(list)))
        })
        .collect();
    heap.alloc(AllocDict(items))
}

#[starlark_module]
fn url_members(builder: &mut GlobalsBuilder) {
    fn path_segment_encode<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        heap: Heap<'v>,
    ) -> starlark::Result<Value<'v>> {
        exactly("url.path_segment_encode", &args, 1)?;
        let s = str_of("url.path_segment_encode", args.items[0])?;
        Ok(heap.alloc_str(&path_escape(s)).to_value())
    }
    fn path_segment_decode<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        heap: Heap<'v>,
    ) -> starlark::Result<Value<'v>> {
        exactly("url.path_segment_decode", &args, 1)?;
        let s = str_of("url.path_segment_decode", args.items[0])?;
        let out = unescape(s, false).map_err(|e| err(format!("url.path_segment_decode: {e}")))?;
        Ok(heap.alloc_str(&out).to_value())
    }
    fn query_param_value_encode<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        heap: Heap<'v>,
    ) -> starlark::Result<Value<'v>> {
        exactly("url.query_param_value_encode", &args, 1)?;
        let s = str_of("url.query_param_value_encode", args.items[0])?;
        Ok(heap.alloc_str(&query_escape(s)).to_value())
    }
    fn query_param_value_decode<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        heap: Heap<'v>,
    ) -> starlark::Result<Value<'v>> {
        exactly("url.query_param_value_decode", &args, 1)?;
        let s = str_of("url.query_param_value_decode", args.items[0])?;
        let out =
            unescape(s, true).map_err(|e| err(format!("url.query_param_value_decode: {e}")))?;
        Ok(heap.alloc_str(&out).to_value())
    }
    fn query_params_encode<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        heap: Heap<'v>,
    ) -> starlark::Result<Value<'v>> {
        exactly("url.query_params_encode", &args, 1)?;
        let Some(d) = DictRef::from_value(args.items[0]) else {
            return Err(err("url.query_params_encode: expected a dict"));
        };
        let mut pairs: Vec<(String, Vec<String>)> = Vec::new();
        for (k, v) in d.iter() {
            let k = str_of("url.query_params_encode", k)?.to_string();
            let Some(list) = ListRef::from_value(v) else {
                return Err(err(
                    "url.query_params_encode: expected dict values to be lists of strings",
                ));
            };
            let mut vals = Vec::new();
            for it in list.iter() {
                vals.push(str_of("url.query_params_encode", it)?.to_string());
            }
            pairs.push((k, vals));
        }
        pairs.sort_by(|a, b| a.0.cmp(&b.0));
        let mut out = Vec::new();
        for (k, vs) in pairs {
            for v in vs {
                out.push(format!("{}={}", query_escape(&k), query_escape(&v)));
            }
        }
        Ok(heap.alloc_str(&out.join("&")).to_value())
    }
    fn query_params_decode<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        heap: Heap<'v>,
    ) -> starlark::Result<Value<'v>> {
        exactly("url.query_params_decode", &args, 1)?;
        let s = str_of("url.query_params_decode", args.items[0])?.replace(';', "&");
        let mut pairs = Vec::new();
        for part in s.split('&').filter(|p| !p.is_empty()) {
            let (k, v) = part.split_once('=').unwrap_or((part, ""));
            let k = unescape(k, true).map_err(|e| err(format!("url.query_params_decode: {e}")))?;
            let v = unescape(v, true).map_err(|e| err(format!("url.query_params_decode: {e}")))?;
            pairs.push((k, v));
        }
        Ok(sorted_dict_of_lists(pairs, heap))
    }
    fn parse<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        heap: Heap<'v>,
    ) -> starlark::Result<Value<'v>> {
        exactly("url.parse", &args, 1)?;
        let s = str_of("url.parse", args.items[0])?;
        let u = ParsedUrl::parse(s).map_err(|e| err(format!("url.parse: {e}")))?;
        Ok(heap.alloc(Object::new(Url(u))))
    }
}

/// `url.parse(...)`'s value.
#[derive(Debug, Clone)]
struct Url(ParsedUrl);

/// A URL's user: name and password.
#[derive(Debug, Clone)]
struct User(String, Option<String>);

impl ObjectValue for Url {
    fn type_name(&self) -> &'static str {
        "@ytt:url.value"
    }
    fn methods(&self) -> &'static [&'static str] {
        &["user", "without_user", "string", "hostname"]
    }
    fn attribute<'v>(&self, name: &str, heap: Heap<'v>) -> Option<Value<'v>> {
        (name == "user").then(|| match &self.0.user {
            None => Value::new_none(),
            Some((n, p)) => heap.alloc(Object::new(User(n.clone(), p.clone()))),
        })
    }
    fn call<'v>(&self, name: &str, heap: Heap<'v>) -> starlark::Result<Value<'v>> {
        Ok(match name {
            "hostname" => heap.alloc_str(&self.0.hostname()).to_value(),
            "without_user" => {
                let mut u = self.0.clone();
                u.user = None;
                heap.alloc(Object::new(Url(u)))
            }
            "string" => heap.alloc_str(&self.0.to_string_go()).to_value(),
            m => return Err(err(format!("unknown method {m}"))),
        })
    }
}

impl ObjectValue for User {
    fn type_name(&self) -> &'static str {
        "@ytt:url.user"
    }
    fn methods(&self) -> &'static [&'static str] {
        &["name", "password", "string"]
    }
    fn attribute<'v>(&self, name: &str, heap: Heap<'v>) -> Option<Value<'v>> {
        match name {
            "name" => Some(heap.alloc_str(&self.0).to_value()),
            "password" => Some(match &self.1 {
                None => Value::new_none(),
                Some(p) => heap.alloc_str(p).to_value(),
            }),
            _ => None,
        }
    }
    fn call<'v>(&self, name: &str, heap: Heap<'v>) -> starlark::Result<Value<'v>> {
        match name {
            "string" => Ok(heap
                .alloc_str(&match &self.1 {
                    // Go's `Userinfo.String`, as ytt prints it (`p%40ss`)
                    None => userinfo_escape(&self.0),
                    Some(p) => format!("{}:{}", userinfo_escape(&self.0), userinfo_escape(p)),
                })
                .to_value()),
            m => Err(err(format!("unknown method {m}"))),
        }
    }
}

pub fn url_module() -> &'static FrozenModule {
    static CELL: OnceLock<FrozenModule> = OnceLock::new();
    static_module(&CELL, |b| b.namespace("url", url_members))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn url_parsing() {
        let u = ParsedUrl::parse("https://user:p%40ss@example.com:8443/path?q=1").unwrap();
        assert_eq!(u.hostname(), "example.com");
        assert_eq!(u.user.as_ref().unwrap().1.as_deref(), Some("p@ss"));
        assert_eq!(
            u.to_string_go(),
            "https://user:p%40ss@example.com:8443/path?q=1"
        );
        assert_eq!(query_escape("a b&c"), "a+b%26c");
        assert_eq!(path_escape("a b/c"), "a%20b%2Fc");
    }
}
