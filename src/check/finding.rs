//! Findings as `check` gathers them: re-exported from the diagnostics model,
//! plus their de-duplication across environments.

pub use crate::diagnostics::{Finding, Location, Related, Severity};

/// Merges findings that differ only in their environment (a bad default
/// fails in every environment: it is reported once, with all of them), and
/// sorts them.
pub fn dedupe(findings: Vec<Finding>) -> Vec<Finding> {
    dedupe_mapped(findings).0
}

/// [`dedupe`], with where each finding given went: the index in the
/// result of the finding it became.
pub fn dedupe_mapped(findings: Vec<Finding>) -> (Vec<Finding>, Vec<u32>) {
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
    let order = sort_order(&out);
    let mut sorted_at = vec![0u32; out.len()];
    for (at, &k) in order.iter().enumerate() {
        sorted_at[k] = at as u32;
    }
    let went = first_of
        .iter()
        .map(|&first| sorted_at[slot[first]])
        .collect();
    let mut slots: Vec<Option<Finding>> = out.into_iter().map(Some).collect();
    let sorted = order.into_iter().filter_map(|i| slots[i].take()).collect();
    (sorted, went)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostics::RuleId;

    fn at(path: &str, line: u32, env: &str, related: &str) -> Finding {
        let mut l = Location::file(path);
        l.line = line;
        let mut f = Finding::new(
            RuleId::ValidationMin,
            "must be >= 1".into(),
            Some(l.clone()),
        );
        f.library = "web".into();
        f.environments = vec![env.into()];
        if !related.is_empty() {
            f.related.push(Related {
                location: l,
                message: related.into(),
            });
        }
        f
    }

    /// Each finding given maps to the merged finding of its problem, which
    /// lists its environment; findings that differ only where the identity
    /// hash does not look (related places) stay apart.
    #[test]
    fn dedupe_says_where_each_finding_went() {
        let given = vec![
            at("b.yml", 3, "prod", ""),
            at("a.yml", 1, "dev", ""),
            at("b.yml", 3, "dev", ""),
            at("b.yml", 3, "qa", "rule declared here"),
            at("a.yml", 1, "prod", ""),
        ];
        let (merged, went) = dedupe_mapped(given.clone());
        assert_eq!(merged.len(), 3);
        assert_eq!(went.len(), given.len());
        for (f, &i) in given.iter().zip(&went) {
            let m = &merged[i as usize];
            assert_eq!(m.identity(), f.identity());
            assert!(m.environments.contains(&f.environments[0]));
        }
        assert_eq!(went[0], went[2]);
        assert_eq!(went[1], went[4]);
        assert_ne!(went[0], went[3]);
        assert_eq!(merged[went[0] as usize].environments, ["dev", "prod"]);
        assert_eq!(merged, dedupe(given));
    }
}
