//! `@ytt:template`: `replace` of the current node.

use std::sync::OnceLock;

use starlark::environment::{FrozenModule, GlobalsBuilder};
use starlark::eval::Evaluator;
use starlark::starlark_module;
use starlark::values::tuple::UnpackTuple;
use starlark::values::Value;

use crate::template::runtime::replace_current;

use super::{err, static_module};

// ------------------------------------------------------------------ template

#[starlark_module]
fn template_members(builder: &mut GlobalsBuilder) {
    fn replace<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        eval: &mut Evaluator<'v, '_, '_>,
    ) -> starlark::Result<Value<'v>> {
        if args.items.len() != 1 {
            return Err(err("template.replace: expected exactly one argument"));
        }
        replace_current(eval, args.items[0]).map_err(|e| err(format!("template.replace: {e}")))
    }
}

pub fn template_module() -> &'static FrozenModule {
    static CELL: OnceLock<FrozenModule> = OnceLock::new();
    static_module(&CELL, |b| b.namespace("template", template_members))
}
