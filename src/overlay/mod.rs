//! ytt's overlay engine (`@overlay/...` annotations), as data values and
//! schemas use it.
//!
//! The right-hand side is walked node by node; each node says what to do with
//! the matching left-hand nodes: merge (the default), replace, remove, insert,
//! append or assert. `@overlay/match` says which nodes match (`by=`) and how
//! many must (`expects=`, `missing_ok=`, `when=`); `@overlay/match-child-defaults`
//! sets those for descendants. Messages are ytt's, so users can search them.

mod arguments;
pub mod compare;
mod documents;
pub mod expects;
pub mod matchers;

use starlark::eval::Evaluator;
use starlark::values::Value as SValue;

use crate::template::eval::ann_value;
use crate::template::runtime::convert::{from_yaml, to_yaml, MapAs};
use crate::template::runtime::go::go_type_name;
use crate::template::runtime::values::{FragmentTree, YamlFragment};
use crate::yaml::{Annotation, Array, ArrayItem, DocSet, Document, Map, MapItem, Meta, Pos, Value};

use arguments::{expects_kwargs, InsertKw};
pub use documents::overlay_document;
use expects::{Expects, NumMatchError};

pub const MERGE: &str = "overlay/merge";
pub const REMOVE: &str = "overlay/remove";
pub const REPLACE: &str = "overlay/replace";
pub const INSERT: &str = "overlay/insert";
pub const APPEND: &str = "overlay/append";
pub const ASSERT: &str = "overlay/assert";
pub const MATCH: &str = "overlay/match";
pub const MATCH_CHILD_DEFAULTS: &str = "overlay/match-child-defaults";

const ALL_OPS: &[&str] = &[MERGE, REMOVE, REPLACE, INSERT, APPEND, ASSERT];

/// An overlay failure: ytt's message (each level of the path, outermost
/// first, as ytt nests it) and the innermost node it names, so a finding
/// points at that line without reading the message.
#[derive(Debug, Clone)]
pub struct OverlayError {
    pub message: String,
    pub pos: Option<Pos>,
    /// Nothing matched (ytt's "Expected number of matched nodes to be 1, but
    /// was 0").
    pub no_match: bool,
    /// What a checker adds to ytt's text: the key that matched nothing, the
    /// keys there are, the nearest one.
    pub hints: Vec<String>,
    /// The key to write instead of one that matched nothing, when one is
    /// near (`(replicsa, replicas)`).
    pub rename: Option<Box<(String, String)>>,
}

impl From<String> for OverlayError {
    fn from(message: String) -> OverlayError {
        OverlayError {
            message,
            pos: None,
            no_match: false,
            hints: Vec::new(),
            rename: None,
        }
    }
}

impl From<&str> for OverlayError {
    fn from(message: &str) -> OverlayError {
        OverlayError::from(message.to_string())
    }
}

impl std::fmt::Display for OverlayError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl OverlayError {
    /// ytt's `<what> on <line>: <error>`: the error one level up, at `pos`
    /// unless a deeper level already named its node.
    fn within(self, what: String, pos: &Pos) -> OverlayError {
        OverlayError {
            message: format!("{what} on {}: {}", pos.as_line_string(), self.message),
            pos: self.pos.or_else(|| Some(pos.clone())),
            no_match: self.no_match,
            hints: self.hints,
            rename: self.rename,
        }
    }
}

/// Applies overlays; calls into Starlark (matchers, `via=`) with `ev`.
pub struct Op<'e, 'v, 'a, 'x> {
    pub ev: &'e mut Evaluator<'v, 'a, 'x>,
    /// Data values and schemas overlay exactly one document on one document.
    pub exact_match: bool,
    /// The keys of the map being overlaid now, by hash (`None` outside a
    /// map; built when first asked).
    keys: Option<KeyIndex>,
}

impl<'e, 'v, 'a, 'x> Op<'e, 'v, 'a, 'x> {
    pub fn new(ev: &'e mut Evaluator<'v, 'a, 'x>, exact_match: bool) -> Self {
        Op {
            ev,
            exact_match,
            keys: None,
        }
    }
}

/// A left map's keys by [`Value::scalar_hash`], so each right item finds
/// its key without scanning (a values file of 30,000 keys overlaid on its
/// defaults was 450 million comparisons). Items appended since it was
/// built are added when it is next asked; a removal, or a replacement that
/// changes a key, marks it stale, and it is built again.
#[derive(Default)]
pub struct KeyIndex {
    built: usize,
    stale: bool,
    by_hash: foldhash::HashMap<u64, Vec<usize>>,
}

