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

pub mod formats;
pub mod rules;

use std::sync::Arc;

use starlark::eval::Evaluator;
use starlark::values::tuple::TupleRef;
use starlark::values::Value as SValue;

use crate::template::eval::{ann_value, EvalOpts};
use crate::template::values::{FragmentTree, YamlFragment, YttStruct};
use crate::yaml::{AnnValue, Annotation, Document, Meta, Pos, Value};

pub const ANN_ASSERT_VALIDATE: &str = "assert/validate";

/// How a rule checks a value.
#[derive(Debug, Clone)]
pub enum Check {
    /// A user function (or an assertion's `check`).
    Callable(AnnValue),
    /// One of ytt's lambda assertions (`assert.min`, ...), made from `arg`.
    Assertion {
        factory: &'static str,
        arg: AnnValue,
    },
    /// `one_not_null=`: `None` for all keys.
    OneNotNull(Option<AnnValue>),
    /// A yttcheck extension rule.
    Extension { name: &'static str, arg: AnnValue },
}

/// One rule: what a valid value is (`must be:`), and how to check it.
#[derive(Debug, Clone)]
pub struct Rule {
    pub msg: String,
    pub check: Check,
    /// Higher runs first (`not_null` has 100).
    pub priority: i32,
    /// A failing critical rule stops the node's other rules.
    pub critical: bool,
    /// The rule id for findings: `validation/<name>`.
    pub name: String,
}

/// The rules of one annotation.
#[derive(Debug, Clone)]
pub struct NodeValidation {
    pub rules: Vec<Rule>,
    pub when: Option<AnnValue>,
    pub not_null: bool,
    pub pos: Pos,
    /// Named rules as given, for schema export (`min` -> `minimum`, ...).
    pub named: Vec<(String, AnnValue)>,
}

fn sval(v: &AnnValue) -> Option<SValue<'_>> {
    match v {
        AnnValue::Frozen(f) => Some(f.value()),
        _ => None,
    }
}

fn type_of(v: &AnnValue) -> String {
    match v {
        AnnValue::Frozen(f) => f.value().get_type().to_string(),
        AnnValue::Str(_) => "string".into(),
        AnnValue::Bool(_) => "bool".into(),
        AnnValue::Int(_) => "int".into(),
        AnnValue::None => "NoneType".into(),
        AnnValue::Live(_) => "value".into(),
    }
}

/// A rule's argument as ytt writes it in a message (`%v` of a go-starlark
/// value: floats in Go's `%g`, so `max=1.0` reads `<= 1`).
fn repr(v: &AnnValue) -> String {
    match v {
        AnnValue::Frozen(f) => go_repr(f.value()),
        _ => crate::schema::types::repr(v),
    }
}

/// go-starlark's `String()` of a value, for the types rule arguments take.
fn go_repr(v: SValue) -> String {
    use starlark::values::dict::DictRef;
    use starlark::values::list::ListRef;
    if v.get_type() == "float" {
        if let Ok(f) = v.to_str().parse::<f64>() {
            return crate::gocompat::float_g6(f);
        }
    }
    if let Some(l) = ListRef::from_value(v) {
        let items: Vec<String> = l.iter().map(go_repr).collect();
        return format!("[{}]", items.join(", "));
    }
    if let Some(t) = TupleRef::from_value(v) {
        let items: Vec<String> = t.iter().map(go_repr).collect();
        return if items.len() == 1 {
            format!("({},)", items[0])
        } else {
            format!("({})", items.join(", "))
        };
    }
    if let Some(d) = DictRef::from_value(v) {
        let items: Vec<String> = d
            .iter()
            .map(|(k, v)| format!("{}: {}", go_repr(k), go_repr(v)))
            .collect();
        return format!("{{{}}}", items.join(", "));
    }
    v.to_repr()
}

fn is_callable_ann(v: &AnnValue) -> bool {
    sval(v)
        .map(crate::template::go::is_callable)
        .unwrap_or(false)
}

fn is_sequence_ann(v: &AnnValue) -> bool {
    sval(v)
        .map(crate::template::go::is_sequence)
        .unwrap_or(false)
}

/// go-starlark's `NumberToInt` of an annotation value.
fn number_to_int(v: &AnnValue) -> Option<i64> {
    match v {
        AnnValue::Int(i) => Some(*i),
        AnnValue::Frozen(f) => {
            let v = f.value();
            match v.get_type() {
                "int" => v.to_str().parse().ok(),
                "float" => v
                    .to_str()
                    .parse::<f64>()
                    .ok()
                    .filter(|f| f.is_finite())
                    .map(|f| f.trunc() as i64),
                _ => None,
            }
        }
        _ => None,
    }
}

