//! The pull request comment: what a reviewer reads in the conversation.
//!
//! [`Comment`] is the comment's content as data (the verdict, the findings
//! the change brings and those that stood on its base, and per environment
//! what changes), and [`markdown`] prints it. The two are apart because on
//! a pull request from a fork the content is made by a job that runs with
//! the pull request's code and posted by another that must not trust it
//! (`yttcheck comment --from FILE`): the poster reads the data and prints
//! it itself, so every string in it is escaped as repository text however
//! the file was made. A forged file can say wrong things, in inert text; it
//! cannot ping, link, load or add structure.
//!
//! The printed comment is bounded: GitHub refuses a comment over 65,536
//! characters. Sections go in by importance (the verdict, each
//! environment's one-line summary, the new findings, each environment's
//! details, the findings already on the base) while they fit the budget;
//! what does not fit folds to its summary line and the comment says where
//! the whole report is.

use serde::{Deserialize, Serialize};

use crate::escape::markdown::{code, html, html_code, inert, text};

/// The hidden line the comment is found again by, on every push.
pub const MARKER: &str = "<!-- yttcheck: pull request comment -->";

/// GitHub's limit on a comment's body, in characters.
pub const GITHUB_COMMENT_LIMIT: usize = 65_536;

/// What the printed comment stays under, in bytes (a byte count is never
/// under the character count GitHub limits): room kept for a platform's
/// own additions.
pub const COMMENT_BUDGET: usize = 60_000;

/// The version of [`Comment`]'s file format (`--comment-file`).
pub const FORMAT_VERSION: u32 = 1;

/// Longest value shown in a cell; the reports hold it whole.
const MAX_CELL: usize = 120;

/// Most rows in one environment's details.
pub const MAX_ROWS: usize = 100;

/// Most findings listed in each list.
pub const MAX_FINDINGS: usize = 50;

/// A comment's content.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Comment {
    /// [`FORMAT_VERSION`].
    pub yttcheck_comment: u32,
    /// The pull request it is for (from the event that made it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pull_request: Option<u64>,
    /// The commit it describes (the pull request's head).
    #[serde(default)]
    pub head_sha: String,
    /// Whether the change fails the check (the verdict).
    pub failed: bool,
    /// The verdict in words: what was checked and how it went.
    pub headline: String,
    /// `main (abc1234)` → `pull request #12 (def5678)`.
    #[serde(default)]
    pub base: String,
    #[serde(default)]
    pub head: String,
    /// The findings the change brings (at most [`MAX_FINDINGS`]) and how
    /// many there are in all.
    pub new_findings: Vec<FindingLine>,
    pub new_total: usize,
    /// The findings that stood on its base already.
    pub old_findings: Vec<FindingLine>,
    pub old_total: usize,
    /// Every environment (library x environment pair) the change touches.
    pub environments: Vec<EnvironmentChange>,
    /// Breaking schema changes, a line each.
    #[serde(default)]
    pub breaking: Vec<String>,
}

/// How bad a finding is (a closed set: a file cannot add words here).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Error,
    Warning,
    Note,
}

/// One finding, on one line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FindingLine {
    pub level: Level,
    pub rule: String,
    /// `libs/web/schema.yml:4`, or empty.
    pub place: String,
    /// The pairs it is found in (`web@prod, web@dev`).
    pub pairs: String,
    pub message: String,
}

/// What happens to a rendered object or a data value (a closed set).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Sign {
    Add,
    Change,
    Remove,
}

impl Sign {
    fn symbol(self) -> &'static str {
        match self {
            Sign::Add => "+",
            Sign::Change => "~",
            Sign::Remove => "-",
        }
    }
}

/// What a change does to one library x environment pair.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EnvironmentChange {
    /// `web@prod`.
    pub pair: String,
    /// Rendered objects added, changed, removed (Terraform's words).
    pub to_add: usize,
    pub to_change: usize,
    pub to_remove: usize,
    /// Final data values that change.
    pub values_changed: usize,
    /// The change makes it fail (it did not at base).
    pub newly_failing: bool,
    /// What else to know, a line each: a new or removed pair, why it
    /// fails, what could not be compared.
    #[serde(default)]
    pub notes: Vec<String>,
    /// Its changes, a row each (at most [`MAX_ROWS`]) and how many more.
    #[serde(default)]
    pub rows: Vec<Row>,
    #[serde(default)]
    pub rows_not_listed: usize,
}

