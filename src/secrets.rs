//! Which keys hold secrets: their values are never printed (code frames,
//! diffs). CI logs are widely readable.

/// Decides which keys hold secrets.
pub struct Secrets {
    words: Vec<String>,
    /// Any of the words, in any ASCII case (see [`Secrets::may_mention`]).
    mention: std::sync::OnceLock<Option<aho_corasick::AhoCorasick>>,
    /// Values known to be secret (a secret data value's value): a text that
    /// holds one, whole or inside it, is never printed.
    values: Option<std::sync::Arc<aho_corasick::AhoCorasick>>,
}

/// The shortest secret value looked for inside other texts: shorter ones
/// (`1`, `on`, `dev`) would hide half a report and protect nothing.
pub const MIN_SECRET_VALUE: usize = 4;

impl Default for Secrets {
    fn default() -> Self {
        Secrets::new(&[])
    }
}

impl Secrets {
    /// The default words, made once per process: each report of thousands
    /// of findings asked for them, and built their quick look again.
    pub fn shared() -> &'static Secrets {
        static DEFAULT: std::sync::LazyLock<Secrets> = std::sync::LazyLock::new(Secrets::default);
        &DEFAULT
    }

    /// The default words (password, secret, token, key, cert, ...) and `more`.
    pub fn new(more: &[String]) -> Secrets {
        let mut words: Vec<String> = [
            "password",
            "passwd",
            "secret",
            "token",
            "key",
            "cert",
            "credential",
            "private",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        words.extend(more.iter().map(|w| w.to_lowercase()));
        Secrets {
            words,
            mention: std::sync::OnceLock::new(),
            values: None,
        }
    }

    /// These words and `more` (lowercased).
    pub fn with(&self, more: &[&str]) -> Secrets {
        let mut words = self.words.clone();
        words.extend(more.iter().map(|w| w.to_lowercase()));
        Secrets {
            words,
            mention: std::sync::OnceLock::new(),
            values: self.values.clone(),
        }
    }

    /// These words, and `values` as values never printed (those of at
    /// least [`MIN_SECRET_VALUE`] characters).
    pub fn with_values<'v>(&self, values: impl IntoIterator<Item = &'v str>) -> Secrets {
        let mut kept: Vec<&str> = values
            .into_iter()
            .filter(|v| v.trim().chars().count() >= MIN_SECRET_VALUE)
            .collect();
        kept.sort_unstable();
        kept.dedup();
        Secrets {
            words: self.words.clone(),
            mention: std::sync::OnceLock::new(),
            values: if kept.is_empty() {
                self.values.clone()
            } else {
                aho_corasick::AhoCorasick::new(kept)
                    .ok()
                    .map(std::sync::Arc::new)
            },
        }
    }

    /// `text` as it may be printed: every secret value in it replaced by
    /// [`HIDDEN`], and in a text of several lines (a ConfigMap's embedded
    /// YAML, JSON or `KEY=value` config) the value of every secret-looking
    /// key left out, the key kept; `None` when the whole text is a secret
    /// value.
    pub fn mask_text<'t>(&self, text: &'t str) -> Option<std::borrow::Cow<'t, str>> {
        use std::borrow::Cow;
        let mut out: Cow<str> = Cow::Borrowed(text);
        if let Some(values) = &self.values {
            if let Some(m) = values.find(text) {
                if m.start() == 0 && m.end() == text.len() {
                    return None;
                }
                let mut masked = String::with_capacity(text.len());
                values.replace_all_with(text, &mut masked, |_, _, dst| {
                    dst.push_str(HIDDEN);
                    true
                });
                out = Cow::Owned(masked);
            }
        }
        if out.contains('\n') && (self.may_mention(&out) || out.contains('=')) {
            let masked: Vec<Cow<str>> = out
                .split('\n')
                .map(|l| match self.redact_line(l) {
                    Cow::Owned(o) => Cow::Owned(o),
                    Cow::Borrowed(l) if self.is_secret_assignment(l) => {
                        let at = l.find('=').unwrap_or(l.len());
                        Cow::Owned(format!("{}={HIDDEN}", &l[..at]))
                    }
                    Cow::Borrowed(l) => Cow::Borrowed(l),
                })
                .collect();
            if masked.iter().any(|l| matches!(l, Cow::Owned(_))) {
                out = Cow::Owned(masked.join("\n"));
            }
        }
        Some(out)
    }

    /// One line of a multi-line text as it may be printed (a line of a
    /// line diff): every secret value in it hidden, and the value of a
    /// secret-looking key (`password: x`, `DB_PASSWORD=x`) left out, the
    /// key kept: a changed secret line still says which key changed.
    pub fn mask_line(&self, line: &str) -> String {
        let masked = match self.mask_text(line) {
            None => return HIDDEN.to_string(),
            Some(m) => m,
        };
        let redacted = self.redact_line(&masked);
        if let std::borrow::Cow::Owned(o) = redacted {
            return o;
        }
        if self.is_secret_assignment(&masked) {
            let at = masked.find('=').unwrap_or(masked.len());
            return format!("{}={HIDDEN}", &masked[..at]);
        }
        masked.into_owned()
    }

    /// Whether a line is `KEY=value` with a secret-looking key
    /// (`DB_PASSWORD=x`, `export API_TOKEN="x"`).
    fn is_secret_assignment(&self, line: &str) -> bool {
        let line = line.trim_start();
        let line = line.strip_prefix("export ").unwrap_or(line);
        match line.split_once('=') {
            Some((key, value)) => {
                !key.is_empty()
                    && !key.contains(char::is_whitespace)
                    && !value.trim().is_empty()
                    && self.is_secret(key)
            }
            None => false,
        }
    }

    /// Whether a key holds a secret: its last word (`db_password`,
    /// `apiToken` -> api, token) is a secret word. The last word says what
    /// the value is: `useCertManager` is a switch and
    /// `namespace-wildcard-cert-selector` a selector, not certificates.
    pub fn is_secret(&self, key: &str) -> bool {
        self.may_mention(key) && self.has_secret_word(key)
    }

    /// [`Secrets::is_secret`] without the quick look first.
    fn has_secret_word(&self, key: &str) -> bool {
        split_words(key).last().is_some_and(|w| {
            // a plural is the same word (`tokens`, `credentials`)
            let w = match w.strip_suffix('s') {
                Some(one) if one.len() > 2 => one,
                _ => w.as_str(),
            };
            self.words
                .iter()
                .any(|s| w == s || (s.len() > 3 && w.ends_with(s.as_str())))
        })
    }
}

