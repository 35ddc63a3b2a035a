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

use std::collections::HashMap;
use std::sync::Arc;

use granit_parser::{Event, Options, Parser, ScalarStyle};

use super::node::{Array, ArrayItem, Comment, DocSet, Document, Map, MapItem, Meta, Value};
use super::pos::{Pos, SourceFile};
use super::scalar;

/// Limits that keep hostile input from exhausting memory or the stack.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Deepest nesting of collections.
    pub max_depth: usize,
    /// Most nodes that alias expansion may create in one document.
    pub max_alias_nodes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_depth: 10_000,
            max_alias_nodes: 200_000,
        }
    }
}

/// A YAML syntax error, worded as go-yaml words them (`yaml: line 3: ...`).
#[derive(Debug, Clone)]
pub struct ParseError {
    /// 1-based line in the original file (0 when unknown).
    pub line: u32,
    pub col: u32,
    pub message: String,
    /// Scanner errors name their line in ytt's text; decoding errors
    /// (scalar resolution, aliases) do not.
    pub line_in_message: bool,
}

impl ParseError {
    /// ytt's rendering: `yaml: line N: message`.
    pub fn ytt_message(&self) -> String {
        if self.line > 0 && self.line_in_message {
            format!("yaml: line {}: {}", self.line, self.message)
        } else {
            format!("yaml: {}", self.message)
        }
    }
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.ytt_message())
    }
}

