//! Policies: organisation rules on final data values, written in ytt's own
//! validation language. A policy file is shaped like data values; its nodes
//! carry `@assert/validate` rules (named rules, custom `(description,
//! lambda)` rules, `when=`, `not_null=`), and `@policy/required` on a key
//! that every selected pair must set. It may `load()` Starlark helpers
//! beside it. The values under the rules are placeholders, never used.
//!
//! A policy is applied to a pair's final values after the schema's own
//! validations: its rules are attached to the values at the same key paths
//! (an array with one item applies that item's rules to every item) and run
//! as ytt runs `@assert/validate` on data values. A key the policy names
//! that the library does not have is skipped, unless `@policy/required`.

use std::sync::Arc;

use crate::diagnostics::{Finding, Location, Related, RuleId, Severity};
use crate::files::{LibraryCtx, LibraryTree};
use crate::source::cache::SourceCache;
use crate::template::{CompileCache, EvalOpts, EvalSession};
use crate::workspace::plan::{Plan, Policy};
use crate::yaml::{Document, Meta, Value};

use super::from_errors::Subject;

/// The annotation that makes a key mandatory.
pub const REQUIRED: &str = "policy/required";
/// The document annotation that makes a policy document apply to rendered
/// documents (`#@policy/output match={"kind": "Deployment"}`).
pub const OUTPUT: &str = "policy/output";
const VALIDATE: &str = "assert/validate";

/// A policy file, evaluated.
pub struct LoadedPolicy {
    pub name: String,
    pub severity: Severity,
    /// Documents checked against the final data values.
    pub docs: Vec<Document>,
    /// Documents checked against rendered documents, each with the fields a
    /// rendered document must have for it to apply (`kind: Deployment`).
    pub outputs: Vec<(Value, Document)>,
}

/// Evaluates every policy of the plan once: a policy that does not parse or
/// evaluate is a `config/invalid` finding at its line, never ignored.
pub(super) fn load(
    sources: &SourceCache,
    plan: &Plan,
    cache: &CompileCache,
    eval: &EvalOpts,
) -> (Vec<Option<Arc<LoadedPolicy>>>, Vec<Finding>) {
    let mut loaded = Vec::new();
    let mut problems = Vec::new();
    for p in &plan.policies {
        match load_one(sources, p, cache, eval) {
            Ok(l) => loaded.push(Some(Arc::new(l))),
            Err(f) => {
                loaded.push(None);
                problems.extend(f);
            }
        }
    }
    (loaded, problems)
}

fn who() -> Subject {
    Subject {
        library: String::new(),
        environments: Vec::new(),
    }
}

fn load_one(
    sources: &SourceCache,
    p: &Policy,
    cache: &CompileCache,
    eval: &EvalOpts,
) -> Result<LoadedPolicy, Vec<Finding>> {
    let dir = p
        .file
        .parent()
        .unwrap_or_else(crate::source::RepoPath::root);
    let rel = |f: &crate::source::RepoPath| {
        f.strip_prefix(&dir)
            .unwrap_or(f.as_str())
            .trim_start_matches('/')
            .to_string()
    };
    let mut inputs = vec![(p.file.clone(), rel(&p.file), 0)];
    inputs.extend(
        p.helpers
            .iter()
            .enumerate()
            .map(|(i, h)| (h.clone(), rel(h), i + 1)),
    );
    let files = super::inputs::input_files(sources, inputs, &who())?;
    let tree = Arc::new(LibraryTree::new(files));
    let session = EvalSession::new(
        tree.clone(),
        eval,
        cache,
        Value::new_map(Default::default()),
    );
    let failed = |message: String, pos: Option<&crate::yaml::Pos>| {
        let location = pos
            .and_then(crate::yaml::Pos::location)
            .map(|mut l| {
                l.path = p.file.as_str().to_string();
                l
            })
            .or_else(|| Some(Location::file(p.file.as_str())));
        vec![who().finding(
            RuleId::ConfigInvalid,
            format!("policy '{}' cannot be used: {message}", p.name),
            location,
        )]
    };
    let file = tree
        .find_file(LibraryCtx::ROOT.current, &rel(&p.file))
        .map_err(|e| failed(e, None))?;
    let result = session.eval_yaml(&file, LibraryCtx::ROOT).map_err(|e| {
        let text = e.message.trim_matches('\n');
        let head = text
            .lines()
            .find(|l| l.starts_with("- "))
            .map(|l| l[2..].to_string())
            .unwrap_or_else(|| text.lines().next().unwrap_or("").to_string());
        failed(head, e.pos.as_ref())
    })?;
    let docs: Vec<Document> = result
        .docset
        .docs
        .into_iter()
        .filter(|d| {
            let empty = d.value.is_null() && d.meta.annotations.is_empty();
            !(d.injected || empty)
        })
        .collect();
    let mut values_docs = Vec::new();
    let mut outputs = Vec::new();
    for d in docs {
        if !matches!(d.value, Value::Map(_)) {
            return Err(failed(
                "a policy document must be a map shaped like the data values it checks".into(),
                Some(&d.pos),
            ));
        }
        match d.meta.annotation(OUTPUT) {
            None => values_docs.push(d),
            Some(ann) => {
                let matcher = ann
                    .kwargs
                    .iter()
                    .find(|(k, _)| k == "match")
                    .map(|(_, v)| v)
                    .or(ann.args.first());
                let matcher = match matcher {
                    None => Value::new_map(Default::default()),
                    Some(crate::yaml::AnnValue::Frozen(f)) => {
                        crate::template::runtime::convert::to_yaml(f.value(), None)
                            .map_err(|e| failed(format!("@{OUTPUT} match=: {e}"), Some(&ann.pos)))?
                    }
                    Some(_) => Value::Null,
                };
                if !matches!(matcher, Value::Map(_)) {
                    return Err(failed(
                        format!("@{OUTPUT} takes match= a dict of the fields a rendered document must have (match={{\"kind\": \"Deployment\"}})"),
                        Some(&ann.pos),
                    ));
                }
                outputs.push((matcher, d));
            }
        }
    }
    let docs = values_docs;
    let severity = match p.severity.as_str() {
        "warning" => Severity::Warning,
        "note" => Severity::Note,
        _ => Severity::Error,
    };
    Ok(LoadedPolicy {
        name: p.name.clone(),
        severity,
        docs,
        outputs,
    })
}