impl NodeValidation {
    /// Parses `@schema/validation` / `@assert/validate` (ytt's `NewValidationFromAnn`).
    pub fn from_annotation(ann: &Annotation) -> Result<NodeValidation, String> {
        let at = ann.pos.compact();
        if ann.args.is_empty() && ann.kwargs.is_empty() {
            return Err(format!(
                "expected annotation to have 2-tuple as argument(s), but found no arguments (by {at})"
            ));
        }
        let mut rules = Vec::new();
        for arg in &ann.args {
            let Some(v) = sval(arg) else {
                return Err(format!(
                    "expected annotation to have 2-tuple as argument(s), but found: {} (by {at})",
                    repr(arg)
                ));
            };
            let Some(t) = TupleRef::from_value(v) else {
                return Err(format!(
                    "expected annotation to have 2-tuple as argument(s), but found: {} (by {at})",
                    v.to_repr()
                ));
            };
            let items = t.content();
            if items.len() != 2 {
                return Err(format!(
                    "expected 2-tuple, but found tuple with length {} (by {at})",
                    items.len()
                ));
            }
            let Some(msg) = items[0].unpack_str() else {
                return Err(format!(
                    "expected first item in the 2-tuple to be a string describing a valid value, but was {} (at {at})",
                    items[0].get_type()
                ));
            };
            let assertion = items[1];
            let check_fn = if crate::template::go::is_callable(assertion) {
                assertion
            } else {
                check_attr(assertion).map_err(|e| format!("{e} (at {at})"))?
            };
            let AnnValue::Frozen(owner) = arg else {
                unreachable!("checked above")
            };
            let owned = owner.map(|_| check_fn.unpack_frozen().expect("frozen annotation values"));
            rules.push(Rule {
                msg: msg.to_string(),
                check: Check::Callable(AnnValue::Frozen(owned)),
                priority: 0,
                critical: false,
                name: "custom".into(),
            });
        }
        let mut v = NodeValidation {
            rules,
            when: None,
            not_null: false,
            pos: ann.pos.clone(),
            named: Vec::new(),
        };
        v.kwargs(&ann.kwargs, &at)?;
        Ok(v)
    }

