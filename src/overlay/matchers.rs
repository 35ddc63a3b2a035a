//! The matchers of `@overlay/match by=`: `overlay.map_key`, `overlay.index`,
//! `overlay.subset`, `overlay.all` and their `and_op`/`or_op`/`not_op`
//! combinations, as Starlark callables. The overlay engine makes a
//! `map_key` matcher for a string `by=`; `@ytt:overlay` hands them out.

use std::fmt;
use std::sync::Arc;

use allocative::Allocative;
use starlark::any::ProvidesStaticType;
use starlark::coerce::Coerce;
use starlark::eval::{Arguments, Evaluator};
use starlark::starlark_complex_value;
use starlark::values::starlark_value;
use starlark::values::{
    Freeze, FreezeResult, Freezer, FrozenValue, Heap, NoSerialize, StarlarkValue, Trace, Tracer,
    Value, ValueLike,
};

use crate::overlay::compare::{compare, compare_leafs};
use crate::template::runtime::convert::to_yaml;
use crate::template::runtime::current_store;
use crate::yaml::Value as YValue;

use crate::template::runtime::go::{err, go_error_text};

#[derive(Debug, Clone)]
pub(crate) enum MatcherKind {
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
            // ytt names the function `not_op` makes after `or_op`'s
            MatcherKind::Not => "overlay.or_op",
        };
        write!(f, "<built-in function {name}>")
    }
}

pub(crate) fn matcher<'v>(kind: MatcherKind, args: Vec<Value<'v>>, heap: Heap<'v>) -> Value<'v> {
    heap.alloc(Matcher {
        kind: Arc::new(kind),
        args,
    })
}

/// A copy of matcher `v` on `heap` (its arguments copied by `copy_arg`),
/// or `None` when `v` is no matcher: a matcher that must outlive the
/// evaluation that made it (an annotation of values handed to a library)
/// is rebuilt where it goes.
pub(crate) fn copy_matcher<'a, 'v>(
    v: Value<'a>,
    heap: Heap<'v>,
    copy_arg: &mut dyn FnMut(Value<'a>) -> starlark::Result<Value<'v>>,
) -> Option<starlark::Result<Value<'v>>> {
    let m = Matcher::from_value(v)?;
    let (kind, args) = (m.kind.clone(), m.args.clone());
    let mut copied = Vec::with_capacity(args.len());
    for a in args {
        match copy_arg(a) {
            Ok(c) => copied.push(c),
            Err(e) => return Some(Err(e)),
        }
    }
    Some(Ok(heap.alloc(Matcher { kind, args: copied })))
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
                    let r = eval
                        .eval_function(m.to_value(), &pos, &[])
                        .map_err(|e| err(format!("{name}: {}", go_error_text(&e))))?;
                    let b = r.unpack_bool().ok_or_else(|| {
                        err(format!(
                            "{name}: expected starlark.Bool, but was {}",
                            crate::template::runtime::go::go_type_name(r)
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
                let r = eval
                    .eval_function(self.args[0].to_value(), &pos, &[])
                    .map_err(|e| err(format!("{name}: {}", go_error_text(&e))))?;
                !r.unpack_bool().ok_or_else(|| {
                    err(format!(
                        "{name}: expected starlark.Bool, but was {}",
                        crate::template::runtime::go::go_type_name(r)
                    ))
                })?
            }
        };
        Ok(Value::new_bool(result))
    }
}

/// The first argument a matcher gets: the index of a left array item or
/// document, or the key of a left map item.
#[derive(Clone, Copy)]
pub(crate) enum First<'a> {
    Index(i64),
    Key(&'a YValue),
}

/// Matcher `f` applied to a left and a right value, computed on the YAML
/// values themselves when `f` is one of `@ytt:overlay`'s all the way down:
/// calling it through Starlark copies every left document into a fragment
/// and back once per overlay (most of a check of real packages, whose
/// vendored upstream YAML is matched by `overlay.subset` many times over).
/// `None` when a Starlark function takes part: call it. The results and
/// error texts are those of `invoke`.
pub(crate) fn native<'v>(
    f: Value<'v>,
    first: First<'_>,
    left: &YValue,
    right: &YValue,
    store: Option<Value<'v>>,
) -> Option<Result<bool, String>> {
    let m = Matcher::from_value(f)?;
    let name = m.to_string();
    let name = name
        .trim_start_matches("<built-in function ")
        .trim_end_matches('>');
    Some(match &*m.kind {
        MatcherKind::Index(want) => Ok(match first {
            First::Index(i) => i32::try_from(i).ok().map(i64::from) == Some(*want),
            First::Key(YValue::Int(i)) => i32::try_from(*i).ok().map(i64::from) == Some(*want),
            First::Key(_) => false,
        }),
        MatcherKind::MapKey(key) => (|| {
            let o = item_of(key, left).map_err(|e| format!("{name}: {e}"))?;
            let n = item_of(key, right).map_err(|e| format!("{name}: {e}"))?;
            Ok(compare_leafs(o, n).0)
        })(),
        MatcherKind::Subset => {
            let expected = match to_yaml(m.args[0], store) {
                Ok(v) => v,
                Err(e) => return Some(Err(e.to_string())),
            };
            Ok(compare(left, &expected).0)
        }
        MatcherKind::And | MatcherKind::Or => {
            let is_and = matches!(&*m.kind, MatcherKind::And);
            // all ours, or the whole combination goes through Starlark (a
            // Starlark matcher after an error must not run either way)
            if !m.args.iter().all(|a| Matcher::from_value(*a).is_some()) {
                return None;
            }
            for sub in &m.args {
                match native(*sub, first, left, right, store)? {
                    Err(e) => return Some(Err(format!("{name}: {e}"))),
                    Ok(b) if b != is_and => return Some(Ok(b)),
                    Ok(_) => {}
                }
            }
            Ok(is_and)
        }
        MatcherKind::Not => native(m.args[0], first, left, right, store)?
            .map(|b| !b)
            .map_err(|e| format!("{name}: {e}")),
    })
}

/// The value of map item `key` of `v`, as `overlay.map_key` reads it.
fn item_of<'a>(key: &str, v: &'a YValue) -> Result<&'a YValue, String> {
    let YValue::Map(m) = v else {
        return Err(format!(
            "Expected value to be map, but was {}",
            v.type_name()
        ));
    };
    m.get(key)
        .map(|i| &i.value)
        .ok_or_else(|| format!("Expected to find map item with key '{key}', but did not"))
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
