//! A pair's outcome as the persistent cache keeps it: JSON that names its
//! own key and format, decoded only when both match. A file that is not
//! such JSON (damaged, truncated, another build's, planted) is a miss,
//! never an error and never a wrong answer of another pair.
//!
//! The paths a library declares (with where each is declared) are the same
//! for all its pairs and most of an outcome's size: they are kept once, as
//! an entry of their own named by the hash of their content
//! ([`encode_declared`]), and a pair's entry names them.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::finding::Finding;
use super::outcome::PairOutcome;
use super::usage::{Declared, ValueUsage};
use crate::diagnostics::{FindingFields, Fix, Location, Related, RuleId, Severity};

/// Bumped when the shape below changes.
const FORMAT: u32 = 2;

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct StoredOutcome {
    format: u32,
    /// The key the outcome was stored under (a file copied to another
    /// key's name is not that key's outcome).
    key: String,
    name: String,
    library: String,
    environment: String,
    /// What evaluating the pair took when it was computed.
    micros: u64,
    findings: Vec<StoredFinding>,
    usage: Option<StoredUsage>,
}

/// [`StoredOutcome`] as read: its usage is decoded only when asked for.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ReadOutcome<'a> {
    format: u32,
    #[serde(borrow)]
    key: &'a str,
    name: String,
    library: String,
    environment: String,
    micros: u64,
    findings: Vec<StoredFinding>,
    #[serde(borrow)]
    usage: Option<&'a serde_json::value::RawValue>,
}

