//! Policy packs: a folder of policy files, shared across repositories by
//! vendoring it (git submodule, subtree, vendir or a copy), with an optional
//! manifest, `yttcheck-pack.yml`, that names the pack and sets its defaults:
//!
//! ```yaml
//! name: acme-prod             # the pack's name in findings and rule ids
//! version: 1.4.0              # shown by `yttcheck explain`
//! description: Rules every production environment follows
//! severity: error             # the default of its policies
//! policies:                   # per file (optional): severity, description
//!   logging.yml: {severity: warning, description: No debug logging in prod}
//! ```
//!
//! The manifest is configuration: a manifest that does not parse, or that
//! names a file the pack does not have, is `config/invalid` at its line,
//! never ignored. `.yttcheck.yml` has the last word: its `name:` and
//! `severity:` for the pack win over the manifest's.

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::source::RepoPath;

/// The manifest's file name, in the pack's folder.
pub const MANIFEST: &str = "yttcheck-pack.yml";

/// A pack's manifest.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// The pack's name (default: its folder's name).
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub version: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    /// The default severity of its policies: `error`, `warning` or `note`.
    #[serde(default)]
    pub severity: Option<String>,
    /// Per policy file (its name in the folder, `logging.yml`).
    #[serde(default)]
    pub policies: BTreeMap<String, PackPolicy>,
}

/// What the manifest says of one policy file.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PackPolicy {
    #[serde(default)]
    pub severity: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
}

/// A manifest that cannot be used: what is wrong, and the line when known.
#[derive(Debug, Clone, PartialEq)]
pub struct ManifestError {
    pub message: String,
    pub line: Option<u32>,
}

impl Manifest {
    /// Parses a manifest's text, checking its severities and that each file
    /// it names is one of `files` (the pack's policy files, by name).
    pub fn parse(path: &RepoPath, text: &str, files: &[&str]) -> Result<Manifest, ManifestError> {
        if text.trim().is_empty() {
            return Ok(Manifest::default());
        }
        super::config::nesting_within_bounds(text).map_err(|(message, line)| ManifestError {
            message: format!("policy pack manifest {path}: {message}"),
            line: Some(line as u32),
        })?;
        let manifest: Manifest = serde_norway::from_str(text).map_err(|e| {
            let (message, line) = super::config::yaml_error(&e);
            ManifestError {
                message: format!("policy pack manifest {path}: {message}"),
                line: line.map(|l| l as u32),
            }
        })?;
        let line_of = |needle: &str| {
            text.lines()
                .position(|l| !l.trim_start().starts_with('#') && l.contains(needle))
                .map(|i| i as u32 + 1)
        };
        let severities = manifest.severity.iter().chain(
            manifest
                .policies
                .values()
                .filter_map(|p| p.severity.as_ref()),
        );
        for s in severities {
            if crate::diagnostics::Severity::parse(s).is_none() {
                return Err(ManifestError {
                    message: format!(
                        "policy pack manifest {path}: severity '{s}' must be error, warning or note"
                    ),
                    line: line_of(s),
                });
            }
        }
        for file in manifest.policies.keys() {
            if !files.contains(&file.as_str()) {
                let mut known: Vec<&str> = files.to_vec();
                known.sort_unstable();
                return Err(ManifestError {
                    message: format!(
                        "policy pack manifest {path}: '{file}' is not a policy file of the pack (it has: {})",
                        known.join(", ")
                    ),
                    line: line_of(file),
                });
            }
        }
        if let Some(name) = &manifest.name {
            if name.trim().is_empty() || name.contains(['/', '\\']) {
                return Err(ManifestError {
                    message: format!(
                        "policy pack manifest {path}: name '{name}' must be one word (no `/`)"
                    ),
                    line: line_of("name:"),
                });
            }
        }
        Ok(manifest)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Manifest, ManifestError> {
        let path = RepoPath::new("policies/prod/yttcheck-pack.yml").unwrap();
        Manifest::parse(&path, text, &["replicas.yml", "logging.yml"])
    }

    #[test]
    fn a_full_manifest() {
        let m = parse(
            "name: acme-prod\nversion: 1.4.0\ndescription: prod rules\nseverity: warning\npolicies:\n  logging.yml: {severity: note}\n",
        )
        .unwrap();
        assert_eq!(m.name.as_deref(), Some("acme-prod"));
        assert_eq!(m.severity.as_deref(), Some("warning"));
        assert_eq!(m.policies["logging.yml"].severity.as_deref(), Some("note"));
        assert_eq!(parse("").unwrap(), Manifest::default());
    }

    #[test]
    fn mistakes_name_their_line() {
        let e = parse("name: x\nseverty: error\n").unwrap_err();
        assert!(e.message.contains("unknown field `severty`"), "{e:?}");
        assert_eq!(e.line, Some(2));
        let e = parse("policies:\n  replica.yml: {severity: error}\n").unwrap_err();
        assert!(
            e.message.contains("'replica.yml' is not a policy file"),
            "{e:?}"
        );
        assert_eq!(e.line, Some(2));
        let e = parse("severity: fatal\n").unwrap_err();
        assert_eq!(e.line, Some(1));
        let e = parse("name: a/b\n").unwrap_err();
        assert!(e.message.contains("one word"), "{e:?}");
    }
}
