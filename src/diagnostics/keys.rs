//! Keys as they are written in YAML source: where a key's text is at a
//! column (quotes included) and how a key is written so that it reads back
//! as itself. Fixes that rename a key are made with these (the check's,
//! for reports; the language server's, for editors), so both edit exactly
//! the key's text.

/// The key written at the start of `rest`, quotes included: plain up to
/// its `:`, or quoted (to the first closing quote: a `\"` or `''` in it
/// leaves no `:` after), followed by a `:`; `None` when it is not a key
/// there.
pub fn written_key(rest: &str) -> Option<&str> {
    let end = match rest.chars().next()? {
        q @ ('"' | '\'') => 1 + rest[1..].find(q)? + 1,
        _ => rest.find(':')?,
    };
    let key = rest[..end].trim_end_matches(' ');
    let after = rest[end..].trim_start_matches(' ');
    (!key.is_empty() && after.starts_with(':')).then_some(key)
}

/// A key as YAML text that reads back as the string `key`: plain when it
/// is a plain word that YAML reads as that string (not `true`, `null`, a
/// number...), else double-quoted, with an escape for `"`, `\` and every
/// character that is not printable ASCII or a letter or digit (a line end
/// is `\n`: the key stays on its line).
pub fn yaml_key(key: &str) -> String {
    const WORDS: &[&str] = &[
        "y", "n", "yes", "no", "true", "false", "on", "off", "null", "~",
    ];
    let plain = key
        .chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_')
        && key
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '/'))
        && !WORDS.iter().any(|w| w.eq_ignore_ascii_case(key));
    if plain {
        return key.to_string();
    }
    let mut out = String::from("\"");
    for c in key.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            ' '..='~' => out.push(c),
            c if c.is_alphanumeric() => out.push(c),
            c if (c as u32) <= 0xffff => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push_str(&format!("\\U{:08x}", c as u32)),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_is_written_plain_only_when_it_reads_back_as_itself() {
        assert_eq!(yaml_key("ab\nc"), r#""ab\nc""#);
        assert_eq!(yaml_key("true"), r#""true""#);
        assert_eq!(yaml_key("a\"b\\"), r#""a\"b\\""#);
        assert_eq!(yaml_key("a\u{2028}"), r#""a\u2028""#);
        assert_eq!(yaml_key("héllo-1.x"), "héllo-1.x");
    }

    #[test]
    fn a_written_key_is_found_with_its_quotes() {
        assert_eq!(written_key("'abc': 1"), Some("'abc'"));
        assert_eq!(written_key(r#""a\u0062c": 1"#), Some(r#""a\u0062c""#));
        assert_eq!(written_key("abc : 1"), Some("abc"));
        assert_eq!(written_key("abc"), None);
    }
}
