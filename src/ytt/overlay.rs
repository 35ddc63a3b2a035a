//! `@ytt:overlay`: matchers for `@overlay/match by=...` and `overlay.apply()`.

use std::fmt;
use std::sync::{Arc, OnceLock};

use allocative::Allocative;
use starlark::any::ProvidesStaticType;
use starlark::coerce::Coerce;
use starlark::environment::{FrozenModule, GlobalsBuilder};
use starlark::eval::{Arguments, Evaluator};
use starlark::starlark_complex_value;
use starlark::starlark_module;
use starlark::values::starlark_value;
use starlark::values::tuple::UnpackTuple;
use starlark::values::{
    Freeze, FreezeResult, Freezer, FrozenValue, Heap, NoSerialize, StarlarkValue, Trace, Tracer,
    Value, ValueLike,
};

use crate::overlay::compare::{compare, compare_leafs};
use crate::overlay::expects::Expects;
use crate::overlay::{remove_overlay_annotations, Op};
use crate::template::convert::{to_node_value, to_yaml, NodeValue};
use crate::template::runtime::current_store;
use crate::template::values::{FragmentTree, YamlFragment};
use crate::yaml::{DocSet, Document, Meta, Pos, Value as YValue};

use super::{err, static_module};

#[derive(Debug, Clone)]
enum MatcherKind {
    MapKey(String),
    Index(i64),
    Subset,
    And,
    Or,
    Not,
}

/// A matcher function made by `overlay.map_key(...)`, `overlay.subset(...)`, ...
#[derive(Debug, ProvidesStaticType, Allocative, NoSerialize, Clone, Coerce)]
#[repr(C)]
pub struct MatcherGen<V: starlark::values::ValueLifetimeless> {
    #[allocative(skip)]
    kind: Arc<MatcherKind>,
    args: Vec<V>,
}

starlark_complex_value!(pub Matcher);

unsafe impl<'v> Trace<'v> for MatcherGen<Value<'v>> {
    fn trace(&mut self, tracer: &Tracer<'v>) {
        for a in &mut self.args {
            a.trace(tracer);
        }
    }
}

impl<'v> Freeze for MatcherGen<Value<'v>> {
    type Frozen = MatcherGen<FrozenValue>;
    fn freeze(self, freezer: &Freezer) -> FreezeResult<Self::Frozen> {
        let mut args = Vec::with_capacity(self.args.len());
        for a in self.args {
            args.push(a.freeze(freezer)?);
        }
        Ok(MatcherGen {
            kind: self.kind,
            args,
        })
    }
}

impl<V: starlark::values::ValueLifetimeless> fmt::Display for MatcherGen<V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match &*self.kind {
            MatcherKind::MapKey(_) => "overlay.map_key_matcher",
            MatcherKind::Index(_) => "overlay.index_matcher",
            MatcherKind::Subset => "overlay.subset_matcher",
            MatcherKind::And => "overlay.and_op",
            MatcherKind::Or => "overlay.or_op",
            MatcherKind::Not => "overlay.not_op",
        };
        write!(f, "<built-in function {name}>")
    }
}

fn matcher<'v>(kind: MatcherKind, args: Vec<Value<'v>>, heap: Heap<'v>) -> Value<'v> {
    heap.alloc(Matcher {
        kind: Arc::new(kind),
        args,
    })
}

/// `overlay.map_key(name)` (also what a string `by=` means).
pub fn map_key_matcher<'v>(name: &str, heap: Heap<'v>) -> Value<'v> {
    matcher(MatcherKind::MapKey(name.to_string()), Vec::new(), heap)
}

#[starlark_value(type = "builtin_function_or_method")]
impl<'v, V: ValueLike<'v>> StarlarkValue<'v> for MatcherGen<V>
where
    Self: ProvidesStaticType<'v>,
{
    fn invoke(
        &self,
        _me: Value<'v>,
        args: &Arguments<'v, '_>,
        eval: &mut Evaluator<'v, '_, '_>,
    ) -> starlark::Result<Value<'v>> {
        let pos: Vec<Value<'v>> = args.positions(eval.heap())?.collect();
        let name = self.to_string();
        let name = name
            .trim_start_matches("<built-in function ")
            .trim_end_matches('>')
            .to_string();
        if pos.len() != 3 {
            return Err(err(format!("{name}: expected exactly 3 arguments")));
        }
        let store = current_store(eval);
        let result = match &*self.kind {
            MatcherKind::Index(want) => pos[0].unpack_i32().map(i64::from) == Some(*want),
            MatcherKind::MapKey(key) => {
                let old = to_yaml(pos[1], store)?;
                let new = to_yaml(pos[2], store)?;
                let o = pull_out(key, &old).map_err(|e| err(format!("{name}: {e}")))?;
                let n = pull_out(key, &new).map_err(|e| err(format!("{name}: {e}")))?;
                compare_leafs(&o, &n).0
            }
            MatcherKind::Subset => {
                let left = to_yaml(pos[1], store)?;
                let expected = to_yaml(self.args[0].to_value(), store)?;
                compare(&left, &expected).0
            }
            MatcherKind::And | MatcherKind::Or => {
                let is_and = matches!(&*self.kind, MatcherKind::And);
                let mut out = is_and;
                for m in &self.args {
                    let r = eval.eval_function(m.to_value(), &pos, &[])?;
                    let b = r.unpack_bool().ok_or_else(|| {
                        err(format!(
                            "{name}: expected starlark.Bool, but was {}",
                            super::assert::go_type_name(r)
                        ))
                    })?;
                    if is_and && !b {
                        out = false;
                        break;
                    }
                    if !is_and && b {
                        out = true;
                        break;
                    }
                }
                out
            }
            MatcherKind::Not => {
                let r = eval.eval_function(self.args[0].to_value(), &pos, &[])?;
                !r.unpack_bool().ok_or_else(|| {
                    err(format!(
                        "{name}: expected starlark.Bool, but was {}",
                        super::assert::go_type_name(r)
                    ))
                })?
            }
        };
        Ok(Value::new_bool(result))
    }
}

fn pull_out(key: &str, v: &YValue) -> Result<YValue, String> {
    let YValue::Map(m) = v else {
        return Err(format!(
            "Expected value to be map, but was {}",
            v.type_name()
        ));
    };
    m.get(key)
        .map(|i| i.value.clone())
        .ok_or_else(|| format!("Expected to find map item with key '{key}', but did not"))
}

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
            let mut op = Op {
                ev: eval,
                exact_match: false,
            };
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
                    YValue::Map(m) => FragmentTree::Map(*m),
                    YValue::Array(a) => FragmentTree::Array(*a),
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
