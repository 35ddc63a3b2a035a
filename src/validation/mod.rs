//! Validations: `@schema/validation` and `@assert/validate` rules on data
//! values, run as ytt runs them.
//!
//! A rule is a 2-tuple `(description, assertion)` or a named keyword rule
//! (`min=`, `max=`, `min_len=`, `max_len=`, `not_null=`, `one_not_null=`,
//! `one_of=`; and yttcheck's extensions, see [`rules`]). `when=` decides
//! whether a node's rules run at all; null values are skipped unless
//! `not_null=True`; `not_null` runs first and stops the others. Every node of
//! the final values is visited (parents before children) and all violations
//! are reported. Values are never printed.

pub use crate::assertions::rules::{NodeValidation, Rule, RuleCheck, ANN_ASSERT_VALIDATE};

use std::sync::Arc;

use starlark::eval::Evaluator;
use starlark::values::Value as SValue;

use crate::template::eval::{ann_value, EvalOpts};
use crate::template::runtime::values::{FragmentTree, YamlFragment, YttStruct};
use crate::yaml::{Document, Meta, Pos, Value};

// ------------------------------------------------------------------ running

/// A value that failed one or more rules.
#[derive(Debug, Clone)]
pub struct Invalidation {
    /// Key path (`nested.b`, `items[0]`, `(document)`).
    pub path: String,
    /// Where the value came from.
    pub value_pos: Pos,
    pub violations: Vec<RuleViolation>,
}

/// A failed rule.
#[derive(Debug, Clone)]
pub struct RuleViolation {
    pub rule_pos: Pos,
    pub description: String,
    /// What the assertion said (never the value itself).
    pub result: String,
    pub rule: String,
}

/// Why validation could not run (a broken rule, not an invalid value).
#[derive(Debug, Clone)]
pub struct ValidationError {
    /// `validation/invalid-rule` for a misused rule; `values/error` when a
    /// rule's own code fails.
    pub rule: crate::diagnostics::RuleId,
    pub message: String,
    pub pos: Option<Pos>,
}

/// ytt's report of invalidations (`ResultsAsString`).
pub fn render(invalidations: &[Invalidation]) -> String {
    let mut msg = String::new();
    for inv in invalidations {
        msg.push_str(&format!(
            "  {}\n    from: {}\n",
            inv.path,
            inv.value_pos.compact()
        ));
        for v in &inv.violations {
            msg.push_str(&format!(
                "    - must be: {} (by: {})\n",
                v.description,
                v.rule_pos.compact()
            ));
            if !v.result.is_empty() {
                msg.push_str(&format!("      found: {}\n", v.result));
            }
        }
        msg.push('\n');
    }
    msg
}

/// A map item's key appended to a validation's path as ytt's walk writes it,
/// with Go's `%s`: a string as it is, any other key as Go prints a value of
/// the wrong verb (`a.%!s(int=1)`, `%!s(bool=false)` for a key `n`, which
/// YAML 1.1 reads as false, `%!s(<nil>)`).
fn push_go_key_path(path: &mut String, key: &crate::yaml::Value) {
    use crate::yaml::Value;
    if !path.is_empty() {
        path.push('.');
    }
    match key {
        Value::Str(s) => path.push_str(s),
        Value::Null => path.push_str("%!s(<nil>)"),
        Value::Bool(b) => path.push_str(&format!("%!s(bool={b})")),
        Value::Int(i) => path.push_str(&format!("%!s(int={i})")),
        Value::UInt(u) => path.push_str(&format!("%!s(uint64={u})")),
        Value::Float(f) => {
            let g = if f.is_nan() {
                "NaN".to_string()
            } else if f.is_infinite() {
                if *f > 0.0 { "+Inf" } else { "-Inf" }.to_string()
            } else {
                crate::yaml::print::format_float(*f)
            };
            path.push_str(&format!("%!s(float64={g})"))
        }
        other => crate::yaml::push_key_path(path, other),
    }
}

/// Where validations come from for each node: the schema (by position in the
/// tree) and `@assert/validate` annotations on the values.
pub trait SchemaValidations {
    fn for_document(&self) -> Option<Arc<NodeValidation>>;
}

/// A node of the values tree, for walking.
struct NodeRefs<'a> {
    value: &'a Value,
    pos: &'a Pos,
    meta: &'a Meta,
    kind: &'static str,
}

