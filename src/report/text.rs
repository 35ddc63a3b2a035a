//! The default report: each finding with a code frame of the offending line,
//! what decided it, and where it happens; then a summary line.

use crate::check::{Finding, Severity};
use crate::diagnostics::RuleId;
use std::borrow::Cow;

use crate::escape::control;

use super::ReportInput;

struct Style {
    on: bool,
}

impl Style {
    /// `s` in colour `code` when colours are on (borrowed when they are
    /// off: a report of thousands of findings paints tens of thousands of
    /// pieces).
    fn paint<'a>(&self, code: &str, s: &'a str) -> Cow<'a, str> {
        if self.on {
            Cow::Owned(format!("\x1b[{code}m{s}\x1b[0m"))
        } else {
            Cow::Borrowed(s)
        }
    }
    fn severity(&self, sev: Severity) -> Cow<'static, str> {
        match sev {
            Severity::Error => self.paint("1;31", "error"),
            Severity::Warning => self.paint("1;33", "warning"),
            Severity::Note => self.paint("1;36", "note"),
        }
    }
    fn dim<'a>(&self, s: &'a str) -> Cow<'a, str> {
        self.paint("2", s)
    }
    fn bold<'a>(&self, s: &'a str) -> Cow<'a, str> {
        self.paint("1", s)
    }
    fn blue<'a>(&self, s: &'a str) -> Cow<'a, str> {
        self.paint("34", s)
    }
}

/// Rules whose ytt text adds to the one-line message (stack traces, the
/// nested overlay path).
fn shows_detail(f: &Finding) -> bool {
    matches!(
        f.rule,
        RuleId::TemplateError | RuleId::TemplateBudget | RuleId::OverlayError | RuleId::ValuesError
    )
}

/// A source line for a code frame, with the value of every secret-looking
/// key left out (CI logs are widely readable), and no character a terminal
/// or log reader acts on. When the finding's own key is secret, the whole
/// value on the line is hidden, whatever its shape (a list item under
/// `password:`).
fn frame_line(line: &str, key_path: Option<&str>, secrets: &crate::secrets::Secrets) -> String {
    let line = line.trim_end();
    let own_key_secret = key_path.is_some_and(|k| {
        k.split(['.', '[', ']', '='])
            .any(|piece| secrets.is_secret(piece))
    });
    if own_key_secret {
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
        return control(&format!(
            "{}{head}{}{}",
            &line[..indent],
            if head.is_empty() { "" } else { " " },
            crate::secrets::HIDDEN
        ))
        .into_owned();
    }
    control(&secrets.redact_line(line)).into_owned()
}

/// A line of ytt's detail text: a stack trace's source lines
/// (`file:3 | key: value`) lose their secret values as code frames do.
fn detail_line(l: &str) -> String {
    match l.split_once(" | ") {
        Some((place, src)) => control(&format!(
            "{place} | {}",
            crate::secrets::Secrets::default().redact_line(src)
        ))
        .into_owned(),
        None => control(l).into_owned(),
    }
}

/// Appends one line made of `parts` (pieces pushed as they are: the
/// formatting machinery cost more than the rest of a finding's frame in a
/// report of thousands).
fn line(out: &mut String, parts: &[&str]) {
    line_parts(out, parts);
    out.push('\n');
}

/// Appends `parts`, the start of a line.
fn line_parts(out: &mut String, parts: &[&str]) {
    for p in parts {
        out.push_str(p);
    }
}

/// `loc` as `path:line[:column]`, escaped, appended to `out`.
fn push_place(out: &mut String, loc: &crate::diagnostics::Location) {
    out.push_str(&control(&loc.path));
    out.push(':');
    push_number(out, loc.line);
    if loc.column > 0 {
        out.push(':');
        push_number(out, loc.column);
    }
}

/// `n` in decimal (without the formatting machinery: see [`line`]).
fn push_number(out: &mut String, n: u32) {
    let mut digits = [0u8; 10];
    let mut i = digits.len();
    let mut n = n;
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend(digits[i..].iter().map(|&d| char::from(d)));
}