/// One changed object or field, or one changed data value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    pub sign: Sign,
    /// `Deployment shop/web`, or `data values`.
    pub what: String,
    /// `spec.replicas`, or empty for an object added or removed whole.
    #[serde(default)]
    pub field: String,
    #[serde(default)]
    pub before: String,
    #[serde(default)]
    pub after: String,
}

impl EnvironmentChange {
    /// `2 to add, 3 to change, 1 to remove; 4 data values change`.
    pub fn summary(&self) -> String {
        let mut parts = Vec::new();
        if self.to_add + self.to_change + self.to_remove > 0 {
            parts.push(format!(
                "{} to add, {} to change, {} to remove",
                self.to_add, self.to_change, self.to_remove
            ));
        }
        if self.values_changed > 0 {
            parts.push(format!(
                "{} data value{} change{}",
                self.values_changed,
                if self.values_changed == 1 { "" } else { "s" },
                if self.values_changed == 1 { "s" } else { "" },
            ));
        }
        if parts.is_empty() {
            parts.push("no change to its values or objects".into());
        }
        parts.join("; ")
    }
}

impl Comment {
    /// Nothing to tell a reviewer: no finding of the change's, no
    /// environment that changes.
    pub fn is_quiet(&self) -> bool {
        !self.failed && self.new_total == 0 && self.environments.is_empty()
    }
}

/// Where the reader finds what the comment leaves out, and the run's page
/// (both the poster's, never the file's).
#[derive(Debug, Clone, Default)]
pub struct Footer<'a> {
    /// The run that made it (`https://github.com/o/r/actions/runs/1`).
    pub run_url: Option<&'a str>,
    /// Where the whole report is (`the yttcheck artifact of the run`).
    pub artifact: &'a str,
}

/// The comment's Markdown, at most `budget` bytes, the [`MARKER`] first.
pub fn markdown(c: &Comment, footer: &Footer, budget: usize) -> String {
    let head = header(c);
    let foot = footer_line(c, footer, false);
    let folded_foot = footer_line(c, footer, true);
    let breaking = breaking_section(c);
    let fixed = MARKER.len()
        + 1
        + head.len()
        + folded_foot.len()
        + breaking.len()
        + old_findings_line(c).len();
    let mut room = budget.saturating_sub(fixed);
    let mut folded = false;
    // in order of importance: each environment's line, the new findings,
    // each environment's details, the findings on the base
    let lines: Vec<String> = c.environments.iter().map(environment_line).collect();
    let more_envs_note = |n: usize| format!("- … and {n} more (in the full report)\n");
    let mut shown_envs = 0;
    for l in &lines {
        // room for the note that would say what does not fit
        if l.len() + more_envs_note(lines.len()).len() > room {
            break;
        }
        room -= l.len();
        shown_envs += 1;
    }
    folded |= shown_envs < lines.len();
    let (new_section, new_cut) = findings_section(c, &mut room);
    folded |= new_cut;
    let mut details = vec![None; c.environments.len()];
    for (i, e) in c.environments.iter().enumerate().take(shown_envs) {
        let block = environment_block(e);
        // a block replaces its line
        if block.len() <= room + lines[i].len() {
            room = room + lines[i].len() - block.len();
            details[i] = Some(block);
        } else {
            folded = true;
        }
    }
    let old_block = old_findings_block(c);
    let old_section = if old_block.len() <= room {
        old_block
    } else {
        folded = true;
        old_findings_line(c)
    };

    let mut out = format!("{MARKER}\n{head}");
    out.push_str(&new_section);
    if !c.environments.is_empty() {
        out.push_str(&format!(
            "\n#### What changes, per environment ({})\n\n",
            c.environments.len()
        ));
        for (i, l) in lines.iter().enumerate().take(shown_envs) {
            out.push_str(details[i].as_deref().unwrap_or(l));
        }
        if shown_envs < lines.len() {
            out.push_str(&more_envs_note(lines.len() - shown_envs));
        }
    }
    out.push_str(&breaking);
    out.push_str(&old_section);
    out.push_str(if folded { &folded_foot } else { &foot });
    // a last guard: the budget holds by construction
    if out.len() > budget {
        let mut end = budget;
        while !out.is_char_boundary(end) {
            end -= 1;
        }
        out.truncate(end);
    }
    out
}

