//! Where go-yaml (the YAML 1.1 reader ytt vendors) reads text differently
//! from the parser underneath (YAML 1.2), so that values and errors are
//! ytt's:
//!
//! * its reader refuses characters YAML 1.1 does not allow (C0 and C1
//!   controls, DEL, U+FFFE/U+FFFF) anywhere, comments included, before the
//!   scanner sees them ([`disallowed_character`]);
//! * NEL, LS and PS (U+0085, U+2028, U+2029) are line breaks, also inside
//!   quoted and block scalars, where NEL reads as `\n` and LS and PS stay
//!   ([`with_line_breaks`], then [`quoted`] and [`block`] read such scalars
//!   again from the original text);
//! * double quotes know `\'` and not `\/`, and `\u` escapes of surrogates
//!   are errors, not JSON pairs;
//! * a tab where a block scalar's indentation is still to be found is an
//!   error.
//!
//! The two readers here ([`quoted`], [`block`]) follow go-yaml's scanner
//! rules for a scalar the parser underneath has already found and checked:
//! they decide the value, not the structure.

/// A problem go-yaml's scanner reports, at a byte offset of the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Problem {
    pub offset: usize,
    pub message: &'static str,
}

/// go-yaml's reader decodes its input in chunks of this many bytes; a
/// character it refuses is found when the scanner first needs its chunk.
pub(super) const READER_CHUNK: usize = 512;

/// The first character go-yaml's reader refuses ("control characters are
/// not allowed"): YAML 1.1 allows tab, line feed, carriage return, printable
/// ASCII, NEL, and U+00A0 upwards except surrogates, U+FFFE and U+FFFF.
pub(super) fn disallowed_character(text: &str) -> Option<usize> {
    text.char_indices()
        .find(|(_, c)| {
            !matches!(c,
                '\t' | '\n' | '\r' | '\u{20}'..='\u{7e}' | '\u{85}'
                | '\u{a0}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}' | '\u{10000}'..)
        })
        .map(|(at, _)| at)
}

/// YAML 1.1's line breaks besides `\r` and `\n`.
fn is_unicode_break(c: char) -> bool {
    matches!(c, '\u{85}' | '\u{2028}' | '\u{2029}')
}

/// Whether `text` holds a line break the parser underneath does not know.
pub(super) fn has_unicode_breaks(text: &str) -> bool {
    text.contains(is_unicode_break)
}

/// `text` with NEL, LS and PS as `\n`, padded with spaces before it so that
/// every byte offset stays where it was (trailing spaces are insignificant
/// where a line break may stand; the scalars whose content they would
/// change are read again by [`quoted`] and [`block`]).
pub(super) fn with_line_breaks(text: &str) -> Option<String> {
    if !has_unicode_breaks(text) {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if is_unicode_break(c) {
            for _ in 1..c.len_utf8() {
                out.push(' ');
            }
            out.push('\n');
        } else {
            out.push(c);
        }
    }
    Some(out)
}

fn is_break(c: char) -> bool {
    matches!(c, '\r' | '\n') || is_unicode_break(c)
}

fn is_blank(c: char) -> bool {
    c == ' ' || c == '\t'
}

/// A reading position: a byte offset and go-yaml's column (in characters
/// since the last line break).
struct Cursor<'a> {
    text: &'a str,
    at: usize,
    column: usize,
}

impl<'a> Cursor<'a> {
    fn new(text: &'a str, at: usize) -> Self {
        let line_start = text[..at]
            .rfind(|c: char| is_break(c))
            .map(|p| p + text[p..].chars().next().map_or(1, char::len_utf8))
            .unwrap_or(0);
        Cursor {
            text,
            at,
            column: text[line_start..at].chars().count(),
        }
    }

    fn peek(&self) -> Option<char> {
        self.text[self.at..].chars().next()
    }

    fn peek_nth(&self, n: usize) -> Option<char> {
        self.text[self.at..].chars().nth(n)
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.at += c.len_utf8();
        self.column += 1;
        Some(c)
    }

