//! Starlark objects with methods, as go-starlark builtins have them (`url.parse(...)` values, `ip.parse_addr(...)` values).
//!
//! The object and its method values are generic: each module gives its
//! own values' names, attributes and methods ([`ObjectValue`], implemented
//! beside the parsing and printing it calls), so this file reaches none of
//! them.

use std::fmt;
use std::sync::Arc;

use allocative::Allocative;
use starlark::any::ProvidesStaticType;
use starlark::eval::{Arguments, Evaluator};
use starlark::starlark_simple_value;
use starlark::values::starlark_value;
use starlark::values::{Heap, NoSerialize, StarlarkValue, Value};

use super::err;

/// What one kind of object is: its type's name, its zero-argument methods,
/// its plain attributes, and what each method gives.
pub(super) trait ObjectValue: fmt::Debug + Send + Sync + 'static {
    /// `@ytt:url.value`.
    fn type_name(&self) -> &'static str;
    /// The zero-argument methods (`string`, `hostname`...).
    fn methods(&self) -> &'static [&'static str];
    /// A plain attribute (not a method), if it has it.
    fn attribute<'v>(&self, _name: &str, _heap: Heap<'v>) -> Option<Value<'v>> {
        None
    }
    /// The method `name` called (one of [`ObjectValue::methods`]).
    fn call<'v>(&self, name: &str, heap: Heap<'v>) -> starlark::Result<Value<'v>>;
}

/// Values with zero-argument methods: `url.value`, `url.user`, `ip.addr`, `ip.net`.
#[derive(Debug, Clone, ProvidesStaticType, Allocative, NoSerialize)]
pub struct Object {
    #[allocative(skip)]
    value: Arc<dyn ObjectValue>,
}

impl Object {
    pub(super) fn new(value: impl ObjectValue) -> Object {
        Object {
            value: Arc::new(value),
        }
    }
}

starlark_simple_value!(Object);

impl fmt::Display for Object {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}(...)", self.value.type_name())
    }
}

#[starlark_value(type = "ytt_object")]
impl<'v> StarlarkValue<'v> for Object {
    fn get_attr(&self, attribute: &str, heap: Heap<'v>) -> Option<Value<'v>> {
        if let Some(v) = self.value.attribute(attribute, heap) {
            return Some(v);
        }
        self.value.methods().contains(&attribute).then(|| {
            heap.alloc(Method {
                obj: self.clone(),
                name: attribute.to_string(),
            })
        })
    }

    fn dir_attr(&self) -> Vec<String> {
        self.value.methods().iter().map(|s| s.to_string()).collect()
    }
}

#[derive(Debug, ProvidesStaticType, Allocative, NoSerialize)]
pub struct Method {
    obj: Object,
    name: String,
}

starlark_simple_value!(Method);

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "<built-in method {}>", self.name)
    }
}

#[starlark_value(type = "builtin_function_or_method")]
impl<'v> StarlarkValue<'v> for Method {
    fn invoke(
        &self,
        _me: Value<'v>,
        args: &Arguments<'v, '_>,
        eval: &mut Evaluator<'v, '_, '_>,
    ) -> starlark::Result<Value<'v>> {
        let heap = eval.heap();
        if args.positions(heap)?.count() != 0 {
            return Err(err(format!("{}: expected no argument", self.name)));
        }
        if !self.obj.value.methods().contains(&self.name.as_str()) {
            return Err(err(format!("unknown method {}", self.name)));
        }
        self.obj.value.call(&self.name, heap)
    }
}
