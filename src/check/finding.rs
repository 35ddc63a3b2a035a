//! The diagnostics model every report prints: one finding is one problem,
//! with its rule, where it is, what decided it, and which library and
//! environments it affects.

use serde::Serialize;

use crate::yaml::Pos;

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
    /// The location of a position in a file (not of a flag or stdin).
    pub fn from_pos(pos: &Pos) -> Option<Location> {
        let path = pos.file_name();
        if path.is_empty() || path.starts_with('(') || path == "-" {
            return None;
        }
        // a problem with a whole file is shown on its first line
        Some(Location {
            path: path.to_string(),
            line: pos.line().max(1),
            column: pos.col(),
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
    /// Rule id (`schema/type-mismatch`); see `rules::RULES`.
    pub rule: &'static str,
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
    fn identity(
        &self,
    ) -> (
        &'static str,
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

/// Merges findings that differ only in their environment (a bad default
/// fails in every environment: it is reported once, with all of them), and
/// sorts them.
pub fn dedupe(findings: Vec<Finding>) -> Vec<Finding> {
    let mut out: Vec<Finding> = Vec::new();
    let mut index = std::collections::HashMap::new();
    for f in findings {
        match index.get(&f.identity()) {
            Some(&i) => {
                let o: &mut Finding = &mut out[i];
                for e in f.environments {
                    if !o.environments.contains(&e) {
                        o.environments.push(e);
                    }
                }
            }
            None => {
                index.insert(f.identity(), out.len());
                out.push(f);
            }
        }
    }
    for f in &mut out {
        f.environments.sort();
    }
    out.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    out
}
