//! Every rule a finding can have, documented once: what it checks, why it
//! matters, an example that fails and its fix. This text is what
//! `yttcheck explain RULE` prints, what SARIF carries as `fullDescription` and
//! `help`, and what the README's rule table lists (a test keeps them in step).

use super::finding::Severity;

/// A rule's documentation.
#[derive(Debug)]
pub struct Rule {
    /// Stable, namespaced id (`schema/type-mismatch`).
    pub id: &'static str,
    pub severity: Severity,
    /// One line.
    pub summary: &'static str,
    /// Why it matters.
    pub why: &'static str,
    /// A failing example.
    pub example: &'static str,
    /// How to fix it.
    pub fix: &'static str,
}

macro_rules! rule {
    ($id:literal, $sev:ident, $summary:literal, $why:literal, $example:literal, $fix:literal) => {
        Rule {
            id: $id,
            severity: Severity::$sev,
            summary: $summary,
            why: $why,
            example: $example,
            fix: $fix,
        }
    };
}

/// All rules, in the order the README lists them.
pub const RULES: &[Rule] = &[
    rule!(
        "config/invalid",
        Error,
        "`.yttcheck.yml` is malformed, or names files that do not exist.",
        "A typo in the config file would silently change what is checked.",
        "librarys:\n- glob: libs/*",
        "libraries:\n- glob: libs/*"
    ),
    rule!(
        "file/unreadable",
        Error,
        "A file cannot be read as text: missing, unreadable, binary, too large or not UTF-8.",
        "ytt would fail on it too; yttcheck never skips a file silently.",
        "values.yml saved as Latin-1 (`café` as byte 0xE9)",
        "Save the file as UTF-8 (or remove it from the library)."
    ),
    rule!(
        "yaml/syntax",
        Error,
        "A file is not valid YAML, or nests/aliases beyond yttcheck's limits.",
        "ytt cannot read the file, so nothing that depends on it can be checked.",
        "ports: [80, 443\nhost: x",
        "ports: [80, 443]\nhost: x"
    ),
    rule!(
        "template/error",
        Error,
        "A template or Starlark file fails to compile or evaluate (syntax error, runtime error, failed `load()`).",
        "ytt stops at the first such error; the values of the library cannot be computed.",
        "#@data/values\n---\nport: #@ 80 + \"80\"",
        "#@data/values\n---\nport: #@ 80 + 80"
    ),
    rule!(
        "template/budget",
        Error,
        "An evaluation ran out of its step, time or memory budget.",
        "An endless loop or a value that grows without bound would hang ytt or exhaust the machine; yttcheck stops it and names the line.",
        "#@ for i in range(1000000000):\n#@   x = i\n#@ end",
        "Bound the loop; raise `--max-steps`/`--timeout` (or `budget:` in the config) only for legitimately large evaluations."
    ),
    rule!(
        "annotation/unknown",
        Warning,
        "An annotation in one of ytt's namespaces (`schema/`, `data/`, `overlay/`, ...) that ytt does not know.",
        "ytt silently ignores annotations it does not know, so the author's intent (say, `@schema/nulable`) does nothing; the check still evaluates the pair as ytt would.",
        "#@schema/nulable\ntag: \"\"",
        "#@schema/nullable\ntag: \"\""
    ),
    rule!(
        "schema/invalid",
        Error,
        "The schema itself is wrong: a misused annotation, a null default without `@schema/nullable`, an array without exactly one item, a default of the wrong type.",
        "ytt refuses the schema, so no environment of the library can be checked.",
        "#@data/values-schema\n---\nports: []",
        "#@data/values-schema\n---\nports:\n- 80"
    ),
    rule!(
        "schema/type-mismatch",
        Error,
        "A data value has a different type than the schema declares.",
        "ytt fails on it; templates would otherwise receive a value of the wrong type.",
        "# schema: replicas: 1\nreplicas: \"3\"",
        "replicas: 3"
    ),
    rule!(
        "schema/undeclared-key",
        Error,
        "A data value is given for a key the schema does not declare.",
        "Usually a typo: the value the author meant to set keeps its default.",
        "# schema: replicas: 1\nreplica: 3",
        "replicas: 3"
    ),
    rule!(
        "overlay/error",
        Error,
        "A data values overlay does not apply: no match, several matches, or a failed `@overlay/assert`.",
        "ytt fails on it; a new key in a `@data/values` document needs `@overlay/match missing_ok=True` (or a schema).",
        "#@data/values\n---\nnew_key: 1",
        "#@data/values\n---\n#@overlay/match missing_ok=True\nnew_key: 1"
    ),
    rule!(
        "values/error",
        Error,
        "Data values cannot be computed for another reason: a plain values file with annotations, a malformed flag, a misplaced document.",
        "ytt fails on it.",
        "# given with --data-values-file:\n#@data/values\n---\na: 1",
        "Remove the `#@` annotations from plain values files (or give the file with `-f`)."
    ),
    rule!(
        "values/deprecated",
        Warning,
        "A value is given for a key the schema marks `@schema/deprecated`.",
        "The library intends to drop the key; its consumers should move off it before it does.",
        "#@schema/deprecated \"use image.tag\"\ntag: \"\"\n# values: tag: v1",
        "Set the replacement the deprecation notice names."
    ),
    rule!(
        "values/removed",
        Error,
        "A value is given for a key the schema marks `@schema/removed` (a yttcheck extension).",
        "The library no longer reads the key: the value has no effect.",
        "#@schema/removed \"use image.tag\"\ntag: \"\"\n# values: tag: v1",
        "Remove the value, or set the replacement the notice names."
    ),
    rule!(
        "validation/invalid-rule",
        Error,
        "A validation rule is misused: unknown keyword, wrong argument type, a rule that is not a 2-tuple, `when=` with the wrong arity or result.",
        "ytt refuses to validate, so none of the library's values are checked.",
        "#@schema/validation one_of=3\nmode: a",
        "#@schema/validation one_of=[\"a\", \"b\"]\nmode: a"
    ),
    rule!(
        "validation/custom",
        Error,
        "A value fails a custom rule `(description, assertion)`.",
        "The library's author declared what a valid value is.",
        "#@schema/validation (\"an odd number\", lambda v: v % 2 == 1)\nreplicas: 2",
        "replicas: 3"
    ),
    rule!(
        "validation/min",
        Error,
        "A value is below `min=`.",
        "The library's author declared the smallest valid value.",
        "#@schema/validation min=1\nreplicas: 0",
        "replicas: 1"
    ),
    rule!(
        "validation/max",
        Error,
        "A value is above `max=`.",
        "The library's author declared the largest valid value.",
        "#@schema/validation max=10\nreplicas: 11",
        "replicas: 10"
    ),
    rule!(
        "validation/min_len",
        Error,
        "A string, array or map is shorter than `min_len=`.",
        "Often an input that must be given (an empty string is the default of a required value).",
        "#@schema/validation min_len=1\npassword: \"\"",
        "password: s3cr3t (from a values file or a flag)"
    ),
    rule!(
        "validation/max_len",
        Error,
        "A string, array or map is longer than `max_len=`.",
        "The library's author declared the longest valid value (Kubernetes names, labels).",
        "#@schema/validation max_len=63\nname: a-very-long-name-...",
        "Shorten the value."
    ),
    rule!(
        "validation/not_null",
        Error,
        "A value is null where `not_null=True` requires one.",
        "A nullable value that the library needs in some configurations was not given.",
        "#@schema/nullable\n#@schema/validation not_null=True\ntoken: \"\"",
        "token: abc (from a values file or a flag)"
    ),
    rule!(
        "validation/one_not_null",
        Error,
        "Not exactly one of a map's listed children has a value.",
        "Alternatives (one storage backend, one auth method) must be chosen, and only one.",
        "#@schema/validation one_not_null=[\"s3\", \"gcs\"]\nstorage: {s3: null, gcs: null}",
        "Give exactly one of them a value."
    ),
    rule!(
        "validation/one_of",
        Error,
        "A value is not one of `one_of=`'s choices.",
        "The library's author enumerated the valid values.",
        "#@schema/validation one_of=[\"debug\", \"info\"]\nlog_level: trace",
        "log_level: debug"
    ),
    rule!(
        "validation/len",
        Error,
        "A string, array or map does not have exactly `len=` items (yttcheck extension).",
        "Keys and secrets often need an exact length.",
        "#@schema/validation len=16\nsecret_key: short",
        "secret_key: 0123456789abcdef"
    ),
    rule!(
        "validation/format",
        Error,
        "A string is not in the `format=` (hostname, ip, email, uri, date-time, port, duration, quantity, ...; yttcheck extension).",
        "A malformed address or quantity fails only at deploy time otherwise.",
        "#@schema/validation format=\"hostname\"\nhost: -bad-",
        "host: good.example.com"
    ),
    rule!(
        "validation/starts_with",
        Error,
        "A string does not start with `starts_with=` (yttcheck extension).",
        "Prefixes carry meaning (registries, schemes).",
        "#@schema/validation starts_with=\"ghcr.io/\"\nimage: docker.io/x",
        "image: ghcr.io/x"
    ),
    rule!(
        "validation/ends_with",
        Error,
        "A string does not end with `ends_with=` (yttcheck extension).",
        "Suffixes carry meaning (`.git`, domains).",
        "#@schema/validation ends_with=\".git\"\nrepo: https://x/y",
        "repo: https://x/y.git"
    ),
    rule!(
        "validation/contains",
        Error,
        "A string does not contain `contains=` (yttcheck extension).",
        "For example, an image reference that must be digest-pinned (`@sha256:`).",
        "#@schema/validation contains=\"@sha256:\"\nimage: app:latest",
        "image: app@sha256:..."
    ),
    rule!(
        "validation/matches",
        Error,
        "A string does not match the `matches=` regular expression (yttcheck extension).",
        "The library's author declared the shape of valid values.",
        "#@schema/validation matches=\"^[a-z-]+$\"\nname: My_App",
        "name: my-app"
    ),
    rule!(
        "validation/even",
        Error,
        "A number is not even (`even=True`, yttcheck extension).",
        "Some sizes must be even.",
        "#@schema/validation even=True\nmemory_gb: 3",
        "memory_gb: 4"
    ),
    rule!(
        "validation/odd",
        Error,
        "A number is not odd (`odd=True`, yttcheck extension).",
        "Quorum-based systems want an odd number of replicas.",
        "#@schema/validation odd=True\nreplicas: 2",
        "replicas: 3"
    ),
    rule!(
        "validation/multiple_of",
        Error,
        "A number is not a multiple of `multiple_of=` (yttcheck extension).",
        "Sizes often come in fixed steps.",
        "#@schema/validation multiple_of=1024\nbuffer: 1000",
        "buffer: 1024"
    ),
];

