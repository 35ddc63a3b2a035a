//! `@ytt:ip`: addresses and CIDR networks, as Go's `net` prints them.

use std::net::IpAddr;
use std::sync::OnceLock;

use starlark::environment::{FrozenModule, GlobalsBuilder};
use starlark::starlark_module;
use starlark::values::tuple::{AllocTuple, UnpackTuple};
use starlark::values::{Heap, Value};

use super::args::{exactly, str_of};
use super::object::{Object, ObjectValue};
use super::{err, static_module};

pub(super) fn is_v4(a: &IpAddr) -> bool {
    match a {
        IpAddr::V4(_) => true,
        IpAddr::V6(v6) => v6.to_ipv4_mapped().is_some(),
    }
}

pub(super) fn ip_string(a: &IpAddr) -> String {
    match a {
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => v4.to_string(),
            None => v6.to_string(),
        },
        IpAddr::V4(v4) => v4.to_string(),
    }
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

/// `ip.parse_addr(...)`'s value.
#[derive(Debug, Clone)]
struct Addr(IpAddr);

/// The network of `ip.parse_cidr(...)`: its masked address and prefix.
#[derive(Debug, Clone)]
struct Net(IpAddr, u8);

impl ObjectValue for Addr {
    fn type_name(&self) -> &'static str {
        "@ytt:ip.addr"
    }
    fn methods(&self) -> &'static [&'static str] {
        &["is_ipv4", "is_ipv6", "string"]
    }
    fn call<'v>(&self, name: &str, heap: Heap<'v>) -> starlark::Result<Value<'v>> {
        Ok(match name {
            "is_ipv4" => Value::new_bool(is_v4(&self.0)),
            "is_ipv6" => Value::new_bool(!is_v4(&self.0)),
            _ => heap.alloc_str(&ip_string(&self.0)).to_value(),
        })
    }
}

impl ObjectValue for Net {
    fn type_name(&self) -> &'static str {
        "@ytt:ip.net"
    }
    fn methods(&self) -> &'static [&'static str] {
        &["addr", "string"]
    }
    fn call<'v>(&self, name: &str, heap: Heap<'v>) -> starlark::Result<Value<'v>> {
        Ok(match name {
            "addr" => heap.alloc(Object::new(Addr(self.0))),
            _ => heap
                .alloc_str(&format!("{}/{}", ip_string(&self.0), self.1))
                .to_value(),
        })
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
        Ok(heap.alloc(Object::new(Addr(a))))
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
        let addr_v = heap.alloc(Object::new(Addr(a)));
        let net_v = heap.alloc(Object::new(Net(mask(a, p), p)));
        Ok(heap.alloc(AllocTuple([addr_v, net_v])))
    }
}

pub fn ip_module() -> &'static FrozenModule {
    static CELL: OnceLock<FrozenModule> = OnceLock::new();
    static_module(&CELL, |b| b.namespace("ip", ip_members))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ip_masks() {
        assert_eq!(mask("10.1.2.3".parse().unwrap(), 8).to_string(), "10.0.0.0");
    }
}
