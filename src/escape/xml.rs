//! XML 1.0 text and attribute values (the JUnit report).
//!
//! The five markup characters become entities; a carriage return, the C1
//! controls, DEL, U+2028/U+2029 and invisible format characters become
//! character references (an XML reader gets them back; a log reader sees
//! no line end); the second colon of `::` and the bracket of `##[` become
//! references too, so no line of the file is a workflow command. The other
//! C0 controls cannot be carried by XML 1.0 at all, not even as references:
//! they are written as visible escapes (`\x01`).

use super::{is_unsafe, push_escaped};

/// Text for element content or an attribute value (quoted with `"` or
/// `'`). Line feeds are kept; a tab is a character reference.
pub fn text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' => out.push(c),
            '\t' => out.push_str("&#9;"),
            '\r' => out.push_str("&#13;"),
            c if (c as u32) < 0x20 => push_escaped(&mut out, c),
            c if is_unsafe(c) => out.push_str(&format!("&#x{:x};", c as u32)),
            ':' if out.ends_with(':') => out.push_str("&#58;"),
            '[' if out.ends_with("##") => out.push_str("&#91;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_and_commands_are_escaped() {
        assert_eq!(text("a<b>&\"'"), "a&lt;b&gt;&amp;&quot;&apos;");
        assert_eq!(text("x\r::error::y"), "x&#13;:&#58;error:&#58;y");
        assert_eq!(text("##[add-mask]"), "##&#91;add-mask]");
        assert_eq!(text("bell\x07 nel\u{85}"), "bell\\x07 nel&#x85;");
        assert_eq!(text("a\nb\tc"), "a\nb&#9;c");
    }
}
