//! Starlark values <-> YAML values.
//!
//! When a template sets a node's value from an expression, the Starlark value
//! becomes YAML (ytt's `AsGoValue`): dicts and structs become maps, lists,
//! tuples and sets become arrays, fragments become their nodes. The other way,
//! YAML becomes Starlark: `data.values` maps become structs, maps read out of a
//! fragment become fragments again, elsewhere maps are dicts.

use crate::yaml::parse::parse;
use crate::yaml::print::print_docset;
use crate::yaml::{DocSet, Document, SourceFile};
use starlark::eval::Evaluator;
use std::sync::Arc;

use starlark::collections::SmallMap;
use starlark::values::dict::{AllocDict, DictRef};
use starlark::values::float::StarlarkFloat;
use starlark::values::list::{AllocList, ListRef};
use starlark::values::tuple::TupleRef;
use starlark::values::{Heap, UnpackValue, Value, ValueLike};

use crate::yaml::{AnnValue, Array, ArrayItem, Map, MapItem, Meta, Pos, Value as YValue};

use super::values::{
    store_get, FragmentTree, Noop, ValueStore, YamlFragment, YamlFragmentGen, YttStruct,
};

/// What a value set on a node turned into.
pub enum NodeValue {
    Value(YValue),
    DocSet(crate::yaml::DocSet),
    /// `template.replace(...)` already did the work.
    Noop,
}

fn err(msg: impl Into<String>) -> starlark::Error {
    starlark::Error::new_other(anyhow::anyhow!("{}", msg.into()))
}

/// Converts a Starlark value for a node (ytt's `AsGoValue`), moving fragment
/// annotation values into `store` (the current evaluation's value store).
pub fn to_node_value<'v>(v: Value<'v>, store: Option<Value<'v>>) -> starlark::Result<NodeValue> {
    if v.downcast_ref::<Noop>().is_some() {
        return Ok(NodeValue::Noop);
    }
    if let Some(f) = YamlFragment::from_value(v) {
        if let FragmentTree::DocSet(ds) = &*f.tree {
            let mut ds = ds.clone();
            for d in &mut ds.docs {
                rehome_meta(&mut d.meta, f, store)?;
                rehome_value(&mut d.value, f, store)?;
            }
            return Ok(NodeValue::DocSet(ds));
        }
    }
    to_yaml(v, store).map(NodeValue::Value)
}

/// Converts a Starlark value to YAML.
pub fn to_yaml<'v>(v: Value<'v>, store: Option<Value<'v>>) -> starlark::Result<YValue> {
    to_yaml_depth(v, store, 0)
}

fn to_yaml_depth<'v>(
    v: Value<'v>,
    store: Option<Value<'v>>,
    depth: usize,
) -> starlark::Result<YValue> {
    if depth > 1000 {
        return Err(err("value is nested too deeply (or contains itself)"));
    }
    if v.is_none() {
        return Ok(YValue::Null);
    }
    if let Some(b) = v.unpack_bool() {
        return Ok(YValue::Bool(b));
    }
    if let Some(s) = v.unpack_str() {
        return Ok(YValue::str(s));
    }
    match v.get_type() {
        "int" => {
            if let Ok(Some(i)) = i64::unpack_value(v) {
                return Ok(YValue::Int(i));
            }
            if let Ok(Some(u)) = u64::unpack_value(v) {
                return Ok(YValue::UInt(u));
            }
            return Err(err(format!(
                "Unable to convert value: integer {} does not fit in 64 bits",
                v.to_repr()
            )));
        }
        "float" => {
            if let Some(f) = v.downcast_ref::<StarlarkFloat>() {
                return Ok(YValue::Float(f.0));
            }
        }
        _ => {}
    }
    if let Some(list) = ListRef::from_value(v) {
        return array_of(list.iter(), store, depth);
    }
    if let Some(t) = TupleRef::from_value(v) {
        return array_of(t.iter(), store, depth);
    }
    if let Some(d) = DictRef::from_value(v) {
        let mut map = Map::default();
        for (k, val) in d.iter() {
            let key = to_yaml_depth(k, store, depth + 1)?;
            if key.is_collection() {
                return Err(err("Unable to convert value: map keys must be scalars"));
            }
            let value = to_yaml_depth(val, store, depth + 1)?;
            set_key(&mut map, key, value);
        }
        return Ok(YValue::Map(crate::yaml::Shared::new(map)));
    }
    if let Some(s) = YttStruct::from_value(v) {
        s.tracked.whole();
        // a struct's field names are distinct strings: no key to look up
        let mut map = Map {
            items: Vec::with_capacity(s.fields.len()),
            ..Map::default()
        };
        for (k, val) in &s.fields {
            let value = to_yaml_depth(val.to_value(), store, depth + 1)?;
            map.items.push(MapItem {
                key: YValue::str(k),
                value,
                pos: Pos::unknown(),
                meta: Meta::default(),
            });
        }
        return Ok(YValue::Map(crate::yaml::Shared::new(map)));
    }
    if let Some(f) = YamlFragment::from_value(v) {
        return match &*f.tree {
            FragmentTree::Null => Ok(YValue::Null),
            FragmentTree::Map(m) => {
                let mut v = YValue::Map(crate::yaml::Shared::new(m.clone()));
                rehome_value(&mut v, f, store)?;
                Ok(v)
            }
            FragmentTree::Array(a) => {
                let mut v = YValue::Array(crate::yaml::Shared::new(a.clone()));
                rehome_value(&mut v, f, store)?;
                Ok(v)
            }
            FragmentTree::DocSet(_) => Err(err(
                "map items can only contain arrays, maps, or scalars; this is a document set",
            )),
        };
    }
    if v.get_type() == "set" {
        return Err(err(
            "Unable to convert value: sets have no YAML form here (convert with sorted(...) or list(...))",
        ));
    }
    if v.get_type() == "@ytt:assert.assertion" {
        return Err(err(
            "Unable to convert value: @ytt:assert.assertion does not encode (did you mean to call check()?)",
        ));
    }
    Err(err(format!(
        "Unable to convert value of type '{}' to YAML",
        v.get_type()
    )))
}

