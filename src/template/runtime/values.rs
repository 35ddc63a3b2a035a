//! Starlark value types ytt programs see: structs (`data.values`,
//! `struct.make`), YAML fragments (what a fragment function returns), modules
//! (`@ytt:data`, ...), and two internal helpers (the per-evaluation value
//! store and the template's node table).

use std::cell::RefCell;
use std::fmt;
use std::sync::Arc;

use allocative::Allocative;
use starlark::any::ProvidesStaticType;
use starlark::coerce::Coerce;
use starlark::collections::SmallMap;
use starlark::starlark_complex_value;
use starlark::starlark_simple_value;
use starlark::values::starlark_value;
use starlark::values::{
    AllocValue, Freeze, FreezeResult, Freezer, FrozenValue, Heap, NoSerialize, StarlarkValue,
    Trace, Tracer, Value, ValueLike,
};

use crate::yaml::{Array, DocSet, Map};

use crate::template::compiler::NodeTable;

// ------------------------------------------------------------------ struct

/// ytt's struct: ordered string keys, attribute access, `s["key"]`, iteration
/// over keys. `data.values` is one.
#[derive(Debug, Trace, ProvidesStaticType, Allocative, NoSerialize, Clone, Coerce)]
#[repr(C)]
pub struct YttStructGen<V: starlark::values::ValueLifetimeless> {
    pub fields: SmallMap<String, V>,
    /// Set on `data.values` when the host records which values templates
    /// read (`check`'s `template/undeclared-value`, `schema/unused-value`).
    #[allocative(skip)]
    pub tracked: Tracked,
}

// ------------------------------------------------------------------ read tracking

/// The data values paths one evaluation read (`db.host`), and those it
/// asked for that do not exist. A struct consumed whole (converted to YAML,
/// iterated, compared, passed to a library) counts as reading its path.
#[derive(Debug, Default)]
pub struct ReadLog {
    inner: std::sync::Mutex<ReadLogInner>,
}

#[derive(Debug, Default, Clone)]
pub struct ReadLogInner {
    /// Paths read, each covering what is below it (a value, or a struct
    /// consumed whole).
    pub read: std::collections::BTreeSet<String>,
    /// Paths read that held null: they cover nothing below them (`db` was
    /// looked at, but `db.port` could not be read).
    pub null: std::collections::BTreeSet<String>,
    /// Missing paths, in the order they were asked for.
    pub missing: Vec<String>,
}

impl ReadLog {
    fn read(&self, path: String) {
        if let Ok(mut l) = self.inner.lock() {
            l.read.insert(path);
        }
    }

    fn null(&self, path: String) {
        if let Ok(mut l) = self.inner.lock() {
            l.null.insert(path);
        }
    }

    fn missing(&self, path: String) {
        if let Ok(mut l) = self.inner.lock() {
            if !l.missing.contains(&path) {
                l.missing.push(path);
            }
        }
    }

    /// What was recorded so far.
    pub fn snapshot(&self) -> ReadLogInner {
        self.inner.lock().map(|l| l.clone()).unwrap_or_default()
    }
}

/// Where a tracked struct sits in `data.values` (empty for the root).
#[derive(Debug, Clone, Default)]
pub struct Tracked(pub Option<Arc<(Arc<ReadLog>, String)>>);

// SAFETY: `Tracked` holds no Starlark values, so it coerces to itself and
// has nothing for the garbage collector to trace.
unsafe impl Coerce<Tracked> for Tracked {}
unsafe impl<'v> Trace<'v> for Tracked {
    fn trace(&mut self, _tracer: &Tracer<'v>) {}
}

impl Tracked {
    fn child(&self, key: &str) -> String {
        match &self.0 {
            Some(t) if t.1.is_empty() => key.to_string(),
            Some(t) => format!("{}.{key}", t.1),
            None => String::new(),
        }
    }

    /// A tracked struct for `path` in `log`.
    pub fn at(log: &Arc<ReadLog>, path: String) -> Tracked {
        Tracked(Some(Arc::new((log.clone(), path))))
    }

    /// Records that the struct was consumed whole.
    pub fn whole(&self) {
        if let Some(t) = &self.0 {
            t.0.read(t.1.clone());
        }
    }

    /// Records an attribute read (`found`: the struct has it). A read of a
    /// nested struct is only navigation: the nested struct records what is
    /// done with it.
    fn attr<'v>(&self, key: &str, found: Option<Value<'v>>) {
        let Some(t) = &self.0 else { return };
        match found {
            None => t.0.missing(self.child(key)),
            Some(v) => {
                let nested = YttStruct::from_value(v).is_some_and(|s| s.tracked.0.is_some())
                    || v.downcast_ref::<FrozenYttStruct>()
                        .is_some_and(|s| s.tracked.0.is_some());
                if v.is_none() {
                    t.0.null(self.child(key));
                } else if !nested {
                    t.0.read(self.child(key));
                }
            }
        }
    }
}

