//! Escaping text that came from the repository before it reaches anything
//! that reads it as more than text: a terminal, the GitHub Actions runner,
//! a Markdown renderer, a JSON or XML consumer.
//!
//! Everything in a repository checked on a pull request is written by
//! someone we must not trust: file and folder names, YAML keys and values,
//! `fail()` messages, policy descriptions. One escaper per output kind lives
//! here, and every printer calls its own:
//!
//! * [`control`] — the characters no output shows raw (C0 and C1 controls,
//!   DEL, line and paragraph separators, and the invisible format
//!   characters that .NET's culture-aware string search ignores), written
//!   as visible Go-style escapes (`\n`, `\x1b`, `\u2028`);
//! * [`workflow`] — GitHub Actions workflow commands: `escapeData` and
//!   `escapeProperty` for the commands we emit, `neutralize` for every
//!   other line (no `::` and no `##[` anywhere), and the
//!   `::stop-commands::` guard around a human-readable block;
//! * [`markdown`] — CommonMark/GFM text and code that cannot leave its table
//!   cell, make a heading, a link or HTML;
//! * [`json`] — serialized JSON hardened losslessly (`\u` escapes);
//! * [`xml`] — XML text and attributes (JUnit).
//!
//! Pure functions of strings: no I/O (the stop token's randomness is given
//! by the caller).

pub mod json;
pub mod markdown;
pub mod workflow;
pub mod xml;

use std::borrow::Cow;

/// Whether `c` may not be printed as it is: C0 controls (tab and line
/// feed included), DEL, C1 controls (U+0085 among them), U+2028 and
/// U+2029, and the default-ignorable code points (soft hyphen, zero-width
/// characters, bidirectional controls, variation selectors, tags...), which
/// are invisible, reorder text, or vanish in a culture-aware comparison
/// (the Actions runner finds `::` and `##[` with one).
pub fn is_unsafe(c: char) -> bool {
    let u = c as u32;
    u < 0x20
        || (0x7f..=0x9f).contains(&u)
        || matches!(
            u,
            0x00ad
                | 0x034f
                | 0x061c
                | 0x115f
                | 0x1160
                | 0x17b4
                | 0x17b5
                | 0x180b..=0x180f
                | 0x200b..=0x200f
                | 0x2028..=0x202e
                | 0x2060..=0x206f
                | 0x3164
                | 0xfe00..=0xfe0f
                | 0xfeff
                | 0xffa0
                | 0xfff0..=0xfffb
                | 0x1bca0..=0x1bca3
                | 0x1d173..=0x1d17a
                | 0xe0000..=0xe0fff
        )
}

/// Appends the visible escape of an unsafe character: `\n`, `\r`, `\t`,
/// `\xHH` below U+0080, `\uHHHH`, `\UHHHHHHHH` (Go's `%q` spelling).
pub fn push_escaped(out: &mut String, c: char) {
    use std::fmt::Write;
    let u = c as u32;
    let _ = match c {
        '\n' => write!(out, "\\n"),
        '\r' => write!(out, "\\r"),
        '\t' => write!(out, "\\t"),
        _ if u < 0x80 => write!(out, "\\x{u:02x}"),
        _ if u <= 0xffff => write!(out, "\\u{u:04x}"),
        _ => write!(out, "\\U{u:08x}"),
    };
}

/// `s` with every [unsafe](is_unsafe) character written as a visible
/// escape: one line, nothing a terminal or a log reader acts on.
pub fn control(s: &str) -> Cow<'_, str> {
    // printable ASCII, the common case, checked a byte at a time
    if s.bytes().all(|b| (0x20..0x7f).contains(&b)) || !s.chars().any(is_unsafe) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if is_unsafe(c) {
            push_escaped(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// [`control`] for text of several lines: each line escaped, the line
/// feeds kept (a lone or paired carriage return is escaped, never a line
/// end).
pub fn control_lines(s: &str) -> Cow<'_, str> {
    if s.bytes().all(|b| b == b'\n' || (0x20..0x7f).contains(&b))
        || !s.chars().any(|c| c != '\n' && is_unsafe(c))
    {
        return Cow::Borrowed(s);
    }
    let lines: Vec<Cow<str>> = s.split('\n').map(control).collect();
    Cow::Owned(lines.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unsafe_characters_become_visible_escapes() {
        assert_eq!(control("plain: é ✅ 日本"), "plain: é ✅ 日本");
        assert!(matches!(control("plain"), Cow::Borrowed(_)));
        assert_eq!(control("a\nb\rc\td"), "a\\nb\\rc\\td");
        assert_eq!(control("\x1b[31mred"), "\\x1b[31mred");
        assert_eq!(control("del\x7f nel\u{85}"), "del\\x7f nel\\u0085");
        assert_eq!(control("ls\u{2028}ps\u{2029}"), "ls\\u2028ps\\u2029");
        assert_eq!(
            control(":\u{200b}:\u{ad}##\u{202e}[\u{feff}"),
            ":\\u200b:\\u00ad##\\u202e[\\ufeff"
        );
        assert_eq!(control("tag\u{e0041}"), "tag\\U000e0041");
    }

    #[test]
    fn every_unsafe_character_is_escaped_and_nothing_else() {
        for u in 0..0x11_0000u32 {
            let Some(c) = char::from_u32(u) else { continue };
            let s = c.to_string();
            let e = control(&s);
            if is_unsafe(c) {
                assert!(e.starts_with('\\') && !e.chars().any(is_unsafe), "{u:x}");
            } else {
                assert_eq!(e, s, "{u:x}");
            }
        }
    }

    #[test]
    fn lines_keep_their_line_feeds_only() {
        assert_eq!(control_lines("a\nb\r\nc\rd"), "a\nb\\r\nc\\rd");
    }
}
