//! Silencing findings the way linters do it, after a check has run:
//!
//! 1. `.yttcheck.yml` `rules:` sets a rule's severity, or turns it `off`;
//! 2. `.yttcheck.yml` `ignore:` drops a rule's findings in some paths;
//! 3. an inline ytt comment on the finding's line or the line above,
//!    `#! yttcheck: ignore[rule-id, other-rule] why`, drops that finding
//!    (`#!` is ytt's comment, so ytt never sees it);
//! 4. a baseline (`check --baseline FILE`) drops findings whose fingerprint
//!    it holds, in the environments it accepted them in, so a repository
//!    adopts yttcheck and fails only on new ones: the same problem in an
//!    environment the baseline does not list (a new one) is new.
//!
//! What silenced nothing is reported (`suppression/unused`, a note) when the
//! whole repository was checked: a suppression that outlives its problem
//! would hide the next one.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::diagnostics::{Finding, Location, RuleId, Severity};
use crate::source::{RepoPath, SourceCache};
use crate::workspace::Plan;
use crate::yaml::SourceFile;

use super::finding::dedupe;
use super::CheckResult;

/// The marker of an inline suppression, after `#!`.
const INLINE: &str = "yttcheck: ignore[";

/// A baseline file: the fingerprints of the findings a repository accepted.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Baseline {
    pub version: u32,
    pub findings: Vec<BaselineEntry>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BaselineEntry {
    /// [`Finding::fingerprint`]: the rule, the library, the file, the key
    /// path (or the message) and the offending line's text (trimmed), so
    /// that lines moving up or down keep it.
    pub fingerprint: String,
    /// The environments the finding was accepted in; the same finding in
    /// another environment is not silenced. Absent in baselines written
    /// before yttcheck kept them: then every environment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub environments: Option<Vec<String>>,
    /// For the reader of the file; matching is by fingerprint alone.
    pub rule: String,
    #[serde(default)]
    pub path: String,
    #[serde(default)]
    pub message: String,
}

impl Baseline {
    pub fn parse(text: &str) -> Result<Baseline, String> {
        let b: Baseline = serde_json::from_str(text).map_err(|e| e.to_string())?;
        if b.version != 1 {
            return Err(format!("unknown baseline version {}", b.version));
        }
        Ok(b)
    }

    /// The baseline of `findings` (sorted, so the file diffs well).
    pub fn of(findings: &[Finding], sources: &SourceCache) -> Baseline {
        let mut entries: Vec<BaselineEntry> = findings
            .iter()
            .map(|f| BaselineEntry {
                fingerprint: f.fingerprint(line_text(sources, f.location.as_ref()).as_deref()),
                environments: Some(f.environments.clone()),
                rule: f.rule_id().to_string(),
                path: f
                    .location
                    .as_ref()
                    .map(|l| l.path.clone())
                    .unwrap_or_default(),
                message: f.message.clone(),
            })
            .collect();
        entries.sort_by(|a, b| {
            (&a.path, &a.rule, &a.fingerprint).cmp(&(&b.path, &b.rule, &b.fingerprint))
        });
        // one entry per fingerprint, accepted in every environment of its
        // findings
        entries.dedup_by(|a, b| {
            let same = a.fingerprint == b.fingerprint;
            if same {
                if let (Some(keep), Some(more)) = (&mut b.environments, a.environments.take()) {
                    keep.extend(more);
                }
            }
            same
        });
        for e in &mut entries {
            if let Some(envs) = &mut e.environments {
                envs.sort();
                envs.dedup();
            }
        }
        Baseline {
            version: 1,
            findings: entries,
        }
    }

    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).unwrap_or_default();
        s.push('\n');
        s
    }
}

/// Each finding's fingerprint ([`Finding::fingerprint`], with its line's
/// text): what a baseline keeps, and what tells a change's new findings
/// from those that stood on its base.
pub fn fingerprints(findings: &[Finding], sources: &SourceCache) -> Vec<String> {
    findings
        .iter()
        .map(|f| f.fingerprint(line_text(sources, f.location.as_ref()).as_deref()))
        .collect()
}

