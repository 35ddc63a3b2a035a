//! SARIF 2.1.0 for GitHub code scanning (`github/codeql-action/upload-sarif`).
//!
//! One rule per rule id, with the documentation of `diagnostics::rules` as
//! `fullDescription` and `help` (GitHub shows both); one result per finding,
//! located relative to the repository root (`%SRCROOT%`), with the schema
//! line that decided it as a related location, and a partial fingerprint
//! that does not change when lines move, so GitHub tracks an alert across
//! commits.

use std::collections::BTreeMap;

use serde_sarif::sarif::{
    ArtifactLocation, Invocation, Location as SarifLocation, Message, MultiformatMessageString,
    Notification, PhysicalLocation, Region, ReportingConfiguration, ReportingDescriptor,
    Result as SarifResult, ResultLevel, Run, Sarif, Tool, ToolComponent,
};

use crate::check::{Finding, Location, Severity};
use crate::diagnostics::RuleId;

use super::{pairs_of, ReportInput};

const SRCROOT: &str = "%SRCROOT%";

fn level(s: Severity) -> ResultLevel {
    match s {
        Severity::Error => ResultLevel::Error,
        Severity::Warning => ResultLevel::Warning,
        Severity::Note => ResultLevel::Note,
    }
}

fn level_name(s: Severity) -> &'static str {
    s.as_str()
}

fn descriptor(rule: &RuleId) -> ReportingDescriptor {
    let rule = rule.doc();
    let help_text = format!(
        "{}\n\nWhy: {}\n\nExample that fails:\n{}\n\nFix:\n{}",
        rule.summary, rule.why, rule.example, rule.fix
    );
    let help_markdown = format!(
        "{}\n\n**Why:** {}\n\n**Example that fails:**\n\n```yaml\n{}\n```\n\n**Fix:**\n\n```yaml\n{}\n```\n",
        rule.summary, rule.why, rule.example, rule.fix
    );
    ReportingDescriptor::builder()
        .id(rule.id)
        .name(rule.id.replace(['/', '-', '_'], " "))
        .short_description(
            MultiformatMessageString::builder()
                .text(rule.summary)
                .build(),
        )
        .full_description(
            MultiformatMessageString::builder()
                .text(format!("{} {}", rule.summary, rule.why))
                .build(),
        )
        .help(
            MultiformatMessageString::builder()
                .text(help_text)
                .markdown(help_markdown)
                .build(),
        )
        .default_configuration(
            ReportingConfiguration::builder()
                .level(serde_json::json!(level_name(rule.severity)))
                .build(),
        )
        .build()
}

fn physical(loc: &Location, message: Option<&str>) -> SarifLocation {
    let mut region = Region::builder().start_line(loc.line as i64).build();
    if loc.column > 0 {
        region.start_column = Some(loc.column as i64);
    }
    let physical = PhysicalLocation::builder()
        .artifact_location(
            ArtifactLocation::builder()
                .uri(uri_path(&loc.path))
                .uri_base_id(SRCROOT)
                .build(),
        )
        .region(region)
        .build();
    match message {
        Some(m) => SarifLocation::builder()
            .physical_location(physical)
            .message(Message::builder().text(m).build())
            .build(),
        None => SarifLocation::builder().physical_location(physical).build(),
    }
}