/// Runs every validation of the final data values.
pub fn run(
    doc: &Document,
    schema: Option<&crate::schema::DocType>,
    opts: &EvalOpts,
) -> Result<Vec<Invalidation>, ValidationError> {
    // 1. validations per node: schema first, then @assert/validate
    let mut out = Vec::new();
    let result = crate::template::eval::call_in_fresh_evaluator(opts, |ev| {
        let mut walker = Walker {
            ev,
            root: &doc.value,
            out: &mut out,
            error: None,
        };
        let node = NodeRefs {
            value: &doc.value,
            pos: &doc.pos,
            meta: &doc.meta,
            kind: "document",
        };
        let schema_v = schema.and_then(|s| s.validation.clone());
        walker.visit(
            &node,
            None,
            &mut String::new(),
            schema_v.as_deref(),
            schema.map(|s| &s.value_type),
        );
        Ok(walker.error)
    });
    match result {
        Ok(None) => Ok(out),
        Ok(Some(e)) => Err(e),
        Err(e) => Err(ValidationError {
            rule: crate::diagnostics::RuleId::ValuesError,
            message: format!("{}", e.without_diagnostic()),
            pos: None,
        }),
    }
}

struct Walker<'e, 'v, 'a, 'x, 'd> {
    ev: &'e mut Evaluator<'v, 'a, 'x>,
    root: &'d Value,
    out: &'e mut Vec<Invalidation>,
    error: Option<ValidationError>,
}

