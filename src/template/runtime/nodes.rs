//! The template runtime: builds YAML nodes as a compiled template runs.
//!
//! The generated program calls these instructions:
//!
//! * `__ytt_start_ctx(nodes)` / `__ytt_end_ctx([value])` — a context per
//!   template and per fragment function call; ending one yields its root node
//!   as a `yamlfragment` (or the explicit return value);
//! * `__ytt_ann(tag, name, *args, **kwargs)` — an annotation for the next node;
//! * `__ytt_start_node(tag)` — copy node `tag` from the table and place it under
//!   the nearest open ancestor (closing siblings first);
//! * `__ytt_set_node(tag[, value])` — the node's value, from the template or
//!   from an expression;
//! * `__ytt_node(tag)` — both, for a node with nothing templated (its value
//!   may be a whole subtree, copied from the table);
//! * `__ytt_node_run(first, last)` — `__ytt_node` of each tag in turn
//!   (`start_node` alone of an opened one).
//!
//! A node whose annotations have only literal arguments gets them from the
//! table at `start_node` (evaluated by the compiler), not from `__ytt_ann`.
//!
//! Nodes under construction live on a stack per context; a node is attached to
//! its parent when the stack unwinds past it. Annotation arguments are kept in
//! the module's value store (so the garbage collector sees them) and referred
//! to by index until the module is frozen.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

use starlark::any::ProvidesStaticType;
use starlark::environment::GlobalsBuilder;
use starlark::eval::Evaluator;
use starlark::starlark_module;
use starlark::values::dict::DictRef;
use starlark::values::none::NoneType;
use starlark::values::tuple::UnpackTuple;
use starlark::values::{Value, ValueLike};

use crate::yaml::{
    AnnValue, Annotation, Array, ArrayItem, DocSet, Document, Map, MapItem, Meta, Pos,
    Value as YValue,
};

use super::convert::{self, NodeValue};
use super::values::{FragmentTree, NodeTableValue, Noop, ValueStore, YamlFragment};
use crate::template::compiler::{NodeKind, NodeTable, NodeTag, ROOT_TAG};

/// Per-evaluation state, reachable from instructions through `eval.extra`.
#[derive(ProvidesStaticType, Default)]
pub struct Runtime {
    ctxs: RefCell<Vec<Ctx>>,
    /// The document set the template's root context produced.
    pub result: RefCell<Option<DocSet>>,
    /// The text a text template's root context produced.
    pub text_result: RefCell<Option<String>>,
    /// ytt's `--implicit-map-key-overrides`.
    pub implicit_map_key_overrides: bool,
    /// Services the ytt modules need (file listing for `data.list`, ...).
    pub host: Option<Arc<dyn super::host::Host>>,
}

impl Runtime {
    pub fn new(host: Option<Arc<dyn super::host::Host>>) -> Runtime {
        Runtime {
            host,
            ..Runtime::default()
        }
    }

    pub fn depth(&self) -> usize {
        self.ctxs.borrow().len()
    }
}

/// An open template context: YAML nodes being built, or text being appended.
/// `root` marks the context a file's program opens (its result is the
/// file's output), as opposed to a fragment function's.
enum Ctx {
    Yaml(EvalCtx, bool),
    Text(String, bool),
}

enum BNode {
    DocSet(DocSet),
    Doc(Document),
    Map(Map),
    MapItem(MapItem),
    Array(Array),
    ArrayItem(ArrayItem),
}

impl BNode {
    fn type_name(&self) -> &'static str {
        match self {
            BNode::DocSet(_) => "document set",
            BNode::Doc(_) => "document",
            BNode::Map(_) => "map",
            BNode::MapItem(_) => "map item",
            BNode::Array(_) => "array",
            BNode::ArrayItem(_) => "array item",
        }
    }

    fn meta_mut(&mut self) -> &mut Meta {
        match self {
            BNode::DocSet(n) => &mut n.meta,
            BNode::Doc(n) => &mut n.meta,
            BNode::Map(n) => &mut n.meta,
            BNode::MapItem(n) => &mut n.meta,
            BNode::Array(n) => &mut n.meta,
            BNode::ArrayItem(n) => &mut n.meta,
        }
    }
}