starlark_complex_value!(pub YttStruct);

impl<'v> Freeze for YttStructGen<Value<'v>> {
    type Frozen = YttStructGen<FrozenValue>;
    fn freeze(self, freezer: &Freezer) -> FreezeResult<Self::Frozen> {
        let mut fields = SmallMap::with_capacity(self.fields.len());
        for (k, v) in self.fields {
            fields.insert(k, v.freeze(freezer)?);
        }
        Ok(YttStructGen {
            fields,
            tracked: self.tracked,
        })
    }
}

impl<V: starlark::values::ValueLifetimeless> fmt::Display for YttStructGen<V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "struct(...)")
    }
}

/// A list read out of a frozen struct, as a mutable list. ytt's structs
/// (`data.values`, `struct.make`) ignore freezing, so ytt programs append to
/// lists they read from a loaded module's `data.values`; starlark-rust
/// freezes a loaded module deeply, so such a list is handed out as a copy
/// (the one difference: the append is not seen through the struct).
fn thawed<'v>(v: Value<'v>, heap: Heap<'v>) -> Value<'v> {
    if v.unpack_frozen().is_none() {
        return v;
    }
    match starlark::values::list::ListRef::from_value(v) {
        Some(list) => heap.alloc(starlark::values::list::AllocList(
            list.content().iter().copied(),
        )),
        None => v,
    }
}

#[starlark_value(type = "struct")]
impl<'v, V: ValueLike<'v>> StarlarkValue<'v> for YttStructGen<V>
where
    Self: ProvidesStaticType<'v>,
{
    fn get_attr(&self, attribute: &str, heap: Heap<'v>) -> Option<Value<'v>> {
        let found = self
            .fields
            .get(attribute)
            .map(|v| thawed(v.to_value(), heap));
        self.tracked.attr(attribute, found);
        found
    }

    fn has_attr(&self, attribute: &str, _heap: Heap<'v>) -> bool {
        // `hasattr(data.values, "x")` asks about x: a use of it when it exists
        let found = self.fields.get(attribute).map(|v| v.to_value());
        if found.is_some() {
            self.tracked.attr(attribute, found);
        }
        found.is_some()
    }

    // not a read: starlark-rust lists attributes for "did you mean" hints
    fn dir_attr(&self) -> Vec<String> {
        self.fields.keys().cloned().collect()
    }

    fn at(&self, index: Value<'v>, heap: Heap<'v>) -> starlark::Result<Value<'v>> {
        let Some(key) = index.unpack_str() else {
            return Err(starlark::Error::new_other(anyhow::anyhow!(
                "expected a string, but was {}",
                index.get_type()
            )));
        };
        let found = self.fields.get(key).map(|v| thawed(v.to_value(), heap));
        self.tracked.attr(key, found);
        match found {
            Some(v) => Ok(v),
            None => Err(starlark::Error::new_other(anyhow::anyhow!(
                "key \"{key}\" not in struct"
            ))),
        }
    }

    fn is_in(&self, other: Value<'v>) -> starlark::Result<bool> {
        let Some(k) = other.unpack_str() else {
            return Ok(false);
        };
        let found = self.fields.get(k).map(|v| v.to_value());
        if found.is_some() {
            self.tracked.attr(k, found);
        }
        Ok(found.is_some())
    }

    fn length(&self) -> starlark::Result<i32> {
        self.tracked.whole();
        Ok(self.fields.len() as i32)
    }

    fn to_bool(&self) -> bool {
        !self.fields.is_empty()
    }

    fn iterate_collect(&self, heap: Heap<'v>) -> starlark::Result<Vec<Value<'v>>> {
        self.tracked.whole();
        Ok(self
            .fields
            .keys()
            .map(|k| heap.alloc_str(k).to_value())
            .collect())
    }

    fn equals(&self, other: Value<'v>) -> starlark::Result<bool> {
        self.tracked.whole();
        let Some(o) = YttStruct::from_value(other) else {
            return Ok(false);
        };
        if o.fields.len() != self.fields.len() {
            return Ok(false);
        }
        for ((k1, v1), (k2, v2)) in self.fields.iter().zip(o.fields.iter()) {
            if k1 != k2 || !v1.to_value().equals(*v2)? {
                return Ok(false);
            }
        }
        Ok(true)
    }
}

impl<'v> YttStruct<'v> {
    pub fn alloc(fields: SmallMap<String, Value<'v>>, heap: Heap<'v>) -> Value<'v> {
        heap.alloc(YttStruct {
            fields,
            tracked: Tracked::default(),
        })
    }

    /// A struct whose reads go to a [`ReadLog`].
    pub fn alloc_tracked(
        fields: SmallMap<String, Value<'v>>,
        tracked: Tracked,
        heap: Heap<'v>,
    ) -> Value<'v> {
        heap.alloc(YttStruct { fields, tracked })
    }
}