/// `n` spaces appended to `out`.
fn push_spaces(out: &mut String, n: usize) {
    out.extend(std::iter::repeat_n(' ', n));
}

/// Appends one finding's frame. Pieces are pushed onto `out` as they are,
/// with as few strings made on the way as can be: a report may frame
/// thousands (a daemon's answer of 8,000 findings spent a fifth of its
/// time here).
fn finding(
    out: &mut String,
    f: &Finding,
    input: &ReportInput,
    st: &Style,
    cache: &mut SourceCache,
    secrets: &crate::secrets::Secrets,
) {
    out.push_str(&st.severity(f.severity));
    let id = control(f.rule_id());
    if st.on {
        out.push_str(&st.bold(&["[", &id, "]"].concat()));
    } else {
        line_parts(out, &["[", &id, "]"]);
    }
    line(out, &[" ", &control(&f.message)]);
    match &f.location {
        Some(loc) => {
            line_parts(out, &["  ", &st.blue("-->"), " "]);
            push_place(out, loc);
            out.push('\n');
            if let Some(code) = cache.line(input, &loc.path, loc.line) {
                let framed = frame_line(code, f.key_path.as_deref(), secrets);
                let mut n = String::new();
                push_number(&mut n, loc.line);
                let bar = st.blue("|");
                out.push_str("  ");
                push_spaces(out, n.len());
                line(out, &[" ", &bar]);
                line(out, &["  ", &st.blue(&n), " ", &bar, " ", &framed]);
                if loc.column > 0 {
                    out.push_str("  ");
                    push_spaces(out, n.len());
                    line_parts(out, &[" ", &bar, " "]);
                    if st.on {
                        let caret = " ".repeat(loc.column as usize - 1) + "^";
                        out.push_str(&st.paint("1;31", &caret));
                    } else {
                        push_spaces(out, loc.column as usize - 1);
                        out.push('^');
                    }
                    out.push('\n');
                }
            }
        }
        None => {
            if let Some(o) = &f.origin {
                line(out, &["  ", &st.blue("-->"), " ", &control(o)]);
            }
        }
    }
    for r in &f.related {
        line_parts(out, &["  ", &st.blue("="), " ", &control(&r.message), ": "]);
        push_place(out, &r.location);
        out.push('\n');
    }
    if shows_detail(f) && f.detail.len() > 1 {
        for l in &f.detail {
            line(out, &["  ", &st.blue("|"), " ", &st.dim(&detail_line(l))]);
        }
    } else {
        for l in f.detail.iter().filter(|l| l.starts_with("hint: ")) {
            line(out, &["  ", &st.blue("="), " ", &control(l)]);
        }
    }
    if !f.library.is_empty() {
        line_parts(out, &["  ", &st.blue("="), " in "]);
        push_pairs(out, f);
        out.push('\n');
    }
    out.push('\n');
}

/// [`super::pairs_of`], escaped, appended to `out`.
fn push_pairs(out: &mut String, f: &Finding) {
    if f.environments.is_empty() {
        out.push_str(&control(&f.library));
        return;
    }
    let library = control(&f.library);
    for (i, e) in f.environments.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(&library);
        out.push('@');
        out.push_str(&control(e));
    }
}

/// Files read for code frames, once each (a report of thousands of
/// findings takes one line of a file for each).
#[derive(Default)]
struct SourceCache {
    files: std::collections::HashMap<String, Option<std::sync::Arc<crate::yaml::SourceFile>>>,
}

impl SourceCache {
    fn line(&mut self, input: &ReportInput, path: &str, line: u32) -> Option<&str> {
        if !self.files.contains_key(path) {
            self.files.insert(path.to_string(), (input.source)(path));
        }
        let file = self.files.get(path)?.as_ref()?;
        // as `str::lines`: no line starts at the end of the text (after
        // its last line break), and a line is without its `\r\n` or `\n`
        let text = file.text();
        let past_the_end =
            line as usize == file.line_count() && (text.is_empty() || text.ends_with('\n'));
        if past_the_end {
            return None;
        }
        file.line_text(line)
    }
}