enum Replacement {
    Docs(Vec<Document>),
    MapItems(Vec<MapItem>, bool),
    ArrayItems(Vec<ArrayItem>),
}

struct Open {
    tag: NodeTag,
    node: BNode,
    replacement: Option<Replacement>,
}

struct EvalCtx {
    nodes: Arc<NodeTable>,
    root_init: bool,
    stack: Vec<Open>,
    pending_anns: HashMap<NodeTag, Vec<Annotation>>,
    pending_keys: HashMap<NodeTag, YValue>,
}

fn err(msg: impl Into<String>) -> starlark::Error {
    starlark::Error::new_other(anyhow::anyhow!("{}", msg.into()))
}

impl EvalCtx {
    fn new(nodes: Arc<NodeTable>) -> EvalCtx {
        EvalCtx {
            nodes,
            root_init: false,
            stack: Vec::new(),
            pending_anns: HashMap::new(),
            pending_keys: HashMap::new(),
        }
    }

    fn start_node(&mut self, tag: NodeTag, implicit_overrides: bool) -> starlark::Result<()> {
        let Some(tmpl) = self.nodes.get(tag) else {
            return Err(err(format!("expected to find node tag {tag}")));
        };
        let pos = tmpl.pos.clone();
        let mut node = match tmpl.kind {
            NodeKind::DocSet => BNode::DocSet(DocSet {
                docs: Vec::new(),
                pos,
                meta: Meta::default(),
            }),
            NodeKind::Document => BNode::Doc(Document {
                value: YValue::Null,
                pos,
                meta: Meta::default(),
                injected: tmpl.injected,
            }),
            NodeKind::Map => BNode::Map(Map {
                items: Vec::new(),
                pos,
                meta: Meta::default(),
            }),
            NodeKind::MapItem => BNode::MapItem(MapItem {
                key: tmpl.key.clone(),
                value: YValue::Null,
                pos,
                meta: Meta::default(),
            }),
            NodeKind::Array => BNode::Array(Array {
                items: Vec::new(),
                pos,
                meta: Meta::default(),
            }),
            NodeKind::ArrayItem => BNode::ArrayItem(ArrayItem {
                value: YValue::Null,
                pos,
                meta: Meta::default(),
            }),
        };
        let kind = tmpl.kind;
        let parent_tag = tmpl.parent;
        if let Some(anns) = self.pending_anns.remove(&tag) {
            node.meta_mut().annotations = anns;
        } else if !tmpl.literal_annotations.is_empty() {
            node.meta_mut().annotations = tmpl.literal_annotations.clone();
        }
        if let Some(key) = self.pending_keys.remove(&tag) {
            if let BNode::MapItem(item) = &mut node {
                item.key = key;
            }
        }
        if !self.root_init {
            if matches!(
                kind,
                NodeKind::Document | NodeKind::MapItem | NodeKind::ArrayItem
            ) {
                if parent_tag == ROOT_TAG {
                    return Err(err("expected node to have a parent"));
                }
                self.start_node(parent_tag, implicit_overrides)?;
            } else {
                self.root_init = true;
            }
        }
        if let Some(top) = self.stack.last() {
            let common = self.nodes.common_parent(top.tag, tag);
            self.unwind_to(common)?;
            if let (
                Some(Open {
                    node: BNode::Map(map),
                    ..
                }),
                BNode::MapItem(item),
            ) = (self.stack.last_mut(), &node)
            {
                map_item_override(map, item, true, implicit_overrides)?;
            }
        }
        self.stack.push(Open {
            tag,
            node,
            replacement: None,
        });
        Ok(())
    }

    fn unwind_to(&mut self, tag: NodeTag) -> starlark::Result<()> {
        if !self.stack.iter().any(|o| o.tag == tag) {
            return Err(err(format!(
                "expected to find node tag {tag} when unwinding"
            )));
        }
        while self.stack.last().map(|o| o.tag) != Some(tag) {
            self.pop_attach()?;
        }
        Ok(())
    }