/// Applies a policy to a pair's final values.
pub(super) fn apply(
    policy: &LoadedPolicy,
    values: &Document,
    eval: &EvalOpts,
    who: &Subject,
) -> Vec<Finding> {
    policy
        .docs
        .iter()
        .flat_map(|pdoc| check_doc(policy, pdoc, values, "", eval, who))
        .collect()
}

/// Applies a policy's output documents to the rendered documents whose
/// fields match theirs.
pub(super) fn apply_to_outputs(
    policy: &LoadedPolicy,
    rendered: &[Document],
    eval: &EvalOpts,
    who: &Subject,
) -> Vec<Finding> {
    let mut out = Vec::new();
    for (matcher, pdoc) in &policy.outputs {
        for doc in rendered {
            if !crate::overlay::compare::compare(&doc.value, matcher).0 {
                continue;
            }
            let what = describe(&doc.value);
            out.extend(check_doc(policy, pdoc, doc, &what, eval, who));
        }
    }
    out
}

/// `Deployment web` for a rendered document with `kind` and `metadata.name`.
fn describe(v: &Value) -> String {
    let field = |m: &Value, k: &str| match m {
        Value::Map(m) => m
            .items
            .iter()
            .find(|i| i.key.scalar_display() == k)
            .map(|i| i.value.clone()),
        _ => None,
    };
    let kind = field(v, "kind").map(|k| k.scalar_display());
    let name = field(v, "metadata")
        .and_then(|m| field(&m, "name"))
        .map(|n| n.scalar_display());
    match (kind, name) {
        (Some(k), Some(n)) => format!("rendered {k} {n}: "),
        (Some(k), None) => format!("rendered {k}: "),
        _ => "rendered document: ".to_string(),
    }
}

/// The findings of one policy document on one target document (`what`
/// prefixes key paths: empty for data values, `rendered Deployment web: `
/// for outputs).
fn check_doc(
    policy: &LoadedPolicy,
    pdoc: &Document,
    target: &Document,
    what: &str,
    eval: &EvalOpts,
    who: &Subject,
) -> Vec<Finding> {
    let mut out = Vec::new();
    let mut target = target.clone();
    strip_rules(&mut target.value);
    target.meta.annotations.clear();
    copy_rules(&pdoc.meta, &mut target.meta);
    let mut missing = Vec::new();
    attach(&pdoc.value, &mut target.value, "", &mut missing);
    for (path, pos) in missing {
        let mut f = who.finding(
            RuleId::PolicyViolation,
            format!(
                "policy '{}': {what}{path} is required, but {}",
                policy.name,
                if what.is_empty() {
                    "this environment does not set it"
                } else {
                    "it is not set"
                }
            ),
            if what.is_empty() {
                pos.location()
            } else {
                target.pos.location().or_else(|| pos.location())
            },
        );
        f.severity = policy.severity;
        f.specific_rule = Some(rule_id(&policy.name, "required"));
        f.key_path = Some(path);
        if !what.is_empty() {
            if let Some(l) = pos.location() {
                f.related.push(Related {
                    location: l,
                    message: format!("required by policy '{}'", policy.name),
                });
            }
        }
        out.push(f);
    }
    match crate::validation::run(&target, None, eval) {
        Ok(invs) => {
            for inv in invs {
                for v in &inv.violations {
                    let mut message = format!(
                        "policy '{}': {what}{}: must be {}",
                        policy.name, inv.path, v.description
                    );
                    if !v.result.is_empty() {
                        message.push_str(&format!(" (found: {})", v.result));
                    }
                    let mut f =
                        who.finding(RuleId::PolicyViolation, message, inv.value_pos.location());
                    f.severity = policy.severity;
                    let rule = if v.rule == "custom" {
                        &v.description
                    } else {
                        &v.rule
                    };
                    f.specific_rule = Some(rule_id(&policy.name, rule));
                    f.key_path = Some(inv.path.clone());
                    if let Some(l) = v.rule_pos.location() {
                        f.related.push(Related {
                            location: l,
                            message: format!("rule of policy '{}'", policy.name),
                        });
                    }
                    out.push(f);
                }
            }
        }
        Err(e) => {
            let mut f = who.finding(
                RuleId::ConfigInvalid,
                format!(
                    "policy '{}' cannot be used: {}",
                    policy.name,
                    e.message.lines().next().unwrap_or("")
                ),
                e.pos.as_ref().and_then(crate::yaml::Pos::location),
            );
            f.detail = e.message.lines().skip(1).map(str::to_string).collect();
            out.push(f);
        }
    }
    out
}

