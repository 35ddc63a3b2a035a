//! Turning the engine's errors (ytt's, with their text) into findings.

use crate::diagnostics::RuleId;
use crate::schema;
use crate::template::{TemplateError, TemplateErrorKind};
use crate::validation::Invalidation;
use crate::values::{ValuesError, ValuesErrorKind};
use crate::yaml::Pos;

use super::finding::{Finding, Location, Related};

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
    pub fn finding(&self, rule: RuleId, message: String, location: Option<Location>) -> Finding {
        let mut f = Finding::new(rule, message, location);
        f.library = self.library.clone();
        f.environments = self.environments.clone();
        f
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
        ValuesErrorKind::Overlay { pos, hints, rename } => {
            let mut f = overlay(&e.message, pos.as_ref(), hints, who);
            f.fix = pos
                .as_ref()
                .and_then(|p| rename_fix(f.location.as_ref(), p, rename.as_ref()));
            vec![f]
        }
        ValuesErrorKind::Schema {
            violations,
            summary,
        } => violations
            .iter()
            .map(|v| schema_violation(v, stage, summary, who))
            .collect(),
        ValuesErrorKind::Validation(invs) => invs.iter().flat_map(|i| validation(i, who)).collect(),
        ValuesErrorKind::Other { pos, rule } => {
            vec![other(*rule, &e.message, pos.as_ref(), stage, who)]
        }
    }
}

/// Rendering a pair's templates failed (`check --render`).
pub fn from_render_error(e: &crate::render::RenderError, who: &Subject) -> Vec<Finding> {
    use crate::render::RenderError;
    match e {
        RenderError::Values(v) => from_values_error(v, Stage::Values, who),
        RenderError::Template(te) => vec![from_template_error(te, who)],
        RenderError::Overlay { message, pos } => vec![overlay(message, pos.as_ref(), &[], who)],
        RenderError::Unused(m) => vec![other(RuleId::ValuesError, m, None, Stage::Values, who)],
    }
}

