//! A change's verdict, as code scanning gives it: which findings it brings
//! (new) and which stood on its base already. The base's findings are
//! those of the same libraries checked at the base revision, matched by
//! fingerprint (the rule, the library, the file, the key path and the
//! offending line's text: a line that moved is the same finding) **per
//! pair**: a finding of `web@prod` stood on the base only if the base's
//! `web@prod` had it (a failure new to prod on a line that already failed
//! in dev is the change's). A pair the change adds (a new environment) is
//! matched against its library's findings in any environment of the base:
//! a new environment of a library brings no new problem when the library's
//! own was there.

use std::collections::{BTreeSet, HashSet};

use super::check::{run, CheckRequest, Warm};
use super::{load_plan, open_source, UsageError};
use crate::source::SourceCache;

/// What the base of a change had: its pairs, and its findings' fingerprints
/// by pair and by library.
#[derive(Debug, Default, Clone)]
pub struct BaseFindings {
    /// (library, environment) of every pair the base checked.
    pairs: HashSet<(String, String)>,
    /// (library, environment, fingerprint) of each finding, in each of its
    /// environments.
    by_pair: HashSet<(String, String, String)>,
    /// (library, fingerprint) of each finding, whatever its environments.
    by_library: HashSet<(String, String)>,
    /// (library, fingerprint) of each finding a suppression dropped at the
    /// base: one dropped at the head too was not silenced by the change.
    silenced: HashSet<(String, String)>,
}

impl BaseFindings {
    /// Whether a finding of `library` in `environments` with `fingerprint`
    /// is not on the base: in some environment whose pair the base had,
    /// that pair lacked it; or, in an environment the change adds, the
    /// library lacked it everywhere.
    fn is_new(&self, library: &str, environments: &[String], fingerprint: &str) -> bool {
        let in_library = || {
            self.by_library
                .contains(&(library.to_string(), fingerprint.to_string()))
        };
        if environments.is_empty() {
            return !in_library();
        }
        environments.iter().any(|env| {
            let pair = (library.to_string(), env.clone());
            if self.pairs.contains(&pair) {
                !self
                    .by_pair
                    .contains(&(pair.0, pair.1, fingerprint.to_string()))
            } else {
                !in_library()
            }
        })
    }
}

/// The findings on a change's base, for the libraries the change's check
/// covers. A library that the base does not have contributes none
/// (everything of it is new).
pub fn base_findings(
    head: &CheckRequest,
    base: &str,
    warm: &Warm,
) -> Result<BaseFindings, UsageError> {
    let libraries = |sel: &super::Selection| -> Result<BTreeSet<String>, UsageError> {
        let source = open_source(sel)?;
        let cache = SourceCache::new(source.opened.snapshot());
        let plan = load_plan(&cache, &source, sel)?;
        Ok(plan
            .pairs
            .iter()
            .map(|p| plan.libraries[p.library].name.clone())
            .collect())
    };
    let covered = libraries(&head.selection)?;
    let mut sel = head.selection.clone();
    sel.rev = Some(base.to_string());
    sel.changed_since = None;
    sel.staged = false;
    sel.paths.clear();
    sel.libraries.clear();
    sel.environments.clear();
    sel.shard = None;
    let at_base = libraries(&sel)?;
    sel.libraries = covered.intersection(&at_base).cloned().collect();
    if sel.libraries.is_empty() {
        return Ok(BaseFindings::default());
    }
    let req = CheckRequest {
        selection: sel,
        outputs: Vec::new(),
        baseline: None,
        update_baseline: false,
        progress: false,
        ..head.clone()
    };
    run(&req, warm, |checked| {
        let mut base = BaseFindings::default();
        for p in &checked.plan.pairs {
            let library = &checked.plan.libraries[p.library].name;
            base.pairs.insert((library.clone(), p.environment.clone()));
        }
        let prints = crate::check::suppress::fingerprints(&checked.result.findings, checked.cache);
        for (f, print) in checked.result.findings.iter().zip(prints) {
            for env in &f.environments {
                base.by_pair
                    .insert((f.library.clone(), env.clone(), print.clone()));
            }
            base.by_library.insert((f.library.clone(), print));
        }
        for ((f, _), print) in checked.result.silenced.iter().zip(silenced_prints(checked)) {
            base.silenced.insert((f.library.clone(), print));
        }
        base
    })
}

/// Which of the head's findings are new (not on the base).
pub fn new_findings(checked: &super::check::Checked, base: &BaseFindings) -> Vec<bool> {
    crate::check::suppress::fingerprints(&checked.result.findings, checked.cache)
        .into_iter()
        .zip(&checked.result.findings)
        .map(|(print, f)| base.is_new(&f.library, &f.environments, &print))
        .collect()
}

/// The fingerprints of the findings a check's suppressions dropped, in
/// their order.
fn silenced_prints(checked: &super::check::Checked) -> Vec<String> {
    let silenced: Vec<crate::diagnostics::Finding> = checked
        .result
        .silenced
        .iter()
        .map(|(f, _)| f.clone())
        .collect();
    crate::check::suppress::fingerprints(&silenced, checked.cache)
}

/// What the change silences itself: each finding a suppression dropped at
/// the head that none dropped at the base (an inline ignore, a rule turned
/// off or a baseline entry the change adds for its own finding, or for
/// one that stood on the base), as what dropped it.
pub fn silenced_by_change(checked: &super::check::Checked, base: &BaseFindings) -> Vec<String> {
    silenced_prints(checked)
        .into_iter()
        .zip(&checked.result.silenced)
        .filter(|(print, (f, _))| !base.silenced.contains(&(f.library.clone(), print.clone())))
        .map(|(_, (_, by))| by.clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base() -> BaseFindings {
        let mut b = BaseFindings::default();
        for env in ["dev", "prod"] {
            b.pairs.insert(("web".into(), env.into()));
        }
        b.by_pair.insert(("web".into(), "dev".into(), "fp".into()));
        b.by_library.insert(("web".into(), "fp".into()));
        b
    }

    #[test]
    fn a_finding_is_matched_in_its_own_environment() {
        let b = base();
        assert!(!b.is_new("web", &["dev".into()], "fp"));
        // the base's prod did not fail there: new, though dev did
        assert!(b.is_new("web", &["prod".into()], "fp"));
        assert!(b.is_new("web", &["dev".into(), "prod".into()], "fp"));
        assert!(b.is_new("web", &["dev".into()], "other"));
    }

    #[test]
    fn an_added_environment_is_matched_against_its_library() {
        let b = base();
        assert!(!b.is_new("web", &["staging".into()], "fp"));
        assert!(b.is_new("web", &["staging".into()], "other"));
        assert!(b.is_new("api", &["staging".into()], "fp"));
    }
}
