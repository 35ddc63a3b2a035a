//! `@ytt:math`: Go's math functions, with Go's rounding and special values.

use std::sync::OnceLock;

use starlark::environment::{FrozenModule, GlobalsBuilder};
use starlark::starlark_module;
use starlark::values::float::StarlarkFloat;
use starlark::values::tuple::UnpackTuple;
use starlark::values::{Heap, Value, ValueLike};

use super::{err, static_module};

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
