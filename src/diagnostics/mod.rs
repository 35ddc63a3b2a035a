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

pub mod keys;
pub mod rules;

pub use rules::{explain, RuleDoc, RuleId};

use serde::{Deserialize, Serialize};

/// How bad a finding is. Ordered: `Error` is the worst.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
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
/// unknown, and then left out of JSON: a whole file or a whole line).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Location {
    pub path: String,
    pub line: u32,
    #[serde(skip_serializing_if = "is_zero", default)]
    pub column: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
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
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Related {
    pub location: Location,
    pub message: String,
}

/// One problem: what kind, how bad, where, what decided it, and which
/// library and environments it affects.
///
/// A finding is a handle. What was found ([`FindingFields`], read through
/// the handle: `f.message`) is shared, and copied only when something
/// changes it (`f.message = ...` copies it first if it is shared); its
/// severity sits beside it. A long-lived process keeps every pair's
/// findings between checks, and each check reports thousands of them:
/// they are passed on, merged, sorted and re-graded by configuration
/// (`rules:` sets severities) without copying a string.
pub struct Finding {
    pub severity: Severity,
    found: std::sync::Arc<FindingFields>,
    /// The hash of [`Finding::identity`] once asked (0: not yet), kept by
    /// the copies made after: a daemon merges the same thousands of
    /// findings at every check, and hashing their identities again was a
    /// twentieth of it. What changes the fields forgets it.
    identity_hash: std::sync::atomic::AtomicU64,
}

impl Clone for Finding {
    fn clone(&self) -> Finding {
        use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
        Finding {
            severity: self.severity,
            found: self.found.clone(),
            identity_hash: AtomicU64::new(self.identity_hash.load(Relaxed)),
        }
    }
}

/// Findings are equal by what they say (the hash kept is not part of it).
impl PartialEq for Finding {
    fn eq(&self, other: &Finding) -> bool {
        self.severity == other.severity && self.found == other.found
    }
}

impl Eq for Finding {}

/// What a [`Finding`] found, apart from its severity.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FindingFields {
    /// What kind of problem it is (`schema/type-mismatch`).
    pub rule: RuleId,
    /// A finer id below `rule`, when the rule is the organisation's own (a
    /// policy's rule: `policy/prod/replicas/min`); reports, suppressions and
    /// baselines use it in place of `rule`'s id. See [`Finding::rule_id`].
    pub specific_rule: Option<String>,
    /// One line, never containing a data value (values may be secrets).
    pub message: String,
    /// The offending place (ytt's `from:`).
    pub location: Option<Location>,
    /// Where a value came from when it is not a file (`(data-value arg)`).
    pub origin: Option<String>,
    pub related: Vec<Related>,
    /// Key path of the value (`database.port`, `servers[0].host`).
    pub key_path: Option<String>,
    pub library: String,
    /// Environments where it happens (one finding for all of them).
    pub environments: Vec<String>,
    /// More lines (ytt's full text, hints), for reports that show detail.
    pub detail: Vec<String>,
    /// An edit that fixes the problem, when one is known for sure (a
    /// misspelt key with one near name, an annotation written as code).
    pub fix: Option<Fix>,
}

impl std::ops::Deref for Finding {
    type Target = FindingFields;
    fn deref(&self) -> &FindingFields {
        &self.found
    }
}

/// Changing what a finding found copies it first when it is shared (with
/// a kept pair outcome, say): whoever else holds it sees no change.
impl std::ops::DerefMut for Finding {
    fn deref_mut(&mut self) -> &mut FindingFields {
        *self.identity_hash.get_mut() = 0;
        std::sync::Arc::make_mut(&mut self.found)
    }
}

impl std::fmt::Debug for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let FindingFields {
            rule,
            specific_rule,
            message,
            location,
            origin,
            related,
            key_path,
            library,
            environments,
            detail,
            fix,
        } = &*self.found;
        f.debug_struct("Finding")
            .field("rule", rule)
            .field("specific_rule", specific_rule)
            .field("severity", &self.severity)
            .field("message", message)
            .field("location", location)
            .field("origin", origin)
            .field("related", related)
            .field("key_path", key_path)
            .field("library", library)
            .field("environments", environments)
            .field("detail", detail)
            .field("fix", fix)
            .finish()
    }
}