impl<'v, 'd> Walker<'_, 'v, '_, '_, 'd> {
    fn visit(
        &mut self,
        node: &NodeRefs<'d>,
        parent: Option<&'d Value>,
        path: &mut String,
        schema_v: Option<&NodeValidation>,
        ty: Option<&crate::schema::Type>,
    ) {
        if self.error.is_some() {
            return;
        }
        let mut own: Option<NodeValidation> = None;
        if let Some(ann) = node.meta.annotation(ANN_ASSERT_VALIDATE) {
            match NodeValidation::from_annotation(ann) {
                Ok(v) => own = Some(v),
                Err(e) => {
                    self.error = Some(ValidationError {
                        rule: crate::diagnostics::RuleId::ValidationInvalidRule,
                        message: format!("Invalid @{ANN_ASSERT_VALIDATE} annotation - {e}"),
                        pos: Some(ann.pos.clone()),
                    });
                    return;
                }
            }
        }
        for v in schema_v.into_iter().chain(own.as_ref()) {
            if let Err(e) = self.validate(v, node, parent, path) {
                self.error = Some(e);
                return;
            }
        }
        // children: the value node and its items
        let ty = ty.map(crate::schema::check::resolve);
        match node.value {
            Value::Map(m) => {
                if let Some(a) = m.meta.annotation(ANN_ASSERT_VALIDATE) {
                    self.error = Some(ValidationError {
                        rule: crate::diagnostics::RuleId::ValidationInvalidRule,
                        message: format!(
                            "Invalid @{ANN_ASSERT_VALIDATE} annotation - not supported on map at {}",
                            m.pos.compact()
                        ),
                        pos: Some(a.pos.clone()),
                    });
                    return;
                }
                let len = path.len();
                let mut next = 0;
                for item in &m.items {
                    push_go_key_path(path, &item.key);
                    let (sv, st) = match ty {
                        Some(crate::schema::Type::Map(mt)) => {
                            match mt.declaration_of(&item.key, next) {
                                Some(i) => {
                                    next = i + 1;
                                    let it = &mt.items[i];
                                    (it.validation.as_deref(), Some(&it.value_type))
                                }
                                None => (None, None),
                            }
                        }
                        _ => (None, None),
                    };
                    let child = NodeRefs {
                        value: &item.value,
                        pos: &item.pos,
                        meta: &item.meta,
                        kind: "map item",
                    };
                    self.visit(&child, Some(node.value), path, sv, st);
                    path.truncate(len);
                }
            }
            Value::Array(a) => {
                if let Some(an) = a.meta.annotation(ANN_ASSERT_VALIDATE) {
                    self.error = Some(ValidationError {
                        rule: crate::diagnostics::RuleId::ValidationInvalidRule,
                        message: format!(
                            "Invalid @{ANN_ASSERT_VALIDATE} annotation - not supported on array at {}",
                            a.pos.compact()
                        ),
                        pos: Some(an.pos.clone()),
                    });
                    return;
                }
                let len = path.len();
                for (i, item) in a.items.iter().enumerate() {
                    use std::fmt::Write;
                    let _ = write!(path, "[{i}]");
                    let (sv, st) = match ty {
                        Some(crate::schema::Type::Array(at)) => (
                            at.item_type.validation.as_deref(),
                            Some(&at.item_type.value_type),
                        ),
                        _ => (None, None),
                    };
                    let child = NodeRefs {
                        value: &item.value,
                        pos: &item.pos,
                        meta: &item.meta,
                        kind: "array item",
                    };
                    self.visit(&child, Some(node.value), path, sv, st);
                    path.truncate(len);
                }
            }
            _ => {}
        }
    }

    fn to_starlark(&self, v: &Value) -> SValue<'v> {
        let heap = self.ev.heap();
        match v {
            Value::Map(m) => heap.alloc(YamlFragment {
                tree: Arc::new(FragmentTree::Map((**m).clone())),
                store: SValue::new_none(),
            }),
            Value::Array(a) => heap.alloc(YamlFragment {
                tree: Arc::new(FragmentTree::Array((**a).clone())),
                store: SValue::new_none(),
            }),
            other => crate::template::runtime::convert::from_yaml(
                other,
                heap,
                crate::template::runtime::convert::MapAs::Dict,
            )
            .unwrap_or_else(|_| SValue::new_none()),
        }
    }

    fn validate(
        &mut self,
        v: &NodeValidation,
        node: &NodeRefs<'d>,
        parent: Option<&'d Value>,
        path: &str,
    ) -> Result<(), ValidationError> {
        let value = self.to_starlark(node.value);
        if value.is_none() && !v.not_null {
            return Ok(());
        }
        if let Some(when) = &v.when {
            let f = ann_value(when, self.ev);
            let params = when_arity(f);
            let mut args = vec![value];
            match params {
                Some(1) => {}
                Some(2) => {
                    let parent_v = match parent {
                        Some(p) => self.to_starlark(p),
                        None => SValue::new_none(),
                    };
                    let root_v = self.to_starlark(self.root);
                    let mut fields = starlark::collections::SmallMap::new();
                    fields.insert("parent".to_string(), parent_v);
                    fields.insert("root".to_string(), root_v);
                    args.push(YttStruct::alloc(fields, self.ev.heap()));
                }
                n => {
                    return Err(ValidationError {
                        rule: crate::diagnostics::RuleId::ValidationInvalidRule,
                        message: format!(
                            "Validating {path}: Failed to evaluate when=: function must accept 1 or 2 arguments ({} given)",
                            n.unwrap_or(0)
                        ),
                        pos: Some(v.pos.clone()),
                    })
                }
            }
            let r = self
                .ev
                .eval_function(f, &args, &[])
                .map_err(|e| ValidationError {
                    rule: crate::diagnostics::RuleId::ValidationInvalidRule,
                    message: format!(
                        "Validating {path}: Failure evaluating when=: {}",
                        crate::template::runtime::go::go_error_text(&e)
                    ),
                    pos: Some(v.pos.clone()),
                })?;
            match r.unpack_bool() {
                Some(true) => {}
                Some(false) => return Ok(()),
                None => {
                    return Err(ValidationError {
                        rule: crate::diagnostics::RuleId::ValidationInvalidRule,
                        message: format!(
                            "Validating {path}: want when= to be bool, got {}",
                            r.get_type()
                        ),
                        pos: Some(v.pos.clone()),
                    })
                }
            }
        }
        let display = if path.is_empty() {
            format!("({})", node.kind)
        } else {
            path.to_string()
        };
        let mut inv = Invalidation {
            path: display,
            value_pos: node.pos.clone(),
            violations: Vec::new(),
        };
        let mut rules: Vec<&Rule> = v.rules.iter().collect();
        rules.sort_by_key(|r| std::cmp::Reverse(r.priority));
        for rule in rules {
            let outcome = self.run_rule(rule, value);
            // a rule that ran out of its budget says nothing about the value
            // (and may not run out on a less busy machine): a budget finding
            if let Err(msg) = &outcome {
                if let Some(budget) = msg.strip_prefix(BUDGET_PREFIX) {
                    return Err(ValidationError {
                        rule: crate::diagnostics::RuleId::TemplateBudget,
                        message: format!("Validating {}: {budget}", inv.path),
                        pos: Some(v.pos.clone()),
                    });
                }
            }
            let failed = match outcome {
                Ok(true) => None,
                Ok(false) => Some(String::new()),
                Err(msg) => Some(msg),
            };
            if let Some(result) = failed {
                let result = result.strip_prefix("fail: ").unwrap_or(&result).to_string();
                let result = result
                    .strip_prefix("check: ")
                    .unwrap_or(&result)
                    .to_string();
                inv.violations.push(RuleViolation {
                    rule_pos: v.pos.clone(),
                    description: rule.description(),
                    result,
                    rule: rule.name.clone(),
                });
                if rule.critical {
                    break;
                }
            }
        }
        if !inv.violations.is_empty() {
            self.out.push(inv);
        }
        Ok(())
    }

    /// Ok(true) when the rule holds; Ok(false) when it returned non-True;
    /// Err(message) when it failed.
    fn run_rule(&mut self, rule: &Rule, value: SValue<'v>) -> Result<bool, String> {
        if let RuleCheck::Assertion { factory, arg, .. } = &rule.check {
            if crate::assertions::shortcut::surely_holds(factory, ann_value(arg, self.ev), value) {
                return Ok(true);
            }
        }
        let f = match &rule.check {
            RuleCheck::Callable(c) => ann_value(c, self.ev),
            RuleCheck::Assertion { factory, arg, made } => {
                if let Some(check) = made
                    .get()
                    .cloned()
                    .or_else(|| crate::assertions::frozen_check(factory, arg))
                {
                    let _ = made.set(check.clone());
                    self.ev.heap().access_owned_frozen_value(&check)
                } else {
                    // (the error of making it, as making it here gives it)
                    let a = ann_value(arg, self.ev);
                    let assertion = crate::assertions::make_assertion(factory, a, self.ev)
                        .map_err(|e| crate::template::runtime::go::go_error_text(&e))?;
                    assertion
                        .get_attr("check", self.ev.heap())
                        .ok()
                        .flatten()
                        .ok_or("internal error: assertion without check")?
                }
            }
            RuleCheck::OneNotNull(keys) => {
                let mut args = Vec::new();
                if let Some(k) = keys {
                    args.push(ann_value(k, self.ev));
                }
                let m = crate::ytt::assert::module()
                    .get("assert")
                    .map_err(|e| e.to_string())?;
                let module = self.ev.heap().access_owned_frozen_value(&m);
                let f = module
                    .get_attr("one_not_null", self.ev.heap())
                    .ok()
                    .flatten()
                    .ok_or("internal error")?;
                let assertion = self
                    .ev
                    .eval_function(f, &args, &[])
                    .map_err(|e| crate::template::runtime::go::go_error_text(&e))?;
                assertion
                    .get_attr("check", self.ev.heap())
                    .ok()
                    .flatten()
                    .ok_or("internal error: assertion without check")?
            }
            RuleCheck::Extension { name, arg } => {
                let a = ann_value(arg, self.ev);
                return match crate::assertions::extensions::check(name, a, value) {
                    Ok(()) => Ok(true),
                    Err(m) => Err(m),
                };
            }
        };
        match self.ev.eval_function(f, &[value], &[]) {
            Ok(r) => Ok(r.unpack_bool() == Some(true)),
            Err(e) if runaway(&e) => Err(format!(
                "{BUDGET_PREFIX}{}",
                crate::template::runtime::go::go_error_text(&e)
            )),
            Err(e) => {
                let op = match &rule.check {
                    RuleCheck::Assertion {
                        factory: "assert.min",
                        ..
                    } => Some(">="),
                    RuleCheck::Assertion {
                        factory: "assert.max",
                        ..
                    } => Some("<="),
                    _ => None,
                };
                Err(go_compare_text(
                    &crate::template::runtime::go::go_error_text(&e),
                    op,
                ))
            }
        }
    }
}

