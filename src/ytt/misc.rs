//! `@ytt:regexp`, `@ytt:math`, `@ytt:url`, `@ytt:ip`, `@ytt:version`,
//! `@ytt:template`.

use std::fmt;
use std::net::IpAddr;
use std::sync::OnceLock;

use allocative::Allocative;
use starlark::any::ProvidesStaticType;
use starlark::environment::{FrozenModule, GlobalsBuilder};
use starlark::eval::{Arguments, Evaluator};
use starlark::starlark_module;
use starlark::starlark_simple_value;
use starlark::values::dict::{AllocDict, DictRef};
use starlark::values::float::StarlarkFloat;
use starlark::values::list::{AllocList, ListRef};
use starlark::values::starlark_value;
use starlark::values::tuple::{AllocTuple, UnpackTuple};
use starlark::values::{Heap, NoSerialize, StarlarkValue, Value, ValueLike};

use crate::template::runtime::replace_current;

use super::{err, static_module};

fn str_of<'v>(name: &str, v: Value<'v>) -> starlark::Result<&'v str> {
    v.unpack_str().ok_or_else(|| {
        err(format!(
            "{name}: expected a string, but was {}",
            v.get_type()
        ))
    })
}

fn exactly<'v>(name: &str, args: &UnpackTuple<Value<'v>>, n: usize) -> starlark::Result<()> {
    if args.items.len() != n {
        let word = match n {
            1 => "one argument".to_string(),
            2 => "two arguments".to_string(),
            n => format!("{n} arguments"),
        };
        return Err(err(format!("{name}: expected exactly {word}")));
    }
    Ok(())
}

// ------------------------------------------------------------------ regexp

#[starlark_module]
fn regexp_members(builder: &mut GlobalsBuilder) {
    fn r#match<'v>(#[starlark(args)] args: UnpackTuple<Value<'v>>) -> starlark::Result<bool> {
        exactly("regexp.match", &args, 2)?;
        let pattern = str_of("regexp.match", args.items[0])?;
        let target = str_of("regexp.match", args.items[1])?;
        let re = regex::Regex::new(pattern).map_err(|e| err(format!("regexp.match: {e}")))?;
        Ok(re.is_match(target))
    }

    fn replace<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        eval: &mut Evaluator<'v, '_, '_>,
    ) -> starlark::Result<Value<'v>> {
        exactly("regexp.replace", &args, 3)?;
        let pattern = str_of("regexp.replace", args.items[0])?;
        let source = str_of("regexp.replace", args.items[1])?;
        let re = regex::Regex::new(pattern).map_err(|e| err(format!("regexp.replace: {e}")))?;
        let repl = args.items[2];
        let out = if let Some(r) = repl.unpack_str() {
            // Go's $1 / ${1} expansion is the same syntax as the regex crate's.
            re.replace_all(source, r).into_owned()
        } else {
            let mut result = String::new();
            let mut last = 0;
            for m in re.find_iter(source) {
                result.push_str(&source[last..m.start()]);
                let s = eval.heap().alloc_str(m.as_str()).to_value();
                let r = eval.eval_function(repl, &[s], &[])?;
                let Some(r) = r.unpack_str() else {
                    return Err(err(format!(
                        "regexp.replace: expected replacement function to return a string, but was {}",
                        r.get_type()
                    )));
                };
                result.push_str(r);
                last = m.end();
            }
            result.push_str(&source[last..]);
            result
        };
        Ok(eval.heap().alloc_str(&out).to_value())
    }
}

pub fn regexp_module() -> &'static FrozenModule {
    static CELL: OnceLock<FrozenModule> = OnceLock::new();
    static_module(&CELL, |b| b.namespace("regexp", regexp_members))
}

// ------------------------------------------------------------------ math

