//! Annotated YAML -> ytt-dialect code.
//!
//! As in ytt, a template becomes a program that rebuilds the document node by
//! node: each node contributes the code written above it, its annotations
//! (evaluated as call arguments), a `start_node` instruction and either its
//! value expression or its children. Nodes are referred to by a tag, an index
//! into the [`NodeTable`] that the runtime copies nodes from.
//!
//! The code produced here still closes blocks with `end` (ytt's dialect);
//! [`super::blocks`] turns it into indentation-based Starlark.

use std::sync::Arc;

use crate::yaml::{DocSet, Document, Meta, Pos, Value};

use super::metas::{self, MetaKind};

pub type NodeTag = u32;
pub const ROOT_TAG: NodeTag = u32::MAX;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeKind {
    DocSet,
    Document,
    Map,
    MapItem,
    Array,
    ArrayItem,
}

/// A node of the template, as the runtime copies it when the program reaches
/// its `start_node`.
#[derive(Debug, Clone)]
pub struct NodeTemplate {
    pub kind: NodeKind,
    pub parent: NodeTag,
    pub pos: Pos,
    /// Map item key.
    pub key: Value,
    /// The scalar written in the template (for items and documents).
    pub scalar: Value,
    /// Annotations declared on the node (name, position of the comment).
    pub annotations: Vec<(String, Pos)>,
    pub injected: bool,
}

#[derive(Debug, Default)]
pub struct NodeTable {
    pub nodes: Vec<NodeTemplate>,
}

impl NodeTable {
    pub fn get(&self, tag: NodeTag) -> Option<&NodeTemplate> {
        self.nodes.get(tag as usize)
    }

    pub fn parent(&self, tag: NodeTag) -> NodeTag {
        self.get(tag).map(|n| n.parent).unwrap_or(ROOT_TAG)
    }

    /// Tags from the root down to (excluding) `tag`.
    pub fn ancestors(&self, tag: NodeTag) -> Vec<NodeTag> {
        let mut out = Vec::new();
        let mut t = tag;
        loop {
            let p = self.parent(t);
            out.push(p);
            if p == ROOT_TAG {
                break;
            }
            t = p;
        }
        out.reverse();
        out
    }

