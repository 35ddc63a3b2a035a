//! Markdown (CommonMark with GitHub's extensions: tables, autolinks,
//! strikethrough, the tag filter) for the job summary and PR comments.
//!
//! Text from the repository is written so that it renders as the very
//! characters it holds, inside the element we put it in, and nothing more:
//!
//! * a backslash goes before each ASCII character that can start inline
//!   structure wherever it stands: `\\`, `` ` ``, `*`, `_`, `[`, `]`, `<`,
//!   `>`, `&`, `|`, `~`, `$` (emphasis, links and images, code spans, HTML,
//!   entities, table pipes, strikethrough, math); our text is always inline,
//!   never at the start of a line, so `#`, `-`, `+`, `=` and digits need
//!   none;
//! * also before what GitHub turns into links or emoji: a `:` followed by a
//!   letter, digit, `/`, `:`, `+`, `-` or `_` (`https://`, `:shortcode:`,
//!   `:+1:`, and so `::`), an
//!   `@` followed by a letter or digit (e-mail addresses), and the `.` of a
//!   `www.`;
//! * unsafe characters (a line end, lone CR, NEL, U+2028... among them)
//!   become visible escapes, so text never leaves its line or table row;
//! * code-like text goes in `<code>` (inline HTML, whose content is still
//!   parsed as Markdown: escaped the same way) rather than in backticks,
//!   which would keep a `|` from being escaped.
//!
//! The raw Markdown therefore holds no `::`, no `##[` and no line end from
//! the repository either.

use super::{is_unsafe, push_escaped};