impl Secrets {
    /// Whether `text` may hold a secret word: always when it is not ASCII
    /// (a key's words are compared lowercased by Unicode's rules);
    /// otherwise when one of the words is in it, in any case. A word of a
    /// secret key is in the text (lowercased), so a text without one has
    /// no secret key: reports ask this of thousands of lines.
    fn may_mention(&self, text: &str) -> bool {
        if !text.is_ascii() {
            return true;
        }
        // one pass for every word, and no per-search state to share
        // between the threads that frame findings (a regex's cache pool
        // was contended there)
        let mention = self.mention.get_or_init(|| {
            aho_corasick::AhoCorasick::builder()
                .ascii_case_insensitive(true)
                .build(self.words.iter().filter(|w| !w.is_empty()))
                .ok()
        });
        match mention {
            Some(words) => words.is_match(text),
            None => true,
        }
    }
}

/// What a redacted value is shown as.
pub const HIDDEN: &str = "(value not shown)";

/// The lines (1-based, end excluded) of each document of `text` that is a
/// Kubernetes Secret: a document with `kind: Secret` at its top level (a
/// CRD's indented `names.kind` is none). Every value on those lines is
/// secret, whatever else the file holds (a template elsewhere in it, a
/// comment, a password with `#@` in it): code frames show their keys only.
pub fn secret_document_lines(text: &str) -> Vec<std::ops::Range<u32>> {
    if !has_top_kind(text, "Secret") {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut start = 1u32;
    let mut secret = false;
    let mut n = 0u32;
    for (i, l) in text.lines().enumerate() {
        n = i as u32 + 1;
        let separator = l == "---" || l.starts_with("--- ") || l == "..." || l.starts_with("---\t");
        if separator {
            if secret {
                out.push(start..n);
            }
            start = n;
            secret = false;
        } else if l.strip_prefix("kind:").is_some_and(|k| {
            k.split(" #")
                .next()
                .unwrap_or(k)
                .trim()
                .trim_matches(['"', '\''])
                == "Secret"
        }) {
            secret = true;
        }
    }
    if secret {
        out.push(start..n + 1);
    }
    out
}

/// Whether a text has a document of kind `kind` at its top level
/// (`kind: Secret` at the start of a line): a cheap look before parsing.
pub fn has_top_kind(text: &str, kind: &str) -> bool {
    text.contains(kind)
        && text.lines().any(|l| {
            l.strip_prefix("kind:")
                .is_some_and(|k| k.trim().trim_matches(['"', '\'']) == kind)
        })
}

/// A line of YAML source with whatever value it holds left out, its key
/// (or a list item's dash) kept: `  password: x` -> `  password: (value
/// not shown)`, `    - x` -> `    - (value not shown)`.
pub fn hide_value(line: &str) -> String {
    let indent = line.len() - line.trim_start().len();
    let rest = &line[indent..];
    let head = match rest
        .find(": ")
        .or_else(|| rest.ends_with(':').then(|| rest.len() - 1))
    {
        Some(i) => &rest[..=i],
        None if rest.starts_with("- ") => "-",
        None => "",
    };
    format!(
        "{}{head}{}{HIDDEN}",
        &line[..indent],
        if head.is_empty() { "" } else { " " },
    )
}

impl Secrets {
    /// A line of YAML source (a code frame, a stack trace) with the value
    /// of every secret-looking key left out: `password: x`, and the same
    /// inside flow collections (`db: {host: h, password: x}`); a key
    /// without a value on the line (`password:`, the start of a block) is
    /// shown as it is. Quoted keys count; quotes in values are skipped
    /// over, so a `,` or `}` inside a quoted value does not end it.
    pub fn redact_line<'a>(&self, line: &'a str) -> std::borrow::Cow<'a, str> {
        if !self.may_mention(line) {
            return std::borrow::Cow::Borrowed(line);
        }
        let chars: Vec<(usize, char)> = line.char_indices().collect();
        let mut out = String::new();
        let mut copied = 0; // bytes of `line` already in `out`
        let mut key_start = 0; // where the current key may start
        let mut depth = 0usize; // flow nesting
        let mut i = 0;
        while i < chars.len() {
            let (at, c) = chars[i];
            match c {
                '"' | '\'' => {
                    i = skip_quoted(&chars, i);
                    continue;
                }
                // a comment (`#@` is ytt code, which may hold the value)
                '#' if (at == 0 || chars[i - 1].1.is_whitespace())
                    && chars.get(i + 1).is_none_or(|(_, n)| *n != '@') =>
                {
                    break
                }
                '{' | '[' => {
                    depth += 1;
                    key_start = at + 1;
                }
                '}' | ']' => depth = depth.saturating_sub(1),
                ',' if depth > 0 => key_start = at + 1,
                ':' if chars.get(i + 1).is_none_or(|(_, n)| n.is_whitespace()) => {
                    let key = line[key_start..at]
                        .trim()
                        .trim_start_matches("- ")
                        .trim()
                        .trim_matches(['"', '\'']);
                    let value_at = at + 1;
                    // the value: to the end of the line, or in a flow
                    // collection to the next `,` or closing bracket of it
                    let mut j = i + 1;
                    let mut inner = 0usize;
                    while j < chars.len() {
                        let (_, d) = chars[j];
                        match d {
                            '"' | '\'' => {
                                j = skip_quoted(&chars, j);
                                continue;
                            }
                            '{' | '[' => inner += 1,
                            '}' | ']' if inner == 0 && depth > 0 => break,
                            '}' | ']' => inner = inner.saturating_sub(1),
                            ',' if inner == 0 && depth > 0 => break,
                            '#' if depth == 0
                                && chars[j - 1].1.is_whitespace()
                                && chars.get(j + 1).is_none_or(|(_, n)| *n != '@') =>
                            {
                                break
                            }
                            _ => {}
                        }
                        j += 1;
                    }
                    let value_end = chars.get(j).map_or(line.len(), |(b, _)| *b);
                    let value = &line[value_at..value_end];
                    if !value.trim().is_empty() && self.is_secret(key) {
                        out.push_str(&line[copied..value_at]);
                        out.push(' ');
                        out.push_str(HIDDEN);
                        if value.ends_with(' ') {
                            out.push(' ');
                        }
                        copied = value_end;
                        i = j;
                        key_start = value_end;
                        continue;
                    }
                    key_start = value_at;
                }
                _ => {}
            }
            i += 1;
        }
        if copied == 0 {
            return std::borrow::Cow::Borrowed(line);
        }
        out.push_str(&line[copied..]);
        std::borrow::Cow::Owned(out)
    }
}

