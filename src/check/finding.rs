//! Findings as `check` gathers them: re-exported from the diagnostics model,
//! plus their de-duplication across environments.

pub use crate::diagnostics::{Finding, Location, Related, Severity};

/// Merges findings that differ only in their environment (a bad default
/// fails in every environment: it is reported once, with all of them), and
/// sorts them.
pub fn dedupe(findings: Vec<Finding>) -> Vec<Finding> {
    let mut out: Vec<Finding> = Vec::new();
    let mut index = std::collections::HashMap::new();
    for f in findings {
        match index.get(&f.identity()) {
            Some(&i) => {
                let o: &mut Finding = &mut out[i];
                for e in f.environments {
                    if !o.environments.contains(&e) {
                        o.environments.push(e);
                    }
                }
            }
            None => {
                index.insert(f.identity(), out.len());
                out.push(f);
            }
        }
    }
    for f in &mut out {
        f.environments.sort();
    }
    out.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    out
}