/// Below this many items, scanning is as fast.
const INDEX_FROM: usize = 16;

impl KeyIndex {
    /// The indexes of `left`'s items whose key may equal `key` (each still
    /// to be compared), ascending; `None` when `left` is small.
    fn candidates(&mut self, left: &Map, key: &Value) -> Option<Vec<usize>> {
        if left.items.len() <= INDEX_FROM {
            return None;
        }
        if self.stale || self.built > left.items.len() {
            *self = KeyIndex::default();
        }
        for (i, item) in left.items.iter().enumerate().skip(self.built) {
            if let Some(h) = item.key.scalar_hash() {
                self.by_hash.entry(h).or_default().push(i);
            }
        }
        self.built = left.items.len();
        // a key that is no scalar equals no key
        let Some(h) = key.scalar_hash() else {
            return Some(Vec::new());
        };
        Some(self.by_hash.get(&h).cloned().unwrap_or_default())
    }
}

fn which_op(meta: &Meta) -> Result<&'static str, OverlayError> {
    let mut found: Option<&'static str> = None;
    for op in ALL_OPS {
        if meta.has(op) {
            if found.is_some() {
                return Err("Expected to find only one overlay operation"
                    .to_string()
                    .into());
            }
            found = Some(op);
        }
    }
    Ok(found.unwrap_or(MERGE))
}

/// Removes `overlay/...` annotations from a tree (what ytt does after applying).
pub fn remove_overlay_annotations(v: &mut Value) {
    fn is_overlay(a: &crate::yaml::Annotation) -> bool {
        a.name.starts_with("overlay/")
    }
    // (only the nodes that have one are changed: the rest of the value
    // stays shared with the documents it came from)
    let _ = v.change_nodes(
        &|_, m: &Meta| m.annotations.iter().any(is_overlay),
        &mut |_, m: &mut Meta| {
            m.annotations.retain(|a| !is_overlay(a));
            Ok::<(), std::convert::Infallible>(())
        },
    );
}

