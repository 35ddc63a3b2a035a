//! The YAML node tree: ytt's document set / document / map / map item / array /
//! array item model.
//!
//! ytt does not work on plain values: every map item and array item remembers
//! where it came from (so errors can say `from: values.yml:4`) and carries the
//! annotations written above it (`@overlay/match`, `@schema/validation`, ...).
//! Scalars are plain values; collections are nodes with positions.

use std::fmt;
use std::sync::Arc;

use starlark::values::OwnedFrozenValue;

use super::pos::Pos;

/// A YAML value: a scalar or a collection node.
#[derive(Clone, Debug, Default)]
pub enum Value {
    #[default]
    Null,
    Bool(bool),
    Int(i64),
    /// Integers above `i64::MAX` (go-yaml keeps them as `uint64`).
    UInt(u64),
    Float(f64),
    Str(Arc<str>),
    /// Bytes that are not UTF-8 text (`--data-value-file` of a binary file):
    /// go-yaml writes them as `!!binary` base64.
    Binary(Arc<[u8]>),
    Map(Shared<Map>),
    Array(Shared<Array>),
}

/// A collection node that copies of a value share until one of them is
/// changed: the first change through `&mut` copies the node (not what is
/// below it, which stays shared in turn). A plain YAML file is parsed once
/// and output by every pair of its library, and most of an output is never
/// changed by an overlay; copying it whole for each pair was a third of a
/// check of large vendored packages. Code that only reads should take `&`:
/// walking with `&mut` copies every node it passes.
#[derive(Default)]
pub struct Shared<T>(Arc<T>);

impl<T> Shared<T> {
    pub fn new(node: T) -> Shared<T> {
        Shared(Arc::new(node))
    }

    /// The node to change in place, when this is its only holder.
    pub fn get_mut(&mut self) -> Option<&mut T> {
        Arc::get_mut(&mut self.0)
    }

    /// Whether two values share this node (a copy not changed since).
    pub fn ptr_eq(a: &Shared<T>, b: &Shared<T>) -> bool {
        Arc::ptr_eq(&a.0, &b.0)
    }
}

impl<T: Clone> Shared<T> {
    /// The node, taken when this is its only holder, copied otherwise.
    pub fn into_inner(this: Shared<T>) -> T {
        Arc::try_unwrap(this.0).unwrap_or_else(|shared| (*shared).clone())
    }
}

impl<T> Clone for Shared<T> {
    fn clone(&self) -> Self {
        Shared(self.0.clone())
    }
}

impl<T> std::ops::Deref for Shared<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: Clone> std::ops::DerefMut for Shared<T> {
    fn deref_mut(&mut self) -> &mut T {
        Arc::make_mut(&mut self.0)
    }
}

impl<T: fmt::Debug> fmt::Debug for Shared<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        (**self).fmt(f)
    }
}

/// A map or an array, as [`Value::change_nodes`] walks it: its own
/// position and metas, and each item's with the item's value.
trait Collection: Clone {
    type Item;
    fn own(&mut self) -> (&mut Pos, &mut Meta);
    fn own_ref(&self) -> (&Pos, &Meta);
    fn items(&self) -> &[Self::Item];
    fn items_mut(&mut self) -> &mut [Self::Item];
    fn item(i: &Self::Item) -> (&Pos, &Meta, &Value);
    fn item_mut(i: &mut Self::Item) -> (&mut Pos, &mut Meta, &mut Value);
}

macro_rules! collection {
    ($node:ty, $item:ty) => {
        impl Collection for $node {
            type Item = $item;
            fn own(&mut self) -> (&mut Pos, &mut Meta) {
                (&mut self.pos, &mut self.meta)
            }
            fn own_ref(&self) -> (&Pos, &Meta) {
                (&self.pos, &self.meta)
            }
            fn items(&self) -> &[$item] {
                &self.items
            }
            fn items_mut(&mut self) -> &mut [$item] {
                &mut self.items
            }
            fn item(i: &$item) -> (&Pos, &Meta, &Value) {
                (&i.pos, &i.meta, &i.value)
            }
            fn item_mut(i: &mut $item) -> (&mut Pos, &mut Meta, &mut Value) {
                (&mut i.pos, &mut i.meta, &mut i.value)
            }
        }
    };
}
collection!(Map, MapItem);
collection!(Array, ArrayItem);