/// Text that renders as itself, on one line.
pub fn text(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    let chars: Vec<char> = s.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        let next = chars.get(i + 1).copied();
        let next_is = |f: fn(char) -> bool| next.is_some_and(f);
        if is_unsafe(c) {
            // the escape's backslash would escape what follows: doubled
            let mut e = String::new();
            push_escaped(&mut e, c);
            out.push_str(&e.replace('\\', "\\\\"));
            continue;
        }
        let escape = match c {
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '&' | '|' | '~' | '$' => true,
            // every colon of a run, so no two stand side by side unescaped
            ':' => {
                (i > 0 && chars[i - 1] == ':')
                    || next_is(|n| {
                        n.is_ascii_alphanumeric() || matches!(n, '/' | ':' | '+' | '-' | '_')
                    })
            }
            '@' => next_is(|n| n.is_ascii_alphanumeric()),
            '.' => i >= 3 && chars[i - 3..i].iter().all(|w| w.eq_ignore_ascii_case(&'w')),
            _ => false,
        };
        if escape {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Text inside raw HTML that Markdown does not parse (a line that starts
/// with `<details>` is an HTML block: no backslash escape works there):
/// HTML's five special characters as entities, unsafe characters as
/// visible escapes, and the second colon of `::` and the bracket of `##[`
/// as character references, so the raw text holds no workflow command.
pub fn html(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            ':' if out.ends_with(':') => out.push_str("&#58;"),
            '[' if out.ends_with("##") => out.push_str("&#91;"),
            c if is_unsafe(c) => push_escaped(&mut out, c),
            c => out.push(c),
        }
    }
    out
}

/// Code-like text in a `<code>` element inside raw HTML (see [`html`]).
pub fn html_code(s: &str) -> String {
    format!("<code>{}</code>", html(s))
}

/// Text of several lines (`\n`-separated: our own line breaks), each line
/// as [`text`], joined with `<br>`.
pub fn lines(s: &str) -> String {
    s.split('\n').map(text).collect::<Vec<_>>().join("<br>")
}

/// Code-like text (a path, a pair, a key, a value) in a `<code>` element.
pub fn code(s: &str) -> String {
    format!("<code>{}</code>", text(s))
}

/// The word joiner (U+2060): invisible, and no word character.
const JOINER: char = '\u{2060}';

/// Escaped text (from [`text`], [`code`], [`html`]...) made inert for a
/// pull request comment, where GitHub turns more than Markdown into live
/// things after rendering, in text and in code alike: `@name` notifies a
/// person or a team, `#12`, `GH-12` and `owner/repo#12` link (and
/// cross-reference) an issue, and a run of 7 to 40 hex digits links a
/// commit. A word joiner goes after the `@` or `#` and inside `GH-`, and
/// after every sixth digit of a hex run, so none of them matches; the text
/// reads the same. (`&#58;`, a character reference [`html`] writes, keeps
/// its `#`.)
pub fn inert(escaped: &str) -> String {
    let mut out = String::with_capacity(escaped.len() + 8);
    let chars: Vec<char> = escaped.chars().collect();
    let mut hex_run = 0;
    for (i, &c) in chars.iter().enumerate() {
        let next = chars.get(i + 1).copied();
        let prev = i.checked_sub(1).map(|p| chars[p]);
        if c.is_ascii_hexdigit() {
            if hex_run == 6 {
                out.push(JOINER);
                hex_run = 0;
            }
            hex_run += 1;
        } else {
            hex_run = 0;
        }
        out.push(c);
        let joined = match c {
            '@' => next.is_some_and(|n| n.is_ascii_alphanumeric()),
            '#' => prev != Some('&') && next.is_some_and(|n| n.is_ascii_digit()),
            'h' | 'H' => {
                prev.is_some_and(|p| p == 'g' || p == 'G')
                    && next == Some('-')
                    && chars.get(i + 2).is_some_and(char::is_ascii_digit)
            }
            _ => false,
        };
        if joined {
            out.push(JOINER);
            hex_run = 0;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mentions_references_and_commit_ids_are_made_inert() {
        let j = JOINER;
        assert_eq!(inert("@octocat"), format!("@{j}octocat"));
        assert_eq!(inert(&text("cc @org/team")), format!("cc \\@{j}org/team"));
        assert_eq!(inert("fixes #12, o/r#3"), format!("fixes #{j}12, o/r#{j}3"));
        assert_eq!(inert("GH-7 gh-8"), format!("GH{j}-7 gh{j}-8"));
        assert_eq!(inert("a:&#58;b"), "a:&#58;b");
        let sha = "0123456789abcdef0123456789abcdef01234567";
        let out = inert(sha);
        assert_eq!(out.replace(j, ""), sha);
        assert!(out.split(j).all(|part| part.len() <= 6), "{out}");
        // plain words and short numbers stay as they are
        assert_eq!(
            inert("replicas: 3, port 8080, email"),
            "replicas: 3, port 8080, email"
        );
    }

    #[test]
    fn structure_is_escaped_and_plain_text_is_not() {
        assert_eq!(text("a|b`c"), "a\\|b\\`c");
        assert_eq!(text("## ✅ no findings"), "## ✅ no findings");
        assert_eq!(text("<img src=x>"), "\\<img src=x\\>");
        assert_eq!(text("x\r## y"), "x\\\\r## y");
        assert_eq!(text("::error::"), "\\:\\:error\\:\\:");
        assert_eq!(
            text("port: must be >= 1 (found: 0)"),
            "port: must be \\>= 1 (found: 0)"
        );
        assert_eq!(
            text("see https://x.io and www.y.io"),
            "see https\\://x.io and www\\.y.io"
        );
        assert_eq!(text("a@b.c at :+1: $x$"), "a\\@b.c at \\:+1: \\$x\\$");
        assert_eq!(text("héllo wörld"), "héllo wörld");
        assert_eq!(code("web@prod"), "<code>web\\@prod</code>");
        assert_eq!(lines("a\nb"), "a<br>b");
        assert_eq!(
            html_code("a<img src=y>&\"'::##[x\r"),
            "<code>a&lt;img src=y&gt;&amp;&quot;&#39;:&#58;##&#91;x\\r</code>"
        );
        for hostile in ["::x", "##[x", "a\r\n## h", "x::::y", ":::,", "\\:::"] {
            let t = text(hostile);
            assert!(
                !t.contains("::") && !t.contains("##[") && !t.contains('\r'),
                "{t}"
            );
        }
    }
}
