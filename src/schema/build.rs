//! Building a schema's types from a `@data/values-schema` document, as ytt
//! builds them: each node's declared type, default, documentation and
//! validation, from its value and annotations; defaults and examples are
//! type-checked as they are read.

use std::sync::Arc;

use crate::assertions::rules::NodeValidation;
use crate::yaml::{AnnValue, Annotation, Array, Meta, Pos, Value};

use super::check::{assign_and_check_value, check_scalar};
use super::error::{SchemaError, Violation};
use super::types::*;

fn ann_go_type(v: &AnnValue) -> String {
    match v {
        AnnValue::Frozen(f) => crate::template::runtime::go::go_type_name(f.value()),
        AnnValue::Str(_) => "starlark.String".into(),
        AnnValue::Bool(_) => "starlark.Bool".into(),
        AnnValue::Int(_) => "starlark.Int".into(),
        AnnValue::None => "starlark.NoneType".into(),
        AnnValue::Live(_) => "value".into(),
    }
}

fn ann_bool(v: &AnnValue) -> Option<bool> {
    match v {
        AnnValue::Bool(b) => Some(*b),
        AnnValue::Frozen(f) => f.unpack_bool(),
        _ => None,
    }
}

fn ann_str(v: &AnnValue) -> Option<String> {
    match v {
        AnnValue::Str(s) => Some(s.clone()),
        AnnValue::Frozen(f) => f.unpack_str().map(|s| s.to_string()),
        _ => None,
    }
}

/// Converts an annotation argument (a Starlark value) to YAML, positioned at `pos`.
fn ann_to_yaml(v: &AnnValue, pos: &Pos) -> Value {
    let mut y = match v {
        AnnValue::None => Value::Null,
        AnnValue::Bool(b) => Value::Bool(*b),
        AnnValue::Int(i) => Value::Int(*i),
        AnnValue::Str(s) => Value::str(s),
        AnnValue::Frozen(f) => {
            crate::template::runtime::convert::to_yaml(f.value(), None).unwrap_or(Value::Null)
        }
        AnnValue::Live(_) => Value::Null,
    };
    y.fill_unknown_positions(pos);
    y
}

fn invalid(violation: Violation) -> SchemaError {
    SchemaError::new("Invalid schema", vec![violation])
}

fn err_at(ann: &Annotation, pos: &Pos) -> Violation {
    Violation {
        rule: crate::diagnostics::RuleId::SchemaInvalid,
        ann_positions: vec![ann.pos.clone()],
        pos: pos.clone(),
        ..Violation::of(crate::diagnostics::RuleId::SchemaInvalid, Pos::unknown())
    }
}

impl NodeView<'_> {
    fn type_name(&self) -> &'static str {
        match self.kind {
            NodeKind::Document => "document",
            NodeKind::MapItem => "map item",
            NodeKind::ArrayItem => "array item",
        }
    }
}

/// `@schema/type` and `@schema/nullable`: the declared type, if any.
fn type_from_annotations(node: &NodeView) -> Result<Option<Type>, SchemaError> {
    let mut result: Option<Type> = None;
    if let Some(ann) = node.meta.annotation(ANN_TYPE) {
        if ann.kwargs.is_empty() {
            let mut v = err_at(ann, node.pos);
            v.description =
                format!("expected @{ANN_TYPE} annotation to have keyword argument and value");
            v.expected = "valid keyword argument and value".into();
            v.found = format!(
                "missing keyword argument and value (by {})",
                ann.pos.compact()
            );
            v.hints = vec!["Supported key-value pairs are 'any=True', 'any=False'".into()];
            return Err(invalid(v));
        }
        let mut any = false;
        for (k, val) in &ann.kwargs {
            if k != "any" {
                let mut v = err_at(ann, node.pos);
                v.description = "unknown @schema/type annotation keyword argument".into();
                v.expected = "A valid kwarg".into();
                v.found = format!("{k} (by {})", ann.pos.compact());
                v.hints = vec!["Supported kwargs are 'any'".into()];
                return Err(invalid(v));
            }
            match ann_bool(val) {
                Some(b) => any = b,
                None => {
                    let mut v = err_at(ann, node.pos);
                    v.description = "unknown @schema/type annotation keyword argument".into();
                    v.expected = "starlark.Bool".into();
                    v.found = format!("{} (by {})", ann_go_type(val), ann.pos.compact());
                    v.hints = vec!["Supported kwargs are 'any'".into()];
                    return Err(invalid(v));
                }
            }
        }
        if any {
            result = Some(Type::Any(AnyType {
                default: node.value.clone(),
                pos: node.pos.clone(),
                doc: Documentation::default(),
            }));
        }
    }
    if let Some(ann) = node.meta.annotation(ANN_NULLABLE) {
        if !ann.kwargs.is_empty() {
            let mut v = err_at(ann, node.pos);
            v.description =
                format!("expected @{ANN_NULLABLE} annotation to not contain any keyword arguments");
            v.expected = "starlark.Bool".into();
            v.found = format!(
                "keyword argument in @{ANN_NULLABLE} (by {})",
                ann.pos.compact()
            );
            v.hints = vec!["Supported kwargs are 'any'".into()];
            return Err(invalid(v));
        }
        match &mut result {
            None => {
                let inferred = infer_type(node.value, node.pos)?;
                let inner = match inferred {
                    Some(t) => t,
                    None => Type::Any(AnyType {
                        default: Value::Null,
                        pos: node.pos.clone(),
                        doc: Documentation::default(),
                    }),
                };
                result = Some(Type::Null(NullType {
                    value_type: Box::new(inner),
                    pos: node.pos.clone(),
                    doc: Documentation::default(),
                }));
            }
            Some(t) => t.set_default(Value::Null),
        }
    }
    Ok(result)
}

