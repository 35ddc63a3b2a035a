//! `.yttcheck.yml`: what a repository declares about its libraries and
//! environments. Every key is optional; unknown keys are errors (a typo in a
//! config file must not silently change what is checked).

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::source::RepoPath;

/// The config file's name, at the repository root.
pub const CONFIG_FILE: &str = ".yttcheck.yml";

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// Libraries declared (their names, files, marks); they add to or
    /// override (by folder) what discovery finds.
    #[serde(default)]
    pub libraries: Vec<LibrarySpec>,
    /// Whether libraries are also discovered beside the declared ones
    /// (default true; `false`: the declared ones alone).
    #[serde(default)]
    pub discover: Option<bool>,
    /// Environments; when absent, they are discovered.
    #[serde(default)]
    pub environments: Vec<EnvironmentSpec>,
    /// Which environments apply to which libraries: library name (or glob) ->
    /// environment names (or globs). Libraries not listed get every
    /// environment.
    #[serde(default)]
    pub matrix: indexmap::IndexMap<String, Vec<String>>,
    /// Globs of paths never read (`**/testdata/**`).
    #[serde(default)]
    pub exclude: Vec<String>,
    /// Also check each library's private libraries (`_ytt_lib/*`) with the
    /// values the library sends them.
    #[serde(default)]
    pub private_libraries: bool,
    /// Lowest severity that fails the run: `error` (default), `warning`, `note`.
    #[serde(default)]
    pub fail_on: Option<String>,
    /// Lowest severity reported: `note` (default: everything), `warning`
    /// (no notes), `error`.
    #[serde(default)]
    pub min_severity: Option<String>,
    /// Evaluation budgets per file.
    #[serde(default)]
    pub budget: Option<BudgetSpec>,
    /// More words that mark a key as secret in `diff` (besides password,
    /// secret, token, key, cert, credential, private).
    #[serde(default)]
    pub secret_words: Vec<String>,
    /// Per-rule severity: rule id -> `off`, `error`, `warning` or `note`.
    #[serde(default)]
    pub rules: indexmap::IndexMap<String, String>,
    /// Findings of a rule in some paths that are not reported.
    #[serde(default)]
    pub ignore: Vec<IgnoreSpec>,
    /// Policies: rules on final data values, selected by library and
    /// environment.
    #[serde(default)]
    pub policies: Vec<PolicySpec>,
    /// Rendered documents checked against Kubernetes schemas.
    #[serde(default)]
    pub kubernetes: Option<KubernetesSpec>,
    /// Globs of vendored paths (upstream packages kept as they are): lints
    /// their authors must fix are notes there (folders that vendir syncs
    /// are vendored without saying so).
    #[serde(default)]
    pub vendored: Vec<String>,
    /// `ci` on a pull request fails on findings that stood on its base too
    /// (by default only on those it brings).
    #[serde(default)]
    pub fail_on_existing: bool,
    /// A baseline file of the repository (`check --baseline`'s format):
    /// every check uses it without the flag (hooks, daemon, `ci`, editor).
    #[serde(default)]
    pub baseline: Option<String>,
    /// Committed exports of a library's schema that `yttcheck docs` writes
    /// and `docs --check` holds fresh.
    #[serde(default)]
    pub exports: Vec<ExportSpec>,
}

/// `exports: [{library: web, path: schemas/web.json, format: json-schema}]`.
#[derive(Debug, Clone, Default, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct ExportSpec {
    /// The library whose schema is exported.
    pub library: String,
    /// The file of the repository it is written to.
    pub path: String,
    /// `json-schema` (the default for a `.json` file) or `openapi-v3`
    /// (ytt's `--data-values-schema-inspect -o openapi-v3`, the default
    /// otherwise).
    #[serde(default)]
    pub format: Option<String>,
}