/// An edit that fixes a finding: on `location`'s line, the first `old` at or
/// after its column becomes `new`; or, with `lines`, that many whole lines
/// from `location`'s line become the lines of `new` (a block written
/// afresh). Editors offer it as a code action; the hint of the finding says
/// the same in words.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fix {
    /// What the edit does, for people (`rename 'replica' to 'replicas'`).
    pub title: String,
    pub location: Location,
    pub old: String,
    pub new: String,
    /// Whole lines replaced by `new` (`old` is then what they hold).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lines: Option<u32>,
    /// Where `old` is in its file, in bytes, when it is known exactly (a
    /// key renamed: its text as written, quotes and escapes included), so
    /// a consumer replaces that text and no other.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub span: Option<ByteSpan>,
}

/// A range of bytes of a file: `start` to `end`, `end` not included.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ByteSpan {
    pub start: usize,
    pub end: usize,
}

impl Fix {
    /// `old` replaced by `new` at `location`.
    pub fn replace(location: Location, old: &str, new: &str) -> Fix {
        Fix {
            title: format!("replace '{old}' with '{new}'"),
            location,
            old: old.to_string(),
            new: new.to_string(),
            lines: None,
            span: None,
        }
    }

    /// The lines `old` (of a file whose text is `text`) from `location`'s
    /// line written as `new` (no line end at its end).
    pub fn replace_lines(title: String, location: Location, old: &str, new: String) -> Fix {
        let lines = old.split('\n').count() as u32;
        Fix {
            title,
            location,
            old: old.to_string(),
            new,
            lines: Some(lines),
            span: None,
        }
    }

    /// The edit applied to a file's text: `None` when the line does not
    /// hold `old` at or after the column (the file changed since).
    pub fn apply(&self, text: &str) -> Option<String> {
        let index = self.location.line.checked_sub(1)? as usize;
        let mut lines: Vec<&str> = text.split('\n').collect();
        if let Some(n) = self.lines {
            let end = index.checked_add(n as usize)?;
            let held = lines.get(index..end)?.join("\n");
            if held != self.old {
                return None;
            }
            lines.splice(index..end, self.new.split('\n'));
            return Some(lines.join("\n"));
        }
        let line = *lines.get(index)?;
        let from = line
            .char_indices()
            .nth(self.location.column.saturating_sub(1) as usize)
            .map_or(line.len(), |(i, _)| i);
        let at = from + line.get(from..)?.find(&self.old)?;
        let edited = format!(
            "{}{}{}",
            &line[..at],
            self.new,
            &line[at + self.old.len()..]
        );
        lines[index] = &edited;
        Some(lines.join("\n"))
    }
}

/// The JSON form: `rule` is [`Finding::rule_id`], the most specific id.
impl Serialize for Finding {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = s.serialize_struct("Finding", 12)?;
        st.serialize_field("rule", self.rule_id())?;
        st.serialize_field("severity", &self.severity)?;
        st.serialize_field("message", &self.message)?;
        st.serialize_field("location", &self.location)?;
        if let Some(o) = &self.origin {
            st.serialize_field("origin", o)?;
        }
        st.serialize_field("related", &self.related)?;
        if let Some(k) = &self.key_path {
            st.serialize_field("key_path", k)?;
        }
        st.serialize_field("library", &self.library)?;
        st.serialize_field("environments", &self.environments)?;
        if !self.detail.is_empty() {
            st.serialize_field("detail", &self.detail)?;
        }
        if let Some(fix) = &self.fix {
            st.serialize_field("fix", fix)?;
        }
        st.end()
    }
}

impl Finding {
    /// The id reports show and suppressions match: the specific rule when
    /// there is one (`policy/prod/replicas/min`), else the rule's id.
    pub fn rule_id(&self) -> &str {
        self.specific_rule.as_deref().unwrap_or(self.rule.id())
    }