/// [`Value::change_nodes`] of a node only this value holds: changed in place.
fn change_in_place<C: Collection, E>(
    node: &mut C,
    wants: &dyn Fn(&Pos, &Meta) -> bool,
    change: &mut dyn FnMut(&mut Pos, &mut Meta) -> Result<(), E>,
) -> Result<(), E> {
    let (pos, meta) = node.own();
    if wants(pos, meta) {
        change(pos, meta)?;
    }
    for i in node.items_mut() {
        let (pos, meta, value) = C::item_mut(i);
        if wants(pos, meta) {
            change(pos, meta)?;
        }
        value.change_nodes(wants, change)?;
    }
    Ok(())
}

/// [`Value::change_nodes`] of a shared node: a copy of the nodes on the way
/// to what changed (the rest shared), or `None` when nothing `wants` a
/// change.
fn changed_copy<C: Collection, E>(
    node: &C,
    wants: &dyn Fn(&Pos, &Meta) -> bool,
    change: &mut dyn FnMut(&mut Pos, &mut Meta) -> Result<(), E>,
) -> Result<Option<C>, E> {
    let mut copy: Option<C> = None;
    let (pos, meta) = node.own_ref();
    if wants(pos, meta) {
        let (pos, meta) = copy.get_or_insert_with(|| node.clone()).own();
        change(pos, meta)?;
    }
    for (n, i) in node.items().iter().enumerate() {
        let (pos, meta, value) = C::item(i);
        let own = wants(pos, meta);
        let below = value.changed_copy(wants, change)?;
        if own || below.is_some() {
            let item = &mut copy.get_or_insert_with(|| node.clone()).items_mut()[n];
            let (pos, meta, value) = C::item_mut(item);
            if own {
                change(pos, meta)?;
            }
            if let Some(below) = below {
                *value = below;
            }
        }
    }
    Ok(copy)
}

/// Appends a map item's key to a key path (`a.b`, as validations and
/// findings name values); the caller truncates the path back afterwards.
/// Walks that name values keep one such buffer: most values are fine, and
/// their paths are never needed.
pub fn push_key_path(path: &mut String, key: &Value) {
    if !path.is_empty() {
        path.push('.');
    }
    match key {
        Value::Str(s) => path.push_str(s),
        other => path.push_str(&other.scalar_display()),
    }
}

impl Value {
    /// Gives nodes made from plain values (no position yet) the position
    /// `pos`; nodes from YAML keep theirs (ytt's `convertToAST`).
    pub fn fill_unknown_positions(&mut self, pos: &Pos) {
        let _ = self.change_nodes(
            &|p: &Pos, _: &Meta| !p.is_known(),
            &mut |p: &mut Pos, _: &mut Meta| {
                *p = pos.clone();
                Ok::<(), std::convert::Infallible>(())
            },
        );
    }

    /// Calls `change` with the position and metas of every collection and
    /// item (this one and those below) that `wants`. A node only this value
    /// holds is changed in place; a shared one ([`Shared`]) is copied only
    /// when something below it changes, so a walk that changes a few nodes
    /// leaves the rest shared with the other copies of the value. Each node
    /// is looked at once.
    pub fn change_nodes<E>(
        &mut self,
        wants: &dyn Fn(&Pos, &Meta) -> bool,
        change: &mut dyn FnMut(&mut Pos, &mut Meta) -> Result<(), E>,
    ) -> Result<(), E> {
        match self {
            Value::Map(m) => {
                if let Some(m) = m.get_mut() {
                    return change_in_place(m, wants, change);
                }
            }
            Value::Array(a) => {
                if let Some(a) = a.get_mut() {
                    return change_in_place(a, wants, change);
                }
            }
            _ => return Ok(()),
        }
        if let Some(copy) = self.changed_copy(wants, change)? {
            *self = copy;
        }
        Ok(())
    }