/// The text of a location's line.
fn line_text(sources: &SourceCache, loc: Option<&Location>) -> Option<String> {
    let loc = loc?;
    let src = sources.get(&RepoPath::new(&loc.path)?).ok()?;
    src.text()
        .lines()
        .nth(loc.line.checked_sub(1)? as usize)
        .map(str::to_string)
}

/// An inline `#! yttcheck: ignore[...]` comment: the rules it names.
fn inline_rules(line: &str) -> Option<Vec<String>> {
    let i = line.find("#!")?;
    let rest = line[i + 2..].trim_start();
    let rest = rest.strip_prefix(INLINE)?;
    let end = rest.find(']')?;
    Some(
        rest[..end]
            .split(',')
            .map(|r| r.trim().to_string())
            .filter(|r| !r.is_empty())
            .collect(),
    )
}

/// Which of a file's lines hold an inline suppression, and of which rules.
fn inline_in(text: &str) -> Vec<(u32, Vec<String>)> {
    // most files have none: one scan of the text instead of one per line
    if !text.contains(INLINE) {
        return Vec::new();
    }
    text.lines()
        .enumerate()
        .filter_map(|(i, l)| inline_rules(l).map(|r| (i as u32 + 1, r)))
        .collect()
}

/// Applies every suppression to `result` (as [`super::run`] gives it: its
/// findings de-duplicated and sorted); `whole` says the whole repository
/// was checked (only then is a suppression that silenced nothing news).
pub fn apply(
    result: &mut CheckResult,
    plan: &Plan,
    sources: &SourceCache,
    baseline: Option<&Baseline>,
    whole: bool,
    rendered: bool,
    min_severity: Option<Severity>,
) {
    let ignores: Vec<(usize, &str, Vec<globset::GlobMatcher>)> = plan
        .ignore
        .iter()
        .enumerate()
        .map(|(i, ig)| {
            let globs = ig
                .paths
                .iter()
                .filter_map(|p| crate::workspace::patterns::glob(p).ok())
                .collect();
            (i, ig.rule.as_str(), globs)
        })
        .collect();
    let mut used_ignores = BTreeSet::new();
    let mut used_inline: BTreeSet<(String, u32, String)> = BTreeSet::new();
    // every file a pair reads (when unused suppressions are news), sorted
    let read_by_pairs: std::sync::Arc<[RepoPath]> = if whole {
        plan.files_read_by_pairs()
    } else {
        std::sync::Arc::from([])
    };
    // (every file a finding is in: looked up below, never read there)
    let inline_cache = inline_of_files(result, &read_by_pairs, sources);
    // fingerprint -> the environments it was accepted in (`None`: all)
    let mut baseline_set: BTreeMap<&str, Option<BTreeSet<&str>>> = BTreeMap::new();
    for e in baseline.map(|b| b.findings.as_slice()).unwrap_or_default() {
        let accepted = e
            .environments
            .as_ref()
            .map(|envs| envs.iter().map(String::as_str).collect::<BTreeSet<_>>());
        match baseline_set.entry(e.fingerprint.as_str()) {
            std::collections::btree_map::Entry::Vacant(v) => {
                v.insert(accepted);
            }
            std::collections::btree_map::Entry::Occupied(mut o) => match (o.get_mut(), accepted) {
                (Some(have), Some(more)) => have.extend(more),
                (slot, _) => *slot = None,
            },
        }
    }
    let mut used_baseline: BTreeSet<String> = BTreeSet::new();

    let mut severity_memo: foldhash::HashMap<String, Option<&str>> = Default::default();
    let mut vendored_memo: foldhash::HashMap<String, bool> = Default::default();
    // whether a severity changed (the report's order puts the worst first)
    let mut regraded = false;
    let mut suppressed = |f: &mut Finding,
                          used_ignores: &mut BTreeSet<usize>,
                          used_inline: &mut BTreeSet<(String, u32, String)>,
                          inline_cache: &InlineCache,
                          used_baseline: &mut BTreeSet<String>|
     -> Option<String> {
        // 1. severity (decided once per rule id: thousands of findings
        // share a few)
        let level = match severity_memo.get(f.rule_id()) {
            Some(level) => *level,
            None => {
                let level = severity_override(plan, f);
                severity_memo.insert(f.rule_id().to_string(), level);
                level
            }
        };
        match level {
            Some("off") => return Some(format!("`rules:` turns {} off", f.rule_id())),
            Some(level) => {
                if let Some(s) = Severity::parse(level) {
                    regraded |= f.severity != s;
                    f.severity = s;
                }
            }
            None => {}
        }
        // a vendored package's lints are its authors' to fix: notes (unless
        // `rules:` set the rule's severity)
        if level.is_none() && f.severity != Severity::Note && f.rule.is_authoring_lint() {
            if let Some(loc) = &f.location {
                let vendored = *vendored_memo
                    .entry(loc.path.clone())
                    .or_insert_with(|| plan.is_vendored(&loc.path));
                if vendored {
                    regraded = true;
                    f.severity = Severity::Note;
                }
            }
        }
        if min_severity.is_some_and(|m| !f.severity.reaches(m)) {
            return Some("`min_severity` leaves it out".to_string());
        }
        let loc = f.location.as_ref()?;
        // 2. config ignores
        for (i, rule, globs) in &ignores {
            let rule_matches = f.rule_selected_by(rule);
            if rule_matches && globs.iter().any(|g| g.is_match(&loc.path)) {
                used_ignores.insert(*i);
                return Some(format!("`ignore:` of {rule} in .yttcheck.yml"));
            }
        }
        // 3. inline, on the line or the line above (each file read once,
        // before: a run may have thousands of findings in the same files)
        for (line, rules) in inline_cache.get(loc.path.as_str()) {
            if (*line == loc.line || *line + 1 == loc.line)
                && rules.iter().any(|r| f.rule_selected_by(r))
            {
                let r = rules.iter().find(|r| f.rule_selected_by(r));
                let r = r.map_or_else(|| f.rule_id().to_string(), String::clone);
                used_inline.insert((loc.path.clone(), *line, r));
                return Some(format!("inline ignore {}:{line}", loc.path));
            }
        }
        // 4. baseline: in the environments it was accepted in
        if !baseline_set.is_empty() {
            let fp = f.fingerprint(line_text(sources, Some(loc)).as_deref());
            if let Some(accepted) = baseline_set.get(fp.as_str()) {
                used_baseline.insert(fp);
                let Some(accepted) = accepted else {
                    return Some("the baseline".to_string());
                };
                let new: Vec<String> = f
                    .environments
                    .iter()
                    .filter(|e| !accepted.contains(e.as_str()))
                    .cloned()
                    .collect();
                if new.is_empty() || f.environments.is_empty() {
                    return Some("the baseline".to_string());
                }
                // new in these environments only
                f.environments = new;
            }
        }
        None
    };

    // each problem is decided once, on the de-duplicated list; the pairs'
    // own lists (their summaries count what is reported) follow it
    let mut findings = std::mem::take(&mut result.findings);
    // whether each finding stays (a baseline may have taken some of its
    // environments: `f.environments` says where it is still reported)
    let mut silenced = Vec::new();
    let stays: Vec<bool> = findings
        .iter_mut()
        .map(|f| {
            match suppressed(
                f,
                &mut used_ignores,
                &mut used_inline,
                &inline_cache,
                &mut used_baseline,
            ) {
                Some(by) => {
                    silenced.push((f.clone(), by));
                    false
                }
                None => true,
            }
        })
        .collect();
    result.silenced = silenced;
    // what each pair reports: of the findings it became (see
    // `CheckResult::reported`), those that stay in its environment
    let per_pair: Vec<Vec<usize>> = result
        .pairs
        .iter()
        .enumerate()
        .map(|(p, pair)| {
            let environment = &pair.environment;
            let became = result
                .reported
                .get(p)
                .map(Vec::as_slice)
                .unwrap_or_default();
            became
                .iter()
                .map(|&i| i as usize)
                .filter(|&i| {
                    let d = &findings[i];
                    stays[i]
                        && (d.environments.is_empty()
                            || d.environments.iter().any(|e| e == environment))
                })
                .collect()
        })
        .collect();
    // the findings that stay, then the notes of unused suppressions, in
    // report order; `findings` came de-duplicated (and nothing above makes
    // two findings the same problem), but severities may have changed
    let mut position = vec![u32::MAX; findings.len()];
    let mut kept: Vec<Finding> = Vec::with_capacity(findings.len());
    for (i, (f, &stays)) in findings.into_iter().zip(&stays).enumerate() {
        if stays {
            position[i] = kept.len() as u32;
            kept.push(f);
        }
    }
    let before_notes = kept.len();
    if whole {
        kept.extend(
            dedupe(unused(
                plan,
                sources,
                &read_by_pairs,
                &used_ignores,
                &used_inline,
                &inline_cache,
                baseline,
                &used_baseline,
                rendered,
            ))
            .into_iter()
            .filter(|f| min_severity.is_none_or(|m| f.severity.reaches(m))),
        );
    }
    // `findings` came sorted; what is left of them still is, unless a
    // severity changed or notes follow them (a daemon's 8,000 findings
    // were compared pair by pair again at every check to learn it)
    let (sorted, sorted_at) = if regraded || kept.len() > before_notes {
        super::finding::sort_placed(kept)
    } else {
        debug_assert!(kept.is_sorted_by(|a, b| a.sort_key() <= b.sort_key()));
        let stay = (0..kept.len() as u32).collect();
        (kept, stay)
    };
    // (a result that says nothing of its pairs' findings keeps saying
    // nothing: each pair's own list stands)
    let says = result.reported.len() == result.pairs.len();
    result.reported = per_pair
        .into_iter()
        .filter(|_| says)
        .map(|found| {
            found
                .into_iter()
                .map(|i| sorted_at[position[i] as usize])
                .collect()
        })
        .collect();
    result.findings = sorted;
}