// ------------------------------------------------------------------ module

/// A ytt module value (`data`, `assert`, `overlay`, ...): named members.
#[derive(Debug, Trace, ProvidesStaticType, Allocative, NoSerialize, Clone, Coerce)]
#[repr(C)]
pub struct YttModuleGen<V: starlark::values::ValueLifetimeless> {
    pub name: String,
    pub members: SmallMap<String, V>,
}

starlark_complex_value!(pub YttModule);

impl<'v> Freeze for YttModuleGen<Value<'v>> {
    type Frozen = YttModuleGen<FrozenValue>;
    fn freeze(self, freezer: &Freezer) -> FreezeResult<Self::Frozen> {
        let mut members = SmallMap::with_capacity(self.members.len());
        for (k, v) in self.members {
            members.insert(k, v.freeze(freezer)?);
        }
        Ok(YttModuleGen {
            name: self.name,
            members,
        })
    }
}

impl<V: starlark::values::ValueLifetimeless> fmt::Display for YttModuleGen<V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "<module {}>", self.name)
    }
}

#[starlark_value(type = "module")]
impl<'v, V: ValueLike<'v>> StarlarkValue<'v> for YttModuleGen<V>
where
    Self: ProvidesStaticType<'v>,
{
    fn get_attr(&self, attribute: &str, _heap: Heap<'v>) -> Option<Value<'v>> {
        self.members.get(attribute).map(|v| v.to_value())
    }

    fn has_attr(&self, attribute: &str, _heap: Heap<'v>) -> bool {
        self.members.contains_key(attribute)
    }

    fn dir_attr(&self) -> Vec<String> {
        self.members.keys().cloned().collect()
    }
}

// ------------------------------------------------------------------ fragments

/// The YAML a fragment function built.
#[derive(Debug, Clone)]
pub enum FragmentTree {
    Null,
    DocSet(DocSet),
    Map(Map),
    Array(Array),
}

/// A YAML fragment as a Starlark value. Annotation values inside the tree may be
/// `AnnValue::Live` indices into `store`, the value store of the evaluation that
/// built the fragment.
#[derive(Debug, ProvidesStaticType, Allocative, NoSerialize, Clone, Coerce)]
#[repr(C)]
pub struct YamlFragmentGen<V: starlark::values::ValueLifetimeless> {
    #[allocative(skip)]
    pub tree: Arc<FragmentTree>,
    pub store: V,
}

starlark_complex_value!(pub YamlFragment);

unsafe impl<'v> Trace<'v> for YamlFragmentGen<Value<'v>> {
    fn trace(&mut self, tracer: &Tracer<'v>) {
        self.store.trace(tracer);
    }
}

impl<'v> Freeze for YamlFragmentGen<Value<'v>> {
    type Frozen = YamlFragmentGen<FrozenValue>;
    fn freeze(self, freezer: &Freezer) -> FreezeResult<Self::Frozen> {
        Ok(YamlFragmentGen {
            tree: self.tree,
            store: self.store.freeze(freezer)?,
        })
    }
}

impl<V: starlark::values::ValueLifetimeless> fmt::Display for YamlFragmentGen<V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match &*self.tree {
            FragmentTree::Null => "<nil>",
            FragmentTree::DocSet(_) => "*yamlmeta.DocumentSet",
            FragmentTree::Map(_) => "*yamlmeta.Map",
            FragmentTree::Array(_) => "*yamlmeta.Array",
        };
        write!(f, "yamlfragment({kind})")
    }
}

