//! yttcheck's extension rules (from ytt's validations proposal, never shipped
//! by ytt): `len`, `format`, `starts_with`, `ends_with`, `contains`,
//! `matches`, `even`, `odd`, `multiple_of`. Each is also `assert.<name>()`.
//!
//! Their failure messages never include the checked value: validated values
//! are often secrets.

use std::fmt;
use std::sync::Arc;

use allocative::Allocative;
use starlark::any::ProvidesStaticType;
use starlark::coerce::Coerce;
use starlark::eval::{Arguments, Evaluator};
use starlark::starlark_complex_value;
use starlark::values::float::StarlarkFloat;
use starlark::values::starlark_value;
use starlark::values::{
    Freeze, FreezeResult, Freezer, FrozenValue, NoSerialize, StarlarkValue, Trace, Tracer, Value,
    ValueLike,
};

use super::Assertion;
use crate::template::runtime::go::err;
use crate::template::runtime::go::go_type_name;

use super::formats;

/// The extension rule names, in documentation order.
pub const EXTENSIONS: &[&str] = &[
    "len",
    "format",
    "starts_with",
    "ends_with",
    "contains",
    "matches",
    "even",
    "odd",
    "multiple_of",
];

/// Extensions are native; no Starlark source.
pub fn extension_source(_name: &str) -> Option<&'static str> {
    None
}

#[derive(Debug, ProvidesStaticType, Allocative, NoSerialize, Clone, Coerce)]
#[repr(C)]
pub struct ExtensionCheckGen<V: starlark::values::ValueLifetimeless> {
    #[allocative(skip)]
    name: Arc<str>,
    arg: V,
}

starlark_complex_value!(pub ExtensionCheck);

unsafe impl<'v> Trace<'v> for ExtensionCheckGen<Value<'v>> {
    fn trace(&mut self, tracer: &Tracer<'v>) {
        self.arg.trace(tracer);
    }
}

impl<'v> Freeze for ExtensionCheckGen<Value<'v>> {
    type Frozen = ExtensionCheckGen<FrozenValue>;
    fn freeze(self, freezer: &Freezer) -> FreezeResult<Self::Frozen> {
        Ok(ExtensionCheckGen {
            name: self.name,
            arg: self.arg.freeze(freezer)?,
        })
    }
}

impl<V: starlark::values::ValueLifetimeless> fmt::Display for ExtensionCheckGen<V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "<built-in function assert.{}>", self.name)
    }
}

#[starlark_value(type = "builtin_function_or_method")]
impl<'v, V: ValueLike<'v>> StarlarkValue<'v> for ExtensionCheckGen<V>
where
    Self: ProvidesStaticType<'v>,
{
    fn invoke(
        &self,
        _me: Value<'v>,
        args: &Arguments<'v, '_>,
        eval: &mut Evaluator<'v, '_, '_>,
    ) -> starlark::Result<Value<'v>> {
        let pos: Vec<Value<'v>> = args.positions(eval.heap())?.collect();
        if pos.len() != 1 {
            return Err(err(format!(
                "assert.{}: check: got {} arguments, want 1",
                self.name,
                pos.len()
            )));
        }
        match check(&self.name, self.arg.to_value(), pos[0]) {
            Ok(()) => Ok(Value::new_bool(true)),
            Err(msg) => Err(err(format!("fail: {msg}"))),
        }
    }
}

fn number(v: Value) -> Option<f64> {
    if let Some(f) = v.downcast_ref::<StarlarkFloat>() {
        return Some(f.0);
    }
    if v.get_type() == "int" {
        return v.to_str().parse().ok();
    }
    None
}

fn int_of(v: Value) -> Option<i64> {
    if v.get_type() == "int" {
        return v.to_str().parse().ok();
    }
    None
}

