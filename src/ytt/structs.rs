//! `@ytt:struct`: `make`, `make_and_bind`, `bind`, `encode`, `decode`.

use std::fmt;
use std::sync::OnceLock;

use allocative::Allocative;
use starlark::any::ProvidesStaticType;
use starlark::coerce::Coerce;
use starlark::collections::SmallMap;
use starlark::environment::{FrozenModule, GlobalsBuilder};
use starlark::eval::{Arguments, Evaluator};
use starlark::starlark_complex_value;
use starlark::starlark_module;
use starlark::values::dict::DictRef;
use starlark::values::starlark_value;
use starlark::values::tuple::UnpackTuple;
use starlark::values::{
    Freeze, FreezeResult, Freezer, FrozenValue, NoSerialize, StarlarkValue, Trace, Value, ValueLike,
};

use crate::template::runtime::convert::{from_yaml, to_yaml, MapAs};
use crate::template::runtime::current_store;
use crate::template::runtime::values::YttStruct;

use super::{err, static_module};

/// A function with leading arguments bound (`struct.bind`).
#[derive(Debug, Trace, ProvidesStaticType, Allocative, NoSerialize, Clone, Coerce)]
#[repr(C)]
pub struct BoundFunctionGen<V: starlark::values::ValueLifetimeless> {
    func: V,
    bound: Vec<V>,
}

starlark_complex_value!(pub BoundFunction);

impl<'v> Freeze for BoundFunctionGen<Value<'v>> {
    type Frozen = BoundFunctionGen<FrozenValue>;
    fn freeze(self, freezer: &Freezer) -> FreezeResult<Self::Frozen> {
        let mut bound = Vec::with_capacity(self.bound.len());
        for b in self.bound {
            bound.push(b.freeze(freezer)?);
        }
        Ok(BoundFunctionGen {
            func: self.func.freeze(freezer)?,
            bound,
        })
    }
}

impl<V: starlark::values::ValueLifetimeless> fmt::Display for BoundFunctionGen<V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "<built-in function struct.bind_result>")
    }
}

#[starlark_value(type = "builtin_function_or_method")]
impl<'v, V: ValueLike<'v>> StarlarkValue<'v> for BoundFunctionGen<V>
where
    Self: ProvidesStaticType<'v>,
{
    fn invoke(
        &self,
        _me: Value<'v>,
        args: &Arguments<'v, '_>,
        eval: &mut Evaluator<'v, '_, '_>,
    ) -> starlark::Result<Value<'v>> {
        let heap = eval.heap();
        let mut pos: Vec<Value<'v>> = self.bound.iter().map(|v| v.to_value()).collect();
        pos.extend(args.positions(heap)?);
        let named = args.names_map()?;
        let named: Vec<(&str, Value<'v>)> = named.iter().map(|(k, v)| (k.as_str(), *v)).collect();
        eval.eval_function(self.func.to_value(), &pos, &named)
    }
}

fn is_callable(v: Value) -> bool {
    matches!(
        v.get_type(),
        "function" | "builtin_function_or_method" | "native_function"
    ) || v.get_type().contains("function")
}

#[starlark_module]
fn struct_members(builder: &mut GlobalsBuilder) {
    fn make<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        #[starlark(kwargs)] kwargs: DictRef<'v>,
        eval: &mut Evaluator<'v, '_, '_>,
    ) -> starlark::Result<Value<'v>> {
        if !args.items.is_empty() {
            return Err(err(
                "struct.make: unexpected positional arguments (structs are made from keyword arguments only)",
            ));
        }
        let mut fields = SmallMap::new();
        for (k, v) in kwargs.iter() {
            fields.insert(k.unpack_str().unwrap_or_default().to_string(), v);
        }
        Ok(YttStruct::alloc(fields, eval.heap()))
    }

    fn make_and_bind<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        #[starlark(kwargs)] kwargs: DictRef<'v>,
        eval: &mut Evaluator<'v, '_, '_>,
    ) -> starlark::Result<Value<'v>> {
        if args.items.len() != 1 {
            return Err(err(
                "struct.make_and_bind: expected at exactly one argument",
            ));
        }
        let heap = eval.heap();
        let mut fields = SmallMap::new();
        for (k, v) in kwargs.iter() {
            let v = if is_callable(v) {
                heap.alloc(BoundFunction {
                    func: v,
                    bound: vec![args.items[0]],
                })
            } else {
                v
            };
            fields.insert(k.unpack_str().unwrap_or_default().to_string(), v);
        }
        Ok(YttStruct::alloc(fields, heap))
    }

    fn bind<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        eval: &mut Evaluator<'v, '_, '_>,
    ) -> starlark::Result<Value<'v>> {
        if args.items.len() < 2 {
            return Err(err("struct.bind: expected at least two arguments"));
        }
        Ok(eval.heap().alloc(BoundFunction {
            func: args.items[0],
            bound: args.items[1..].to_vec(),
        }))
    }

    fn encode<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        eval: &mut Evaluator<'v, '_, '_>,
    ) -> starlark::Result<Value<'v>> {
        if args.items.len() != 1 {
            return Err(err("struct.encode: expected exactly one argument"));
        }
        let y = to_yaml(args.items[0], current_store(eval))
            .map_err(|e| err(format!("struct.encode: {e}")))?;
        from_yaml(&y, eval.heap(), MapAs::Struct)
    }

    fn decode<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        eval: &mut Evaluator<'v, '_, '_>,
    ) -> starlark::Result<Value<'v>> {
        if args.items.len() != 1 {
            return Err(err("struct.decode: expected exactly one argument"));
        }
        let y = to_yaml(args.items[0], current_store(eval))
            .map_err(|e| err(format!("struct.decode: {e}")))?;
        from_yaml(&y, eval.heap(), MapAs::Dict)
    }
}

pub fn module() -> &'static FrozenModule {
    static CELL: OnceLock<FrozenModule> = OnceLock::new();
    static_module(&CELL, |b| b.namespace("struct", struct_members))
}