/// `kubernetes: {version: 1.30.0, strict: true, schema_locations: [...],
/// skip_kinds: [...], crds: [crds/]}`.
#[derive(Debug, Clone, Default, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct KubernetesSpec {
    /// Kubernetes version of the schemas (`1.30.0`; default `master`).
    #[serde(default)]
    pub version: Option<String>,
    /// The Kubernetes version of some environments (name or glob ->
    /// version: `{legacy: 1.25.0, "prod*": 1.30.0}`): their schemas, and
    /// the APIs removed or deprecated there.
    #[serde(default)]
    pub versions: indexmap::IndexMap<String, String>,
    /// kubeconform schema locations, tried in order: `https://` URLs, or
    /// folders of the repository (a repository's configuration never names
    /// a file outside it, nor a plain-`http` or other host's address).
    #[serde(default)]
    pub schema_locations: Vec<String>,
    /// Unknown fields are findings.
    #[serde(default)]
    pub strict: bool,
    /// Kinds not checked: `Kind` or `group/version/Kind`.
    #[serde(default)]
    pub skip_kinds: Vec<String>,
    /// Files or folders of the repository holding CustomResourceDefinitions
    /// (besides those the pairs render).
    #[serde(default)]
    pub crds: Vec<String>,
}

/// `policies: [{path: policies/prod.yml, environments: [prod*]}]`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PolicySpec {
    /// A policy file, or a folder of them (a policy pack).
    pub path: String,
    /// Globs of the environments it applies to (default: all).
    #[serde(default)]
    pub environments: Vec<String>,
    /// Globs of the libraries it applies to (default: all).
    #[serde(default)]
    pub libraries: Vec<String>,
    /// `error` (default), `warning` or `note`.
    #[serde(default)]
    pub severity: Option<String>,
    /// The policy's name in findings (default: the file's name without
    /// `.yml`; a pack's files are `<pack>/<file>`).
    #[serde(default)]
    pub name: Option<String>,
}

/// `ignore: [{rule: schema/undeclared-key, paths: ["envs/legacy/**"]}]`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IgnoreSpec {
    /// A rule id, or `*` for every rule.
    pub rule: String,
    /// Globs of the paths whose findings of the rule are not reported.
    pub paths: Vec<String>,
    /// Why (kept for the reader of the config).
    #[serde(default)]
    pub reason: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LibrarySpec {
    /// One library: a folder given to ytt as `-f`.
    pub path: Option<String>,
    /// Several libraries: every folder matching the glob (`libs/*`).
    pub glob: Option<String>,
    /// Name (for `path:`; `glob:` libraries are named by folder).
    pub name: Option<String>,
    /// More `-f` files or folders read with the library (shared helpers).
    #[serde(default)]
    pub files: Vec<String>,
    /// ytt's `--file-mark PATH:KEY=VALUE` for the library's files (`PATH`
    /// relative to the library's folder), as a Makefile or a Package CR
    /// gives them to ytt.
    #[serde(default)]
    pub file_marks: Vec<String>,
    /// The file of the library's Package CR (kapp-controller's
    /// `data.packaging.carvel.dev` `Package`), when the CR does not say it
    /// by its ytt paths.
    #[serde(default)]
    pub package: Option<String>,
    /// Sample values files of the library (plain values, or a Secret's
    /// keys), each checked as a pair of its own (`sample-<name>`).
    #[serde(default)]
    pub samples: Vec<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EnvironmentSpec {
    /// One environment with the files and flags below.
    pub name: Option<String>,
    /// Several environments: every folder (or YAML file) matching the glob,
    /// laid out as in zero-config discovery (`envs/*`).
    pub glob: Option<String>,
    /// `-f` files: templates or `@data/values` documents (globs allowed;
    /// `{library}` is replaced by the library's name).
    #[serde(default)]
    pub files: Vec<String>,
    /// `--data-values-file` (plain YAML; globs and `{library}` allowed; a
    /// pattern that matches nothing for a library is skipped for it).
    #[serde(default)]
    pub data_values_files: Vec<String>,
    /// `-v` / `--data-value` (`[@lib:]key=value`).
    #[serde(default)]
    pub data_values: Vec<String>,
    /// `--data-value-yaml`.
    #[serde(default)]
    pub data_values_yaml: Vec<String>,
    /// `--data-value-file` (`key=path`).
    #[serde(default)]
    pub data_value_files: Vec<String>,
    /// `--data-values-env PREFIX`.
    #[serde(default)]
    pub env_prefixes: Vec<String>,
    /// `--data-values-env-yaml PREFIX`.
    #[serde(default)]
    pub env_yaml_prefixes: Vec<String>,
    /// Environment variables the prefixes read (the process environment is
    /// never read: a check must not depend on who runs it).
    #[serde(default)]
    pub env: BTreeMap<String, String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BudgetSpec {
    pub max_steps: Option<u64>,
    pub timeout_seconds: Option<f64>,
}

/// A config error, with the file's line when known.
#[derive(Debug, Clone)]
pub struct ConfigError {
    pub path: RepoPath,
    pub line: Option<usize>,
    pub message: String,
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            Some(l) => write!(f, "{}:{l}: {}", self.path, self.message),
            None => write!(f, "{}: {}", self.path, self.message),
        }
    }
}

