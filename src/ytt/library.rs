//! `@ytt:library`: `library.get(name, ...)` and the library value's
//! `with_data_values`, `with_data_values_schema`, `eval`, `data_values` and
//! `export`.
//!
//! The values here only describe a request ([`LibraryRequest`]); running it
//! (schemas, data values, templates, overlays of the private library) is the
//! host's job, reached through the template runtime ([`Host::library`]), so
//! this module stays below the data values pipeline.
//!
//! [`Host::library`]: crate::template::Host::library

use std::fmt;
use std::sync::{Arc, OnceLock};

use allocative::Allocative;
use starlark::any::ProvidesStaticType;
use starlark::environment::{FrozenModule, GlobalsBuilder};
use starlark::eval::{Arguments, Evaluator};
use starlark::starlark_module;
use starlark::starlark_simple_value;
use starlark::values::starlark_value;
use starlark::values::{Heap, NoSerialize, StarlarkValue, Value};

use crate::template::eval::{LibraryAnswer, LibraryOp, LibraryRequest};
use crate::template::runtime::convert::{from_yaml, to_yaml, MapAs};
use crate::template::runtime::values::{FragmentTree, YamlFragment};
use crate::template::runtime::{current_store, runtime};

use starlark::environment::Module;

use crate::template::runtime::values::store_get;
use crate::yaml::{AnnValue, Meta, Value as YValue};

use super::{err, static_module};

#[starlark_module]
fn library_funcs(builder: &mut GlobalsBuilder) {
    fn get<'v>(
        #[starlark(args)] args: starlark::values::tuple::UnpackTuple<Value<'v>>,
        #[starlark(kwargs)] kwargs: starlark::values::dict::DictRef<'v>,
        eval: &mut Evaluator<'v, '_, '_>,
    ) -> starlark::Result<LibraryValue> {
        if args.items.len() != 1 {
            return Err(err("library.get: expected exactly one argument"));
        }
        let path = args.items[0].unpack_str().ok_or_else(|| {
            err(format!(
                "library.get: expected a string, but was {}",
                crate::template::runtime::go::go_type_name(args.items[0])
            ))
        })?;
        if path.starts_with('@') {
            return Err(err(format!(
                "library.get: Expected library '{path}' to be specified without '@'"
            )));
        }
        let mut req = LibraryRequest {
            path: path.to_string(),
            ..LibraryRequest::default()
        };
        for (k, v) in kwargs.iter() {
            let name = k.unpack_str().unwrap_or_default();
            let flag = || {
                v.unpack_bool().ok_or_else(|| {
                    err(format!(
                        "library.get: expected a bool for '{name}', but was {}",
                        crate::template::runtime::go::go_type_name(v)
                    ))
                })
            };
            match name {
                "alias" => {
                    req.alias = v
                        .unpack_str()
                        .ok_or_else(|| {
                            err(format!(
                                "library.get: expected a string for 'alias', but was {}",
                                crate::template::runtime::go::go_type_name(v)
                            ))
                        })?
                        .to_string()
                }
                "ignore_unknown_comments" => req.ignore_unknown_comments = Some(flag()?),
                "implicit_map_key_overrides" => req.implicit_map_key_overrides = Some(flag()?),
                "strict" => req.strict = Some(flag()?),
                "dangerous_data_values_disable_validation" => req.skip_validation = flag()?,
                other => return Err(err(format!("library.get: Unexpected kwarg '{other}'"))),
            }
        }
        // ytt looks the library up here, not when it is used
        if let Some(host) = runtime(eval)?.host.as_ref() {
            host.library(&req, &LibraryOp::Find)
                .map_err(|e| err(format!("library.get: {e}")))?;
        }
        Ok(LibraryValue { req: Arc::new(req) })
    }
}

/// The frozen `@ytt:library` module.
pub fn module() -> &'static FrozenModule {
    static CELL: OnceLock<FrozenModule> = OnceLock::new();
    static_module(&CELL, |b| b.namespace("library", library_funcs))
}

/// A library as `library.get(...)` returns it.
#[derive(Debug, Clone, ProvidesStaticType, Allocative, NoSerialize)]
pub struct LibraryValue {
    #[allocative(skip)]
    req: Arc<LibraryRequest>,
}

starlark_simple_value!(LibraryValue);

const METHODS: &[&str] = &[
    "with_data_values",
    "with_data_values_schema",
    "eval",
    "export",
    "data_values",
];