/// Runs extension rule `name` with argument `arg` on `value`.
pub fn check<'v>(name: &str, arg: Value<'v>, value: Value<'v>) -> Result<(), String> {
    match name {
        "len" => {
            let want = int_of(arg).ok_or("len: expected an int")?;
            // counted as go-starlark's len counts (a string in bytes), as
            // ytt's min_len/max_len are
            let got = match value.unpack_str() {
                Some(s) => i32::try_from(s.len()).unwrap_or(i32::MAX),
                None => value
                    .length()
                    .map_err(|_| format!("value of type {} has no length", value.get_type()))?,
            };
            if i64::from(got) != want {
                return Err(format!("length = {got}"));
            }
            Ok(())
        }
        "format" => {
            let f = arg.unpack_str().ok_or("format: expected a format name")?;
            // a port is as often an int as a string
            if f == "port" {
                if let Some(n) = value.unpack_i32() {
                    return if (1..=65535).contains(&n) {
                        Ok(())
                    } else {
                        Err(format!("not {}", formats::describe(f)))
                    };
                }
            }
            let Some(s) = value.unpack_str() else {
                return Err(format!(
                    "value must be a string, but was {}",
                    value.get_type()
                ));
            };
            match formats::check(f, s) {
                Some(true) => Ok(()),
                Some(false) => Err(format!("not {}", formats::describe(f))),
                None => Err(format!(
                    "unknown format '{f}' (known: {})",
                    formats::FORMATS.join(", ")
                )),
            }
        }
        "starts_with" | "ends_with" => {
            let p = arg
                .unpack_str()
                .ok_or(format!("{name}: expected a string"))?;
            let Some(s) = value.unpack_str() else {
                return Err(format!(
                    "value must be a string, but was {}",
                    value.get_type()
                ));
            };
            let ok = if name == "starts_with" {
                s.starts_with(p)
            } else {
                s.ends_with(p)
            };
            if !ok {
                let verb = if name == "starts_with" {
                    "start"
                } else {
                    "end"
                };
                return Err(format!("value does not {verb} with {p:?}"));
            }
            Ok(())
        }
        "contains" => {
            let found = if let Some(s) = value.unpack_str() {
                let Some(needle) = arg.unpack_str() else {
                    return Err("contains: a string can only contain a string".to_string());
                };
                s.contains(needle)
            } else {
                value.is_in(arg).map_err(|_| {
                    format!("value of type {} cannot contain anything", value.get_type())
                })?
            };
            if !found {
                return Err(format!("value does not contain {}", arg.to_repr()));
            }
            Ok(())
        }
        "matches" => {
            let p = arg
                .unpack_str()
                .ok_or("matches: expected a regular expression")?;
            let re = regex::Regex::new(p)
                .map_err(|e| format!("matches: invalid regular expression: {e}"))?;
            let Some(s) = value.unpack_str() else {
                return Err(format!(
                    "value must be a string, but was {}",
                    value.get_type()
                ));
            };
            if !re.is_match(s) {
                return Err(format!("value does not match /{p}/"));
            }
            Ok(())
        }
        "even" | "odd" => {
            if arg.unpack_bool() == Some(false) {
                return Ok(());
            }
            let Some(i) = int_of(value) else {
                return Err(format!(
                    "value must be an int, but was {}",
                    value.get_type()
                ));
            };
            let even = i % 2 == 0;
            match (name, even) {
                ("even", false) => Err("value is odd".to_string()),
                ("odd", true) => Err("value is even".to_string()),
                _ => Ok(()),
            }
        }
        "multiple_of" => {
            let n = number(arg).ok_or("multiple_of: expected a number")?;
            if n == 0.0 {
                return Err("multiple_of: cannot be zero".to_string());
            }
            let Some(v) = number(value) else {
                return Err(format!(
                    "value must be a number, but was {}",
                    value.get_type()
                ));
            };
            let q = v / n;
            if (q - q.round()).abs() > 1e-9 {
                return Err(format!("value is not a multiple of {}", arg.to_repr()));
            }
            Ok(())
        }
        other => Err(format!("unknown rule {other}")),
    }
}

/// Validates a rule's argument up front (wrong types fail where the rule is
/// declared, not when a value is checked).
pub fn validate_arg(name: &str, arg: Value) -> Result<(), String> {
    let ok = match name {
        "len" => int_of(arg).map(|n| n >= 0).unwrap_or(false),
        "format" => arg
            .unpack_str()
            .map(|f| formats::FORMATS.contains(&f))
            .unwrap_or(false),
        "starts_with" | "ends_with" | "matches" => arg.unpack_str().is_some(),
        "contains" => true,
        "even" | "odd" => arg.unpack_bool().is_some(),
        "multiple_of" => number(arg).map(|n| n != 0.0).unwrap_or(false),
        _ => false,
    };
    if ok {
        if name == "matches" {
            if let Err(e) = regex::Regex::new(arg.unpack_str().unwrap_or_default()) {
                return Err(format!("invalid regular expression: {e}"));
            }
        }
        return Ok(());
    }
    Err(match name {
        "len" => format!("expected a non-negative int, but was {}", go_type_name(arg)),
        "format" => format!(
            "expected one of {}, but was {}",
            formats::FORMATS.join(", "),
            arg.to_repr()
        ),
        "even" | "odd" => format!("expected True or False, but was {}", go_type_name(arg)),
        "multiple_of" => format!("expected a non-zero number, but was {}", arg.to_repr()),
        _ => format!("expected a string, but was {}", go_type_name(arg)),
    })
}

/// `assert.<extension>(arg)`.
pub fn assert_extension<'v>(
    name: &str,
    args: &[Value<'v>],
    eval: &mut Evaluator<'v, '_, '_>,
) -> starlark::Result<Value<'v>> {
    let heap = eval.heap();
    let arg = match (name, args.len()) {
        ("even" | "odd", 0) => Value::new_bool(true),
        (_, 1) => args[0],
        (_, n) => {
            return Err(err(format!("assert.{name}: got {n} arguments, want 1")));
        }
    };
    validate_arg(name, arg).map_err(|e| err(format!("assert.{name}: {e}")))?;
    let check = heap.alloc(ExtensionCheck {
        name: Arc::from(name),
        arg,
    });
    Ok(heap.alloc(Assertion { check }))
}
