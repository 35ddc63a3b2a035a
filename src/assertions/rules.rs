//! The rule model of `@assert/validate` and `@schema/validation`: a node's
//! rules parsed from its annotation (named rules, custom `(description,
//! assertion)` rules, `when=`), as `validation` runs them and `schema` keeps
//! them on its nodes.

use std::sync::{Arc, OnceLock};

use starlark::values::tuple::TupleRef;
use starlark::values::OwnedFrozenValue;
use starlark::values::Value as SValue;

use crate::template::runtime::values::YttStruct;
use crate::yaml::{AnnValue, Annotation, Pos};

pub const ANN_ASSERT_VALIDATE: &str = "assert/validate";

/// How a rule checks a value.
#[derive(Debug, Clone)]
pub enum RuleCheck {
    /// A user function (or an assertion's `check`).
    Callable(AnnValue),
    /// One of ytt's lambda assertions (`assert.min`, ...), made from `arg`.
    Assertion {
        factory: &'static str,
        arg: AnnValue,
        /// Its `check` function, made once and frozen: a schema's rules run
        /// for every pair of its library, and making the lambda again for
        /// each value cost as much as running it.
        made: Arc<OnceLock<OwnedFrozenValue>>,
    },
    /// `one_not_null=`: `None` for all keys.
    OneNotNull(Option<AnnValue>),
    /// A yttcheck extension rule.
    Extension { name: &'static str, arg: AnnValue },
}

impl RuleCheck {
    pub fn assertion(factory: &'static str, arg: AnnValue) -> RuleCheck {
        RuleCheck::Assertion {
            factory,
            arg,
            made: Default::default(),
        }
    }
}

/// One rule: what a valid value is (`must be:`), and how to check it.
#[derive(Debug, Clone)]
pub struct Rule {
    /// The author's description (a custom rule's, or a named rule's
    /// `("description", arg)`); `None` for a named rule described by its
    /// argument, which [`Rule::description`] writes only when it is needed
    /// (a schema has hundreds of rules, and most never fail).
    pub msg: Option<String>,
    pub check: RuleCheck,
    /// Higher runs first (`not_null` has 100).
    pub priority: i32,
    /// A failing critical rule stops the node's other rules.
    pub critical: bool,
    /// The rule id for findings: `validation/<name>`.
    pub name: String,
}

impl Rule {
    /// What a valid value is, as the `must be:` line says it.
    pub fn description(&self) -> String {
        if let Some(m) = &self.msg {
            return m.clone();
        }
        match &self.check {
            RuleCheck::Assertion { factory, arg, .. } => match *factory {
                "assert.min_len" => format!("length >= {}", repr(arg)),
                "assert.max_len" => format!("length <= {}", repr(arg)),
                "assert.min" => format!("a value >= {}", repr(arg)),
                "assert.max" => format!("a value <= {}", repr(arg)),
                "assert.not_null" => "not null".to_string(),
                "assert.one_of" => format!("one of {}", repr(arg)),
                other => other.to_string(),
            },
            RuleCheck::OneNotNull(keys) => {
                let which = match keys {
                    None => "all children".to_string(),
                    Some(k) => repr(k),
                };
                format!("exactly one of {which} to be not null")
            }
            RuleCheck::Extension { name, arg } => describe_extension(name, arg),
            RuleCheck::Callable(_) => String::new(),
        }
    }
}

/// A position written as `file:line` when a message needs it: the rules of
/// every annotation of a schema are read, and most are never wrong.
struct At<'a>(&'a Pos);

impl std::fmt::Display for At<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0.compact())
    }
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

