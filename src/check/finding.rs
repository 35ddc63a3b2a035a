//! Findings as `check` gathers them: re-exported from the diagnostics model,
//! plus their de-duplication across environments.

pub use crate::diagnostics::{Finding, Location, Related, Severity};

/// Merges findings that differ only in their environment (a bad default
/// fails in every environment: it is reported once, with all of them), and
/// sorts them.
pub fn dedupe(findings: Vec<Finding>) -> Vec<Finding> {
    // the first finding of each problem keeps its place; the others give it
    // their environments
    let mut first_of: Vec<usize> = Vec::with_capacity(findings.len());
    {
        let mut index = foldhash::HashMap::with_capacity_and_hasher(
            findings.len(),
            foldhash::fast::RandomState::default(),
        );
        for (i, f) in findings.iter().enumerate() {
            first_of.push(*index.entry(f.identity()).or_insert(i));
        }
    }
    let mut out: Vec<Finding> = Vec::with_capacity(findings.len());
    let mut slot = vec![usize::MAX; findings.len()];
    for (i, f) in findings.into_iter().enumerate() {
        let first = first_of[i];
        if first == i {
            slot[i] = out.len();
            out.push(f);
        } else {
            let o: &mut Finding = &mut out[slot[first]];
            for e in f.environments {
                if !o.environments.contains(&e) {
                    o.environments.push(e);
                }
            }
        }
    }
    for f in &mut out {
        f.environments.sort();
    }
    sort(out)
}

/// Sorts findings for reports ([`Finding::sort_key`]), stably.
pub fn sort(out: Vec<Finding>) -> Vec<Finding> {
    let order = sort_order(&out);
    let mut slots: Vec<Option<Finding>> = out.into_iter().map(Some).collect();
    order.into_iter().filter_map(|i| slots[i].take()).collect()
}

/// The indices of `findings` in report order (sorted by moving indices,
/// not findings: a finding is a few hundred bytes, and a run may have
/// thousands).
pub fn sort_order(findings: &[Finding]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..findings.len()).collect();
    order.sort_by(|&a, &b| findings[a].sort_key().cmp(&findings[b].sort_key()));
    order
}
