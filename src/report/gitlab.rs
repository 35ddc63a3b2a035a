//! GitLab Code Quality: the JSON array GitLab reads from a job's
//! `artifacts:reports:codequality` file, shown in the merge request widget
//! and on the diff.
//!
//! Each issue needs `description`, `check_name`, `fingerprint`, `severity`
//! (`info`, `minor`, `major`, `critical`, `blocker`) and `location.path` with
//! `location.lines.begin`. GitLab tells new from fixed issues by comparing
//! the fingerprints of the merge request's report with the target branch's,
//! so a fingerprint must be stable across line moves (the SARIF one is) and
//! unique within a report (GitLab keeps one issue per fingerprint).

use std::collections::BTreeMap;

use serde_json::json;

use crate::check::Severity;

use super::{pairs_of, stable_fingerprint, ReportInput};

fn severity(s: Severity) -> &'static str {
    match s {
        Severity::Error => "major",
        Severity::Warning => "minor",
        Severity::Note => "info",
    }
}

pub fn render(input: &ReportInput) -> String {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let issues: Vec<serde_json::Value> = input
        .result
        .findings
        .iter()
        .map(|f| {
            let anchor =
                input.in_repo(&input.anchor(f).unwrap_or_else(|| {
                    crate::check::Location::file(crate::workspace::CONFIG_FILE)
                }));
            let mut fingerprint = stable_fingerprint(f, &anchor);
            // two findings with one fingerprint would merge in GitLab
            let n = seen.entry(fingerprint.clone()).or_insert(0);
            *n += 1;
            if *n > 1 {
                fingerprint = format!("{fingerprint}-{n}");
            }
            let mut description = f.message_with_hints();
            description.push_str(&format!(" (in {})", pairs_of(f)));
            json!({
                "type": "issue",
                "check_name": f.rule_id(),
                "description": description,
                "categories": ["Bug Risk"],
                "severity": severity(f.severity),
                "fingerprint": fingerprint,
                "location": {
                    "path": anchor.path,
                    "lines": {"begin": anchor.line.max(1)},
                },
            })
        })
        .collect();
    let s = serde_json::to_string_pretty(&issues).unwrap_or_else(|_| "[]".into());
    crate::escape::json::harden(&s) + "\n"
}
