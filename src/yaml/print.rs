//! Writes values exactly as ytt prints them.
//!
//! ytt marshals documents with go-yaml v2, whose emitter is a port of libyaml's.
//! To be byte-for-byte compatible this module reproduces that emitter for the
//! events ytt produces: block mappings and sequences (sequences inside mappings
//! are not indented), `{}`/`[]` for empty collections, the scalar style choice
//! (plain, single-quoted, double-quoted, literal `|`), every scalar on one line
//! whatever its length (ytt sets no width), and Go's shortest float formatting.

use super::node::{DocSet, Document, Value};
use super::scalar;

/// Prints the non-empty documents of a set, separated by `---` (ytt's output).
pub fn print_docset(ds: &DocSet) -> String {
    print_docs(&ds.docs)
}

/// [`print_docset`] of a slice of documents.
pub fn print_docs(docs: &[Document]) -> String {
    let mut out = String::new();
    let mut first = true;
    for doc in docs {
        if doc.injected || doc.is_empty() {
            continue;
        }
        if !first {
            out.push_str("---\n");
        }
        first = false;
        out.push_str(&print_value(&doc.value));
    }
    out
}

/// Prints one document (even when empty).
pub fn print_document(doc: &Document) -> String {
    print_value(&doc.value)
}

/// Prints one value as a whole YAML document.
pub fn print_value(v: &Value) -> String {
    let mut e = Emitter::new();
    e.emit_node(v, Ctx::ROOT);
    // document end (implicit): finish the last line
    e.write_indent();
    e.out
}

pub use super::float::format_float;

/// How a scalar value is written (before the emitter's own adjustments).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Style {
    Plain,
    Single,
    Double,
    Literal,
}

#[derive(Clone, Copy)]
struct Ctx {
    root: bool,
    mapping: bool,
    simple_key: bool,
}

impl Ctx {
    const ROOT: Ctx = Ctx {
        root: true,
        mapping: false,
        simple_key: false,
    };
    const SEQ_ITEM: Ctx = Ctx {
        root: false,
        mapping: false,
        simple_key: false,
    };
    const MAP_KEY: Ctx = Ctx {
        root: false,
        mapping: true,
        simple_key: true,
    };
    const MAP_VALUE: Ctx = Ctx {
        root: false,
        mapping: true,
        simple_key: false,
    };
}

#[derive(Debug, PartialEq)]
struct Analysis {
    multiline: bool,
    flow_plain: bool,
    block_plain: bool,
    single_quoted: bool,
    block: bool,
}

struct Emitter {
    out: String,
    column: usize,
    whitespace: bool,
    indention: bool,
    indent: i32,
    indents: Vec<i32>,
    flow_level: usize,
    mapping_context: bool,
    simple_key_context: bool,
}

const BEST_INDENT: i32 = 2;

impl Emitter {
    fn new() -> Emitter {
        Emitter {
            out: String::new(),
            column: 0,
            whitespace: true,
            indention: true,
            indent: -1,
            indents: Vec::new(),
            flow_level: 0,
            mapping_context: false,
            simple_key_context: false,
        }
    }

    fn put(&mut self, c: char) {
        self.out.push(c);
        self.column += 1;
    }

    fn put_break(&mut self) {
        self.out.push('\n');
        self.column = 0;
    }

    fn write_str(&mut self, s: &str) {
        self.out.push_str(s);
        self.column += s.chars().count();
    }

    fn increase_indent(&mut self, flow: bool, indentless: bool) {
        self.indents.push(self.indent);
        if self.indent < 0 {
            self.indent = if flow { BEST_INDENT } else { 0 };
        } else if !indentless {
            self.indent += BEST_INDENT;
        }
    }

    fn pop_indent(&mut self) {
        self.indent = self.indents.pop().unwrap_or(-1);
    }

    fn write_indent(&mut self) {
        let indent = self.indent.max(0) as usize;
        if !self.indention || self.column > indent || (self.column == indent && !self.whitespace) {
            self.put_break();
        }
        while self.column < indent {
            self.put(' ');
        }
        self.whitespace = true;
        self.indention = true;
    }

