//! `@ytt:data`: `data.values`, `data.list()`, `data.read()`.

use std::sync::OnceLock;

use starlark::collections::SmallMap;
use starlark::environment::{FrozenModule, GlobalsBuilder, Module};
use starlark::eval::Evaluator;
use starlark::starlark_module;
use starlark::values::list::AllocList;
use starlark::values::tuple::UnpackTuple;
use starlark::values::Value;

use crate::template::runtime::convert::{from_yaml, MapAs};
use crate::template::runtime::runtime;
use crate::template::runtime::values::YttModule;
use crate::yaml::Value as YValue;

use super::{err, static_module};

#[starlark_module]
fn data_funcs(builder: &mut GlobalsBuilder) {
    fn list<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        eval: &mut Evaluator<'v, '_, '_>,
    ) -> starlark::Result<Value<'v>> {
        if args.items.len() > 1 {
            return Err(err("data.list: expected exactly zero or one argument"));
        }
        let path = match args.items.first() {
            None => "",
            Some(v) => v.unpack_str().ok_or_else(|| {
                err(format!(
                    "data.list: expected a string, but was {}",
                    v.get_type()
                ))
            })?,
        };
        let rt = runtime(eval)?;
        let host = rt
            .host
            .as_ref()
            .ok_or_else(|| err("data.list: no library context"))?;
        let paths = host
            .data_list(path)
            .map_err(|e| err(format!("data.list: {e}")))?;
        let heap = eval.heap();
        let items: Vec<Value> = paths.iter().map(|p| heap.alloc_str(p).to_value()).collect();
        Ok(heap.alloc(AllocList(items)))
    }

    fn read<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        eval: &mut Evaluator<'v, '_, '_>,
    ) -> starlark::Result<Value<'v>> {
        if args.items.len() != 1 {
            return Err(err("data.read: expected exactly one argument"));
        }
        let path = args.items[0].unpack_str().ok_or_else(|| {
            err(format!(
                "data.read: expected a string, but was {}",
                args.items[0].get_type()
            ))
        })?;
        let rt = runtime(eval)?;
        let host = rt
            .host
            .as_ref()
            .ok_or_else(|| err("data.read: no library context"))?;
        let text = host
            .data_read(path)
            .map_err(|e| err(format!("data.read: {e}")))?;
        Ok(eval.heap().alloc_str(&text).to_value())
    }
}

fn funcs() -> &'static FrozenModule {
    static CELL: OnceLock<FrozenModule> = OnceLock::new();
    static_module(&CELL, data_funcs)
}

/// Builds `@ytt:data` for the given data values.
pub fn module(
    values: &YValue,
    reads: Option<&std::sync::Arc<crate::template::runtime::values::ReadLog>>,
) -> Result<FrozenModule, String> {
    let funcs = funcs();
    Module::with_temp_heap(|m| {
        let heap = m.heap();
        let values = match reads {
            Some(log) => {
                crate::template::runtime::convert::from_yaml_tracked(values, heap, log, "")
            }
            None => from_yaml(values, heap, MapAs::Struct),
        }
        .map_err(|e| e.to_string())?;
        let mut members = SmallMap::new();
        members.insert("values".to_string(), values);
        for name in ["list", "read"] {
            let f = funcs.get(name).map_err(|e| e.to_string())?;
            members.insert(name.to_string(), heap.access_owned_frozen_value(&f));
        }
        m.set(
            "data",
            heap.alloc(YttModule {
                name: "data".to_string(),
                members,
            }),
        );
        m.freeze().map_err(|e| format!("{e:?}"))
    })
}