/// The index after the quoted scalar starting at `chars[i]`.
fn skip_quoted(chars: &[(usize, char)], i: usize) -> usize {
    let quote = chars[i].1;
    let mut j = i + 1;
    while j < chars.len() {
        let c = chars[j].1;
        if quote == '"' && c == '\\' {
            j += 2;
            continue;
        }
        if c == quote {
            // '' is an escaped quote in a single-quoted scalar
            if quote == '\'' && chars.get(j + 1).is_some_and(|(_, n)| *n == '\'') {
                j += 2;
                continue;
            }
            return j + 1;
        }
        j += 1;
    }
    j
}

fn split_words(key: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for c in key.chars() {
        if !c.is_alphanumeric() {
            words.push(std::mem::take(&mut cur));
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower {
            words.push(std::mem::take(&mut cur));
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        cur.extend(c.to_lowercase());
    }
    words.push(cur);
    words.retain(|w| !w.is_empty());
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_secret_manifest_is_told_by_its_top_level_kind_and_shows_no_value() {
        assert_eq!(
            secret_document_lines("apiVersion: v1\nkind: Secret\nstringData:\n  a: b\n"),
            vec![std::ops::Range { start: 1, end: 5 }]
        );
        // per document: a template, a comment or a `#@` in a password
        // elsewhere in the file changes nothing
        assert_eq!(
            secret_document_lines(
                "#@ load(\"@ytt:data\", \"data\")\n---\nkind: ConfigMap\n---\nkind: Secret\nstringData:\n  pw: Tr0ub#@dor\n"
            ),
            vec![std::ops::Range { start: 4, end: 8 }]
        );
        // a CRD's names.kind is no document's
        assert!(secret_document_lines("spec:\n  names:\n    kind: Secret\n").is_empty());
        assert!(secret_document_lines("kind: SecretTemplate\n").is_empty());
        assert_eq!(
            hide_value("    replicas: 0"),
            "    replicas: (value not shown)"
        );
        assert_eq!(hide_value("  - x"), "  - (value not shown)");
        assert_eq!(hide_value("  image:"), "  image: (value not shown)");
    }

    #[test]
    fn secret_words() {
        let s = Secrets::new(&["pin".to_string()]);
        for k in [
            "password",
            "db_password",
            "apiToken",
            "tls.key",
            "clientSecret",
            "caCert",
            "pin",
        ] {
            assert!(s.is_secret(k), "{k}");
        }
        for k in [
            "keyboard",
            "monkey",
            "replicas",
            "host",
            // the last word says what the value is (a switch, a selector)
            "useCertManager",
            "certificates.useCertManager",
            "namespace-wildcard-cert-selector",
            "secretName",
            "secretKeyRef",
        ] {
            assert!(!s.is_secret(k), "{k}");
        }
    }

    proptest::proptest! {
        /// The quick look never hides a secret: a key (or line) it passes
        /// over has no secret word, in any case or shape.
        #[test]
        fn the_quick_look_misses_no_secret(
            key in "([pP][aA][sS][sS]|[wW][oO][rR][dD]|[tT]oken|KEY|[kK]e|[cC]ert|[sS]ecret|pin|[-_. :{}]|[a-z]){0,8}"
        ) {
            let s = Secrets::new(&["pin".to_string()]);
            proptest::prop_assert_eq!(s.is_secret(&key), s.has_secret_word(&key));
            if !s.may_mention(&key) {
                let line = format!("{key}: value");
                proptest::prop_assert_eq!(s.redact_line(&line), line.clone());
            }
        }
    }

    #[test]
    fn secret_values_leave_source_lines_at_every_depth() {
        let s = Secrets::default();
        for (line, want) in [
            ("  db_password: hunter2", "  db_password: (value not shown)"),
            ("apiToken: abc # note", "apiToken: (value not shown) # note"),
            ("tls.key: |", "tls.key: (value not shown)"),
            ("replicas: 3", "replicas: 3"),
            ("password:", "password:"),
            ("- password: x", "- password: (value not shown)"),
            (
                "db: {host: h, password: qa-pw, port: 5}",
                "db: {host: h, password: (value not shown), port: 5}",
            ),
            (
                "db: {password: \"a, b}\", user: u}",
                "db: {password: (value not shown), user: u}",
            ),
            (
                "list: [{name: a, token: 't,}'}]",
                "list: [{name: a, token: (value not shown)}]",
            ),
            (
                "x: {credentials: {user: u, pass: p}}",
                "x: {credentials: (value not shown)}",
            ),
            ("password: #@ \"hunter2\"", "password: (value not shown)"),
            ("url: http://x", "url: http://x"),
            ("\"secret key\": v", "\"secret key\": (value not shown)"),
        ] {
            assert_eq!(s.redact_line(line), want, "{line}");
        }
    }
}