    fn write_indicator(&mut self, ind: &str, need_ws: bool, is_ws: bool, is_indention: bool) {
        if need_ws && !self.whitespace {
            self.put(' ');
        }
        self.write_str(ind);
        self.whitespace = is_ws;
        self.indention = self.indention && is_indention;
    }

    fn emit_node(&mut self, v: &Value, ctx: Ctx) {
        self.mapping_context = ctx.mapping;
        self.simple_key_context = ctx.simple_key;
        let _ = ctx.root;
        match v {
            Value::Map(m) => {
                if self.flow_level > 0 || m.items.is_empty() {
                    self.write_indicator("{", true, true, false);
                    self.increase_indent(true, false);
                    self.flow_level += 1;
                    // only empty maps are written in flow style
                    self.flow_level -= 1;
                    self.pop_indent();
                    self.write_indicator("}", false, false, false);
                    return;
                }
                self.increase_indent(false, false);
                for item in &m.items {
                    self.write_indent();
                    let (text, style) = scalar_text(&item.key);
                    let analysis = analyze(&text);
                    if is_simple_key(&text, &analysis) {
                        self.emit_scalar(&text, style, &analysis, Ctx::MAP_KEY);
                        self.write_indicator(":", false, false, false);
                    } else {
                        self.write_indicator("?", true, false, true);
                        self.emit_scalar(
                            &text,
                            style,
                            &analysis,
                            Ctx {
                                root: false,
                                mapping: true,
                                simple_key: false,
                            },
                        );
                        self.write_indent();
                        self.write_indicator(":", true, false, true);
                    }
                    self.emit_node(&item.value, Ctx::MAP_VALUE);
                }
                self.pop_indent();
            }
            Value::Array(a) => {
                if self.flow_level > 0 || a.items.is_empty() {
                    self.write_indicator("[", true, true, false);
                    self.increase_indent(true, false);
                    self.pop_indent();
                    self.write_indicator("]", false, false, false);
                    return;
                }
                let indentless = self.mapping_context && !self.indention;
                self.increase_indent(false, indentless);
                for item in &a.items {
                    self.write_indent();
                    self.write_indicator("-", true, false, true);
                    self.emit_node(&item.value, Ctx::SEQ_ITEM);
                }
                self.pop_indent();
            }
            Value::Binary(_) => {
                // go-yaml: bytes that are not UTF-8 are tagged and base64'd;
                // base64 of over 70 characters is a literal block of lines
                let (text, _) = scalar_text(v);
                self.write_indicator("!!binary", true, false, false);
                let style = if text.contains('\n') {
                    Style::Literal
                } else {
                    Style::Plain
                };
                let analysis = analyze(&text);
                self.emit_scalar(&text, style, &analysis, ctx);
            }
            scalar => {
                let (text, style) = scalar_text(scalar);
                let analysis = analyze(&text);
                self.emit_scalar(&text, style, &analysis, ctx);
            }
        }
    }

    fn emit_scalar(&mut self, text: &str, requested: Style, a: &Analysis, ctx: Ctx) {
        self.mapping_context = ctx.mapping;
        self.simple_key_context = ctx.simple_key;
        let style = self.select_style(text, requested, a);
        self.increase_indent(true, false);
        match style {
            Style::Plain => self.write_plain(text),
            Style::Single => self.write_single(text),
            Style::Double => self.write_double(text),
            Style::Literal => self.write_literal(text),
        }
        self.pop_indent();
    }

    fn select_style(&self, text: &str, requested: Style, a: &Analysis) -> Style {
        let mut style = requested;
        if self.simple_key_context && a.multiline {
            style = Style::Double;
        }
        if style == Style::Plain {
            if (self.flow_level > 0 && !a.flow_plain) || (self.flow_level == 0 && !a.block_plain) {
                style = Style::Single;
            }
            if text.is_empty() && (self.flow_level > 0 || self.simple_key_context) {
                style = Style::Single;
            }
        }
        if style == Style::Single && !a.single_quoted {
            style = Style::Double;
        }
        if style == Style::Literal && (!a.block || self.flow_level > 0 || self.simple_key_context) {
            style = Style::Double;
        }
        style
    }

