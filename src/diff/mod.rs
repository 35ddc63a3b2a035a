//! `yttcheck diff`: what a change does to the final data values of each
//! library x environment pair, and to each library's schema.
//!
//! * [`values`] — structural diff of data values, with secrets redacted;
//! * [`schema`] — schema compatibility (breaking or not);
//! * [`render`] — text, Markdown and JSON.

pub mod bound;
pub mod objects;
pub mod render;
pub mod schema;
pub mod values;

use std::collections::BTreeSet;

use serde::Serialize;

use crate::check::{CheckResult, Severity};
use crate::schema::DocType;
use crate::template::EvalOpts;
use crate::yaml::Document;

use schema::{compare, now_required, SchemaChange};
use values::{diff, Change, Secrets, Tree};

/// What happened to a pair between base and head.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PairStatus {
    /// Values at both sides.
    Compared,
    /// The pair exists at head only.
    Added,
    /// The pair exists at base only.
    Removed,
    /// Values could not be computed at base (the pair is broken there).
    BaseFailed,
    /// Values could not be computed at head.
    HeadFailed,
}

#[derive(Debug, Clone, Serialize)]
pub struct PairDiff {
    pub name: String,
    pub library: String,
    pub environment: String,
    pub status: PairStatus,
    pub changes: Vec<Change>,
    /// Findings at head (validation errors do not stop values being
    /// computed, so a pair can have both changes and errors).
    pub head_errors: usize,
    /// Errors at base; a pair with errors at head and none at base newly
    /// fails (whether or not its values changed).
    pub base_errors: usize,
    pub newly_failing: bool,
    /// Why the pair fails at head: its first errors (rule, message,
    /// place), so "newly fails" and "cannot be computed" say why.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub head_reasons: Vec<FailReason>,
    /// Why it fails at base, the same way.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub base_reasons: Vec<FailReason>,
    /// The rendered objects the change adds, removes or changes (when both
    /// sides rendered), removed first.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub objects: Vec<objects::ObjectChange>,
    /// Changes left out because the report reached its bound
    /// ([`bound::REPORT_BUDGET`]).
    #[serde(skip_serializing_if = "is_zero")]
    pub changes_not_shown: usize,
    /// A pair the change adds whose errors are all errors its library had
    /// at base in another environment: it fails "with findings already on
    /// the base", not newly (the verdict matches it the same way).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub fails_as_on_base: bool,
    /// When one side rendered and the other did not: the objects of the
    /// side that rendered, which could not be compared.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_compared: Option<NotCompared>,
}

/// The objects of a pair that could not be compared, because the other
/// side did not render.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NotCompared {
    /// The side that did not render: `base` or `head`.
    pub failed: &'static str,
    /// The titles of the other side's objects, at most
    /// [`MAX_NOT_COMPARED`] (`total` counts them all).
    pub objects: Vec<String>,
    pub total: usize,
}

/// The most objects a pair's "could not compare" line names.
pub const MAX_NOT_COMPARED: usize = 20;

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// One error that makes a pair fail.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FailReason {
    pub rule: String,
    pub message: String,
    /// `file:line`, when the error has a place.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at: Option<String>,
}

impl PairDiff {
    /// Whether the pair fails at both sides with the same errors (by rule,
    /// message and file: a line moved by the change is the same error).
    pub fn same_failure(&self) -> bool {
        let b: Vec<_> = self.base_reasons.iter().map(FailReason::key).collect();
        let h: Vec<_> = self.head_reasons.iter().map(FailReason::key).collect();
        self.base_errors == self.head_errors && b == h
    }
}

impl FailReason {
    /// What makes two errors the same across a change: rule, message and
    /// file, not lines (a line the change moved, in the place or quoted by
    /// the message's `on line file.yml:N`, is the same error).
    fn key(&self) -> (String, String, Option<String>) {
        (
            self.rule.clone(),
            crate::diagnostics::without_line_numbers(&self.message).into_owned(),
            self.at
                .as_ref()
                .map(|a| a.rsplit_once(':').map_or(a.clone(), |(f, _)| f.to_string())),
        )
    }
}

/// The most errors a pair's reasons list (the count says the rest).
pub const MAX_REASONS: usize = 5;

#[derive(Debug, Clone, Serialize)]
pub struct LibraryDiff {
    pub library: String,
    pub changes: Vec<SchemaChange>,
}