/// go-yaml (YAML 1.1) reads NEL, LS and PS (U+0085, U+2028, U+2029) as line
/// breaks; the parser underneath does not. They become `\n`, padded with
/// spaces before it so that every byte offset stays where it was (trailing
/// spaces are insignificant where a line break may stand). Inside a quoted
/// scalar (`quoted` holds their byte ranges, from a first reading), go-yaml
/// keeps LS and PS as content (a NEL it folds like `\n`): there they become
/// a private-use character of the same length, which the builder turns back
/// ([`restore_separators`]).
fn unicode_line_breaks(text: &str, quoted: &[(usize, usize)]) -> Option<String> {
    if !text.contains(['\u{85}', '\u{2028}', '\u{2029}']) {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    for (at, c) in text.char_indices() {
        let in_quotes = || quoted.iter().any(|(s, e)| *s < at && at < *e);
        match c {
            '\u{85}' => out.push_str(" \n"),
            '\u{2028}' if in_quotes() => out.push(LS_KEPT),
            '\u{2029}' if in_quotes() => out.push(PS_KEPT),
            '\u{2028}' | '\u{2029}' => out.push_str("  \n"),
            c => out.push(c),
        }
    }
    Some(out)
}

/// What LS (U+2028) and PS (U+2029) inside a quoted scalar stand in as
/// while the parser reads it: private-use characters of the same length in
/// UTF-8, which no YAML parser folds.
const LS_KEPT: char = '\u{E028}';
const PS_KEPT: char = '\u{E029}';

/// What a byte order mark stands in as while the parser reads the text (see
/// `parse_inner`): a private-use character of the same length in UTF-8.
const BOM_KEPT: char = '\u{E0FF}';

/// A quoted scalar's value with LS and PS back: each is content, and as in
/// go-yaml's folding the blanks on either side of it go.
fn restore_separators(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    let mut chars = value.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            LS_KEPT | PS_KEPT => {
                while out.ends_with([' ', '\t']) {
                    out.pop();
                }
                out.push(if c == LS_KEPT { '\u{2028}' } else { '\u{2029}' });
                while chars.peek().is_some_and(|n| *n == ' ' || *n == '\t') {
                    chars.next();
                }
            }
            c => out.push(c),
        }
    }
    out
}

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
    let framed = |body: &str| -> String { format!("{prefix}{body}") };
    let mut text: std::borrow::Cow<str> = framed(original).into();
    let mut raw = None;
    if let Some(with_breaks) = unicode_line_breaks(original, &[]) {
        text = framed(&with_breaks).into();
        let keepable =
            original.contains(['\u{2028}', '\u{2029}']) && !original.contains([LS_KEPT, PS_KEPT]);
        let first = read_events(&text, line_shift, limits, with_comments)?;
        if keepable && !first.quoted.is_empty() {
            // again, with LS and PS inside quoted scalars kept as content
            let quoted: Vec<(usize, usize)> = first
                .quoted
                .iter()
                .map(|(s, e)| (s - prefix.len(), e - prefix.len()))
                .collect();
            if let Some(kept) = unicode_line_breaks(original, &quoted) {
                text = framed(&kept).into();
            }
        } else {
            raw = Some(first);
        }
    }
    let raw = match raw {
        Some(r) => r,
        None => read_events(&text, line_shift, limits, with_comments)?,
    };
    let mut builder = Builder {
        src,
        text: &text,
        raw: &raw,
        line_shift,
        budget: limits.max_alias_nodes,
        limits,
        strict,
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

fn raw_line(line: u32, shift: u32) -> u32 {
    line.saturating_sub(shift)
}

// ------------------------------------------------------------------ raw events

type RawId = usize;

#[derive(Debug)]
enum RawKind {
    Scalar {
        text: String,
        style: ScalarStyle,
        tag: Option<(String, String)>,
    },
    Seq {
        items: Vec<RawId>,
        block: bool,
    },
    Map {
        entries: Vec<(RawId, RawId)>,
    },
    Alias(usize),
}

#[derive(Debug)]
struct RawNode {
    kind: RawKind,
    /// 1-based line in the parsed text.
    line: u32,
    /// 1-based column.
    col: u32,
    /// Byte offset where the node's properties (anchor/tag) or content start.
    start: usize,
    /// Anchor id (kept for debugging output).
    #[allow(dead_code)]
    anchor: usize,
}

struct RawDoc {
    start: usize,
    line: u32,
    root: Option<RawId>,
}

struct RawComment {
    offset: usize,
    end: usize,
    line: u32,
    col: u32,
    text: String,
}

struct Raw {
    nodes: Vec<RawNode>,
    docs: Vec<RawDoc>,
    comments: Vec<RawComment>,
    /// Byte ranges of quoted scalars (single or double).
    quoted: Vec<(usize, usize)>,
    /// Byte ranges where a tab may start a line: scalars other than plain
    /// ones, and flow collections.
    tabs_allowed: Vec<(usize, usize)>,
    /// Where plain scalars end.
    plain_ends: Vec<usize>,
    /// anchor id -> node, per document (granit ids are unique per stream).
    anchors: HashMap<usize, RawId>,
}

enum Open {
    Seq(RawId),
    Map(RawId, Option<RawId>),
}

/// Most comment lines in a row where the parser looks ahead.
const MAX_BUFFERED_COMMENTS: usize = 65_536;

/// `comments`: whether to collect comments at all (when not, the parser
/// neither keeps their text nor buffers them).
fn read_events(
    text: &str,
    line_shift: u32,
    limits: Limits,
    comments: bool,
) -> Result<Raw, ParseError> {
    let mut options = Options::default();
    options.emit_comments = comments;
    // go-yaml buffers any number of comments; the parser's default stops at
    // 96 in a row where it looks ahead (between `key:` and its first item,
    // say). A bound stays, far above any real file, so that a file of
    // nothing but comment lines cannot buffer one event per line.
    options.max_buffered_comment_events = MAX_BUFFERED_COMMENTS;
    options.emit_anchor_events = true;
    options.block_scalar_eof_without_line_feed = true;
    // The parser's own limits sit just above ours, so that our error (with
    // its clearer wording) is the one users see.
    options.block_nesting_limit = limits.max_depth + 8;
    options.flow_nesting_limit = limits.max_depth + 8;
    let parser = Parser::new_from_str_with_options(text, options);
    let mut raw = Raw {
        nodes: Vec::new(),
        docs: Vec::new(),
        comments: Vec::new(),
        quoted: Vec::new(),
        tabs_allowed: Vec::new(),
        plain_ends: Vec::new(),
        anchors: HashMap::new(),
    };
    // flow collections open: where each started
    let mut flows: Vec<Option<usize>> = Vec::new();
    let mut stack: Vec<Open> = Vec::new();
    // after an explicit `...`, go-yaml (YAML 1.1) requires `---` before more
    // content; the parser underneath (YAML 1.2) starts an implicit document
    let mut after_explicit_end = false;
    for ev in parser {
        let (event, span) = ev.map_err(|e| {
            let line = raw_line(e.marker().line() as u32, line_shift);
            let message = match e.info() {
                m if m == "recursion limit exceeded" => {
                    format!(
                        "exceeded max depth of {} nested collections",
                        limits.max_depth
                    )
                }
                // go-yaml's scanner words both as one problem
                m if m.starts_with("unexpected character") || m.starts_with("tabs disallowed") => {
                    "found character that cannot start any token".to_string()
                }
                // an unclosed flow collection: go-yaml's parser fails at the
                // end of the input, and prints that 0-based line (or, when it
                // is 0, the bracket's; when both are 0, none)
                m if m.starts_with("unclosed bracket") => {
                    let close = if m.contains('{') { '}' } else { ']' };
                    // go-yaml's scanner ends the last line at the end of
                    // the input (a line more when it has no line feed)
                    let eof_line = (text.matches('\n').count() + usize::from(!text.ends_with('\n')))
                        as u32
                        - line_shift;
                    let go_line = if eof_line != 0 {
                        eof_line
                    } else {
                        line.saturating_sub(1)
                    };
                    let what = format!("did not find expected ',' or '{close}'");
                    return ParseError {
                        line,
                        col: e.marker().col() as u32 + 1,
                        message: if go_line == 0 {
                            what
                        } else {
                            format!("line {go_line}: {what}")
                        },
                        line_in_message: false,
                    };
                }
                // a block scalar indented with a tab: go-yaml names the
                // tab's line, the first of the content
                m if m.starts_with("a block scalar content cannot start with a tab") => {
                    return ParseError {
                        line: line + 1,
                        col: 1,
                        message: "found a tab character where an indentation space is expected"
                            .to_string(),
                        line_in_message: true,
                    };
                }
                // a key without `:`: go-yaml's scanner finds it when it
                // moves on to the next line, and names that line
                m if m.starts_with("simple key expected ':'") => {
                    return ParseError {
                        line: line + 1,
                        col: 1,
                        message: "could not find expected ':'".to_string(),
                        line_in_message: true,
                    };
                }
                // go-yaml's parser errors (not its scanner's) print the
                // problem's 0-based line
                m if m.starts_with("did not find expected") => {
                    let go_line = line.saturating_sub(1);
                    return ParseError {
                        line,
                        col: e.marker().col() as u32 + 1,
                        message: if go_line == 0 {
                            m.to_string()
                        } else {
                            format!("line {go_line}: {m}")
                        },
                        line_in_message: false,
                    };
                }
                // a parser error: go-yaml prints only the problem, and the
                // problem's 0-based line
                m if m.starts_with("while parsing ") => {
                    let problem = m.split_once(", ").map(|(_, p)| p).unwrap_or(&m);
                    return ParseError {
                        line,
                        col: e.marker().col() as u32 + 1,
                        message: format!("line {}: {problem}", line.saturating_sub(1)),
                        line_in_message: false,
                    };
                }
                m => m,
            };
            ParseError {
                line,
                col: e.marker().col() as u32 + 1,
                message,
                line_in_message: true,
            }
        })?;
        let offset = span.start.byte_offset().unwrap_or(0);
        let line = span.start.line() as u32;
        let col = span.start.col() as u32 + 1;
        let start = span
            .tag_start()
            .and_then(|m| m.byte_offset())
            .map(|t| t.min(offset))
            .unwrap_or(offset);
        let mut new_node: Option<RawId> = None;
        match event {
            Event::StreamStart | Event::StreamEnd => {}
            Event::DocumentStart(explicit, _) => {
                if after_explicit_end && !explicit {
                    let line = raw_line(line, line_shift);
                    // a parser error: go-yaml prints its 0-based line
                    return Err(ParseError {
                        line,
                        col,
                        message: format!(
                            "line {}: did not find expected <document start>",
                            line.saturating_sub(1)
                        ),
                        line_in_message: false,
                    });
                }
                raw.docs.push(RawDoc {
                    start: offset,
                    line,
                    root: None,
                })
            }
            Event::DocumentEnd => {
                after_explicit_end = text
                    .get(offset..)
                    .is_some_and(|rest| rest.starts_with("..."));
            }
            Event::Comment(text, _) => raw.comments.push(RawComment {
                offset,
                end: span.end.byte_offset().unwrap_or(offset),
                line,
                col,
                text: text.into_owned(),
            }),
            Event::Anchor(_, _) => {
                // Metadata for the node just emitted: its properties start here.
                if let Some(last) = raw.nodes.last_mut() {
                    last.start = last.start.min(offset);
                }
            }
            Event::Alias(id) => {
                new_node = Some(push(&mut raw, RawKind::Alias(id), line, col, start, 0));
            }
            Event::UnresolvedAlias(name) => {
                return Err(ParseError {
                    line: raw_line(line, line_shift),
                    col,
                    message: format!("unknown anchor '{name}' referenced"),
                    line_in_message: false,
                })
            }
            Event::Scalar(value, style, anchor, tag) => {
                let tag = tag.map(|t| (t.handle().to_string(), t.suffix().to_string()));
                // the parser writes an empty node (a document holding only
                // comments, `key:` with nothing after it) as `~`; it is empty
                // text, which `--strict` accepts as null and `~` it does not
                let empty = span.end.byte_offset() == span.start.byte_offset()
                    && matches!(style, ScalarStyle::Plain);
                let end = span.end.byte_offset().unwrap_or(offset);
                if matches!(style, ScalarStyle::SingleQuoted | ScalarStyle::DoubleQuoted) {
                    raw.quoted.push((offset, end));
                }
                if matches!(style, ScalarStyle::Plain) {
                    raw.plain_ends.push(end);
                } else {
                    raw.tabs_allowed.push((offset, end));
                }
                let text = if empty {
                    String::new()
                } else if value.contains([LS_KEPT, PS_KEPT, BOM_KEPT]) {
                    restore_separators(&value).replace(BOM_KEPT, "\u{feff}")
                } else {
                    value.into_owned()
                };
                let id = push(
                    &mut raw,
                    RawKind::Scalar { text, style, tag },
                    line,
                    col,
                    start,
                    anchor,
                );
                new_node = Some(id);
            }
            Event::SequenceStart(style, anchor, _) => {
                let block = matches!(style, granit_parser::StructureStyle::Block);
                flows.push((!block).then_some(offset));
                let id = push(
                    &mut raw,
                    RawKind::Seq {
                        items: Vec::new(),
                        block,
                    },
                    line,
                    col,
                    start,
                    anchor,
                );
                attach(&mut raw, &mut stack, id);
                stack.push(Open::Seq(id));
                if stack.len() > limits.max_depth {
                    return Err(depth_error(line, line_shift, limits));
                }
            }
            Event::MappingStart(style, anchor, _) => {
                let block = matches!(style, granit_parser::StructureStyle::Block);
                flows.push((!block).then_some(offset));
                let id = push(
                    &mut raw,
                    RawKind::Map {
                        entries: Vec::new(),
                    },
                    line,
                    col,
                    start,
                    anchor,
                );
                attach(&mut raw, &mut stack, id);
                stack.push(Open::Map(id, None));
                if stack.len() > limits.max_depth {
                    return Err(depth_error(line, line_shift, limits));
                }
            }
            Event::SequenceEnd | Event::MappingEnd => {
                stack.pop();
                if let Some(Some(start)) = flows.pop() {
                    let end = span.end.byte_offset().unwrap_or(offset).max(offset + 1);
                    raw.tabs_allowed.push((start, end));
                }
            }
            // Events added by future parser versions carry no data we use.
            _ => {}
        }
        if let Some(id) = new_node {
            attach(&mut raw, &mut stack, id);
        }
    }
    block_tabs(text, line_shift, &raw)?;
    Ok(raw)
}

/// go-yaml refuses a tab at the start of a line in the block context (the
/// parser underneath takes it as white space): after a plain scalar, whose
/// scanning goes on across lines, it "violates indentation"; anywhere else
/// it "cannot start any token". Inside a block or quoted scalar, or a flow
/// collection, a tab is fine.
fn block_tabs(text: &str, line_shift: u32, raw: &Raw) -> Result<(), ParseError> {
    if !text.contains("\n\t") {
        return Ok(());
    }
    let mut at = 0;
    for (n, line) in text.split('\n').enumerate() {
        let start = at;
        at += line.len() + 1;
        if !line.starts_with('\t') || n == 0 {
            continue;
        }
        if raw
            .tabs_allowed
            .iter()
            .any(|(s, e)| *s < start && start < *e)
        {
            continue;
        }
        let after_plain = raw
            .plain_ends
            .iter()
            .filter(|e| **e <= start)
            .max()
            .is_some_and(|e| {
                // nothing but blanks, breaks and comments between
                text[*e..start]
                    .lines()
                    .all(|l| l.trim_start().is_empty() || l.trim_start().starts_with('#'))
            });
        let line = raw_line(n as u32 + 1, line_shift);
        return Err(ParseError {
            line,
            col: 1,
            message: if after_plain {
                "found a tab character that violates indentation".into()
            } else {
                "found character that cannot start any token".into()
            },
            line_in_message: true,
        });
    }
    Ok(())
}

fn depth_error(line: u32, shift: u32, limits: Limits) -> ParseError {
    ParseError {
        line: raw_line(line, shift),
        col: 0,
        message: format!(
            "exceeded max depth of {} nested collections",
            limits.max_depth
        ),
        line_in_message: true,
    }
}

fn push(raw: &mut Raw, kind: RawKind, line: u32, col: u32, start: usize, anchor: usize) -> RawId {
    let id = raw.nodes.len();
    raw.nodes.push(RawNode {
        kind,
        line,
        col,
        start,
        anchor,
    });
    if anchor != 0 {
        raw.anchors.insert(anchor, id);
    }
    id
}

fn attach(raw: &mut Raw, stack: &mut [Open], id: RawId) {
    match stack.last_mut() {
        None => {
            if let Some(doc) = raw.docs.last_mut() {
                doc.root = Some(id);
            }
        }
        Some(Open::Seq(seq)) => {
            if let RawKind::Seq { items, .. } = &mut raw.nodes[*seq].kind {
                items.push(id);
            }
        }
        Some(Open::Map(map, pending)) => match pending.take() {
            None => *pending = Some(id),
            Some(key) => {
                if let RawKind::Map { entries } = &mut raw.nodes[*map].kind {
                    entries.push((key, id));
                }
            }
        },
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
                Ok(Value::Array(Box::new(arr)))
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
                Ok(Value::Map(Box::new(map)))
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
                Value::Map(m) => map.items.extend(m.items),
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
            // skip a comment that ends here
            if let Some(c) = self.raw.comments.iter().rev().find(|c| c.end == i) {
                i = c.offset;
                continue;
            }
            let b = bytes[i - 1];
            match b {
                b' ' | b'\t' | b'\n' | b'\r' => i -= 1,
                b'-' => {
                    let off = i - 1;
                    let line_start = self.text[..off].rfind('\n').map(|p| p + 1).unwrap_or(0);
                    let line = self.text[..off].matches('\n').count() as u32 + 1;
                    let col = self.text[line_start..off].chars().count() as u32 + 1;
                    return Some((line, col));
                }
                _ => return None,
            }
        }
    }
}