/// The files with inline suppressions among those a finding is in and
/// those a pair reads, by path (a run may have thousands of findings in
/// the same files, and most files have none).
struct InlineCache(foldhash::HashMap<String, Arc<SourceFile>>);

impl InlineCache {
    /// A file's inline suppressions (none when it has none).
    fn get(&self, path: &str) -> &[(u32, Vec<String>)] {
        match self.0.get(path) {
            Some(file) => file.inline_suppressions(inline_in),
            None => &[],
        }
    }
}

/// The inline suppressions of every file a finding is in and of the files
/// `also` names, looked for on every core of the pool this runs in: a run
/// may have thousands of files. Each file looks through its text once
/// ([`SourceFile::inline_suppressions`]): a daemon keeps its files.
fn inline_of_files(result: &CheckResult, also: &[RepoPath], sources: &SourceCache) -> InlineCache {
    let mut paths: foldhash::HashSet<&str> = foldhash::HashSet::default();
    let mut last = None;
    for f in &result.findings {
        let Some(path) = f.location.as_ref().map(|l| l.path.as_str()) else {
            continue;
        };
        // (findings come sorted by place: most follow one in the same file)
        if last != Some(path) {
            paths.insert(path);
            last = Some(path);
        }
    }
    paths.extend(also.iter().map(RepoPath::as_str));
    let with_some = |path: &&str| {
        let file = sources.get_str(path)?.ok()?;
        if file.inline_suppressions(inline_in).is_empty() {
            return None;
        }
        Some((path.to_string(), file))
    };
    InlineCache(if rayon::current_thread_index().is_some() {
        use rayon::prelude::*;
        let paths: Vec<&str> = paths.into_iter().collect();
        paths.par_iter().filter_map(with_some).collect()
    } else {
        paths.iter().filter_map(with_some).collect()
    })
}

