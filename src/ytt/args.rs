//! Argument checks shared by the `@ytt:` modules, worded as ytt words them.

use starlark::values::tuple::UnpackTuple;
use starlark::values::Value;

use super::err;

pub(super) fn str_of<'v>(name: &str, v: Value<'v>) -> starlark::Result<&'v str> {
    v.unpack_str().ok_or_else(|| {
        err(format!(
            "{name}: expected a string, but was {}",
            v.get_type()
        ))
    })
}

pub(super) fn exactly<'v>(
    name: &str,
    args: &UnpackTuple<Value<'v>>,
    n: usize,
) -> starlark::Result<()> {
    if args.items.len() != n {
        let word = match n {
            1 => "one argument".to_string(),
            2 => "two arguments".to_string(),
            n => format!("{n} arguments"),
        };
        return Err(err(format!("{name}: expected exactly {word}")));
    }
    Ok(())
}