/// ytt's `InferTypeFromValue` (None for null).
pub(crate) fn infer_type(value: &Value, pos: &Pos) -> Result<Option<Type>, SchemaError> {
    Ok(Some(match value {
        Value::Map(m) => {
            let mut items = Vec::with_capacity(m.items.len());
            for it in &m.items {
                items.push(map_item_type(it)?);
            }
            Type::Map(MapType {
                items,
                pos: m.pos.clone(),
                doc: Documentation::default(),
            })
        }
        Value::Array(a) => Type::Array(array_type(a)?),
        Value::Str(_) | Value::Binary(_) => Type::Scalar(ScalarType {
            kind: ScalarKind::String,
            pos: pos.clone(),
            default: value.clone(),
            doc: Documentation::default(),
        }),
        Value::Float(_) => Type::Scalar(ScalarType {
            kind: ScalarKind::Float,
            pos: pos.clone(),
            default: value.clone(),
            doc: Documentation::default(),
        }),
        Value::Int(_) | Value::UInt(_) => Type::Scalar(ScalarType {
            kind: ScalarKind::Int,
            pos: pos.clone(),
            default: value.clone(),
            doc: Documentation::default(),
        }),
        Value::Bool(_) => Type::Scalar(ScalarType {
            kind: ScalarKind::Bool,
            pos: pos.clone(),
            default: value.clone(),
            doc: Documentation::default(),
        }),
        Value::Null => return Ok(None),
    }))
}

fn get_type(node: &NodeView) -> Result<Type, SchemaError> {
    let declared = type_from_annotations(node)?;
    let t = match declared {
        Some(t) => Some(t),
        None => infer_type(node.value, node.pos)?,
    };
    // ytt's valueTypeAllowsItemValue: only "any" accepts a null value here
    let mut t = match t {
        Some(Type::Any(a)) => {
            check_no_schema_annotations_inside(node.value)?;
            Type::Any(a)
        }
        Some(t) if !node.value.is_null() => t,
        _ => {
            return Err(SchemaError::new(
                "Invalid schema - null value not allowed here",
                vec![Violation {
                    rule: crate::diagnostics::RuleId::SchemaInvalid,
                    pos: node.pos.clone(),
                    expected: "non-null value".into(),
                    found: "null value".into(),
                    hints: vec![
                        "in YAML, omitting a value implies null.".into(),
                        "to set the default value to null, annotate with @schema/nullable.".into(),
                        "to allow any value, annotate with @schema/type any=True.".into(),
                    ],
                    ..Violation::of(crate::diagnostics::RuleId::SchemaInvalid, Pos::unknown())
                }],
            ))
        }
    };
    set_documentation(node, &mut t)?;
    Ok(t)
}