    /// ytt's `FindCommonParentTag`.
    pub fn common_parent(&self, curr: NodeTag, new: NodeTag) -> NodeTag {
        let mut curr_anc = self.ancestors(curr);
        curr_anc.push(curr);
        let new_anc = self.ancestors(new);
        let mut common = ROOT_TAG;
        for (a, b) in curr_anc.iter().zip(new_anc.iter()) {
            if a == b {
                common = *a;
            } else {
                break;
            }
        }
        common
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineKind {
    /// Code written by the user in `#@` comments.
    User,
    /// An instruction; `node` when it builds nodes (`start_node`/`set_node`),
    /// which makes an enclosing `def` a fragment function.
    Instr { node: bool },
    /// The `end` implied by `#@for/end` and friends.
    ImpliedEnd,
    /// A text-template instruction that appends to the open text context,
    /// which makes an enclosing `def` a text fragment function.
    Text,
}

#[derive(Debug, Clone)]
pub struct CodeLine {
    pub text: String,
    pub kind: LineKind,
    /// Template position shown when an error points at this line.
    pub src: Option<Pos>,
}

/// A compiled template: ytt-dialect code plus the node table.
#[derive(Debug)]
pub struct TemplateCode {
    pub name: String,
    pub lines: Vec<CodeLine>,
    pub nodes: Arc<NodeTable>,
}

#[derive(Debug, Clone, Default)]
pub struct CompileOpts {
    pub ignore_unknown_comments: bool,
}

#[derive(Debug, Clone)]
pub struct CompileError {
    pub pos: Pos,
    pub message: String,
}

pub const START_NODE: &str = "__ytt_start_node";
/// `__ytt_node(tag)`: `start_node` and `set_node` of a node that carries
/// no code, annotation or expression, in one statement; its value (a whole
/// subtree when nothing below it is templated either) is copied from the
/// table.
pub const NODE: &str = "__ytt_node";
pub const SET_NODE: &str = "__ytt_set_node";
pub const SET_KEY: &str = "__ytt_set_key";
pub const ANNOTATION: &str = "__ytt_ann";
pub const START_CTX: &str = "__ytt_start_ctx";
pub const END_CTX: &str = "__ytt_end_ctx";
pub const NODES_GLOBAL: &str = "__ytt_nodes";

/// Compiles a parsed template file.
pub fn compile(name: &str, ds: &DocSet, opts: &CompileOpts) -> Result<TemplateCode, CompileError> {
    let mut c = Compiler {
        opts,
        nodes: Vec::new(),
        lines: Vec::new(),
        static_values: std::collections::HashSet::new(),
        text_templated: false,
    };
    for doc in &ds.docs {
        c.mark_static(&doc.value);
    }
    c.build_docset(ds)?;
    Ok(TemplateCode {
        name: name.to_string(),
        lines: c.lines,
        nodes: Arc::new(NodeTable { nodes: c.nodes }),
    })
}

struct Metas {
    blocks: Vec<(String, Pos)>,
    values: Vec<(String, Pos)>,
    annotations: Vec<(String, String, Pos)>,
    needs_ends: usize,
    /// Whether strings were text-templated before this node (restored at its close).
    outer_text_templated: bool,
}

const NODE_SPECIFIC: &[(&str, &str)] = &[
    ("if/end", "if"),
    ("else/end", "else"),
    ("elif/end", "elif"),
    ("for/end", "for"),
    ("def/end", "def"),
];

struct Compiler<'a> {
    opts: &'a CompileOpts,
    nodes: Vec<NodeTemplate>,
    lines: Vec<CodeLine>,
    /// The maps and arrays (by address) with nothing templated in them: no
    /// comment but plain ones, no key given twice. They are copied whole
    /// from the node table instead of rebuilt node by node (a schema or a
    /// template is mostly such subtrees; each node rebuilt costs two
    /// Starlark statements). Found once, bottom up, before compiling.
    static_values: std::collections::HashSet<*const Value>,
    /// Inside a node annotated `@yaml/text-templated-strings`: its string
    /// keys and values are text templates.
    text_templated: bool,
}

const TEXT_TEMPLATED: &str = "yaml/text-templated-strings";

impl Compiler<'_> {
    fn add(&mut self, kind: NodeKind, parent: NodeTag, pos: Pos) -> NodeTag {
        let tag = self.nodes.len() as NodeTag;
        self.nodes.push(NodeTemplate {
            kind,
            parent,
            pos,
            key: Value::Null,
            scalar: Value::Null,
            annotations: Vec::new(),
            injected: false,
        });
        tag
    }

    fn line(&mut self, text: String, kind: LineKind, src: Option<&Pos>) {
        self.lines.push(CodeLine {
            text,
            kind,
            src: src.filter(|p| p.is_known()).cloned(),
        });
    }

    fn extract(&self, meta: &Meta, node_pos: &Pos, has_value: bool) -> Result<Metas, CompileError> {
        let mut m = Metas {
            blocks: Vec::new(),
            values: Vec::new(),
            annotations: Vec::new(),
            needs_ends: 0,
            outer_text_templated: self.text_templated,
        };
        for comment in &meta.comments {
            let kind = metas::classify(comment, node_pos, self.opts.ignore_unknown_comments)
                .map_err(|e| CompileError {
                    pos: e.pos,
                    message: e.message,
                })?;
            match kind {
                MetaKind::Comment => {}
                MetaKind::Value(code) => {
                    if has_value {
                        return Err(CompileError {
                            pos: comment.pos.clone(),
                            message: format!(
                                "Expected YAML node at {} to have either computed or YAML value, but found both",
                                comment.pos.as_line_string()
                            ),
                        });
                    }
                    m.values.push((code, comment.pos.clone()));
                }
                MetaKind::Code(code) => {
                    if m.needs_ends > 0 {
                        return Err(CompileError {
                            pos: comment.pos.clone(),
                            message: format!(
                                "Unexpected code at {} after use of '*/end', expected YAML node",
                                comment.pos.as_line_string()
                            ),
                        });
                    }
                    let prefix_len = code.len() - code.trim_start().len();
                    let (prefix, rest) = code.split_at(prefix_len);
                    let mut code_out = code.clone();
                    for (kw, replacement) in NODE_SPECIFIC {
                        if let Some(after) = rest.strip_prefix(kw) {
                            m.needs_ends += 1;
                            code_out = format!("{prefix}{replacement}{after}");
                            break;
                        }
                    }
                    m.blocks.push((code_out, comment.pos.clone()));
                }
                MetaKind::Annotation { name, content } => {
                    // an annotation ytt does not know is kept and ignored, as
                    // in ytt (`check` warns about it: `annotation/unknown`)
                    m.annotations.push((name, content, comment.pos.clone()));
                }
            }
        }
        Ok(m)
    }

