//! Findings as the editor's diagnostics: one list per file, with the rule
//! as `code` (linked to its documentation), related places, and the tags
//! editors draw (an unused value faded, a deprecated one struck through).

use std::collections::BTreeMap;
use std::path::Path;
use std::str::FromStr;

use lsp_types::{
    CodeDescription, Diagnostic, DiagnosticRelatedInformation, DiagnosticSeverity, DiagnosticTag,
    Location, NumberOrString, Position, Range, Uri,
};

use crate::diagnostics::{Finding, RuleId, Severity};

/// Where the rules are documented.
const RULES_DOC: &str = concat!(env!("CARGO_PKG_HOMEPAGE"), "/blob/main/docs/rules.md");

/// A finding's line (1-based) and column (1-based, 0 for the whole line) as
/// a range: from the column (or the line's start) to the end of the line.
fn range(line: u32, column: u32) -> Range {
    let line = line.saturating_sub(1);
    Range {
        start: Position {
            line,
            character: column.saturating_sub(1),
        },
        end: Position {
            line: line + 1,
            character: 0,
        },
    }
}

/// The diagnostics of `findings`, by the URI of the file (absolute, under
/// `root`) they are about. A finding without a place in a file is not shown
/// (the check command reports it).
pub fn by_file(root: &Path, findings: &[Finding]) -> BTreeMap<String, Vec<Diagnostic>> {
    let mut out: BTreeMap<String, Vec<Diagnostic>> = BTreeMap::new();
    for f in findings {
        let Some(loc) = &f.location else { continue };
        let Some(uri) = super::uri::of_path(&root.join(&loc.path)) else {
            continue;
        };
        out.entry(uri.as_str().to_string())
            .or_default()
            .push(diagnostic(root, f));
    }
    out
}

fn diagnostic(root: &Path, f: &Finding) -> Diagnostic {
    let loc = f.location.as_ref().expect("a finding with a place");
    let mut message = f.message.clone();
    if !f.environments.is_empty() {
        message.push_str(&format!(" [{}]", f.environments.join(", ")));
    }
    let related: Vec<DiagnosticRelatedInformation> = f
        .related
        .iter()
        .filter_map(|r| {
            Some(DiagnosticRelatedInformation {
                location: Location {
                    uri: super::uri::of_path(&root.join(&r.location.path))?,
                    range: range(r.location.line, r.location.column),
                },
                message: r.message.clone(),
            })
        })
        .collect();
    let tags = match f.rule {
        RuleId::SchemaUnusedValue | RuleId::SchemaUnreachedValue => {
            Some(vec![DiagnosticTag::UNNECESSARY])
        }
        RuleId::ValuesDeprecated | RuleId::ValuesRemoved => Some(vec![DiagnosticTag::DEPRECATED]),
        _ => None,
    };
    Diagnostic {
        range: range(loc.line, loc.column),
        severity: Some(match f.severity {
            Severity::Error => DiagnosticSeverity::ERROR,
            Severity::Warning => DiagnosticSeverity::WARNING,
            Severity::Note => DiagnosticSeverity::INFORMATION,
        }),
        code: Some(NumberOrString::String(f.rule_id().to_string())),
        code_description: Uri::from_str(RULES_DOC)
            .ok()
            .map(|href| CodeDescription { href }),
        source: Some("yttcheck".to_string()),
        message,
        related_information: (!related.is_empty()).then_some(related),
        tags,
        data: serde_json::to_value(super::actions::Data {
            rule: f.rule_id().to_string(),
            fix: f.fix.clone(),
        })
        .ok(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostics::{FindingFields, Location as Loc, Related};

    #[test]
    fn findings_become_diagnostics_of_their_files() {
        let f = Finding::of(
            Severity::Warning,
            FindingFields {
                rule: RuleId::SchemaUnusedValue,
                specific_rule: None,
                message: "data value 'x' is declared, but no template reads it".into(),
                location: Loc::in_file("libs/web/schema.yml", 3, 1),
                origin: None,
                related: vec![Related {
                    location: Loc::file("libs/web/deploy.yml"),
                    message: "read here".into(),
                }],
                key_path: None,
                library: "web".into(),
                environments: vec!["dev".into(), "prod".into()],
                detail: vec![],
                fix: None,
            },
        );
        let mut no_place = f.clone();
        no_place.location = None;
        let all = by_file(Path::new("/repo"), &[f, no_place]);
        assert_eq!(all.len(), 1);
        let (uri, d) = all.iter().next().unwrap();
        assert_eq!(uri, "file:///repo/libs/web/schema.yml");
        let d = &d[0];
        assert_eq!(
            d.range.start,
            Position {
                line: 2,
                character: 0
            }
        );
        assert_eq!(d.severity, Some(DiagnosticSeverity::WARNING));
        assert_eq!(
            d.code,
            Some(NumberOrString::String("schema/unused-value".into()))
        );
        assert!(d.message.ends_with("[dev, prod]"));
        assert_eq!(d.tags, Some(vec![DiagnosticTag::UNNECESSARY]));
        let r = &d.related_information.as_ref().unwrap()[0];
        assert_eq!(r.location.uri.as_str(), "file:///repo/libs/web/deploy.yml");
    }
}
