//! GitHub Actions workflow commands, and text that must not become one.
//!
//! The runner reads a step's stdout and stderr line by line (a line ends at
//! `\n`, `\r\n` or a lone `\r`) and executes two syntaxes: `::name
//! props::data` when the line, less its leading white space, starts with
//! `::`, and the legacy `##[name props]data` found *anywhere* in a line.
//! Both streams share one command state, and the runner may take a batch of
//! stderr lines before the stdout lines written earlier, so each stream is
//! made safe on its own:
//!
//! * the commands yttcheck emits escape their data ([`data`]) and
//!   properties ([`property`]) as `@actions/core` does;
//! * every other line is [`neutralize`]d: no unsafe character raw, no `::`
//!   and no `##[` at any position (a backslash goes between the colons and
//!   before the bracket), so no line of it parses as a command whatever
//!   comes before or after it;
//! * a human-readable block on stdout is also [`guard`]ed between
//!   `::stop-commands::<token>` and `::<token>::` with a random token, so
//!   that even a line this module failed to foresee runs nothing.

use super::{is_unsafe, push_escaped};

/// A command's message (`escapeData`): `%`, CR and LF percent-encoded (the
/// runner decodes them: a multi-line annotation), every other unsafe
/// character as a visible escape.
pub fn data(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '%' => out.push_str("%25"),
            '\r' => out.push_str("%0D"),
            '\n' => out.push_str("%0A"),
            c if is_unsafe(c) => push_escaped(&mut out, c),
            c => out.push(c),
        }
    }
    out
}

/// A command's property value (`escapeProperty`): as [`data`], and `:` and
/// `,`, which end a property.
pub fn property(s: &str) -> String {
    data(s).replace(':', "%3A").replace(',', "%2C")
}

/// Text that the runner reads as text only: unsafe characters (line ends
/// included) escaped, a backslash put between any two colons and before the
/// `[` of any `##[`. The result is one line.
pub fn neutralize(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if is_unsafe(c) {
            push_escaped(&mut out, c);
            continue;
        }
        if (c == ':' && out.ends_with(':')) || (c == '[' && out.ends_with("##")) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// One workflow command yttcheck means to give the runner: `::kind
/// props::data`, its properties and data escaped.
pub fn command(kind: &str, props: &[(&str, &str)], text: &str) -> String {
    let props: Vec<String> = props
        .iter()
        .map(|(k, v)| format!("{k}={}", property(v)))
        .collect();
    let sep = if props.is_empty() { "" } else { " " };
    format!("::{kind}{sep}{}::{}\n", props.join(","), data(text))
}

/// [`neutralize`] for text of several lines: each line made safe, the line
/// feeds kept (a carriage return never ends a line: it is escaped).
pub fn neutralize_lines(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut lines = s.split('\n').peekable();
    while let Some(line) = lines.next() {
        out.push_str(&neutralize(line));
        if lines.peek().is_some() {
            out.push('\n');
        }
    }
    out
}

/// A token for `::stop-commands::`, from 16 random bytes: 32 hex digits,
/// never the name of a command.
pub fn stop_token(random: [u8; 16]) -> String {
    let mut t = String::from("yttcheck-");
    for b in random {
        t.push_str(&format!("{b:02x}"));
    }
    t
}

/// `text` neutralized and put between `::stop-commands::<token>` and
/// `::<token>::`: the runner executes nothing in between.
pub fn guard(text: &str, token: &str) -> String {
    let body = neutralize_lines(text.strip_suffix('\n').unwrap_or(text));
    format!("::stop-commands::{token}\n{body}\n::{token}::\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_escape_their_properties_and_data() {
        assert_eq!(
            command("error", &[("file", "a,b:c"), ("line", "3")], "x\ny%"),
            "::error file=a%2Cb%3Ac,line=3::x%0Ay%25\n"
        );
        assert_eq!(command("endgroup", &[], ""), "::endgroup::\n");
    }

    #[test]
    fn escapes_like_the_actions_toolkit() {
        assert_eq!(data("50% done\nnext\r"), "50%25 done%0Anext%0D");
        assert_eq!(property("a:b,c"), "a%3Ab%2Cc");
        assert_eq!(data("esc\x1b[0m\u{2028}"), "esc\\x1b[0m\\u2028");
    }

    #[test]
    fn no_command_survives_neutralizing() {
        assert_eq!(neutralize("::error::x"), ":\\:error:\\:x");
        assert_eq!(neutralize(":::"), ":\\:\\:");
        assert_eq!(neutralize("a ##[add-mask]b"), "a ##\\[add-mask]b");
        assert_eq!(neutralize("###[x"), "###\\[x");
        assert_eq!(neutralize("x\r::error::y"), "x\\r:\\:error:\\:y");
        assert_eq!(neutralize("a: b"), "a: b");
        for s in [
            "::a::",
            "  ::a",
            "##[a]",
            ":\u{200b}:",
            "#\u{ad}#[",
            "x\n::y",
            ":::::",
            "####[[",
        ] {
            let n = neutralize(s);
            assert!(!n.contains("::") && !n.contains("##["), "{s:?} -> {n:?}");
            assert!(!n.chars().any(is_unsafe), "{n:?}");
        }
    }

    #[test]
    fn a_guarded_block_stops_and_resumes_commands() {
        let token = stop_token([0xab; 16]);
        assert_eq!(token.len(), 9 + 32);
        let g = guard("line 1\n::error::forged\n", &token);
        assert_eq!(
            g,
            format!("::stop-commands::{token}\nline 1\n:\\:error:\\:forged\n::{token}::\n")
        );
    }
}