/// A policy rule's id: `policy/<policy>/<rule>`, where the rule is a named
/// rule's name (`min`, `not_null`), `required`, or a custom rule's
/// description as a slug (`at-least-3-replicas-in-prod`); each piece is
/// lower case, letters, digits, `_` and `-`, so the id is stable and safe in
/// every report and in `ignore[...]`.
pub fn rule_id(policy: &str, rule: &str) -> String {
    let mut id = policy_id(policy);
    push_slug(&mut id, rule);
    id
}

/// The prefix of a policy's rule ids (`policy/prod/replicas`): what
/// `ignore:` and `rules:` name to mean every rule of the policy.
pub fn policy_id(policy: &str) -> String {
    let mut id = String::from("policy");
    for piece in policy.split('/') {
        push_slug(&mut id, piece);
    }
    id
}

fn push_slug(id: &mut String, piece: &str) {
    let slug = slug(piece);
    id.push('/');
    id.push_str(if slug.is_empty() { "rule" } else { &slug });
}

/// Lower case words joined by `-`, at most 60 bytes (cut at a word).
fn slug(s: &str) -> String {
    let mut out = String::new();
    for word in s
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
    {
        if out.len() + word.len() + 1 > 60 && !out.is_empty() {
            break;
        }
        if !out.is_empty() {
            out.push('-');
        }
        out.push_str(&word.to_ascii_lowercase());
    }
    out.truncate(60);
    out
}

/// The values' own `@assert/validate` rules were checked already.
fn strip_rules(v: &mut Value) {
    match v {
        Value::Map(m) => {
            m.meta.annotations.clear();
            for i in &mut m.items {
                i.meta.annotations.clear();
                strip_rules(&mut i.value);
            }
        }
        Value::Array(a) => {
            a.meta.annotations.clear();
            for i in &mut a.items {
                i.meta.annotations.clear();
                strip_rules(&mut i.value);
            }
        }
        _ => {}
    }
}

fn copy_rules(from: &Meta, to: &mut Meta) {
    to.annotations.extend(
        from.annotations
            .iter()
            .filter(|a| a.name == VALIDATE)
            .cloned(),
    );
}

/// Attaches the policy's rules to the values at the same paths; records the
/// `@policy/required` keys the values lack.
fn attach(
    policy: &Value,
    target: &mut Value,
    path: &str,
    missing: &mut Vec<(String, crate::yaml::Pos)>,
) {
    match (policy, target) {
        (Value::Map(pm), Value::Map(tm)) => {
            copy_rules(&pm.meta, &mut tm.meta);
            for pi in &pm.items {
                let key = pi.key.scalar_display();
                let here = if path.is_empty() {
                    key
                } else {
                    format!("{path}.{key}")
                };
                match tm.items.iter_mut().find(|ti| ti.key.scalar_eq(&pi.key)) {
                    Some(ti) => {
                        copy_rules(&pi.meta, &mut ti.meta);
                        attach(&pi.value, &mut ti.value, &here, missing);
                    }
                    None => {
                        if pi.meta.has(REQUIRED) {
                            missing.push((here, pi.pos.clone()));
                        }
                    }
                }
            }
        }
        (Value::Array(pa), Value::Array(ta)) => {
            copy_rules(&pa.meta, &mut ta.meta);
            // one item: its rules for every item of the values' array
            if let [pi] = pa.items.as_slice() {
                for (n, ti) in ta.items.iter_mut().enumerate() {
                    copy_rules(&pi.meta, &mut ti.meta);
                    attach(&pi.value, &mut ti.value, &format!("{path}[{n}]"), missing);
                }
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::rule_id;

    #[test]
    fn rule_ids_are_slugs() {
        assert_eq!(rule_id("prod/replicas", "min"), "policy/prod/replicas/min");
        assert_eq!(
            rule_id("prod", "At least 3 replicas (in prod)!"),
            "policy/prod/at-least-3-replicas-in-prod"
        );
        assert_eq!(rule_id("Team Rules", "?"), "policy/team-rules/rule");
        let long = rule_id("p", &"word ".repeat(40));
        assert!(long.len() <= "policy/p/".len() + 60, "{long}");
        assert!(!long.ends_with('-'));
    }
}
