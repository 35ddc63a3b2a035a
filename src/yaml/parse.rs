//! YAML text -> [`DocSet`], with positions and comments attached the way ytt
//! attaches them.
//!
//! Parsing is done by `granit-parser` (events with byte spans and comment
//! events); this module only builds the tree. What it adds is ytt's behaviour:
//!
//! * a file that does not start with `---` is read as if `---\n` were prepended
//!   (so comments above a first `---` belong to a leading empty document);
//! * a map item is positioned at its key, an array item at its `-`;
//! * a comment belongs to the last node on its line, else to the first node on
//!   a following line of the same document, else to the next document;
//! * aliases and `<<` merge keys are expanded, within a budget (ytt has none, so
//!   a "billion laughs" file would exhaust memory there);
//! * duplicate keys are kept (templates reject them later, plain files keep the
//!   last one).

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;

use granit_parser::ScalarStyle;

use super::comments::{assign_comments, fix_root_position};
use super::events::{read_events_as_go_yaml, Raw, RawId, RawKind, RawNode, Reading};
use super::goyaml;
use super::node::{Array, ArrayItem, Comment, DocSet, Document, Map, MapItem, Meta, Value};
use super::pos::{Pos, SourceFile};
use super::scalar;

use super::input::{line_col, raw_line, BOM_KEPT};
pub use super::input::{Limits, ParseError};

/// Parses a YAML file the way ytt does. `with_comments` keeps comments (needed
/// for templates and to detect annotations in plain files).
pub fn parse(src: &Arc<SourceFile>, with_comments: bool) -> Result<DocSet, ParseError> {
    parse_with_limits(src, with_comments, Limits::default())
}

/// [`parse`] with ytt's `--strict` scalar rules when `strict`.
pub fn parse_opts(
    src: &Arc<SourceFile>,
    with_comments: bool,
    strict: bool,
) -> Result<DocSet, ParseError> {
    parse_inner(src, with_comments, Limits::default(), strict)
}

pub fn parse_with_limits(
    src: &Arc<SourceFile>,
    with_comments: bool,
    limits: Limits,
) -> Result<DocSet, ParseError> {
    parse_inner(src, with_comments, limits, false)
}

