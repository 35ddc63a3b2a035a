//! Printing a [`DiffReport`]: coloured text (one block per pair), Markdown
//! (a collapsible section per pair, for a PR comment or job summary) and
//! JSON.

use super::values::{Change, ChangeKind};
use super::{DiffReport, PairStatus};
use crate::escape::control;
use crate::escape::markdown::{code, html, html_code, text as md_text};

pub(crate) fn value(v: &Option<super::values::Tree>, redacted: bool) -> String {
    if redacted {
        return "(value not shown)".into();
    }
    v.as_ref().map(|t| t.short()).unwrap_or_default()
}

pub(crate) fn sign(kind: ChangeKind) -> &'static str {
    match kind {
        ChangeKind::Added => "+",
        ChangeKind::Removed => "-",
        ChangeKind::Changed => "~",
        ChangeKind::TypeChanged => "±",
    }
}

pub(crate) fn status_note(s: PairStatus) -> Option<&'static str> {
    match s {
        PairStatus::Compared => None,
        PairStatus::Added => Some("new pair"),
        PairStatus::Removed => Some("pair removed"),
        PairStatus::BaseFailed => Some("values could not be computed at base"),
        PairStatus::HeadFailed => Some("values cannot be computed at head (run `yttcheck check`)"),
    }
}

/// What a line diff changed, in words (`text changed: 2 lines removed,
/// 3 added`).
pub(crate) fn lines_summary(c: &Change) -> String {
    let count = |sign: char| c.lines.iter().filter(|l| l.starts_with(sign)).count();
    let (removed, added) = (count('-'), count('+'));
    let plural = |n: usize| if n == 1 { "" } else { "s" };
    match (removed, added) {
        (0, a) => format!("text changed: {a} line{} added", plural(a)),
        (r, 0) => format!("text changed: {r} line{} removed", plural(r)),
        (r, a) => format!("text changed: {r} line{} removed, {a} added", plural(r)),
    }
}

/// The line diff of a change as text lines (none when it has none),
/// indented by `indent`.
fn diff_lines(c: &Change, indent: &str) -> Vec<String> {
    c.lines.iter().map(|l| format!("{indent}{l}")).collect()
}

/// The line diff of a change as an HTML block of the Markdown (raw text
/// escaped as HTML: no structure, no workflow command), folded under its
/// path.
fn diff_block(title: &str, c: &Change) -> String {
    let mut out = format!(
        "<details><summary>{}: {}</summary>\n\n<pre>\n",
        html_code(title),
        html(&lines_summary(c))
    );
    for l in &c.lines {
        out.push_str(&html(l));
        out.push('\n');
    }
    out.push_str("</pre>\n</details>\n");
    out
}

fn change_line(c: &Change) -> String {
    if !c.lines.is_empty() {
        return format!("{} {}  ({})", sign(c.kind), c.path, lines_summary(c));
    }
    match c.kind {
        ChangeKind::Added => format!(
            "{} {}  {}",
            sign(c.kind),
            c.path,
            value(&c.after, c.redacted)
        ),
        ChangeKind::Removed => format!(
            "{} {}  {}",
            sign(c.kind),
            c.path,
            value(&c.before, c.redacted)
        ),
        ChangeKind::Changed if c.redacted => {
            format!("{} {}  (changed; value not shown)", sign(c.kind), c.path)
        }
        ChangeKind::Changed => format!(
            "{} {}  {} -> {}",
            sign(c.kind),
            c.path,
            value(&c.before, false),
            value(&c.after, false)
        ),
        ChangeKind::TypeChanged => {
            let t =
                |v: &Option<super::values::Tree>| v.as_ref().map(|t| t.type_name()).unwrap_or("?");
            if c.redacted {
                format!(
                    "{} {}  (type changed; value not shown)",
                    sign(c.kind),
                    c.path
                )
            } else {
                format!(
                    "{} {}  {} {} -> {} {}",
                    sign(c.kind),
                    c.path,
                    t(&c.before),
                    value(&c.before, false),
                    t(&c.after),
                    value(&c.after, false)
                )
            }
        }
    }
}

/// Whether a pair is worth a block of its own: changed values, a changed
/// status, errors it did not have at base, or a render at one side only
/// (what it could not compare, and a fix of the base's failure).
pub(crate) fn shown(p: &super::PairDiff) -> bool {
    !p.changes.is_empty()
        || !p.objects.is_empty()
        || p.status != PairStatus::Compared
        || p.newly_failing
        || p.not_compared.is_some()
}

