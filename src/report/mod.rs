//! Reports: one thin printer per format over the same findings.
//!
//! * [`text`] — for people at a terminal: code frames, colours, a summary;
//! * [`json`] — stable, documented, for scripts;
//! * [`sarif`] — SARIF 2.1.0 for GitHub code scanning;
//! * [`github`] — workflow commands (`::error file=...`) for annotations;
//! * [`gitlab`] — GitLab Code Quality JSON for merge requests;
//! * [`junit`] — one test case per library x environment pair;
//! * [`markdown`] — a table for `$GITHUB_STEP_SUMMARY`;
//! * [`comment`] — the pull request comment, bounded, from data a poster
//!   that trusts nothing prints.

pub mod comment;
pub mod github;
pub mod gitlab;
pub mod json;
pub mod junit;
pub mod markdown;
pub mod plan;
pub mod sarif;
pub mod summary;
pub mod text;

use crate::check::{CheckResult, Finding, Location, Severity};
use crate::workspace::Plan;

/// Output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    Text,
    Json,
    Sarif,
    Github,
    Gitlab,
    Junit,
    Markdown,
}

impl Format {
    pub const NAMES: &'static [&'static str] = &[
        "text", "json", "sarif", "github", "gitlab", "junit", "markdown",
    ];

    pub fn parse(s: &str) -> Option<Format> {
        Some(match s {
            "text" => Format::Text,
            "json" => Format::Json,
            "sarif" => Format::Sarif,
            "github" => Format::Github,
            "gitlab" => Format::Gitlab,
            "junit" => Format::Junit,
            "markdown" | "md" => Format::Markdown,
            _ => return None,
        })
    }
}

/// Everything a printer may use.
pub struct ReportInput<'a> {
    pub result: &'a CheckResult,
    pub plan: &'a Plan,
    pub fail_on: Severity,
    /// A file, for code frames (shared, with its line index: a report of
    /// thousands of findings takes a line of the same files again and again).
    pub source: &'a (dyn Fn(&str) -> Option<std::sync::Arc<crate::yaml::SourceFile>> + Sync),
    /// ANSI colours (text only).
    pub color: bool,
    /// The text report's frames kept from the previous checks of a
    /// long-lived process (the daemon); none for a process that reports once.
    pub frames: Option<&'a text::FrameCache>,
    /// Where the checked folder is in its git repository (`deploy/` when
    /// `check` ran in a subfolder; empty at the root): annotations, SARIF
    /// and GitLab name files from the repository's root, as the platforms
    /// that read them do.
    pub repo_prefix: String,
}

impl ReportInput<'_> {
    /// `loc` named from the repository's root (see
    /// [`ReportInput::repo_prefix`]).
    pub fn in_repo(&self, loc: &Location) -> Location {
        let mut l = loc.clone();
        if !self.repo_prefix.is_empty() {
            l.path = format!("{}{}", self.repo_prefix, loc.path);
        }
        l
    }

    pub fn counts(&self) -> Counts {
        Counts::of(&self.result.findings)
    }

    /// Whether the run fails (exit status 1).
    pub fn failed(&self) -> bool {
        self.result
            .findings
            .iter()
            .any(|f| f.severity.reaches(self.fail_on))
    }

    /// Where a finding is shown when it has no file of its own (a value from
    /// a flag of the config file): the config file, else the library's
    /// first file.
    pub fn anchor(&self, f: &Finding) -> Option<Location> {
        if let Some(l) = &f.location {
            return Some(l.clone());
        }
        // a value from a flag: flags come from the config file
        if f.origin.is_some() || f.library.is_empty() {
            if let Some(c) = &self.plan.config {
                return Some(Location::file(c.as_str()));
            }
        }
        let lib = self
            .plan
            .libraries
            .iter()
            .find(|l| l.name == f.library || f.library.starts_with(&format!("{}/", l.name)))?;
        // the environment's own file, else the library's first
        let env_file = self
            .plan
            .pairs
            .iter()
            .filter(|p| {
                self.plan.libraries[p.library].name == lib.name
                    && f.environments.contains(&p.environment)
            })
            .find_map(|p| p.inputs.files_read().into_iter().next());
        env_file
            .or_else(|| lib.files.first().cloned())
            .map(|p| Location::file(p.as_str()))
            .or_else(|| {
                self.plan
                    .config
                    .as_ref()
                    .map(|c| Location::file(c.as_str()))
            })
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    pub errors: usize,
    pub warnings: usize,
    pub notes: usize,
}

impl Counts {
    pub fn of<'f>(findings: impl IntoIterator<Item = &'f Finding>) -> Counts {
        let mut c = Counts::default();
        for f in findings {
            match f.severity {
                Severity::Error => c.errors += 1,
                Severity::Warning => c.warnings += 1,
                Severity::Note => c.notes += 1,
            }
        }
        c
    }

    /// "3 errors, 1 warning" / "no findings".
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
        if self.errors > 0 {
            parts.push(plural(self.errors, "error"));
        }
        if self.warnings > 0 {
            parts.push(plural(self.warnings, "warning"));
        }
        if self.notes > 0 {
            parts.push(plural(self.notes, "note"));
        }
        if parts.is_empty() {
            "no findings".to_string()
        } else {
            parts.join(", ")
        }
    }
}

/// "web@prod, web@staging" for a finding's pairs (or the library alone).
/// Which of `findings` a bounded report lists: all of them, or past `max`
/// the worst ones (errors, then warnings, then notes, each in report
/// order).
pub fn worst_kept(findings: &[Finding], max: usize) -> Vec<bool> {
    if findings.len() <= max {
        return vec![true; findings.len()];
    }
    let mut order: Vec<usize> = (0..findings.len()).collect();
    order.sort_by_key(|&i| findings[i].severity);
    let mut keep = vec![false; findings.len()];
    for &i in order.iter().take(max) {
        keep[i] = true;
    }
    keep
}

pub fn pairs_of(f: &Finding) -> String {
    if f.environments.is_empty() {
        return f.library.clone();
    }
    let mut out = String::new();
    for (i, e) in f.environments.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(&f.library);
        out.push('@');
        out.push_str(e);
    }
    out
}

/// Renders a report.
pub fn render(format: Format, input: &ReportInput) -> String {
    match format {
        Format::Text => text::render(input),
        Format::Json => json::render(input),
        Format::Sarif => sarif::render(input),
        Format::Github => github::render(input),
        Format::Gitlab => gitlab::render(input),
        Format::Junit => junit::render(input),
        Format::Markdown => markdown::render(input),
    }
}

/// Stable across line moves: the rule, the file, the key path (or message)
/// and the library.
pub(crate) fn stable_fingerprint(f: &Finding, anchor: &Location) -> String {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    h.update(f.rule_id().as_bytes());
    h.update([0]);
    h.update(anchor.path.as_bytes());
    h.update([0]);
    h.update(f.key_path.as_deref().unwrap_or(&f.message).as_bytes());
    h.update([0]);
    h.update(f.library.as_bytes());
    let digest = h.finalize();
    digest.iter().take(16).map(|b| format!("{b:02x}")).collect()
}
