//! yttcheck extension (from ytt's validations proposal, never shipped by
//! ytt): `@schema/validation-defaults-for-strings`.
//!
//! On a schema document or on any node, it gives its rules to every
//! string-typed node below it that has no `@schema/validation` of its own:
//!
//! ```yaml
//! #@data/values-schema
//! #@schema/validation-defaults-for-strings min_len=1
//! ---
//! namespace: ""          # must be non-empty
//! #@schema/validation min_len=0
//! description: ""        # opted out: its own rule replaces the default
//! replicas: 1            # not a string: untouched
//! ```
//!
//! As the proposal decides: the type is the schema's (after all schema
//! documents merged), not the value's; a node with its own validation keeps
//! only its own; the nearest annotated ancestor wins; and an annotation covers
//! only nodes written in its own file (a schema overlay from another file does
//! not inherit it).

use std::sync::Arc;

use crate::assertions::rules::NodeValidation;
use crate::yaml::{Annotation, Document, Meta, Value};

use super::check::resolve;
use super::error::SchemaError;
use super::types::{DocType, ScalarKind, Type, ANN_STRING_DEFAULTS};

struct Default {
    validation: Arc<NodeValidation>,
    /// The file the annotation is in.
    file: String,
}

fn default_of(meta: &Meta) -> Result<Option<Default>, SchemaError> {
    let Some(ann) = meta.annotation(ANN_STRING_DEFAULTS) else {
        return Ok(None);
    };
    let validation = parse(ann)?;
    Ok(Some(Default {
        validation: Arc::new(validation),
        file: ann.pos.file_name().to_string(),
    }))
}

fn parse(ann: &Annotation) -> Result<NodeValidation, SchemaError> {
    NodeValidation::from_annotation(ann).map_err(|e| {
        SchemaError::plain(format!("Invalid @{ANN_STRING_DEFAULTS} annotation - {e}"))
            .with_rule(crate::diagnostics::RuleId::ValidationInvalidRule)
    })
}

fn is_string(t: &Type) -> bool {
    matches!(resolve(t), Type::Scalar(s) if s.kind == ScalarKind::String)
}

/// Gives the defaults to the string-typed nodes of `t`, the type of `doc`.
pub fn apply(doc: &Document, t: &mut DocType) -> Result<(), SchemaError> {
    let current = default_of(&doc.meta)?;
    walk(&doc.value, &mut t.value_type, current.as_ref())
}

fn walk(value: &Value, t: &mut Type, current: Option<&Default>) -> Result<(), SchemaError> {
    match t {
        Type::Null(n) => walk(value, &mut n.value_type, current),
        Type::Map(mt) => {
            let Value::Map(m) = value else { return Ok(()) };
            for item in &m.items {
                let Some(it) = mt.items.iter_mut().find(|i| i.key.scalar_eq(&item.key)) else {
                    continue;
                };
                let own = default_of(&item.meta)?;
                let here = own.as_ref().or(current);
                if let Some(d) = here {
                    let same_file = item.pos.file_name() == d.file;
                    if it.validation.is_none() && same_file && is_string(&it.value_type) {
                        it.validation = Some(d.validation.clone());
                    }
                }
                walk(&item.value, &mut it.value_type, here)?;
            }
            Ok(())
        }
        Type::Array(at) => {
            let Value::Array(a) = value else {
                return Ok(());
            };
            let Some(item) = a.items.first() else {
                return Ok(());
            };
            let it = &mut at.item_type;
            let own = default_of(&item.meta)?;
            let here = own.as_ref().or(current);
            if let Some(d) = here {
                let same_file = item.pos.file_name() == d.file;
                if it.validation.is_none() && same_file && is_string(&it.value_type) {
                    it.validation = Some(d.validation.clone());
                }
            }
            walk(&item.value, &mut it.value_type, here)
        }
        Type::Scalar(_) | Type::Any(_) => Ok(()),
    }
}