fn array_of<'v>(
    items: impl Iterator<Item = Value<'v>>,
    store: Option<Value<'v>>,
    depth: usize,
) -> starlark::Result<YValue> {
    let mut arr = Array::default();
    for it in items {
        arr.items.push(ArrayItem {
            value: to_yaml_depth(it, store, depth + 1)?,
            pos: Pos::unknown(),
            meta: Meta::default(),
        });
    }
    Ok(YValue::Array(crate::yaml::Shared::new(arr)))
}

/// Adds or overwrites a key (dict/orderedmap semantics: first position, last value).
fn set_key(map: &mut Map, key: YValue, value: YValue) {
    match map.find(&key) {
        Some(i) => map.items[i].value = value,
        None => map.items.push(MapItem {
            key,
            value,
            pos: Pos::unknown(),
            meta: Meta::default(),
        }),
    }
}

/// A map key from a Starlark value.
pub fn to_yaml_key(v: Value) -> starlark::Result<YValue> {
    let k = to_yaml(v, None)?;
    if k.is_collection() {
        return Err(err("expected a scalar key"));
    }
    Ok(k)
}

// ------------------------------------------------------------------ re-homing

fn rehome_ann<'v, V: ValueLike<'v>>(
    a: &mut AnnValue,
    frag: &YamlFragmentGen<V>,
    store: Option<Value<'v>>,
) -> starlark::Result<()> {
    if let AnnValue::Live(i) = a {
        let src = frag.store.to_value();
        match store {
            Some(cur) if cur.ptr_eq(src) => {}
            Some(cur) => {
                let Some(val) = store_get(src, *i) else {
                    return Err(err("internal error: annotation value not found"));
                };
                let Some(cur_store) = cur.downcast_ref::<ValueStore<'v>>() else {
                    return Err(err("internal error: no value store"));
                };
                *a = AnnValue::Live(cur_store.push(val));
            }
            None => {
                return Err(err(
                    "internal error: fragment used outside of an evaluation",
                ))
            }
        }
    }
    Ok(())
}

fn rehome_meta<'v, V: ValueLike<'v>>(
    m: &mut Meta,
    frag: &YamlFragmentGen<V>,
    store: Option<Value<'v>>,
) -> starlark::Result<()> {
    for ann in &mut m.annotations {
        for a in &mut ann.args {
            rehome_ann(a, frag, store)?;
        }
        for (_, a) in &mut ann.kwargs {
            rehome_ann(a, frag, store)?;
        }
    }
    Ok(())
}

/// Moves a fragment's live annotation values to the current evaluation's
/// store, changing (and so copying) only the nodes that have one; nothing
/// when the fragment was made in this evaluation.
fn rehome_value<'v, V: ValueLike<'v>>(
    v: &mut YValue,
    frag: &YamlFragmentGen<V>,
    store: Option<Value<'v>>,
) -> starlark::Result<()> {
    if store.is_some_and(|cur| cur.ptr_eq(frag.store.to_value())) {
        return Ok(());
    }
    v.change_nodes(
        &|_, m: &Meta| m.has_live_values(),
        &mut |_, m: &mut Meta| rehome_meta(m, frag, store),
    )
}