    /// [`Value::change_nodes`] of a value whose nodes may be shared: a copy
    /// of the nodes on the way to what changed, or `None` when nothing
    /// `wants` a change (or it is a scalar).
    fn changed_copy<E>(
        &self,
        wants: &dyn Fn(&Pos, &Meta) -> bool,
        change: &mut dyn FnMut(&mut Pos, &mut Meta) -> Result<(), E>,
    ) -> Result<Option<Value>, E> {
        Ok(match self {
            Value::Map(m) => changed_copy(&**m, wants, change)?.map(|c| Value::Map(Shared::new(c))),
            Value::Array(a) => {
                changed_copy(&**a, wants, change)?.map(|c| Value::Array(Shared::new(c)))
            }
            _ => None,
        })
    }

    pub fn str(s: impl AsRef<str>) -> Value {
        Value::Str(Arc::from(s.as_ref()))
    }

    pub fn new_map(pos: Pos) -> Value {
        Value::Map(Shared::new(Map {
            items: Vec::new(),
            pos,
            meta: Meta::default(),
        }))
    }

    pub fn new_array(pos: Pos) -> Value {
        Value::Array(Shared::new(Array {
            items: Vec::new(),
            pos,
            meta: Meta::default(),
        }))
    }

    /// ytt's name for the type of a value, as used in its messages.
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Int(_) | Value::UInt(_) => "integer",
            Value::Float(_) => "float",
            Value::Str(_) | Value::Binary(_) => "string",
            Value::Map(_) => "map",
            Value::Array(_) => "array",
        }
    }

    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_map(&self) -> Option<&Map> {
        match self {
            Value::Map(m) => Some(m),
            _ => None,
        }
    }

    pub fn as_map_mut(&mut self) -> Option<&mut Map> {
        match self {
            Value::Map(m) => Some(m),
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&Array> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }

    pub fn as_array_mut(&mut self) -> Option<&mut Array> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }

    pub fn is_collection(&self) -> bool {
        matches!(self, Value::Map(_) | Value::Array(_))
    }

    /// Position of a collection node (unknown for scalars).
    pub fn pos(&self) -> Option<&Pos> {
        match self {
            Value::Map(m) => Some(&m.pos),
            Value::Array(a) => Some(&a.pos),
            _ => None,
        }
    }

    /// Equality of scalars as ytt compares map keys and overlay matches: same
    /// type and same value (ints and uints compare by value).
    pub fn scalar_eq(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Null, Value::Null) => true,
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (Value::Int(a), Value::Int(b)) => a == b,
            (Value::UInt(a), Value::UInt(b)) => a == b,
            (Value::Int(a), Value::UInt(b)) | (Value::UInt(b), Value::Int(a)) => {
                *a >= 0 && *a as u64 == *b
            }
            (Value::Float(a), Value::Float(b)) => a == b || (a.is_nan() && b.is_nan()),
            (Value::Str(a), Value::Str(b)) => a == b,
            (Value::Binary(a), Value::Binary(b)) => a == b,
            _ => false,
        }
    }

    /// A hash that agrees with [`Value::scalar_eq`]: two keys it calls
    /// equal hash the same (an integer whatever its sign type, `-0.0` as
    /// `0.0`, every NaN alike). None for a value no key equals (a map, an
    /// array, a Starlark value).
    pub fn scalar_hash(&self) -> Option<u64> {
        use std::hash::{BuildHasher, Hash, Hasher};
        let mut h = foldhash::fast::FixedState::with_seed(0x7974_7463).build_hasher();
        match self {
            Value::Null => 0u8.hash(&mut h),
            Value::Bool(b) => (1u8, b).hash(&mut h),
            Value::Int(i) => (2u8, i128::from(*i)).hash(&mut h),
            Value::UInt(u) => (2u8, i128::from(*u)).hash(&mut h),
            Value::Float(f) => {
                let bits = if f.is_nan() {
                    f64::NAN.to_bits()
                } else if *f == 0.0 {
                    0
                } else {
                    f.to_bits()
                };
                (3u8, bits).hash(&mut h)
            }
            Value::Str(a) => (4u8, &**a).hash(&mut h),
            Value::Binary(a) => (5u8, &a[..]).hash(&mut h),
            _ => return None,
        }
        Some(h.finish())
    }

    /// Deep structural equality, ignoring positions and annotations.
    pub fn deep_eq(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Map(a), Value::Map(b)) => {
                a.items.len() == b.items.len()
                    && a.items
                        .iter()
                        .zip(&b.items)
                        .all(|(x, y)| x.key.scalar_eq(&y.key) && x.value.deep_eq(&y.value))
            }
            (Value::Array(a), Value::Array(b)) => {
                a.items.len() == b.items.len()
                    && a.items
                        .iter()
                        .zip(&b.items)
                        .all(|(x, y)| x.value.deep_eq(&y.value))
            }
            (a, b) => a.scalar_eq(b),
        }
    }

    /// How a scalar shows up in messages (`%s` of the Go value).
    pub fn scalar_display(&self) -> String {
        match self {
            Value::Null => "<nil>".to_string(),
            Value::Bool(b) => b.to_string(),
            Value::Int(i) => i.to_string(),
            Value::UInt(u) => u.to_string(),
            Value::Float(f) => super::float::format_float(*f),
            Value::Str(s) => s.to_string(),
            Value::Binary(b) => String::from_utf8_lossy(b).into_owned(),
            Value::Map(_) => "map".to_string(),
            Value::Array(_) => "array".to_string(),
        }
    }

    /// Walks every node below (and including) this value, depth first.
    pub fn walk_items<'a>(&'a self, f: &mut dyn FnMut(NodeRef<'a>)) {
        match self {
            Value::Map(m) => {
                f(NodeRef::Map(m));
                for item in &m.items {
                    f(NodeRef::MapItem(item));
                    item.value.walk_items(f);
                }
            }
            Value::Array(a) => {
                f(NodeRef::Array(a));
                for item in &a.items {
                    f(NodeRef::ArrayItem(item));
                    item.value.walk_items(f);
                }
            }
            _ => {}
        }
    }
}