    /// ytt's go-yaml emitter has no line width: spaces are never turned into
    /// line folds, so a scalar stays on one line whatever its length.
    fn write_plain(&mut self, value: &str) {
        if !self.whitespace {
            self.put(' ');
        }
        // most scalars are one line of ASCII: written whole
        if value.is_ascii() && !value.bytes().any(|b| b == b'\n' || b == b'\r') {
            self.write_str(value);
            self.whitespace = false;
            self.indention = false;
            return;
        }
        let mut breaks = false;
        for c in value.chars() {
            if is_break(c) {
                if !breaks && c == '\n' {
                    self.put_break();
                }
                self.write_break(c);
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                self.put(c);
                self.indention = false;
                breaks = false;
            }
        }
        self.whitespace = false;
        self.indention = false;
    }

    fn write_single(&mut self, value: &str) {
        self.write_indicator("'", true, false, false);
        let mut breaks = false;
        for c in value.chars() {
            if is_break(c) {
                if !breaks && c == '\n' {
                    self.put_break();
                }
                self.write_break(c);
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                if c == '\'' {
                    self.put('\'');
                }
                self.put(c);
                self.indention = false;
                breaks = false;
            }
        }
        self.write_indicator("'", false, false, false);
        self.whitespace = false;
        self.indention = false;
    }

    fn write_double(&mut self, value: &str) {
        self.write_indicator("\"", true, false, false);
        // go-yaml's emitter looks for a byte order mark at the start of the
        // value for every character (its `is_bom` ignores the index): after
        // one, ytt escapes them all
        let bom_first = value.starts_with('\u{feff}');
        for c in value.chars() {
            if bom_first
                || !is_printable(c)
                || c == '\u{feff}'
                || is_break(c)
                || c == '"'
                || c == '\\'
            {
                self.put('\\');
                match c {
                    '\0' => self.put('0'),
                    '\x07' => self.put('a'),
                    '\x08' => self.put('b'),
                    '\t' => self.put('t'),
                    '\n' => self.put('n'),
                    '\x0b' => self.put('v'),
                    '\x0c' => self.put('f'),
                    '\r' => self.put('r'),
                    '\x1b' => self.put('e'),
                    '"' => self.put('"'),
                    '\\' => self.put('\\'),
                    '\u{85}' => self.put('N'),
                    '\u{a0}' => self.put('_'),
                    '\u{2028}' => self.put('L'),
                    '\u{2029}' => self.put('P'),
                    _ => {
                        let v = c as u32;
                        let (prefix, width) = if v <= 0xFF {
                            ('x', 2)
                        } else if v <= 0xFFFF {
                            ('u', 4)
                        } else {
                            ('U', 8)
                        };
                        self.put(prefix);
                        let hex = format!("{:0width$X}", v, width = width);
                        self.write_str(&hex);
                    }
                }
            } else {
                self.put(c);
            }
        }
        self.write_indicator("\"", false, false, false);
        self.whitespace = false;
        self.indention = false;
    }

    fn write_literal(&mut self, value: &str) {
        self.write_indicator("|", true, false, false);
        // block scalar hints
        let chars: Vec<char> = value.chars().collect();
        if chars
            .first()
            .map(|&c| c == ' ' || is_break(c))
            .unwrap_or(false)
        {
            let hint = char::from(b'0' + BEST_INDENT as u8);
            self.write_indicator(&hint.to_string(), false, false, false);
        }
        let chomp = if chars.is_empty() {
            Some('-')
        } else {
            let last = chars[chars.len() - 1];
            if !is_break(last) {
                Some('-')
            } else if chars.len() == 1 || is_break(chars[chars.len() - 2]) {
                Some('+')
            } else {
                None
            }
        };
        if let Some(c) = chomp {
            self.write_indicator(&c.to_string(), false, false, false);
        }
        self.put_break();
        self.indention = true;
        self.whitespace = true;
        let mut breaks = true;
        for c in chars {
            if is_break(c) {
                self.write_break(c);
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                self.put(c);
                self.indention = false;
                breaks = false;
            }
        }
    }

    fn write_break(&mut self, c: char) {
        if c == '\n' {
            self.put_break();
        } else {
            self.out.push(c);
            self.column = 0;
        }
    }
}