    /// Consumes a line break and appends what go-yaml makes of it: `\r\n`,
    /// `\r`, `\n` and NEL are `\n`; LS and PS stay themselves.
    fn read_break(&mut self, into: &mut String) {
        match self.peek() {
            Some('\r') if self.peek_nth(1) == Some('\n') => {
                self.at += 2;
                into.push('\n');
            }
            Some(c @ ('\u{2028}' | '\u{2029}')) => {
                self.at += c.len_utf8();
                into.push(c);
            }
            Some(c) if is_break(c) => {
                self.at += c.len_utf8();
                into.push('\n');
            }
            _ => return,
        }
        self.column = 0;
    }

    fn problem(&self, message: &'static str) -> Problem {
        Problem {
            offset: self.at,
            message,
        }
    }
}

/// A quoted scalar as go-yaml reads it.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Quoted {
    pub value: String,
    /// Where `\'` escapes stand (double quotes only): go-yaml knows them,
    /// the parser underneath does not.
    pub apostrophes: Vec<usize>,
}

/// Reads the quoted scalar whose opening quote is at `open`.
pub(super) fn quoted(text: &str, open: usize) -> Result<Quoted, Problem> {
    let single = text[open..].starts_with('\'');
    let mut cur = Cursor::new(text, open);
    cur.bump();
    let mut value = String::new();
    let mut apostrophes = Vec::new();
    loop {
        let mut leading_blanks = false;
        // a run of characters other than blanks and breaks
        while let Some(c) = cur.peek() {
            if is_blank(c) || is_break(c) {
                break;
            }
            match c {
                '\'' if single && cur.peek_nth(1) == Some('\'') => {
                    value.push('\'');
                    cur.bump();
                    cur.bump();
                }
                '\'' if single => break,
                '"' if !single => break,
                '\\' if !single && cur.peek_nth(1).is_some_and(is_break) => {
                    // an escaped line break joins the lines without a blank
                    cur.bump();
                    cur.read_break(&mut String::new());
                    leading_blanks = true;
                    break;
                }
                '\\' if !single => {
                    if cur.peek_nth(1) == Some('\'') {
                        apostrophes.push(cur.at);
                    }
                    escape(&mut cur, &mut value)?;
                }
                c => {
                    value.push(c);
                    cur.bump();
                }
            }
        }
        match cur.peek() {
            None => return Err(cur.problem("found unexpected end of stream")),
            Some('\'') if single => break,
            Some('"') if !single => break,
            _ => {}
        }
        // blanks and line breaks, folded
        let mut blanks = String::new();
        let mut leading_break = String::new();
        let mut trailing_breaks = String::new();
        while let Some(c) = cur.peek() {
            if is_blank(c) {
                if !leading_blanks {
                    blanks.push(c);
                }
                cur.bump();
            } else if is_break(c) {
                if leading_blanks {
                    cur.read_break(&mut trailing_breaks);
                } else {
                    blanks.clear();
                    cur.read_break(&mut leading_break);
                    leading_blanks = true;
                }
            } else {
                break;
            }
        }
        if !leading_blanks {
            value.push_str(&blanks);
        } else if leading_break.starts_with('\n') {
            // a line feed folds to a space, unless empty lines follow
            if trailing_breaks.is_empty() {
                value.push(' ');
            } else {
                value.push_str(&trailing_breaks);
            }
        } else {
            // LS and PS (or an escaped break) are kept as they are
            value.push_str(&leading_break);
            value.push_str(&trailing_breaks);
        }
    }
    Ok(Quoted { value, apostrophes })
}

/// Reads the escape sequence at the cursor (a `\`) into `value`.
fn escape(cur: &mut Cursor, value: &mut String) -> Result<(), Problem> {
    let simple = match cur.peek_nth(1) {
        Some('0') => Some('\0'),
        Some('a') => Some('\x07'),
        Some('b') => Some('\x08'),
        Some('t' | '\t') => Some('\t'),
        Some('n') => Some('\n'),
        Some('v') => Some('\x0b'),
        Some('f') => Some('\x0c'),
        Some('r') => Some('\r'),
        Some('e') => Some('\x1b'),
        Some(' ') => Some(' '),
        Some('"') => Some('"'),
        Some('\'') => Some('\''),
        Some('\\') => Some('\\'),
        Some('N') => Some('\u{85}'),
        Some('_') => Some('\u{a0}'),
        Some('L') => Some('\u{2028}'),
        Some('P') => Some('\u{2029}'),
        Some('x' | 'u' | 'U') => None,
        _ => return Err(cur.problem("found unknown escape character")),
    };
    let kind = cur.peek_nth(1);
    cur.bump();
    cur.bump();
    if let Some(c) = simple {
        value.push(c);
        return Ok(());
    }
    let digits = match kind {
        Some('x') => 2,
        Some('u') => 4,
        _ => 8,
    };
    let mut code: u32 = 0;
    for n in 0..digits {
        match cur.peek_nth(n).and_then(|c| c.to_digit(16)) {
            Some(d) => code = (code << 4) | d,
            None => return Err(cur.problem("did not find expected hexdecimal number")),
        }
    }
    let Some(c) = char::from_u32(code) else {
        return Err(cur.problem("found invalid Unicode character escape code"));
    };
    value.push(c);
    for _ in 0..digits {
        cur.bump();
    }
    Ok(())
}

