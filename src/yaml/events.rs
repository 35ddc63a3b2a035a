//! The parser's events read into raw nodes ([`Raw`]), and its errors
//! worded and placed as go-yaml's. The parser underneath reads YAML 1.2;
//! where go-yaml (YAML 1.1) reads a scalar differently, [`goyaml`] reads it
//! again from the original text.

use std::borrow::Cow;
use std::collections::HashMap;

use granit_parser::{ErrorKind, Event, Options, Parser, ScalarStyle, ScanError};

use super::goyaml;
use super::input::{line_col, raw_line, Limits, ParseError, BOM_KEPT};

pub(super) type RawId = usize;

#[derive(Debug)]
pub(super) enum RawKind {
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
pub(super) struct RawNode {
    pub(super) kind: RawKind,
    /// 1-based line in the parsed text.
    pub(super) line: u32,
    /// 1-based column.
    pub(super) col: u32,
    /// Byte offset where the node's properties (anchor/tag) or content start.
    pub(super) start: usize,
    /// Anchor id (kept for debugging output).
    #[allow(dead_code)]
    pub(super) anchor: usize,
}

pub(super) struct RawDoc {
    pub(super) start: usize,
    pub(super) line: u32,
    pub(super) root: Option<RawId>,
}

pub(super) struct RawComment {
    pub(super) offset: usize,
    pub(super) end: usize,
    pub(super) line: u32,
    pub(super) col: u32,
    pub(super) text: String,
}

pub(super) struct Raw {
    pub(super) nodes: Vec<RawNode>,
    pub(super) docs: Vec<RawDoc>,
    pub(super) comments: Vec<RawComment>,
    /// Byte ranges where a tab may start a line: scalars other than plain
    /// ones, and flow collections.
    pub(super) tabs_allowed: Vec<(usize, usize)>,
    /// Where plain scalars end.
    pub(super) plain_ends: Vec<usize>,
    /// anchor id -> node, per document (granit ids are unique per stream).
    pub(super) anchors: HashMap<usize, RawId>,
}

pub(super) enum Open {
    Seq(RawId),
    Map(RawId, Option<RawId>),
}

/// Most comment lines in a row where the parser looks ahead.
const MAX_BUFFERED_COMMENTS: usize = 65_536;

/// What a reading of one file needs besides the text.
pub(super) struct Reading<'a> {
    /// The text as ytt hands it to go-yaml (with its `---` in front).
    pub original: &'a str,
    /// Whether the original holds NEL, LS or PS (the text read has line
    /// feeds in their place, and quoted and block scalars are read again).
    pub yaml11_breaks: bool,
    pub line_shift: u32,
    pub limits: Limits,
    /// Whether to collect comments at all (when not, the parser neither
    /// keeps their text nor buffers them).
    pub comments: bool,
}

/// Why a reading stopped.
enum Failure {
    Parse(ParseError),
    /// A double-quoted scalar holds `\'`, which go-yaml reads as `'` and
    /// the parser underneath refuses: where each stands.
    Apostrophes(Vec<usize>),
}

impl From<ParseError> for Failure {
    fn from(e: ParseError) -> Self {
        Failure::Parse(e)
    }
}

/// How many bytes re-reading a file for its `\'` escapes may cost, in all
/// (each double-quoted scalar holding one costs a reading of the file).
const MAX_REREAD_BYTES: usize = 256 << 20;

/// Reads `text` as go-yaml would: a `\'` in double quotes, which the parser
/// underneath refuses, stands in as `\"` (of the same length) while it
/// reads, and the scalar's value comes from the original.
pub(super) fn read_events_as_go_yaml(
    read: &Reading,
    text: &mut Cow<str>,
) -> Result<Raw, ParseError> {
    let mut reread = 0usize;
    loop {
        match read_events(read, text) {
            Ok(raw) => return Ok(raw),
            Err(Failure::Parse(e)) => return Err(e),
            Err(Failure::Apostrophes(at)) => {
                reread += text.len();
                if reread > MAX_REREAD_BYTES {
                    let (line, col) = line_col(read.original, at[0]);
                    return Err(ParseError {
                        line: raw_line(line, read.line_shift),
                        col,
                        message: "too many double-quoted strings with the escape \\' for yttcheck to read".to_string(),
                        line_in_message: true,
                    });
                }
                let t = text.to_mut();
                for a in at {
                    t.replace_range(a + 1..a + 2, "\"");
                }
            }
        }
    }
}