/// Marks a rule's error as its evaluation's budget running out (steps,
/// time, memory), not the rule's verdict.
const BUDGET_PREFIX: &str = "\u{0}budget: ";

/// Whether an evaluation error is one of the evaluator's own limits.
fn runaway(e: &starlark::Error) -> bool {
    crate::template::runtime::guard::runaway_kind(e, 0, std::time::Duration::ZERO).is_some()
}

/// go-starlark's wording of unsupported comparisons (`dict <= int not
/// implemented`) in ytt's `min`/`max` rules.
fn go_compare_text(msg: &str, op: Option<&str>) -> String {
    let Some(op) = op else { return msg.to_string() };
    if let Some(rest) = msg.strip_prefix("Operation `compare` not supported for types `") {
        if let Some((a, b)) = rest.trim_end_matches('`').split_once("` and `") {
            return format!("{a} {op} {b} not implemented");
        }
    }
    msg.to_string()
}

/// Number of parameters of a `when=` function (None when it is not a
/// Starlark function).
fn when_arity(f: SValue) -> Option<usize> {
    f.parameters_spec().map(|p| p.len())
}

impl Document {
    /// Whether a document carries validation annotations anywhere.
    pub fn has_assert_validate(&self) -> bool {
        fn walk(v: &Value) -> bool {
            match v {
                Value::Map(m) => m
                    .items
                    .iter()
                    .any(|i| i.meta.has(ANN_ASSERT_VALIDATE) || walk(&i.value)),
                Value::Array(a) => a
                    .items
                    .iter()
                    .any(|i| i.meta.has(ANN_ASSERT_VALIDATE) || walk(&i.value)),
                _ => false,
            }
        }
        self.meta.has(ANN_ASSERT_VALIDATE) || walk(&self.value)
    }
}