/// Where the indicator (`|` or `>`) of the block scalar whose content starts
/// at `content` is: the first after `from` (the end of what comes before the
/// scalar) that only modifiers, blanks and a comment follow on its line.
pub(super) fn block_indicator(text: &str, from: usize, content: usize) -> Option<usize> {
    let region = text.get(from..content)?;
    region.char_indices().find_map(|(at, c)| {
        if c != '|' && c != '>' {
            return None;
        }
        let rest = region[at + 1..]
            .trim_start_matches(['+', '-', '1', '2', '3', '4', '5', '6', '7', '8', '9']);
        let modifiers = region.len() - at - 1 - rest.len();
        let rest = rest.trim_start_matches(is_blank);
        let ends_line = rest.is_empty() || rest.starts_with('#') || rest.starts_with(is_break);
        (modifiers <= 2 && ends_line).then_some(from + at)
    })
}

/// Reads the block scalar whose indicator (`|` or `>`) is at `indicator`,
/// inside a block collection indented `parent_indent` columns (-1 at the
/// top of a document).
pub(super) fn block(text: &str, indicator: usize, parent_indent: i64) -> Result<String, Problem> {
    let mut cur = Cursor::new(text, indicator);
    let literal = cur.bump() == Some('|');
    let mut chomping = 0i8;
    let mut increment = 0usize;
    for _ in 0..2 {
        match cur.peek() {
            Some('+') => chomping = 1,
            Some('-') => chomping = -1,
            Some(d @ '1'..='9') => increment = d as usize - '0' as usize,
            _ => break,
        }
        cur.bump();
    }
    while cur.peek().is_some_and(is_blank) {
        cur.bump();
    }
    if cur.peek() == Some('#') {
        while cur.peek().is_some_and(|c| !is_break(c)) {
            cur.bump();
        }
    }
    cur.read_break(&mut String::new());
    let mut indent = if increment == 0 {
        0
    } else if parent_indent >= 0 {
        parent_indent as usize + increment
    } else {
        increment
    };
    let mut value = String::new();
    let mut leading_break = String::new();
    let mut trailing_breaks = String::new();
    block_breaks(&mut cur, &mut indent, &mut trailing_breaks, parent_indent)?;
    let mut leading_blank = false;
    while cur.column == indent && cur.peek().is_some() {
        let trailing_blank = cur.peek().is_some_and(is_blank);
        if !literal && !leading_blank && !trailing_blank && leading_break.starts_with('\n') {
            // folded: a line feed between two lines of text is a space
            if trailing_breaks.is_empty() {
                value.push(' ');
            }
        } else {
            value.push_str(&leading_break);
        }
        leading_break.clear();
        value.push_str(&trailing_breaks);
        trailing_breaks.clear();
        leading_blank = cur.peek().is_some_and(is_blank);
        while let Some(c) = cur.peek().filter(|c| !is_break(*c)) {
            value.push(c);
            cur.bump();
        }
        cur.read_break(&mut leading_break);
        block_breaks(&mut cur, &mut indent, &mut trailing_breaks, parent_indent)?;
    }
    if chomping != -1 {
        value.push_str(&leading_break);
    }
    if chomping == 1 {
        value.push_str(&trailing_breaks);
    }
    Ok(value)
}