impl<'v> Op<'_, 'v, '_, '_> {
    fn sval(&self, a: &crate::yaml::AnnValue) -> SValue<'v> {
        ann_value(a, self.ev)
    }

    /// Starlark view of a YAML value for matcher arguments (collections as fragments).
    pub fn yaml_arg(&self, v: &Value) -> SValue<'v> {
        let heap = self.ev.heap();
        match v {
            Value::Map(m) => heap.alloc(YamlFragment {
                tree: std::sync::Arc::new(FragmentTree::Map((**m).clone())),
                store: SValue::new_none(),
            }),
            Value::Array(a) => heap.alloc(YamlFragment {
                tree: std::sync::Arc::new(FragmentTree::Array((**a).clone())),
                store: SValue::new_none(),
            }),
            other => from_yaml(other, heap, MapAs::Dict).unwrap_or_else(|_| SValue::new_none()),
        }
    }

    /// Whether matcher `f` matches `left` against `right`: on the values
    /// themselves when `f` is one of `@ytt:overlay`'s, else by a call with
    /// Starlark views of them (`right_arg` keeps the right one's across
    /// the left items).
    fn matches(
        &mut self,
        f: SValue<'v>,
        first: matchers::First<'_>,
        left: &Value,
        right: &Value,
        right_arg: &mut Option<SValue<'v>>,
    ) -> Result<bool, OverlayError> {
        let store = crate::template::runtime::current_store(self.ev);
        if let Some(r) = matchers::native(f, first, left, right, store) {
            return r.map_err(|e| {
                crate::template::runtime::go::go_error_text(&crate::template::runtime::go::err(e))
                    .into()
            });
        }
        let right = match right_arg {
            Some(r) => *r,
            None => *right_arg.insert(self.yaml_arg(right)),
        };
        let first = match first {
            matchers::First::Index(i) => self.ev.heap().alloc(i),
            matchers::First::Key(k) => self.yaml_arg(k),
        };
        let l = self.yaml_arg(left);
        self.call_bool(f, &[first, l, right])
    }

    fn call_bool(&mut self, f: SValue<'v>, args: &[SValue<'v>]) -> Result<bool, OverlayError> {
        let r = self
            .ev
            .eval_function(f, args, &[])
            .map_err(|e| crate::template::runtime::go::go_error_text(&e))?;
        r.unpack_bool()
            .ok_or_else(|| format!("expected starlark.Bool, but was {}", go_type_name(r)).into())
    }

    fn call_value(&mut self, f: SValue<'v>, args: &[SValue<'v>]) -> Result<Value, OverlayError> {
        let r = self
            .ev
            .eval_function(f, args, &[])
            .map_err(|e| crate::template::runtime::go::go_error_text(&e))?;
        let store = crate::template::runtime::current_store(self.ev);
        to_yaml(r, store).map_err(|e| e.to_string().into())
    }

    // ------------------------------------------------------------------ values

    /// Overlays `right` onto `left`; `Ok(true)` means "replace left with right"
    /// (scalars and mismatched leaves).
    pub fn apply(
        &mut self,
        left: &mut Value,
        right: &Value,
        defaults: &Expects,
    ) -> Result<bool, OverlayError> {
        match right {
            Value::Map(rmap) => {
                let Value::Map(lmap) = left else {
                    return Err(format!("Expected map, but was {}", left.type_name()).into());
                };
                // each item is used where it is (merging copies only what
                // the left side does not have): a copy here would copy every
                // subtree once per level above it
                let outer = self.keys.replace(KeyIndex::default());
                let result = self.apply_map_items(lmap, rmap, defaults);
                self.keys = outer;
                result
            }
            Value::Array(rarr) => {
                let Value::Array(larr) = left else {
                    return Err(format!("Expected array, but was {}", left.type_name()).into());
                };
                for item in &rarr.items {
                    let r = which_op(&item.meta).and_then(|op| match op {
                        MERGE => self.merge_item(&mut **larr, item, defaults),
                        REMOVE => self.remove_item(&mut **larr, item, defaults),
                        REPLACE => self.replace_item(&mut **larr, item, defaults),
                        INSERT => self.insert_array_item(larr, item, defaults),
                        APPEND => {
                            larr.items.push(item.clone());
                            Ok(())
                        }
                        ASSERT => self.assert_item(&mut **larr, item, defaults),
                        op => Err(format!("Overlay op {op} is not supported on array item").into()),
                    });
                    if let Err(e) = r {
                        return Err(e.within("Array item".to_string(), &item.pos));
                    }
                }
                Ok(false)
            }
            _ => Ok(true),
        }
    }

    /// The items of `rmap`, each overlaid on `lmap` by its operation.
    fn apply_map_items(
        &mut self,
        lmap: &mut crate::yaml::Shared<Map>,
        rmap: &Map,
        defaults: &Expects,
    ) -> Result<bool, OverlayError> {
        for item in &rmap.items {
            let r = which_op(&item.meta).and_then(|op| match op {
                MERGE => self.merge_item(&mut **lmap, item, defaults),
                REMOVE => self.remove_item(&mut **lmap, item, defaults),
                REPLACE => self.replace_item(&mut **lmap, item, defaults),
                ASSERT => self.assert_item(&mut **lmap, item, defaults),
                op => Err(format!(
                    "Found @{op} on map item ({}); only array items can be annotated with @{op}",
                    item.pos.compact()
                )
                .into()),
            });
            if let Err(mut e) = r {
                if e.no_match && e.hints.is_empty() {
                    e.hints = missing_key_hints(&item.key_display(), lmap);
                    e.rename = nearest_key(&item.key_display(), lmap)
                        .map(|near| Box::new((item.key_display(), near)));
                }
                return Err(e.within(
                    format!("Map item (key '{}')", item.key_display()),
                    &item.pos,
                ));
            }
        }
        Ok(false)
    }

    /// A left map's keys changed other than by appending: its index is
    /// built again when next asked.
    fn keys_changed(&mut self) {
        if let Some(k) = &mut self.keys {
            k.stale = true;
        }
    }

    fn child_defaults(&mut self, meta: &Meta, parent: &Expects) -> Result<Expects, OverlayError> {
        let (_, e) = expects_kwargs(meta, MATCH_CHILD_DEFAULTS, parent)?;
        Ok(e)
    }

    /// Parses `@overlay/match` kwargs: (matcher, expects).
    fn match_kwargs(
        &mut self,
        meta: &Meta,
        defaults: &Expects,
    ) -> Result<(Option<crate::yaml::AnnValue>, Expects), OverlayError> {
        expects_kwargs(meta, MATCH, defaults)
    }

    /// Turns `by=` into a callable (a string means `overlay.map_key(string)`).
    fn matcher_fn(
        &mut self,
        by: &crate::yaml::AnnValue,
        for_docs: bool,
    ) -> Result<SValue<'v>, OverlayError> {
        let v = self.sval(by);
        if !for_docs {
            if let Some(s) = v.unpack_str() {
                return Ok(matchers::map_key_matcher(s, self.ev.heap()));
            }
        }
        if crate::template::runtime::go::is_callable(v) {
            return Ok(v);
        }
        if for_docs {
            return Err(format!(
                "Expected '{MATCH}' annotation keyword argument 'by' to be function, but was {}",
                go_type_name(v)
            )
            .into());
        }
        Err(format!(
            "Expected '{MATCH}' annotation keyword argument 'by' to be either string (for map key) or function, but was {}",
            go_type_name(v)
        ).into())
    }

    fn check(&mut self, e: &Expects, matches: &[Pos]) -> Result<bool, OverlayError> {
        match e.check(matches, self) {
            Ok(()) => Ok(true),
            Err(NumMatchError {
                message,
                conditional,
            }) => {
                if conditional {
                    Ok(false)
                } else {
                    let mut err = OverlayError::from(message);
                    err.no_match = matches.is_empty();
                    Err(err)
                }
            }
        }
    }

    /// Indexes of left map items matching `item`; `None` when a `when=`
    /// condition says to skip.
    fn map_indexes(
        &mut self,
        left: &Map,
        item: &MapItem,
        defaults: &Expects,
    ) -> Result<Option<Vec<usize>>, OverlayError> {
        let (by, e) = self.match_kwargs(&item.meta, defaults)?;
        let mut idxs = Vec::new();
        let mut matches = Vec::new();
        match by {
            None => {
                let mut take = |i: usize| {
                    let li = &left.items[i];
                    if li.key.scalar_eq(&item.key) {
                        idxs.push(i);
                        matches.push(li.pos.clone());
                    }
                };
                // (a small map is scanned, with no list of its indexes made)
                match self
                    .keys
                    .as_mut()
                    .and_then(|k| k.candidates(left, &item.key))
                {
                    Some(candidates) => candidates.into_iter().for_each(&mut take),
                    None => (0..left.items.len()).for_each(&mut take),
                }
            }
            Some(by) => {
                let f = self.matcher_fn(&by, false)?;
                let mut right = None;
                for (i, li) in left.items.iter().enumerate() {
                    let first = matchers::First::Key(&li.key);
                    if self.matches(f, first, &li.value, &item.value, &mut right)? {
                        idxs.push(i);
                        matches.push(li.pos.clone());
                    }
                }
            }
        }
        Ok(if self.check(&e, &matches)? {
            Some(idxs)
        } else {
            None
        })
    }

    // ------------------------------------------------------------------ items

    /// `@overlay/merge` of a map or array item: merged into every match, or
    /// added when nothing matches (and `expects` allows it).
    fn merge_item<L: Items>(
        &mut self,
        left: &mut L,
        item: &L::Item,
        defaults: &Expects,
    ) -> Result<(), OverlayError> {
        let child = self.child_defaults(item.meta(), defaults)?;
        let Some(idxs) = L::matching(self, left, item, defaults)? else {
            return Ok(());
        };
        if idxs.is_empty() {
            left.items_mut().push(item.clone());
            return Ok(());
        }
        for i in idxs {
            let target = &mut left.items_mut()[i];
            let mut replace = true;
            if !target.value().is_null() {
                replace = self.apply(target.value_mut(), item.value(), &child)?;
            }
            if replace {
                *target.value_mut() = item.value().clone();
                target.set_pos(item.pos().clone());
            }
        }
        Ok(())
    }

    /// `@overlay/remove`: every match goes.
    fn remove_item<L: Items>(
        &mut self,
        left: &mut L,
        item: &L::Item,
        defaults: &Expects,
    ) -> Result<(), OverlayError> {
        let Some(idxs) = L::matching(self, left, item, defaults)? else {
            return Ok(());
        };
        let mut i = 0;
        left.items_mut().retain(|_| {
            let keep = !idxs.contains(&i);
            i += 1;
            keep
        });
        if !idxs.is_empty() {
            self.keys_changed();
        }
        Ok(())
    }

    /// `@overlay/replace` (with `via=`, `or_add=`): every match becomes the
    /// item.
    fn replace_item<L: Items>(
        &mut self,
        left: &mut L,
        item: &L::Item,
        defaults: &Expects,
    ) -> Result<(), OverlayError> {
        let via = self.replace_kwargs(item.meta())?;
        let Some(idxs) = L::matching(self, left, item, defaults)? else {
            return Ok(());
        };
        for &i in &idxs {
            let old = left.items()[i].value();
            let new_val = self.replace_value(&via, Some(old), item.value())?;
            let n = item.with_value(new_val);
            // (matched by `by=`, the item's key may be another)
            if !L::same_key(&left.items()[i], &n) {
                self.keys_changed();
            }
            left.items_mut()[i] = n;
        }
        if idxs.is_empty() && via.or_add {
            let new_val = self.replace_value(&via, None, item.value())?;
            let n = item.with_value(new_val);
            left.items_mut().push(n);
        }
        Ok(())
    }

    /// `@overlay/assert` (with `via=`): every match is checked, then merged.
    fn assert_item<L: Items>(
        &mut self,
        left: &mut L,
        item: &L::Item,
        defaults: &Expects,
    ) -> Result<(), OverlayError> {
        let child = self.child_defaults(item.meta(), defaults)?;
        let via = self.assert_kwargs(item.meta())?;
        let Some(idxs) = L::matching(self, left, item, defaults)? else {
            return Ok(());
        };
        for i in idxs {
            let target = left.items_mut()[i].value_mut();
            self.assert_check(&via, target, item.value())?;
            self.apply(target, item.value(), &child)?;
        }
        Ok(())
    }

    // ------------------------------------------------------------------ arrays

    fn array_indexes(
        &mut self,
        left: &Array,
        item: &ArrayItem,
        defaults: &Expects,
    ) -> Result<Option<Vec<usize>>, OverlayError> {
        if !item.meta.has(MATCH) {
            // an unannotated array item matches nothing: it is appended
            let e = Expects {
                expects: Some(crate::yaml::AnnValue::Int(0)),
                ..Expects::default()
            };
            return Ok(if self.check(&e, &[])? {
                Some(Vec::new())
            } else {
                None
            });
        }
        let ann = item.meta.annotation(MATCH).expect("checked above");
        if ann.kwargs.is_empty() {
            return Err(format!(
                "Expected '{MATCH}' annotation to have at least one keyword argument (by=..., expects=...)"
            ).into());
        }
        let (by, e) = self.match_kwargs(&item.meta, defaults)?;
        let Some(by) = by else {
            return Err(format!(
                "Expected '{MATCH}' annotation keyword argument 'by' to be specified"
            )
            .into());
        };
        let f = self.matcher_fn(&by, false)?;
        let mut right = None;
        let mut idxs = Vec::new();
        let mut matches = Vec::new();
        for (i, li) in left.items.iter().enumerate() {
            let first = matchers::First::Index(i as i64);
            if self.matches(f, first, &li.value, &item.value, &mut right)? {
                idxs.push(i);
                matches.push(li.pos.clone());
            }
        }
        Ok(if self.check(&e, &matches)? {
            Some(idxs)
        } else {
            None
        })
    }

    fn insert_array_item(
        &mut self,
        left: &mut Array,
        item: &ArrayItem,
        defaults: &Expects,
    ) -> Result<(), OverlayError> {
        let Some(idxs) = self.array_indexes(left, item, defaults)? else {
            return Ok(());
        };
        let ins = self.insert_kwargs(&item.meta)?;
        let items = std::mem::take(&mut left.items);
        left.items = self.with_inserted(items, |i| idxs.contains(&i), item, &ins)?;
        Ok(())
    }

    /// `items` with `item` inserted before and/or after each matched one (its
    /// value through `via=` when given): `@overlay/insert` for array items
    /// and documents alike.
    fn with_inserted<T: Item>(
        &mut self,
        items: Vec<T>,
        matched: impl Fn(usize) -> bool,
        item: &T,
        ins: &InsertKw<'v>,
    ) -> Result<Vec<T>, OverlayError> {
        let mut out = Vec::with_capacity(items.len() + 1);
        for (i, li) in items.into_iter().enumerate() {
            if matched(i) {
                let v = self.via_value(ins.via, Some(li.value()), item.value())?;
                let n = item.with_value(v);
                if ins.before {
                    out.push(n.clone());
                }
                out.push(li);
                if ins.after {
                    out.push(n);
                }
            } else {
                out.push(li);
            }
        }
        Ok(out)
    }

    // ------------------------------------------------------------------ documents
}

