//! Schema errors and type-check violations, rendered as ytt renders them.

use crate::yaml::Pos;

/// One assertion failure (ytt's `schemaAssertionError`).
#[derive(Debug, Clone)]
pub struct Violation {
    /// What kind of problem: an invalid schema, a value of the wrong type, a
    /// key the schema does not declare.
    pub rule: crate::diagnostics::RuleId,
    /// Positions of the annotations involved (shown above the node line).
    pub ann_positions: Vec<Pos>,
    /// Where the offending node is.
    pub pos: Pos,
    pub description: String,
    pub expected: String,
    pub found: String,
    pub hints: Vec<String>,
    /// The schema node that decided (ytt's `by`/`from` in `expected:`), for
    /// findings' related locations.
    pub schema_pos: Option<Pos>,
    /// The value's key path (`database.port`), for findings.
    pub key_path: Option<String>,
    /// A key to write instead (`(replica, replicas)`): the nearest declared
    /// key of a misspelt one, for the finding's fix.
    pub rename: Option<(String, String)>,
    /// For a value a template made (no file line): ytt's line for it
    /// (`foo: "bar"`), shown as "Data value calculated".
    pub memory_line: Option<String>,
}

impl Violation {
    /// `expected` without the place ytt appends to it (`(by schema.yml:3)`,
    /// `(from schema.yml:3)`): findings give that place as a related location.
    pub fn expected_what(&self) -> &str {
        match self
            .expected
            .rfind(" (by ")
            .or_else(|| self.expected.rfind(" (from "))
        {
            Some(i) => &self.expected[..i],
            None => &self.expected,
        }
    }

    /// A violation of `rule` at `pos`, the rest to be filled in.
    pub fn of(rule: crate::diagnostics::RuleId, pos: Pos) -> Violation {
        Violation {
            rule,
            ann_positions: Vec::new(),
            pos,
            description: String::new(),
            expected: String::new(),
            found: String::new(),
            hints: Vec::new(),
            schema_pos: None,
            key_path: None,
            rename: None,
            memory_line: None,
        }
    }
}

/// A schema error: a summary and its violations (or a plain message).
#[derive(Debug, Clone)]
pub struct SchemaError {
    /// The rule of a plain error (violations carry their own).
    pub rule: crate::diagnostics::RuleId,
    pub summary: String,
    pub violations: Vec<Violation>,
    pub misc: String,
    /// Violations reported inside `misc`.
    pub nested_violations: Vec<Violation>,
}

impl SchemaError {
    pub fn new(summary: impl Into<String>, violations: Vec<Violation>) -> SchemaError {
        SchemaError {
            rule: crate::diagnostics::RuleId::SchemaInvalid,
            summary: summary.into(),
            violations,
            misc: String::new(),
            nested_violations: Vec::new(),
        }
    }

    /// An error that is only a message (ytt's plain `fmt.Errorf` errors).
    pub fn plain(message: impl Into<String>) -> SchemaError {
        SchemaError {
            rule: crate::diagnostics::RuleId::SchemaInvalid,
            summary: String::new(),
            violations: Vec::new(),
            misc: message.into(),
            nested_violations: Vec::new(),
        }
    }

    /// The headline of an invalid schema.
    pub const INVALID: &'static str = "Invalid schema";

    /// The line of the report that says what is wrong with the schema
    /// (`Invalid schema - ...`), for a one-line finding.
    pub fn headline(&self) -> String {
        self.message()
            .lines()
            .find(|l| l.starts_with(Self::INVALID))
            .unwrap_or(Self::INVALID)
            .to_string()
    }

    /// The same error, of another rule (a misused validation rule).
    pub fn with_rule(mut self, rule: crate::diagnostics::RuleId) -> SchemaError {
        self.rule = rule;
        self
    }

    /// Marks an error whose violations are already inside `misc` (ytt nests
    /// one report in another); the violations stay for findings.
    pub fn nested(mut self) -> SchemaError {
        self.nested_violations = std::mem::take(&mut self.violations);
        self
    }

    /// Every violation, including nested ones.
    pub fn all_violations(&self) -> Vec<Violation> {
        let mut v = self.violations.clone();
        v.extend(self.nested_violations.iter().cloned());
        v
    }

    pub fn message(&self) -> String {
        if self.summary.is_empty() && self.violations.is_empty() {
            return self.misc.clone();
        }
        render(&self.summary, &self.violations, &self.misc)
    }
}

/// ytt's schema error report for `summary` and `violations`.
pub fn render_violations(summary: &str, violations: &[Violation]) -> String {
    render(summary, violations, "")
}

fn render(summary: &str, violations: &[Violation], misc: &str) -> String {
    let max_pos = violations
        .iter()
        .map(|v| int_string(&v.pos).len())
        .max()
        .unwrap_or(0);
    let pad = |delim: &str, pos: &str| format!("  {pos:>max_pos$} {delim}");
    let mut out = String::new();
    if !summary.is_empty() {
        out.push('\n');
        out.push_str(summary);
        out.push('\n');
        out.push_str(&"=".repeat(summary.len()));
        out.push('\n');
    }
    for v in violations {
        if !v.description.is_empty() {
            out.push('\n');
            out.push_str(&v.description);
        }
        if let (Some(line), false) = (&v.memory_line, v.pos.is_known()) {
            out.push_str("\nData value calculated:\n");
            out.push_str(&pad("#", ""));
            out.push('\n');
            out.push_str(&pad("#", ""));
            out.push(' ');
            out.push_str(line);
            out.push('\n');
            out.push_str(&pad("#", ""));
            out.push_str("\n\n");
            found_and_expected(&mut out, v, &pad);
            continue;
        }
        out.push('\n');
        out.push_str(v.pos.file_name());
        out.push(':');
        out.push('\n');
        out.push_str(&pad("|", ""));
        let mut anns = v.ann_positions.clone();
        anns.sort_by_key(|p| if p.is_known() { p.line() as i64 } else { -1 });
        let mut all = anns;
        all.push(v.pos.clone());
        for (i, p) in all.iter().enumerate() {
            if i > 0 && !p.is_next_to(&all[i - 1]) {
                out.push('\n');
                out.push_str(&pad("|", ""));
                out.push_str(" ...");
            }
            out.push('\n');
            out.push_str(&pad("|", &int_string(p)));
            out.push(' ');
            out.push_str(p.line_text().unwrap_or(""));
        }
        out.push('\n');
        out.push_str(&pad("|", ""));
        out.push_str("\n\n");
        found_and_expected(&mut out, v, &pad);
    }
    out.push_str(misc);
    out.push('\n');
    out
}

/// A violation's `found:`, `expected:` and hint lines.
fn found_and_expected(out: &mut String, v: &Violation, pad: &dyn Fn(&str, &str) -> String) {
    if !v.found.is_empty() {
        out.push_str(&pad("=", ""));
        out.push_str(" found: ");
        out.push_str(&v.found);
    }
    out.push('\n');
    if !v.expected.is_empty() {
        out.push_str(&pad("=", ""));
        out.push_str(" expected: ");
        out.push_str(&v.expected);
    }
    for h in &v.hints {
        out.push('\n');
        out.push_str(&pad("=", ""));
        out.push_str(" hint: ");
        out.push_str(h);
    }
    out.push('\n');
}

fn int_string(p: &Pos) -> String {
    if p.is_known() {
        p.line().to_string()
    } else {
        "?".to_string()
    }
}