fn parse_inner(
    src: &Arc<SourceFile>,
    with_comments: bool,
    limits: Limits,
    strict: bool,
) -> Result<DocSet, ParseError> {
    // a byte order mark is content, as it is to ytt: ytt puts `---` before
    // every file that does not start with one, and go-yaml skips a mark only
    // at the very start of its input
    let original = src.text();
    // the parser underneath skips a byte order mark wherever a document
    // starts; go-yaml (after ytt's `---`) keeps it: it stands in as a
    // private-use character of the same length, turned back in values
    let with_bom_kept;
    let original = if original.contains('\u{feff}') && !original.contains(BOM_KEPT) {
        with_bom_kept = original.replace('\u{feff}', &BOM_KEPT.to_string());
        with_bom_kept.as_str()
    } else {
        original
    };
    let starts_with_marker = starts_with_doc_marker(original);
    let prefix = if starts_with_marker { "" } else { "---\n" };
    let line_shift = u32::from(!starts_with_marker);
    let framed = format!("{prefix}{original}");
    // go-yaml's reader refuses some characters before its scanner reads
    // the chunk they are in: in the first chunk, before anything else
    let refused = goyaml::disallowed_character(&framed);
    let reader_error = |at: usize| {
        let (line, col) = line_col(&framed, at);
        ParseError {
            line: raw_line(line, line_shift),
            col,
            message: "control characters are not allowed".to_string(),
            line_in_message: false,
        }
    };
    if let Some(at) = refused.filter(|at| *at < goyaml::READER_CHUNK) {
        return Err(reader_error(at));
    }
    let with_breaks = goyaml::with_line_breaks(&framed);
    let read = Reading {
        original: &framed,
        yaml11_breaks: with_breaks.is_some(),
        line_shift,
        limits,
        comments: with_comments,
    };
    let mut text: Cow<str> = match &with_breaks {
        Some(t) => Cow::Borrowed(t.as_str()),
        None => Cow::Borrowed(framed.as_str()),
    };
    let raw = read_events_as_go_yaml(&read, &mut text);
    // ... and later, when the scanner gets to their chunk
    let raw = match (raw, refused) {
        (Err(e), Some(at)) => {
            let chunk_line = line_col(&framed, at / goyaml::READER_CHUNK * goyaml::READER_CHUNK).0;
            if e.line < raw_line(chunk_line, line_shift) {
                return Err(e);
            }
            return Err(reader_error(at));
        }
        (Ok(_), Some(at)) => return Err(reader_error(at)),
        (raw, None) => raw?,
    };
    let mut builder = Builder {
        src,
        text: &text,
        raw: &raw,
        line_shift,
        budget: limits.max_alias_nodes,
        limits,
        strict,
        newlines: std::cell::OnceCell::new(),
    };
    let mut docset = DocSet::default();
    let mut carried: Vec<Comment> = Vec::new();
    for (i, rdoc) in raw.docs.iter().enumerate() {
        let doc_line = raw_line(rdoc.line, line_shift);
        let first_unknown = i == 0 && doc_line == 0;
        let doc_pos = if first_unknown {
            Pos::unknown_in(src)
        } else {
            Pos::new(src, doc_line, 1)
        };
        let value = match rdoc.root {
            Some(root) => builder.build(root, &doc_pos, 0, &mut HashMap::new())?,
            None => Value::Null,
        };
        let mut doc = Document {
            value,
            pos: doc_pos,
            meta: Meta {
                comments: std::mem::take(&mut carried),
                annotations: Vec::new(),
            },
            injected: false,
        };
        if with_comments {
            let end = raw.docs.get(i + 1).map(|d| d.start).unwrap_or(usize::MAX);
            let comments: Vec<Comment> = raw
                .comments
                .iter()
                .filter(|c| c.offset >= rdoc.start && c.offset < end)
                .map(|c| Comment {
                    data: c.text.clone(),
                    pos: Pos::new(src, raw_line(c.line, line_shift), c.col),
                })
                .collect();
            carried = assign_comments(&mut doc, comments, first_unknown);
        }
        if first_unknown {
            doc.pos = Pos::new(src, 1, 1);
            fix_root_position(&mut doc);
        }
        docset.docs.push(doc);
    }
    if !carried.is_empty() {
        docset.docs.push(Document {
            value: Value::Null,
            pos: Pos::unknown(),
            meta: Meta {
                comments: carried,
                annotations: Vec::new(),
            },
            injected: true,
        });
    }
    docset.pos = Pos::unknown();
    Ok(docset)
}

/// go-yaml's `\A\s*---\s+` check.
fn starts_with_doc_marker(text: &str) -> bool {
    let t = text.trim_start_matches([' ', '\t', '\n', '\r', '\x0c']);
    match t.strip_prefix("---") {
        Some(rest) => rest
            .chars()
            .next()
            .map(|c| matches!(c, ' ' | '\t' | '\n' | '\r' | '\x0c'))
            .unwrap_or(false),
        None => false,
    }
}

// ------------------------------------------------------------------ building

struct Builder<'a> {
    src: &'a Arc<SourceFile>,
    text: &'a str,
    raw: &'a Raw,
    line_shift: u32,
    budget: usize,
    limits: Limits,
    strict: bool,
    /// Offsets of the text's line feeds, made on the first array item: item
    /// positions are looked up in it, not counted from the start of the file
    /// (which made parsing quadratic in a file's size).
    newlines: std::cell::OnceCell<Vec<usize>>,
}

