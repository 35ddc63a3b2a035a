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

use std::collections::HashMap;

use crate::yaml::{Annotation, DocSet, Document, Meta, Pos, Value};

use super::comments::Comments;
use super::literal;
use super::metas::MetaKind;
use super::nodes::*;

/// Compiles a parsed template file.
pub fn compile(name: &str, ds: &DocSet, opts: &CompileOpts) -> Result<TemplateCode, CompileError> {
    let mut c = Compiler {
        opts,
        nodes: Vec::new(),
        lines: Vec::new(),
        static_values: std::collections::HashSet::new(),
        static_metas: HashMap::new(),
        comments: Comments::read(ds, opts),
        text_templated: false,
        run: None,
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
    /// (name, arguments as written, position, the arguments evaluated when
    /// they are all literals)
    annotations: Vec<(String, String, Pos, Option<literal::Arguments>)>,
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
    /// The metas (by address) that make no statement: plain comments and
    /// annotations with literal arguments, evaluated (found by
    /// `mark_static`).
    static_metas: HashMap<*const Meta, Vec<Annotation>>,
    /// Every comment of the template, read once.
    comments: Comments,
    /// Inside a node annotated `@yaml/text-templated-strings`: its string
    /// keys and values are text templates.
    text_templated: bool,
    /// The last line when it is a `__ytt_node`/`__ytt_node_run` that the
    /// next static node may join: (line index, first tag, last tag).
    run: Option<(usize, NodeTag, NodeTag)>,
}

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
            literal_annotations: Vec::new(),
            injected: false,
            opened: false,
        });
        tag
    }

    /// The annotations of `m`, evaluated, when all of them can be: only
    /// literal arguments, no name given twice (Starlark keeps the last one
    /// with the first one's position), none that changes how the template
    /// compiles.
    fn literal_annotations(&self, m: &Metas) -> Option<Vec<Annotation>> {
        let mut out: Vec<Annotation> = Vec::with_capacity(m.annotations.len());
        for (name, _, pos, literal) in &m.annotations {
            if name == TEXT_TEMPLATED || out.iter().any(|a| a.name == *name) {
                return None;
            }
            let (args, kwargs) = literal.clone()?;
            out.push(Annotation {
                name: name.clone(),
                pos: pos.clone(),
                args,
                kwargs,
            });
        }
        Some(out)
    }

    /// The annotations of a meta that makes no statement (nothing but plain
    /// comments and literal annotations), or `None`.
    fn static_meta(&self, meta: &Meta, pos: &Pos) -> Option<Vec<Annotation>> {
        if meta.comments.is_empty() {
            return Some(Vec::new());
        }
        let m = self.extract(meta, pos, false).ok()?;
        if !m.blocks.is_empty() || !m.values.is_empty() {
            return None;
        }
        self.literal_annotations(&m)
    }

    /// Records whether `meta` makes no statement; returns that.
    fn mark_static_meta(&mut self, meta: &Meta, pos: &Pos) -> bool {
        match self.static_meta(meta, pos) {
            Some(anns) => {
                self.static_metas.insert(meta as *const Meta, anns);
                true
            }
            None => false,
        }
    }

    /// `__ytt_node(tag)`, or the tag joined to the run of the line before
    /// when it continues it and `joinable` (it cannot fail: a run's errors
    /// would all point at its first line).
    fn node_line(&mut self, tag: NodeTag, pos: &Pos, joinable: bool) {
        self.run_or_line(tag, NODE, pos, joinable);
    }

    /// Joins `tag` to the run of the line before when it continues it and
    /// `joinable`, or writes `function(tag)` as a line of its own (which a
    /// later node may join when this one is `joinable`). A run's lines are consecutive
    /// tags in one statement: nothing between them (no code, no block
    /// boundary), and its errors would all point at its first line, so
    /// only nodes that cannot fail are joined.
    fn run_or_line(&mut self, tag: NodeTag, function: &str, pos: &Pos, joinable: bool) {
        use std::fmt::Write;
        if let Some((line, first, last)) = self.run {
            if joinable && line + 1 == self.lines.len() && last + 1 == tag {
                let text = &mut self.lines[line].text;
                text.clear();
                let _ = write!(text, "{NODE_RUN}({first}, {tag})");
                self.run = Some((line, first, tag));
                return;
            }
        }
        self.line(
            format!("{function}({tag})"),
            LineKind::Instr { node: true },
            Some(pos),
        );
        self.run = joinable.then(|| (self.lines.len() - 1, tag, tag));
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
        let read = self.comments.of(meta, node_pos, self.opts);
        for (comment, read) in meta.comments.iter().zip(read.iter()) {
            let kind = read.kind.clone().map_err(|e| CompileError {
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
                    m.annotations
                        .push((name, content, comment.pos.clone(), read.literal.clone()));
                }
            }
        }
        Ok(m)
    }

    /// Emits the code, annotations and `start_node` of a node; returns its tag.
    /// `joinable`: its `start_node` cannot fail (see [`Self::run_or_line`]).
    fn open(
        &mut self,
        kind: NodeKind,
        parent: NodeTag,
        pos: &Pos,
        meta: &Meta,
        has_value: bool,
        joinable: bool,
    ) -> Result<(NodeTag, Metas), CompileError> {
        self.open_keyed(kind, parent, pos, meta, has_value, None, joinable)
    }

    /// [`Self::open`]; a map item's `key` is text-templated when the item
    /// or an ancestor says `@yaml/text-templated-strings`.
    #[allow(clippy::too_many_arguments)] // a node: where, what it carries, how it may be placed
    fn open_keyed(
        &mut self,
        kind: NodeKind,
        parent: NodeTag,
        pos: &Pos,
        meta: &Meta,
        has_value: bool,
        key: Option<&Value>,
        joinable: bool,
    ) -> Result<(NodeTag, Metas), CompileError> {
        let m = self.extract(meta, pos, has_value)?;
        let tag = self.add(kind, parent, pos.clone());
        for (code, cpos) in &m.blocks {
            self.line(code.clone(), LineKind::User, Some(cpos));
        }
        let literal = match self.static_metas.get(&(meta as *const Meta)) {
            Some(anns) => Some(anns.clone()),
            None if m.annotations.is_empty() => None,
            None => self.literal_annotations(&m),
        };
        let node = &mut self.nodes[tag as usize];
        for (name, _, apos, _) in &m.annotations {
            node.annotations.push((name.clone(), apos.clone()));
        }
        match literal {
            Some(anns) => node.literal_annotations = anns,
            None => {
                for (name, content, apos, _) in &m.annotations {
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
            }
        }
        if m.annotations
            .iter()
            .any(|(name, ..)| name == TEXT_TEMPLATED)
        {
            self.text_templated = true;
        }
        if let (true, Some(Value::Str(k))) = (self.text_templated, key) {
            self.text_value(k, pos, &format!("{SET_KEY}({tag}, {END_CTX}())"))?;
        }
        self.nodes[tag as usize].opened = true;
        self.run_or_line(tag, START_NODE, pos, joinable);
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

    /// Records the static maps and arrays under `v` (and the metas that
    /// make no statement); returns whether `v` itself is static (a scalar
    /// always is).
    fn mark_static(&mut self, v: &Value) -> bool {
        /// Above this many items, finding keys given twice is not worth it.
        const MAX_ITEMS: usize = 64;
        let is_static = match v {
            Value::Map(m) => {
                let mut all = self.mark_static_meta(&m.meta, &m.pos) && m.items.len() <= MAX_ITEMS;
                for (i, item) in m.items.iter().enumerate() {
                    let child = self.mark_static(&item.value);
                    let meta = self.mark_static_meta(&item.meta, &item.pos);
                    all = all
                        && child
                        && meta
                        && !m.items[..i].iter().any(|o| o.key.scalar_eq(&item.key));
                }
                all
            }
            Value::Array(a) => {
                let mut all = self.mark_static_meta(&a.meta, &a.pos);
                for item in &a.items {
                    let child = self.mark_static(&item.value);
                    let meta = self.mark_static_meta(&item.meta, &item.pos);
                    all = all && child && meta;
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

    /// A map item (with its `key`) or array item that makes no statement of
    /// its own (plain comments, literal annotations) and whose value is
    /// static: one `__ytt_node` statement, or a place in the run before it when
    /// `joinable`. Returns whether it was.
    fn static_item(
        &mut self,
        parent: NodeTag,
        pos: &Pos,
        meta: &Meta,
        value: &Value,
        key: Option<&Value>,
        joinable: bool,
    ) -> bool {
        if !self.is_static(value) {
            return false;
        }
        let Some(annotations) = self.static_metas.get(&(meta as *const Meta)) else {
            return false;
        };
        if matches!(key, Some(Value::Str(_))) && self.text_templated {
            return false;
        }
        let annotations = annotations.clone();
        let scalar = self.static_copy(value);
        let kind = match key {
            Some(_) => NodeKind::MapItem,
            None => NodeKind::ArrayItem,
        };
        let tag = self.add(kind, parent, pos.clone());
        let node = &mut self.nodes[tag as usize];
        if let Some(k) = key {
            node.key = k.clone();
        }
        node.scalar = scalar;
        node.annotations = annotations
            .iter()
            .map(|a| (a.name.clone(), a.pos.clone()))
            .collect();
        node.literal_annotations = annotations;
        self.node_line(tag, pos, joinable);
        true
    }

    /// A copy of a static subtree as the runtime builds it: no comments,
    /// the literal annotations evaluated.
    fn static_copy(&self, v: &Value) -> Value {
        let meta = |m: &Meta| Meta {
            comments: Vec::new(),
            annotations: self
                .static_metas
                .get(&(m as *const Meta))
                .cloned()
                .unwrap_or_default(),
        };
        match v {
            Value::Map(m) => Value::Map(crate::yaml::Shared::new(crate::yaml::Map {
                items: m
                    .items
                    .iter()
                    .map(|i| crate::yaml::MapItem {
                        key: i.key.clone(),
                        value: self.static_copy(&i.value),
                        pos: i.pos.clone(),
                        meta: meta(&i.meta),
                    })
                    .collect(),
                pos: m.pos.clone(),
                meta: meta(&m.meta),
            })),
            Value::Array(a) => Value::Array(crate::yaml::Shared::new(crate::yaml::Array {
                items: a
                    .items
                    .iter()
                    .map(|i| crate::yaml::ArrayItem {
                        value: self.static_copy(&i.value),
                        pos: i.pos.clone(),
                        meta: meta(&i.meta),
                    })
                    .collect(),
                pos: a.pos.clone(),
                meta: meta(&a.meta),
            })),
            other => other.clone(),
        }
    }

    fn build_docset(&mut self, ds: &DocSet) -> Result<(), CompileError> {
        let (tag, m) = self.open(NodeKind::DocSet, ROOT_TAG, &ds.pos, &ds.meta, false, false)?;
        for doc in &ds.docs {
            self.build_doc(doc, tag)?;
        }
        self.close(&m);
        Ok(())
    }

    fn build_doc(&mut self, doc: &Document, parent: NodeTag) -> Result<(), CompileError> {
        let has_value = !doc.value.is_null();
        let (tag, m) = self.open(
            NodeKind::Document,
            parent,
            &doc.pos,
            &doc.meta,
            has_value,
            false,
        )?;
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
                let (tag, m) =
                    self.open(NodeKind::Map, parent, &map.pos, &map.meta, false, true)?;
                // a key given twice fails at its item's line: those items
                // keep a statement of their own
                let distinct_keys = map.items.len() <= 64
                    && map.items.iter().enumerate().all(|(i, item)| {
                        !map.items[..i].iter().any(|o| o.key.scalar_eq(&item.key))
                    });
                for item in &map.items {
                    if self.static_item(
                        tag,
                        &item.pos,
                        &item.meta,
                        &item.value,
                        Some(&item.key),
                        distinct_keys,
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
                        distinct_keys,
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
                let (tag, m) =
                    self.open(NodeKind::Array, parent, &arr.pos, &arr.meta, false, true)?;
                for item in &arr.items {
                    if self.static_item(tag, &item.pos, &item.meta, &item.value, None, true) {
                        continue;
                    }
                    let has_value = !item.value.is_null();
                    let (itag, im) = self.open(
                        NodeKind::ArrayItem,
                        tag,
                        &item.pos,
                        &item.meta,
                        has_value,
                        true,
                    )?;
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
                // code), at the same place; a run that ends with `t`
                // started sets it too once `t` is no longer opened
                let run_ends_here = matches!(self.run,
                    Some((line, first, last)) if line + 1 == self.lines.len() && last == parent && first != last);
                if run_ends_here {
                    self.nodes[parent as usize].opened = false;
                    return Ok(());
                }
                let start = format!("{START_NODE}({parent})");
                match self.lines.last_mut() {
                    Some(last)
                        if last.text == start
                            && matches!(last.kind, LineKind::Instr { node: true })
                            && last.src.as_ref() == Some(parent_pos).filter(|p| p.is_known()) =>
                    {
                        last.text = format!("{NODE}({parent})");
                        self.nodes[parent as usize].opened = false;
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
        let c = code("#@ x = 1\na: #@ x\n#@overlay/match by=x\nb:\n- 1\n");
        assert_eq!(
            c,
            vec![
                "__ytt_start_node(0)",
                "__ytt_start_node(1)",
                "__ytt_start_node(2)",
                "x = 1",
                "__ytt_start_node(3)",
                "__ytt_set_node(3, (x))",
                "__ytt_ann(4, \"overlay/match\", by=x)",
                // `b` and its array (started: their children follow) and
                // the array's static item, in one run
                "__ytt_node_run(4, 6)",
            ]
        );
    }

    #[test]
    fn literal_annotations_make_no_statement_and_static_siblings_one() {
        let text = "#@ load(\"h.star\", \"f\")
#@data/values-schema
---
#@schema/validation min=1
a: 1
b: 2
#@schema/validation (\"odd\", f)
c: 3
#@overlay/match missing_ok=True
d:
  #@schema/nullable
  e: [1]
f: #@ 2
";
        let ds = parse(&SourceFile::new("t.yml", text), true).unwrap();
        let code = compile("t.yml", &ds, &CompileOpts::default()).unwrap();
        let lines: Vec<&str> = code.lines.iter().map(|l| l.text.as_str()).collect();
        assert_eq!(
            lines,
            [
                "__ytt_start_node(0)",
                // (the empty document before the first `---`)
                "__ytt_node(1)",
                "load(\"h.star\", \"f\")",
                "__ytt_start_node(2)",
                // the map (started), `a` and `b`: no annotation statement
                "__ytt_node_run(3, 5)",
                "__ytt_ann(6, \"schema/validation\", (\"odd\", f))",
                // `c`, `d` with all below it, and `f` started for its value
                "__ytt_node_run(6, 8)",
                "__ytt_set_node(8, (2))",
            ]
        );
        // the first run starts at the map's line (its document's), the second at `c`'s
        assert_eq!(code.lines[4].src.as_ref().map(|p| p.line()), Some(3));
        assert_eq!(code.lines[6].src.as_ref().map(|p| p.line()), Some(8));
        let opened: Vec<bool> = (3..=8).map(|t| code.nodes.nodes[t].opened).collect();
        assert_eq!(opened, [true, false, false, false, false, true]);
        let node = |tag: usize| &code.nodes.nodes[tag];
        let repr = |a: &Annotation| {
            let kwargs: Vec<String> = a
                .kwargs
                .iter()
                .map(|(k, v)| format!("{k}={}", v.repr()))
                .collect();
            format!("{}({})", a.name, kwargs.join(", "))
        };
        assert_eq!(
            repr(&node(2).literal_annotations[0]),
            "data/values-schema()"
        );
        assert_eq!(
            repr(&node(4).literal_annotations[0]),
            "schema/validation(min=1)"
        );
        assert!(node(5).literal_annotations.is_empty());
        assert!(node(6).literal_annotations.is_empty(), "a name: evaluated");
        assert_eq!(
            repr(&node(7).literal_annotations[0]),
            "overlay/match(missing_ok=True)"
        );
        assert_eq!(node(7).literal_annotations[0].pos.line(), 9);
        // the copied subtree keeps the annotations of the nodes inside it
        let Value::Map(d) = &node(7).scalar else {
            panic!("{:?}", node(7).scalar)
        };
        assert_eq!(d.items[0].meta.annotations[0].name, "schema/nullable");
    }

    #[test]
    fn nodes_that_can_fail_or_mention_bound_constants_stay_statements() {
        // a key given twice fails at its own line: no run in that map
        let c = code("---\na: 1\nb: 2\na: 3\nc: #@ 1\n");
        assert!(c.contains(&"__ytt_node(3)".to_string()), "{c:?}");
        assert!(c.contains(&"__ytt_node(4)".to_string()), "{c:?}");
        assert!(c.contains(&"__ytt_node(5)".to_string()), "{c:?}");
        // code that mentions `True` could bind it
        let c = code("#@ x = True\n---\n#@overlay/match missing_ok=True\na: 1\n");
        assert!(
            c.contains(&"__ytt_ann(4, \"overlay/match\", missing_ok=True)".to_string()),
            "{c:?}"
        );
        // a text-templated node changes how what is below it compiles
        let c = code("---\n#@yaml/text-templated-strings\na: (@= \"x\" @)\n");
        assert!(c.iter().any(|l| l.starts_with("__ytt_ann(")), "{c:?}");
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
                // the map and `a`, started (`a`'s value is code)
                "__ytt_node_run(2, 3)",
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
        // (`b`, in the run of the maps and `a` started before it; the
        // block is a boundary no run crosses)
        assert!(c.contains(&"__ytt_node_run(2, 5)".to_string()), "{c:?}");
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
        // (`b` and its map may be one run: neither can fail; each `c` is a
        // statement of its own)
        assert!(c.contains(&"__ytt_node_run(4, 5)".to_string()), "{c:?}");
        assert!(c.contains(&"__ytt_node(6)".to_string()), "{c:?}");
        assert!(c.contains(&"__ytt_node(7)".to_string()), "{c:?}");
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

    /// ytt's definition, by lists of ancestors, against the one by depth,
    /// for every pair of tags of a nested template.
    #[test]
    fn common_parent_is_ytts_by_lists() {
        // computed values keep their nodes (plain subtrees are one node)
        let src = "a:\n  b:\n    c: #@ 1\n    d:\n    - #@ 2\n    - 3\n  e: #@ 3\n---\nf:\n- g: #@ 1\n  h:\n    i: #@ 2\n    j: #@ 3\n";
        let ds = parse(&SourceFile::new("t.yml", src), true).unwrap();
        let t = compile("t.yml", &ds, &CompileOpts::default()).unwrap();
        let by_lists = |curr: NodeTag, new: NodeTag| {
            let mut curr_anc = t.nodes.ancestors(curr);
            curr_anc.push(curr);
            let mut common = ROOT_TAG;
            for (a, b) in curr_anc.iter().zip(t.nodes.ancestors(new).iter()) {
                if a != b {
                    break;
                }
                common = *a;
            }
            common
        };
        let n = t.nodes.nodes.len() as NodeTag;
        assert!(n > 15, "{n}");
        let tags: Vec<NodeTag> = (0..n).chain([ROOT_TAG]).collect();
        for &curr in &tags {
            for &new in &tags {
                assert_eq!(
                    t.nodes.common_parent(curr, new),
                    by_lists(curr, new),
                    "{curr} {new}"
                );
            }
        }
    }
}