/// Findings about a whole library (its unused values).
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct StoredFindings {
    format: u32,
    key: String,
    findings: Vec<StoredFinding>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct StoredFinding {
    rule: String,
    specific_rule: Option<String>,
    severity: Severity,
    message: String,
    location: Option<Location>,
    origin: Option<String>,
    related: Vec<Related>,
    key_path: Option<String>,
    library: String,
    environments: Vec<String>,
    detail: Vec<String>,
    fix: Option<Fix>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct StoredUsage {
    /// The key of the declared paths' own entry.
    declared: String,
    read: BTreeSet<String>,
    null: BTreeSet<String>,
}

/// A library's declared paths.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct StoredDeclared {
    format: u32,
    key: String,
    declared: Vec<(String, Option<Location>)>,
}

/// The bytes of `declared` as an entry, and the key they are kept under
/// (the hash of their content: the same paths, the same entry).
pub(super) fn encode_declared(declared: &Declared) -> (String, Vec<u8>) {
    use sha2::Digest;
    let content = serde_json::to_vec(declared.as_ref()).expect("paths are plain data");
    let digest = sha2::Sha256::digest(&content);
    let key: String = digest[..16].iter().map(|b| format!("{b:02x}")).collect();
    let entry = StoredDeclared {
        format: FORMAT,
        key: key.clone(),
        declared: declared.as_ref().clone(),
    };
    (
        key,
        serde_json::to_vec(&entry).expect("paths are plain data"),
    )
}

/// The declared paths kept in `bytes` under `key`.
pub(super) fn decode_declared(bytes: &[u8], key: &str) -> Option<Declared> {
    let s: StoredDeclared = serde_json::from_slice(bytes).ok()?;
    (s.format == FORMAT && s.key == key).then(|| Arc::new(s.declared))
}

/// The bytes that keep `outcome` under `key` (its values are not kept: a
/// run that needs them does not use the store), with its usage's declared
/// paths under `declared_key` (see [`encode_declared`]).
pub(super) fn encode(outcome: &PairOutcome, key: &str, declared_key: Option<&str>) -> Vec<u8> {
    let stored = StoredOutcome {
        format: FORMAT,
        key: key.to_string(),
        name: outcome.name.clone(),
        library: outcome.library.clone(),
        environment: outcome.environment.clone(),
        micros: u64::try_from(outcome.duration.as_micros()).unwrap_or(u64::MAX),
        findings: outcome.findings.iter().map(stored).collect(),
        usage: outcome
            .usage
            .as_ref()
            .zip(declared_key)
            .map(|(u, declared)| StoredUsage {
                declared: declared.to_string(),
                read: u.read.clone(),
                null: u.null.clone(),
            }),
    };
    serde_json::to_vec(&stored).expect("an outcome is plain data")
}

/// The outcome kept in `bytes`, when they are one of this format stored
/// under `key`; `declared` finds the declared paths its usage names, and
/// without it the usage is left out (not decoded).
pub(super) fn decode(
    bytes: &[u8],
    key: &str,
    declared: Option<impl FnOnce(&str) -> Option<Declared>>,
    skipped: Option<&mut Option<String>>,
) -> Option<PairOutcome> {
    let s: ReadOutcome = serde_json::from_slice(bytes).ok()?;
    if s.format != FORMAT || s.key != key {
        return None;
    }
    let findings = s.findings.into_iter().map(finding).collect::<Option<_>>()?;
    let usage = match (s.usage, declared) {
        (Some(raw), None) => {
            // not decoded, but the declared paths it names are still needed
            if let Some(keep) = skipped {
                *keep = declared_key_of(raw);
            }
            None
        }
        (Some(raw), Some(declared)) => {
            let u: StoredUsage = serde_json::from_str(raw.get()).ok()?;
            Some(Arc::new(ValueUsage {
                declared: declared(&u.declared)?,
                read: u.read,
                null: u.null,
            }))
        }
        _ => None,
    };
    Some(PairOutcome {
        name: s.name,
        library: s.library,
        environment: s.environment,
        findings,
        duration: Duration::from_micros(s.micros),
        values: None,
        usage,
        rendered: None,
    })
}

/// The key of the declared paths a stored usage names.
fn declared_key_of(usage: &serde_json::value::RawValue) -> Option<String> {
    #[derive(Deserialize)]
    struct DeclaredOnly {
        declared: String,
    }
    let d: DeclaredOnly = serde_json::from_str(usage.get()).ok()?;
    Some(d.declared)
}

/// The bytes that keep a library's `findings` under `key`.
pub(super) fn encode_findings(findings: &[Finding], key: &str) -> Vec<u8> {
    let s = StoredFindings {
        format: FORMAT,
        key: key.to_string(),
        findings: findings.iter().map(stored).collect(),
    };
    serde_json::to_vec(&s).expect("findings are plain data")
}

/// The findings kept in `bytes` under `key`.
pub(super) fn decode_findings(bytes: &[u8], key: &str) -> Option<Vec<Finding>> {
    let s: StoredFindings = serde_json::from_slice(bytes).ok()?;
    if s.format != FORMAT || s.key != key {
        return None;
    }
    s.findings.into_iter().map(finding).collect()
}

fn stored(f: &Finding) -> StoredFinding {
    StoredFinding {
        rule: f.rule.id().to_string(),
        specific_rule: f.specific_rule.clone(),
        severity: f.severity,
        message: f.message.clone(),
        location: f.location.clone(),
        origin: f.origin.clone(),
        related: f.related.clone(),
        key_path: f.key_path.clone(),
        library: f.library.clone(),
        environments: f.environments.clone(),
        detail: f.detail.clone(),
        fix: f.fix.clone(),
    }
}

/// A stored finding, when its rule is one of this build's.
fn finding(f: StoredFinding) -> Option<Finding> {
    Some(Finding::of(
        f.severity,
        FindingFields {
            rule: RuleId::from_id(&f.rule)?,
            specific_rule: f.specific_rule,
            message: f.message,
            location: f.location,
            origin: f.origin,
            related: f.related,
            key_path: f.key_path,
            library: f.library,
            environments: f.environments,
            detail: f.detail,
            fix: f.fix,
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome() -> PairOutcome {
        let mut f = Finding::of(
            Severity::Error,
            FindingFields {
                rule: RuleId::ValidationMin,
                specific_rule: None,
                message: "replicas: must be a value >= 1".into(),
                location: Location::in_file("envs/prod/web.yml", 3, 2),
                origin: None,
                related: vec![Related {
                    location: Location::file("schema.yml"),
                    message: "declared here".into(),
                }],
                key_path: Some("replicas".into()),
                library: "web".into(),
                environments: vec!["prod".into()],
                detail: vec!["line".into()],
                fix: None,
            },
        );
        f.fix = Some(Fix::replace(Location::file("a.yml"), "a", "b"));
        PairOutcome {
            name: "web@prod".into(),
            library: "web".into(),
            environment: "prod".into(),
            findings: vec![f],
            duration: Duration::from_millis(12),
            values: None,
            usage: Some(Arc::new(ValueUsage {
                declared: Arc::new(vec![("replicas".into(), Some(Location::file("s.yml")))]),
                read: ["replicas".to_string()].into_iter().collect(),
                null: BTreeSet::new(),
            })),
            rendered: None,
        }
    }

    #[test]
    fn an_outcome_comes_back_as_it_was_kept() {
        let o = outcome();
        let (dk, db) = encode_declared(&o.usage.as_ref().unwrap().declared);
        let declared = |k: &str| decode_declared(&db, k);
        let bytes = encode(&o, "k1", Some(&dk));
        let back = decode(&bytes, "k1", Some(declared), None).expect("decodes");
        assert_eq!(back.findings, o.findings);
        assert_eq!(back.name, o.name);
        assert_eq!(back.duration, o.duration);
        let (a, b) = (back.usage.unwrap(), o.usage.unwrap());
        assert_eq!(
            (&a.declared, &a.read, &a.null),
            (&b.declared, &b.read, &b.null)
        );
        // without its usage: the same findings, no usage
        let mut skipped = None;
        let bare = decode(
            &bytes,
            "k1",
            None::<fn(&str) -> Option<Declared>>,
            Some(&mut skipped),
        )
        .expect("decodes");
        assert_eq!(skipped, Some(dk.clone()));
        assert_eq!(bare.findings, o.findings);
        assert!(bare.usage.is_none());
    }

    #[test]
    fn bytes_of_another_key_or_shape_are_a_miss() {
        let o = outcome();
        let (dk, db) = encode_declared(&o.usage.as_ref().unwrap().declared);
        let declared = |k: &str| decode_declared(&db, k);
        let bytes = encode(&o, "k1", Some(&dk));
        assert!(
            decode(&bytes, "k2", Some(declared), None).is_none(),
            "another key's outcome"
        );
        assert!(
            decode(&bytes, "k1", Some(|_: &str| None), None).is_none(),
            "declared paths missing"
        );
        assert!(
            decode_declared(&db, "other").is_none(),
            "declared paths of another key"
        );
        for n in [0, 1, bytes.len() / 2, bytes.len() - 1] {
            assert!(
                decode(&bytes[..n], "k1", Some(declared), None).is_none(),
                "truncated at {n}"
            );
        }
        let text = String::from_utf8(bytes).unwrap();
        for (from, to) in [
            ("\"format\":2", "\"format\":1"),
            ("\"validation/min\"", "\"no/such-rule\""),
            ("\"severity\":\"error\"", "\"severity\":\"fatal\""),
            ("{\"format\"", "{\"extra\":1,\"format\""),
        ] {
            let changed = text.replacen(from, to, 1);
            assert_ne!(changed, text, "{from}");
            assert!(
                decode(changed.as_bytes(), "k1", Some(declared), None).is_none(),
                "{to}"
            );
        }
    }
}
