//! The JSON report: stable keys, documented in the README.
//!
//! ```json
//! {
//!   "version": 1,
//!   "summary": {"pairs": 4, "libraries": 2, "errors": 1, "warnings": 0, "notes": 0, "failed": true},
//!   "findings": [{"rule": "...", "severity": "error", "message": "...",
//!                 "location": {"path": "...", "line": 3, "column": 5},
//!                 "related": [...], "key_path": "...", "library": "...", "environments": ["..."]}],
//!   "pairs": [{"name": "web@prod", "library": "web", "environment": "prod",
//!              "errors": 1, "warnings": 0, "notes": 0}]
//! }
//! ```
//!
//! Timings are left out on purpose: the output of the same repository is
//! the same, byte for byte.
//!
//! At most [`MAX_FINDINGS`] findings are listed, the worst first (a pull
//! request can make hundreds of thousands: 60,000 were 37 MB); past it,
//! `"findings_not_listed": N` says how many were left out, and `summary`
//! still counts them all.

use serde_json::json;

use super::{Counts, ReportInput};

/// Most findings listed.
pub const MAX_FINDINGS: usize = 50_000;

pub fn render(input: &ReportInput) -> String {
    let counts = input.counts();
    let mut libraries: Vec<&str> = input
        .result
        .pairs
        .iter()
        .map(|p| p.library.as_str())
        .collect();
    libraries.sort();
    libraries.dedup();
    let mut pairs: Vec<serde_json::Value> = input
        .result
        .pairs
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let c = Counts::of(input.result.findings_of(i));
            let mut pair = json!({
                "name": p.name,
                "library": p.library,
                "environment": p.environment,
                "errors": c.errors,
                "warnings": c.warnings,
                "notes": c.notes,
            });
            if let Some(v) = input.result.kubernetes_versions.get(&p.environment) {
                pair["kubernetes_version"] = json!(v);
            }
            pair
        })
        .collect();
    pairs.sort_by(|a, b| a["name"].as_str().cmp(&b["name"].as_str()));
    let keep = super::worst_kept(&input.result.findings, MAX_FINDINGS);
    let listed: Vec<&crate::check::Finding> = input
        .result
        .findings
        .iter()
        .zip(&keep)
        .filter(|(_, k)| **k)
        .map(|(f, _)| f)
        .collect();
    let not_listed = input.result.findings.len() - listed.len();
    let mut doc = json!({
        "version": 1,
        "summary": {
            "pairs": input.result.pairs.len(),
            "libraries": libraries.len(),
            "errors": counts.errors,
            "warnings": counts.warnings,
            "notes": counts.notes,
            "failed": input.failed(),
        },
        "findings": listed,
        "pairs": pairs,
    });
    if not_listed > 0 {
        doc["findings_not_listed"] = json!(not_listed);
    }
    let s = serde_json::to_string_pretty(&doc).unwrap_or_else(|_| "{}".into());
    crate::escape::json::harden(&s) + "\n"
}
