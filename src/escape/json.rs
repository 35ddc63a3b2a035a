//! JSON that is safe to print anywhere, losslessly: a JSON reader decodes
//! exactly the strings that were serialized.
//!
//! `serde_json` escapes the C0 controls but writes DEL, the C1 controls,
//! U+2028/U+2029 and invisible format characters raw, and any `::` or
//! `##[` of a string as it is; a report printed to a step's log (`check
//! --format json`, or `cat` of a report file) would then carry them to the
//! runner. [`harden`] rewrites them as `\u` escapes. They can only occur
//! inside strings of serialized JSON (its syntax has no `::`, no `#`), so
//! the rewrite never touches the structure.

use super::is_unsafe;

fn push_u(out: &mut String, c: char) {
    let mut buf = [0u16; 2];
    for unit in c.encode_utf16(&mut buf) {
        out.push_str(&format!("\\u{unit:04x}"));
    }
}

/// Serialized JSON with every unsafe character, the second colon of `::`
/// and the bracket of `##[` written as `\u` escapes.
pub fn harden(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        if (is_unsafe(c) && !matches!(c, '\n' | '\t' | '\r' | ' '))
            || (c == ':' && out.ends_with(':'))
            || (c == '[' && out.ends_with("##"))
        {
            push_u(&mut out, c);
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hardened_json_decodes_to_the_same_value() {
        let v = serde_json::json!({
            "m": "::error::x ##[add-mask]y \u{2028}\u{85}\u{7f}\u{200b}\u{e0041} :::",
            "k::": ["a", 1, {"##[": null}],
        });
        for text in [
            serde_json::to_string(&v).unwrap(),
            serde_json::to_string_pretty(&v).unwrap(),
        ] {
            let h = harden(&text);
            assert!(!h.contains("::") && !h.contains("##["), "{h}");
            assert!(!h.chars().any(|c| is_unsafe(c) && c != '\n'), "{h}");
            let back: serde_json::Value = serde_json::from_str(&h).unwrap();
            assert_eq!(back, v);
        }
    }
}