/// A borrowed reference to any node of a tree.
#[derive(Clone, Copy)]
pub enum NodeRef<'a> {
    Map(&'a Map),
    MapItem(&'a MapItem),
    Array(&'a Array),
    ArrayItem(&'a ArrayItem),
}

#[derive(Clone, Debug, Default)]
pub struct Map {
    pub items: Vec<MapItem>,
    pub pos: Pos,
    pub meta: Meta,
}

impl Map {
    pub fn get(&self, key: &str) -> Option<&MapItem> {
        self.items
            .iter()
            .find(|i| matches!(&i.key, Value::Str(k) if &**k == key))
    }

    pub fn get_mut(&mut self, key: &str) -> Option<&mut MapItem> {
        self.items
            .iter_mut()
            .find(|i| matches!(&i.key, Value::Str(k) if &**k == key))
    }

    pub fn find(&self, key: &Value) -> Option<usize> {
        self.items.iter().position(|i| i.key.scalar_eq(key))
    }

    /// Keeps only the last of several items with the same key, at the place of
    /// the first (what YAML tools do with duplicate keys in plain files).
    pub fn override_duplicate_keys(&mut self) {
        let mut out: Vec<MapItem> = Vec::with_capacity(self.items.len());
        // a map of many keys is looked up by hash (a file of 30,000 keys
        // took 6 s by scanning), a small one by scanning
        let mut by_hash: foldhash::HashMap<u64, Vec<usize>> = Default::default();
        let indexed = self.items.len() > 16;
        for item in std::mem::take(&mut self.items) {
            let hash = if indexed {
                item.key.scalar_hash()
            } else {
                None
            };
            let found = match hash {
                Some(h) => by_hash
                    .get(&h)
                    .and_then(|c| c.iter().copied().find(|&i| out[i].key.scalar_eq(&item.key))),
                None if indexed => None,
                None => out.iter().position(|i| i.key.scalar_eq(&item.key)),
            };
            match found {
                Some(idx) => out[idx] = item,
                None => {
                    if let Some(h) = hash {
                        by_hash.entry(h).or_default().push(out.len());
                    }
                    out.push(item);
                }
            }
        }
        self.items = out;
    }
}

#[derive(Clone, Debug, Default)]
pub struct MapItem {
    pub key: Value,
    pub value: Value,
    pub pos: Pos,
    pub meta: Meta,
}

impl MapItem {
    /// The key as ytt prints it in paths and messages.
    pub fn key_display(&self) -> String {
        self.key.scalar_display()
    }
}

#[derive(Clone, Debug, Default)]
pub struct Array {
    pub items: Vec<ArrayItem>,
    pub pos: Pos,
    pub meta: Meta,
}

#[derive(Clone, Debug, Default)]
pub struct ArrayItem {
    pub value: Value,
    pub pos: Pos,
    pub meta: Meta,
}

#[derive(Clone, Debug, Default)]
pub struct Document {
    pub value: Value,
    pub pos: Pos,
    pub meta: Meta,
    /// Created by the parser to hold comments after the last document; never printed.
    pub injected: bool,
}

impl Document {
    /// ytt's `IsEmpty`: null, or an empty map or array.
    pub fn is_empty(&self) -> bool {
        match &self.value {
            Value::Null => true,
            Value::Map(m) => m.items.is_empty(),
            Value::Array(a) => a.items.is_empty(),
            _ => false,
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct DocSet {
    pub docs: Vec<Document>,
    pub pos: Pos,
    pub meta: Meta,
}

/// A `#` comment in a YAML source: the text after `#` and where it is.
#[derive(Clone, Debug)]
pub struct Comment {
    pub data: String,
    pub pos: Pos,
}

/// What a node carries besides its value: comments (before templating) and
/// annotations (after templating).
#[derive(Clone, Debug, Default)]
pub struct Meta {
    pub comments: Vec<Comment>,
    pub annotations: Vec<Annotation>,
}

impl Meta {
    /// Whether an annotation's argument is still an index into the value
    /// store of the evaluation building the tree (`AnnValue::Live`).
    pub fn has_live_values(&self) -> bool {
        self.annotations.iter().any(|a| {
            a.args.iter().any(|v| matches!(v, AnnValue::Live(_)))
                || a.kwargs.iter().any(|(_, v)| matches!(v, AnnValue::Live(_)))
        })
    }

    pub fn annotation(&self, name: &str) -> Option<&Annotation> {
        self.annotations.iter().find(|a| a.name == name)
    }

    pub fn has(&self, name: &str) -> bool {
        self.annotation(name).is_some()
    }

    /// Adds an annotation, replacing one of the same name (ytt keeps one per name).
    pub fn set_annotation(&mut self, ann: Annotation) {
        match self.annotations.iter_mut().find(|a| a.name == ann.name) {
            Some(existing) => *existing = ann,
            None => self.annotations.push(ann),
        }
    }

    pub fn remove_annotation(&mut self, name: &str) {
        self.annotations.retain(|a| a.name != name);
    }
}

/// An evaluated annotation: `#@name args...` with its arguments.
#[derive(Clone, Debug)]
pub struct Annotation {
    pub name: String,
    pub pos: Pos,
    pub args: Vec<AnnValue>,
    pub kwargs: Vec<(String, AnnValue)>,
}

impl Annotation {
    pub fn new(name: impl Into<String>, pos: Pos) -> Annotation {
        Annotation {
            name: name.into(),
            pos,
            args: Vec::new(),
            kwargs: Vec::new(),
        }
    }

    pub fn kwarg(&self, name: &str) -> Option<&AnnValue> {
        self.kwargs.iter().find(|(k, _)| k == name).map(|(_, v)| v)
    }
}

/// A Starlark value held by an annotation (a function for `by=`, a rule tuple
/// for `@schema/validation`, ...).
///
/// Values made in Rust (the `missing_ok=True` that `--data-value` flags imply)
/// need no Starlark heap; values from templates live in a frozen heap that this
/// handle keeps alive, so trees can outlive the evaluation that built them and
/// cross threads.
#[derive(Clone)]
pub enum AnnValue {
    None,
    Bool(bool),
    Int(i64),
    Str(String),
    Frozen(OwnedFrozenValue),
    /// Index into the value store of the evaluation that is building this tree;
    /// only ever seen inside the template runtime.
    Live(u32),
}

impl AnnValue {
    /// The Starlark type name of the value (`string`, `int`, `NoneType`).
    pub fn type_name(&self) -> String {
        match self {
            AnnValue::Frozen(f) => f.value().get_type().to_string(),
            AnnValue::Str(_) => "string".into(),
            AnnValue::Bool(_) => "bool".into(),
            AnnValue::Int(_) => "int".into(),
            AnnValue::None => "NoneType".into(),
            AnnValue::Live(_) => "value".into(),
        }
    }

    /// The value as Starlark writes it (`"a"`, `True`, `3`), for messages that
    /// show an annotation's argument.
    pub fn repr(&self) -> String {
        match self {
            AnnValue::Frozen(f) => f.value().to_repr(),
            AnnValue::Str(s) => format!("{s:?}"),
            AnnValue::Bool(true) => "True".into(),
            AnnValue::Bool(false) => "False".into(),
            AnnValue::Int(i) => i.to_string(),
            AnnValue::None => "None".into(),
            AnnValue::Live(_) => "<value>".into(),
        }
    }
}

impl fmt::Debug for AnnValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AnnValue::None => write!(f, "None"),
            AnnValue::Bool(b) => write!(f, "{b}"),
            AnnValue::Int(i) => write!(f, "{i}"),
            AnnValue::Str(s) => write!(f, "{s:?}"),
            AnnValue::Frozen(v) => write!(f, "{}", v.value()),
            AnnValue::Live(i) => write!(f, "<live {i}>"),
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.scalar_display())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The indexed override keeps what scanning keeps, for keys that equal
    /// across types (`1` as Int and UInt, `0.0` and `-0.0`, NaNs).
    #[test]
    fn many_duplicate_keys_are_overridden_as_a_scan_would() {
        let keys = [
            Value::Int(1),
            Value::UInt(1),
            Value::Float(0.0),
            Value::Float(-0.0),
            Value::Float(f64::NAN),
            Value::Float(f64::NAN),
            Value::Float(1.0),
            Value::str("1"),
            Value::Null,
            Value::Bool(true),
            Value::Int(-1),
        ];
        let items: Vec<MapItem> = (0..60)
            .map(|i| MapItem {
                key: keys[i * 7 % keys.len()].clone(),
                value: Value::Int(i as i64),
                pos: Pos::unknown(),
                meta: Meta::default(),
            })
            .collect();
        let mut indexed = Map {
            items: items.clone(),
            ..Map::default()
        };
        indexed.override_duplicate_keys();
        // the scan, a few items at a time (under the index's threshold)
        let mut scanned: Vec<MapItem> = Vec::new();
        for item in items {
            match scanned.iter().position(|i| i.key.scalar_eq(&item.key)) {
                Some(idx) => scanned[idx] = item,
                None => scanned.push(item),
            }
        }
        let show = |v: &[MapItem]| {
            v.iter()
                .map(|i| format!("{:?}={:?}", i.key, i.value))
                .collect::<Vec<_>>()
        };
        assert_eq!(show(&indexed.items), show(&scanned));
        assert_eq!(indexed.items.len(), 8);
    }

    fn item(key: &str, value: Value, meta: Meta) -> MapItem {
        MapItem {
            key: Value::str(key),
            value,
            pos: Pos::unknown(),
            meta,
        }
    }

    fn map(items: Vec<MapItem>) -> Value {
        Value::Map(Shared::new(Map {
            items,
            ..Map::default()
        }))
    }

    fn child(v: &Value, i: usize) -> &Value {
        &v.as_map().expect("a map").items[i].value
    }

    /// A copy shares its nodes until it is changed; a change copies the
    /// nodes on the way to what changed, never the original, and leaves
    /// the untouched branches shared.
    #[test]
    fn a_change_copies_only_the_path_to_what_changed() {
        let marked = Meta {
            annotations: vec![Annotation::new("overlay/match", Pos::unknown())],
            ..Meta::default()
        };
        let original = map(vec![
            item(
                "left",
                map(vec![item("a", Value::Int(1), Meta::default())]),
                Meta::default(),
            ),
            item(
                "right",
                map(vec![item("b", Value::Int(2), marked)]),
                Meta::default(),
            ),
        ]);
        let mut copy = original.clone();
        let (Value::Map(o), Value::Map(c)) = (&original, &copy) else {
            unreachable!()
        };
        assert!(Shared::ptr_eq(o, c));

        // nothing wanted: nothing copied
        copy.change_nodes(&|_, _| false, &mut |_, _| Ok::<(), ()>(()))
            .unwrap();
        let (Value::Map(o), Value::Map(c)) = (&original, &copy) else {
            unreachable!()
        };
        assert!(Shared::ptr_eq(o, c));

        // (what `overlay` does to a result: its annotations removed)
        copy.change_nodes(
            &|_, m: &Meta| !m.annotations.is_empty(),
            &mut |_, m: &mut Meta| {
                m.annotations.clear();
                Ok::<(), ()>(())
            },
        )
        .unwrap();
        // the copy lost the annotation; the original keeps it
        let ann = |v: &Value| {
            child(v, 1).as_map().unwrap().items[0]
                .meta
                .annotations
                .len()
        };
        assert_eq!(ann(&copy), 0);
        assert_eq!(ann(&original), 1);
        // the root and the changed branch were copied, the other branch not
        let (Value::Map(o), Value::Map(c)) = (&original, &copy) else {
            unreachable!()
        };
        assert!(!Shared::ptr_eq(o, c));
        let branch = |v: &Value, i| match child(v, i) {
            Value::Map(m) => m.clone(),
            _ => unreachable!(),
        };
        assert!(Shared::ptr_eq(&branch(&original, 0), &branch(&copy, 0)));
        assert!(!Shared::ptr_eq(&branch(&original, 1), &branch(&copy, 1)));

        // a change through `&mut` of a shared node copies it first
        let mut third = original.clone();
        third.as_map_mut().unwrap().items.pop();
        assert_eq!(original.as_map().unwrap().items.len(), 2);
        assert_eq!(third.as_map().unwrap().items.len(), 1);
    }

    /// Positions are filled where unknown only, as before sharing.
    #[test]
    fn unknown_positions_are_filled_and_known_ones_kept() {
        let src = crate::yaml::SourceFile::new("f.yml", "a: 1\nb: 2\n");
        let known = Pos::new(&src, 1, 1);
        let mut v = map(vec![MapItem {
            pos: known.clone(),
            ..item(
                "a",
                map(vec![item("b", Value::Int(1), Meta::default())]),
                Meta::default(),
            )
        }]);
        let here = Pos::new(&src, 2, 1);
        v.fill_unknown_positions(&here);
        let m = v.as_map().unwrap();
        assert_eq!(m.pos.compact(), here.compact());
        assert_eq!(m.items[0].pos.compact(), known.compact());
        assert_eq!(
            child(&v, 0).as_map().unwrap().items[0].pos.compact(),
            here.compact()
        );
    }
}