#[derive(Debug, Clone, Serialize)]
pub struct DiffReport {
    pub base: String,
    pub head: String,
    /// What the change does to the plan itself, said once (a configuration
    /// that renames a library, or declares environments otherwise).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    pub pairs: Vec<PairDiff>,
    pub schemas: Vec<LibraryDiff>,
}

impl DiffReport {
    pub fn breaking(&self) -> usize {
        self.schemas
            .iter()
            .flat_map(|l| &l.changes)
            .filter(|c| c.breaking)
            .count()
    }

    pub fn changed_pairs(&self) -> usize {
        self.pairs
            .iter()
            .filter(|p| {
                !p.changes.is_empty()
                    || !p.objects.is_empty()
                    || p.status != PairStatus::Compared
                    || p.not_compared.is_some()
            })
            .count()
    }
}

fn tree(values: &Option<Document>) -> Option<Tree> {
    values.as_ref().map(|d| Tree::from_value(&d.value))
}

/// The findings a side reports for its pair at `index`: after its
/// suppressions (a finding silenced there does not make the pair fail).
fn reported(side: &CheckResult, index: usize) -> Vec<&crate::check::Finding> {
    side.findings_of(index)
}

/// A pair's first errors, as the reasons it fails.
fn reasons(findings: &[&crate::check::Finding]) -> Vec<FailReason> {
    error_reasons(findings).take(MAX_REASONS).collect()
}

/// Each of a pair's errors, as a reason it fails.
fn error_reasons<'a>(
    findings: &'a [&crate::check::Finding],
) -> impl Iterator<Item = FailReason> + 'a {
    findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .map(|f| FailReason {
            rule: f.rule_id().to_string(),
            message: f.message.clone(),
            at: f
                .location
                .as_ref()
                .map(|l| format!("{}:{}", l.path, l.line)),
        })
}

/// Whether a pair the change adds fails only with errors its library had
/// at base in some environment (each of them matched by
/// [`FailReason::key`]).
fn fails_as_on_base(
    base: &CheckResult,
    library: &str,
    head_found: &[&crate::check::Finding],
) -> bool {
    let mut known = std::collections::HashSet::new();
    for (i, p) in base.pairs.iter().enumerate() {
        if p.library == library {
            known.extend(error_reasons(&reported(base, i)).map(|r| r.key()));
        }
    }
    let mut head = error_reasons(head_found).peekable();
    head.peek().is_some() && head.all(|r| known.contains(&r.key()))
}

/// The titles of a render's objects, when the other side did not render.
fn not_compared(failed: &'static str, rendered: &[Document]) -> NotCompared {
    let titles = objects::titles(rendered);
    NotCompared {
        failed,
        total: titles.len(),
        objects: titles.into_iter().take(MAX_NOT_COMPARED).collect(),
    }
}

fn errors(findings: &[&crate::check::Finding]) -> usize {
    findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .count()
}

/// Paths of the values whose schema default fails validation.
fn default_failures(dt: &DocType, opts: &EvalOpts) -> Vec<String> {
    let doc = Document {
        value: dt.default.clone(),
        pos: dt.pos.clone(),
        meta: Default::default(),
        injected: false,
    };
    match crate::validation::run(&doc, Some(dt), opts) {
        Ok(invs) => invs.into_iter().map(|i| i.path).collect(),
        Err(_) => Vec::new(),
    }
}

/// Each library's schema, by library name (see
/// [`crate::check::library_schemas`]).
pub type Schemas = std::collections::BTreeMap<String, Option<DocType>>;