/// A rule's argument as ytt writes it in a message (`%v` of a go-starlark
/// value: floats in Go's `%g`, so `max=1.0` reads `<= 1`).
fn repr(v: &AnnValue) -> String {
    match v {
        AnnValue::Frozen(f) => go_repr(f.value()),
        _ => v.repr(),
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
        .map(crate::template::runtime::go::is_callable)
        .unwrap_or(false)
}

fn is_sequence_ann(v: &AnnValue) -> bool {
    sval(v)
        .map(crate::template::runtime::go::is_sequence)
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
    /// Each rule as written (`min=1`; empty for a rule given as a
    /// description and a function) and in words (`a value >= 1`), for a
    /// reader: the editor's hover, a values reference.
    pub fn described(&self) -> Vec<(String, String)> {
        let mut out = Vec::new();
        for (k, v) in &self.named {
            if k == "when" {
                continue;
            }
            let words = match k.as_str() {
                "not_null" if self.not_null => "not null".to_string(),
                "not_null" => "may be null".to_string(),
                _ => self
                    .rules
                    .iter()
                    .find(|r| r.name == *k)
                    .map(Rule::description)
                    .unwrap_or_default(),
            };
            out.push((format!("{k}={}", repr(v)), words));
        }
        for r in self
            .rules
            .iter()
            .filter(|r| !self.named.iter().any(|(k, _)| *k == r.name))
        {
            let d = r.description();
            if !d.is_empty() {
                out.push((String::new(), d));
            }
        }
        if self.when.is_some() {
            out.push((
                "when=...".to_string(),
                "checked only when its condition holds".to_string(),
            ));
        }
        out
    }

    /// Parses `@schema/validation` / `@assert/validate` (ytt's `NewValidationFromAnn`).
    pub fn from_annotation(ann: &Annotation) -> Result<NodeValidation, String> {
        let at = At(&ann.pos);
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
            let check_fn = if crate::template::runtime::go::is_callable(assertion) {
                assertion
            } else {
                check_attr(assertion).map_err(|e| format!("{e} (at {at})"))?
            };
            let AnnValue::Frozen(owner) = arg else {
                unreachable!("checked above")
            };
            let owned = owner.map(|_| check_fn.unpack_frozen().expect("frozen annotation values"));
            rules.push(Rule {
                msg: Some(msg.to_string()),
                check: RuleCheck::Callable(AnnValue::Frozen(owned)),
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

    fn kwargs(&mut self, kwargs: &[(String, AnnValue)], at: &At) -> Result<(), String> {
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
                            val.type_name()
                        ));
                    }
                    self.when = Some(val.clone());
                }
                "min_len" | "max_len" => {
                    let Some(n) = number_to_int(val) else {
                        return Err(format!(
                            "expected keyword argument \"{k}\" to be a number, but was {} (at {at})",
                            val.type_name()
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
                            val.type_name()
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
                                val.type_name()
                            ))
                        }
                    }
                }
                "one_of" => {
                    if !is_sequence_ann(val) {
                        return Err(format!(
                            "expected keyword argument one_of to be a sequence, but was {}",
                            val.type_name()
                        ));
                    }
                    one_of = Some(val.clone());
                }
                other => match super::extensions::EXTENSIONS.iter().find(|e| **e == other) {
                    Some(name) => {
                        let arg = sval(val).map(|v| super::extensions::validate_arg(name, v));
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
        let rule = |check: RuleCheck, name: &str| Rule {
            msg: None,
            check,
            priority: 0,
            critical: false,
            name: name.to_string(),
        };
        if let Some(n) = min_len {
            self.rules.push(rule(
                RuleCheck::assertion("assert.min_len", AnnValue::Int(n)),
                "min_len",
            ));
        }
        if let Some(n) = max_len {
            self.rules.push(rule(
                RuleCheck::assertion("assert.max_len", AnnValue::Int(n)),
                "max_len",
            ));
        }
        if let Some(m) = min {
            self.rules
                .push(rule(RuleCheck::assertion("assert.min", m), "min"));
        }
        if let Some(m) = max {
            self.rules
                .push(rule(RuleCheck::assertion("assert.max", m), "max"));
        }
        if self.not_null {
            self.rules.push(Rule {
                msg: None,
                check: RuleCheck::assertion("assert.not_null", AnnValue::None),
                priority: 100,
                critical: true,
                name: "not_null".into(),
            });
        }
        if let Some(keys) = one_not_null {
            self.rules
                .push(rule(RuleCheck::OneNotNull(keys), "one_not_null"));
        }
        if let Some(e) = one_of {
            self.rules
                .push(rule(RuleCheck::assertion("assert.one_of", e), "one_of"));
        }
        for (name, arg) in extensions {
            self.rules
                .push(rule(RuleCheck::Extension { name, arg }, name));
        }
        for (name, desc) in descriptions {
            for r in self.rules.iter_mut().filter(|r| r.name == name) {
                r.msg = Some(desc.clone());
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
    if kwarg == "one_of" && !crate::template::runtime::go::is_sequence(items[1]) {
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
        "format" => super::formats::describe(&s()),
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
    if let Some(a) = super::Assertion::from_value(v) {
        return Ok(a.check);
    }
    if let Some(s) = YttStruct::from_value(v) {
        return match s.fields.get("check") {
            Some(c) if crate::template::runtime::go::is_callable(*c) => Ok(*c),
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