/// A map item or an array item, as the item operations read and write it.
trait Item: Clone {
    fn value(&self) -> &Value;
    fn value_mut(&mut self) -> &mut Value;
    fn pos(&self) -> &Pos;
    fn set_pos(&mut self, pos: Pos);
    fn meta(&self) -> &Meta;
    /// A copy with another value (the old value is not copied: it would be
    /// thrown away, and a replaced subtree can be large).
    fn with_value(&self, value: Value) -> Self;
}

/// A map or an array: the items an overlay item is matched against, and how
/// it is matched (by key or `by=` for maps, by `by=` for arrays).
trait Items {
    type Item: Item;
    fn items(&self) -> &Vec<Self::Item>;
    fn items_mut(&mut self) -> &mut Vec<Self::Item>;
    /// Indexes of the items `item` matches; `None` when `when=` skips it.
    fn matching(
        op: &mut Op<'_, '_, '_, '_>,
        left: &Self,
        item: &Self::Item,
        defaults: &Expects,
    ) -> Result<Option<Vec<usize>>, OverlayError>;
    /// Whether two items have the same key (array items have none).
    fn same_key(a: &Self::Item, b: &Self::Item) -> bool;
}

macro_rules! item_access {
    ($t:ident { $($field:ident),* }) => {
        impl Item for $t {
            fn value(&self) -> &Value {
                &self.value
            }
            fn value_mut(&mut self) -> &mut Value {
                &mut self.value
            }
            fn pos(&self) -> &Pos {
                &self.pos
            }
            fn set_pos(&mut self, pos: Pos) {
                self.pos = pos;
            }
            fn meta(&self) -> &Meta {
                &self.meta
            }
            fn with_value(&self, value: Value) -> Self {
                $t {
                    value,
                    $($field: self.$field.clone()),*
                }
            }
        }
    };
}
item_access!(MapItem { key, pos, meta });
item_access!(ArrayItem { pos, meta });
item_access!(Document {
    pos,
    meta,
    injected
});