/// The severity `rules:` sets for a finding: the most specific entry wins
/// (`policy/prod/replicas/min`, then `policy/prod/replicas`, `policy/prod`,
/// then the rule's id `policy/violation`, then its namespace `policy`).
fn severity_override<'p>(plan: &'p Plan, f: &Finding) -> Option<&'p str> {
    let mut id = f.rule_id();
    let mut candidates = Vec::new();
    while let Some(i) = id.rfind('/') {
        candidates.push(id);
        id = &id[..i];
    }
    candidates.push(f.rule.id());
    candidates.push(id);
    candidates
        .into_iter()
        .find_map(|c| plan.rules.get(c).map(String::as_str))
}

/// `suppression/unused` notes for what silenced nothing (without rendering,
/// only of what rendering could not have used).
#[allow(clippy::too_many_arguments)] // what was used, of each kind of suppression
fn unused(
    plan: &Plan,
    sources: &SourceCache,
    read_by_pairs: &[RepoPath],
    used_ignores: &BTreeSet<usize>,
    used_inline: &BTreeSet<(String, u32, String)>,
    inline_cache: &InlineCache,
    baseline: Option<&Baseline>,
    used_baseline: &BTreeSet<String>,
    rendered: bool,
) -> Vec<Finding> {
    // a run without rendering cannot know about what only rendering raises
    let knowable = |pattern: &str| rendered || !RuleId::pattern_may_need_rendering(pattern);
    let mut out = Vec::new();
    let note = |message: String, location: Option<Location>| {
        Finding::new(RuleId::SuppressionUnused, message, location)
    };
    // inline comments in every file a pair reads (all looked for before)
    for path in read_by_pairs.iter().map(RepoPath::as_str) {
        for (line, rules) in inline_cache.get(path) {
            let line = *line;
            for rule in rules {
                if !knowable(rule) {
                    continue;
                }
                let used = used_inline
                    .iter()
                    .any(|(p, l, r)| p == path && *l == line && (r == rule || rule == "*"));
                if !used {
                    let mut loc = Location::file(path);
                    loc.line = line;
                    let what = if crate::diagnostics::rules::is_rule_pattern(rule) {
                        format!("`#! yttcheck: ignore[{rule}]` silences no finding here")
                    } else {
                        format!("`#! yttcheck: ignore[{rule}]` names no rule (`yttcheck explain` lists them)")
                    };
                    out.push(note(what, Some(loc)));
                }
            }
        }
    }
    // config ignores
    if let Some(config) = &plan.config {
        for (i, ig) in plan.ignore.iter().enumerate() {
            if !used_ignores.contains(&i) && knowable(&ig.rule) {
                let mut loc = Location::file(config.as_str());
                if let Ok(src) = sources.get(config) {
                    if let Some(n) = src
                        .text()
                        .lines()
                        .position(|l| ig.paths.first().is_some_and(|p| l.contains(p.as_str())))
                    {
                        loc.line = n as u32 + 1;
                    }
                }
                out.push(note(
                    format!(
                        "ignore[{i}] ({} in {}) silences no finding",
                        ig.rule,
                        ig.paths.join(", ")
                    ),
                    Some(loc),
                ));
            }
        }
    }
    // baseline entries
    if let Some(b) = baseline {
        let stale = b
            .findings
            .iter()
            .filter(|e| !used_baseline.contains(&e.fingerprint) && knowable(&e.rule))
            .count();
        if stale > 0 {
            out.push(note(
                format!(
                    "{stale} baseline entr{} match no finding any more (fixed, or changed): `yttcheck check --update-baseline FILE` rewrites it",
                    if stale == 1 { "y" } else { "ies" }
                ),
                None,
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::inline_rules;

    #[test]
    fn inline_comments() {
        assert_eq!(
            inline_rules(
                "replicas: 3  #! yttcheck: ignore[validation/min, values/deprecated] legacy"
            ),
            Some(vec!["validation/min".into(), "values/deprecated".into()])
        );
        assert_eq!(
            inline_rules("#! yttcheck: ignore[schema/undeclared-key]"),
            Some(vec!["schema/undeclared-key".into()])
        );
        assert_eq!(inline_rules("#! some comment"), None);
        assert_eq!(inline_rules("# yttcheck: ignore[x]"), None);
    }
}
