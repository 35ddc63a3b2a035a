//! GitHub Actions workflow commands: `::error file=..,line=..::message`, which
//! GitHub shows as annotations on the pull request's diff.
//!
//! GitHub shows at most 10 error and 10 warning annotations per step (and 10
//! notices): the worst come first, and a last notice says how many more there
//! are and where to find them.

use crate::check::{Finding, Severity};
use crate::escape::control;

use super::{pairs_of, ReportInput};

/// Annotations GitHub shows per kind and step.
pub const GITHUB_LIMIT: usize = 10;

/// Escapes a command's message (GitHub's `escapeData`, and every other
/// unsafe character made visible: see [`crate::escape::workflow`]).
pub fn escape_data(s: &str) -> String {
    crate::escape::workflow::data(s)
}

/// Escapes a property value (GitHub's `escapeProperty`).
pub fn escape_property(s: &str) -> String {
    crate::escape::workflow::property(s)
}

fn command(f: &Finding, input: &ReportInput) -> String {
    let kind = match f.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note => "notice",
    };
    let mut props = Vec::new();
    if let Some(loc) = input.anchor(f).map(|l| input.in_repo(&l)) {
        props.push(format!("file={}", escape_property(&loc.path)));
        props.push(format!("line={}", loc.line));
        if loc.column > 0 {
            props.push(format!("col={}", loc.column));
        }
    }
    props.push(format!(
        "title={}",
        escape_property(&format!("yttcheck {}", f.rule_id()))
    ));
    // repository text is made one line here, so that the only line breaks
    // of the annotation are ours
    let mut message = control(&f.message_with_hints()).into_owned();
    for r in &f.related {
        message.push_str(&format!(
            "\n{}: {}",
            control(&r.message),
            control(&r.location.display())
        ));
    }
    if let Some(o) = &f.origin {
        message.push_str(&format!("\nvalue from {}", control(o)));
    }
    let pairs = pairs_of(f);
    if !pairs.is_empty() {
        message.push_str(&format!("\nin {}", control(&pairs)));
    }
    format!("::{kind} {}::{}\n", props.join(","), escape_data(&message))
}

pub fn render(input: &ReportInput) -> String {
    let mut out = String::new();
    let mut shown = [0usize; 3];
    let mut hidden = 0usize;
    // findings are sorted worst first
    for f in &input.result.findings {
        let i = f.severity as usize;
        if shown[i] < GITHUB_LIMIT {
            shown[i] += 1;
            out.push_str(&command(f, input));
        } else {
            hidden += 1;
        }
    }
    if hidden > 0 {
        // as a notice unless notices are used up (then GitHub would hide it)
        let kind = if shown[Severity::Note as usize] < GITHUB_LIMIT {
            "notice"
        } else {
            "warning"
        };
        out.push_str(&format!(
            "::{kind} title=yttcheck::{}\n",
            escape_data(&format!(
                "{hidden} more finding{} than GitHub shows as annotations; see the SARIF upload (code scanning) or the job summary for all {} findings",
                if hidden == 1 { "" } else { "s" },
                input.result.findings.len()
            ))
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_like_the_actions_toolkit() {
        assert_eq!(escape_data("50% done\nnext"), "50%25 done%0Anext");
        assert_eq!(escape_property("a:b,c"), "a%3Ab%2Cc");
    }
}
