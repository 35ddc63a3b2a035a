//! The default report: each finding with a code frame of the offending line,
//! what decided it, and where it happens; then a summary line.

use crate::check::{Finding, Severity};
use crate::diagnostics::RuleId;
use crate::escape::control;

use super::{pairs_of, ReportInput};

struct Style {
    on: bool,
}

impl Style {
    fn paint(&self, code: &str, s: &str) -> String {
        if self.on {
            format!("\x1b[{code}m{s}\x1b[0m")
        } else {
            s.to_string()
        }
    }
    fn severity(&self, sev: Severity) -> String {
        match sev {
            Severity::Error => self.paint("1;31", "error"),
            Severity::Warning => self.paint("1;33", "warning"),
            Severity::Note => self.paint("1;36", "note"),
        }
    }
    fn dim(&self, s: &str) -> String {
        self.paint("2", s)
    }
    fn bold(&self, s: &str) -> String {
        self.paint("1", s)
    }
    fn blue(&self, s: &str) -> String {
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
fn frame_line(line: &str, key_path: Option<&str>) -> String {
    let secrets = crate::secrets::Secrets::default();
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

fn finding(
    out: &mut String,
    f: &Finding,
    input: &ReportInput,
    st: &Style,
    cache: &mut SourceCache,
) {
    out.push_str(&format!(
        "{}{} {}\n",
        st.severity(f.severity),
        st.bold(&format!("[{}]", control(f.rule_id()))),
        control(&f.message)
    ));
    match &f.location {
        Some(loc) => {
            out.push_str(&format!(
                "  {} {}\n",
                st.blue("-->"),
                control(&loc.display())
            ));
            if let Some(line) = cache.line(input, &loc.path, loc.line) {
                let n = loc.line.to_string();
                let pad = " ".repeat(n.len());
                out.push_str(&format!("  {pad} {}\n", st.blue("|")));
                out.push_str(&format!(
                    "  {} {} {}\n",
                    st.blue(&n),
                    st.blue("|"),
                    frame_line(&line, f.key_path.as_deref())
                ));
                if loc.column > 0 {
                    let caret = " ".repeat(loc.column as usize - 1) + "^";
                    out.push_str(&format!(
                        "  {pad} {} {}\n",
                        st.blue("|"),
                        st.paint("1;31", &caret)
                    ));
                }
            }
        }
        None => {
            if let Some(o) = &f.origin {
                out.push_str(&format!("  {} {}\n", st.blue("-->"), control(o)));
            }
        }
    }
    for r in &f.related {
        out.push_str(&format!(
            "  {} {}: {}\n",
            st.blue("="),
            control(&r.message),
            control(&r.location.display())
        ));
    }
    if shows_detail(f) && f.detail.len() > 1 {
        for l in &f.detail {
            out.push_str(&format!("  {} {}\n", st.blue("|"), st.dim(&detail_line(l))));
        }
    } else {
        for l in f.detail.iter().filter(|l| l.starts_with("hint: ")) {
            out.push_str(&format!("  {} {}\n", st.blue("="), control(l)));
        }
    }
    if !f.library.is_empty() {
        out.push_str(&format!(
            "  {} in {}\n",
            st.blue("="),
            control(&pairs_of(f))
        ));
    }
    out.push('\n');
}

/// Files read for code frames, once each.
#[derive(Default)]
struct SourceCache {
    files: std::collections::HashMap<String, Option<Vec<String>>>,
}

impl SourceCache {
    fn line(&mut self, input: &ReportInput, path: &str, line: u32) -> Option<String> {
        let lines = self
            .files
            .entry(path.to_string())
            .or_insert_with(|| (input.source)(path).map(|t| t.lines().map(String::from).collect()));
        lines.as_ref()?.get(line.checked_sub(1)? as usize).cloned()
    }
}

pub fn render(input: &ReportInput) -> String {
    let st = Style { on: input.color };
    let mut out = String::new();
    let mut cache = SourceCache::default();
    for f in &input.result.findings {
        finding(&mut out, f, input, &st, &mut cache);
    }
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
    fn secret_looking_values_stay_out_of_code_frames() {
        assert_eq!(
            frame_line("  db_password: hunter2", None),
            "  db_password: (value not shown)"
        );
        assert_eq!(
            frame_line("apiToken: abc", None),
            "apiToken: (value not shown)"
        );
        assert_eq!(frame_line("tls.key: |", None), "tls.key: (value not shown)");
        assert_eq!(frame_line("replicas: 3", None), "replicas: 3");
        assert_eq!(frame_line("monkey: 3", None), "monkey: 3");
        assert_eq!(frame_line("password:", None), "password:");
        assert_eq!(
            frame_line("harborAdminPassword: x", None),
            "harborAdminPassword: (value not shown)"
        );
        assert_eq!(frame_line("keyboard: x", None), "keyboard: x");
        assert_eq!(
            frame_line("db: {host: h, password: qa-pw}", None),
            "db: {host: h, password: (value not shown)}"
        );
        // the finding's own key is secret: its value goes whatever its shape
        assert_eq!(
            frame_line("    - hunter2", Some("db.passwords[0]")),
            "    - (value not shown)"
        );
        assert_eq!(
            frame_line("  pw_list: [a, b]", Some("pw_list")),
            "  pw_list: [a, b]"
        );
        assert_eq!(
            frame_line("  tokens: [a, b]", Some("tokens")),
            "  tokens: (value not shown)"
        );
        assert_eq!(frame_line("a\x1b[2Jb", None), "a\\x1b[2Jb");
    }
}