fn object_sign(c: super::objects::ObjectChangeKind) -> &'static str {
    match c {
        super::objects::ObjectChangeKind::Removed => "-",
        super::objects::ObjectChangeKind::Changed => "~",
        super::objects::ObjectChangeKind::Added => "+",
    }
}

/// A line of a line diff, coloured by its sign.
fn paint_diff_line(paint: &dyn Fn(&str, &str) -> String, line: &str) -> String {
    match line.trim_start().chars().next() {
        Some('-') => paint("31", line),
        Some('+') => paint("32", line),
        Some('@') => paint("36", line),
        _ => line.to_string(),
    }
}

/// `- ConfigMap old`, `~ Deployment shop/web`, and for a changed object a
/// line per field (`spec.replicas 3 -> 5`, and a changed text's line
/// diff), at most [`MAX_CHANGES`] lines.
fn object_lines(p: &super::PairDiff) -> Vec<(super::objects::ObjectChangeKind, String)> {
    let mut out = Vec::new();
    for o in &p.objects {
        out.push((o.change, format!("{} {}", object_sign(o.change), o.title())));
        for c in &o.fields {
            let line = change_line(c);
            // the field's own line, without its sign (the object has one)
            let line = line.split_once(' ').map_or(line.as_str(), |(_, rest)| rest);
            out.push((o.change, format!("    {line}")));
            out.extend(diff_lines(c, "        ").into_iter().map(|l| (o.change, l)));
        }
        if out.len() > MAX_CHANGES {
            out.truncate(MAX_CHANGES);
            out.push((o.change, "    ...".into()));
            break;
        }
    }
    out
}

/// Why a pair fails, a line each: at head when it fails there (newly, or
/// its values cannot be computed), at base when only the base failed, and
/// whether a failure at both sides changed.
pub(crate) fn fail_lines(p: &super::PairDiff) -> Vec<String> {
    let list = |side: &str, n: usize, rs: &[super::FailReason]| -> Vec<String> {
        let mut out: Vec<String> = rs
            .iter()
            .map(|r| match &r.at {
                Some(at) => format!("{side}: {} {} ({at})", r.rule, r.message),
                None => format!("{side}: {} {}", r.rule, r.message),
            })
            .collect();
        if n > rs.len() {
            out.push(format!(
                "{side}: ... and {} more error{}",
                n - rs.len(),
                if n - rs.len() == 1 { "" } else { "s" }
            ));
        }
        out
    };
    let head_fails = p.head_errors > 0 || p.status == PairStatus::HeadFailed;
    let base_fails = p.base_errors > 0 || p.status == PairStatus::BaseFailed;
    let mut out = match (base_fails, head_fails) {
        (true, true) if p.same_failure() => vec![format!(
            "fails at base and at head, with the same error{} (not this change's)",
            if p.head_errors == 1 { "" } else { "s" }
        )]
        .into_iter()
        .chain(list("head", p.head_errors, &p.head_reasons))
        .collect(),
        (true, true) => vec!["fails at base and at head, and the errors changed".to_string()]
            .into_iter()
            .chain(list("base", p.base_errors, &p.base_reasons))
            .chain(list("head", p.head_errors, &p.head_reasons))
            .collect(),
        (false, true) if p.fails_as_on_base => vec![format!(
            "fails with findings already on the base: the library's, in another environment \
             (not this change's)"
        )]
        .into_iter()
        .chain(list("head", p.head_errors, &p.head_reasons))
        .collect(),
        (false, true) => list("head", p.head_errors, &p.head_reasons),
        (true, false) => list("base", p.base_errors, &p.base_reasons),
        (false, false) => Vec::new(),
    };
    if let Some(n) = &p.not_compared {
        out.push(not_compared_line(n));
    }
    out
}

/// `could not compare 3 rendered objects (the head did not render):
/// Deployment web, ...`.
fn not_compared_line(n: &super::NotCompared) -> String {
    let more = n.total.saturating_sub(n.objects.len());
    format!(
        "could not compare {} rendered object{} (the {} did not render){}{}{}",
        n.total,
        if n.total == 1 { "" } else { "s" },
        n.failed,
        if n.objects.is_empty() { "" } else { ": " },
        n.objects.join(", "),
        if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        }
    )
}

pub(crate) fn newly_failing_note(p: &super::PairDiff) -> Option<String> {
    (p.newly_failing && p.status != PairStatus::HeadFailed).then(|| {
        format!(
            "newly fails: {} error{} at head, none at base",
            p.head_errors,
            if p.head_errors == 1 { "" } else { "s" }
        )
    })
}

