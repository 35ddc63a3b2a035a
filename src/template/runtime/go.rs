//! How go-starlark (ytt's interpreter) names and words things, for the
//! Starlark values and errors of starlark-rust: type names as Go prints
//! them, what go-starlark counts as callable or a sequence, and its error
//! texts. Every module that shows Starlark values or errors to users uses
//! these, so they live with the template language, below all of them.

use starlark::values::tuple::TupleRef;
use starlark::values::Value;

/// A Starlark error with `msg` as its whole text.
pub fn err(msg: impl Into<String>) -> starlark::Error {
    starlark::Error::new_other(anyhow::anyhow!("{}", msg.into()))
}

/// Go's type names for starlark values, as ytt's messages print them.
pub fn go_type_name(v: Value) -> String {
    match v.get_type() {
        "string" => "starlark.String".into(),
        "int" => "starlark.Int".into(),
        "float" => "starlark.Float".into(),
        "bool" => "starlark.Bool".into(),
        "NoneType" => "starlark.NoneType".into(),
        "list" => "*starlark.List".into(),
        "tuple" => "starlark.Tuple".into(),
        "dict" => "*starlark.Dict".into(),
        "struct" => "*core.StarlarkStruct".into(),
        "function" => "*starlark.Function".into(),
        "yamlfragment" => "*yamltemplate.StarlarkFragment".into(),
        other => other.to_string(),
    }
}

pub fn is_callable(v: Value) -> bool {
    let t = v.get_type();
    t == "function" || t.contains("function") || t == "partial"
}

/// go-starlark's `Sequence`: lists, tuples, strings-not, dicts-not.
pub fn is_sequence(v: Value) -> bool {
    matches!(v.get_type(), "list" | "tuple" | "yamlfragment" | "set")
        || TupleRef::from_value(v).is_some()
}

/// starlark-rust qualifies lambdas with their module (`assert.max.lambda`);
/// go-starlark calls them `lambda`.
pub fn short_function_name(name: &str) -> &str {
    if name.ends_with(".lambda") {
        "lambda"
    } else {
        name
    }
}

/// Go-starlark's wording for common starlark-rust errors (ytt users and ytt's
/// own tests see these strings, e.g. through `assert.try_to`).
pub fn go_error_text(e: &starlark::Error) -> String {
    let raw = format!("{}", e.without_diagnostic());
    let raw = raw
        .trim()
        .replace(crate::template::compiler::blocks::ASSERT_RENAMED, "assert");
    let code = e.span().map(|s| s.source_span().to_string());
    let raw = crate::gocompat::starlark_message(&raw, code.as_deref());
    missing_parameter(&raw)
        .or_else(|| attribute_error(&raw))
        .unwrap_or(raw)
}

/// go-starlark's words for a call without a required argument:
/// starlark-rust's "Missing parameter `value` for call to
/// `assert.not_null.lambda`" is "function lambda missing 1 argument
/// (value)".
pub fn missing_parameter(raw: &str) -> Option<String> {
    let rest = raw.strip_prefix("Missing parameter `")?;
    let (param, tail) = rest.split_once("` for call to `")?;
    let func = short_function_name(tail.trim_end().trim_end_matches('`'));
    Some(format!("function {func} missing 1 argument ({param})"))
}

/// go-starlark's words for a missing attribute: starlark-rust's "Object of
/// type `struct` has no attribute `nam`, did you mean `name`?" is "struct
/// has no .nam field or method (did you mean .name?)".
pub fn attribute_error(raw: &str) -> Option<String> {
    let rest = raw.strip_prefix("Object of type `")?;
    let (ty, tail) = rest.split_once("` has no attribute `")?;
    let (attr, more) = tail.split_once('`').unwrap_or((tail, ""));
    let near = more
        .strip_prefix(", did you mean `")
        .and_then(|m| m.strip_suffix("`?"))
        // go-starlark suggests a name only within half the name's length
        // of typos (`.x` for a struct of `a` has none)
        .filter(|n| crate::gocompat::nearest(attr, &[n.to_string()]).is_some())
        .map(|n| format!(" (did you mean .{n}?)"))
        .unwrap_or_default();
    Some(format!("{ty} has no .{attr} field or method{near}"))
}

#[cfg(test)]
mod tests {
    use super::attribute_error;

    #[test]
    fn attribute_errors_suggest_as_go_starlark_does() {
        for (raw, go) in [
            (
                "Object of type `struct` has no attribute `nam`, did you mean `name`?",
                "struct has no .nam field or method (did you mean .name?)",
            ),
            (
                "Object of type `struct` has no attribute `x`, did you mean `a`?",
                "struct has no .x field or method",
            ),
            (
                "Object of type `struct` has no attribute `rep_licas`, did you mean `replicas`?",
                "struct has no .rep_licas field or method (did you mean .replicas?)",
            ),
        ] {
            assert_eq!(attribute_error(raw).as_deref(), Some(go));
        }
    }
}