    /// Pops the top node and attaches it to the node below.
    fn pop_attach(&mut self) -> starlark::Result<()> {
        let child = self.stack.pop().expect("non-empty stack");
        let Some(parent) = self.stack.last_mut() else {
            return Err(err("internal error: node without parent"));
        };
        attach(&mut parent.node, child)
    }

    /// Unwinds everything; returns the root node.
    fn finish(&mut self) -> starlark::Result<Option<BNode>> {
        while self.stack.len() > 1 {
            self.pop_attach()?;
        }
        Ok(self.stack.pop().map(|o| o.node))
    }

    fn set_value(&mut self, value: NodeValue) -> starlark::Result<()> {
        let Some(top) = self.stack.last_mut() else {
            return Err(err("expected a node to set the value of"));
        };
        let v = match value {
            NodeValue::Noop => return Ok(()),
            NodeValue::Value(v) => v,
            NodeValue::DocSet(_) => return Err(err(match &top.node {
                BNode::Doc(_) => {
                    "documents can only contain arrays, maps, or scalars; this is a document set"
                        .to_string()
                }
                BNode::MapItem(_) => {
                    "map items can only contain arrays, maps, or scalars; this is a document set"
                        .to_string()
                }
                BNode::ArrayItem(_) => {
                    "array items can only contain maps, arrays, or scalars; this is a document set"
                        .to_string()
                }
                other => format!("cannot set value on a {}", other.type_name()),
            })),
        };
        match &mut top.node {
            BNode::Doc(d) => d.value = v,
            BNode::MapItem(i) => i.value = v,
            BNode::ArrayItem(i) => i.value = v,
            other => {
                let article = if matches!(other, BNode::Array(_)) {
                    "an"
                } else {
                    "a"
                };
                return Err(err(format!(
                    "cannot set value on {article} {}",
                    other.type_name()
                )));
            }
        }
        Ok(())
    }

    fn set_template_value(&mut self, tag: NodeTag) -> starlark::Result<()> {
        let Some(tmpl) = self.nodes.get(tag) else {
            return Err(err(format!("expected to find node tag {tag}")));
        };
        let v = tmpl.scalar.clone();
        self.set_value(NodeValue::Value(v))
    }
}

/// ytt's `MapItemOverride`: a key given twice is an error in templates unless
/// the new item says `@yaml/map-key-override`.
fn map_item_override(
    map: &mut Map,
    item: &MapItem,
    strict: bool,
    implicit: bool,
) -> starlark::Result<()> {
    if let Some(idx) = map.find(&item.key) {
        if implicit || item.meta.has("yaml/map-key-override") || !strict {
            map.items.remove(idx);
            return Ok(());
        }
        return Err(err(format!(
            "expected key '{}' to not be specified again (unless 'yaml/map-key-override' annotation is added)",
            item.key.scalar_display()
        )));
    }
    Ok(())
}