/// ytt's `checkForAnnotations`: no `@schema/nullable|type|default` inside an
/// any-typed fragment.
fn check_no_schema_annotations_inside(v: &Value) -> Result<(), SchemaError> {
    let check = |meta: &Meta, pos: &Pos| -> Result<(), SchemaError> {
        let mut found = Vec::new();
        let mut positions = Vec::new();
        for name in [ANN_NULLABLE, ANN_TYPE, ANN_DEFAULT] {
            if let Some(a) = meta.annotation(name) {
                found.push(name.to_string());
                positions.push(a.pos.clone());
            }
        }
        if found.is_empty() {
            return Ok(());
        }
        Err(invalid(Violation {
            rule: crate::diagnostics::RuleId::SchemaInvalid,
            ann_positions: positions,
            pos: pos.clone(),
            description: "Schema was specified within an \"any type\" fragment".into(),
            expected: "no '@schema/...' on nodes within a node annotated '@schema/type any=True'".into(),
            found: format!("@{} annotation(s)", found.join(", @")),
            hints: vec![
                "an \"any type\" fragment has no constraints; nested schema annotations conflict and are disallowed".into(),
            ],
            schema_pos: None,
            key_path: None,
            rename: None,
            memory_line: None,
        }))
    };
    match v {
        Value::Map(m) => {
            check(&m.meta, &m.pos)?;
            for i in &m.items {
                check(&i.meta, &i.pos)?;
                check_no_schema_annotations_inside(&i.value)?;
            }
        }
        Value::Array(a) => {
            check(&a.meta, &a.pos)?;
            for i in &a.items {
                check(&i.meta, &i.pos)?;
                check_no_schema_annotations_inside(&i.value)?;
            }
        }
        _ => {}
    }
    Ok(())
}

fn string_arg_ann(node: &NodeView, ann: &Annotation, name: &str) -> Result<String, SchemaError> {
    let syntax = |found: String, hints: Vec<String>| {
        let mut v = err_at(ann, node.pos);
        v.description = format!("syntax error in @{name} annotation");
        v.expected = "string".into();
        v.found = found;
        v.hints = hints;
        invalid(v)
    };
    if !ann.kwargs.is_empty() {
        return Err(syntax(
            format!("keyword argument in @{name} (by {})", ann.pos.compact()),
            vec!["this annotation only accepts one argument: a string.".into()],
        ));
    }
    match ann.args.len() {
        0 => Err(syntax(
            format!("missing value in @{name} (by {})", ann.pos.compact()),
            vec![],
        )),
        1 => ann_str(&ann.args[0]).ok_or_else(|| {
            syntax(
                format!("Non-string value in @{name} (by {})", ann.pos.compact()),
                vec![],
            )
        }),
        n => Err(syntax(
            format!("{n} values in @{name} (by {})", ann.pos.compact()),
            vec![],
        )),
    }
}

fn set_documentation(node: &NodeView, t: &mut Type) -> Result<(), SchemaError> {
    if let Some(ann) = node.meta.annotation(ANN_DESC) {
        t.doc_mut().description = string_arg_ann(node, ann, ANN_DESC)?;
    }
    if let Some(ann) = node.meta.annotation(ANN_TITLE) {
        t.doc_mut().title = string_arg_ann(node, ann, ANN_TITLE)?;
    }
    if let Some(ann) = node.meta.annotation(ANN_EXAMPLES) {
        let examples = examples(node, ann)?;
        check_examples(ann, &examples, t)?;
        t.doc_mut().examples = examples;
    }
    if let Some(ann) = node.meta.annotation(ANN_DEPRECATED) {
        if node.kind == NodeKind::Document {
            let mut v = err_at(ann, node.pos);
            v.description = format!("@{ANN_DEPRECATED} not supported on a {}", node.type_name());
            v.hints = vec![
                "do you mean to deprecate the entire schema document?".into(),
                "use schema/deprecated on individual keys.".into(),
            ];
            return Err(invalid(v));
        }
        let notice = string_arg_ann(node, ann, ANN_DEPRECATED)?;
        let d = t.doc_mut();
        d.deprecated = true;
        d.deprecation_notice = notice;
    }
    if let Some(ann) = node.meta.annotation(ANN_REMOVED) {
        let notice = if ann.args.is_empty() {
            String::new()
        } else {
            string_arg_ann(node, ann, ANN_REMOVED)?
        };
        t.doc_mut().removed = Some(notice);
    }
    Ok(())
}