fn num(name: &str, v: Value) -> starlark::Result<f64> {
    if let Some(f) = v.downcast_ref::<StarlarkFloat>() {
        return Ok(f.0);
    }
    if v.get_type() == "int" {
        return v
            .to_str()
            .parse::<f64>()
            .map_err(|_| err(format!("{name}: invalid number")));
    }
    Err(err(format!(
        "{name}: got {}, want float or int",
        v.get_type()
    )))
}

fn unary<'v>(
    name: &str,
    args: &UnpackTuple<Value<'v>>,
    heap: Heap<'v>,
    f: fn(f64) -> f64,
) -> starlark::Result<Value<'v>> {
    if args.items.len() != 1 {
        return Err(err(format!(
            "{name}: got {} arguments, want 1",
            args.items.len()
        )));
    }
    Ok(heap.alloc(StarlarkFloat(f(num(name, args.items[0])?))))
}

fn binary<'v>(
    name: &str,
    args: &UnpackTuple<Value<'v>>,
    heap: Heap<'v>,
    f: fn(f64, f64) -> f64,
) -> starlark::Result<Value<'v>> {
    if args.items.len() != 2 {
        return Err(err(format!(
            "{name}: got {} arguments, want 2",
            args.items.len()
        )));
    }
    Ok(heap.alloc(StarlarkFloat(f(
        num(name, args.items[0])?,
        num(name, args.items[1])?,
    ))))
}

fn go_round(x: f64) -> f64 {
    // Go's math.Round: half away from zero
    x.round()
}

fn go_remainder(x: f64, y: f64) -> f64 {
    // IEEE 754 remainder
    let n = (x / y).round_ties_even();
    x - n * y
}

fn gamma(x: f64) -> f64 {
    // Lanczos approximation
    if x < 0.5 {
        std::f64::consts::PI / ((std::f64::consts::PI * x).sin() * gamma(1.0 - x))
    } else {
        let g = 7.0;
        let coef = [
            0.999_999_999_999_809_9,
            676.520_368_121_885_1,
            -1_259.139_216_722_402_8,
            771.323_428_777_653_1,
            -176.615_029_162_140_6,
            12.507_343_278_686_905,
            -0.138_571_095_265_720_12,
            9.984_369_578_019_572e-6,
            1.505_632_735_149_311_6e-7,
        ];
        let x = x - 1.0;
        let mut a = coef[0];
        let t = x + g + 0.5;
        for (i, c) in coef.iter().enumerate().skip(1) {
            a += c / (x + i as f64);
        }
        (2.0 * std::f64::consts::PI).sqrt() * t.powf(x + 0.5) * (-t).exp() * a
    }
}