/// A block scalar's indentation and empty lines; finds the indentation
/// when it is not yet known (`indent` 0).
fn block_breaks(
    cur: &mut Cursor,
    indent: &mut usize,
    breaks: &mut String,
    parent_indent: i64,
) -> Result<(), Problem> {
    let mut max_indent = 0;
    loop {
        while (*indent == 0 || cur.column < *indent) && cur.peek() == Some(' ') {
            cur.bump();
        }
        max_indent = max_indent.max(cur.column);
        if (*indent == 0 || cur.column < *indent) && cur.peek() == Some('\t') {
            return Err(cur.problem("found a tab character where an indentation space is expected"));
        }
        if !cur.peek().is_some_and(is_break) {
            break;
        }
        cur.read_break(breaks);
    }
    if *indent == 0 {
        *indent = max_indent.max((parent_indent + 1).max(1) as usize);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(text: &str) -> Result<String, Problem> {
        quoted(text, 0).map(|q| q.value)
    }

    #[test]
    fn quoted_folding_keeps_ls_and_ps() {
        assert_eq!(q("\"a \u{2028}  b\"").unwrap(), "a\u{2028}b");
        assert_eq!(q("\"a\u{2029}\r\n#\"").unwrap(), "a\u{2029}\n#");
        assert_eq!(q("\"a\n\u{2028}b\"").unwrap(), "a\u{2028}b");
        assert_eq!(q("\"a\nb\"").unwrap(), "a b");
        assert_eq!(q("\"a\n\n b\"").unwrap(), "a\nb");
        assert_eq!(q("'a\u{85}b'").unwrap(), "a b");
        assert_eq!(q("'it''s'").unwrap(), "it's");
        assert_eq!(q("\"a\\\n  b\"").unwrap(), "ab");
    }

    #[test]
    fn double_quote_escapes_are_yaml_1_1() {
        let r = quoted("\"don\\'t\"", 0).unwrap();
        assert_eq!(r.value, "don't");
        assert_eq!(r.apostrophes, vec![4]);
        assert_eq!(
            q("\"\\x41\\u00e9\\U0001F600\\N\\_\"").unwrap(),
            "Aé😀\u{85}\u{a0}"
        );
        assert_eq!(
            q("\"\\/\"").unwrap_err().message,
            "found unknown escape character"
        );
        assert_eq!(
            q("\"\\ud83d\\ude00\"").unwrap_err().message,
            "found invalid Unicode character escape code"
        );
        assert_eq!(
            q("\"\\x4\"").unwrap_err().message,
            "did not find expected hexdecimal number"
        );
    }

    #[test]
    fn block_scalars_as_go_yaml_reads_them() {
        let b = |t: &str| block(t, t.find(['|', '>']).unwrap(), 0);
        assert_eq!(b("k: |\n  a\n  b\n").unwrap(), "a\nb\n");
        assert_eq!(b("k: >\n  a\n  b\n\n  c\n").unwrap(), "a b\nc\n");
        assert_eq!(b("k: |-\n  a\n\n").unwrap(), "a");
        assert_eq!(b("k: |+\n  a\n\n").unwrap(), "a\n\n");
        assert_eq!(b("k: |\n  a\u{2029}\n").unwrap(), "a\u{2029}");
        assert_eq!(b("k: |2\n   a\n").unwrap(), " a\n");
        assert_eq!(
            b("k: >\n  \tx\n").unwrap_err().message,
            "found a tab character where an indentation space is expected"
        );
        assert_eq!(b("k: |\n  a\n  \tb\n").unwrap(), "a\n\tb\n");
    }

    #[test]
    fn block_indicators_are_found_before_their_content() {
        let t = "'x > y': |-2 # a | b\n    text\n";
        let content = t.find("text").unwrap();
        assert_eq!(block_indicator(t, 7, content), Some(9));
        assert_eq!(block_indicator("k: > # x |\n  a\n", 1, 13), Some(3));
        assert_eq!(block_indicator("k: a\n", 1, 5), None);
    }

    #[test]
    fn reader_refuses_controls() {
        assert_eq!(disallowed_character("a\u{7}"), Some(1));
        assert_eq!(disallowed_character("a\u{7f}"), Some(1));
        assert_eq!(disallowed_character("é\u{9f}"), Some(2));
        assert_eq!(disallowed_character("\u{feff}a\u{85}\u{2028}\t\r\n"), None);
        assert_eq!(disallowed_character("\u{fffe}"), Some(0));
    }
}
