//! `@ytt:assert`: `equals`, `fail`, `try_to`, and the assertions behind
//! validation rules (`min`, `max`, `min_len`, `max_len`, `not_null`,
//! `one_not_null`, `one_of`), plus yttcheck's extensions from ytt's
//! validations proposal (see [`crate::validation::rules`]).
//!
//! As in ytt, most assertions are small Starlark lambdas defined in files named
//! after them (`assert.max`), so a failing check reads `in lambda /
//! assert.max:1` exactly as in ytt's messages.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Mutex, OnceLock};

use allocative::Allocative;
use starlark::any::ProvidesStaticType;
use starlark::coerce::Coerce;
use starlark::environment::{FrozenModule, GlobalsBuilder, Module};
use starlark::eval::{Arguments, Evaluator};
use starlark::starlark_complex_value;
use starlark::starlark_module;
use starlark::syntax::AstModule;
use starlark::values::dict::DictRef;
use starlark::values::float::StarlarkFloat;
use starlark::values::list::AllocList;
use starlark::values::starlark_value;
use starlark::values::tuple::{AllocTuple, UnpackTuple};
use starlark::values::{
    Freeze, FreezeResult, Freezer, FrozenValue, Heap, NoSerialize, OwnedFrozenValue, StarlarkValue,
    Trace, Value, ValueLike,
};

use crate::template::eval::{dialect, globals};
use crate::template::go::{go_error_text, go_type_name, is_callable, is_sequence};

use super::codec::{yaml_decode, yaml_encode};
use super::{err, static_module};

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
        m.import_public_symbols(super::codec::yaml_module());
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
    super::static_module(&CELL, roundtrip_members)
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
        let yaml = super::codec::yaml_module()
            .get("yaml")
            .map_err(|e| err(e.to_string()))?;
        let yaml = eval.heap().access_owned_frozen_value(&yaml);
        let attr = |name: &str, eval: &mut Evaluator<'v, '_, '_>| {
            yaml.get_attr(name, eval.heap())
                .ok()
                .flatten()
                .ok_or_else(|| err(format!("yaml.{name} missing")))
        };
        let encode = attr("encode", eval)?;
        let decode = attr("decode", eval)?;
        let text = eval.eval_function(encode, &[v], &[])?;
        eval.eval_function(decode, &[text], &[])
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
        _ => return crate::validation::rules::extension_source(name),
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

fn one_not_null_assertion<'v>(keys: Value<'v>, heap: Heap<'v>) -> Value<'v> {
    let check = heap.alloc(OneNotNullCheck { keys });
    heap.alloc(Assertion { check })
}

/// ytt's number check for `min_len`/`max_len` (`starlark.NumberToInt`: ints
/// as they are, floats truncated toward zero).
fn int_arg<'v>(name: &str, v: Value<'v>, heap: Heap<'v>) -> starlark::Result<Value<'v>> {
    match v.get_type() {
        "int" => Ok(v),
        "float" => match v.downcast_ref::<StarlarkFloat>() {
            Some(f) if f.0.is_finite() => Ok(heap.alloc(f.0.trunc() as i64)),
            _ => Err(err(format!(
                "{name}: expected value to be an number, but was float"
            ))),
        },
        other => Err(err(format!(
            "{name}: expected value to be an number, but was {other}"
        ))),
    }
}

// ------------------------------------------------------------------ module