impl LibraryValue {
    /// ytt's `path` or `path~alias`.
    fn describe(&self) -> String {
        if self.req.alias.is_empty() {
            self.req.path.clone()
        } else {
            format!("{}~{}", self.req.path, self.req.alias)
        }
    }
}

impl fmt::Display for LibraryValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "<module \"library\">")
    }
}

#[starlark_value(type = "module")]
impl<'v> StarlarkValue<'v> for LibraryValue {
    fn get_attr(&self, attribute: &str, heap: Heap<'v>) -> Option<Value<'v>> {
        let name = METHODS.iter().find(|m| **m == attribute)?;
        Some(heap.alloc(LibraryMethod {
            lib: self.clone(),
            name,
        }))
    }

    fn dir_attr(&self) -> Vec<String> {
        METHODS.iter().map(|s| s.to_string()).collect()
    }
}

/// A method of a library value.
#[derive(Debug, ProvidesStaticType, Allocative, NoSerialize)]
pub struct LibraryMethod {
    lib: LibraryValue,
    name: &'static str,
}

starlark_simple_value!(LibraryMethod);

impl fmt::Display for LibraryMethod {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "<built-in function library.{}>", self.name)
    }
}

#[starlark_value(type = "builtin_function_or_method")]
impl<'v> StarlarkValue<'v> for LibraryMethod {
    fn invoke(
        &self,
        _me: Value<'v>,
        args: &Arguments<'v, '_>,
        eval: &mut Evaluator<'v, '_, '_>,
    ) -> starlark::Result<Value<'v>> {
        let heap = eval.heap();
        let pos: Vec<Value<'v>> = args.positions(heap)?.collect();
        let named = args.names_map()?;
        let fname = format!("library.{}", self.name);
        let mut req = (*self.lib.req).clone();
        let op = match self.name {
            "with_data_values" | "with_data_values_schema" => {
                if pos.len() != 1 {
                    return Err(err(format!("{fname}: expected exactly one argument")));
                }
                let store = current_store(eval);
                let mut value = to_yaml(pos[0], store).map_err(|e| err(format!("{fname}: {e}")))?;
                // the library evaluates apart: its annotations' arguments go with it
                detach_annotations(&mut value, store).map_err(|e| err(format!("{fname}: {e}")))?;
                if self.name == "with_data_values" {
                    let mut plain = false;
                    for (k, v) in named.iter() {
                        match k.as_str() {
                            "plain" => {
                                plain = v.unpack_bool().ok_or_else(|| {
                                    err(format!(
                                        "{fname}: expected kwarg 'plain' to be a bool, but was {}",
                                        crate::template::runtime::go::go_type_name(*v)
                                    ))
                                })?
                            }
                            other => {
                                return Err(err(format!(
                                    "{fname}: unexpected keyword argument '{other}'"
                                )))
                            }
                        }
                    }
                    if plain && crate::template::compiler::metas::value_has_templating(&value) {
                        return Err(err(format!(
                            "{fname}: {}",
                            crate::template::compiler::metas::PLAIN_YAML_EXPECTED
                        )));
                    }
                    req.data_values.push((value, plain));
                } else {
                    if let Some((k, _)) = named.iter().next() {
                        return Err(err(format!(
                            "{fname}: unexpected keyword argument '{}'",
                            k.as_str()
                        )));
                    }
                    req.schemas.push(value);
                }
                return Ok(heap.alloc(LibraryValue { req: Arc::new(req) }));
            }
            "eval" | "data_values" => {
                if !pos.is_empty() || !named.is_empty() {
                    return Err(err(format!("{fname}: expected no arguments")));
                }
                if self.name == "eval" {
                    LibraryOp::Eval
                } else {
                    LibraryOp::DataValues
                }
            }
            _ => {
                if pos.len() != 1 {
                    return Err(err(format!("{fname}: expected exactly one argument")));
                }
                let symbol = pos[0]
                    .unpack_str()
                    .ok_or_else(|| err(format!("{fname}: expected a string")))?
                    .to_string();
                let mut path = None;
                for (k, v) in named.iter() {
                    match k.as_str() {
                        "path" => {
                            path = Some(
                                v.unpack_str()
                                    .ok_or_else(|| err(format!("{fname}: expected a string")))?
                                    .to_string(),
                            )
                        }
                        other => {
                            return Err(err(format!(
                                "{fname}: Unexpected keyword argument '{other}'"
                            )))
                        }
                    }
                }
                if symbol.starts_with('_') {
                    return Err(err(format!(
                        "{fname}: Exporting from library '{}': Symbols starting with '_' are private, and cannot be exported",
                        self.lib.describe()
                    )));
                }
                LibraryOp::Export { symbol, path }
            }
        };
        let rt = runtime(eval)?;
        let host = rt
            .host
            .as_ref()
            .ok_or_else(|| err(format!("{fname}: no library context")))?;
        let what = if matches!(op, LibraryOp::Eval) {
            "Evaluating"
        } else {
            "Exporting from"
        };
        let answer = host.library(&req, &op).map_err(|e| {
            err(format!(
                "{fname}: {what} library '{}': {e}",
                self.lib.describe()
            ))
        })?;
        Ok(match answer {
            LibraryAnswer::Docs(ds) => heap.alloc(YamlFragment {
                tree: Arc::new(FragmentTree::DocSet(ds)),
                store: Value::new_none(),
            }),
            LibraryAnswer::Values(v) => from_yaml(&v, heap, MapAs::Struct)?,
            LibraryAnswer::Symbol(v) => heap.access_owned_frozen_value(&v),
            LibraryAnswer::Found => Value::new_none(),
        })
    }
}

