//! The pull request comment's content ([`Comment`]), from a finished check
//! of a change and its diff: what the reviewer must know first (the
//! verdict, the findings the change brings), then per environment what
//! changes, in Terraform's words, and the rows behind it.

use crate::diff::objects::ObjectChangeKind;
use crate::diff::render::{
    fail_lines, lines_summary, newly_failing_note, shown, status_note, value,
};
use crate::diff::values::{Change as ValueChange, ChangeKind};
use crate::diff::DiffReport;
use crate::report::comment::{
    Comment, EnvironmentChange, FindingLine, Level, Row, Sign, FORMAT_VERSION, MAX_FINDINGS,
    MAX_ROWS,
};
use crate::report::ReportInput;

use super::Change;

/// What the comment of a change says.
pub struct CommentParts<'a> {
    pub change: &'a Change,
    pub headline: &'a str,
    pub failed: bool,
    /// The findings the change brings (all of them, when there is no base
    /// to tell them from) and those that stood on its base.
    pub new: &'a ReportInput<'a>,
    pub old: Option<&'a ReportInput<'a>>,
    pub diff: Option<&'a DiffReport>,
    pub base_name: String,
    pub head_name: String,
}

/// The comment's content.
pub fn content(p: &CommentParts) -> Comment {
    Comment {
        yttcheck_comment: FORMAT_VERSION,
        pull_request: p.change.number,
        head_sha: p.change.head_sha.clone(),
        failed: p.failed,
        headline: p.headline.to_string(),
        base: p.base_name.clone(),
        head: p.head_name.clone(),
        new_findings: findings(p.new),
        new_total: p.new.result.findings.len(),
        old_findings: p.old.map(findings).unwrap_or_default(),
        old_total: p.old.map_or(0, |o| o.result.findings.len()),
        environments: p
            .diff
            .map(|d| {
                d.pairs
                    .iter()
                    .filter(|x| shown(x))
                    .map(environment)
                    .collect()
            })
            .unwrap_or_default(),
        breaking: p
            .diff
            .map(|d| {
                d.schemas
                    .iter()
                    .flat_map(|l| {
                        l.changes
                            .iter()
                            .filter(|c| c.breaking)
                            .map(move |c| format!("{}: {}: {}", l.library, c.path, c.detail))
                    })
                    .collect()
            })
            .unwrap_or_default(),
    }
}

fn findings(input: &ReportInput) -> Vec<FindingLine> {
    input
        .result
        .findings
        .iter()
        .take(MAX_FINDINGS)
        .map(|f| FindingLine {
            level: match f.severity {
                crate::diagnostics::Severity::Error => Level::Error,
                crate::diagnostics::Severity::Warning => Level::Warning,
                crate::diagnostics::Severity::Note => Level::Note,
            },
            rule: f.rule_id().to_string(),
            place: input
                .anchor(f)
                .map(|l| l.display().to_string())
                .unwrap_or_default(),
            pairs: crate::report::pairs_of(f),
            message: f.message_with_hints(),
        })
        .collect()
}

fn sign_of(kind: ChangeKind) -> Sign {
    match kind {
        ChangeKind::Added => Sign::Add,
        ChangeKind::Removed => Sign::Remove,
        ChangeKind::Changed | ChangeKind::TypeChanged => Sign::Change,
    }
}

/// A changed value's row (the line diff of a text is summed up: the full
/// report has its lines).
fn row(what: &str, sign: Sign, c: &ValueChange) -> Row {
    let (before, after) = if c.lines.is_empty() {
        (value(&c.before, c.redacted), value(&c.after, c.redacted))
    } else {
        (String::new(), lines_summary(c))
    };
    Row {
        sign,
        what: what.to_string(),
        field: c.path.clone(),
        before,
        after,
    }
}

fn environment(p: &crate::diff::PairDiff) -> EnvironmentChange {
    let count = |k: ObjectChangeKind| p.objects.iter().filter(|o| o.change == k).count();
    let mut notes: Vec<String> = Vec::new();
    notes.extend(status_note(p.status).map(str::to_string));
    notes.extend(newly_failing_note(p));
    notes.extend(fail_lines(p));
    let mut rows = Vec::new();
    for c in &p.changes {
        rows.push(row("data values", sign_of(c.kind), c));
    }
    for o in &p.objects {
        let sign = match o.change {
            ObjectChangeKind::Added => Sign::Add,
            ObjectChangeKind::Removed => Sign::Remove,
            ObjectChangeKind::Changed => Sign::Change,
        };
        let title = o.title();
        if o.fields.is_empty() {
            rows.push(Row {
                sign,
                what: title.clone(),
                field: String::new(),
                before: String::new(),
                after: String::new(),
            });
        }
        for c in &o.fields {
            rows.push(row(&title, sign, c));
        }
    }
    let rows_not_listed = rows.len().saturating_sub(MAX_ROWS) + p.changes_not_shown;
    rows.truncate(MAX_ROWS);
    EnvironmentChange {
        pair: p.name.clone(),
        to_add: count(ObjectChangeKind::Added),
        to_change: count(ObjectChangeKind::Changed),
        to_remove: count(ObjectChangeKind::Removed),
        values_changed: p.changes.len() + p.changes_not_shown,
        newly_failing: p.newly_failing,
        notes,
        rows,
        rows_not_listed,
    }
}
