//! Annotation arguments that are literals, evaluated once when a template
//! is compiled instead of on every evaluation.
//!
//! Most annotations carry nothing but literals (`@schema/validation min=1`,
//! `@overlay/match missing_ok=True`, `one_of=["a", "b"]`). Evaluated as
//! Starlark they cost a statement each, compiled and run for every pair;
//! a large schema is mostly such statements. An annotation whose arguments
//! are all literals gets the same values here, parsed by starlark-rust's
//! own parser and allocated as the frozen values the evaluation would have
//! produced; the compiler then writes no statement for it.
//!
//! Anything else (a name, a call, a lambda, an operator, string
//! concatenation, a number beyond 64 bits) is left to Starlark, so values
//! and errors stay those of an evaluation.

use starlark::syntax::ast::{ArgumentP, AstExpr, AstLiteral, AstStmt, ExprP, StmtP};
use starlark::syntax::AstModule;
use starlark::typing::Ty;
use starlark::values::list::AllocList;
use starlark::values::none::NoneType;
use starlark::values::tuple::AllocTuple;
use starlark::values::type_repr::StarlarkTypeRepr;
use starlark::values::{AllocFrozenValue, FrozenHeap, FrozenValue, OwnedFrozenValue};
use starlark_syntax::lexer::TokenInt;

use crate::yaml::AnnValue;

/// Lists and tuples nested deeper than this are left to Starlark (and to
/// its depth guard).
const MAX_DEPTH: usize = 16;

/// An annotation's arguments: positional, then named.
pub type Arguments = (Vec<AnnValue>, Vec<(String, AnnValue)>);

/// The values of `content` (the text after an annotation's name) when it
/// is a list of literal arguments. `constants_free` says whether `True`,
/// `False` and `None` are the builtin constants here: `false` when the
/// template's code mentions them, since code may bind those names.
pub fn arguments(content: &str, constants_free: bool) -> Option<Arguments> {
    arguments_of_each(&[content], constants_free)
        .pop()
        .flatten()
}

/// [`arguments`] of each of a template's annotations, in one parse: the
/// parser's set-up costs more than a short annotation, and a schema has
/// hundreds. A syntax error anywhere makes each be parsed alone.
pub fn arguments_of_each(contents: &[&str], constants_free: bool) -> Vec<Option<Arguments>> {
    let mut out: Vec<Option<Arguments>> = vec![None; contents.len()];
    // line (0-based) of the batch -> index of its annotation
    let mut at_line: Vec<usize> = Vec::new();
    let mut source = String::new();
    for (i, content) in contents.iter().enumerate() {
        if content.trim().is_empty() {
            out[i] = Some((Vec::new(), Vec::new()));
        } else if !content.contains(['\n', '\r', '#']) && !names_a_value(content) {
            // one line, no comment that could swallow the closing bracket
            source.push_str("_(");
            source.push_str(content);
            source.push_str(")\n");
            at_line.push(i);
        }
    }
    if at_line.is_empty() || super::limits::too_deep(&source).is_some() {
        return out;
    }
    let dialect = super::dialect();
    let Ok(ast) = AstModule::parse("annotations", source, &dialect) else {
        if at_line.len() > 1 {
            for i in at_line {
                out[i] = arguments(contents[i], constants_free);
            }
        }
        return out;
    };
    let statements: &[AstStmt] = match &ast.statement().node {
        StmtP::Statements(s) => s,
        _ => std::slice::from_ref(ast.statement()),
    };
    // a line holding anything but one call (`a=1); x=(2`) is left to Starlark
    let mut per_line = vec![0usize; at_line.len()];
    let mut calls: Vec<(usize, &AstExpr)> = Vec::new();
    for st in statements {
        let line = ast.file_span(st.span).resolve_span().begin.line;
        let Some(count) = per_line.get_mut(line) else {
            continue;
        };
        *count += 1;
        if let StmtP::Expression(e) = &st.node {
            calls.push((line, e));
        }
    }
    for (line, call) in calls {
        if per_line[line] == 1 {
            out[at_line[line]] = call_arguments(call, constants_free);
        }
    }
    out
}