fn examples(node: &NodeView, ann: &Annotation) -> Result<Vec<(String, Value)>, SchemaError> {
    let expected = "2-tuple containing description (string) and example value (of expected type)";
    let syntax = |found: String| {
        let mut v = err_at(ann, node.pos);
        v.description = format!("syntax error in @{ANN_EXAMPLES} annotation");
        v.expected = expected.into();
        v.found = found;
        invalid(v)
    };
    if !ann.kwargs.is_empty() {
        return Err(syntax(format!(
            "keyword argument in @{ANN_EXAMPLES} (by {})",
            ann.pos.compact()
        )));
    }
    if ann.args.is_empty() {
        return Err(syntax(format!(
            "missing value in @{ANN_EXAMPLES} (by {})",
            ann.pos.compact()
        )));
    }
    let mut out = Vec::new();
    for a in &ann.args {
        let AnnValue::Frozen(f) = a else {
            return Err(syntax(format!(
                "{} for @{ANN_EXAMPLES} (at {})",
                a.type_name(),
                ann.pos.compact()
            )));
        };
        let v = f.value();
        let Some(t) = starlark::values::tuple::TupleRef::from_value(v) else {
            return Err(syntax(format!(
                "{} for @{ANN_EXAMPLES} (at {})",
                v.get_type(),
                ann.pos.compact()
            )));
        };
        let items = t.content();
        match items.len() {
            0 | 1 => {
                return Err(syntax(format!(
                    "empty tuple in @{ANN_EXAMPLES} (by {})",
                    ann.pos.compact()
                )))
            }
            2 => {}
            n => {
                return Err(syntax(format!(
                    "{n}-tuple argument in @{ANN_EXAMPLES} (by {})",
                    ann.pos.compact()
                )))
            }
        }
        let Some(desc) = items[0].unpack_str() else {
            return Err(syntax(format!(
                "{} value for @{ANN_EXAMPLES} (at {})",
                items[0].get_type(),
                ann.pos.compact()
            )));
        };
        let mut ex =
            crate::template::runtime::convert::to_yaml(items[1], None).unwrap_or(Value::Null);
        ex.fill_unknown_positions(node.pos);
        out.push((desc.to_string(), ex));
    }
    Ok(out)
}

fn check_examples(
    ann: &Annotation,
    examples: &[(String, Value)],
    t: &Type,
) -> Result<(), SchemaError> {
    let mut violations = Vec::new();
    for (_, ex) in examples {
        let mut v = ex.clone();
        violations.extend(type_check_value(t, &mut v, t.pos()));
    }
    if violations.is_empty() {
        return Ok(());
    }
    for v in &mut violations {
        v.ann_positions = vec![ann.pos.clone()];
        v.found = format!("{} (by {})", v.found, ann.pos.compact());
    }
    Err(SchemaError::new(
        format!("Invalid schema - @{ANN_EXAMPLES} has wrong type"),
        violations,
    ))
}

/// Type-checks a standalone value (a default or an example) against `t`:
/// collections are assigned and checked, scalars checked as a map item at `pos`.
fn type_check_value(t: &Type, v: &mut Value, pos: &Pos) -> Vec<Violation> {
    if v.is_collection() {
        assign_and_check_value(t, v)
    } else {
        check_scalar(t, v, pos)
    }
}

fn get_default(node: &NodeView, t: &Type) -> Result<Value, SchemaError> {
    if let Some(ann) = node.meta.annotation(ANN_DEFAULT) {
        if node.kind == NodeKind::ArrayItem {
            // ytt nests this report inside an "Invalid schema" one
            let inner = SchemaError::new(
                format!("Invalid schema - @{ANN_DEFAULT} not supported on array item"),
                vec![Violation {
                    rule: crate::diagnostics::RuleId::SchemaInvalid,
                    ann_positions: vec![ann.pos.clone()],
                    pos: node.pos.clone(),
                    hints: vec![
                        "do you mean to set a default value for the array?".into(),
                        "set an array's default by annotating its parent.".into(),
                    ],
                    ..Violation::of(crate::diagnostics::RuleId::SchemaInvalid, Pos::unknown())
                }],
            );
            return Err(SchemaError {
                rule: crate::diagnostics::RuleId::SchemaInvalid,
                summary: "Invalid schema".into(),
                violations: inner.violations.clone(),
                misc: format!("{} \n", inner.message()),
                nested_violations: Vec::new(),
            }
            .nested());
        }
        let expected = format!("{} (by {})", t.name(), t.pos().compact());
        let syntax = |found: String, hints: Vec<String>| {
            let mut v = err_at(ann, node.pos);
            v.description = format!("syntax error in @{ANN_DEFAULT} annotation");
            v.expected = expected.clone();
            v.found = found;
            v.hints = hints;
            invalid(v)
        };
        if !ann.kwargs.is_empty() {
            return Err(syntax(
                format!(
                    "keyword argument in @{ANN_DEFAULT} (by {})",
                    ann.pos.compact()
                ),
                vec![
                    "this annotation only accepts one argument: the default value.".into(),
                    "value must be in Starlark format, e.g.: {'key': 'value'}, True.".into(),
                ],
            ));
        }
        match ann.args.len() {
            0 => {
                return Err(syntax(
                    format!("missing value in @{ANN_DEFAULT} (by {})", ann.pos.compact()),
                    vec![],
                ))
            }
            1 => {}
            n => {
                return Err(syntax(
                    format!("{n} values in @{ANN_DEFAULT} (by {})", ann.pos.compact()),
                    vec![],
                ))
            }
        }
        let mut value = ann_to_yaml(&ann.args[0], node.pos);
        let mut violations = type_check_value(t, &mut value, t.pos());
        if !violations.is_empty() {
            for v in &mut violations {
                v.ann_positions = vec![ann.pos.clone()];
                v.found = format!("{} (at {})", v.found, ann.pos.compact());
            }
            return Err(SchemaError::new(
                format!("Invalid schema - @{ANN_DEFAULT} is wrong type"),
                violations,
            ));
        }
        return Ok(value);
    }
    Ok(t.default_value())
}