fn headline(r: &DiffReport) -> String {
    let breaking = r.breaking();
    let failing = r.pairs.iter().filter(|p| p.newly_failing).count();
    format!(
        "{} of {} pair{} change{}{}",
        r.changed_pairs(),
        r.pairs.len(),
        if r.pairs.len() == 1 { "" } else { "s" },
        if failing > 0 {
            format!(
                ", {failing} pair{} newly failing",
                if failing == 1 { "" } else { "s" }
            )
        } else {
            String::new()
        },
        if breaking > 0 {
            format!(
                ", {breaking} breaking schema change{}",
                if breaking == 1 { "" } else { "s" }
            )
        } else {
            String::new()
        }
    )
}

pub fn text(r: &DiffReport, color: bool) -> String {
    let paint = |code: &str, s: &str| {
        if color {
            format!("\x1b[{code}m{s}\x1b[0m")
        } else {
            s.to_string()
        }
    };
    let mut out = format!(
        "yttcheck diff {} -> {}: {}\n",
        control(&r.base),
        control(&r.head),
        headline(r)
    );
    for n in &r.notes {
        out.push_str(&format!("note: {}\n", control(n)));
    }
    for p in r.pairs.iter().filter(|p| shown(p)) {
        out.push('\n');
        out.push_str(&paint("1", &control(&p.name)));
        if let Some(n) = status_note(p.status) {
            out.push_str(&format!("  ({n})"));
        }
        if let Some(n) = newly_failing_note(p) {
            out.push_str(&format!("  ({})", paint("1;31", &n)));
        } else if p.head_errors > 0 && p.status != PairStatus::HeadFailed {
            out.push_str(&format!(
                "  ({} error{} at head)",
                p.head_errors,
                if p.head_errors == 1 { "" } else { "s" }
            ));
        }
        out.push('\n');
        for line in fail_lines(p) {
            out.push_str(&format!("  {}\n", paint("31", &control(&line))));
        }
        if !p.changes.is_empty() && !p.objects.is_empty() {
            out.push_str("  values:\n");
        }
        for c in &p.changes {
            let line = control(&change_line(c)).into_owned();
            let code = match c.kind {
                ChangeKind::Added => "32",
                ChangeKind::Removed => "31",
                ChangeKind::Changed => "33",
                ChangeKind::TypeChanged => "35",
            };
            out.push_str(&format!("  {}\n", paint(code, &line)));
            for l in diff_lines(c, "      ") {
                out.push_str(&format!("{}\n", paint_diff_line(&paint, &control(&l))));
            }
        }
        if p.changes_not_shown > 0 {
            out.push_str(&format!(
                "  ... {} more change{} not shown (the report's bound)\n",
                p.changes_not_shown,
                if p.changes_not_shown == 1 { "" } else { "s" }
            ));
        }
        if !p.objects.is_empty() {
            out.push_str("  rendered:\n");
        }
        for (kind, line) in object_lines(p) {
            let code = match kind {
                super::objects::ObjectChangeKind::Removed => "31",
                super::objects::ObjectChangeKind::Changed => "33",
                super::objects::ObjectChangeKind::Added => "32",
            };
            let painted = if line.starts_with("        ") {
                paint_diff_line(&paint, &control(&line))
            } else {
                paint(code, &control(&line))
            };
            out.push_str(&format!("  {painted}\n"));
        }
    }
    for l in &r.schemas {
        out.push_str(&format!(
            "\n{}\n",
            paint("1", &format!("schema of {}", control(&l.library)))
        ));
        for c in &l.changes {
            let tag = if c.breaking {
                paint("1;31", "breaking")
            } else {
                paint("32", "ok      ")
            };
            out.push_str(&format!(
                "  {tag}  {}  {}\n",
                control(&c.path),
                control(&c.detail)
            ));
        }
    }
    out
}

/// A value in a table cell: code, or nothing when there is none.
fn cell_value(v: &str) -> String {
    if v.is_empty() {
        String::new()
    } else {
        code(v)
    }
}

/// A change's before and after cells: its values, or for a changed text
/// what its line diff (below the table) says.
fn cells(c: &Change) -> (String, String) {
    if !c.lines.is_empty() {
        return (
            String::new(),
            md_text(&format!("{} (below)", lines_summary(c))),
        );
    }
    (
        cell_value(&value(&c.before, c.redacted && c.kind != ChangeKind::Added)),
        cell_value(&value(
            &c.after,
            c.redacted && c.kind != ChangeKind::Removed,
        )),
    )
}

