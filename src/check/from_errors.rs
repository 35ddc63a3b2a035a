//! Turning the engine's errors (ytt's, with their text) into findings.

use crate::schema;
use crate::template::{TemplateError, TemplateErrorKind};
use crate::validation::Invalidation;
use crate::values::{ValuesError, ValuesErrorKind};
use crate::yaml::Pos;

use super::finding::{Finding, Location, Related, Severity};
use super::rules;

/// Which step of the pipeline failed: a failure while building the schema is
/// about the schema itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    Schema,
    Values,
}

/// Who a finding is about.
#[derive(Debug, Clone)]
pub struct Subject {
    pub library: String,
    pub environments: Vec<String>,
}

impl Subject {
    pub fn finding(
        &self,
        rule: &'static str,
        message: String,
        location: Option<Location>,
    ) -> Finding {
        let severity = rules::find(rule)
            .map(|r| r.severity)
            .unwrap_or(Severity::Error);
        Finding {
            rule,
            severity,
            message,
            location,
            origin: None,
            related: Vec::new(),
            key_path: None,
            library: self.library.clone(),
            environments: self.environments.clone(),
            detail: Vec::new(),
        }
    }
}

/// Where a value came from when not from a file: `(data-value arg)`.
fn origin_of(pos: &Pos) -> Option<String> {
    let name = pos.file_name();
    (name.starts_with('(') || name == "-").then(|| name.to_string())
}

fn detail_lines(text: &str) -> Vec<String> {
    text.trim_matches('\n')
        .lines()
        .map(|l| l.trim_end().to_string())
        .collect()
}

/// Findings for an error of the values pipeline.
pub fn from_values_error(e: &ValuesError, stage: Stage, who: &Subject) -> Vec<Finding> {
    match &e.kind {
        ValuesErrorKind::Template(te) => vec![from_template_error(te, who)],
        ValuesErrorKind::Overlay => vec![overlay(&e.message, who)],
        ValuesErrorKind::Schema(violations) => violations
            .iter()
            .map(|v| schema_violation(v, stage, &e.message, who))
            .collect(),
        ValuesErrorKind::Validation(invs) => invs.iter().flat_map(|i| validation(i, who)).collect(),
        ValuesErrorKind::Other { pos } => vec![other(&e.message, pos.as_ref(), stage, who)],
    }
}

/// A template failed to parse, compile or evaluate.
pub fn from_template_error(te: &TemplateError, who: &Subject) -> Finding {
    let text = te.message.trim_matches('\n');
    let rule = match te.kind {
        TemplateErrorKind::Yaml => "yaml/syntax",
        TemplateErrorKind::Budget => "template/budget",
        _ => "template/error",
    };
    let message = headline(text);
    let mut f = who.finding(rule, message, te.pos.as_ref().and_then(Location::from_pos));
    f.detail = detail_lines(text);
    f
}

/// The line that says what went wrong: the innermost message of ytt's
/// nested text, or the `- message` line of a Starlark error.
fn headline(text: &str) -> String {
    if let Some(l) = text.lines().find(|l| l.starts_with("- ")) {
        return l[2..].trim().to_string();
    }
    let last = text
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or(text)
        .trim();
    // ytt's chains end with the cause: "Unmarshaling YAML template 'x': yaml: line 3: ..."
    match last.rfind("yaml: ") {
        Some(i) => last[i..].to_string(),
        None => last.to_string(),
    }
}

/// ytt's overlay errors name each level ("Map item (key 'a') on line
/// x.yml:4:"), innermost last; the finding goes to the innermost line.
fn overlay(message: &str, who: &Subject) -> Finding {
    static PLACE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let re = PLACE
        .get_or_init(|| regex::Regex::new(r" on line ([^\s:]+(?:[^\s]*?)):(\d+):").expect("regex"));
    let location = re.captures_iter(message).last().and_then(|c| {
        Some(Location {
            path: c.get(1)?.as_str().to_string(),
            line: c.get(2)?.as_str().parse().ok()?,
            column: 0,
        })
    });
    let mut f = who.finding("overlay/error", headline(message), location);
    f.detail = detail_lines(message);
    f
}

