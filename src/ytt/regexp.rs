//! `@ytt:regexp`: `match` and `replace` with Go's RE2 syntax.

use std::sync::OnceLock;

use starlark::environment::{FrozenModule, GlobalsBuilder};
use starlark::eval::Evaluator;
use starlark::starlark_module;
use starlark::values::tuple::UnpackTuple;
use starlark::values::Value;

use super::args::{exactly, str_of};
use super::{err, static_module};

// ------------------------------------------------------------------ regexp

#[starlark_module]
fn regexp_members(builder: &mut GlobalsBuilder) {
    fn r#match<'v>(#[starlark(args)] args: UnpackTuple<Value<'v>>) -> starlark::Result<bool> {
        exactly("regexp.match", &args, 2)?;
        let pattern = str_of("regexp.match", args.items[0])?;
        let target = str_of("regexp.match", args.items[1])?;
        let re = regex::Regex::new(pattern).map_err(|e| err(format!("regexp.match: {e}")))?;
        Ok(re.is_match(target))
    }

    fn replace<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        eval: &mut Evaluator<'v, '_, '_>,
    ) -> starlark::Result<Value<'v>> {
        exactly("regexp.replace", &args, 3)?;
        let pattern = str_of("regexp.replace", args.items[0])?;
        let source = str_of("regexp.replace", args.items[1])?;
        let re = regex::Regex::new(pattern).map_err(|e| err(format!("regexp.replace: {e}")))?;
        let repl = args.items[2];
        let out = if let Some(r) = repl.unpack_str() {
            // Go's $1 / ${1} expansion is the same syntax as the regex crate's.
            re.replace_all(source, r).into_owned()
        } else {
            let mut result = String::new();
            let mut last = 0;
            for m in re.find_iter(source) {
                result.push_str(&source[last..m.start()]);
                let s = eval.heap().alloc_str(m.as_str()).to_value();
                let r = eval.eval_function(repl, &[s], &[])?;
                let Some(r) = r.unpack_str() else {
                    return Err(err(format!(
                        "regexp.replace: expected replacement function to return a string, but was {}",
                        r.get_type()
                    )));
                };
                result.push_str(r);
                last = m.end();
            }
            result.push_str(&source[last..]);
            result
        };
        Ok(eval.heap().alloc_str(&out).to_value())
    }
}

pub fn regexp_module() -> &'static FrozenModule {
    static CELL: OnceLock<FrozenModule> = OnceLock::new();
    static_module(&CELL, |b| b.namespace("regexp", regexp_members))
}
