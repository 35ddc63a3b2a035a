//! Assertions: the Starlark values behind `@ytt:assert`'s `min`, `max`,
//! `min_len`, `max_len`, `not_null`, `one_not_null`, `one_of` and yttcheck's
//! extensions, and the rule model of `@assert/validate` and
//! `@schema/validation` ([`rules`]).
//!
//! They sit below `ytt` (whose `@ytt:assert` hands them out), `schema` (whose
//! nodes carry parsed rules) and `validation` (which runs them), so that none
//! of those reaches up into another.
//!
//! As in ytt, most assertions are small Starlark lambdas defined in files named
//! after them (`assert.max`), so a failing check reads `in lambda /
//! assert.max:1` exactly as in ytt's messages.

pub mod extensions;
pub mod formats;
pub mod rules;
pub mod shortcut;

use std::collections::HashMap;
use std::fmt;
use std::sync::{Mutex, OnceLock};

use allocative::Allocative;
use starlark::any::ProvidesStaticType;
use starlark::coerce::Coerce;
use starlark::environment::{FrozenModule, GlobalsBuilder, Module};
use starlark::eval::{Arguments, Evaluator};
use starlark::starlark_complex_value;
use starlark::syntax::AstModule;
use starlark::values::dict::DictRef;
use starlark::values::starlark_value;
use starlark::values::{
    Freeze, FreezeResult, Freezer, FrozenValue, Heap, NoSerialize, OwnedFrozenValue, StarlarkValue,
    Trace, Value, ValueLike,
};

use crate::template::eval::{dialect, globals, static_module};
use crate::template::runtime::convert::{yaml_decode, yaml_encode};
use crate::template::runtime::go::err;
use crate::yaml::AnnValue;

// ------------------------------------------------------------------ assertion values

/// An assertion: a struct with a `check` function (type `@ytt:assert.assertion`).
#[derive(Debug, Trace, ProvidesStaticType, Allocative, NoSerialize, Clone, Coerce)]
#[repr(C)]
pub struct AssertionGen<V: starlark::values::ValueLifetimeless> {
    pub check: V,
}

starlark_complex_value!(pub Assertion);

impl<'v> Freeze for AssertionGen<Value<'v>> {
    type Frozen = AssertionGen<FrozenValue>;
    fn freeze(self, freezer: &Freezer) -> FreezeResult<Self::Frozen> {
        Ok(AssertionGen {
            check: self.check.freeze(freezer)?,
        })
    }
}

impl<V: starlark::values::ValueLifetimeless> fmt::Display for AssertionGen<V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "struct(...)")
    }
}

#[starlark_value(type = "@ytt:assert.assertion")]
impl<'v, V: ValueLike<'v>> StarlarkValue<'v> for AssertionGen<V>
where
    Self: ProvidesStaticType<'v>,
{
    fn get_attr(&self, attribute: &str, _heap: Heap<'v>) -> Option<Value<'v>> {
        (attribute == "check").then(|| self.check.to_value())
    }

    fn has_attr(&self, attribute: &str, _heap: Heap<'v>) -> bool {
        attribute == "check"
    }

    fn dir_attr(&self) -> Vec<String> {
        vec!["check".to_string()]
    }
}

/// `assert.one_not_null(...)`'s check function (native, as in ytt).
#[derive(Debug, Trace, ProvidesStaticType, Allocative, NoSerialize, Clone, Coerce)]
#[repr(C)]
pub struct OneNotNullCheckGen<V: starlark::values::ValueLifetimeless> {
    /// The keys to check, or None for all keys.
    keys: V,
}

starlark_complex_value!(pub OneNotNullCheck);

impl<'v> Freeze for OneNotNullCheckGen<Value<'v>> {
    type Frozen = OneNotNullCheckGen<FrozenValue>;
    fn freeze(self, freezer: &Freezer) -> FreezeResult<Self::Frozen> {
        Ok(OneNotNullCheckGen {
            keys: self.keys.freeze(freezer)?,
        })
    }
}

impl<V: starlark::values::ValueLifetimeless> fmt::Display for OneNotNullCheckGen<V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "<built-in function assert.one_not_null>")
    }
}

#[starlark_value(type = "builtin_function_or_method")]
impl<'v, V: ValueLike<'v>> StarlarkValue<'v> for OneNotNullCheckGen<V>
where
    Self: ProvidesStaticType<'v>,
{
    fn invoke(
        &self,
        _me: Value<'v>,
        args: &Arguments<'v, '_>,
        eval: &mut Evaluator<'v, '_, '_>,
    ) -> starlark::Result<Value<'v>> {
        let pos = args.positions(eval.heap())?.collect::<Vec<_>>();
        // ytt's check builtin is not wrapped: its messages have no prefix
        one_not_null_check(self.keys.to_value(), &pos, eval)
    }
}

fn encode_decode<'v>(
    v: Value<'v>,
    eval: &mut Evaluator<'v, '_, '_>,
) -> starlark::Result<Value<'v>> {
    let s = yaml_encode(v, eval)?;
    yaml_decode(&s, eval.heap())
}