/// The rule with this id.
pub fn find(id: &str) -> Option<&'static Rule> {
    RULES.iter().find(|r| r.id == id)
}

/// The validation rule id for a rule name (`min_len`, `custom`, ...).
pub fn validation_rule_id(name: &str) -> &'static str {
    RULES
        .iter()
        .find(|r| r.id.strip_prefix("validation/") == Some(name))
        .map(|r| r.id)
        .unwrap_or("validation/custom")
}

/// `yttcheck explain RULE`'s text.
pub fn explain(rule: &Rule) -> String {
    format!(
        "{id} ({sev})\n\n{summary}\n\nWhy: {why}\n\nExample that fails:\n\n{example}\n\nFix:\n\n{fix}\n",
        id = rule.id,
        sev = rule.severity.as_str(),
        summary = rule.summary,
        why = rule.why,
        example = indent(rule.example),
        fix = indent(rule.fix),
    )
}

fn indent(s: &str) -> String {
    s.lines()
        .map(|l| format!("    {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_and_namespaced() {
        let mut ids: Vec<&str> = RULES.iter().map(|r| r.id).collect();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), RULES.len());
        assert!(RULES.iter().all(|r| r.id.contains('/')));
        assert_eq!(validation_rule_id("min_len"), "validation/min_len");
        assert_eq!(validation_rule_id("something"), "validation/custom");
    }
}