    /// Emits the code, annotations and `start_node` of a node; returns its tag.
    fn open(
        &mut self,
        kind: NodeKind,
        parent: NodeTag,
        pos: &Pos,
        meta: &Meta,
        has_value: bool,
    ) -> Result<(NodeTag, Metas), CompileError> {
        self.open_keyed(kind, parent, pos, meta, has_value, None)
    }

    /// [`Self::open`]; a map item's `key` is text-templated when the item
    /// or an ancestor says `@yaml/text-templated-strings`.
    fn open_keyed(
        &mut self,
        kind: NodeKind,
        parent: NodeTag,
        pos: &Pos,
        meta: &Meta,
        has_value: bool,
        key: Option<&Value>,
    ) -> Result<(NodeTag, Metas), CompileError> {
        let m = self.extract(meta, pos, has_value)?;
        let tag = self.add(kind, parent, pos.clone());
        for (code, cpos) in &m.blocks {
            self.line(code.clone(), LineKind::User, Some(cpos));
        }
        for (name, content, apos) in &m.annotations {
            self.nodes[tag as usize]
                .annotations
                .push((name.clone(), apos.clone()));
            let args = if content.trim().is_empty() {
                String::new()
            } else {
                format!(", {content}")
            };
            self.line(
                format!("{ANNOTATION}({tag}, {:?}{args})", name),
                LineKind::Instr { node: false },
                Some(apos),
            );
        }
        if m.annotations
            .iter()
            .any(|(name, _, _)| name == TEXT_TEMPLATED)
        {
            self.text_templated = true;
        }
        if let (true, Some(Value::Str(k))) = (self.text_templated, key) {
            self.text_value(k, pos, &format!("{SET_KEY}({tag}, {END_CTX}())"))?;
        }
        self.line(
            format!("{START_NODE}({tag})"),
            LineKind::Instr { node: true },
            Some(pos),
        );
        Ok((tag, m))
    }

    fn close(&mut self, m: &Metas) {
        self.text_templated = m.outer_text_templated;
        // one `end`, however many `*/end` keywords (a second one is an error above)
        if m.needs_ends > 0 {
            self.line("end".to_string(), LineKind::ImpliedEnd, None);
        }
    }

    /// Emits a text template for `text` and the `last` line that uses its result.
    fn text_value(&mut self, text: &str, pos: &Pos, last: &str) -> Result<(), CompileError> {
        let lines = super::text::compile_inline(text, pos).map_err(|e| CompileError {
            pos: if pos.is_known() {
                pos.clone()
            } else {
                pos.with_line(e.line)
            },
            message: e.message,
        })?;
        self.lines.extend(lines);
        self.line(last.to_string(), LineKind::Instr { node: true }, Some(pos));
        Ok(())
    }

    fn values(&mut self, tag: NodeTag, m: &Metas) {
        for (code, vpos) in &m.values {
            self.line(
                format!("{SET_NODE}({tag}, ({code}))"),
                LineKind::Instr { node: true },
                Some(vpos),
            );
        }
    }