#[starlark_module]
fn math_members(builder: &mut GlobalsBuilder) {
    const e: f64 = std::f64::consts::E;
    const pi: f64 = std::f64::consts::PI;

    fn ceil<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        heap: Heap<'v>,
    ) -> starlark::Result<Value<'v>> {
        if args.items.len() != 1 {
            return Err(err(format!(
                "ceil: got {} arguments, want 1",
                args.items.len()
            )));
        }
        let v = args.items[0];
        if v.get_type() == "int" {
            return Ok(v);
        }
        Ok(heap.alloc(num("ceil", v)?.ceil() as i64))
    }
    fn floor<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        heap: Heap<'v>,
    ) -> starlark::Result<Value<'v>> {
        if args.items.len() != 1 {
            return Err(err(format!(
                "floor: got {} arguments, want 1",
                args.items.len()
            )));
        }
        let v = args.items[0];
        if v.get_type() == "int" {
            return Ok(v);
        }
        Ok(heap.alloc(num("floor", v)?.floor() as i64))
    }
    fn fabs<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        heap: Heap<'v>,
    ) -> starlark::Result<Value<'v>> {
        unary("fabs", &args, heap, f64::abs)
    }
    fn round<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        heap: Heap<'v>,
    ) -> starlark::Result<Value<'v>> {
        unary("round", &args, heap, go_round)
    }
    fn exp<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        heap: Heap<'v>,
    ) -> starlark::Result<Value<'v>> {
        unary("exp", &args, heap, f64::exp)
    }
    fn sqrt<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        heap: Heap<'v>,
    ) -> starlark::Result<Value<'v>> {
        unary("sqrt", &args, heap, f64::sqrt)
    }
    fn acos<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        heap: Heap<'v>,
    ) -> starlark::Result<Value<'v>> {
        unary("acos", &args, heap, f64::acos)
    }
    fn asin<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        heap: Heap<'v>,
    ) -> starlark::Result<Value<'v>> {
        unary("asin", &args, heap, f64::asin)
    }
    fn atan<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        heap: Heap<'v>,
    ) -> starlark::Result<Value<'v>> {
        unary("atan", &args, heap, f64::atan)
    }
    fn cos<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        heap: Heap<'v>,
    ) -> starlark::Result<Value<'v>> {
        unary("cos", &args, heap, f64::cos)
    }
    fn sin<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        heap: Heap<'v>,
    ) -> starlark::Result<Value<'v>> {
        unary("sin", &args, heap, f64::sin)
    }
    fn tan<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        heap: Heap<'v>,
    ) -> starlark::Result<Value<'v>> {
        unary("tan", &args, heap, f64::tan)
    }
    fn degrees<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        heap: Heap<'v>,
    ) -> starlark::Result<Value<'v>> {
        unary("degrees", &args, heap, f64::to_degrees)
    }
    fn radians<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        heap: Heap<'v>,
    ) -> starlark::Result<Value<'v>> {
        unary("radians", &args, heap, f64::to_radians)
    }
    fn acosh<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        heap: Heap<'v>,
    ) -> starlark::Result<Value<'v>> {
        unary("acosh", &args, heap, f64::acosh)
    }
    fn asinh<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        heap: Heap<'v>,
    ) -> starlark::Result<Value<'v>> {
        unary("asinh", &args, heap, f64::asinh)
    }
    fn atanh<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        heap: Heap<'v>,
    ) -> starlark::Result<Value<'v>> {
        unary("atanh", &args, heap, f64::atanh)
    }
    fn cosh<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        heap: Heap<'v>,
    ) -> starlark::Result<Value<'v>> {
        unary("cosh", &args, heap, f64::cosh)
    }
    fn sinh<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        heap: Heap<'v>,
    ) -> starlark::Result<Value<'v>> {
        unary("sinh", &args, heap, f64::sinh)
    }
    fn tanh<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        heap: Heap<'v>,
    ) -> starlark::Result<Value<'v>> {
        unary("tanh", &args, heap, f64::tanh)
    }
    fn gamma<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        heap: Heap<'v>,
    ) -> starlark::Result<Value<'v>> {
        unary("gamma", &args, heap, gamma)
    }
    fn copysign<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        heap: Heap<'v>,
    ) -> starlark::Result<Value<'v>> {
        binary("copysign", &args, heap, f64::copysign)
    }
    fn r#mod<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        heap: Heap<'v>,
    ) -> starlark::Result<Value<'v>> {
        binary("round", &args, heap, |x, y| x % y)
    }
    fn pow<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        heap: Heap<'v>,
    ) -> starlark::Result<Value<'v>> {
        binary("pow", &args, heap, f64::powf)
    }
    fn remainder<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        heap: Heap<'v>,
    ) -> starlark::Result<Value<'v>> {
        binary("remainder", &args, heap, go_remainder)
    }
    fn atan2<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        heap: Heap<'v>,
    ) -> starlark::Result<Value<'v>> {
        binary("atan2", &args, heap, f64::atan2)
    }
    fn hypot<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        heap: Heap<'v>,
    ) -> starlark::Result<Value<'v>> {
        binary("hypot", &args, heap, f64::hypot)
    }
    fn log<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        #[starlark(require = named)] base: Option<Value<'v>>,
        heap: Heap<'v>,
    ) -> starlark::Result<Value<'v>> {
        if args.items.len() != 1 {
            return Err(err(format!(
                "log: got {} arguments, want 1",
                args.items.len()
            )));
        }
        let x = num("log", args.items[0])?;
        let v = match base {
            Some(b) => x.ln() / num("log", b)?.ln(),
            None => x.ln(),
        };
        Ok(heap.alloc(StarlarkFloat(v)))
    }
}

