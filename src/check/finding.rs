//! Findings as `check` gathers them: re-exported from the diagnostics model,
//! plus their de-duplication across environments.

pub use crate::diagnostics::{Finding, Location, Related, Severity};

/// Merges findings that differ only in their environment (a bad default
/// fails in every environment: it is reported once, with all of them), and
/// sorts them.
pub fn dedupe(findings: Vec<Finding>) -> Vec<Finding> {
    dedupe_mapped(findings, None).0
}

/// [`dedupe`], with where each finding given went: the index in the
/// result of the finding it became; sorted with the help of `hint` when
/// given (a long-lived process's last order).
pub fn dedupe_mapped(findings: Vec<Finding>, hint: Option<&OrderHint>) -> (Vec<Finding>, Vec<u32>) {
    // the first finding of each problem keeps its place; the others give it
    // their environments
    let first_of = first_of_each_problem(&findings);
    let mut out: Vec<Finding> = Vec::with_capacity(findings.len());
    let mut slot = vec![usize::MAX; findings.len()];
    for (i, f) in findings.into_iter().enumerate() {
        let first = first_of[i];
        if first == i {
            slot[i] = out.len();
            out.push(f);
        } else {
            // the merged finding is a new one (copied here if it was
            // shared); one that merged nothing stays shared
            let o: &mut Finding = &mut out[slot[first]];
            for e in &f.environments {
                if !o.environments.contains(e) {
                    o.environments.push(e.clone());
                }
            }
        }
    }
    for f in &mut out {
        if !f.environments.is_sorted() {
            f.environments.sort();
        }
    }
    let (sorted, sorted_at) = sort_placed_with(out, hint);
    let went = first_of
        .iter()
        .map(|&first| sorted_at[slot[first]])
        .collect();
    (sorted, went)
}

/// For each finding, the index of the first finding of the same problem
/// ([`Finding::identity`]). Thousands of identities are hashed on every
/// core of the pool it runs in; the findings whose hashes meet are then
/// compared one by one.
fn first_of_each_problem(findings: &[Finding]) -> Vec<usize> {
    let hash = Finding::identity_hash;
    let hashes: Vec<u64> = if in_parallel(findings.len()) {
        use rayon::prelude::*;
        findings.par_iter().map(hash).collect()
    } else {
        findings.iter().map(hash).collect()
    };
    first_by_hash(findings, hashes)
}

/// [`first_of_each_problem`] with the identities' hashes given.
fn first_by_hash(findings: &[Finding], hashes: Vec<u64>) -> Vec<usize> {
    // hash -> the first finding with it; different problems whose hashes
    // meet (rare) are kept apart in `more`
    let mut seen: foldhash::HashMap<u64, usize> = foldhash::HashMap::with_capacity_and_hasher(
        findings.len(),
        foldhash::fast::RandomState::default(),
    );
    let mut more: foldhash::HashMap<u64, Vec<usize>> = Default::default();
    let mut first_of = Vec::with_capacity(findings.len());
    for (i, (f, h)) in findings.iter().zip(hashes).enumerate() {
        let first = match seen.entry(h) {
            std::collections::hash_map::Entry::Vacant(v) => *v.insert(i),
            std::collections::hash_map::Entry::Occupied(o) => {
                let j = *o.get();
                if findings[j].identity() == f.identity() {
                    j
                } else {
                    let others = more.entry(h).or_default();
                    match others
                        .iter()
                        .copied()
                        .find(|&k| findings[k].identity() == f.identity())
                    {
                        Some(k) => k,
                        None => {
                            others.push(i);
                            i
                        }
                    }
                }
            }
        };
        first_of.push(first);
    }
    first_of
}

/// Whether `n` findings are worth the threads of the pool this runs in
/// (none outside one: a process's other pools are not started for this).
fn in_parallel(n: usize) -> bool {
    n >= PARALLEL_FROM && rayon::current_thread_index().is_some()
}

/// Findings hashed and sorted on one thread below this many.
const PARALLEL_FROM: usize = 2048;

/// Sorts findings for reports ([`Finding::sort_key`]), stably.
pub fn sort(findings: Vec<Finding>) -> Vec<Finding> {
    sort_placed(findings).0
}

