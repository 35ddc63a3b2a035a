//! A change's verdict, as code scanning gives it: which findings it brings
//! (new) and which stood on its base already. The base's findings are
//! those of the same libraries checked at the base revision (every
//! environment of theirs: a new environment of a library brings no new
//! problem when the library's own was there), matched by fingerprint (the
//! rule, the library, the file, the key path and the offending line's text:
//! a line that moved, or a finding of a new environment, is the same
//! finding).

use std::collections::{BTreeSet, HashSet};

use super::check::{run, CheckRequest, Warm};
use super::{load_plan, open_source, UsageError};
use crate::source::SourceCache;

/// The fingerprints of the findings on a change's base, for the libraries
/// the change's check covers. A library that the base does not have
/// contributes none (everything of it is new).
pub fn base_fingerprints(
    head: &CheckRequest,
    base: &str,
    warm: &Warm,
) -> Result<HashSet<String>, UsageError> {
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
        return Ok(HashSet::new());
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
        crate::check::suppress::fingerprints(&checked.result.findings, checked.cache)
            .into_iter()
            .collect()
    })
}

/// Which of the head's findings are new (not on the base).
pub fn new_findings(checked: &super::check::Checked, base: &HashSet<String>) -> Vec<bool> {
    crate::check::suppress::fingerprints(&checked.result.findings, checked.cache)
        .into_iter()
        .map(|f| !base.contains(&f))
        .collect()
}