/// A template failed to parse, compile or evaluate.
pub fn from_template_error(te: &TemplateError, who: &Subject) -> Finding {
    let text = te.message.trim_matches('\n');
    let rule = match te.kind {
        TemplateErrorKind::Yaml => RuleId::YamlSyntax,
        TemplateErrorKind::Budget => RuleId::TemplateBudget,
        _ => RuleId::TemplateError,
    };
    let message = headline(text);
    let mut f = who.finding(
        rule,
        message,
        te.pos.as_ref().and_then(crate::yaml::Pos::location),
    );
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
fn overlay(message: &str, pos: Option<&Pos>, hints: &[String], who: &Subject) -> Finding {
    // ytt's message names no column for these nodes; neither does the finding
    let location = pos.and_then(Pos::location).map(|mut l| {
        l.column = 0;
        l
    });
    let mut f = who.finding(RuleId::OverlayError, headline(message), location);
    f.detail = detail_lines(message);
    f.detail.extend(hints.iter().map(|h| format!("hint: {h}")));
    f
}

fn schema_violation(v: &schema::Violation, stage: Stage, summary: &str, who: &Subject) -> Finding {
    // while building the schema every violation is one of the schema's own
    let rule = if stage == Stage::Schema {
        RuleId::SchemaInvalid
    } else {
        v.rule
    };
    // the finding's related location says where the schema decided
    let expected = v.expected_what();
    let text = match rule {
        RuleId::SchemaUndeclaredKey => format!(
            "key '{}' is not declared in the schema; expected {expected}",
            v.found
        ),
        RuleId::SchemaTypeMismatch => format!("expected {expected}, found {}", v.found),
        _ => {
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
        (Some(k), RuleId::SchemaTypeMismatch) if !k.is_empty() => format!("{k}: {text}"),
        _ => text,
    };
    let mut f = who.finding(rule, text, crate::yaml::Pos::location(&v.pos));
    f.origin = origin_of(&v.pos);
    f.key_path = v.key_path.clone().filter(|k| !k.is_empty());
    if let Some(sp) = v.schema_pos.as_ref().and_then(crate::yaml::Pos::location) {
        f.related.push(Related {
            location: sp,
            message: "declared in the schema here".into(),
        });
    }
    for p in &v.ann_positions {
        if let Some(l) = crate::yaml::Pos::location(p) {
            f.related.push(Related {
                location: l,
                message: "annotation".into(),
            });
        }
    }
    f.detail = v.hints.iter().map(|h| format!("hint: {h}")).collect();
    f.fix = rename_fix(f.location.as_ref(), &v.pos, v.rename.as_ref());
    f
}

/// The fix of a misspelt key: the key renamed where it is written. `old`
/// is the key's text as written (`"repl\x69caz"`, quotes and escapes
/// included) with its byte span, and `new` the key written so that it
/// reads back as itself (quoted when it must be); no fix when the text at
/// the key's place is not that key.
fn rename_fix(
    location: Option<&crate::diagnostics::Location>,
    pos: &crate::yaml::Pos,
    rename: Option<&(String, String)>,
) -> Option<crate::diagnostics::Fix> {
    let (from, to) = rename?;
    let mut location = location?.clone();
    location.column = location.column.max(1);
    let src = pos.source()?;
    let line = src.line_text(location.line)?;
    let line_start = line.as_ptr() as usize - src.text().as_ptr() as usize;
    let at = line
        .char_indices()
        .nth(location.column as usize - 1)
        .map_or(line.len(), |(i, _)| i);
    let written = crate::diagnostics::keys::written_key(&line[at..])?;
    if written_as(written)? != *from {
        return None;
    }
    let new = crate::diagnostics::keys::yaml_key(to);
    let mut fix = crate::diagnostics::Fix::replace(location, written, &new);
    fix.title = format!("rename '{from}' to '{to}'");
    fix.span = Some(crate::diagnostics::ByteSpan {
        start: line_start + at,
        end: line_start + at + written.len(),
    });
    Some(fix)
}

/// The key a key's text reads as (`"repl\x69caz"` is `replicaz`), read by
/// the YAML parser; `None` when it is no plain string key.
fn written_as(written: &str) -> Option<String> {
    if !written.starts_with(['"', '\'']) {
        return Some(written.to_string());
    }
    let src = crate::yaml::SourceFile::new("key", format!("{written}: 0\n"));
    let docs = crate::yaml::parse::parse(&src, false).ok()?;
    let map = docs.docs.first()?.value.as_map()?;
    Some(map.items.first()?.key.as_str()?.to_string())
}

/// `@assert/validate` rules on rendered documents that failed (a yttcheck
/// extension: ytt checks them on data values only).
pub fn from_output_invalidations(invs: &[Invalidation], who: &Subject) -> Vec<Finding> {
    invs.iter()
        .flat_map(|i| validation(i, who))
        .map(|mut f| {
            f.message = format!("rendered output: {}", f.message);
            f
        })
        .collect()
}

fn validation(inv: &Invalidation, who: &Subject) -> Vec<Finding> {
    inv.violations
        .iter()
        .map(|v| {
            let rule = RuleId::validation(&v.rule);
            let mut message = format!("{}: must be {}", inv.path, v.description);
            if !v.result.is_empty() {
                message.push_str(&format!(" (found: {})", v.result));
            }
            let mut f = who.finding(rule, message, crate::yaml::Pos::location(&inv.value_pos));
            f.origin = origin_of(&inv.value_pos);
            f.key_path = Some(inv.path.clone());
            if let Some(l) = crate::yaml::Pos::location(&v.rule_pos) {
                f.related.push(Related {
                    location: l,
                    message: "rule declared here".into(),
                });
            }
            f
        })
        .collect()
}

fn other(rule: RuleId, message: &str, pos: Option<&Pos>, stage: Stage, who: &Subject) -> Finding {
    // building the schema failed: a problem of the schema itself
    let rule = match (rule, stage) {
        (RuleId::ValuesError, Stage::Schema) => RuleId::SchemaInvalid,
        (rule, _) => rule,
    };
    let mut f = who.finding(
        rule,
        headline(message),
        pos.and_then(crate::yaml::Pos::location),
    );
    f.detail = detail_lines(message);
    f
}

/// A values flag failed (a plain values file that does not parse, has
/// annotations, cannot be read; a malformed `-v`), at the file and line the
/// failing step named.
pub fn from_flag_error(e: &crate::values::flags::FlagError, who: &Subject) -> Finding {
    let location = e.place.as_ref().map(|(path, line)| {
        let mut l = Location::file(path);
        l.line = (*line).max(1);
        l
    });
    let mut f = who.finding(e.rule, headline(&e.message), location);
    f.detail = detail_lines(&e.message);
    f
}