pub fn math_module() -> &'static FrozenModule {
    static CELL: OnceLock<FrozenModule> = OnceLock::new();
    static_module(&CELL, |b| b.namespace("math", math_members))
}

// ------------------------------------------------------------------ url

const PATH_SEGMENT_SAFE: &[u8] = b"-_.~!$&'()*+,;=:@";

/// Go's `url.PathEscape`.
/// Go's `url.UserInfo.String` escaping: sub-delimiters stay, `@ / ? :` and
/// everything else outside the unreserved set are %-encoded.
fn userinfo_escape(s: &str) -> String {
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

fn path_escape(s: &str) -> String {
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
fn query_escape(s: &str) -> String {
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

fn unescape(s: &str, plus_is_space: bool) -> Result<String, String> {
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
struct ParsedUrl {
    scheme: String,
    user: Option<(String, Option<String>)>,
    host: String,
    rest: String,
}

impl ParsedUrl {
    fn parse(s: &str) -> Result<ParsedUrl, String> {
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

    fn user_string(&self) -> String {
        match &self.user {
            None => String::new(),
            Some((n, None)) => userinfo_escape(n),
            Some((n, Some(p))) => format!("{}:{}", userinfo_escape(n), userinfo_escape(p)),
        }
    }

    fn to_string_go(&self) -> String {
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

    fn hostname(&self) -> String {
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

/// Values with zero-argument methods: `url.value`, `url.user`, `ip.addr`, `ip.net`.
#[derive(Debug, Clone, ProvidesStaticType, Allocative, NoSerialize)]
pub struct Object {
    #[allocative(skip)]
    kind: ObjectKind,
}

#[derive(Debug, Clone)]
enum ObjectKind {
    Url(ParsedUrl),
    UrlUser(String, Option<String>),
    IpAddr(IpAddr),
    IpNet(IpAddr, u8),
}

starlark_simple_value!(Object);

impl Object {
    fn type_name(&self) -> &'static str {
        match self.kind {
            ObjectKind::Url(_) => "@ytt:url.value",
            ObjectKind::UrlUser(..) => "@ytt:url.user",
            ObjectKind::IpAddr(_) => "@ytt:ip.addr",
            ObjectKind::IpNet(..) => "@ytt:ip.net",
        }
    }

    fn methods(&self) -> &'static [&'static str] {
        match self.kind {
            ObjectKind::Url(_) => &["user", "without_user", "string", "hostname"],
            ObjectKind::UrlUser(..) => &["name", "password", "string"],
            ObjectKind::IpAddr(_) => &["is_ipv4", "is_ipv6", "string"],
            ObjectKind::IpNet(..) => &["addr", "string"],
        }
    }
}

impl fmt::Display for Object {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}(...)", self.type_name())
    }
}

#[starlark_value(type = "ytt_object")]
impl<'v> StarlarkValue<'v> for Object {
    fn get_attr(&self, attribute: &str, heap: Heap<'v>) -> Option<Value<'v>> {
        match (&self.kind, attribute) {
            (ObjectKind::Url(u), "user") => Some(match &u.user {
                None => Value::new_none(),
                Some((n, p)) => heap.alloc(Object {
                    kind: ObjectKind::UrlUser(n.clone(), p.clone()),
                }),
            }),
            (ObjectKind::UrlUser(n, _), "name") => Some(heap.alloc_str(n).to_value()),
            (ObjectKind::UrlUser(_, p), "password") => Some(match p {
                None => Value::new_none(),
                Some(p) => heap.alloc_str(p).to_value(),
            }),
            (_, m) if self.methods().contains(&m) => Some(heap.alloc(Method {
                obj: self.clone(),
                name: m.to_string(),
            })),
            _ => None,
        }
    }

    fn dir_attr(&self) -> Vec<String> {
        self.methods().iter().map(|s| s.to_string()).collect()
    }
}

#[derive(Debug, ProvidesStaticType, Allocative, NoSerialize)]
pub struct Method {
    obj: Object,
    name: String,
}

starlark_simple_value!(Method);

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "<built-in method {}>", self.name)
    }
}

#[starlark_value(type = "builtin_function_or_method")]
impl<'v> StarlarkValue<'v> for Method {
    fn invoke(
        &self,
        _me: Value<'v>,
        args: &Arguments<'v, '_>,
        eval: &mut Evaluator<'v, '_, '_>,
    ) -> starlark::Result<Value<'v>> {
        let heap = eval.heap();
        if args.positions(heap)?.count() != 0 {
            return Err(err(format!("{}: expected no argument", self.name)));
        }
        let s = |t: String| heap.alloc_str(&t).to_value();
        Ok(match (&self.obj.kind, self.name.as_str()) {
            (ObjectKind::Url(u), "string") => s(u.to_string_go()),
            (ObjectKind::Url(u), "hostname") => s(u.hostname()),
            (ObjectKind::Url(u), "without_user") => {
                let mut u = u.clone();
                u.user = None;
                heap.alloc(Object {
                    kind: ObjectKind::Url(u),
                })
            }
            (ObjectKind::UrlUser(n, p), "string") => s(match p {
                None => path_escape(n),
                Some(p) => format!("{}:{}", path_escape(n), path_escape(p)),
            }),
            (ObjectKind::IpAddr(a), "is_ipv4") => Value::new_bool(is_v4(a)),
            (ObjectKind::IpAddr(a), "is_ipv6") => Value::new_bool(!is_v4(a)),
            (ObjectKind::IpAddr(a), "string") => s(ip_string(a)),
            (ObjectKind::IpNet(a, _), "addr") => heap.alloc(Object {
                kind: ObjectKind::IpAddr(*a),
            }),
            (ObjectKind::IpNet(a, p), "string") => {
                let _ = p;
                s(format!("{}/{}", ip_string(a), p))
            }
            (_, m) => return Err(err(format!("unknown method {m}"))),
        })
    }
}

fn is_v4(a: &IpAddr) -> bool {
    match a {
        IpAddr::V4(_) => true,
        IpAddr::V6(v6) => v6.to_ipv4_mapped().is_some(),
    }
}

fn ip_string(a: &IpAddr) -> String {
    match a {
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => v4.to_string(),
            None => v6.to_string(),
        },
        IpAddr::V4(v4) => v4.to_string(),
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
        Ok(heap.alloc(Object {
            kind: ObjectKind::Url(u),
        }))
    }
}

