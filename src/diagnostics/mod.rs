//! The diagnostics model, at the bottom of the crate: every module below
//! `check` can say what went wrong in these terms, and every report is a
//! printer over them.
//!
//! * [`RuleId`]: what kind of problem, typed, each documented beside it;
//! * [`Severity`], [`Location`], [`Related`];
//! * [`Finding`]: one problem, with where it is, what decided it, and which
//!   library and environments it affects.
//!
//! This module imports nothing from the rest of the crate.

pub mod rules;

pub use rules::{explain, RuleDoc, RuleId};

use serde::Serialize;

/// How bad a finding is. Ordered: `Error` is the worst.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
    Note,
}

impl Severity {
    pub fn parse(s: &str) -> Option<Severity> {
        match s {
            "error" => Some(Severity::Error),
            "warning" => Some(Severity::Warning),
            "note" => Some(Severity::Note),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        }
    }

    /// Whether a finding of this severity fails a run that fails on `threshold`.
    pub fn reaches(self, threshold: Severity) -> bool {
        self <= threshold
    }
}

/// A place in a repository file (1-based line and column; column 0 when
/// unknown).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Location {
    pub path: String,
    pub line: u32,
    pub column: u32,
}

impl Location {
    /// A place in a file named `path` (not a flag's `(data-value arg)` or
    /// stdin's `-`); line 0 (unknown) becomes 1, so that a problem with a
    /// whole file is shown on its first line.
    pub fn in_file(path: &str, line: u32, column: u32) -> Option<Location> {
        if path.is_empty() || path.starts_with('(') || path == "-" {
            return None;
        }
        Some(Location {
            path: path.to_string(),
            line: line.max(1),
            column,
        })
    }

    /// The first line of a file.
    pub fn file(path: &str) -> Location {
        Location {
            path: path.to_string(),
            line: 1,
            column: 0,
        }
    }

    pub fn display(&self) -> String {
        if self.column > 0 {
            format!("{}:{}:{}", self.path, self.line, self.column)
        } else {
            format!("{}:{}", self.path, self.line)
        }
    }
}

/// A second place that explains a finding (the schema line that declared a
/// rule: ytt's `by:`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Related {
    pub location: Location,
    pub message: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// What kind of problem it is (`schema/type-mismatch`).
    pub rule: RuleId,
    pub severity: Severity,
    /// One line, never containing a data value (values may be secrets).
    pub message: String,
    /// The offending place (ytt's `from:`).
    pub location: Option<Location>,
    /// Where a value came from when it is not a file (`(data-value arg)`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub origin: Option<String>,
    pub related: Vec<Related>,
    /// Key path of the value (`database.port`, `servers[0].host`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key_path: Option<String>,
    pub library: String,
    /// Environments where it happens (one finding for all of them).
    pub environments: Vec<String>,
    /// More lines (ytt's full text, hints), for reports that show detail.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub detail: Vec<String>,
}

impl Finding {
    /// Orders findings for reports: worst first, then by place.
    pub fn sort_key(&self) -> impl Ord + '_ {
        (
            self.severity,
            self.location.clone(),
            self.rule,
            self.key_path.clone(),
            &self.message,
            &self.library,
        )
    }

    /// What makes two findings the same problem (apart from environments).
    #[allow(clippy::type_complexity)]
    pub fn identity(
        &self,
    ) -> (
        RuleId,
        Option<Location>,
        Option<String>,
        Option<String>,
        String,
        String,
        Vec<Related>,
    ) {
        (
            self.rule,
            self.location.clone(),
            self.origin.clone(),
            self.key_path.clone(),
            self.message.clone(),
            self.library.clone(),
            self.related.clone(),
        )
    }
}

impl Finding {
    /// The hints among the detail lines ("did you mean ...?"), without their
    /// `hint: ` prefix: every report shows them, not only text.
    pub fn hints(&self) -> impl Iterator<Item = &str> {
        self.detail.iter().filter_map(|l| l.strip_prefix("hint: "))
    }

    /// The message with its hints, for reports that have one text per
    /// finding (`message (hint: ...; hint: ...)`).
    pub fn message_with_hints(&self) -> String {
        let hints: Vec<&str> = self.hints().collect();
        if hints.is_empty() {
            self.message.clone()
        } else {
            format!("{} (hint: {})", self.message, hints.join("; "))
        }
    }

    /// What identifies the finding across commits, for baselines and SARIF's
    /// `partialFingerprints`: the rule, the library, the file, the key path
    /// (or the message), and the offending line's text (trimmed) rather than
    /// its number, so that lines moving up or down do not change it.
    pub fn fingerprint(&self, line_text: Option<&str>) -> String {
        use sha2::{Digest, Sha256};
        let mut h = Sha256::new();
        for part in [
            self.rule.id(),
            &self.library,
            self.location
                .as_ref()
                .map(|l| l.path.as_str())
                .unwrap_or(""),
            self.key_path.as_deref().unwrap_or(&self.message),
            line_text.map(str::trim).unwrap_or(""),
        ] {
            h.update(part.as_bytes());
            h.update([0]);
        }
        h.finalize()
            .iter()
            .take(16)
            .map(|b| format!("{b:02x}"))
            .collect()
    }

    /// A finding of `rule` with its default severity.
    pub fn new(rule: RuleId, message: String, location: Option<Location>) -> Finding {
        Finding {
            rule,
            severity: rule.default_severity(),
            message,
            location,
            origin: None,
            related: Vec::new(),
            key_path: None,
            library: String::new(),
            environments: Vec::new(),
            detail: Vec::new(),
        }
    }
}