/// Compares the pairs of two checks (run with `keep_values`), and the
/// schemas of their libraries.
#[allow(clippy::too_many_arguments)] // two sides of pairs and schemas, names, words, budgets, values
pub fn compare_results(
    base: &CheckResult,
    head: &CheckResult,
    base_schemas: &Schemas,
    head_schemas: &Schemas,
    base_name: &str,
    head_name: &str,
    secrets: &Secrets,
    opts: &EvalOpts,
    kept_secret: &[String],
) -> DiffReport {
    // every secret data value's value, of either side, and what the host
    // says is secret whatever its key (the values a PackageInstall keeps
    // in its Secret): what a render carries of one (an env var, a config
    // embedding it) never prints
    let mut values = kept_secret.to_vec();
    for p in base.pairs.iter().chain(&head.pairs) {
        if let Some(t) = tree(&p.values) {
            t.secret_values(secrets, false, &mut values);
        }
    }
    let with_values = secrets.with_values(values.iter().map(String::as_str));
    let secrets = &with_values;
    let mut names: BTreeSet<&str> = base.pairs.iter().map(|p| p.name.as_str()).collect();
    names.extend(head.pairs.iter().map(|p| p.name.as_str()));
    let mut pairs = Vec::new();
    for name in names {
        let bi = base.pairs.iter().position(|p| p.name == name);
        let hi = head.pairs.iter().position(|p| p.name == name);
        let (b, h) = (bi.map(|i| &base.pairs[i]), hi.map(|i| &head.pairs[i]));
        let b_found = bi.map(|i| reported(base, i));
        let h_found = hi.map(|i| reported(head, i));
        let any = h.or(b).expect("a pair from one side");
        let as_on_base = b.is_none()
            && h_found
                .as_deref()
                .is_some_and(|h| fails_as_on_base(base, &any.library, h));
        let (rb, rh) = (
            b.and_then(|b| b.rendered.as_deref()),
            h.and_then(|h| h.rendered.as_deref()),
        );
        let (status, changes) = match (b, h) {
            (Some(b), Some(h)) => match (tree(&b.values), tree(&h.values)) {
                (Some(tb), Some(th)) => (PairStatus::Compared, diff(&tb, &th, secrets)),
                (None, Some(_)) => (PairStatus::BaseFailed, Vec::new()),
                (_, None) => (PairStatus::HeadFailed, Vec::new()),
            },
            (None, Some(h)) => match tree(&h.values) {
                Some(th) => (
                    PairStatus::Added,
                    diff(&Tree::Map(Vec::new()), &th, secrets),
                ),
                None => (PairStatus::HeadFailed, Vec::new()),
            },
            (Some(_), None) => (PairStatus::Removed, Vec::new()),
            (None, None) => continue,
        };
        pairs.push(PairDiff {
            name: name.to_string(),
            library: any.library.clone(),
            environment: any.environment.clone(),
            status,
            changes,
            head_errors: h_found.as_deref().map(errors).unwrap_or(0),
            base_errors: b_found.as_deref().map(errors).unwrap_or(0),
            newly_failing: h_found.as_deref().is_some_and(|h| errors(h) > 0)
                && b_found.as_deref().map(errors).unwrap_or(0) == 0
                && !as_on_base,
            fails_as_on_base: as_on_base,
            head_reasons: h_found.as_deref().map(reasons).unwrap_or_default(),
            base_reasons: b_found.as_deref().map(reasons).unwrap_or_default(),
            objects: {
                match (rb, rh) {
                    (Some(x), Some(y)) => objects::compare(x, y, secrets),
                    // a pair new at head, or gone: every object of its render
                    (None, Some(y)) if b.is_none() => objects::compare(&[], y, secrets),
                    (Some(x), None) if h.is_none() => objects::compare(x, &[], secrets),
                    _ => Vec::new(),
                }
            },
            changes_not_shown: 0,
            // both sides have the pair, one rendered objects: they could
            // not be compared
            not_compared: match (b.is_some() && h.is_some(), rb, rh) {
                (true, Some(x), None) => Some(not_compared("head", x)),
                (true, None, Some(y)) => Some(not_compared("base", y)),
                _ => None,
            }
            .filter(|n| n.total > 0),
        });
    }

    // a library's schema change is of the library (its own files), not of
    // its pairs: a library that is only at one side is added or removed
    // whole, which its pairs already say
    let mut libraries: BTreeSet<&String> = pairs.iter().map(|p| &p.library).collect();
    libraries.retain(|l| base_schemas.contains_key(*l) && head_schemas.contains_key(*l));
    let mut schemas = Vec::new();
    for lib in libraries {
        let before = base_schemas.get(lib).and_then(|s| s.as_ref());
        let after = head_schemas.get(lib).and_then(|s| s.as_ref());
        let mut changes = compare(before, after, secrets);
        if let (Some(a), Some(b)) = (before, after) {
            changes.extend(now_required(
                &default_failures(a, opts),
                &default_failures(b, opts),
            ));
        }
        if !changes.is_empty() {
            schemas.push(LibraryDiff {
                library: lib.clone(),
                changes,
            });
        }
    }
    let mut report = DiffReport {
        base: base_name.to_string(),
        head: head_name.to_string(),
        notes: Vec::new(),
        pairs,
        schemas,
    };
    within_budget(&mut report);
    report
}