// ------------------------------------------------------------------ comments

/// Node positions of one document in the order ytt walks them.
enum Slot {
    Doc,
    Path(Vec<usize>),
}

fn collect_lines(doc: &Document, include_doc: bool) -> Vec<(u32, Slot)> {
    let mut out = Vec::new();
    if include_doc && doc.pos.is_known() {
        out.push((doc.pos.line(), Slot::Doc));
    }
    let mut path = Vec::new();
    collect_value_lines(&doc.value, &mut path, &mut out);
    out
}

fn collect_value_lines(v: &Value, path: &mut Vec<usize>, out: &mut Vec<(u32, Slot)>) {
    match v {
        Value::Map(m) => {
            for (i, item) in m.items.iter().enumerate() {
                path.push(i);
                if item.pos.is_known() {
                    out.push((item.pos.line(), Slot::Path(path.clone())));
                }
                collect_value_lines(&item.value, path, out);
                path.pop();
            }
        }
        Value::Array(a) => {
            for (i, item) in a.items.iter().enumerate() {
                path.push(i);
                if item.pos.is_known() {
                    out.push((item.pos.line(), Slot::Path(path.clone())));
                }
                collect_value_lines(&item.value, path, out);
                path.pop();
            }
        }
        _ => {}
    }
}

fn meta_at<'a>(doc: &'a mut Document, slot: &Slot) -> &'a mut Meta {
    match slot {
        Slot::Doc => &mut doc.meta,
        Slot::Path(path) => {
            let mut v = &mut doc.value;
            let last = path.len() - 1;
            for (depth, &i) in path.iter().enumerate() {
                match v {
                    Value::Map(m) => {
                        if depth == last {
                            return &mut m.items[i].meta;
                        }
                        v = &mut m.items[i].value;
                    }
                    Value::Array(a) => {
                        if depth == last {
                            return &mut a.items[i].meta;
                        }
                        v = &mut a.items[i].value;
                    }
                    _ => unreachable!("paths only lead through collections"),
                }
            }
            unreachable!("empty path")
        }
    }
}

