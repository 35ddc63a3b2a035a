//! Starlark objects with methods, as go-starlark builtins have them (`url.parse(...)` values, `ip.parse_addr(...)` values).

use std::fmt;
use std::net::IpAddr;

use allocative::Allocative;
use starlark::any::ProvidesStaticType;
use starlark::eval::{Arguments, Evaluator};
use starlark::starlark_simple_value;
use starlark::values::starlark_value;
use starlark::values::{Heap, NoSerialize, StarlarkValue, Value};

use super::err;
use super::ip::{ip_string, is_v4};
use super::url::{path_escape, ParsedUrl};

/// Values with zero-argument methods: `url.value`, `url.user`, `ip.addr`, `ip.net`.
#[derive(Debug, Clone, ProvidesStaticType, Allocative, NoSerialize)]
pub struct Object {
    #[allocative(skip)]
    pub(super) kind: ObjectKind,
}

#[derive(Debug, Clone)]
pub(super) enum ObjectKind {
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