impl Builder<'_> {
    fn pos(&self, line: u32, col: u32) -> Pos {
        Pos::new(self.src, raw_line(line, self.line_shift), col)
    }

    fn err(&self, node: &RawNode, message: String) -> ParseError {
        ParseError {
            line: raw_line(node.line, self.line_shift),
            col: node.col,
            message,
            line_in_message: false,
        }
    }

    /// Builds the value of raw node `id`; `parent` is the position collections
    /// take (ytt positions maps and arrays at the item that holds them).
    fn build(
        &mut self,
        id: RawId,
        parent: &Pos,
        depth: usize,
        expanding: &mut HashMap<RawId, ()>,
    ) -> Result<Value, ParseError> {
        let node = &self.raw.nodes[id];
        if depth > self.limits.max_depth {
            return Err(self.err(
                node,
                format!(
                    "exceeded max depth of {} nested collections",
                    self.limits.max_depth
                ),
            ));
        }
        match &node.kind {
            RawKind::Scalar { text, style, tag } => self.scalar(node, text, *style, tag),
            RawKind::Alias(anchor) => {
                let Some(&target) = self.raw.anchors.get(anchor) else {
                    return Err(self.err(node, "unknown anchor referenced".to_string()));
                };
                if expanding.contains_key(&target) {
                    return Err(self.err(node, "anchor refers to itself".to_string()));
                }
                let size = self.subtree_size(target);
                if size > self.budget {
                    // ytt has no such limit (a billion-laughs file hangs it);
                    // ours names the alias where the expansion got too big.
                    let mut e = self.err(
                        node,
                        format!(
                            "document contains excessive aliasing (alias expansion would exceed {} nodes)",
                            self.limits.max_alias_nodes
                        ),
                    );
                    e.line_in_message = true;
                    return Err(e);
                }
                self.budget -= size;
                expanding.insert(target, ());
                let v = self.build(target, parent, depth, expanding);
                expanding.remove(&target);
                v
            }
            RawKind::Seq { items, block } => {
                let mut arr = Array {
                    items: Vec::with_capacity(items.len()),
                    pos: parent.clone(),
                    meta: Meta::default(),
                };
                for &item in items {
                    let item_node = &self.raw.nodes[item];
                    let (line, col) = if *block {
                        self.dash_position(item_node.start)
                            .unwrap_or((item_node.line, item_node.col))
                    } else {
                        (item_node.line, item_node.col)
                    };
                    let pos = self.pos(line, col);
                    let value = self.build(item, &pos, depth + 1, expanding)?;
                    arr.items.push(ArrayItem {
                        value,
                        pos,
                        meta: Meta::default(),
                    });
                }
                Ok(Value::Array(super::Shared::new(arr)))
            }
            RawKind::Map { entries } => {
                let mut map = Map {
                    items: Vec::with_capacity(entries.len()),
                    pos: parent.clone(),
                    meta: Meta::default(),
                };
                for &(k, v) in entries {
                    let key_node = &self.raw.nodes[k];
                    if self.is_merge_key(key_node) {
                        self.merge(&mut map, v, depth, expanding)?;
                        continue;
                    }
                    let pos = self.pos(key_node.line, key_node.col);
                    let key = match &key_node.kind {
                        RawKind::Scalar { text, style, tag } => {
                            self.scalar(key_node, text, *style, tag)?
                        }
                        RawKind::Alias(_) => {
                            let key = self.build(k, &pos, depth + 1, expanding)?;
                            if key.is_collection() {
                                return Err(self.err(key_node, "invalid map key".to_string()));
                            }
                            key
                        }
                        _ => {
                            return Err(self.err(
                                key_node,
                                "invalid map key: collections cannot be keys".to_string(),
                            ))
                        }
                    };
                    let value = self.build(v, &pos, depth + 1, expanding)?;
                    map.items.push(MapItem {
                        key,
                        value,
                        pos,
                        meta: Meta::default(),
                    });
                }
                Ok(Value::Map(super::Shared::new(map)))
            }
        }
    }

    fn scalar(
        &self,
        node: &RawNode,
        text: &str,
        style: ScalarStyle,
        tag: &Option<(String, String)>,
    ) -> Result<Value, ParseError> {
        match tag {
            None => {
                if matches!(style, ScalarStyle::Plain) {
                    let r = if self.strict {
                        scalar::resolve_strict(text).map_err(|m| self.err(node, m))?
                    } else {
                        scalar::resolve_plain(text)
                    };
                    Ok(scalar::resolved_value(r, text))
                } else {
                    Ok(Value::str(text))
                }
            }
            Some((handle, suffix)) => {
                if handle == "tag:yaml.org,2002:" {
                    scalar::resolve_tagged(suffix, text).map_err(|m| self.err(node, m))
                } else {
                    Ok(Value::str(text))
                }
            }
        }
    }

    fn is_merge_key(&self, node: &RawNode) -> bool {
        match &node.kind {
            RawKind::Scalar { text, style, tag } => {
                text == "<<"
                    && match tag {
                        None => matches!(style, ScalarStyle::Plain),
                        Some((h, s)) => h == "tag:yaml.org,2002:" && s == "merge",
                    }
            }
            _ => false,
        }
    }

    /// `<<: *base` / `<<: [*a, *b]`: the merged maps' items are appended in
    /// place (earlier maps of a list take precedence, so they come last).
    fn merge(
        &mut self,
        map: &mut Map,
        value: RawId,
        depth: usize,
        expanding: &mut HashMap<RawId, ()>,
    ) -> Result<(), ParseError> {
        let node = &self.raw.nodes[value];
        let targets: Vec<RawId> = match &node.kind {
            RawKind::Seq { items, .. } => items.iter().rev().copied().collect(),
            _ => vec![value],
        };
        for t in targets {
            let pos = map.pos.clone();
            let merged = self.build(t, &pos, depth + 1, expanding)?;
            match merged {
                Value::Map(m) => map.items.extend(super::Shared::into_inner(m).items),
                _ => {
                    return Err(self.err(
                        &self.raw.nodes[t],
                        "map merge requires map or sequence of maps as the value".to_string(),
                    ))
                }
            }
        }
        Ok(())
    }

    fn subtree_size(&self, id: RawId) -> usize {
        let mut count = 0usize;
        let mut todo = vec![id];
        let mut guard = 0usize;
        while let Some(n) = todo.pop() {
            count = count.saturating_add(1);
            guard += 1;
            if count > self.budget || guard > self.limits.max_alias_nodes * 4 {
                return usize::MAX;
            }
            match &self.raw.nodes[n].kind {
                RawKind::Seq { items, .. } => todo.extend(items.iter().copied()),
                RawKind::Map { entries } => {
                    for (k, v) in entries {
                        todo.push(*k);
                        todo.push(*v);
                    }
                }
                RawKind::Alias(a) => {
                    if let Some(&t) = self.raw.anchors.get(a) {
                        todo.push(t);
                    }
                }
                RawKind::Scalar { .. } => {}
            }
        }
        count
    }

    /// The line and column of the `-` that introduces a block sequence item
    /// whose content starts at `start` (go-yaml positions items there).
    fn dash_position(&self, start: usize) -> Option<(u32, u32)> {
        let bytes = self.text.as_bytes();
        let mut i = start.min(bytes.len());
        loop {
            if i == 0 {
                return None;
            }
            // skip a comment that ends here (comments are in file order)
            let comments = &self.raw.comments;
            let at = comments.partition_point(|c| c.end < i);
            if let Some(c) = comments.get(at).filter(|c| c.end == i) {
                i = c.offset;
                continue;
            }
            let b = bytes[i - 1];
            match b {
                b' ' | b'\t' | b'\n' | b'\r' => i -= 1,
                b'-' => {
                    let off = i - 1;
                    let newlines = self.newlines.get_or_init(|| {
                        bytes
                            .iter()
                            .enumerate()
                            .filter(|(_, b)| **b == b'\n')
                            .map(|(i, _)| i)
                            .collect()
                    });
                    let before = newlines.partition_point(|&n| n < off);
                    let line_start = before.checked_sub(1).map_or(0, |k| newlines[k] + 1);
                    let col = self.text[line_start..off].chars().count() as u32 + 1;
                    return Some((before as u32 + 1, col));
                }
                _ => return None,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(text: &str) -> DocSet {
        parse(&SourceFile::new("t.yml", text), true).unwrap()
    }

    #[test]
    fn positions_of_items() {
        let ds = p("a: 1\nb:\n- x\n-\n  y: 2\n");
        assert_eq!(ds.docs.len(), 1);
        let m = ds.docs[0].value.as_map().unwrap();
        assert_eq!(m.items[0].pos.line(), 1);
        assert_eq!(m.items[1].pos.line(), 2);
        let arr = m.items[1].value.as_array().unwrap();
        assert_eq!(arr.items[0].pos.line(), 3);
        assert_eq!(arr.items[1].pos.line(), 4);
        assert_eq!(arr.pos.line(), 2);
        assert_eq!(ds.docs[0].pos.line(), 1);
    }

    #[test]
    fn comments_attach_like_ytt() {
        let ds = p("#@data/values\n---\n#@ x = 1\na: #@ x\nb: 2 #! note\n#@ end\n");
        // leading empty document from the implied `---`
        assert_eq!(ds.docs.len(), 3);
        assert!(ds.docs[0].value.is_null());
        assert_eq!(ds.docs[1].meta.comments[0].data, "@data/values");
        let m = ds.docs[1].value.as_map().unwrap();
        let a: Vec<_> = m.items[0]
            .meta
            .comments
            .iter()
            .map(|c| c.data.as_str())
            .collect();
        assert_eq!(a, vec!["@ x = 1", "@ x"]);
        assert_eq!(m.items[1].meta.comments[0].data, "! note");
        assert!(ds.docs[2].injected);
        assert_eq!(ds.docs[2].meta.comments[0].data, "@ end");
    }

    #[test]
    fn hash_in_strings_is_not_a_comment() {
        let ds = p("a: \"x # y\"\nb: |\n  # not a comment\n");
        let m = ds.docs[0].value.as_map().unwrap();
        assert!(m.items.iter().all(|i| i.meta.comments.is_empty()));
        assert_eq!(m.items[1].value.as_str(), Some("# not a comment\n"));
    }

    #[test]
    fn aliases_and_merge_keys() {
        let ds = p("base: &b\n  x: 1\n  w: 2\nother:\n  <<: *b\n  z: 3\nlist: [*b]\n");
        let m = ds.docs[0].value.as_map().unwrap();
        let other = m.items[1].value.as_map().unwrap();
        let keys: Vec<_> = other.items.iter().map(|i| i.key_display()).collect();
        assert_eq!(keys, vec!["x", "w", "z"]);
    }

    #[test]
    fn alias_bomb_is_refused() {
        let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..12 {
            text.push_str(&format!(
                "a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n",
                p = i - 1
            ));
        }
        let err = parse(&SourceFile::new("bomb.yml", text), false).unwrap_err();
        assert!(
            err.message.contains("excessive aliasing"),
            "{}",
            err.message
        );
    }

    #[test]
    fn deep_nesting_is_refused() {
        let text = "[".repeat(20_000) + &"]".repeat(20_000);
        let err = parse(&SourceFile::new("deep.yml", text), false).unwrap_err();
        assert!(
            err.message.contains("depth") || err.message.contains("recursion"),
            "{}",
            err.message
        );
        let text = "- ".repeat(20_000) + "x\n";
        assert!(parse(&SourceFile::new("deep2.yml", text), false).is_err());
    }

    #[test]
    fn syntax_errors_have_lines() {
        let err = parse(&SourceFile::new("bad.yml", "a: 1\nb: [1, 2\n"), false).unwrap_err();
        assert!(err.line >= 2, "{err:?}");
        let err = parse(&SourceFile::new("bad.yml", "a: 1\n  b: 2\n"), false).unwrap_err();
        assert_eq!(err.line, 2, "{err:?}");
    }

    #[test]
    fn keys_resolve_too() {
        let ds = p("n: 1\n1: x\n");
        let m = ds.docs[0].value.as_map().unwrap();
        assert!(matches!(m.items[0].key, Value::Bool(false)));
        assert!(matches!(m.items[1].key, Value::Int(1)));
    }

    /// go-yaml's reader refuses characters chunk by chunk, of 512 bytes: a
    /// chunk can end inside a character, whose line is then the chunk's.
    #[test]
    fn a_reader_chunk_ending_inside_a_character_has_its_line() {
        let text = format!("k: |\n  {}\u{1}\n", "\u{1F3B5}".repeat(200));
        assert_eq!(line_col(&text, 512), (2, 129));
        let err = parse(&SourceFile::new("t.yml", &text), true).unwrap_err();
        assert_eq!(err.line, 2, "{}", err.message);
    }

    /// Vendored upstream YAML is hundreds of KB of lists with comments: a
    /// position looked up by scanning from the start of the file for every
    /// item made parsing quadratic (88% of a render of a real package). Eight
    /// times the text must cost about eight times the time, not sixty-four;
    /// the bound leaves room for a noisy machine, the best of three runs each.
    #[test]
    fn parsing_time_grows_linearly_with_the_file() {
        fn text(groups: usize) -> String {
            let mut t = String::new();
            for g in 0..groups {
                t.push_str(&format!("group{g}:\n  # the items\n  items:\n"));
                for i in 0..20 {
                    t.push_str(&format!(
                        "  - name: item{i} # a comment\n    tags:\n    - a\n    - b\n"
                    ));
                }
            }
            t
        }
        let best = |t: &str| {
            let src = SourceFile::new("big.yml", t);
            (0..3)
                .map(|_| {
                    let start = std::time::Instant::now();
                    let ds = parse(&src, true).unwrap();
                    assert_eq!(ds.docs.len(), 1);
                    start.elapsed()
                })
                .min()
                .unwrap()
        };
        let small = text(40);
        let large = text(320);
        let (s, l) = (best(&small), best(&large));
        let ratio = l.as_secs_f64() / s.as_secs_f64().max(1e-6);
        assert!(
            ratio < 20.0,
            "{} KB took {s:?}, {} KB took {l:?}: {ratio:.1}x for 8x the text",
            small.len() / 1024,
            large.len() / 1024
        );
    }
}