/// Attaches comments to the nodes of `doc` by line; returns the comments that
/// found no node (they go to the next document).
fn assign_comments(doc: &mut Document, comments: Vec<Comment>, doc_unknown: bool) -> Vec<Comment> {
    if comments.is_empty() {
        return Vec::new();
    }
    let slots = collect_lines(doc, !doc_unknown);
    // line -> indices into slots (in walk order)
    let mut by_line: std::collections::BTreeMap<u32, Vec<usize>> = Default::default();
    for (i, (line, _)) in slots.iter().enumerate() {
        by_line.entry(*line).or_default().push(i);
    }
    let mut unassigned = Vec::new();
    for comment in comments {
        let line = comment.pos.line();
        match by_line.range(line..).next() {
            Some((&node_line, idxs)) => {
                let idx = if node_line == line {
                    *idxs.last().unwrap()
                } else {
                    idxs[0]
                };
                let slot = &slots[idx].1;
                meta_at(doc, slot).comments.push(comment);
            }
            None => unassigned.push(comment),
        }
    }
    unassigned
}

/// The root collection of the first document takes the document's line once it
/// is known (ytt fixes the first document's position after assignment).
fn fix_root_position(doc: &mut Document) {
    let pos = doc.pos.clone();
    match &mut doc.value {
        Value::Map(m) if !m.pos.is_known() => m.pos = pos,
        Value::Array(a) if !a.pos.is_known() => a.pos = pos,
        _ => {}
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
}