/// A relative URI: each path piece percent-encoded where needed.
fn uri_path(path: &str) -> String {
    path.split('/')
        .map(|piece| {
            piece
                .bytes()
                .map(|b| {
                    if b.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=:@".contains(&b) {
                        (b as char).to_string()
                    } else {
                        format!("%{b:02X}")
                    }
                })
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("/")
}

/// A descriptor for a specific rule (a policy's `policy/prod/replicas/min`):
/// its own id, so code scanning lists and filters each policy rule, with the
/// documentation of the rule it refines.
fn specific_descriptor(id: &str, rule: RuleId) -> ReportingDescriptor {
    let mut d = descriptor(&rule);
    d.id = id.to_string();
    d.name = Some(id.replace(['/', '-', '_'], " "));
    d.short_description = Some(
        MultiformatMessageString::builder()
            .text(format!("`{id}`: {}", rule.doc().summary))
            .build(),
    );
    d
}

/// The run's rule ids, in the order of the driver's `rules`: every rule,
/// then the specific ids the findings use, sorted.
fn specific_ids(input: &ReportInput) -> Vec<(String, RuleId)> {
    let set: std::collections::BTreeSet<(String, RuleId)> = input
        .result
        .findings
        .iter()
        .filter_map(|f| f.specific_rule.clone().map(|s| (s, f.rule)))
        .collect();
    set.into_iter().collect()
}

fn result(f: &Finding, input: &ReportInput, specific: &[(String, RuleId)]) -> Option<SarifResult> {
    let anchor = input.in_repo(&input.anchor(f)?);
    let rule_index = match &f.specific_rule {
        Some(id) => RuleId::ALL.len() + specific.iter().position(|(s, _)| s == id)?,
        None => RuleId::ALL.iter().position(|r| *r == f.rule)?,
    } as i64;
    let mut text = f.message_with_hints();
    if !text.ends_with('.') {
        text.push('.');
    }
    if let Some(o) = &f.origin {
        text.push_str(&format!(" The value comes from {o}."));
    }
    text.push_str(&format!(" In {}.", pairs_of(f)));
    let related: Vec<SarifLocation> = f
        .related
        .iter()
        .map(|r| physical(&input.in_repo(&r.location), Some(&r.message)))
        .collect();
    let mut fingerprints = BTreeMap::new();
    fingerprints.insert(
        "yttcheck/v1".to_string(),
        super::stable_fingerprint(f, &anchor),
    );
    let mut r = SarifResult::builder()
        .rule_id(f.rule_id())
        .rule_index(rule_index)
        .level(level(f.severity))
        .message(Message::builder().text(text).build())
        .locations(vec![physical(&anchor, None)])
        .partial_fingerprints(fingerprints)
        .build();
    if !related.is_empty() {
        r.related_locations = Some(related);
    }
    Some(r)
}

/// Most results in one run: GitHub's code scanning refuses a SARIF file
/// whose run holds more.
pub const MAX_RESULTS: usize = 25_000;

pub fn render(input: &ReportInput) -> String {
    let specific = specific_ids(input);
    let keep = super::worst_kept(&input.result.findings, MAX_RESULTS);
    let left_out = keep.iter().filter(|k| !**k).count();
    let driver = ToolComponent::builder()
        .name("yttcheck")
        .version(env!("CARGO_PKG_VERSION"))
        .semantic_version(env!("CARGO_PKG_VERSION"))
        .information_uri(env!("CARGO_PKG_HOMEPAGE"))
        .rules(
            RuleId::ALL
                .iter()
                .map(descriptor)
                .chain(specific.iter().map(|(id, r)| specific_descriptor(id, *r)))
                .collect::<Vec<_>>(),
        )
        .build();
    let results: Vec<SarifResult> = input
        .result
        .findings
        .iter()
        .zip(&keep)
        .filter(|(_, k)| **k)
        .filter_map(|(f, _)| result(f, input, &specific))
        .collect();
    // a finding with no place at all (no file, no config, no library) cannot
    // be a result GitHub accepts: it is a notification of the run instead
    let mut unplaced: Vec<Notification> = input
        .result
        .findings
        .iter()
        .zip(&keep)
        .filter(|(f, k)| **k && input.anchor(f).is_none())
        .map(|(f, _)| {
            Notification::builder()
                .message(
                    Message::builder()
                        .text(format!("[{}] {}", f.rule_id(), f.message))
                        .build(),
                )
                .level(serde_json::json!(level_name(f.severity)))
                .build()
        })
        .collect();
    if left_out > 0 {
        unplaced.push(
            Notification::builder()
                .message(
                    Message::builder()
                        .text(format!(
                            "{left_out} more findings are not in this file: code scanning takes at most {MAX_RESULTS} results per run (the worst are kept); `yttcheck check` prints them all"
                        ))
                        .build(),
                )
                .level(serde_json::json!("warning"))
                .build(),
        );
    }
    let mut run = Run::builder()
        .tool(Tool::builder().driver(driver).build())
        .results(results)
        .column_kind(serde_json::json!("unicodeCodePoints"))
        .build();
    if !unplaced.is_empty() {
        run.invocations = Some(vec![Invocation::builder()
            .execution_successful(true)
            .tool_execution_notifications(unplaced)
            .build()]);
    }
    let sarif = Sarif::builder()
        .schema(serde_sarif::sarif::SCHEMA_URL)
        .version(serde_json::json!("2.1.0"))
        .runs(vec![run])
        .build();
    let s = serde_json::to_string_pretty(&sarif).unwrap_or_else(|_| "{}".into());
    crate::escape::json::harden(&s) + "\n"
}