fn attach(parent: &mut BNode, child: Open) -> starlark::Result<()> {
    if let Some(rep) = child.replacement {
        match (parent, rep) {
            (BNode::DocSet(ds), Replacement::Docs(docs)) => ds.docs.extend(docs),
            (BNode::Map(m), Replacement::MapItems(items, carry)) => {
                for item in items {
                    map_item_override(m, &item, carry, false)?;
                    m.items.push(item);
                }
            }
            (BNode::Array(a), Replacement::ArrayItems(items)) => a.items.extend(items),
            (p, _) => {
                return Err(err(format!(
                    "expected to replace an item of a {}",
                    p.type_name()
                )))
            }
        }
        return Ok(());
    }
    let child_name = child.node.type_name();
    match (parent, child.node) {
        (BNode::DocSet(ds), BNode::Doc(d)) => ds.docs.push(d),
        (BNode::Doc(d), BNode::Map(m)) => d.value = YValue::Map(crate::yaml::Shared::new(m)),
        (BNode::Doc(d), BNode::Array(a)) => d.value = YValue::Array(crate::yaml::Shared::new(a)),
        (BNode::MapItem(i), BNode::Map(m)) => i.value = YValue::Map(crate::yaml::Shared::new(m)),
        (BNode::MapItem(i), BNode::Array(a)) => {
            i.value = YValue::Array(crate::yaml::Shared::new(a))
        }
        (BNode::ArrayItem(i), BNode::Map(m)) => i.value = YValue::Map(crate::yaml::Shared::new(m)),
        (BNode::ArrayItem(i), BNode::Array(a)) => {
            i.value = YValue::Array(crate::yaml::Shared::new(a))
        }
        (BNode::Map(m), BNode::MapItem(i)) => m.items.push(i),
        (BNode::Array(a), BNode::ArrayItem(i)) => a.items.push(i),
        (BNode::Map(_), _) => {
            return Err(err(format!(
                "maps can only contain map items; this is a {child_name}"
            )))
        }
        (BNode::Array(_), _) => {
            return Err(err(format!(
                "arrays can only contain array items; this is a {child_name}"
            )))
        }
        (p, _) => {
            return Err(err(format!(
                "{} cannot contain a {child_name}",
                p.type_name()
            )))
        }
    }
    Ok(())
}

// ------------------------------------------------------------------ access

pub fn runtime<'a>(eval: &'a Evaluator) -> starlark::Result<&'a Runtime> {
    eval.extra
        .and_then(|e| e.downcast_ref::<Runtime>())
        .ok_or_else(|| err("internal error: template runtime is not set up"))
}

/// The value store of the module being evaluated.
pub fn current_store<'v>(eval: &Evaluator<'v, '_, '_>) -> Option<Value<'v>> {
    eval.module().extra_value()
}

fn push_store<'v>(eval: &Evaluator<'v, '_, '_>, v: Value<'v>) -> starlark::Result<AnnValue> {
    let store = current_store(eval).ok_or_else(|| err("internal error: no value store"))?;
    let s = store
        .downcast_ref::<ValueStore<'v>>()
        .ok_or_else(|| err("internal error: value store is frozen"))?;
    Ok(AnnValue::Live(s.push(v)))
}

fn text_append(eval: &Evaluator, text: &str) -> starlark::Result<()> {
    let rt = runtime(eval)?;
    let mut ctxs = rt.ctxs.borrow_mut();
    match ctxs.last_mut() {
        Some(Ctx::Text(out, _)) => {
            out.push_str(text);
            Ok(())
        }
        _ => Err(err("internal error: text outside a text template context")),
    }
}

fn with_ctx<R>(
    eval: &Evaluator,
    f: impl FnOnce(&mut EvalCtx, &Runtime) -> starlark::Result<R>,
) -> starlark::Result<R> {
    let rt = runtime(eval)?;
    let mut ctxs = rt.ctxs.borrow_mut();
    match ctxs.last_mut() {
        Some(Ctx::Yaml(ctx, _)) => f(ctx, rt),
        // ytt's text evaluation context supports no YAML operation
        Some(Ctx::Text(..)) => Err(err("unsupported operation")),
        None => Err(err("internal error: no template context")),
    }
}

/// Makes a fragment value of a finished root node.
fn fragment_of<'v>(eval: &Evaluator<'v, '_, '_>, root: Option<BNode>) -> Value<'v> {
    let tree = match root {
        None => FragmentTree::Null,
        Some(BNode::DocSet(d)) => FragmentTree::DocSet(d),
        Some(BNode::Map(m)) => FragmentTree::Map(m),
        Some(BNode::Array(a)) => FragmentTree::Array(a),
        Some(BNode::Doc(d)) => FragmentTree::DocSet(DocSet {
            docs: vec![d],
            pos: Pos::unknown(),
            meta: Meta::default(),
        }),
        Some(BNode::MapItem(i)) => FragmentTree::Map(Map {
            items: vec![i],
            pos: Pos::unknown(),
            meta: Meta::default(),
        }),
        Some(BNode::ArrayItem(i)) => FragmentTree::Array(Array {
            items: vec![i],
            pos: Pos::unknown(),
            meta: Meta::default(),
        }),
    };
    let store = current_store(eval).unwrap_or_else(Value::new_none);
    eval.heap().alloc(YamlFragment {
        tree: Arc::new(tree),
        store,
    })
}