#[starlark_module]
fn assert_members(builder: &mut GlobalsBuilder) {
    fn equals<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        eval: &mut Evaluator<'v, '_, '_>,
    ) -> starlark::Result<Value<'v>> {
        if args.items.len() != 2 {
            return Err(err(format!(
                "assert.equals: got {} arguments, want 2",
                args.items.len()
            )));
        }
        let (expected, actual) = (args.items[0], args.items[1]);
        for v in [expected, actual] {
            if is_callable(v) {
                return Err(err(format!(
                    "assert.equals: expected argument not to be a function, but was {}",
                    go_type_name(v)
                )));
            }
        }
        let e = yaml_encode(expected, eval).map_err(|e| err(format!("assert.equals: {e}")))?;
        let a = yaml_encode(actual, eval).map_err(|e| err(format!("assert.equals: {e}")))?;
        if e != a {
            return Err(err(format!(
                "assert.equals: Not equal:\n(expected type: {})\n{}\n\n(was type: {})\n{}",
                expected.get_type(),
                e,
                actual.get_type(),
                a
            )));
        }
        Ok(Value::new_none())
    }

    fn fail<'v>(#[starlark(args)] args: UnpackTuple<Value<'v>>) -> starlark::Result<Value<'v>> {
        if args.items.len() != 1 {
            return Err(err(format!(
                "assert.fail: got {} arguments, want 1",
                args.items.len()
            )));
        }
        let Some(msg) = args.items[0].unpack_str() else {
            return Err(err(format!(
                "assert.fail: expected a string, but was {}",
                args.items[0].get_type()
            )));
        };
        Err(err(format!("assert.fail: fail: {msg}")))
    }

    fn try_to<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        eval: &mut Evaluator<'v, '_, '_>,
    ) -> starlark::Result<Value<'v>> {
        if args.items.len() != 1 {
            return Err(err(format!(
                "assert.try_to: got {} arguments, want 1",
                args.items.len()
            )));
        }
        let f = args.items[0];
        if !is_callable(f) {
            return Err(err(format!(
                "assert.try_to: expected argument to be a function, but was {}",
                go_type_name(f)
            )));
        }
        let heap = eval.heap();
        match eval.eval_function(f, &[], &[]) {
            Ok(v) => Ok(heap.alloc(AllocTuple([v, Value::new_none()]))),
            Err(e) => {
                let msg = go_error_text(&e);
                Ok(heap.alloc(AllocTuple([
                    Value::new_none(),
                    heap.alloc_str(&msg).to_value(),
                ])))
            }
        }
    }

    fn min<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        eval: &mut Evaluator<'v, '_, '_>,
    ) -> starlark::Result<Value<'v>> {
        if args.items.len() != 1 {
            return Err(err(format!(
                "assert.min: got {} arguments, want 1",
                args.items.len()
            )));
        }
        make_assertion("assert.min", args.items[0], eval)
    }

    fn max<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        eval: &mut Evaluator<'v, '_, '_>,
    ) -> starlark::Result<Value<'v>> {
        if args.items.len() != 1 {
            return Err(err(format!(
                "assert.max: got {} arguments, want 1",
                args.items.len()
            )));
        }
        make_assertion("assert.max", args.items[0], eval)
    }

    fn min_len<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        eval: &mut Evaluator<'v, '_, '_>,
    ) -> starlark::Result<Value<'v>> {
        if args.items.len() != 1 {
            return Err(err(format!(
                "assert.min_len: got {} arguments, want 1",
                args.items.len()
            )));
        }
        let n = int_arg("assert.min_len", args.items[0], eval.heap())?;
        make_assertion("assert.min_len", n, eval)
    }

    fn max_len<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        eval: &mut Evaluator<'v, '_, '_>,
    ) -> starlark::Result<Value<'v>> {
        if args.items.len() != 1 {
            return Err(err(format!(
                "assert.max_len: got {} arguments, want 1",
                args.items.len()
            )));
        }
        let n = int_arg("assert.max_len", args.items[0], eval.heap())?;
        make_assertion("assert.max_len", n, eval)
    }

    fn not_null<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        eval: &mut Evaluator<'v, '_, '_>,
    ) -> starlark::Result<Value<'v>> {
        if args.items.len() > 1 {
            return Err(err(format!(
                "assert.not_null: got {} arguments, want at most 1",
                args.items.len()
            )));
        }
        let a = make_assertion("assert.not_null", Value::new_none(), eval)?;
        match args.items.first() {
            None => Ok(a),
            Some(v) => {
                let check = a
                    .get_attr("check", eval.heap())?
                    .unwrap_or_else(Value::new_none);
                // ytt's builtin wraps the check's failure in its own name,
                // as go-starlark does for every builtin
                eval.eval_function(check, &[*v], &[])
                    .map_err(|e| err(format!("assert.not_null: {}", go_error_text(&e))))
            }
        }
    }

    fn one_not_null<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        eval: &mut Evaluator<'v, '_, '_>,
    ) -> starlark::Result<Value<'v>> {
        let heap = eval.heap();
        if args.items.len() > 1 {
            return Err(err(format!(
                "assert.one_not_null: got {} arguments, want 1",
                args.items.len()
            )));
        }
        let Some(arg) = args.items.first().copied() else {
            return Ok(one_not_null_assertion(Value::new_none(), heap));
        };
        if let Some(b) = arg.unpack_bool() {
            if b {
                return Ok(one_not_null_assertion(Value::new_none(), heap));
            }
            return Err(err("assert.one_not_null: one_not_null() cannot be False"));
        }
        if !is_sequence(arg) {
            return Err(err(format!(
                "assert.one_not_null: expected a sequence of keys, but was a '{}'",
                arg.get_type()
            )));
        }
        Ok(one_not_null_assertion(arg, heap))
    }

    fn one_of<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        eval: &mut Evaluator<'v, '_, '_>,
    ) -> starlark::Result<Value<'v>> {
        if args.items.is_empty() {
            return Err(err("assert.one_of: got 0 arguments, want at least 1"));
        }
        let heap = eval.heap();
        let enum_ = if args.items.len() > 1 {
            heap.alloc(AllocTuple(args.items.clone()))
        } else {
            args.items[0]
        };
        if !is_sequence(enum_) {
            return Err(err(format!(
                "assert.one_of: expected a sequence, but was a '{}'",
                enum_.get_type()
            )));
        }
        make_assertion("assert.one_of", enum_, eval)
    }

    fn len<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        eval: &mut Evaluator<'v, '_, '_>,
    ) -> starlark::Result<Value<'v>> {
        crate::validation::rules::assert_extension("len", &args.items, eval)
    }

    fn format<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        eval: &mut Evaluator<'v, '_, '_>,
    ) -> starlark::Result<Value<'v>> {
        crate::validation::rules::assert_extension("format", &args.items, eval)
    }

    fn starts_with<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        eval: &mut Evaluator<'v, '_, '_>,
    ) -> starlark::Result<Value<'v>> {
        crate::validation::rules::assert_extension("starts_with", &args.items, eval)
    }

    fn ends_with<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        eval: &mut Evaluator<'v, '_, '_>,
    ) -> starlark::Result<Value<'v>> {
        crate::validation::rules::assert_extension("ends_with", &args.items, eval)
    }

    fn contains<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        eval: &mut Evaluator<'v, '_, '_>,
    ) -> starlark::Result<Value<'v>> {
        crate::validation::rules::assert_extension("contains", &args.items, eval)
    }

    fn matches<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        eval: &mut Evaluator<'v, '_, '_>,
    ) -> starlark::Result<Value<'v>> {
        crate::validation::rules::assert_extension("matches", &args.items, eval)
    }

    fn even<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        eval: &mut Evaluator<'v, '_, '_>,
    ) -> starlark::Result<Value<'v>> {
        crate::validation::rules::assert_extension("even", &args.items, eval)
    }

    fn odd<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        eval: &mut Evaluator<'v, '_, '_>,
    ) -> starlark::Result<Value<'v>> {
        crate::validation::rules::assert_extension("odd", &args.items, eval)
    }

    fn multiple_of<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        eval: &mut Evaluator<'v, '_, '_>,
    ) -> starlark::Result<Value<'v>> {
        crate::validation::rules::assert_extension("multiple_of", &args.items, eval)
    }
}

pub fn module() -> &'static FrozenModule {
    static CELL: OnceLock<FrozenModule> = OnceLock::new();
    static_module(&CELL, |b| b.namespace("assert", assert_members))
}

/// Helper for other modules: a list value.
pub fn list<'v>(items: Vec<Value<'v>>, heap: Heap<'v>) -> Value<'v> {
    heap.alloc(AllocList(items))
}