/// Whether `content` surely names something besides argument names and
/// the constants (`max=limit`, `lambda v: ...`, `overlay.subset(...)`): not
/// worth parsing here, Starlark parses it anyway. A quick look at the
/// characters outside strings; when unsure (an odd string), it says no and
/// the parser decides.
fn names_a_value(content: &str) -> bool {
    let bytes = content.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'"' || b == b'\'' {
            // skip the string (escapes included); a triple quote is unsure
            if bytes[i..].starts_with(&[b, b, b]) {
                return false;
            }
            i += 1;
            while i < bytes.len() && bytes[i] != b {
                i += if bytes[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
        } else if b.is_ascii_digit() {
            // a number, with its letters (`0x1F`, `1e5`)
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'.') {
                i += 1;
            }
        } else if b.is_ascii_alphabetic() || b == b'_' {
            let start = i;
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            let word = &content[start..i];
            let rest = content[i..].trim_start();
            let argument_name = rest.starts_with('=') && !rest.starts_with("==");
            if !argument_name && !matches!(word, "True" | "False" | "None") {
                return true;
            }
        } else {
            i += 1;
        }
    }
    false
}

/// The arguments of `_(...)`, when all are literals.
fn call_arguments(call: &AstExpr, constants_free: bool) -> Option<Arguments> {
    let ExprP::Call(_, args) = &call.node else {
        return None;
    };
    let heap = FrozenHeap::new();
    let mut positional = Vec::new();
    let mut named: Vec<(String, FrozenValue)> = Vec::new();
    for arg in &args.args {
        match &arg.node {
            ArgumentP::Positional(e) if named.is_empty() => {
                positional.push(heap.alloc(literal(e, constants_free, 0)?));
            }
            ArgumentP::Named(name, e) => {
                if named.iter().any(|(n, _)| *n == name.node) {
                    return None;
                }
                named.push((
                    name.node.clone(),
                    heap.alloc(literal(e, constants_free, 0)?),
                ));
            }
            _ => return None,
        }
    }
    let owner = heap.into_ref();
    // SAFETY: every value was allocated on `heap` (or is a static constant),
    // and `owner` keeps that heap alive for as long as the value is held.
    let own = |v: FrozenValue| AnnValue::Frozen(unsafe { OwnedFrozenValue::new(owner.clone(), v) });
    Some((
        positional.into_iter().map(own).collect(),
        named.into_iter().map(|(n, v)| (n, own(v))).collect(),
    ))
}

/// A literal value, ready to be allocated.
enum Literal {
    None,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    List(Vec<Literal>),
    Tuple(Vec<Literal>),
}

impl StarlarkTypeRepr for Literal {
    type Canonical = FrozenValue;
    fn starlark_type_repr() -> Ty {
        FrozenValue::starlark_type_repr()
    }
}

impl AllocFrozenValue for Literal {
    fn alloc_frozen_value(self, heap: &FrozenHeap) -> FrozenValue {
        match self {
            Literal::None => heap.alloc(NoneType),
            Literal::Bool(b) => heap.alloc(b),
            Literal::Int(i) => heap.alloc(i),
            Literal::Float(f) => heap.alloc(f),
            Literal::Str(s) => heap.alloc(s.as_str()),
            Literal::List(items) => heap.alloc(AllocList(items)),
            Literal::Tuple(items) => heap.alloc(AllocTuple(items)),
        }
    }
}