/// What one change costs in a report: its path, values and lines as
/// printed, and the frame every format puts around a change (a JSON
/// object's keys and indentation, a table row).
fn cost(c: &Change) -> usize {
    let tree = |t: &Option<Tree>| t.as_ref().map_or(0, |t| bound::printed_len(&t.short()));
    128 + bound::printed_len(&c.path)
        + tree(&c.before)
        + tree(&c.after)
        + c.lines
            .iter()
            .map(|l| bound::printed_len(l) + 8)
            .sum::<usize>()
}

/// The report within [`bound::REPORT_BUDGET`]: changes past it are dropped,
/// counted in each pair's `changes_not_shown`, and a note says so.
pub fn within_budget(report: &mut DiffReport) {
    let mut left = bound::REPORT_BUDGET;
    let mut dropped = 0usize;
    let mut pairs = 0usize;
    for p in &mut report.pairs {
        let before = dropped;
        let keep = |changes: &mut Vec<Change>, left: &mut usize, dropped: &mut usize| {
            let mut n = 0;
            for c in changes.iter() {
                let c = cost(c);
                if c > *left {
                    break;
                }
                *left -= c;
                n += 1;
            }
            *dropped += changes.len() - n;
            changes.truncate(n);
        };
        keep(&mut p.changes, &mut left, &mut dropped);
        let mut shown_objects = p.objects.len();
        for (i, o) in p.objects.iter_mut().enumerate() {
            let title = bound::printed_len(&o.title()) + 128;
            if title > left {
                shown_objects = i;
                break;
            }
            left -= title;
            keep(&mut o.fields, &mut left, &mut dropped);
        }
        // the objects past the budget, each counted as its changes (one
        // when added or removed whole)
        dropped += p.objects[shown_objects..]
            .iter()
            .map(|o| o.fields.len().max(1))
            .sum::<usize>();
        p.objects.truncate(shown_objects);
        p.changes_not_shown = dropped - before;
        if dropped > before {
            pairs += 1;
        }
    }
    if dropped > 0 {
        report.notes.push(format!(
            "the diff is over {} MiB: {dropped} change{} of {pairs} pair{} not shown (each pair says how many of its own)",
            bound::REPORT_BUDGET >> 20,
            if dropped == 1 { "" } else { "s" },
            if pairs == 1 { "" } else { "s" },
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(name: &str, changes: Vec<Change>) -> PairDiff {
        PairDiff {
            name: name.to_string(),
            library: "lib".into(),
            environment: name.into(),
            status: PairStatus::Compared,
            changes,
            head_errors: 0,
            base_errors: 0,
            newly_failing: false,
            head_reasons: Vec::new(),
            base_reasons: Vec::new(),
            objects: Vec::new(),
            changes_not_shown: 0,
            fails_as_on_base: false,
            not_compared: None,
        }
    }

    #[test]
    fn a_report_over_its_bound_keeps_what_fits_and_counts_the_rest() {
        // 3 pairs of 4,000 changes of about 4 KB (each `<` printed as `&lt;`
        // counts as such): about 200 MB as printed
        let change = |i: usize| Change {
            path: format!("k{i}"),
            kind: values::ChangeKind::Changed,
            before: Some(Tree::Str("<".repeat(2_000))),
            after: Some(Tree::Str("a".repeat(2_000))),
            redacted: false,
            lines: Vec::new(),
        };
        let mut report = DiffReport {
            base: "b".into(),
            head: "h".into(),
            notes: Vec::new(),
            pairs: (0..3)
                .map(|p| pair(&format!("p{p}"), (0..4_000).map(change).collect()))
                .collect(),
            schemas: Vec::new(),
        };
        within_budget(&mut report);
        let shown: usize = report.pairs.iter().map(|p| p.changes.len()).sum();
        let hidden: usize = report.pairs.iter().map(|p| p.changes_not_shown).sum();
        assert_eq!(shown + hidden, 12_000);
        assert!(shown > 1_000 && hidden > 0, "{shown} {hidden}");
        assert!(
            report.notes[0].starts_with("the diff is over 16 MiB:"),
            "{:?}",
            report.notes
        );
        for printed in [
            render::json(&report),
            render::markdown(&report),
            render::text(&report, true),
        ] {
            assert!(
                printed.len() <= bound::REPORT_BUDGET + (1 << 20),
                "{}",
                printed.len()
            );
        }
    }
}