/// The deepest a configuration file nests flow collections (`[`, `{`) or
/// block ones (indentation steps): far more than any configuration needs.
pub const MAX_NESTING: usize = 64;

/// Refuses a configuration text that nests deeper than [`MAX_NESTING`]
/// before the YAML parser sees it: libyaml's scanner takes time quadratic
/// in the depth of flow collections (64,000 `[` took 16 s), and a pull
/// request must not be able to stall a check. Returns the message and the
/// 1-based line where the limit is crossed.
pub fn nesting_within_bounds(text: &str) -> Result<(), (String, usize)> {
    let mut depth = 0usize;
    let mut indents: Vec<usize> = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let mut quote: Option<char> = None;
        let trimmed = line.trim_start();
        if depth == 0 && !trimmed.is_empty() && !trimmed.starts_with('#') {
            let indent = line.len() - trimmed.len();
            while indents.last().is_some_and(|&i| i >= indent) {
                indents.pop();
            }
            indents.push(indent);
        }
        let mut prev = ' ';
        for c in line.chars() {
            match (quote, c) {
                (Some(q), c) if c == q => quote = None,
                (Some(_), _) => {}
                (None, '"' | '\'') => quote = Some(c),
                (None, '#') if prev.is_whitespace() => break,
                (None, '[' | '{') => {
                    depth += 1;
                    if depth + indents.len() > MAX_NESTING {
                        break;
                    }
                }
                (None, ']' | '}') => depth = depth.saturating_sub(1),
                _ => {}
            }
            prev = c;
        }
        if depth + indents.len() > MAX_NESTING {
            return Err((
                format!(
                    "nests more than {MAX_NESTING} levels deep; a configuration never needs that many (refused before parsing, as it could take minutes)"
                ),
                n + 1,
            ));
        }
    }
    Ok(())
}

/// The keys a config section accepts, for "did you mean" hints.
const SECTION_KEYS: &[&[&str]] = &[
    &[
        "libraries",
        "environments",
        "matrix",
        "exclude",
        "private_libraries",
        "fail_on",
        "min_severity",
        "budget",
        "secret_words",
        "rules",
        "ignore",
        "policies",
        "kubernetes",
        "discover",
        "vendored",
        "baseline",
        "fail_on_existing",
        "exports",
    ],
    &["rule", "paths", "reason"],
    &[
        "path",
        "glob",
        "name",
        "files",
        "file_marks",
        "package",
        "samples",
    ],
    &["library", "format"],
    &[
        "name",
        "glob",
        "files",
        "data_values_files",
        "data_values",
        "data_values_yaml",
        "data_value_files",
        "env_prefixes",
        "env_yaml_prefixes",
        "env",
    ],
    &["max_steps", "timeout_seconds"],
];

/// An id of `.yttcheck.yml` must name a rule (with "did you mean").
fn check_rule_id(id: &str) -> Result<(), String> {
    use crate::diagnostics::RuleId;
    if crate::diagnostics::rules::is_rule_pattern(id) {
        return Ok(());
    }
    let near = RuleId::ALL
        .iter()
        .map(|r| (crate::template::compiler::metas::strsim(id, r.id()), r.id()))
        .min_by_key(|(d, _)| *d)
        .filter(|(d, _)| *d <= 4)
        .map(|(_, n)| format!(" (did you mean `{n}`?)"))
        .unwrap_or_default();
    Err(format!(
        "no rule `{id}`{near}; `yttcheck explain` lists them"
    ))
}

/// The first `'...'` or `` `...` `` of a validation message: the value of the
/// config it is about.
fn quoted(message: &str) -> Option<&str> {
    let start = message.find(['\'', '`'])?;
    let q = message[start..].chars().next()?;
    let rest = &message[start + 1..];
    let end = rest.find(q)?;
    let value = &rest[..end];
    (!value.is_empty()).then_some(value)
}

