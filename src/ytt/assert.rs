//! `@ytt:assert`: `equals`, `fail`, `try_to`, and the constructors of the
//! assertions behind validation rules (`min`, `max`, `min_len`, `max_len`,
//! `not_null`, `one_not_null`, `one_of`, and yttcheck's extensions), whose
//! values live in [`crate::assertions`].

use std::sync::OnceLock;

use starlark::environment::{FrozenModule, GlobalsBuilder};
use starlark::eval::Evaluator;
use starlark::starlark_module;
use starlark::values::float::StarlarkFloat;
use starlark::values::list::AllocList;
use starlark::values::tuple::{AllocTuple, UnpackTuple};
use starlark::values::{Heap, Value, ValueLike};

use crate::template::runtime::go::{go_error_text, go_type_name, is_callable, is_sequence};

use super::{err, static_module};
use crate::assertions::{make_assertion, one_not_null_assertion};
use crate::template::runtime::convert::yaml_encode;

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
        crate::assertions::extensions::assert_extension("len", &args.items, eval)
    }

    fn format<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        eval: &mut Evaluator<'v, '_, '_>,
    ) -> starlark::Result<Value<'v>> {
        crate::assertions::extensions::assert_extension("format", &args.items, eval)
    }

    fn starts_with<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        eval: &mut Evaluator<'v, '_, '_>,
    ) -> starlark::Result<Value<'v>> {
        crate::assertions::extensions::assert_extension("starts_with", &args.items, eval)
    }

    fn ends_with<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        eval: &mut Evaluator<'v, '_, '_>,
    ) -> starlark::Result<Value<'v>> {
        crate::assertions::extensions::assert_extension("ends_with", &args.items, eval)
    }

    fn contains<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        eval: &mut Evaluator<'v, '_, '_>,
    ) -> starlark::Result<Value<'v>> {
        crate::assertions::extensions::assert_extension("contains", &args.items, eval)
    }

    fn matches<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        eval: &mut Evaluator<'v, '_, '_>,
    ) -> starlark::Result<Value<'v>> {
        crate::assertions::extensions::assert_extension("matches", &args.items, eval)
    }

    fn even<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        eval: &mut Evaluator<'v, '_, '_>,
    ) -> starlark::Result<Value<'v>> {
        crate::assertions::extensions::assert_extension("even", &args.items, eval)
    }

    fn odd<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        eval: &mut Evaluator<'v, '_, '_>,
    ) -> starlark::Result<Value<'v>> {
        crate::assertions::extensions::assert_extension("odd", &args.items, eval)
    }

    fn multiple_of<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        eval: &mut Evaluator<'v, '_, '_>,
    ) -> starlark::Result<Value<'v>> {
        crate::assertions::extensions::assert_extension("multiple_of", &args.items, eval)
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