    /// Whether a rule pattern of the configuration (`rules:`, `ignore:`,
    /// `#! yttcheck: ignore[...]`) selects this finding: `*`, the rule's id
    /// (`policy/violation`), the specific id, or a prefix of it ending at a
    /// `/` (`policy/prod` selects every rule of the `prod` pack).
    pub fn rule_selected_by(&self, pattern: &str) -> bool {
        if pattern == "*" || pattern == self.rule.id() {
            return true;
        }
        rules::id_within(self.rule_id(), pattern)
    }

    /// Orders findings for reports: worst first, then by place.
    pub fn sort_key(&self) -> impl Ord + '_ {
        // borrowed: a run with thousands of findings sorts them without
        // copying a string
        (
            self.severity,
            self.location.as_ref(),
            self.rule,
            self.specific_rule.as_deref(),
            self.key_path.as_deref(),
            &self.message,
            &self.library,
        )
    }

    /// What makes two findings the same problem (apart from environments),
    /// borrowed from the finding.
    pub fn identity(&self) -> Identity<'_> {
        Identity {
            rule: (self.rule, self.specific_rule.as_deref()),
            location: self.location.as_ref(),
            origin: self.origin.as_deref(),
            key_path: self.key_path.as_deref(),
            message: &self.message,
            library: &self.library,
            related: &self.related,
        }
    }
}

/// See [`Finding::identity`].
#[derive(Debug, PartialEq, Eq)]
pub struct Identity<'a> {
    rule: (RuleId, Option<&'a str>),
    location: Option<&'a Location>,
    origin: Option<&'a str>,
    key_path: Option<&'a str>,
    message: &'a str,
    library: &'a str,
    related: &'a [Related],
}

/// Hashes the parts that tell most findings apart (equal identities still
/// hash alike): a run may match thousands, and their related places and
/// origins seldom differ where the rest is the same. The library is
/// hashed: libraries that share a file have the same finding at the same
/// place, and would otherwise all meet in one hash.
impl std::hash::Hash for Identity<'_> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.rule.hash(state);
        self.location.hash(state);
        self.key_path.hash(state);
        self.message.hash(state);
        self.library.hash(state);
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
    /// (or the message, without the line numbers ytt's messages embed:
    /// `on line main.yml:6`), and the offending line's text (trimmed) rather
    /// than its number, so that lines moving up or down do not change it.
    pub fn fingerprint(&self, line_text: Option<&str>) -> String {
        use sha2::{Digest, Sha256};
        let mut h = Sha256::new();
        for part in [
            self.rule_id(),
            &self.library,
            self.location
                .as_ref()
                .map(|l| l.path.as_str())
                .unwrap_or(""),
            self.key_path
                .as_deref()
                .unwrap_or(&without_line_numbers(&self.message)),
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
        Finding::of(
            rule.default_severity(),
            FindingFields {
                rule,
                specific_rule: None,
                message,
                location,
                origin: None,
                related: Vec::new(),
                key_path: None,
                library: String::new(),
                environments: Vec::new(),
                detail: Vec::new(),
                fix: None,
            },
        )
    }

    /// A finding of what `found` holds, as bad as `severity`.
    pub fn of(severity: Severity, found: FindingFields) -> Finding {
        Finding {
            severity,
            found: std::sync::Arc::new(found),
            identity_hash: Default::default(),
        }
    }

    /// The hash of [`Finding::identity`] in this process (its seed is the
    /// process's, as the other maps': no input picks what collides), found
    /// once per finding and kept by its copies.
    pub fn identity_hash(&self) -> u64 {
        use std::hash::BuildHasher;
        use std::sync::atomic::Ordering::Relaxed;
        static STATE: std::sync::LazyLock<foldhash::fast::RandomState> =
            std::sync::LazyLock::new(Default::default);
        match self.identity_hash.load(Relaxed) {
            0 => {
                // (0 says "not yet": a hash of 0 is kept as 1)
                let h = STATE.hash_one(self.identity()).max(1);
                self.identity_hash.store(h, Relaxed);
                h
            }
            h => h,
        }
    }

    /// Whether `self` and `other` share what they found (a copy of one
    /// finding, not two findings that happen to be equal).
    pub fn shares_fields_with(&self, other: &Finding) -> bool {
        std::sync::Arc::ptr_eq(&self.found, &other.found)
    }

    /// What it found, shared. Whoever keeps a clone (a cache of what was
    /// made from it) keeps it as it is: a change to a shared finding copies
    /// its fields first.
    pub fn fields(&self) -> &std::sync::Arc<FindingFields> {
        &self.found
    }
}