/// A YAML error of a configuration file: its message without the place
/// serde_norway appends (" at line N column M"; we print the line
/// ourselves), and the line.
pub(super) fn yaml_error(e: &serde_norway::Error) -> (String, Option<usize>) {
    let mut message = e.to_string();
    if let Some(i) = message.find(" at line ") {
        message.truncate(i);
    }
    (message, e.location().map(|l| l.line()))
}

impl Config {
    /// Parses and checks a config file's text.
    pub fn parse(path: &RepoPath, text: &str) -> Result<Config, ConfigError> {
        if text.trim().is_empty() {
            return Ok(Config::default());
        }
        nesting_within_bounds(text).map_err(|(message, line)| ConfigError {
            path: path.clone(),
            line: Some(line),
            message,
        })?;
        let config: Config = serde_norway::from_str(text).map_err(|e| {
            let (mut message, line) = yaml_error(&e);
            if let Some(hint) = unknown_key_hint(&message) {
                message.push_str(&hint);
            }
            ConfigError {
                path: path.clone(),
                line,
                message,
            }
        })?;
        config.validate(path).map_err(|mut e| {
            // point at the line that holds what the message quotes
            if e.line.is_none() {
                e.line = quoted(&e.message).and_then(|q| {
                    text.lines()
                        .position(|l| !l.trim_start().starts_with('#') && l.contains(q))
                        .map(|i| i + 1)
                });
            }
            e
        })?;
        Ok(config)
    }

    fn validate(&self, path: &RepoPath) -> Result<(), ConfigError> {
        let err = |message: String| ConfigError {
            path: path.clone(),
            line: None,
            message,
        };
        for (i, l) in self.libraries.iter().enumerate() {
            match (&l.path, &l.glob) {
                (Some(_), Some(_)) | (None, None) => {
                    return Err(err(format!(
                        "libraries[{i}]: give exactly one of `path:` (one library) or `glob:` (several)"
                    )))
                }
                (None, Some(_)) if l.name.is_some() => {
                    return Err(err(format!(
                        "libraries[{i}]: `name:` is only for `path:` libraries; `glob:` libraries are named by their folder"
                    )))
                }
                _ => {}
            }
        }
        for (i, e) in self.environments.iter().enumerate() {
            match (&e.name, &e.glob) {
                (Some(_), Some(_)) | (None, None) => {
                    return Err(err(format!(
                        "environments[{i}]: give exactly one of `name:` (one environment) or `glob:` (several)"
                    )))
                }
                _ => {}
            }
        }
        for (key, value) in [
            ("fail_on", &self.fail_on),
            ("min_severity", &self.min_severity),
        ] {
            if let Some(f) = value {
                if crate::diagnostics::Severity::parse(f).is_none() {
                    return Err(err(format!(
                        "{key}: expected one of error, warning, note; got '{f}'"
                    )));
                }
            }
        }
        for (rule, level) in &self.rules {
            check_rule_id(rule).map_err(|m| err(format!("rules: {m}")))?;
            if level != "off" && crate::diagnostics::Severity::parse(level).is_none() {
                return Err(err(format!(
                    "rules: {rule}: expected one of off, error, warning, note; got '{level}'"
                )));
            }
        }
        for (i, ig) in self.ignore.iter().enumerate() {
            if ig.rule != "*" {
                check_rule_id(&ig.rule).map_err(|m| err(format!("ignore[{i}]: {m}")))?;
            }
            if ig.paths.is_empty() {
                return Err(err(format!(
                    "ignore[{i}]: give `paths:` (globs like envs/legacy/**)"
                )));
            }
        }
        if let Some(b) = &self.baseline {
            crate::source::confine(b).map_err(|m| err(format!("baseline: {m}")))?;
        }
        let globs = self
            .exclude
            .iter()
            .chain(self.vendored.iter())
            .chain(self.ignore.iter().flat_map(|i| i.paths.iter()))
            .chain(self.matrix.keys())
            .chain(self.matrix.values().flatten())
            .chain(self.libraries.iter().filter_map(|l| l.glob.as_ref()))
            .chain(self.environments.iter().filter_map(|e| e.glob.as_ref()));
        for pattern in globs {
            super::patterns::glob(pattern).map_err(err)?;
        }
        let mut names = std::collections::BTreeSet::new();
        for l in &self.libraries {
            if let Some(n) = &l.name {
                if !names.insert(n) {
                    return Err(err(format!("two libraries are named '{n}'")));
                }
            }
        }
        Ok(())
    }
}