    /// Whether a node's comments are all plain (`#!`, or `#` when unknown
    /// comments are ignored): it compiles to nothing of its own.
    fn meta_is_plain(&self, meta: &Meta, pos: &Pos) -> bool {
        meta.comments.iter().all(|c| {
            matches!(
                metas::classify(c, pos, self.opts.ignore_unknown_comments),
                Ok(MetaKind::Comment)
            )
        })
    }

    /// Records the static maps and arrays under `v`; returns whether `v`
    /// itself is static (a scalar always is).
    fn mark_static(&mut self, v: &Value) -> bool {
        /// Above this many items, finding keys given twice is not worth it.
        const MAX_ITEMS: usize = 64;
        let is_static = match v {
            Value::Map(m) => {
                let mut all = self.meta_is_plain(&m.meta, &m.pos) && m.items.len() <= MAX_ITEMS;
                for (i, item) in m.items.iter().enumerate() {
                    let child = self.mark_static(&item.value);
                    all = all
                        && child
                        && self.meta_is_plain(&item.meta, &item.pos)
                        && !m.items[..i].iter().any(|o| o.key.scalar_eq(&item.key));
                }
                all
            }
            Value::Array(a) => {
                let mut all = self.meta_is_plain(&a.meta, &a.pos);
                for item in &a.items {
                    let child = self.mark_static(&item.value);
                    all = all && child && self.meta_is_plain(&item.meta, &item.pos);
                }
                all
            }
            _ => return true,
        };
        if is_static {
            self.static_values.insert(v as *const Value);
        }
        is_static
    }

    /// Whether `v` can be copied whole: nothing templated in it, and not a
    /// string that `@yaml/text-templated-strings` makes a template.
    fn is_static(&self, v: &Value) -> bool {
        match v {
            Value::Map(_) | Value::Array(_) => {
                !self.text_templated && self.static_values.contains(&(v as *const Value))
            }
            Value::Str(_) => !self.text_templated,
            _ => true,
        }
    }

    /// A map or array item whose own comments are plain and whose value is
    /// static: one `__ytt_node` statement. Returns whether it was.
    fn static_item(
        &mut self,
        kind: NodeKind,
        parent: NodeTag,
        pos: &Pos,
        meta: &Meta,
        value: &Value,
        key: Option<&Value>,
    ) -> bool {
        if !self.is_static(value) || !self.meta_is_plain(meta, pos) {
            return false;
        }
        if matches!(key, Some(Value::Str(_))) && self.text_templated {
            return false;
        }
        let tag = self.add(kind, parent, pos.clone());
        if let Some(k) = key {
            self.nodes[tag as usize].key = k.clone();
        }
        self.nodes[tag as usize].scalar = plain_copy(value);
        self.line(
            format!("{NODE}({tag})"),
            LineKind::Instr { node: true },
            Some(pos),
        );
        true
    }

    fn build_docset(&mut self, ds: &DocSet) -> Result<(), CompileError> {
        let (tag, m) = self.open(NodeKind::DocSet, ROOT_TAG, &ds.pos, &ds.meta, false)?;
        for doc in &ds.docs {
            self.build_doc(doc, tag)?;
        }
        self.close(&m);
        Ok(())
    }

    fn build_doc(&mut self, doc: &Document, parent: NodeTag) -> Result<(), CompileError> {
        let has_value = !doc.value.is_null();
        let (tag, m) = self.open(NodeKind::Document, parent, &doc.pos, &doc.meta, has_value)?;
        self.nodes[tag as usize].injected = doc.injected;
        if m.values.is_empty() {
            self.build_value(&doc.value, tag, &doc.pos)?;
        } else {
            self.values(tag, &m);
        }
        self.close(&m);
        Ok(())
    }