pub fn url_module() -> &'static FrozenModule {
    static CELL: OnceLock<FrozenModule> = OnceLock::new();
    static_module(&CELL, |b| b.namespace("url", url_members))
}

// ------------------------------------------------------------------ ip

fn mask(a: IpAddr, prefix: u8) -> IpAddr {
    match a {
        IpAddr::V4(v4) => {
            let bits = u32::from(v4);
            let m = if prefix == 0 {
                0
            } else {
                u32::MAX << (32 - prefix as u32)
            };
            IpAddr::V4((bits & m).into())
        }
        IpAddr::V6(v6) => {
            let bits = u128::from(v6);
            let m = if prefix == 0 {
                0
            } else {
                u128::MAX << (128 - prefix as u32)
            };
            IpAddr::V6((bits & m).into())
        }
    }
}

#[starlark_module]
fn ip_members(builder: &mut GlobalsBuilder) {
    fn parse_addr<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        heap: Heap<'v>,
    ) -> starlark::Result<Value<'v>> {
        exactly("ip.parse_addr", &args, 1)?;
        let s = str_of("ip.parse_addr", args.items[0])?;
        let a: IpAddr = s
            .parse()
            .map_err(|_| err(format!("ip.parse_addr: invalid IP address: {s}")))?;
        Ok(heap.alloc(Object {
            kind: ObjectKind::IpAddr(a),
        }))
    }
    fn parse_cidr<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        heap: Heap<'v>,
    ) -> starlark::Result<Value<'v>> {
        exactly("ip.parse_cidr", &args, 1)?;
        let s = str_of("ip.parse_cidr", args.items[0])?;
        let bad = || err(format!("ip.parse_cidr: invalid CIDR address: {s}"));
        let (addr, prefix) = s.split_once('/').ok_or_else(bad)?;
        let a: IpAddr = addr.parse().map_err(|_| bad())?;
        let p: u8 = prefix.parse().map_err(|_| bad())?;
        let max = if a.is_ipv4() { 32 } else { 128 };
        if p > max || prefix.starts_with('+') || (prefix.len() > 1 && prefix.starts_with('0')) {
            return Err(bad());
        }
        let addr_v = heap.alloc(Object {
            kind: ObjectKind::IpAddr(a),
        });
        let net_v = heap.alloc(Object {
            kind: ObjectKind::IpNet(mask(a, p), p),
        });
        Ok(heap.alloc(AllocTuple([addr_v, net_v])))
    }
}