macro_rules! items_of {
    ($list:ty, $item:ty, $matching:ident, $same_key:expr) => {
        impl Items for $list {
            type Item = $item;
            fn items(&self) -> &Vec<$item> {
                &self.items
            }
            fn items_mut(&mut self) -> &mut Vec<$item> {
                &mut self.items
            }
            fn matching(
                op: &mut Op<'_, '_, '_, '_>,
                left: &$list,
                item: &$item,
                defaults: &Expects,
            ) -> Result<Option<Vec<usize>>, OverlayError> {
                op.$matching(left, item, defaults)
            }
            fn same_key(a: &$item, b: &$item) -> bool {
                let same: fn(&$item, &$item) -> bool = $same_key;
                same(a, b)
            }
        }
    };
}
items_of!(Map, MapItem, map_indexes, |a, b| a.key.scalar_eq(&b.key));
items_of!(Array, ArrayItem, array_indexes, |_, _| true);

/// The key of `map` nearest to `key`, when one is near.
fn nearest_key(key: &str, map: &Map) -> Option<String> {
    let keys: Vec<String> = map.items.iter().map(|i| i.key_display()).collect();
    crate::gocompat::nearest(key, &keys)
}

/// For a map item that matched no key: which key, the keys the map has, and
/// the nearest of them.
fn missing_key_hints(key: &str, map: &Map) -> Vec<String> {
    let keys: Vec<String> = map.items.iter().map(|i| i.key_display()).collect();
    let mut hints = vec![if keys.is_empty() {
        format!("key '{key}' is not in the values it overlays, which have no keys here")
    } else {
        format!(
            "key '{key}' is not in the values it overlays (keys here: {})",
            keys.join(", ")
        )
    }];
    match crate::gocompat::nearest(key, &keys) {
        Some(near) => hints.push(format!("did you mean '{near}'?")),
        None => hints.push(
            "to add a new key, annotate it with @overlay/match missing_ok=True (or declare it in a schema)"
                .to_string(),
        ),
    }
    hints
}