/// `message` without the line (and column) numbers of the places it names
/// (`main.yml:6` -> `main.yml:_`, `line 6` -> `line _`): a pull request
/// that deletes lines above a failing call moves them, and must not be
/// blamed for the failure it only moved.
pub fn without_line_numbers(message: &str) -> std::borrow::Cow<'_, str> {
    static PLACE: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"(\.[A-Za-z0-9_-]+):\d+(?::\d+)?\b|\b(lines?) \d+(?:-\d+)?\b")
            .expect("a valid pattern")
    });
    PLACE.replace_all(message, |c: &regex::Captures| match (c.get(1), c.get(2)) {
        (Some(ext), _) => format!("{}:_", ext.as_str()),
        (None, Some(word)) => format!("{} _", word.as_str()),
        _ => String::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A copy of a finding shares what it found until one of them changes
    /// it; re-grading (the severity) shares on.
    #[test]
    fn a_finding_changed_leaves_its_copies_as_they_were() {
        let mut kept = Finding::new(RuleId::ValidationMin, "must be >= 1".into(), None);
        kept.environments.push("dev".into());
        let mut copy = kept.clone();
        assert!(copy.shares_fields_with(&kept));
        copy.severity = Severity::Warning;
        assert!(copy.shares_fields_with(&kept));
        assert_eq!(kept.severity, Severity::Error);
        copy.environments.push("prod".into());
        assert!(!copy.shares_fields_with(&kept));
        assert_eq!(kept.environments, ["dev"]);
        assert_eq!(copy.environments, ["dev", "prod"]);
        // equality is by content, whoever holds it
        let twin = Finding::of(kept.severity, (*kept).clone());
        assert!(!twin.shares_fields_with(&kept));
        assert_eq!(twin, kept);
        assert_eq!(format!("{twin:?}"), format!("{kept:?}"));
    }

    /// The kept hash of a finding's identity is the hash of what it says
    /// now: copies keep it, a change of the fields forgets it, equal
    /// findings hash alike whether or not one was asked before, and the
    /// kept hash is no part of equality.
    #[test]
    fn a_kept_identity_hash_follows_the_finding() {
        let fresh = |message: &str| Finding::new(RuleId::ValidationMin, message.into(), None);
        let mut f = fresh("must be >= 1");
        let before = f.identity_hash();
        assert_eq!(f.clone().identity_hash(), before);
        assert_eq!(fresh("must be >= 1").identity_hash(), before);
        assert!(f == fresh("must be >= 1"));
        // environments are no part of the identity; the message is
        f.environments.push("dev".into());
        assert_eq!(f.identity_hash(), before);
        f.message = "must be >= 2".into();
        assert_eq!(f.identity_hash(), fresh("must be >= 2").identity_hash());
        assert_ne!(f.identity_hash(), before);
    }

    /// A finding whose message names a place (ytt's `on line main.yml:6`)
    /// keeps its fingerprint when lines above it move.
    #[test]
    fn a_fingerprint_ignores_the_line_numbers_in_its_message() {
        let at = |line: u32| {
            Finding::new(
                RuleId::ValidationMin,
                format!("Overlaying data values (in following order: main.yml): Map item (key 'k1') on line main.yml:{line}: Expected number of matched nodes to be 1, but was 0 (line {line})"),
                None,
            )
        };
        assert_eq!(at(6).fingerprint(None), at(3).fingerprint(None));
        let other = Finding::new(
            RuleId::ValidationMin,
            "key 'k2' on line main.yml:6".into(),
            None,
        );
        assert_ne!(at(6).fingerprint(None), other.fingerprint(None));
        assert_eq!(
            without_line_numbers("in a.yml:12:3 and b.star:4, lines 3-5"),
            "in a.yml:_ and b.star:_, lines _"
        );
    }
}