fn schema_violation(v: &schema::Violation, stage: Stage, message: &str, who: &Subject) -> Finding {
    let invalid_schema = stage == Stage::Schema || message.contains("Invalid schema");
    let rule = if invalid_schema {
        "schema/invalid"
    } else if v.description.contains("not declared in schema") {
        "schema/undeclared-key"
    } else {
        "schema/type-mismatch"
    };
    // ytt's `expected:` carries "(by schema.yml:3)"; the finding's related
    // location says that instead
    let expected = match v
        .expected
        .rfind(" (by ")
        .or_else(|| v.expected.rfind(" (from "))
    {
        Some(i) => &v.expected[..i],
        None => v.expected.as_str(),
    };
    let text = match rule {
        "schema/undeclared-key" => format!(
            "key '{}' is not declared in the schema; expected {expected}",
            v.found
        ),
        "schema/type-mismatch" => format!("expected {expected}, found {}", v.found),
        _ => {
            let summary = message
                .lines()
                .find(|l| l.starts_with("Invalid schema"))
                .unwrap_or("Invalid schema");
            if v.description.is_empty() {
                format!("{summary}: expected {expected}, found {}", v.found)
            } else {
                format!(
                    "{summary}: {}; expected {expected}, found {}",
                    v.description, v.found
                )
            }
        }
    };
    let text = match (&v.key_path, rule) {
        (Some(k), "schema/type-mismatch") if !k.is_empty() => format!("{k}: {text}"),
        _ => text,
    };
    let mut f = who.finding(rule, text, Location::from_pos(&v.pos));
    f.origin = origin_of(&v.pos);
    f.key_path = v.key_path.clone().filter(|k| !k.is_empty());
    if let Some(sp) = v.schema_pos.as_ref().and_then(Location::from_pos) {
        f.related.push(Related {
            location: sp,
            message: "declared in the schema here".into(),
        });
    }
    for p in &v.ann_positions {
        if let Some(l) = Location::from_pos(p) {
            f.related.push(Related {
                location: l,
                message: "annotation".into(),
            });
        }
    }
    f.detail = v.hints.iter().map(|h| format!("hint: {h}")).collect();
    f
}

fn validation(inv: &Invalidation, who: &Subject) -> Vec<Finding> {
    inv.violations
        .iter()
        .map(|v| {
            let rule = rules::validation_rule_id(&v.rule);
            let mut message = format!("{}: must be {}", inv.path, v.description);
            if !v.result.is_empty() {
                message.push_str(&format!(" (found: {})", v.result));
            }
            let mut f = who.finding(rule, message, Location::from_pos(&inv.value_pos));
            f.origin = origin_of(&inv.value_pos);
            f.key_path = Some(inv.path.clone());
            if let Some(l) = Location::from_pos(&v.rule_pos) {
                f.related.push(Related {
                    location: l,
                    message: "rule declared here".into(),
                });
            }
            f
        })
        .collect()
}

fn other(message: &str, pos: Option<&Pos>, stage: Stage, who: &Subject) -> Finding {
    let invalid_rule = message.contains("@schema/validation annotation")
        || message.contains("@assert/validate annotation")
        || message.contains("when=")
        || message.contains("validation-defaults-for-strings");
    let rule = if invalid_rule {
        "validation/invalid-rule"
    } else if stage == Stage::Schema {
        "schema/invalid"
    } else {
        "values/error"
    };
    let mut f = who.finding(rule, headline(message), pos.and_then(Location::from_pos));
    f.detail = detail_lines(message);
    f
}

/// A values flag failed (a plain values file that does not parse, has
/// annotations, cannot be read; a malformed `-v`). The file and line are in
/// ytt's text: `... file 'envs/prod/web.yml': yaml: line 3: ...`.
pub fn from_flag_error(message: &str, who: &Subject) -> Finding {
    let quoted_file = |prefix: &str| -> Option<String> {
        let i = message.find(prefix)? + prefix.len();
        let rest = &message[i..];
        Some(rest[..rest.find('\'')?].to_string())
    };
    let line_of = || -> Option<u32> {
        let i = message.find("yaml: line ")? + "yaml: line ".len();
        message[i..].split(':').next()?.trim().parse().ok()
    };
    let (rule, location) = if let Some(path) = quoted_file("Unmarshaling YAML data values file '") {
        let mut l = Location::file(&path);
        l.line = line_of().unwrap_or(1);
        ("yaml/syntax", Some(l))
    } else if let Some(path) = quoted_file("Reading file '") {
        ("file/unreadable", Some(Location::file(&path)))
    } else if let Some(path) = quoted_file("Checking data values file '") {
        ("values/error", Some(Location::file(&path)))
    } else {
        ("values/error", None)
    };
    let mut f = who.finding(rule, headline(message), location);
    f.detail = detail_lines(message);
    f
}
