//! Markdown for `$GITHUB_STEP_SUMMARY` or a pull request comment: a headline,
//! a table of findings, and the pairs in a collapsed section.
//!
//! Every text from the repository (messages, paths, pair names) goes
//! through [`crate::escape::markdown`]: it renders as itself, inside its
//! table cell, and adds no structure of its own.

use crate::diagnostics::Severity;
use crate::escape::markdown::{code, text};

use super::{pairs_of, Counts, ReportInput};

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
    // the fleet's view: what blocks an upgrade, where
    let removed: Vec<_> = input
        .result
        .findings
        .iter()
        .filter(|f| f.rule == crate::diagnostics::RuleId::KubernetesRemovedApi)
        .collect();
    if !removed.is_empty() {
        let mut envs: Vec<&str> = removed
            .iter()
            .flat_map(|f| f.environments.iter().map(String::as_str))
            .collect();
        envs.sort();
        envs.dedup();
        out.push_str(&format!(
            "> ⚠️ {} object{} use{} an API removed in {} environment's Kubernetes version, which blocks {} upgrade: {}\n\n",
            removed.len(),
            if removed.len() == 1 { "" } else { "s" },
            if removed.len() == 1 { "s" } else { "" },
            if envs.len() == 1 { "its" } else { "their" },
            if envs.len() == 1 { "its" } else { "their" },
            envs.iter().map(|e| code(e)).collect::<Vec<_>>().join(", ")
        ));
    }
    if !input.result.findings.is_empty() {
        out.push_str("| | rule | where | message | pairs |\n|---|---|---|---|---|\n");
        for f in input.result.findings.iter().take(MAX_ROWS) {
            let place = input
                .anchor(f)
                .map(|l| code(&l.display()))
                .unwrap_or_default();
            out.push_str(&format!(
                "| {} | {} | {} | {} | {} |\n",
                icon(f.severity),
                code(f.rule_id()),
                place,
                text(&f.message_with_hints()),
                match pairs_of(f) {
                    p if p.is_empty() => p,
                    p => code(&p),
                }
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
    let mut pairs: Vec<_> = input.result.pairs.iter().enumerate().collect();
    pairs.sort_by(|(_, a), (_, b)| a.name.cmp(&b.name));
    out.push_str("<details><summary>Pairs checked</summary>\n\n| pair | result |\n|---|---|\n");
    for (i, p) in pairs {
        let c = Counts::of(input.result.findings_of(i));
        out.push_str(&format!(
            "| {} | {} |\n",
            code(&p.name),
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