fn one_not_null_check<'v>(
    keys: Value<'v>,
    args: &[Value<'v>],
    eval: &mut Evaluator<'v, '_, '_>,
) -> starlark::Result<Value<'v>> {
    if args.len() != 1 {
        return Err(err(format!("check: got {} arguments, want 1", args.len())));
    }
    let val = encode_decode(args[0], eval)?;
    let Some(dict) = DictRef::from_value(val) else {
        return Err(err(format!(
            "check: value must be a map or dict, but was '{}'",
            val.get_type()
        )));
    };
    let to_check: Vec<Value<'v>> = if keys.is_none() {
        dict.keys().collect()
    } else {
        let mut out = Vec::new();
        for k in keys.iterate(eval.heap())? {
            out.push(encode_decode(k, eval)?);
        }
        out
    };
    let mut not_nulls = Vec::new();
    for k in to_check {
        match dict.get(k)? {
            Some(v) if !v.is_none() => not_nulls.push(k),
            _ => {}
        }
    }
    match not_nulls.len() {
        0 => {
            if dict.is_empty() {
                Err(err("check: value is empty"))
            } else {
                Err(err("check: all values are null"))
            }
        }
        1 => Ok(Value::new_bool(true)),
        _ => {
            let reprs: Vec<String> = not_nulls.iter().map(|v| v.to_repr()).collect();
            Err(err(format!("check: [{}] are not null", reprs.join(", "))))
        }
    }
}

// ------------------------------------------------------------------ lambda factories

/// `def make(<param>): return lambda ...` compiled in a module named after the
/// assertion, with `yaml` available.
fn factory(name: &str) -> Result<OwnedFrozenValue, String> {
    static CACHE: OnceLock<Mutex<HashMap<String, OwnedFrozenValue>>> = OnceLock::new();
    let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
    if let Some(f) = cache.lock().expect("lock").get(name) {
        return Ok(f.clone());
    }
    let src = factory_source(name).ok_or_else(|| format!("unknown assertion {name}"))?;
    let module = Module::with_temp_heap(|m| -> Result<FrozenModule, String> {
        m.import_public_symbols(roundtrip_module());
        {
            let ast =
                AstModule::parse(name, src.to_string(), &dialect()).map_err(|e| e.to_string())?;
            let mut ev = Evaluator::new(&m);
            ev.eval_module(ast, globals()).map_err(|e| e.to_string())?;
        }
        m.freeze().map_err(|e| format!("{e:?}"))
    })?;
    let f = module.get("make").map_err(|e| e.to_string())?;
    cache
        .lock()
        .expect("lock")
        .insert(name.to_string(), f.clone());
    Ok(f)
}

/// `roundtrip_via_yaml(v)`: `yaml.decode(yaml.encode(v))`, which is what
/// ytt's min/max/one_of do to every value, without the detour for values it
/// cannot change (None, bools, strings, 64-bit ints): validations of a large
/// repository run it hundreds of thousands of times.
fn roundtrip_module() -> &'static FrozenModule {
    static CELL: OnceLock<FrozenModule> = OnceLock::new();
    static_module(&CELL, roundtrip_members)
}

#[starlark::starlark_module]
fn roundtrip_members(builder: &mut GlobalsBuilder) {
    fn roundtrip_via_yaml<'v>(
        v: Value<'v>,
        eval: &mut Evaluator<'v, '_, '_>,
    ) -> starlark::Result<Value<'v>> {
        let unchanged = v.is_none()
            || v.unpack_bool().is_some()
            || v.unpack_str().is_some()
            || matches!(
                <i64 as starlark::values::UnpackValue>::unpack_value(v),
                Ok(Some(_))
            );
        if unchanged {
            return Ok(v);
        }
        // a list or tuple of such values (`one_of=["a", "b"]`) decodes to a
        // list of the same values
        let items: Option<Vec<Value<'v>>> = starlark::values::list::ListRef::from_value(v)
            .map(|l| l.content().to_vec())
            .or_else(|| {
                starlark::values::tuple::TupleRef::from_value(v).map(|t| t.content().to_vec())
            });
        if let Some(items) = items {
            let plain = items.iter().all(|x| {
                x.is_none()
                    || x.unpack_bool().is_some()
                    || x.unpack_str().is_some()
                    || matches!(
                        <i64 as starlark::values::UnpackValue>::unpack_value(*x),
                        Ok(Some(_))
                    )
            });
            if plain {
                return Ok(eval.heap().alloc(starlark::values::list::AllocList(items)));
            }
        }
        // `yaml.decode(yaml.encode(v))`, with those functions' messages
        let text = yaml_encode(v, eval).map_err(|e| err(format!("yaml.encode: {e}")))?;
        yaml_decode(&text, eval.heap()).map_err(|e| err(format!("yaml.decode: {e}")))
    }
}