/// Breaking schema changes: at most a few lines, each cut.
fn breaking_section(c: &Comment) -> String {
    if c.breaking.is_empty() {
        return String::new();
    }
    let mut out = "\n#### Breaking schema changes\n\n".to_string();
    for b in c.breaking.iter().take(10) {
        out.push_str(&format!("- 💥 {}\n", inert(&text(&cut(b)))));
    }
    if c.breaking.len() > 10 {
        out.push_str(&format!("- … and {} more\n", c.breaking.len() - 10));
    }
    out
}

/// A value or message cut for a comment's cell.
fn cut(s: &str) -> std::borrow::Cow<'_, str> {
    cut_at(s, MAX_CELL)
}

/// `s` cut at `max` characters, with an ellipsis when it was.
fn cut_at(s: &str, max: usize) -> std::borrow::Cow<'_, str> {
    match s.char_indices().nth(max) {
        None => std::borrow::Cow::Borrowed(s),
        Some((at, _)) => std::borrow::Cow::Owned(format!("{}…", &s[..at])),
    }
}

fn header(c: &Comment) -> String {
    let verdict = if c.is_quiet() {
        "✅ yttcheck: nothing to report"
    } else if c.failed {
        "❌ yttcheck: this change fails the check"
    } else {
        "✅ yttcheck: this change passes the check"
    };
    let mut out = format!(
        "### {verdict}\n\n{}\n",
        inert(&text(&cut_at(&c.headline, 1_000)))
    );
    if c.is_quiet() {
        out.push_str(
            "\nNo finding of this change's, and no environment's data values or rendered objects change.\n",
        );
    }
    out
}

fn footer_line(c: &Comment, f: &Footer, folded: bool) -> String {
    let mut parts = Vec::new();
    if !c.base.is_empty() || !c.head.is_empty() {
        parts.push(format!(
            "{} → {}",
            inert(&code(&cut_at(&c.base, 200))),
            inert(&code(&cut_at(&c.head, 200)))
        ));
    }
    if folded {
        parts.push(format!(
            "✂️ folded to fit a comment: the whole report is in {}",
            text(f.artifact)
        ));
    }
    if let Some(url) = f.run_url.filter(|u| is_plain_url(u)) {
        parts.push(format!("[the run]({url})"));
    }
    if parts.is_empty() {
        return String::new();
    }
    format!("\n<sub>{}</sub>\n", parts.join(" · "))
}

/// A link the poster makes (the run's page): `http(s)://` and characters
/// that cannot leave a Markdown link.
fn is_plain_url(u: &str) -> bool {
    (u.starts_with("https://") || u.starts_with("http://"))
        && u.len() < 500
        && u.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"/:.-_~%".contains(&b))
}

fn environment_line(e: &EnvironmentChange) -> String {
    format!(
        "- {}{}: {}{}\n",
        if e.newly_failing { "❌ " } else { "" },
        inert(&code(&e.pair)),
        inert(&text(&e.summary())),
        e.notes
            .first()
            .map(|n| format!(" — {}", inert(&text(&cut(n)))))
            .unwrap_or_default()
    )
}

fn environment_block(e: &EnvironmentChange) -> String {
    if e.rows.is_empty() && e.notes.len() <= 1 {
        return environment_line(e);
    }
    let mut out = format!(
        "\n<details><summary>{}{}: {}</summary>\n\n",
        if e.newly_failing { "❌ " } else { "" },
        inert(&html_code(&e.pair)),
        inert(&html(&e.summary()))
    );
    for n in &e.notes {
        out.push_str(&format!("- {}\n", inert(&text(&cut(n)))));
    }
    if !e.notes.is_empty() {
        out.push('\n');
    }
    if !e.rows.is_empty() {
        out.push_str("| | what | field | before | after |\n|---|---|---|---|---|\n");
        for r in &e.rows {
            let cell = |s: &str| {
                if s.is_empty() {
                    String::new()
                } else {
                    inert(&code(&cut(s)))
                }
            };
            out.push_str(&format!(
                "| {} | {} | {} | {} | {} |\n",
                r.sign.symbol(),
                cell(&r.what),
                cell(&r.field),
                cell(&r.before),
                cell(&r.after)
            ));
        }
        if e.rows_not_listed > 0 {
            out.push_str(&format!(
                "\n… and {} more (in the full report)\n",
                e.rows_not_listed
            ));
        }
    }
    out.push_str("\n</details>\n\n");
    out
}

