//! `@ytt:overlay`: matchers for `@overlay/match by=...` and `overlay.apply()`.

use std::sync::{Arc, OnceLock};

use starlark::environment::{FrozenModule, GlobalsBuilder};
use starlark::eval::Evaluator;
use starlark::starlark_module;
use starlark::values::tuple::UnpackTuple;
use starlark::values::{Heap, Value};

use crate::overlay::expects::Expects;
use crate::overlay::matchers::{map_key_matcher, matcher, MatcherKind};
use crate::overlay::{remove_overlay_annotations, Op};
use crate::template::runtime::convert::{to_node_value, NodeValue};
use crate::template::runtime::current_store;
use crate::template::runtime::values::{FragmentTree, YamlFragment};
use crate::yaml::{DocSet, Document, Meta, Pos, Value as YValue};

use super::{err, static_module};

#[starlark_module]
fn overlay_members(builder: &mut GlobalsBuilder) {
    fn map_key<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        heap: Heap<'v>,
    ) -> starlark::Result<Value<'v>> {
        if args.items.len() != 1 {
            return Err(err("overlay.map_key: expected exactly one argument"));
        }
        let Some(k) = args.items[0].unpack_str() else {
            return Err(err(format!(
                "overlay.map_key: expected a string, but was {}",
                args.items[0].get_type()
            )));
        };
        Ok(map_key_matcher(k, heap))
    }

    fn index<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        heap: Heap<'v>,
    ) -> starlark::Result<Value<'v>> {
        if args.items.len() != 1 {
            return Err(err("overlay.index: expected exactly one argument"));
        }
        let Some(i) = args.items[0].unpack_i32() else {
            return Err(err("overlay.index: expected starlark.Int"));
        };
        Ok(matcher(MatcherKind::Index(i64::from(i)), Vec::new(), heap))
    }

    fn all<'v>(#[starlark(args)] args: UnpackTuple<Value<'v>>) -> starlark::Result<bool> {
        if args.items.len() != 3 {
            return Err(err("overlay.all: expected exactly 3 arguments"));
        }
        Ok(true)
    }

    fn subset<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        heap: Heap<'v>,
    ) -> starlark::Result<Value<'v>> {
        if args.items.len() != 1 {
            return Err(err("overlay.subset: expected exactly one argument"));
        }
        Ok(matcher(MatcherKind::Subset, vec![args.items[0]], heap))
    }

    fn and_op<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        heap: Heap<'v>,
    ) -> starlark::Result<Value<'v>> {
        if args.items.is_empty() {
            return Err(err("overlay.and_op: expected at least one argument"));
        }
        Ok(matcher(MatcherKind::And, args.items, heap))
    }

    fn or_op<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        heap: Heap<'v>,
    ) -> starlark::Result<Value<'v>> {
        if args.items.is_empty() {
            return Err(err("overlay.or_op: expected at least one argument"));
        }
        Ok(matcher(MatcherKind::Or, args.items, heap))
    }

    fn not_op<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        heap: Heap<'v>,
    ) -> starlark::Result<Value<'v>> {
        if args.items.len() != 1 {
            return Err(err("overlay.not_op: expected exactly one argument"));
        }
        Ok(matcher(MatcherKind::Not, args.items, heap))
    }

    fn apply<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        eval: &mut Evaluator<'v, '_, '_>,
    ) -> starlark::Result<Value<'v>> {
        if args.items.is_empty() {
            return Err(err("overlay.apply: expected exactly at least argument"));
        }
        let store = current_store(eval);
        let mut left = as_docset_or_value(args.items[0], store)?;
        for r in &args.items[1..] {
            let right = as_docset_or_value(*r, store)?;
            let mut op = Op::new(eval, false);
            let res = match (&mut left, &right) {
                (Side::Docs(l), Side::Docs(r)) => {
                    let mut sets = [std::mem::take(l)];
                    let res = op.apply_docsets(&mut sets, r, &Expects::default());
                    let [s] = sets;
                    *l = s;
                    res
                }
                (Side::Value(l), Side::Value(r)) => {
                    op.apply(l, r, &Expects::default()).map(|replace| {
                        if replace {
                            *l = r.clone();
                        }
                    })
                }
                (Side::Docs(_), Side::Value(v)) => {
                    Err(format!("Expected document set, but was {}", v.type_name()).into())
                }
                (Side::Value(l), Side::Docs(_)) => {
                    Err(format!("Expected document set, but was {}", l.type_name()).into())
                }
            };
            res.map_err(|e| err(format!("overlay.apply: {e}")))?;
        }
        let tree = match left {
            Side::Docs(mut ds) => {
                for d in &mut ds.docs {
                    remove_overlay_annotations(&mut d.value);
                    d.meta
                        .annotations
                        .retain(|a| !a.name.starts_with("overlay/"));
                }
                FragmentTree::DocSet(ds)
            }
            Side::Value(mut v) => {
                remove_overlay_annotations(&mut v);
                match v {
                    YValue::Map(m) => FragmentTree::Map(crate::yaml::Shared::into_inner(m)),
                    YValue::Array(a) => FragmentTree::Array(crate::yaml::Shared::into_inner(a)),
                    YValue::Null => FragmentTree::Null,
                    other => {
                        return Err(err(format!(
                            "overlay.apply: expected a map, array or document set, but was {}",
                            other.type_name()
                        )))
                    }
                }
            }
        };
        Ok(eval.heap().alloc(YamlFragment {
            tree: Arc::new(tree),
            store: store.unwrap_or_else(Value::new_none),
        }))
    }
}

enum Side {
    Docs(DocSet),
    Value(YValue),
}

fn as_docset_or_value<'v>(v: Value<'v>, store: Option<Value<'v>>) -> starlark::Result<Side> {
    Ok(match to_node_value(v, store)? {
        NodeValue::DocSet(ds) => Side::Docs(ds),
        NodeValue::Value(v) => Side::Value(v),
        NodeValue::Noop => Side::Docs(DocSet {
            docs: vec![Document {
                pos: Pos::unknown(),
                meta: Meta::default(),
                ..Document::default()
            }],
            ..DocSet::default()
        }),
    })
}

pub fn module() -> &'static FrozenModule {
    static CELL: OnceLock<FrozenModule> = OnceLock::new();
    static_module(&CELL, |b| b.namespace("overlay", overlay_members))
}