/// `template.replace(value)`: replaces the node being built by `value`'s items.
pub fn replace_current<'v>(
    eval: &Evaluator<'v, '_, '_>,
    value: Value<'v>,
) -> starlark::Result<Value<'v>> {
    let store = current_store(eval);
    with_ctx(eval, |ctx, _| {
        let Some(top) = ctx.stack.last_mut() else {
            return Err(err("expected to find a node to replace"));
        };
        let pos = match &top.node {
            BNode::Doc(d) => d.pos.clone(),
            BNode::MapItem(i) => i.pos.clone(),
            BNode::ArrayItem(i) => i.pos.clone(),
            other => {
                return Err(err(format!(
                    "expected to replace document value, map item or array item, but found {}",
                    other.type_name()
                )))
            }
        };
        let converted = convert::to_node_value(value, store)?;
        let rep = match (&top.node, converted) {
            (BNode::Doc(_), NodeValue::DocSet(ds)) => Replacement::Docs(ds.docs),
            (BNode::Doc(_), NodeValue::Value(YValue::Array(a))) => Replacement::Docs(
                crate::yaml::Shared::into_inner(a)
                    .items
                    .into_iter()
                    .map(|i| Document {
                        value: i.value,
                        pos: Pos::unknown(),
                        meta: Meta::default(),
                        injected: false,
                    })
                    .collect(),
            ),
            (BNode::Doc(_), NodeValue::Value(v)) => {
                return Err(err(format!(
                    "expected value to be document set, but was {}",
                    v.type_name()
                )))
            }
            (BNode::MapItem(_), NodeValue::Value(YValue::Map(m))) => {
                let from_fragment = YamlFragment::from_value(value).is_some();
                let items = crate::yaml::Shared::into_inner(m).items;
                let items = if from_fragment {
                    items
                } else {
                    items
                        .into_iter()
                        .map(|mut i| {
                            i.pos = pos.clone();
                            i.value.fill_unknown_positions(&pos);
                            i
                        })
                        .collect()
                };
                Replacement::MapItems(items, from_fragment)
            }
            (BNode::MapItem(_), NodeValue::Value(v)) => {
                return Err(err(format!(
                    "expected value to be map, but was {}",
                    v.type_name()
                )))
            }
            (BNode::ArrayItem(_), NodeValue::Value(YValue::Array(a))) => {
                let from_fragment = YamlFragment::from_value(value).is_some();
                let items = crate::yaml::Shared::into_inner(a).items;
                let items = if from_fragment {
                    items
                } else {
                    items
                        .into_iter()
                        .map(|mut i| {
                            i.pos = pos.clone();
                            i.value.fill_unknown_positions(&pos);
                            i
                        })
                        .collect()
                };
                Replacement::ArrayItems(items)
            }
            (BNode::ArrayItem(_), NodeValue::Value(v)) => {
                return Err(err(format!(
                    "expected value to be array, but was {}",
                    v.type_name()
                )))
            }
            (_, NodeValue::DocSet(_)) => {
                return Err(err(
                    "expected value to be map or array, but was document set",
                ))
            }
            (_, NodeValue::Noop) => return Ok(()),
            _ => return Err(err("unexpected replacement")),
        };
        top.replacement = Some(rep);
        Ok(())
    })?;
    Ok(eval.heap().alloc(Noop))
}

// ------------------------------------------------------------------ instructions

fn tag_of(v: Value) -> starlark::Result<NodeTag> {
    v.unpack_i32()
        .filter(|t| *t >= 0)
        .map(|t| t as NodeTag)
        .ok_or_else(|| err("expected a node tag"))
}