fn icon(l: Level) -> &'static str {
    match l {
        Level::Error => "❌",
        Level::Warning => "⚠️",
        Level::Note => "ℹ️",
    }
}

fn finding_row(f: &FindingLine) -> String {
    let opt_code = |s: &str| {
        if s.is_empty() {
            String::new()
        } else {
            inert(&code(&cut(s)))
        }
    };
    format!(
        "| {} | {} | {} | {} | {} |\n",
        icon(f.level),
        opt_code(&f.rule),
        opt_code(&f.place),
        inert(&text(&cut_at(&f.message, 400))),
        opt_code(&f.pairs),
    )
}

const FINDINGS_TABLE: &str = "| | rule | where | message | pairs |\n|---|---|---|---|---|\n";

/// The new findings as a table, as many rows as fit; and whether some
/// were left out.
fn findings_section(c: &Comment, room: &mut usize) -> (String, bool) {
    if c.new_total == 0 {
        return (String::new(), false);
    }
    let title = format!("\n#### Findings this change brings ({})\n\n", c.new_total);
    let more = |n: usize| format!("\n… and {n} more (in the full report)\n");
    let reserve = title.len() + FINDINGS_TABLE.len() + more(c.new_total).len();
    if reserve > *room {
        return (String::new(), true);
    }
    *room -= reserve;
    let mut out = format!("{title}{FINDINGS_TABLE}");
    let mut listed = 0;
    for f in c.new_findings.iter().take(MAX_FINDINGS) {
        let row = finding_row(f);
        if row.len() > *room {
            break;
        }
        *room -= row.len();
        out.push_str(&row);
        listed += 1;
    }
    let left = c.new_total.saturating_sub(listed);
    if left > 0 {
        out.push_str(&more(left));
    }
    (out, left > 0)
}

fn old_findings_line(c: &Comment) -> String {
    if c.old_total == 0 {
        return String::new();
    }
    format!(
        "\n{} finding{} already on the base (not this change's): in the full report.\n",
        c.old_total,
        if c.old_total == 1 { "" } else { "s" }
    )
}