// ------------------------------------------------------------------ yaml -> starlark

/// How maps are represented when YAML becomes Starlark.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum MapAs {
    Dict,
    Struct,
}

/// Converts YAML to plain Starlark values (dicts or structs, lists).
/// [`from_yaml`] for `data.values` whose reads go to `log`: each map becomes
/// a struct that records the paths read under `path`.
pub fn from_yaml_tracked<'v>(
    v: &YValue,
    heap: Heap<'v>,
    log: &Arc<super::values::ReadLog>,
    path: &str,
) -> starlark::Result<Value<'v>> {
    let YValue::Map(m) = v else {
        return from_yaml(v, heap, MapAs::Struct);
    };
    let mut fields = SmallMap::with_capacity(m.items.len());
    for it in &m.items {
        let YValue::Str(k) = &it.key else {
            return Err(err(format!(
                "expected struct key {} to be string",
                it.key.scalar_display()
            )));
        };
        // only a map records reads: a scalar or array child needs no path
        // (one string per value was most of converting data.values)
        let value = match &it.value {
            YValue::Map(_) => {
                let mut child = String::with_capacity(path.len() + 1 + k.len());
                if !path.is_empty() {
                    child.push_str(path);
                    child.push('.');
                }
                child.push_str(k);
                from_yaml_tracked(&it.value, heap, log, &child)?
            }
            other => from_yaml(other, heap, MapAs::Struct)?,
        };
        fields.insert(k.to_string(), value);
    }
    Ok(YttStruct::alloc_tracked(
        fields,
        super::values::Tracked::at(log, path.to_string()),
        heap,
    ))
}

pub fn from_yaml<'v>(v: &YValue, heap: Heap<'v>, maps: MapAs) -> starlark::Result<Value<'v>> {
    Ok(match v {
        YValue::Null => Value::new_none(),
        YValue::Bool(b) => Value::new_bool(*b),
        YValue::Int(i) => heap.alloc(*i),
        YValue::UInt(u) => heap.alloc(*u),
        YValue::Float(f) => heap.alloc(StarlarkFloat(*f)),
        YValue::Str(s) => heap.alloc_str(s).to_value(),
        // a Starlark string is UTF-8 here (go-starlark's may hold any bytes)
        YValue::Binary(b) => heap.alloc_str(&String::from_utf8_lossy(b)).to_value(),
        YValue::Array(a) => {
            let mut items = Vec::with_capacity(a.items.len());
            for it in &a.items {
                items.push(from_yaml(&it.value, heap, maps)?);
            }
            heap.alloc(AllocList(items))
        }
        YValue::Map(m) => match maps {
            MapAs::Struct => {
                let mut fields = SmallMap::with_capacity(m.items.len());
                for it in &m.items {
                    let YValue::Str(k) = &it.key else {
                        return Err(err(format!(
                            "expected struct key {} to be string",
                            it.key.scalar_display()
                        )));
                    };
                    fields.insert(k.to_string(), from_yaml(&it.value, heap, maps)?);
                }
                YttStruct::alloc(fields, heap)
            }
            MapAs::Dict => {
                let mut pairs = Vec::with_capacity(m.items.len());
                for it in &m.items {
                    pairs.push((
                        from_yaml(&it.key, heap, maps)?,
                        from_yaml(&it.value, heap, maps)?,
                    ));
                }
                heap.alloc(AllocDict(pairs))
            }
        },
    })
}

/// Converts YAML read out of a fragment: collections stay fragments.
fn fragment_value<'v>(v: &YValue, store: Value<'v>, heap: Heap<'v>) -> starlark::Result<Value<'v>> {
    Ok(match v {
        YValue::Map(m) => heap.alloc(YamlFragment {
            tree: Arc::new(FragmentTree::Map((**m).clone())),
            store,
        }),
        YValue::Array(a) => heap.alloc(YamlFragment {
            tree: Arc::new(FragmentTree::Array((**a).clone())),
            store,
        }),
        scalar => from_yaml(scalar, heap, MapAs::Dict)?,
    })
}