pub fn ip_module() -> &'static FrozenModule {
    static CELL: OnceLock<FrozenModule> = OnceLock::new();
    static_module(&CELL, |b| b.namespace("ip", ip_members))
}

// ------------------------------------------------------------------ version

/// The ytt version yttcheck is compatible with (for `version.require_at_least`).
pub const YTT_COMPAT_VERSION: (u64, u64, u64) = (0, 49, 0);

fn parse_semver(s: &str) -> Option<(u64, u64, u64)> {
    let core = s.split(['-', '+']).next()?;
    let mut parts = core.split('.');
    let a = parts.next()?.parse().ok()?;
    let b = parts.next()?.parse().ok()?;
    let c = parts.next()?.parse().ok()?;
    if parts.next().is_some() {
        return None;
    }
    Some((a, b, c))
}

#[starlark_module]
fn version_members(builder: &mut GlobalsBuilder) {
    fn require_at_least<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
    ) -> starlark::Result<Value<'v>> {
        exactly("version.require_at_least", &args, 1)?;
        let s = str_of("version.require_at_least", args.items[0])?;
        let Some(want) = parse_semver(s) else {
            return Err(err(format!(
                "version.require_at_least: version string '{s}' must be a valid semver"
            )));
        };
        let have = YTT_COMPAT_VERSION;
        if have < want {
            return Err(err(format!(
                "version.require_at_least: ytt version '{}.{}.{}' does not meet the minimum required version '{s}'",
                have.0, have.1, have.2
            )));
        }
        Ok(Value::new_none())
    }
}

pub fn version_module() -> &'static FrozenModule {
    static CELL: OnceLock<FrozenModule> = OnceLock::new();
    static_module(&CELL, |b| b.namespace("version", version_members))
}

// ------------------------------------------------------------------ template

#[starlark_module]
fn template_members(builder: &mut GlobalsBuilder) {
    fn replace<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        eval: &mut Evaluator<'v, '_, '_>,
    ) -> starlark::Result<Value<'v>> {
        if args.items.len() != 1 {
            return Err(err("template.replace: expected exactly one argument"));
        }
        replace_current(eval, args.items[0]).map_err(|e| err(format!("template.replace: {e}")))
    }
}

pub fn template_module() -> &'static FrozenModule {
    static CELL: OnceLock<FrozenModule> = OnceLock::new();
    static_module(&CELL, |b| b.namespace("template", template_members))
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

    #[test]
    fn ip_masks() {
        assert_eq!(mask("10.1.2.3".parse().unwrap(), 8).to_string(), "10.0.0.0");
    }
}
