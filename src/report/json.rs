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

use serde_json::json;

use super::{Counts, ReportInput};

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
    let doc = json!({
        "version": 1,
        "summary": {
            "pairs": input.result.pairs.len(),
            "libraries": libraries.len(),
            "errors": counts.errors,
            "warnings": counts.warnings,
            "notes": counts.notes,
            "failed": input.failed(),
        },
        "findings": input.result.findings,
        "pairs": pairs,
    });
    let s = serde_json::to_string_pretty(&doc).unwrap_or_else(|_| "{}".into());
    crate::escape::json::harden(&s) + "\n"
}