/// Makes the annotations' arguments of `value` its own: an argument that is
/// an index into this evaluation's value store (`AnnValue::Live`) means
/// nothing to the library's evaluation, which has a store of its own (read
/// there, `missing_ok=True` in one template became whatever the library had
/// stored at that index). Scalars become plain arguments; lists, dicts and
/// `@ytt:overlay` matchers are copied into a frozen heap of their own.
fn detach_annotations<'v>(value: &mut YValue, store: Option<Value<'v>>) -> anyhow::Result<()> {
    let Some(store) = store else {
        return Ok(());
    };
    value.change_nodes(
        &|_, m: &Meta| m.has_live_values(),
        &mut |_, m: &mut Meta| {
            for ann in &mut m.annotations {
                let name = ann.name.clone();
                let args = ann
                    .args
                    .iter_mut()
                    .chain(ann.kwargs.iter_mut().map(|(_, v)| v));
                for a in args {
                    if let AnnValue::Live(i) = *a {
                        let live = store_get(store, i).ok_or_else(|| {
                            anyhow::anyhow!("internal error: an argument of @{name} was not found")
                        })?;
                        *a = detached(live).map_err(|e| {
                            anyhow::anyhow!(
                                "an argument of @{name} cannot be given to a library: {e}"
                            )
                        })?;
                    }
                }
            }
            Ok(())
        },
    )
}

/// `v` as an annotation argument that lives on its own.
fn detached(v: Value) -> anyhow::Result<AnnValue> {
    if v.is_none() {
        return Ok(AnnValue::None);
    }
    if let Some(b) = v.unpack_bool() {
        return Ok(AnnValue::Bool(b));
    }
    if let Some(i) = v.unpack_i32() {
        return Ok(AnnValue::Int(i64::from(i)));
    }
    if let Some(s) = v.unpack_str() {
        return Ok(AnnValue::Str(s.to_string()));
    }
    let frozen = Module::with_temp_heap(|module| -> anyhow::Result<_> {
        let copy = copy_value(v, module.heap())?;
        module.set("value", copy);
        let frozen = module.freeze().map_err(|e| anyhow::anyhow!("{e:?}"))?;
        frozen.get("value")
    })?;
    Ok(AnnValue::Frozen(frozen))
}

/// A copy of `v` on `heap`: a matcher with its arguments, or plain data
/// (as YAML it converts to and back: lists, dicts, scalars). A function
/// (a `def` or `lambda` of the template) cannot be copied: its error says
/// so rather than the library reading another value.
fn copy_value<'a, 'v>(v: Value<'a>, heap: Heap<'v>) -> anyhow::Result<Value<'v>> {
    let mut copy_arg = |a: Value<'a>| {
        copy_value(a, heap).map_err(|e| starlark::Error::new_other(anyhow::anyhow!("{e}")))
    };
    if let Some(m) = crate::overlay::matchers::copy_matcher(v, heap, &mut copy_arg) {
        return m.map_err(|e| anyhow::anyhow!("{e}"));
    }
    let plain = to_yaml(v, None).map_err(|_| {
        anyhow::anyhow!(
            "a {} made by the template is not supported there by yttcheck yet",
            v.get_type()
        )
    })?;
    from_yaml(&plain, heap, MapAs::Dict).map_err(|e| anyhow::anyhow!("{e}"))
}