    fn build_value(
        &mut self,
        v: &Value,
        parent: NodeTag,
        parent_pos: &Pos,
    ) -> Result<(), CompileError> {
        match v {
            Value::Map(map) => {
                let (tag, m) = self.open(NodeKind::Map, parent, &map.pos, &map.meta, false)?;
                for item in &map.items {
                    if self.static_item(
                        NodeKind::MapItem,
                        tag,
                        &item.pos,
                        &item.meta,
                        &item.value,
                        Some(&item.key),
                    ) {
                        continue;
                    }
                    let has_value = !item.value.is_null();
                    let (itag, im) = self.open_keyed(
                        NodeKind::MapItem,
                        tag,
                        &item.pos,
                        &item.meta,
                        has_value,
                        Some(&item.key),
                    )?;
                    self.nodes[itag as usize].key = item.key.clone();
                    if im.values.is_empty() {
                        self.build_value(&item.value, itag, &item.pos)?;
                    } else {
                        self.values(itag, &im);
                    }
                    self.close(&im);
                }
                self.close(&m);
            }
            Value::Array(arr) => {
                let (tag, m) = self.open(NodeKind::Array, parent, &arr.pos, &arr.meta, false)?;
                for item in &arr.items {
                    if self.static_item(
                        NodeKind::ArrayItem,
                        tag,
                        &item.pos,
                        &item.meta,
                        &item.value,
                        None,
                    ) {
                        continue;
                    }
                    let has_value = !item.value.is_null();
                    let (itag, im) =
                        self.open(NodeKind::ArrayItem, tag, &item.pos, &item.meta, has_value)?;
                    if im.values.is_empty() {
                        self.build_value(&item.value, itag, &item.pos)?;
                    } else {
                        self.values(itag, &im);
                    }
                    self.close(&im);
                }
                self.close(&m);
            }
            Value::Str(text) if self.text_templated => {
                self.nodes[parent as usize].scalar = v.clone();
                self.text_value(
                    text,
                    parent_pos,
                    &format!("{SET_NODE}({parent}, {END_CTX}())"),
                )?;
            }
            scalar => {
                self.nodes[parent as usize].scalar = scalar.clone();
                // `start_node(t)` then `set_node(t)` is `__ytt_node(t)`: one
                // statement instead of two (an annotated scalar's usual
                // code), at the same place
                let start = format!("{START_NODE}({parent})");
                match self.lines.last_mut() {
                    Some(last)
                        if last.text == start
                            && matches!(last.kind, LineKind::Instr { node: true })
                            && last.src.as_ref() == Some(parent_pos).filter(|p| p.is_known()) =>
                    {
                        last.text = format!("{NODE}({parent})");
                    }
                    _ => self.line(
                        format!("{SET_NODE}({parent})"),
                        LineKind::Instr { node: true },
                        Some(parent_pos),
                    ),
                }
            }
        }
        Ok(())
    }
}

/// A copy of a static subtree as the runtime builds it: no comments, no
/// annotations.
fn plain_copy(v: &Value) -> Value {
    match v {
        Value::Map(m) => Value::Map(Box::new(crate::yaml::Map {
            items: m
                .items
                .iter()
                .map(|i| crate::yaml::MapItem {
                    key: i.key.clone(),
                    value: plain_copy(&i.value),
                    pos: i.pos.clone(),
                    meta: Meta::default(),
                })
                .collect(),
            pos: m.pos.clone(),
            meta: Meta::default(),
        })),
        Value::Array(a) => Value::Array(Box::new(crate::yaml::Array {
            items: a
                .items
                .iter()
                .map(|i| crate::yaml::ArrayItem {
                    value: plain_copy(&i.value),
                    pos: i.pos.clone(),
                    meta: Meta::default(),
                })
                .collect(),
            pos: a.pos.clone(),
            meta: Meta::default(),
        })),
        other => other.clone(),
    }
}