/// Findings framed on one thread below this many (a thread pool's start
/// costs more than a few hundred frames).
const PARALLEL_FROM: usize = 1024;
/// Findings framed in one piece of work.
const CHUNK: usize = 256;

pub fn render(input: &ReportInput) -> String {
    let st = Style { on: input.color };
    let secrets = crate::secrets::Secrets::default();
    let findings = &input.result.findings;
    let frames = |chunk: &[Finding]| {
        let mut out = String::new();
        let mut cache = SourceCache::default();
        for f in chunk {
            finding(&mut out, f, input, &st, &mut cache, &secrets);
        }
        out
    };
    // thousands of findings are framed on every core, in runs of
    // consecutive findings (which mostly share their files), and joined
    // in order
    // (in the pool the check ran in: no other is started for this)
    let parallel = findings.len() >= PARALLEL_FROM && rayon::current_thread_index().is_some();
    let mut out = if parallel {
        use rayon::prelude::*;
        let parts: Vec<String> = findings.par_chunks(CHUNK).map(frames).collect();
        let mut out = String::with_capacity(parts.iter().map(String::len).sum::<usize>() + 256);
        for p in &parts {
            out.push_str(p);
        }
        out
    } else {
        frames(findings)
    };
    let libraries = {
        let mut l: Vec<&str> = input
            .result
            .pairs
            .iter()
            .map(|p| p.library.as_str())
            .collect();
        l.sort();
        l.dedup();
        l.len()
    };
    let counts = input.counts();
    let summary = format!(
        "yttcheck: {} in {} pair{} of {} librar{} ({:.2}s)",
        counts.describe(),
        input.result.pairs.len(),
        if input.result.pairs.len() == 1 {
            ""
        } else {
            "s"
        },
        libraries,
        if libraries == 1 { "y" } else { "ies" },
        input.result.elapsed.as_secs_f64()
    );
    let summary = if input.failed() {
        st.paint("1;31", &summary)
    } else {
        st.paint("1;32", &summary)
    };
    out.push_str(&summary);
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_written_in_decimal() {
        for n in [0, 7, 10, 99, 100, 4_294_967_295u32] {
            let mut s = String::from("x");
            push_number(&mut s, n);
            assert_eq!(s, format!("x{n}"));
        }
    }

    #[test]
    fn secret_looking_values_stay_out_of_code_frames() {
        let secrets = crate::secrets::Secrets::default();
        let frame = |line: &str, key: Option<&str>| frame_line(line, key, &secrets);
        assert_eq!(
            frame("  db_password: hunter2", None),
            "  db_password: (value not shown)"
        );
        assert_eq!(frame("apiToken: abc", None), "apiToken: (value not shown)");
        assert_eq!(frame("tls.key: |", None), "tls.key: (value not shown)");
        assert_eq!(frame("replicas: 3", None), "replicas: 3");
        assert_eq!(frame("monkey: 3", None), "monkey: 3");
        assert_eq!(frame("password:", None), "password:");
        assert_eq!(
            frame("harborAdminPassword: x", None),
            "harborAdminPassword: (value not shown)"
        );
        assert_eq!(frame("keyboard: x", None), "keyboard: x");
        assert_eq!(
            frame("db: {host: h, password: qa-pw}", None),
            "db: {host: h, password: (value not shown)}"
        );
        // the finding's own key is secret: its value goes whatever its shape
        assert_eq!(
            frame("    - hunter2", Some("db.passwords[0]")),
            "    - (value not shown)"
        );
        assert_eq!(
            frame("  pw_list: [a, b]", Some("pw_list")),
            "  pw_list: [a, b]"
        );
        assert_eq!(
            frame("  tokens: [a, b]", Some("tokens")),
            "  tokens: (value not shown)"
        );
        assert_eq!(frame("a\x1b[2Jb", None), "a\\x1b[2Jb");
    }
}
