//! Markdown for `$GITHUB_STEP_SUMMARY` or a pull request comment: a headline,
//! a table of findings, and the pairs in a collapsed section.

use crate::diagnostics::Severity;

use super::{pairs_of, Counts, ReportInput};

/// Escapes text for a table cell.
fn cell(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('\\', "\\\\")
        .replace('|', "\\|")
        .replace('`', "\\`")
        .replace('\n', "<br>")
}

/// Most findings listed: `$GITHUB_STEP_SUMMARY` takes at most 1 MiB.
const MAX_ROWS: usize = 300;

fn icon(s: Severity) -> &'static str {
    match s {
        Severity::Error => "❌",
        Severity::Warning => "⚠️",
        Severity::Note => "ℹ️",
    }
}

pub fn render(input: &ReportInput) -> String {
    let counts = input.counts();
    let mut out = String::new();
    out.push_str(&format!(
        "## {} yttcheck: {} in {} pair{}\n\n",
        if input.failed() { "❌" } else { "✅" },
        counts.describe(),
        input.result.pairs.len(),
        if input.result.pairs.len() == 1 {
            ""
        } else {
            "s"
        }
    ));
    if !input.result.findings.is_empty() {
        out.push_str("| | rule | where | message | pairs |\n|---|---|---|---|---|\n");
        for f in input.result.findings.iter().take(MAX_ROWS) {
            let place = input
                .anchor(f)
                .map(|l| cell(&l.display()))
                .unwrap_or_default();
            out.push_str(&format!(
                "| {} | `{}` | {} | {} | {} |\n",
                icon(f.severity),
                f.rule_id(),
                place,
                cell(&f.message_with_hints()),
                cell(&pairs_of(f))
            ));
        }
        if input.result.findings.len() > MAX_ROWS {
            out.push_str(&format!(
                "\n… and {} more (see the SARIF upload or `yttcheck check` output).\n",
                input.result.findings.len() - MAX_ROWS
            ));
        }
        out.push('\n');
    }
    let mut pairs: Vec<_> = input.result.pairs.iter().collect();
    pairs.sort_by(|a, b| a.name.cmp(&b.name));
    out.push_str("<details><summary>Pairs checked</summary>\n\n| pair | result |\n|---|---|\n");
    for p in pairs {
        let c = Counts::of(&p.findings);
        out.push_str(&format!(
            "| `{}` | {} |\n",
            cell(&p.name),
            if c == Counts::default() {
                "✅".to_string()
            } else {
                c.describe()
            }
        ));
    }
    out.push_str("\n</details>\n");
    out
}