fn old_findings_block(c: &Comment) -> String {
    if c.old_total == 0 {
        return String::new();
    }
    let mut out = format!(
        "\n<details><summary>{} finding{} already on the base: still there, not this change's</summary>\n\n{FINDINGS_TABLE}",
        c.old_total,
        if c.old_total == 1 { "" } else { "s" }
    );
    for f in c.old_findings.iter().take(MAX_FINDINGS) {
        out.push_str(&finding_row(f));
    }
    let listed = c.old_findings.len().min(MAX_FINDINGS);
    if c.old_total > listed {
        out.push_str(&format!(
            "\n… and {} more (in the full report)\n",
            c.old_total - listed
        ));
    }
    out.push_str("\n</details>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pair: &str, rows: usize) -> EnvironmentChange {
        EnvironmentChange {
            pair: pair.into(),
            to_add: 1,
            to_change: rows,
            to_remove: 0,
            values_changed: 1,
            newly_failing: false,
            notes: vec![],
            rows: (0..rows)
                .map(|i| Row {
                    sign: Sign::Change,
                    what: format!("Deployment shop/web-{i}"),
                    field: "spec.replicas".into(),
                    before: "2".into(),
                    after: "3".into(),
                })
                .collect(),
            rows_not_listed: 0,
        }
    }

    fn comment(envs: Vec<EnvironmentChange>) -> Comment {
        Comment {
            yttcheck_comment: FORMAT_VERSION,
            pull_request: Some(12),
            head_sha: "c".repeat(40),
            failed: false,
            headline: "no findings in the 2 pairs pull request #12 affects (base 1234567)".into(),
            base: "main (1234567)".into(),
            head: "pull request #12 (89abcde)".into(),
            new_findings: vec![],
            new_total: 0,
            old_findings: vec![],
            old_total: 0,
            environments: envs,
            breaking: vec![],
        }
    }

    fn footer() -> Footer<'static> {
        Footer {
            run_url: Some("https://github.com/o/r/actions/runs/1"),
            artifact: "the yttcheck artifact of the run",
        }
    }

    #[test]
    fn the_verdict_comes_first_and_each_environment_has_a_terraform_line() {
        let md = markdown(
            &comment(vec![env("web@prod", 2), env("web@dev", 0)]),
            &footer(),
            COMMENT_BUDGET,
        );
        insta::assert_snapshot!(md);
    }

    #[test]
    fn a_comment_over_budget_folds_environments_to_their_lines_then_drops_lines() {
        let envs: Vec<_> = (0..1000)
            .map(|i| env(&format!("lib{i}@prod"), 100))
            .collect();
        let c = comment(envs);
        let md = markdown(&c, &footer(), COMMENT_BUDGET);
        assert!(md.len() <= COMMENT_BUDGET, "{}", md.len());
        assert!(md.starts_with(MARKER));
        assert!(md.contains("✂️ folded to fit a comment"));
        assert!(md.contains("more (in the full report)"));
        // whole lines: every details block it opens it closes
        assert_eq!(
            md.matches("<details>").count(),
            md.matches("</details>").count()
        );
        // a small budget still gives the verdict and the footer
        let tiny = markdown(&c, &footer(), 1_000);
        assert!(tiny.len() <= 1_000, "{}", tiny.len());
        assert!(tiny.contains("### ✅ yttcheck"), "{tiny}");
        assert!(tiny.contains("the whole report is in"), "{tiny}");
    }

    #[test]
    fn a_quiet_change_says_there_is_nothing_to_report() {
        let c = comment(vec![]);
        assert!(c.is_quiet());
        let md = markdown(&c, &footer(), COMMENT_BUDGET);
        assert!(md.contains("### ✅ yttcheck: nothing to report"), "{md}");
    }

    #[test]
    fn the_run_link_is_the_posters_and_only_a_plain_url() {
        let c = comment(vec![]);
        let f = Footer {
            run_url: Some("https://x.io/a) ![i](https://evil/i.png"),
            artifact: "x",
        };
        let md = markdown(&c, &f, COMMENT_BUDGET);
        assert!(!md.contains("evil"), "{md}");
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]
        /// Whatever the strings, the comment stays under its budget, opens
        /// and closes its blocks, and holds nothing live.
        #[test]
        fn any_comment_is_bounded_balanced_and_inert(
            words in proptest::collection::vec("[a-f0-9@#<>|`:\\[\\]()!\n GH-]{0,40}", 1..8),
            envs in 0usize..300,
            budget in 500usize..70_000,
        ) {
            let w = |i: usize| words[i % words.len()].clone();
            let mut c = comment((0..envs).map(|i| {
                let mut e = env(&w(i), i % 7);
                e.notes = vec![w(i + 1)];
                e.rows.iter_mut().for_each(|r| { r.before = w(i + 2); r.after = w(i + 3); });
                e
            }).collect());
            c.headline = w(4);
            c.new_total = 3;
            c.new_findings = vec![FindingLine { level: Level::Error, rule: w(5), place: w(6), pairs: w(7), message: w(8) }];
            c.old_total = 2;
            c.old_findings = c.new_findings.clone();
            let md = markdown(&c, &footer(), budget);
            proptest::prop_assert!(md.len() <= budget);
            proptest::prop_assert!(md.starts_with(MARKER) || budget < MARKER.len());
            proptest::prop_assert_eq!(md.matches("<details>").count(), md.matches("</details>").count());
            let chars: Vec<char> = md.chars().collect();
            for (i, ch) in chars.iter().enumerate() {
                let next = chars.get(i + 1).copied().unwrap_or(' ');
                if *ch == '@' {
                    proptest::prop_assert!(!next.is_ascii_alphanumeric(), "{}", md);
                }
                if *ch == '#' && i > 0 && chars[i - 1] != '&' {
                    proptest::prop_assert!(!next.is_ascii_digit(), "{}", md);
                }
            }
        }
    }
}