fn literal(e: &AstExpr, constants_free: bool, depth: usize) -> Option<Literal> {
    if depth > MAX_DEPTH {
        return None;
    }
    let items = |xs: &[AstExpr]| {
        xs.iter()
            .map(|x| literal(x, constants_free, depth + 1))
            .collect::<Option<Vec<_>>>()
    };
    Some(match &e.node {
        ExprP::Literal(AstLiteral::Int(i)) => Literal::Int(int(&i.node)?),
        ExprP::Literal(AstLiteral::Float(f)) => Literal::Float(f.node),
        ExprP::Literal(AstLiteral::String(s)) => Literal::Str(s.node.clone()),
        ExprP::Minus(inner) => match &inner.node {
            ExprP::Literal(AstLiteral::Int(i)) => Literal::Int(int(&i.node)?.checked_neg()?),
            ExprP::Literal(AstLiteral::Float(f)) => Literal::Float(-f.node),
            _ => return None,
        },
        ExprP::Identifier(id) if constants_free => match id.node.ident.as_str() {
            "True" => Literal::Bool(true),
            "False" => Literal::Bool(false),
            "None" => Literal::None,
            _ => return None,
        },
        ExprP::List(xs) => Literal::List(items(xs)?),
        ExprP::Tuple(xs) => Literal::Tuple(items(xs)?),
        _ => return None,
    })
}

fn int(i: &TokenInt) -> Option<i64> {
    match i {
        TokenInt::I32(i) => Some(i64::from(*i)),
        TokenInt::BigInt(b) => i64::try_from(b).ok(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reprs(content: &str) -> Option<(Vec<String>, Vec<String>)> {
        let (p, n) = arguments(content, true)?;
        Some((
            p.iter().map(|v| v.repr()).collect(),
            n.iter().map(|(k, v)| format!("{k}={}", v.repr())).collect(),
        ))
    }

    #[test]
    fn literals_become_the_values_starlark_gives_them() {
        let (p, n) = reprs(
            r#""a\tb", -3, 0.5, [1, "x"], (True, None), 9223372036854775807, min=-0.25, ok=False"#,
        )
        .unwrap();
        assert_eq!(
            p,
            [
                r#""a\tb""#,
                "-3",
                "0.5",
                r#"[1, "x"]"#,
                "(True, None)",
                "9223372036854775807"
            ]
        );
        assert_eq!(n, ["min=-0.25", "ok=False"]);
        assert_eq!(reprs("  "), Some((vec![], vec![])));
    }

    #[test]
    fn one_parse_reads_every_annotation_and_a_broken_one_spoils_none() {
        let reprs = |contents: &[&str]| -> Vec<Option<usize>> {
            arguments_of_each(contents, true)
                .into_iter()
                .map(|a| a.map(|(p, n)| p.len() + n.len()))
                .collect()
        };
        assert_eq!(
            reprs(&["min=1, max=2", "", "f(x)", "a=1); x=(2", "[1]"]),
            [Some(2), Some(0), None, None, Some(1)]
        );
        // a syntax error anywhere: each is parsed alone
        assert_eq!(
            reprs(&["min=1", "\"unclosed", "one_of=[1, 2]"]),
            [Some(1), None, Some(1)]
        );
    }

    #[test]
    fn contents_that_name_values_are_not_parsed() {
        for named in [
            "max=limit",
            "(\"x\", lambda v: v)",
            "by=overlay.subset({})",
            "x == 1",
        ] {
            assert!(names_a_value(named), "{named}");
        }
        for literal in [
            "min=1, max=0x1F",
            "one_of=[\"a b\", 'c\\'d', \"lambda\"]",
            "missing_ok=True, x=None",
            "1e5",
            "\"\"\"odd\"\"\"",
        ] {
            assert!(!names_a_value(literal), "{literal}");
        }
    }

    #[test]
    fn anything_but_a_literal_is_left_to_starlark() {
        for content in [
            "max=max_replicas",
            "(\"lowercase\", lambda v: v == v.lower())",
            "min=1+1",
            "\"a\" \"b\"",
            "min=1, min=2",
            "a=1, 2",
            "*xs",
            "**kw",
            "{\"a\": 1}",
            "99999999999999999999",
            "min=1 # a comment",
            "min=1)",
            "[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]",
        ] {
            assert!(arguments(content, true).is_none(), "{content}");
        }
        // code that mentions a constant may bind it
        assert!(arguments("missing_ok=True", false).is_none());
        assert!(arguments("min=1", false).is_some());
    }
}