/// " (did you mean `x`?)" for serde's "unknown field `y`" messages.
fn unknown_key_hint(message: &str) -> Option<String> {
    let start = message.find("unknown field `")? + "unknown field `".len();
    let rest = &message[start..];
    let key = &rest[..rest.find('`')?];
    // the keys the section accepts, as the parser lists them (the name of
    // another section's key is no answer), else every section's
    let expected: Vec<&str> = message
        .find("expected ")
        .map(|i| message[i..].split('`').skip(1).step_by(2).collect())
        .unwrap_or_default();
    let all: Vec<&str> = SECTION_KEYS
        .iter()
        .flat_map(|s| s.iter().copied())
        .collect();
    let candidates = if expected.is_empty() { &all } else { &expected };
    let best = candidates
        .iter()
        .map(|k| (crate::template::compiler::metas::strsim(key, k), *k))
        .filter(|(d, _)| *d <= 3)
        .min_by_key(|(d, _)| *d)?;
    Some(format!(" (did you mean `{}`?)", best.1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Config, String> {
        Config::parse(&RepoPath::new(CONFIG_FILE).unwrap(), text).map_err(|e| e.to_string())
    }

    #[test]
    fn deep_nesting_is_refused_at_once() {
        let path = RepoPath::new(CONFIG_FILE).unwrap();
        let deep = format!(
            "matrix:\n  x: {}{}\n",
            "[".repeat(64_000),
            "]".repeat(64_000)
        );
        // refused by the scan, before the parser (which takes minutes)
        let e = Config::parse(&path, &deep).unwrap_err();
        assert!(
            e.message.contains("nests more than 64 levels"),
            "{}",
            e.message
        );
        assert_eq!(e.line, Some(2));
        let mut block = String::new();
        for i in 0..100 {
            block.push_str(&format!("{}a{i}:\n", "  ".repeat(i)));
        }
        assert!(Config::parse(&path, &block).is_err());
        // quotes and comments do not count; real configurations pass
        assert!(nesting_within_bounds("a: \"[[[[\" # {{{{\nb: [1, {c: [2]}]\n").is_ok());
    }

    #[test]
    fn parses_a_full_config() {
        let c = parse(
            "libraries:\n- glob: libs/*\n- path: platform/base\n  name: base\nenvironments:\n- glob: envs/*\n- name: eu\n  data_values_files: [regions/eu.yml]\n  data_values_yaml: [replicas=3]\nmatrix:\n  base: [eu]\nexclude: ['**/testdata/**']\nfail_on: warning\n",
        )
        .unwrap();
        assert_eq!(c.libraries.len(), 2);
        assert_eq!(c.environments[1].data_values_yaml, vec!["replicas=3"]);
        assert_eq!(c.matrix["base"], vec!["eu"]);
    }

    #[test]
    fn unknown_keys_are_errors_with_a_suggestion() {
        let e = parse("librarys:\n- glob: libs/*\n").unwrap_err();
        assert!(
            e.starts_with(".yttcheck.yml:1: unknown field `librarys`"),
            "{e}"
        );
        assert!(e.ends_with("(did you mean `libraries`?)"), "{e}");
        let e = parse("environments:\n- name: prod\n  data_value_file: [x]\n").unwrap_err();
        assert!(
            e.contains(":3: environments[0]: unknown field `data_value_file`"),
            "{e}"
        );
        assert!(e.contains("did you mean `data_value_files`?"), "{e}");
    }

    #[test]
    fn inconsistent_entries_are_errors() {
        assert!(parse("libraries:\n- path: a\n  glob: b\n")
            .unwrap_err()
            .contains("exactly one of"));
        assert!(parse("environments:\n- files: [x]\n")
            .unwrap_err()
            .contains("exactly one of"));
        assert!(parse("fail_on: fatal\n").unwrap_err().contains("fail_on"));
    }
}