#[starlark_value(type = "yamlfragment")]
impl<'v, V: ValueLike<'v>> StarlarkValue<'v> for YamlFragmentGen<V>
where
    Self: ProvidesStaticType<'v>,
{
    fn to_bool(&self) -> bool {
        !self.is_empty()
    }

    fn length(&self) -> starlark::Result<i32> {
        Ok(self.len() as i32)
    }

    fn at(&self, index: Value<'v>, heap: Heap<'v>) -> starlark::Result<Value<'v>> {
        super::convert::fragment_at(self, index, heap)
    }

    fn is_in(&self, other: Value<'v>) -> starlark::Result<bool> {
        let key = super::convert::to_yaml_key(other)?;
        Ok(match &*self.tree {
            FragmentTree::Map(m) => m.items.iter().any(|i| i.key.scalar_eq(&key)),
            _ => false,
        })
    }

    fn iterate_collect(&self, heap: Heap<'v>) -> starlark::Result<Vec<Value<'v>>> {
        super::convert::fragment_iter(self, heap)
    }
}

impl<V: starlark::values::ValueLifetimeless> YamlFragmentGen<V> {
    pub fn len(&self) -> usize {
        match &*self.tree {
            FragmentTree::Null => 0,
            FragmentTree::DocSet(d) => d.docs.len(),
            FragmentTree::Map(m) => m.items.len(),
            FragmentTree::Array(a) => a.items.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

// ------------------------------------------------------------------ value store

/// Keeps the Starlark values that annotations of nodes under construction refer
/// to (as `AnnValue::Live(index)`), rooted in the module so the GC sees them.
#[derive(Debug, ProvidesStaticType, Allocative, NoSerialize, Default)]
pub struct ValueStore<'v> {
    values: RefCell<Vec<Value<'v>>>,
}

unsafe impl<'v> Trace<'v> for ValueStore<'v> {
    fn trace(&mut self, tracer: &Tracer<'v>) {
        for v in self.values.get_mut().iter_mut() {
            v.trace(tracer);
        }
    }
}

impl<'v> ValueStore<'v> {
    pub fn push(&self, v: Value<'v>) -> u32 {
        let mut vals = self.values.borrow_mut();
        vals.push(v);
        (vals.len() - 1) as u32
    }

    pub fn get(&self, i: u32) -> Option<Value<'v>> {
        self.values.borrow().get(i as usize).copied()
    }
}

impl<'v> AllocValue<'v> for ValueStore<'v> {
    fn alloc_value(self, heap: Heap<'v>) -> Value<'v> {
        heap.alloc_complex(self)
    }
}

impl fmt::Display for ValueStore<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "<value store>")
    }
}

#[starlark_value(type = "ytt_value_store")]
impl<'v> StarlarkValue<'v> for ValueStore<'v> {}

/// The frozen form of [`ValueStore`].
#[derive(Debug, ProvidesStaticType, Allocative, NoSerialize)]
pub struct FrozenValueStore {
    #[allocative(skip)]
    pub values: Vec<FrozenValue>,
}

starlark_simple_value!(FrozenValueStore);

impl fmt::Display for FrozenValueStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "<value store>")
    }
}

#[starlark_value(type = "ytt_value_store")]
impl<'v> StarlarkValue<'v> for FrozenValueStore {
    type Canonical = ValueStore<'v>;
}

impl<'v> Freeze for ValueStore<'v> {
    type Frozen = FrozenValueStore;
    fn freeze(self, freezer: &Freezer) -> FreezeResult<Self::Frozen> {
        let mut values = Vec::new();
        for v in self.values.into_inner() {
            values.push(v.freeze(freezer)?);
        }
        Ok(FrozenValueStore { values })
    }
}

/// Index `i` of a store value (live or frozen).
pub fn store_get<'v>(store: Value<'v>, i: u32) -> Option<Value<'v>> {
    if let Some(s) = store.downcast_ref::<ValueStore<'v>>() {
        return s.get(i);
    }
    if let Some(s) = store.downcast_ref::<FrozenValueStore>() {
        return s.values.get(i as usize).map(|v| v.to_value());
    }
    None
}

// ------------------------------------------------------------------ node table

/// A template's node table as a (frozen, shareable) module global.
#[derive(Debug, ProvidesStaticType, Allocative, NoSerialize)]
pub struct NodeTableValue {
    #[allocative(skip)]
    pub table: Arc<NodeTable>,
}

starlark_simple_value!(NodeTableValue);

impl fmt::Display for NodeTableValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "<nodes>")
    }
}

#[starlark_value(type = "ytt_nodes")]
impl<'v> StarlarkValue<'v> for NodeTableValue {}

// ------------------------------------------------------------------ noop

/// What `template.replace()` returns: setting it as a node value does nothing.
#[derive(Debug, ProvidesStaticType, Allocative, NoSerialize)]
pub struct Noop;

starlark_simple_value!(Noop);

impl fmt::Display for Noop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "noop")
    }
}

#[starlark_value(type = "noop")]
impl<'v> StarlarkValue<'v> for Noop {}