/// Sources of the lambda-based assertions (one line each, as in ytt).
fn factory_source(name: &str) -> Option<&'static str> {
    Some(match name {
        "assert.max_len" => "def make(maximum): return lambda sequence: True if len(sequence) <= maximum else fail (\"length = {}\".format(len(sequence)))",
        "assert.min_len" => "def make(minimum): return lambda sequence: True if len(sequence) >= minimum else fail (\"length = {}\".format(len(sequence)))",
        "assert.min" => "def make(min): return lambda val: roundtrip_via_yaml(val) >= roundtrip_via_yaml(min) or fail(\"value < {}\".format(roundtrip_via_yaml(min)))",
        "assert.max" => "def make(max): return lambda val: roundtrip_via_yaml(val) <= roundtrip_via_yaml(max) or fail(\"value > {}\".format(roundtrip_via_yaml(max)))",
        "assert.not_null" => "def make(_unused): return lambda value: value != None or fail(\"value is null\")",
        "assert.one_of" => "def make(enum): return lambda val: roundtrip_via_yaml(val) in roundtrip_via_yaml(enum) or fail(\"not one of allowed values\")",
        _ => return extensions::extension_source(name),
    })
}

/// Makes an assertion from a lambda factory bound to `arg`.
pub fn make_assertion<'v>(
    name: &str,
    arg: Value<'v>,
    eval: &mut Evaluator<'v, '_, '_>,
) -> starlark::Result<Value<'v>> {
    let f = factory(name).map_err(err)?;
    let f = eval.heap().access_owned_frozen_value(&f);
    let check = eval.eval_function(f, &[arg], &[])?;
    Ok(eval.heap().alloc(Assertion { check }))
}

/// The `check` function of assertion `name` made from `arg`, frozen so
/// that any evaluation can call it (the lambda captures `arg`). Made once
/// for each assertion and argument value (most schemas of a repository
/// say `min=0` or `min_len=1`): freezing one costs more than making it.
/// `None` when it cannot be shared (an argument that lives in an
/// evaluation, or a value other than plain data), or cannot be made (the
/// caller makes it in its evaluation, which reports the error).
pub fn frozen_check(name: &'static str, arg: &AnnValue) -> Option<OwnedFrozenValue> {
    /// Enough for every distinct argument of a large repository; past it
    /// the cache starts again (a long-lived daemon keeps no more).
    const MAX_CHECKS: usize = 4096;
    type Checks = Mutex<HashMap<(&'static str, String), OwnedFrozenValue>>;
    static CHECKS: OnceLock<Checks> = OnceLock::new();
    let key = (name, plain_key(arg)?);
    let checks = CHECKS.get_or_init(Default::default);
    if let Some(c) = checks.lock().expect("lock").get(&key) {
        return Some(c.clone());
    }
    let f = factory(name).ok()?;
    let module = Module::with_temp_heap(|m| -> Option<FrozenModule> {
        {
            let mut ev = Evaluator::new(&m);
            let make = m.heap().access_owned_frozen_value(&f);
            let a = crate::template::eval::ann_value(arg, &ev);
            let check = ev.eval_function(make, &[a], &[]).ok()?;
            m.set("check", check);
        }
        m.freeze().ok()
    })?;
    let check = module.get("check").ok()?;
    let mut checks = checks.lock().expect("lock");
    if checks.len() >= MAX_CHECKS {
        checks.clear();
    }
    checks.insert(key, check.clone());
    Some(check)
}

/// A key that equal plain values share (`int:1`, `list[string:"a"]`), or
/// `None` for anything else.
fn plain_key(arg: &AnnValue) -> Option<String> {
    fn value_key(v: Value) -> Option<String> {
        let ty = v.get_type();
        match ty {
            "int" | "float" | "string" | "bool" | "NoneType" => {
                Some(format!("{ty}:{}", v.to_repr()))
            }
            "list" | "tuple" => {
                let items: Vec<Value> = match starlark::values::list::ListRef::from_value(v) {
                    Some(l) => l.content().to_vec(),
                    None => starlark::values::tuple::TupleRef::from_value(v)?
                        .content()
                        .to_vec(),
                };
                let keys: Option<Vec<String>> = items.into_iter().map(value_key).collect();
                Some(format!("{ty}[{}]", keys?.join(",")))
            }
            _ => None,
        }
    }
    match arg {
        AnnValue::Live(_) => None,
        AnnValue::Frozen(f) => value_key(f.value()),
        AnnValue::None => Some("NoneType:None".into()),
        AnnValue::Bool(b) => Some(format!("bool:{}", if *b { "True" } else { "False" })),
        AnnValue::Int(i) => Some(format!("int:{i}")),
        // (the whole text, unquoted: nothing follows it in the key)
        AnnValue::Str(s) => Some(format!("text:{s}")),
    }
}

pub fn one_not_null_assertion<'v>(keys: Value<'v>, heap: Heap<'v>) -> Value<'v> {
    let check = heap.alloc(OneNotNullCheck { keys });
    heap.alloc(Assertion { check })
}