fn read_events(read: &Reading, text: &str) -> Result<Raw, Failure> {
    let (line_shift, limits, comments) = (read.line_shift, read.limits, read.comments);
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
    // where the last event ended (a block scalar's indicator is after it)
    let mut last_end = 0;
    for ev in parser {
        let (event, span) = ev.map_err(|e| go_error(&e, read, text, &stack, &raw))?;
        let offset = span.start.byte_offset().unwrap_or(0);
        let line = span.start.line() as u32;
        let col = span.start.col() as u32 + 1;
        let start = span
            .tag_start()
            .and_then(|m| m.byte_offset())
            .map(|t| t.min(offset))
            .unwrap_or(offset);
        let mut new_node: Option<RawId> = None;
        let prev_end = std::mem::replace(&mut last_end, span.end.byte_offset().unwrap_or(offset));
        match event {
            Event::StreamStart | Event::StreamEnd => {}
            Event::DocumentStart(explicit, _) => {
                if after_explicit_end && !explicit {
                    let line = raw_line(line, line_shift);
                    // a parser error: go-yaml prints its 0-based line
                    return Err(Failure::Parse(ParseError {
                        line,
                        col,
                        message: format!(
                            "line {}: did not find expected <document start>",
                            line.saturating_sub(1)
                        ),
                        line_in_message: false,
                    }));
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
                anchor_name(read, text, offset)?;
                // Metadata for the node just emitted: its properties start here.
                if let Some(last) = raw.nodes.last_mut() {
                    last.start = last.start.min(offset);
                }
            }
            Event::Alias(id) => {
                anchor_name(read, text, offset)?;
                new_node = Some(push(&mut raw, RawKind::Alias(id), line, col, start, 0));
            }
            Event::UnresolvedAlias(name) => {
                return Err(Failure::Parse(ParseError {
                    line: raw_line(line, line_shift),
                    col,
                    message: format!("unknown anchor '{name}' referenced"),
                    line_in_message: false,
                }))
            }
            Event::Scalar(value, style, anchor, tag) => {
                let tag = tag.map(|t| (t.handle().to_string(), t.suffix().to_string()));
                // the parser writes an empty node (a document holding only
                // comments, `key:` with nothing after it) as `~`; it is empty
                // text, which `--strict` accepts as null and `~` it does not
                let empty = span.end.byte_offset() == span.start.byte_offset()
                    && matches!(style, ScalarStyle::Plain);
                let end = span.end.byte_offset().unwrap_or(offset);
                if matches!(style, ScalarStyle::Plain) {
                    raw.plain_ends.push(end);
                } else {
                    raw.tabs_allowed.push((offset, end));
                }
                let block_style = matches!(style, ScalarStyle::Literal | ScalarStyle::Folded);
                let quoted_style =
                    matches!(style, ScalarStyle::SingleQuoted | ScalarStyle::DoubleQuoted);
                let source = text.get(offset..end).unwrap_or("");
                let value = if empty {
                    Cow::Borrowed("")
                } else if quoted_style && (read.yaml11_breaks || source.contains('\\')) {
                    // escapes and NEL, LS and PS are go-yaml's
                    goyaml::quoted(read.original, offset)
                        .map(|q| Cow::Owned(q.value))
                        .map_err(|p| scanner_error(read, p))?
                } else if block_style && (read.yaml11_breaks || source.contains('\t')) {
                    // so are line breaks and tabs in block scalars
                    // after its tag, if it has one, else after what came before
                    let from = if start < offset { start } else { prev_end };
                    // a block scalar with no content starts at its indicator
                    let to = if text
                        .get(offset..)
                        .is_some_and(|t| t.starts_with(['|', '>']))
                    {
                        offset + 1
                    } else {
                        offset
                    };
                    match goyaml::block_indicator(text, from, to) {
                        Some(indicator) => {
                            goyaml::block(read.original, indicator, parent_indent(&raw, &stack))
                                .map(Cow::Owned)
                                .map_err(|p| scanner_error(read, p))?
                        }
                        None => value,
                    }
                } else {
                    value
                };
                let content = if value.contains(BOM_KEPT) {
                    value.replace(BOM_KEPT, "\u{feff}")
                } else {
                    value.into_owned()
                };
                // `: value` with no key: go-yaml (YAML 1.1) wants one in a
                // block mapping, unless `?` says it is empty
                let block_key = matches!(stack.last(), Some(Open::Map(_, None)))
                    && matches!(flows.last(), Some(None));
                if block_key && empty && tag.is_none() && anchor == 0 {
                    let explicit = text[..offset].trim_end().ends_with('?');
                    if !explicit && text[offset..].trim_start().starts_with(':') {
                        let line = raw_line(line, line_shift);
                        return Err(Failure::Parse(ParseError {
                            line,
                            col,
                            message: format!(
                                "line {}: did not find expected key",
                                line.saturating_sub(1)
                            ),
                            line_in_message: false,
                        }));
                    }
                }
                let id = push(
                    &mut raw,
                    RawKind::Scalar {
                        text: content,
                        style,
                        tag,
                    },
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
                    return Err(depth_error(line, line_shift, limits).into());
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
                    return Err(depth_error(line, line_shift, limits).into());
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

/// go-yaml's anchor names (after `&` or `*` at `at`) are ASCII letters,
/// digits, `_` and `-`, and what follows one must end it; the parser
/// underneath takes more.
fn anchor_name(read: &Reading, text: &str, at: usize) -> Result<(), Failure> {
    let rest = text.get(at + 1..).unwrap_or("");
    let name_len = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
        .unwrap_or(rest.len());
    let ends = rest[name_len..].chars().next().is_none_or(|c| {
        is_go_blank_or_break(c) || matches!(c, '?' | ':' | ',' | ']' | '}' | '%' | '@' | '`')
    });
    if name_len > 0 && ends {
        return Ok(());
    }
    Err(scanner_error(
        read,
        goyaml::Problem {
            offset: at + 1 + name_len,
            message: "did not find expected alphabetic or numeric character",
        },
    ))
}

fn is_go_blank_or_break(c: char) -> bool {
    matches!(
        c,
        ' ' | '\t' | '\r' | '\n' | '\u{85}' | '\u{2028}' | '\u{2029}'
    )
}

/// go-yaml's indentation for a block scalar's parent: the column where the
/// enclosing block collection's items start (-1 at the top of a document).
fn parent_indent(raw: &Raw, stack: &[Open]) -> i64 {
    match stack.last() {
        Some(Open::Map(id, _) | Open::Seq(id)) => i64::from(raw.nodes[*id].col) - 1,
        None => -1,
    }
}

/// A problem go-yaml's scanner finds at an offset of the original text: its
/// message names the 1-based line.
fn scanner_error(read: &Reading, p: goyaml::Problem) -> Failure {
    let (line, col) = line_col(read.original, p.offset);
    Failure::Parse(ParseError {
        line: raw_line(line, read.line_shift),
        col,
        message: p.message.to_string(),
        line_in_message: true,
    })
}

/// Where go-yaml's scanner is when it gives up on a key without `:` that
/// starts at `offset`: at the first token after the key's line and the
/// lines that continue it (more indented than the key; a plain scalar goes
/// on across them) and blank lines; at a comment (a token to ytt's go-yaml)
/// or the end of the input. Its 1-based line.
fn next_token_line(text: &str, offset: usize) -> u32 {
    let line_start = text[..offset].rfind('\n').map_or(0, |p| p + 1);
    let key_indent = offset - line_start;
    let mut at = text[offset..]
        .find('\n')
        .map_or(text.len(), |p| offset + p + 1);
    while at < text.len() {
        let line_end = text[at..].find('\n').map_or(text.len(), |p| at + p);
        let line = &text[at..line_end];
        let content = line.trim_start_matches([' ', '\t', '\r']);
        let indent = line.len() - line.trim_start_matches(' ').len();
        let continues = indent > key_indent && !content.starts_with('#');
        if !content.is_empty() && !continues {
            break;
        }
        at = (line_end + 1).min(text.len());
    }
    // at the end of the input, go-yaml's scanner moves to a line of its own
    let (line, col) = line_col(text, at);
    if at == text.len() && col > 1 {
        line + 1
    } else {
        line
    }
}

/// The parser's error, worded and placed as go-yaml's.
fn go_error(e: &ScanError, read: &Reading, text: &str, stack: &[Open], raw: &Raw) -> Failure {
    let (line_shift, limits) = (read.line_shift, read.limits);
    let marker_line = e.marker().line() as u32;
    let line = raw_line(marker_line, line_shift);
    let col = e.marker().col() as u32 + 1;
    let offset = e.marker().byte_offset().unwrap_or(0).min(text.len());
    let scanner = |line: u32, message: String| {
        Failure::Parse(ParseError {
            line,
            col,
            message,
            line_in_message: true,
        })
    };
    // go-yaml's parser errors (not its scanner's) print the problem's
    // 0-based line, or none when it is 0
    let parser = |line: u32, problem: &str| {
        let go_line = line.saturating_sub(1);
        Failure::Parse(ParseError {
            line,
            col,
            message: if go_line == 0 {
                problem.to_string()
            } else {
                format!("line {go_line}: {problem}")
            },
            line_in_message: false,
        })
    };
    match e.kind() {
        ErrorKind::UnknownQuotedScalarEscape
        | ErrorKind::InvalidQuotedScalarHexEscape
        | ErrorKind::InvalidLowSurrogateHexEscape
        | ErrorKind::InvalidLowSurrogate => {
            // the marker is the opening quote: go-yaml's reading of the
            // scalar says what is wrong, and where (or that nothing is, but
            // for the `\'` it knows)
            match goyaml::quoted(read.original, offset) {
                Err(p) => return scanner_error(read, p),
                Ok(q) if !q.apostrophes.is_empty() => return Failure::Apostrophes(q.apostrophes),
                Ok(_) => {}
            }
        }
        _ => {}
    }
    if matches!(e.kind(), ErrorKind::UnknownAnchor) {
        // a name go-yaml would not have read that far
        if let Err(f) = anchor_name(read, text, offset) {
            return f;
        }
    }
    let info = e.info();
    match info.as_str() {
        "recursion limit exceeded" => scanner(
            line,
            format!(
                "exceeded max depth of {} nested collections",
                limits.max_depth
            ),
        ),
        // go-yaml's scanner words both as one problem
        m if m.starts_with("unexpected character") || m.starts_with("tabs disallowed") => {
            scanner(line, "found character that cannot start any token".into())
        }
        // an unclosed flow collection: go-yaml's parser fails at the end of
        // the input, and prints that 0-based line (or, when it is 0, the
        // bracket's; when both are 0, none)
        m if m.starts_with("unclosed bracket") => {
            let close = if m.contains('{') { '}' } else { ']' };
            // go-yaml's scanner ends the last line at the end of the input
            // (a line more when it has no line feed)
            let eof_line = (text.matches('\n').count() + usize::from(!text.ends_with('\n'))) as u32
                - line_shift;
            let go_line = if eof_line != 0 {
                eof_line
            } else {
                line.saturating_sub(1)
            };
            // an entry was due (after the bracket or a comma): go-yaml's
            // parser looks for one at the end of the input
            let entry_due = text
                .lines()
                .rev()
                .map(str::trim)
                .find(|l| !l.is_empty() && !l.starts_with('#'))
                .is_some_and(|l| l.ends_with(['[', '{', ',']));
            let what = if entry_due {
                "did not find expected node content".to_string()
            } else {
                format!("did not find expected ',' or '{close}'")
            };
            Failure::Parse(ParseError {
                line,
                col,
                message: if go_line == 0 {
                    what
                } else {
                    format!("line {go_line}: {what}")
                },
                line_in_message: false,
            })
        }
        // `%` inside a document starts a directive to go-yaml, whose name
        // must follow
        m if m.starts_with("missing explicit document end marker before directive")
            && !text[offset..]
                .chars()
                .nth(1)
                .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') =>
        {
            scanner(line, "could not find expected directive name".into())
        }
        // a quoted scalar without its closing quote: go-yaml's scanner
        // finds the end of the input
        m if m.starts_with("unclosed quote") => scanner(
            raw_line(line_col(text, text.len()).0, line_shift),
            "found unexpected end of stream".into(),
        ),
        // a bracket where the block context has none open: go-yaml's parser
        // expects what the collection needs next
        m if m.starts_with("misplaced bracket")
            && text[..offset]
                .trim_end_matches([' ', '\t'])
                .ends_with([':', '-']) =>
        {
            parser(line, "did not find expected node content")
        }
        m if m.starts_with("misplaced bracket") => match stack.last() {
            Some(Open::Map(..)) => parser(line, "did not find expected key"),
            Some(Open::Seq(_)) => parser(line, "did not find expected '-' indicator"),
            None => parser(line, "did not find expected node content"),
        },
        // a block scalar indented with a tab: go-yaml names the tab's line,
        // the first of the content
        m if m.starts_with("a block scalar content cannot start with a tab") => scanner(
            line + 1,
            "found a tab character where an indentation space is expected".into(),
        ),
        // a key without `:`: go-yaml's scanner finds it when it moves on to
        // the next token on a later line, and names that line
        m if m.starts_with("simple key expected ':'") => scanner(
            raw_line(next_token_line(text, offset), line_shift),
            "could not find expected ':'".into(),
        ),
        // more after a quoted scalar: a `:` is a key that spans lines to
        // go-yaml's scanner; else its parser expects what the collection
        // needs next
        m if m.starts_with("invalid trailing content after") => {
            let rest = text[offset..].trim_start_matches([' ', '\t']);
            if rest.starts_with(':') {
                return scanner(
                    line,
                    "mapping values are not allowed in this context".into(),
                );
            }
            match stack.last() {
                // a quoted key (go-yaml's required simple key): the scanner
                // gives up when it moves on to a later line
                Some(Open::Map(_, None)) => scanner(
                    raw_line(next_token_line(text, offset), line_shift),
                    "could not find expected ':'".into(),
                ),
                Some(Open::Map(..)) => parser(line, "did not find expected key"),
                Some(Open::Seq(seq)) => {
                    // a sequence as a map's value at the key's column has
                    // no indentation of its own: the map expects a key
                    let indentless = stack.len() >= 2
                        && matches!(stack[stack.len() - 2], Open::Map(map, _)
                            if raw.nodes[map].col == raw.nodes[*seq].col);
                    if indentless {
                        parser(line, "did not find expected key")
                    } else {
                        parser(line, "did not find expected '-' indicator")
                    }
                }
                None => parser(line, "did not find expected <document start>"),
            }
        }
        // go-yaml's parser errors print the problem's 0-based line
        m if m.starts_with("did not find expected") => parser(line, m),
        m if m.starts_with("while parsing ") => {
            let problem = m.split_once(", ").map(|(_, p)| p).unwrap_or(m);
            Failure::Parse(ParseError {
                line,
                col,
                message: format!("line {}: {problem}", line.saturating_sub(1)),
                line_in_message: false,
            })
        }
        // a scanner error: go-yaml prints the problem without its context
        m if m.starts_with("while scanning ") => {
            let problem = m.split_once(", ").map(|(_, p)| p).unwrap_or(m);
            scanner(line, problem.to_string())
        }
        m => scanner(line, m.to_string()),
    }
}
