//! Deciding, without running it, that a lambda assertion passes.
//!
//! A schema's `min=`, `max=`, `one_of=`, `min_len=`, `max_len=` and
//! `not_null=` rules run for every value of every pair: in a 1,000-pair
//! check that is tens of thousands of Starlark calls, each costing far more
//! than the comparison it makes. For the plain values most rules see (an int
//! against an int bound, a string against a list of strings) the answer is
//! computed here, with the comparison the lambda would make.
//!
//! Only a pass is ever decided here. Anything else (a failure, another
//! type, a mix of types, a big int, a float) is left to the lambda, so every
//! message, error and position stays the one the lambda gives.

use starlark::values::list::ListRef;
use starlark::values::tuple::TupleRef;
use starlark::values::Value;

/// Whether assertion `factory` made from `arg` surely holds for `value`;
/// `false` means "run the lambda", not "fails".
pub fn surely_holds(factory: &str, arg: Value, value: Value) -> bool {
    match factory {
        "assert.min" => plain_compare(value, arg).is_some_and(|o| o.is_ge()),
        "assert.max" => plain_compare(value, arg).is_some_and(|o| o.is_le()),
        "assert.one_of" => one_of(arg, value),
        "assert.min_len" => length(value).zip(int(arg)).is_some_and(|(n, m)| n >= m),
        "assert.max_len" => length(value).zip(int(arg)).is_some_and(|(n, m)| n <= m),
        "assert.not_null" => !value.is_none(),
        _ => false,
    }
}

/// A 64-bit int (not a bool, not a big int: those the lambda compares).
fn int(v: Value) -> Option<i64> {
    if v.get_type() != "int" {
        return None;
    }
    <i64 as starlark::values::UnpackValue>::unpack_value(v)
        .ok()
        .flatten()
}

/// `a` against `b` when both are 64-bit ints or both strings (which
/// `roundtrip_via_yaml` returns unchanged, and Starlark orders as Rust
/// does: ints by value, strings by their UTF-8 bytes).
fn plain_compare(a: Value, b: Value) -> Option<std::cmp::Ordering> {
    if let (Some(x), Some(y)) = (int(a), int(b)) {
        return Some(x.cmp(&y));
    }
    match (a.unpack_str(), b.unpack_str()) {
        (Some(x), Some(y)) => Some(x.cmp(y)),
        _ => None,
    }
}

/// `value in enum` for a list or tuple of only strings or only ints, and a
/// value of the same kind, when it is found.
fn one_of(arg: Value, value: Value) -> bool {
    let items = match ListRef::from_value(arg) {
        Some(l) => l.content(),
        None => match TupleRef::from_value(arg) {
            Some(t) => t.content(),
            None => return false,
        },
    };
    if let Some(s) = value.unpack_str() {
        items.iter().all(|x| x.unpack_str().is_some())
            && items.iter().any(|x| x.unpack_str() == Some(s))
    } else if let Some(n) = int(value) {
        items.iter().all(|x| int(*x).is_some()) && items.iter().any(|x| int(*x) == Some(n))
    } else {
        false
    }
}

/// `len(value)` for a string (its bytes of UTF-8, as go-starlark and our
/// `len` count) or a list.
fn length(v: Value) -> Option<i64> {
    if let Some(s) = v.unpack_str() {
        return Some(s.len() as i64);
    }
    ListRef::from_value(v).map(|l| l.len() as i64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::template::eval::{dialect, globals};
    use starlark::environment::Module;
    use starlark::eval::Evaluator;
    use starlark::syntax::AstModule;

    /// Every shortcut's pass is a pass of the lambda itself, on values of
    /// every kind the rules meet (and the shortcut does decide most plain
    /// cases, or it saves nothing).
    #[test]
    fn a_shortcut_pass_is_a_lambda_pass() {
        let values = [
            "None",
            "True",
            "False",
            "0",
            "1",
            "-3",
            "7",
            "100000",
            "9223372036854775807",
            "99999999999999999999",
            "0.5",
            "1.0",
            "'a'",
            "'low'",
            "'medium'",
            "'b'",
            "''",
            "'é'",
            "'éé'",
            "'10'",
            "[]",
            "[1]",
            "[1, 2, 3]",
            "['a', 'b']",
            "{}",
            "{'a': 1}",
            "(1, 2)",
        ];
        let args = [
            ("assert.min", "0"),
            ("assert.min", "1"),
            ("assert.min", "'b'"),
            ("assert.min", "0.5"),
            ("assert.max", "7"),
            ("assert.max", "'medium'"),
            ("assert.max", "99999999999999999999"),
            ("assert.one_of", "['low', 'medium', 'high']"),
            ("assert.one_of", "(1, 7)"),
            ("assert.one_of", "[1, 'a']"),
            ("assert.one_of", "[True, 1]"),
            ("assert.min_len", "1"),
            ("assert.min_len", "2"),
            ("assert.max_len", "2"),
            ("assert.not_null", "True"),
        ];
        let mut decided = 0;
        for (factory, arg) in args {
            for value in values {
                let src = format!("a = {arg}\nv = {value}\n");
                let (lambda, shortcut) = Module::with_temp_heap(|module| {
                    let ast = AstModule::parse("t", src, &dialect()).unwrap();
                    let mut ev = Evaluator::new(&module);
                    ev.eval_module(ast, globals()).unwrap();
                    let a = module.get("a").unwrap();
                    let v = module.get("v").unwrap();
                    let made = super::super::make_assertion(factory, a, &mut ev).unwrap();
                    let check = made.get_attr("check", module.heap()).unwrap().unwrap();
                    let lambda = ev
                        .eval_function(check, &[v], &[])
                        .ok()
                        .and_then(|r| r.unpack_bool())
                        == Some(true);
                    (lambda, surely_holds(factory, a, v))
                });
                assert!(
                    !shortcut || lambda,
                    "{factory}({arg}) on {value}: the shortcut passes, the lambda does not"
                );
                decided += usize::from(shortcut);
            }
        }
        assert!(decided >= 40, "the shortcut decided only {decided} cases");
    }
}