/// Most changes listed per pair (a job summary takes at most 1 MiB).
const MAX_CHANGES: usize = 200;

pub fn markdown(r: &DiffReport) -> String {
    let mut out = format!(
        "## yttcheck diff: {}\n\n{} → {}\n\n",
        headline(r),
        code(&r.base),
        code(&r.head)
    );
    for n in &r.notes {
        out.push_str(&format!("> ℹ️ {}\n\n", md_text(n)));
    }
    for p in r.pairs.iter().filter(|p| shown(p)) {
        let mut note = status_note(p.status)
            .map(|n| format!(" — {n}"))
            .unwrap_or_default();
        if let Some(n) = newly_failing_note(p) {
            note.push_str(&format!(" — ❌ {n}"));
        }
        let objects = if p.objects.is_empty() {
            String::new()
        } else {
            format!(
                ", {} rendered object{}",
                p.objects.len(),
                if p.objects.len() == 1 { "" } else { "s" }
            )
        };
        out.push_str(&format!(
            "<details><summary>{}: {} change{}{objects}{}</summary>\n\n",
            html_code(&p.name),
            p.changes.len(),
            if p.changes.len() == 1 { "" } else { "s" },
            html(&note)
        ));
        for line in fail_lines(p) {
            out.push_str(&format!("- {}\n", md_text(&line)));
        }
        if !fail_lines(p).is_empty() {
            out.push('\n');
        }
        if !p.changes.is_empty() {
            out.push_str("| | value | before | after |\n|---|---|---|---|\n");
            for c in p.changes.iter().take(MAX_CHANGES) {
                let (before, after) = cells(c);
                out.push_str(&format!(
                    "| {} | {} | {before} | {after} |\n",
                    sign(c.kind),
                    code(&c.path),
                ));
            }
            if p.changes.len() > MAX_CHANGES {
                out.push_str(&format!("\n… and {} more\n", p.changes.len() - MAX_CHANGES));
            }
            let texts: Vec<&Change> = p
                .changes
                .iter()
                .take(MAX_CHANGES)
                .filter(|c| !c.lines.is_empty())
                .collect();
            if !texts.is_empty() {
                out.push('\n');
            }
            for c in texts {
                out.push_str(&diff_block(&c.path, c));
            }
        }
        if p.changes_not_shown > 0 {
            out.push_str(&format!(
                "\n… {} more change{} not shown (the report's bound)\n",
                p.changes_not_shown,
                if p.changes_not_shown == 1 { "" } else { "s" }
            ));
        }
        if !p.objects.is_empty() {
            out.push_str(
                "\n| | rendered object | field | before | after |\n|---|---|---|---|---|\n",
            );
            let mut rows = 0;
            for o in &p.objects {
                let title = code(&o.title());
                if o.fields.is_empty() {
                    out.push_str(&format!("| {} | {title} | | | |\n", object_sign(o.change)));
                    rows += 1;
                }
                for c in &o.fields {
                    let (before, after) = cells(c);
                    out.push_str(&format!(
                        "| {} | {title} | {} | {before} | {after} |\n",
                        object_sign(o.change),
                        code(&c.path),
                    ));
                    rows += 1;
                }
                if rows >= MAX_CHANGES {
                    out.push_str("\n… and more: the whole diff is in diff.json\n");
                    break;
                }
            }
            let texts: Vec<(String, &Change)> = p
                .objects
                .iter()
                .flat_map(|o| o.fields.iter().map(move |c| (o, c)))
                .take(MAX_CHANGES)
                .filter(|(_, c)| !c.lines.is_empty())
                .map(|(o, c)| (format!("{} {}", o.title(), c.path), c))
                .collect();
            if !texts.is_empty() {
                out.push('\n');
            }
            for (title, c) in texts {
                out.push_str(&diff_block(&title, c));
            }
        }
        out.push_str("\n</details>\n\n");
    }
    if !r.schemas.is_empty() {
        out.push_str("### Schema changes\n\n| | library | value | change |\n|---|---|---|---|\n");
        for l in &r.schemas {
            for c in &l.changes {
                out.push_str(&format!(
                    "| {} | {} | {} | {} |\n",
                    if c.breaking { "💥 breaking" } else { "ok" },
                    code(&l.library),
                    code(&c.path),
                    md_text(&c.detail)
                ));
            }
        }
    }
    out
}

pub fn json(r: &DiffReport) -> String {
    let s = serde_json::to_string_pretty(r).unwrap_or_else(|_| "{}".into());
    crate::escape::json::harden(&s) + "\n"
}