fn is_break(c: char) -> bool {
    matches!(c, '\r' | '\n' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

/// libyaml's `is_printable` (4-byte UTF-8 characters count as not printable).
fn is_printable(c: char) -> bool {
    let v = c as u32;
    v == 0x0A
        || (0x20..=0x7E).contains(&v)
        || (0xA0..=0xD7FF).contains(&v)
        || ((0xE000..=0xFFFD).contains(&v) && v != 0xFEFF)
}

fn analyze(value: &str) -> Analysis {
    if value.is_empty() {
        return Analysis {
            multiline: false,
            flow_plain: false,
            block_plain: true,
            single_quoted: true,
            block: false,
        };
    }
    // most keys and values are words: a letter, digit or `_` first, then
    // those, `-`, `.` and `/` (no indicator, space, break or special
    // character), which every style may write
    let bytes = value.as_bytes();
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    if word(bytes[0])
        && bytes[1..]
            .iter()
            .all(|&b| word(b) || matches!(b, b'-' | b'.' | b'/'))
    {
        return Analysis {
            multiline: false,
            flow_plain: true,
            block_plain: true,
            single_quoted: true,
            block: true,
        };
    }
    analyze_chars(value)
}

/// libyaml's `yaml_emitter_analyze_scalar`, character by character.
fn analyze_chars(value: &str) -> Analysis {
    let mut block_indicators = false;
    let mut flow_indicators = false;
    let mut line_breaks = false;
    let mut special = false;
    let mut leading_space = false;
    let mut leading_break = false;
    let mut trailing_space = false;
    let mut trailing_break = false;
    let mut break_space = false;
    let mut space_break = false;
    let mut previous_space = false;
    let mut previous_break = false;

    if value.starts_with("---") || value.starts_with("...") {
        block_indicators = true;
        flow_indicators = true;
    }
    let mut preceded_by_ws = true;
    // one pass, looking one character ahead (no vector of the characters:
    // this runs for every scalar printed)
    let mut chars = value.chars().peekable();
    let mut i = 0usize;
    while let Some(c) = chars.next() {
        let next = chars.peek().copied();
        let last = next.is_none();
        let followed_by_ws = matches!(next, None | Some(' ' | '\t'));
        if i == 0 {
            match c {
                '#' | ',' | '[' | ']' | '{' | '}' | '&' | '*' | '!' | '|' | '>' | '\'' | '"'
                | '%' | '@' | '`' => {
                    flow_indicators = true;
                    block_indicators = true;
                }
                '?' | ':' => {
                    flow_indicators = true;
                    if followed_by_ws {
                        block_indicators = true;
                    }
                }
                '-' if followed_by_ws => {
                    flow_indicators = true;
                    block_indicators = true;
                }
                _ => {}
            }
        } else {
            match c {
                ',' | '?' | '[' | ']' | '{' | '}' => flow_indicators = true,
                ':' => {
                    flow_indicators = true;
                    if followed_by_ws {
                        block_indicators = true;
                    }
                }
                '#' if preceded_by_ws => {
                    flow_indicators = true;
                    block_indicators = true;
                }
                _ => {}
            }
        }
        if !is_printable(c) {
            special = true;
        }
        if c == ' ' {
            if i == 0 {
                leading_space = true;
            }
            if last {
                trailing_space = true;
            }
            if previous_break {
                break_space = true;
            }
            previous_space = true;
            previous_break = false;
        } else if is_break(c) {
            line_breaks = true;
            if i == 0 {
                leading_break = true;
            }
            if last {
                trailing_break = true;
            }
            if previous_space {
                space_break = true;
            }
            previous_space = false;
            previous_break = true;
        } else {
            previous_space = false;
            previous_break = false;
        }
        preceded_by_ws = matches!(c, ' ' | '\t') || is_break(c);
        i += 1;
    }
    let mut a = Analysis {
        multiline: line_breaks,
        flow_plain: true,
        block_plain: true,
        single_quoted: true,
        block: true,
    };
    if leading_space || leading_break || trailing_space || trailing_break {
        a.flow_plain = false;
        a.block_plain = false;
    }
    if trailing_space {
        a.block = false;
    }
    if break_space {
        a.flow_plain = false;
        a.block_plain = false;
        a.single_quoted = false;
    }
    if space_break || special {
        a.flow_plain = false;
        a.block_plain = false;
        a.single_quoted = false;
        a.block = false;
    }
    if line_breaks {
        a.flow_plain = false;
        a.block_plain = false;
    }
    if flow_indicators {
        a.flow_plain = false;
    }
    if block_indicators {
        a.block_plain = false;
    }
    a
}

fn is_simple_key(text: &str, a: &Analysis) -> bool {
    !a.multiline && text.len() <= 128
}

/// go-yaml's `encodeBase64`: standard base64, in lines of 70 characters
/// each ending in a newline when there is more than one line's worth.
fn go_base64(bytes: &[u8]) -> String {
    use base64::Engine;
    const LINE: usize = 70;
    let enc = base64::engine::general_purpose::STANDARD.encode(bytes);
    // go-yaml breaks lines when there is more than one line's worth
    if enc.len() < LINE {
        return enc;
    }
    let mut out = String::with_capacity(enc.len() + enc.len() / LINE + 1);
    for chunk in enc.as_bytes().chunks(LINE) {
        out.push_str(std::str::from_utf8(chunk).expect("base64 is ASCII"));
        out.push('\n');
    }
    out
}

/// The text and requested style go-yaml's encoder gives a scalar.
/// A scalar's text and the style it asks for; a string's text is borrowed
/// (this runs for every key and scalar printed).
fn scalar_text(v: &Value) -> (std::borrow::Cow<'_, str>, Style) {
    use std::borrow::Cow;
    match v {
        Value::Null => (Cow::Borrowed("null"), Style::Plain),
        Value::Bool(true) => (Cow::Borrowed("true"), Style::Plain),
        Value::Bool(false) => (Cow::Borrowed("false"), Style::Plain),
        Value::Int(i) => (Cow::Owned(i.to_string()), Style::Plain),
        Value::UInt(u) => (Cow::Owned(u.to_string()), Style::Plain),
        Value::Float(f) => (Cow::Owned(format_float(*f)), Style::Plain),
        Value::Str(s) => {
            let style = if s.contains('\n') {
                Style::Literal
            } else if !scalar::string_needs_quotes(s) {
                Style::Plain
            } else {
                Style::Double
            };
            (Cow::Borrowed(&**s), style)
        }
        Value::Binary(b) => (Cow::Owned(go_base64(b)), Style::Plain),
        // collections are never scalars; callers handle them first
        Value::Map(_) | Value::Array(_) => (Cow::Borrowed(""), Style::Plain),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::parse::parse;
    use crate::yaml::pos::SourceFile;

    fn roundtrip(text: &str) -> String {
        let ds = parse(&SourceFile::new("t.yml", text), false).unwrap();
        print_docset(&ds)
    }

    /// The shortcut for words gives what the full analysis gives.
    #[test]
    fn words_analyze_as_every_character_would() {
        let alphabet = ['a', 'Z', '0', '9', '_', '-', '.', '/'];
        let mut checked = 0;
        for a in alphabet {
            for b in alphabet {
                for c in alphabet {
                    for w in [format!("{a}"), format!("{a}{b}"), format!("{a}{b}{c}")] {
                        assert_eq!(analyze(&w), analyze_chars(&w), "{w:?}");
                        checked += 1;
                    }
                }
            }
        }
        assert_eq!(checked, 3 * 8 * 8 * 8);
        for w in ["service-name", "v1.2.3", "a/b", "x_y", "8080"] {
            assert_eq!(analyze(w), analyze_chars(w), "{w:?}");
        }
    }

    #[test]
    fn go_float_formatting() {
        assert_eq!(format_float(1.0), "1");
        assert_eq!(format_float(1.5), "1.5");
        assert_eq!(format_float(0.0001), "0.0001");
        assert_eq!(format_float(0.00001), "1e-05");
        assert_eq!(format_float(123456789.0), "1.23456789e+08");
        assert_eq!(format_float(100000.0), "100000");
        assert_eq!(format_float(1234567.0), "1.234567e+06");
        assert_eq!(format_float(1e21), "1e+21");
        assert_eq!(format_float(-2.5), "-2.5");
        assert_eq!(format_float(0.30596305251726724), "0.30596305251726724");
        assert_eq!(format_float(f64::INFINITY), ".inf");
    }

    #[test]
    fn block_styles() {
        assert_eq!(
            roundtrip(
                "a: 1\nb:\n  c: [1, 2]\n  d: []\n  e: {}\nf:\n- x: 1\n  z: 2\n- - 3\n  - 4\n"
            ),
            "a: 1\nb:\n  c:\n  - 1\n  - 2\n  d: []\n  e: {}\nf:\n- x: 1\n  z: 2\n- - 3\n  - 4\n"
        );
    }

    #[test]
    fn string_quoting() {
        assert_eq!(
            roundtrip("a: \"true\"\nb: \"1\"\nc: \"\"\nd: ' x'\ne: 'a: b'\nf: \"it's\"\ng: \"yes\"\nh: null\n"),
            "a: \"true\"\nb: \"1\"\nc: \"\"\nd: ' x'\ne: 'a: b'\nf: it's\ng: \"yes\"\nh: null\n"
        );
        assert_eq!(roundtrip("a: \"tab\\there\"\n"), "a: \"tab\\there\"\n");
        assert_eq!(roundtrip("a: \"🎵\"\n"), "a: \"\\U0001F3B5\"\n");
        assert_eq!(
            roundtrip("- \"2001-01-01\"\n- \"1:20\"\n"),
            "- \"2001-01-01\"\n- \"1:20\"\n"
        );
    }

    #[test]
    fn multiline_strings() {
        assert_eq!(roundtrip("a: |\n  x\n  y\n"), "a: |\n  x\n  y\n");
        assert_eq!(roundtrip("a: \"x\\ny\"\n"), "a: |-\n  x\n  y\n");
        assert_eq!(roundtrip("a: \"x\\n\\n\"\n"), "a: |+\n  x\n\n");
        assert_eq!(roundtrip("a: \" x\\ny\"\n"), "a: |2-\n   x\n  y\n");
        assert_eq!(roundtrip("a: \"x \\ny\"\n"), "a: \"x \\ny\"\n");
    }

    /// A string of `len` characters: `unit` repeated, cut to length.
    fn long(unit: &str, len: usize) -> String {
        unit.chars().cycle().take(len).collect()
    }

    #[test]
    fn long_scalars_stay_on_one_line_in_every_style() {
        for len in [100, 500, 5000] {
            // plain, single-quoted (leading space), double-quoted (escapes)
            let plain = long("word ", len).trim_end().to_string() + "x";
            let single = format!(" {}", long("quote me ", len));
            let double = format!("cat \u{1F63E} {}", long("a\tb ", len));
            for (text, expected) in [
                (plain.clone(), plain.clone()),
                (single.clone(), format!("'{single}'")),
                (
                    double.clone(),
                    format!(
                        "\"{}\"",
                        double
                            .replace('\t', "\\t")
                            .replace('\u{1F63E}', "\\U0001F63E")
                    ),
                ),
            ] {
                let out = print_value(&Value::str(&text));
                assert_eq!(out, format!("{expected}\n"), "value of {len} chars");
                let mut m = super::super::node::Map::default();
                m.items.push(super::super::node::MapItem {
                    key: Value::str("k"),
                    value: Value::str(&text),
                    ..Default::default()
                });
                let out = print_value(&Value::Map(crate::yaml::Shared::new(m)));
                assert_eq!(out, format!("k: {expected}\n"), "map value of {len} chars");
            }
        }
    }

    #[test]
    fn long_keys_stay_on_one_line() {
        // keys up to 128 bytes are simple keys; longer ones take go-yaml's
        // `? key` form, still on one line
        for len in [100, 500, 5000] {
            let key = long("key part ", len).trim_end().to_string() + "k";
            let mut m = super::super::node::Map::default();
            m.items.push(super::super::node::MapItem {
                key: Value::str(&key),
                value: Value::Int(1),
                ..Default::default()
            });
            let out = print_value(&Value::Map(crate::yaml::Shared::new(m)));
            let expected = if key.len() <= 128 {
                format!("{key}: 1\n")
            } else {
                format!("? {key}\n: 1\n")
            };
            assert_eq!(out, expected, "key of {len} chars");
        }
    }

    #[test]
    fn documents_and_scalars() {
        assert_eq!(roundtrip("--- 1\n--- {}\n--- x\n"), "1\n---\nx\n");
        assert_eq!(roundtrip("n: 1\n"), "false: 1\n");
    }
}