#[starlark_module]
pub fn instructions(builder: &mut GlobalsBuilder) {
    fn __ytt_start_ctx<'v>(
        nodes: Value<'v>,
        #[starlark(default = false)] root: bool,
        eval: &mut Evaluator<'v, '_, '_>,
    ) -> starlark::Result<NoneType> {
        let table = nodes
            .downcast_ref::<NodeTableValue>()
            .ok_or_else(|| err("internal error: expected a node table"))?
            .table
            .clone();
        runtime(eval)?
            .ctxs
            .borrow_mut()
            .push(Ctx::Yaml(EvalCtx::new(table), root));
        Ok(NoneType)
    }

    fn __ytt_end_ctx<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        eval: &mut Evaluator<'v, '_, '_>,
    ) -> starlark::Result<Value<'v>> {
        let rt = runtime(eval)?;
        let popped = rt
            .ctxs
            .borrow_mut()
            .pop()
            .ok_or_else(|| err("unexpected ctx end"))?;
        let (mut ctx, last) = match popped {
            Ctx::Yaml(ctx, root) => (ctx, root),
            Ctx::Text(text, last) => {
                if args.items.len() > 1 {
                    return Err(err("expected zero or one argument"));
                }
                if let Some(v) = args.items.first() {
                    if !v.is_none() || !last {
                        return Ok(*v);
                    }
                }
                if last {
                    *rt.text_result.borrow_mut() = Some(text);
                    return Ok(Value::new_none());
                }
                return Ok(eval.heap().alloc_str(&text).to_value());
            }
        };
        let root = ctx.finish()?;
        if last {
            let ds = match root {
                Some(BNode::DocSet(ds)) => ds,
                None => DocSet::default(),
                Some(other) => {
                    return Err(err(format!(
                        "expected template to produce a document set, but was {}",
                        other.type_name()
                    )))
                }
            };
            *rt.result.borrow_mut() = Some(ds);
            return Ok(args.items.first().copied().unwrap_or_else(Value::new_none));
        }
        match args.items.len() {
            0 => Ok(fragment_of(eval, root)),
            1 => Ok(args.items[0]),
            _ => Err(err("expected zero or one argument")),
        }
    }

    /// `**x` in a call: a struct unpacks as the dict of its fields.
    fn __ytt_kwargs<'v>(
        value: Value<'v>,
        eval: &mut Evaluator<'v, '_, '_>,
    ) -> starlark::Result<Value<'v>> {
        let fields: Option<Vec<(String, Value<'v>)>> =
            if let Some(s) = value.downcast_ref::<super::values::YttStruct>() {
                s.tracked.whole();
                Some(s.fields.iter().map(|(k, v)| (k.clone(), *v)).collect())
            } else {
                value
                    .downcast_ref::<super::values::FrozenYttStruct>()
                    .map(|s| {
                        s.fields
                            .iter()
                            .map(|(k, v)| (k.clone(), v.to_value()))
                            .collect()
                    })
            };
        let Some(fields) = fields else {
            return Ok(value);
        };
        let heap = eval.heap();
        Ok(heap.alloc(starlark::values::dict::AllocDict(
            fields
                .into_iter()
                .map(|(k, v)| (heap.alloc_str(&k).to_value(), v)),
        )))
    }

    fn __ytt_start_text<'v>(
        #[starlark(default = false)] root: bool,
        eval: &mut Evaluator<'v, '_, '_>,
    ) -> starlark::Result<NoneType> {
        runtime(eval)?
            .ctxs
            .borrow_mut()
            .push(Ctx::Text(String::new(), root));
        Ok(NoneType)
    }

    fn __ytt_text<'v>(text: &str, eval: &mut Evaluator<'v, '_, '_>) -> starlark::Result<NoneType> {
        text_append(eval, text)?;
        Ok(NoneType)
    }

    fn __ytt_text_value<'v>(
        value: Value<'v>,
        eval: &mut Evaluator<'v, '_, '_>,
    ) -> starlark::Result<NoneType> {
        let Some(s) = value.unpack_str() else {
            return Err(err(format!(
                "cannot set non-string value ({}), consider using str(...) to convert to string",
                super::go::go_type_name(value)
            )));
        };
        text_append(eval, s)?;
        Ok(NoneType)
    }

    fn __ytt_start_node<'v>(
        tag: Value<'v>,
        eval: &mut Evaluator<'v, '_, '_>,
    ) -> starlark::Result<NoneType> {
        let tag = tag_of(tag)?;
        with_ctx(eval, |ctx, rt| {
            ctx.start_node(tag, rt.implicit_map_key_overrides)
        })?;
        Ok(NoneType)
    }

    fn __ytt_node<'v>(
        tag: Value<'v>,
        eval: &mut Evaluator<'v, '_, '_>,
    ) -> starlark::Result<NoneType> {
        let tag = tag_of(tag)?;
        with_ctx(eval, |ctx, rt| {
            ctx.start_node(tag, rt.implicit_map_key_overrides)?;
            ctx.set_template_value(tag)
        })?;
        Ok(NoneType)
    }

    fn __ytt_node_run<'v>(
        first: Value<'v>,
        last: Value<'v>,
        eval: &mut Evaluator<'v, '_, '_>,
    ) -> starlark::Result<NoneType> {
        let (first, last) = (tag_of(first)?, tag_of(last)?);
        with_ctx(eval, |ctx, rt| {
            for tag in first..=last {
                ctx.start_node(tag, rt.implicit_map_key_overrides)?;
                if !ctx.nodes.get(tag).is_some_and(|n| n.opened) {
                    ctx.set_template_value(tag)?;
                }
            }
            Ok(())
        })?;
        Ok(NoneType)
    }

    fn __ytt_set_node<'v>(
        tag: Value<'v>,
        #[starlark(args)] value: UnpackTuple<Value<'v>>,
        eval: &mut Evaluator<'v, '_, '_>,
    ) -> starlark::Result<NoneType> {
        let tag = tag_of(tag)?;
        match value.items.first() {
            None => with_ctx(eval, |ctx, _| ctx.set_template_value(tag))?,
            Some(v) => {
                let converted = convert::to_node_value(*v, current_store(eval))?;
                with_ctx(eval, |ctx, _| ctx.set_value(converted))?;
            }
        }
        Ok(NoneType)
    }

    fn __ytt_set_key<'v>(
        tag: Value<'v>,
        key: Value<'v>,
        eval: &mut Evaluator<'v, '_, '_>,
    ) -> starlark::Result<NoneType> {
        let tag = tag_of(tag)?;
        let key = convert::to_yaml_key(key)?;
        with_ctx(eval, |ctx, _| {
            ctx.pending_keys.insert(tag, key);
            Ok(())
        })?;
        Ok(NoneType)
    }

    fn __ytt_ann<'v>(
        tag: Value<'v>,
        name: &str,
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        #[starlark(kwargs)] kwargs: DictRef<'v>,
        eval: &mut Evaluator<'v, '_, '_>,
    ) -> starlark::Result<NoneType> {
        let tag = tag_of(tag)?;
        let mut ann_args = Vec::with_capacity(args.items.len());
        for a in &args.items {
            ann_args.push(push_store(eval, *a)?);
        }
        let mut ann_kwargs = Vec::new();
        for (k, v) in kwargs.iter() {
            let k = k.unpack_str().unwrap_or_default().to_string();
            ann_kwargs.push((k, push_store(eval, v)?));
        }
        let name = name.to_string();
        with_ctx(eval, |ctx, _| {
            let pos = ctx
                .nodes
                .get(tag)
                .and_then(|n| n.annotations.iter().find(|(n2, _)| *n2 == name))
                .map(|(_, p)| p.clone())
                .unwrap_or_default();
            let ann = Annotation {
                name: name.clone(),
                pos,
                args: ann_args,
                kwargs: ann_kwargs,
            };
            let list = ctx.pending_anns.entry(tag).or_default();
            match list.iter_mut().find(|a| a.name == ann.name) {
                Some(existing) => *existing = ann,
                None => list.push(ann),
            }
            Ok(())
        })?;
        Ok(NoneType)
    }
}
