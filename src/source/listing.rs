//! Listings of snapshots (each path's blob id), and what differs between
//! two of them: what `--changed-since` and `diff` narrow a check to.

use std::collections::BTreeMap;

use gix::ObjectId;

use super::RepoPath;

/// Paths and blob ids of a snapshot, for telling what changed.
pub type Listing = BTreeMap<RepoPath, ObjectId>;

/// Paths that differ between two listings (added, removed or changed),
/// sorted: one walk of both in step (both are sorted), not a lookup of
/// each path of one in the other.
pub fn changed_paths(base: &Listing, head: &Listing) -> Vec<RepoPath> {
    use std::cmp::Ordering;
    let mut out: Vec<RepoPath> = Vec::new();
    let (mut b, mut h) = (base.iter().peekable(), head.iter().peekable());
    loop {
        match (b.peek(), h.peek()) {
            (None, None) => break,
            (Some((bp, _)), None) => {
                out.push((*bp).clone());
                b.next();
            }
            (None, Some((hp, _))) => {
                out.push((*hp).clone());
                h.next();
            }
            (Some((bp, bid)), Some((hp, hid))) => match bp.cmp(hp) {
                Ordering::Less => {
                    out.push((*bp).clone());
                    b.next();
                }
                Ordering::Greater => {
                    out.push((*hp).clone());
                    h.next();
                }
                Ordering::Equal => {
                    if bid != hid {
                        out.push((*hp).clone());
                    }
                    b.next();
                    h.next();
                }
            },
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The walk in step finds what a lookup of each path in the other
    /// listing finds: added, removed and changed paths, sorted, once each.
    #[test]
    fn changed_paths_are_those_added_removed_or_changed() {
        use proptest::prelude::*;
        let id = |n: u8| ObjectId::from_bytes_or_panic(&[n; 20]);
        let listing = prop::collection::btree_map(
            prop::sample::select(vec!["a", "a/b", "a/c.yml", "b", "b.yml", "c/d/e", "z"]),
            0u8..3,
            0..7,
        );
        proptest!(ProptestConfig::with_cases(2000), |(base in listing.clone(), head in listing)| {
            let to_listing = |m: &BTreeMap<&str, u8>| -> Listing {
                m.iter().map(|(p, n)| (RepoPath::new(p).unwrap(), id(*n))).collect()
            };
            let (base, head) = (to_listing(&base), to_listing(&head));
            let mut expected: Vec<RepoPath> = head
                .iter()
                .filter(|(p, i)| base.get(*p) != Some(*i))
                .map(|(p, _)| p.clone())
                .chain(base.keys().filter(|p| !head.contains_key(*p)).cloned())
                .collect();
            expected.sort();
            expected.dedup();
            prop_assert_eq!(changed_paths(&base, &head), expected);
        });
    }
}