    fn kwargs(&mut self, kwargs: &[(String, AnnValue)], at: &str) -> Result<(), String> {
        let mut min_len = None;
        let mut max_len = None;
        let mut min = None;
        let mut max = None;
        let mut one_not_null: Option<Option<AnnValue>> = None;
        let mut one_of = None;
        let mut extensions: Vec<(&'static str, AnnValue)> = Vec::new();
        // yttcheck extension: `min_len=("a non-empty name", 1)` says what a
        // valid value is in the author's words
        let mut descriptions: Vec<(String, String)> = Vec::new();
        for (k, val) in kwargs {
            let described = described_arg(k, val);
            let val = match &described {
                Some((desc, inner)) => {
                    descriptions.push((k.clone(), desc.clone()));
                    inner
                }
                None => val,
            };
            match k.as_str() {
                "when" => {
                    if !is_callable_ann(val) {
                        return Err(format!(
                            "expected keyword argument \"when\" to be a function, but was {} (at {at})",
                            type_of(val)
                        ));
                    }
                    self.when = Some(val.clone());
                }
                "min_len" | "max_len" => {
                    let Some(n) = number_to_int(val) else {
                        return Err(format!(
                            "expected keyword argument \"{k}\" to be a number, but was {} (at {at})",
                            type_of(val)
                        ));
                    };
                    if k == "min_len" {
                        min_len = Some(n);
                    } else {
                        max_len = Some(n);
                    }
                }
                "min" => min = Some(val.clone()),
                "max" => max = Some(val.clone()),
                "not_null" => {
                    let b = match val {
                        AnnValue::Bool(b) => Some(*b),
                        AnnValue::Frozen(f) => f.unpack_bool(),
                        _ => None,
                    };
                    let Some(b) = b else {
                        return Err(format!(
                            "expected keyword argument \"not_null\" to be a boolean, but was {} (at {at})",
                            type_of(val)
                        ));
                    };
                    self.not_null = b;
                }
                "one_not_null" => {
                    let b = match val {
                        AnnValue::Bool(b) => Some(*b),
                        AnnValue::Frozen(f) => f.unpack_bool(),
                        _ => None,
                    };
                    match b {
                        Some(true) => one_not_null = Some(None),
                        Some(false) => return Err("one_not_null= cannot be False".to_string()),
                        None if is_sequence_ann(val) => one_not_null = Some(Some(val.clone())),
                        None => {
                            return Err(format!(
                                "expected True or a sequence of keys, but was a '{}'",
                                type_of(val)
                            ))
                        }
                    }
                }
                "one_of" => {
                    if !is_sequence_ann(val) {
                        return Err(format!(
                            "expected keyword argument one_of to be a sequence, but was {}",
                            type_of(val)
                        ));
                    }
                    one_of = Some(val.clone());
                }
                other => match rules::EXTENSIONS.iter().find(|e| **e == other) {
                    Some(name) => {
                        let arg = sval(val).map(|v| rules::validate_arg(name, v));
                        if let Some(Err(e)) = arg {
                            return Err(format!(
                                "keyword argument \"{other}\" (a yttcheck extension): {e} (at {at})"
                            ));
                        }
                        extensions.push((name, val.clone()));
                    }
                    None => {
                        return Err(format!("unknown keyword argument \"{other}\" (at {at})"));
                    }
                },
            }
            self.named.push((k.clone(), val.clone()));
        }
        let rule = |msg: String, check: Check, name: &str| Rule {
            msg,
            check,
            priority: 0,
            critical: false,
            name: name.to_string(),
        };
        if let Some(n) = min_len {
            self.rules.push(rule(
                format!("length >= {n}"),
                Check::Assertion {
                    factory: "assert.min_len",
                    arg: AnnValue::Int(n),
                },
                "min_len",
            ));
        }
        if let Some(n) = max_len {
            self.rules.push(rule(
                format!("length <= {n}"),
                Check::Assertion {
                    factory: "assert.max_len",
                    arg: AnnValue::Int(n),
                },
                "max_len",
            ));
        }
        if let Some(m) = min {
            self.rules.push(rule(
                format!("a value >= {}", repr(&m)),
                Check::Assertion {
                    factory: "assert.min",
                    arg: m,
                },
                "min",
            ));
        }
        if let Some(m) = max {
            self.rules.push(rule(
                format!("a value <= {}", repr(&m)),
                Check::Assertion {
                    factory: "assert.max",
                    arg: m,
                },
                "max",
            ));
        }
        if self.not_null {
            self.rules.push(Rule {
                msg: "not null".into(),
                check: Check::Assertion {
                    factory: "assert.not_null",
                    arg: AnnValue::None,
                },
                priority: 100,
                critical: true,
                name: "not_null".into(),
            });
        }
        if let Some(keys) = one_not_null {
            let which = match &keys {
                None => "all children".to_string(),
                Some(k) => repr(k),
            };
            self.rules.push(rule(
                format!("exactly one of {which} to be not null"),
                Check::OneNotNull(keys),
                "one_not_null",
            ));
        }
        if let Some(e) = one_of {
            self.rules.push(rule(
                format!("one of {}", repr(&e)),
                Check::Assertion {
                    factory: "assert.one_of",
                    arg: e,
                },
                "one_of",
            ));
        }
        for (name, arg) in extensions {
            self.rules.push(rule(
                describe_extension(name, &arg),
                Check::Extension { name, arg },
                name,
            ));
        }
        for (name, desc) in descriptions {
            for r in self.rules.iter_mut().filter(|r| r.name == name) {
                r.msg = desc.clone();
            }
        }
        Ok(())
    }
}

/// The `(description, value)` form of a named rule's argument (a yttcheck
/// extension from ytt's validations proposal): the description and the
/// argument. For `one_of=` the value must itself be a sequence, so that a
/// plain two-choice tuple `one_of=("a", "b")` keeps its ytt meaning.
fn described_arg(kwarg: &str, val: &AnnValue) -> Option<(String, AnnValue)> {
    if kwarg == "when" || kwarg == "one_not_null" {
        return None;
    }
    let AnnValue::Frozen(owner) = val else {
        return None;
    };
    let t = TupleRef::from_value(owner.value())?;
    let items = t.content();
    if items.len() != 2 {
        return None;
    }
    let desc = items[0].unpack_str()?.to_string();
    if kwarg == "one_of" && !crate::template::go::is_sequence(items[1]) {
        return None;
    }
    let inner = items[1].unpack_frozen()?;
    Some((desc, AnnValue::Frozen(owner.map(|_| inner))))
}

/// `must be:` text of an extension rule.
pub fn describe_extension(name: &str, arg: &AnnValue) -> String {
    let s = || match arg {
        AnnValue::Frozen(f) => f.unpack_str().unwrap_or_default().to_string(),
        AnnValue::Str(s) => s.clone(),
        _ => String::new(),
    };
    match name {
        "len" => format!("length == {}", repr(arg)),
        "format" => formats::describe(&s()),
        "starts_with" => format!("a value starting with {}", repr(arg)),
        "ends_with" => format!("a value ending with {}", repr(arg)),
        "contains" => format!("a value containing {}", repr(arg)),
        "matches" => format!("a value matching /{}/", s()),
        "even" => "an even number".into(),
        "odd" => "an odd number".into(),
        "multiple_of" => format!("a multiple of {}", repr(arg)),
        other => other.to_string(),
    }
}

/// ytt's `assertionFromCheckAttr`: an assertion object's `check`.
fn check_attr(v: SValue) -> Result<SValue, String> {
    if let Some(a) = crate::ytt::assert::Assertion::from_value(v) {
        return Ok(a.check);
    }
    if let Some(s) = YttStruct::from_value(v) {
        return match s.fields.get("check") {
            Some(c) if crate::template::go::is_callable(*c) => Ok(*c),
            Some(c) => Err(format!(
                "expected struct with attribute check(), but was {}",
                c.get_type()
            )),
            None => Err(format!(
                "expected second item in tuple to be an assertion function or assertion object, but was a {}",
                v.get_type()
            )),
        };
    }
    // go-starlark values without attributes
    if matches!(
        v.get_type(),
        "int" | "float" | "bool" | "NoneType" | "tuple"
    ) {
        return Err(format!(
            "expected second item in the 2-tuple to be an assertion function, but was {}",
            v.get_type()
        ));
    }
    Err(format!(
        "expected second item in tuple to be an assertion function or assertion object, but was a {}",
        v.get_type()
    ))
}

// ------------------------------------------------------------------ running

/// A value that failed one or more rules.
#[derive(Debug, Clone)]
pub struct Invalidation {
    /// Key path (`nested.b`, `items[0]`, `(document)`).
    pub path: String,
    /// Where the value came from.
    pub value_pos: Pos,
    pub violations: Vec<Violation>,
}

/// A failed rule.
#[derive(Debug, Clone)]
pub struct Violation {
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
            "",
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
        path: &str,
        schema_v: Option<&NodeValidation>,
        ty: Option<&crate::schema::Type>,
    ) {
        if self.error.is_some() {
            return;
        }
        let mut validations: Vec<NodeValidation> = Vec::new();
        if let Some(v) = schema_v {
            validations.push(v.clone());
        }
        if let Some(ann) = node.meta.annotation(ANN_ASSERT_VALIDATE) {
            match NodeValidation::from_annotation(ann) {
                Ok(v) => validations.push(v),
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
        for v in &validations {
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
                for item in &m.items {
                    let key = item.key_display();
                    let child_path = if path.is_empty() {
                        key
                    } else {
                        format!("{path}.{key}")
                    };
                    let (sv, st) = match ty {
                        Some(crate::schema::Type::Map(mt)) => {
                            match mt.items.iter().find(|it| it.key.scalar_eq(&item.key)) {
                                Some(it) => (it.validation.as_deref(), Some(&it.value_type)),
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
                    self.visit(&child, Some(node.value), &child_path, sv, st);
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
                for (i, item) in a.items.iter().enumerate() {
                    let child_path = format!("{path}[{i}]");
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
                    self.visit(&child, Some(node.value), &child_path, sv, st);
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
            other => crate::template::convert::from_yaml(
                other,
                heap,
                crate::template::convert::MapAs::Dict,
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
                        crate::template::go::go_error_text(&e)
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
                inv.violations.push(Violation {
                    rule_pos: v.pos.clone(),
                    description: rule.msg.clone(),
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
        let f = match &rule.check {
            Check::Callable(c) => ann_value(c, self.ev),
            Check::Assertion { factory, arg } => {
                let a = ann_value(arg, self.ev);
                let assertion = crate::ytt::assert::make_assertion(factory, a, self.ev)
                    .map_err(|e| crate::template::go::go_error_text(&e))?;
                assertion
                    .get_attr("check", self.ev.heap())
                    .ok()
                    .flatten()
                    .ok_or("internal error: assertion without check")?
            }
            Check::OneNotNull(keys) => {
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
                    .map_err(|e| crate::template::go::go_error_text(&e))?;
                assertion
                    .get_attr("check", self.ev.heap())
                    .ok()
                    .flatten()
                    .ok_or("internal error: assertion without check")?
            }
            Check::Extension { name, arg } => {
                let a = ann_value(arg, self.ev);
                return match rules::check(name, a, value) {
                    Ok(()) => Ok(true),
                    Err(m) => Err(m),
                };
            }
        };
        match self.ev.eval_function(f, &[value], &[]) {
            Ok(r) => Ok(r.unpack_bool() == Some(true)),
            Err(e) => {
                let op = match &rule.check {
                    Check::Assertion {
                        factory: "assert.min",
                        ..
                    } => Some(">="),
                    Check::Assertion {
                        factory: "assert.max",
                        ..
                    } => Some("<="),
                    _ => None,
                };
                Err(go_compare_text(&crate::template::go::go_error_text(&e), op))
            }
        }
    }
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