/// `fragment[key]`.
pub fn fragment_at<'v, V: ValueLike<'v>>(
    f: &YamlFragmentGen<V>,
    index: Value<'v>,
    heap: Heap<'v>,
) -> starlark::Result<Value<'v>> {
    let store = f.store.to_value();
    match &*f.tree {
        FragmentTree::Map(m) => {
            let key = to_yaml_key(index)?;
            match m.items.iter().find(|i| i.key.scalar_eq(&key)) {
                Some(item) => fragment_value(&item.value, store, heap),
                None => Err(err(format!("key {} not in yamlfragment", index.to_repr()))),
            }
        }
        FragmentTree::Array(a) => {
            let i = index_of(index, a.items.len())?;
            fragment_value(&a.items[i].value, store, heap)
        }
        FragmentTree::DocSet(d) => {
            let i = index_of(index, d.docs.len())?;
            fragment_value(&d.docs[i].value, store, heap)
        }
        FragmentTree::Null => Err(err("yamlfragment is empty")),
    }
}

fn index_of(index: Value, len: usize) -> starlark::Result<usize> {
    let Some(i) = index.unpack_i32() else {
        return Err(err(format!(
            "yamlfragment.Get: Expected array index to be an int64, but was {}",
            index.get_type()
        )));
    };
    let i = if i < 0 { i + len as i32 } else { i };
    if i < 0 || i as usize >= len {
        return Err(err(format!("index {i} out of range (length {len})")));
    }
    Ok(i as usize)
}

/// `for x in fragment`: keys of a map, values of an array or document set.
pub fn fragment_iter<'v, V: ValueLike<'v>>(
    f: &YamlFragmentGen<V>,
    heap: Heap<'v>,
) -> starlark::Result<Vec<Value<'v>>> {
    let store = f.store.to_value();
    match &*f.tree {
        FragmentTree::Null => Ok(Vec::new()),
        FragmentTree::Map(m) => m
            .items
            .iter()
            .map(|i| from_yaml(&i.key, heap, MapAs::Dict))
            .collect(),
        FragmentTree::Array(a) => a
            .items
            .iter()
            .map(|i| fragment_value(&i.value, store, heap))
            .collect(),
        FragmentTree::DocSet(d) => d
            .docs
            .iter()
            .map(|doc| fragment_value(&doc.value, store, heap))
            .collect(),
    }
}

/// `yaml.encode`: what ytt prints for the value (empty for null and `{}`).
pub fn yaml_encode<'v>(v: Value<'v>, eval: &Evaluator<'v, '_, '_>) -> starlark::Result<String> {
    let is_fragment = v.downcast_ref::<YamlFragment>().is_some();
    let ds = match to_node_value(v, super::nodes::current_store(eval))? {
        // a plain list or dict is never an "empty document" (ytt only skips
        // empty YAML nodes): `yaml.encode([])` is `[]`
        NodeValue::Value(y) if !is_fragment && !y.is_null() => {
            return Ok(crate::yaml::print::print_value(&y))
        }
        NodeValue::DocSet(ds) => ds,
        NodeValue::Value(y) => DocSet {
            docs: vec![Document {
                value: y,
                pos: Pos::unknown(),
                meta: Meta::default(),
                injected: false,
            }],
            ..DocSet::default()
        },
        NodeValue::Noop => DocSet::default(),
    };
    Ok(print_docset(&ds))
}

/// `yaml.decode`: exactly one document, maps as dicts.
pub fn yaml_decode<'v>(text: &str, heap: Heap<'v>) -> starlark::Result<Value<'v>> {
    let src = SourceFile::new("", text);
    let mut ds = parse(&src, false).map_err(|e| err(e.ytt_message()))?;
    if ds.docs.len() != 1 {
        return Err(err("Expected to find exactly one YAML document"));
    }
    let mut v = std::mem::take(&mut ds.docs[0].value);
    override_keys(&mut v);
    from_yaml(&v, heap, MapAs::Dict)
}

fn override_keys(v: &mut YValue) {
    match v {
        YValue::Map(m) => {
            m.override_duplicate_keys();
            for i in &mut m.items {
                override_keys(&mut i.value);
            }
        }
        YValue::Array(a) => {
            for i in &mut a.items {
                override_keys(&mut i.value);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use starlark::environment::Module;

    #[test]
    fn roundtrip_values() {
        Module::with_temp_heap(|m| {
            let heap = m.heap();
            let src = crate::yaml::parse::parse(
                &crate::yaml::SourceFile::new(
                    "t.yml",
                    "a: 1\nb: [x, 2.5, null, true]\nc: {d: e}\n",
                ),
                false,
            )
            .unwrap();
            let v = &src.docs[0].value;
            let s = from_yaml(v, heap, MapAs::Dict).unwrap();
            let back = to_yaml(s, None).unwrap();
            assert!(back.deep_eq(v));
            let st = from_yaml(v, heap, MapAs::Struct).unwrap();
            assert_eq!(st.get_type(), "struct");
            assert!(to_yaml(st, None).unwrap().deep_eq(v));
        });
    }
}