fn get_validation(node: &NodeView) -> Result<Option<Arc<NodeValidation>>, SchemaError> {
    match node.meta.annotation(ANN_VALIDATION) {
        None => Ok(None),
        Some(ann) => NodeValidation::from_annotation(ann)
            .map(|v| Some(Arc::new(v)))
            .map_err(|e| {
                SchemaError::plain(format!("Invalid @{ANN_VALIDATION} annotation - {e}"))
                    .with_rule(crate::diagnostics::RuleId::ValidationInvalidRule)
            }),
    }
}

/// A holder node's type (with its default set), default and validation:
/// what map items, array items and documents all need.
fn typed_node(node: &NodeView) -> Result<(Type, Value, Option<Arc<NodeValidation>>), SchemaError> {
    let mut t = get_type(node)?;
    let default = get_default(node, &t)?;
    let validation = get_validation(node)?;
    t.set_default(default.clone());
    Ok((t, default, validation))
}

fn map_item_type(item: &crate::yaml::MapItem) -> Result<MapItemType, SchemaError> {
    let node = NodeView {
        kind: NodeKind::MapItem,
        value: &item.value,
        pos: &item.pos,
        meta: &item.meta,
    };
    let (t, default, validation) = typed_node(&node)?;
    Ok(MapItemType {
        key: item.key.clone(),
        value_type: t,
        pos: item.pos.clone(),
        default,
        validation,
    })
}

fn array_type(a: &Array) -> Result<ArrayType, SchemaError> {
    if a.items.len() != 1 {
        return Err(SchemaError::new(
            "Invalid schema - wrong number of items in array definition",
            vec![Violation {
                rule: crate::diagnostics::RuleId::SchemaInvalid,
                pos: a.pos.clone(),
                expected: "exactly 1 array item, of the desired type".into(),
                found: format!("{} array items", a.items.len()),
                hints: vec![
                    "in schema, the one item of the array implies the type of its elements.".into(),
                    "in schema, the default value for an array is always an empty list.".into(),
                    "default values can be overridden via a data values overlay.".into(),
                ],
                ..Violation::of(crate::diagnostics::RuleId::SchemaInvalid, Pos::unknown())
            }],
        ));
    }
    let item = &a.items[0];
    let node = NodeView {
        kind: NodeKind::ArrayItem,
        value: &item.value,
        pos: &item.pos,
        meta: &item.meta,
    };
    let (t, default, validation) = typed_node(&node)?;
    Ok(ArrayType {
        item_type: Box::new(ArrayItemType {
            value_type: t,
            pos: item.pos.clone(),
            default,
            validation,
        }),
        pos: a.pos.clone(),
        default: Value::Array(crate::yaml::Shared::new(Array {
            items: Vec::new(),
            pos: a.pos.clone(),
            meta: Meta::default(),
        })),
        doc: Documentation::default(),
    })
}

/// Builds the type of a schema document.
pub fn document_type(doc: &crate::yaml::Document) -> Result<DocType, SchemaError> {
    let node = NodeView {
        kind: NodeKind::Document,
        value: &doc.value,
        pos: &doc.pos,
        meta: &doc.meta,
    };
    let (t, default, validation) = typed_node(&node)?;
    Ok(DocType {
        value_type: t,
        pos: doc.pos.clone(),
        default,
        validation,
    })
}

/// Used by messages that print a Starlark argument (`a value >= 3`).
pub fn repr(v: &AnnValue) -> String {
    v.repr()
}