/// [`sort`], with where each finding given went: its index in the result.
pub fn sort_placed(findings: Vec<Finding>) -> (Vec<Finding>, Vec<u32>) {
    sort_placed_with(findings, None)
}

/// [`sort_placed`], starting from the order `hint` remembers.
fn sort_placed_with(findings: Vec<Finding>, hint: Option<&OrderHint>) -> (Vec<Finding>, Vec<u32>) {
    // (findings sorted before, and re-graded alike, are still in order)
    if findings.is_sorted_by(|a, b| a.sort_key() <= b.sort_key()) {
        let stay = (0..findings.len() as u32).collect();
        return (findings, stay);
    }
    let order = sort_order(&findings, hint);
    let mut sorted_at = vec![0u32; findings.len()];
    for (at, &k) in order.iter().enumerate() {
        sorted_at[k] = at as u32;
    }
    let mut slots: Vec<Option<Finding>> = findings.into_iter().map(Some).collect();
    let sorted = order.into_iter().filter_map(|i| slots[i].take()).collect();
    (sorted, sorted_at)
}

/// The indices of `findings` in report order (sorted by moving indices,
/// not findings: a finding is a few hundred bytes, and a run may have
/// thousands).
fn sort_order(findings: &[Finding], hint: Option<&OrderHint>) -> Vec<usize> {
    // by key, then as given: one order, whatever the sort starts from (a
    // stable sort of the findings as given)
    let by_key = |&a: &usize, &b: &usize| {
        findings[a]
            .sort_key()
            .cmp(&findings[b].sort_key())
            .then(a.cmp(&b))
    };
    // (whether the guess is the remembered order, whole)
    let (mut order, whole) = match hint {
        Some(hint) => hint.guess(findings),
        None => ((0..findings.len()).collect(), false),
    };
    let guessed = whole.then(|| order.clone());
    if hint.is_none() && in_parallel(findings.len()) {
        use rayon::prelude::*;
        order.par_sort_unstable_by(by_key);
    } else {
        // (a guess nearly right is a few runs: the sort finds them and
        // merges them, in a few comparisons per finding)
        order.sort_by(by_key);
    }
    if let Some(hint) = hint {
        // the same findings in the same order: what it remembers stands
        // (a daemon's check of nothing changed remade it, 8,000 entries)
        if guessed.as_ref() != Some(&order) {
            hint.remember(findings, &order);
        }
    }
    order
}

/// The order a long-lived process last sorted findings in, by problem: a
/// daemon's check passes on nearly all of the last check's problems (a pair
/// evaluated again after an edit finds the same ones, as new findings), and
/// sorting 8,000 of them from scratch took a tenth of its time. The sort starts from the
/// remembered order instead of the order given; where it starts does not
/// change the order it ends in (the comparison is total), so a stale or
/// wrong hint costs comparisons, never a different report.
#[derive(Default)]
pub struct OrderHint {
    /// (the hash of a finding's identity, its severity) -> its place: the
    /// sort key is a part of the identity, so a finding of the same problem
    /// sorts to the same place; two problems whose hashes meet make a
    /// poorer guess, nothing worse (and the identities' hashes are kept
    /// with the findings: no string is hashed for it)
    places: std::sync::Mutex<(Places, usize)>,
}

/// See [`OrderHint::places`].
type Places = foldhash::HashMap<(u64, Severity), u32>;

impl OrderHint {
    fn of(f: &Finding) -> (u64, Severity) {
        (f.identity_hash(), f.severity)
    }

    /// The findings' indices: those remembered, in their remembered order,
    /// then the others, as given; and whether that is every place it
    /// remembers, each taken by a finding it remembers (nothing new, none
    /// gone).
    fn guess(&self, findings: &[Finding]) -> (Vec<usize>, bool) {
        let places = self.places.lock().expect("order hint");
        let (places, len) = (&places.0, places.1);
        let mut at = vec![usize::MAX; len];
        let mut others = Vec::new();
        for (i, f) in findings.iter().enumerate() {
            match places.get(&Self::of(f)) {
                Some(&p) if at[p as usize] == usize::MAX => at[p as usize] = i,
                _ => others.push(i),
            }
        }
        let before = at.len();
        at.retain(|&i| i != usize::MAX);
        let whole = others.is_empty() && at.len() == before;
        at.extend(others);
        (at, whole)
    }