/// Whether any node of a parsed file carries templating (ytt treats files
/// without any as plain YAML).
pub fn has_templating(ds: &DocSet) -> bool {
    fn meta_has(m: &Meta) -> bool {
        m.comments.iter().any(metas::is_templating)
    }
    fn value_has(v: &Value) -> bool {
        match v {
            Value::Map(m) => {
                meta_has(&m.meta)
                    || m.items
                        .iter()
                        .any(|i| meta_has(&i.meta) || value_has(&i.value))
            }
            Value::Array(a) => {
                meta_has(&a.meta)
                    || a.items
                        .iter()
                        .any(|i| meta_has(&i.meta) || value_has(&i.value))
            }
            _ => false,
        }
    }
    meta_has(&ds.meta)
        || ds
            .docs
            .iter()
            .any(|d| meta_has(&d.meta) || value_has(&d.value))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::{parse::parse, SourceFile};

    fn code(text: &str) -> Vec<String> {
        let ds = parse(&SourceFile::new("t.yml", text), true).unwrap();
        compile("t.yml", &ds, &CompileOpts::default())
            .unwrap()
            .lines
            .into_iter()
            .map(|l| l.text)
            .collect()
    }

    #[test]
    fn compiles_values_code_and_annotations() {
        let c = code("#@ x = 1\na: #@ x\n#@overlay/match by=\"name\"\nb:\n- 1\n");
        assert_eq!(
            c,
            vec![
                "__ytt_start_node(0)",
                "__ytt_start_node(1)",
                "__ytt_start_node(2)",
                "x = 1",
                "__ytt_start_node(3)",
                "__ytt_set_node(3, (x))",
                "__ytt_ann(4, \"overlay/match\", by=\"name\")",
                "__ytt_start_node(4)",
                "__ytt_start_node(5)",
                "__ytt_node(6)",
            ]
        );
    }

    #[test]
    fn subtrees_with_nothing_templated_are_one_statement() {
        // `b` and everything under it is plain (a `#!` comment is no code)
        let c = code(
            "a: #@ 1
b:
  #! why
  c: [1, 2]
  d: {e: f}
",
        );
        assert_eq!(
            c,
            vec![
                "__ytt_start_node(0)",
                "__ytt_start_node(1)",
                "__ytt_start_node(2)",
                "__ytt_start_node(3)",
                "__ytt_set_node(3, (1))",
                "__ytt_node(4)",
            ]
        );
        // under a templated node, only its plain siblings are copied whole
        let c = code(
            "a:
  b: 1
  #@ if True:
  c: 2
  #@ end
",
        );
        assert!(c.contains(&"__ytt_node(5)".to_string()), "{c:?}");
        // (the templated scalar's start and set are one statement too)
        assert!(c.contains(&"if True:".to_string()), "{c:?}");
        assert!(c.contains(&"__ytt_node(6)".to_string()), "{c:?}");
        assert!(
            !c.iter().any(|l| l.starts_with("__ytt_set_node(6")),
            "{c:?}"
        );
        // a key given twice stays node by node, so ytt's error is raised
        let c = code(
            "a: #@ 1
b:
  c: 1
  c: 2
",
        );
        assert!(c.contains(&"__ytt_start_node(5)".to_string()), "{c:?}");
        // a `#` comment is not copied over: ytt's error about it is raised
        let ds = parse(
            &SourceFile::new(
                "t.yml",
                "a: #@ 1
b:
  # plain
  c: 1
",
            ),
            true,
        )
        .unwrap();
        assert!(compile("t.yml", &ds, &CompileOpts::default()).is_err());
    }

    #[test]
    fn node_specific_end() {
        let c = code("#@ for/end i in range(2):\n- #@ i\n");
        assert!(c.contains(&"for i in range(2):".to_string()), "{c:?}");
        assert_eq!(c.last().unwrap(), "end");
    }

    #[test]
    fn both_values_is_an_error() {
        let ds = parse(&SourceFile::new("t.yml", "a: 1 #@ 2\n"), true).unwrap();
        let err = compile("t.yml", &ds, &CompileOpts::default()).unwrap_err();
        assert!(err.message.contains("either computed or YAML value"));
    }

    #[test]
    fn common_parents() {
        let ds = parse(&SourceFile::new("t.yml", "a: 1\nb: 2\n"), true).unwrap();
        let t = compile("t.yml", &ds, &CompileOpts::default()).unwrap();
        // 0 docset, 1 doc, 2 map, 3 a, 4 b
        assert_eq!(t.nodes.common_parent(3, 4), 2);
        assert_eq!(t.nodes.common_parent(2, 3), 2);
        assert_eq!(t.nodes.ancestors(3), vec![ROOT_TAG, 0, 1, 2]);
    }
}