    /// Remembers `order` for the next sort.
    fn remember(&self, findings: &[Finding], order: &[usize]) {
        let mut places: Places =
            foldhash::HashMap::with_capacity_and_hasher(order.len(), Default::default());
        for (place, &i) in order.iter().enumerate() {
            places.insert(Self::of(&findings[i]), place as u32);
        }
        *self.places.lock().expect("order hint") = (places, order.len());
    }
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
        let (merged, went) = dedupe_mapped(given.clone(), None);
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
        assert_eq!(merged, dedupe(given.clone()));
        // problems whose hashes meet are still told apart
        let plain = first_of_each_problem(&given);
        assert_eq!(plain, [0, 1, 0, 3, 1]);
        assert_eq!(first_by_hash(&given, vec![7; given.len()]), plain);
    }

    /// A pair evaluated again finds its problems as new findings (fields
    /// of their own): the hint still knows their places, whole, and a sort
    /// from it is the stable order without remembering anew.
    #[test]
    fn a_hint_knows_the_same_problems_found_again() {
        let made = || -> Vec<Finding> {
            (0..40)
                .map(|i| at(&format!("f{}.yml", i % 7), i, &format!("e{}", i % 3), ""))
                .collect()
        };
        let hint = OrderHint::default();
        let first = made();
        let order = sort_order(&first, Some(&hint));
        let again = made();
        assert!(!again[0].shares_fields_with(&first[0]));
        let (guess, whole) = hint.guess(&again);
        assert!(whole, "the same problems, found again");
        assert_eq!(guess, order);
        // one problem gone and one new: not whole, and the same order as
        // a sort from nothing
        let mut changed = again.clone();
        changed[3] = at("new.yml", 1, "e0", "");
        assert!(!hint.guess(&changed).1);
        assert_eq!(
            sort_order(&changed, Some(&hint)),
            sort_order(&changed, None)
        );
    }

    /// Sorting from a remembered order ends in the order a stable sort of
    /// the findings as given ends in, whatever the hint remembers: the same
    /// findings moved, re-graded, dropped or joined by new ones, findings
    /// whose sort keys tie, and a hint of another list altogether.
    #[test]
    fn a_hinted_sort_ends_in_the_stable_order() {
        let mut seed = 7u64;
        let mut next = move |n: usize| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as usize % n
        };
        // (the same place twice, told apart only by a related place: their
        // sort keys tie)
        let mut pool: Vec<Finding> = (0..300)
            .map(|i| {
                let related = if i % 5 == 0 { "here" } else { "" };
                at(
                    &format!("f{}.yml", i % 13),
                    (i % 17) as u32,
                    &format!("e{i}"),
                    related,
                )
            })
            .collect();
        for (i, f) in pool.iter_mut().enumerate() {
            if i % 7 == 0 {
                f.severity = Severity::Warning;
            }
        }
        let hint = OrderHint::default();
        let other = OrderHint::default();
        let unrelated: Vec<Finding> = (0..50).map(|i| at("z.yml", i, "x", "")).collect();
        sort_order(&unrelated, Some(&other));
        let mut given: Vec<Finding> = pool[..200].to_vec();
        for round in 0..30 {
            let expected: Vec<usize> = {
                let mut o: Vec<usize> = (0..given.len()).collect();
                o.sort_by(|&a, &b| given[a].sort_key().cmp(&given[b].sort_key()));
                o
            };
            assert_eq!(sort_order(&given, Some(&hint)), expected, "round {round}");
            assert_eq!(sort_order(&given, Some(&other)), expected, "round {round}");
            assert_eq!(sort_order(&given, None), expected, "round {round}");
            // the next check: a few moved, re-graded, gone or new
            for _ in 0..5 {
                let (a, b) = (next(given.len()), next(given.len()));
                given.swap(a, b);
            }
            let r = next(given.len());
            given[r].severity = if given[r].severity == Severity::Error {
                Severity::Note
            } else {
                Severity::Error
            };
            given.remove(next(given.len()));
            given.insert(next(given.len()), pool[200 + next(100)].clone());
            if round % 10 == 9 {
                given.reverse();
            }
        }
    }
}
