//! Schema types, built from a `@data/values-schema` document as ytt builds them.
//!
//! Every value in a schema document declares a type and a default: a map
//! declares its keys, an array its (single) item type with `[]` as default, a
//! scalar its kind. Annotations refine that: `@schema/nullable` (default null),
//! `@schema/type any=True`, `@schema/default`, documentation annotations, and
//! `@schema/validation` rules.

use std::sync::Arc;

use crate::assertions::rules::NodeValidation;
use crate::yaml::{Meta, Pos, Value};

pub const ANN_NULLABLE: &str = "schema/nullable";
pub const ANN_TYPE: &str = "schema/type";
pub const ANN_DEFAULT: &str = "schema/default";
pub const ANN_DESC: &str = "schema/desc";
pub const ANN_TITLE: &str = "schema/title";
pub const ANN_EXAMPLES: &str = "schema/examples";
pub const ANN_DEPRECATED: &str = "schema/deprecated";
pub const ANN_VALIDATION: &str = "schema/validation";
/// yttcheck extension: a key that must no longer be given.
pub const ANN_REMOVED: &str = "schema/removed";
/// yttcheck extension: default rules for string values below.
pub const ANN_STRING_DEFAULTS: &str = "schema/validation-defaults-for-strings";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScalarKind {
    String,
    Int,
    Float,
    Bool,
}

impl ScalarKind {
    pub fn name(self) -> &'static str {
        match self {
            ScalarKind::String => "string",
            ScalarKind::Int => "integer",
            ScalarKind::Float => "float",
            ScalarKind::Bool => "boolean",
        }
    }
}

/// Documentation of a type (`@schema/desc`, `title`, `examples`, `deprecated`).
#[derive(Debug, Clone, Default)]
pub struct Documentation {
    pub title: String,
    pub description: String,
    pub deprecated: bool,
    pub deprecation_notice: String,
    pub examples: Vec<(String, Value)>,
    /// yttcheck extension `@schema/removed`: giving a value is an error.
    pub removed: Option<String>,
}

/// The type of a value.
#[derive(Debug, Clone)]
pub enum Type {
    Map(MapType),
    Array(ArrayType),
    Scalar(ScalarType),
    Any(AnyType),
    Null(NullType),
}

#[derive(Debug, Clone)]
pub struct MapType {
    pub items: Vec<MapItemType>,
    pub pos: Pos,
    pub doc: Documentation,
}

impl MapType {
    /// The index of `key`'s declaration, trying `next` first: values mostly
    /// come in the schema's order, so a walk that passes the index after
    /// the last one found matches a map in one pass.
    pub fn declaration_of(&self, key: &Value, next: usize) -> Option<usize> {
        match self.items.get(next) {
            Some(it) if it.key.scalar_eq(key) => Some(next),
            _ => self.items.iter().position(|it| it.key.scalar_eq(key)),
        }
    }
}

#[derive(Debug, Clone)]
pub struct MapItemType {
    pub key: Value,
    pub value_type: Type,
    pub pos: Pos,
    pub default: Value,
    pub validation: Option<Arc<NodeValidation>>,
}

#[derive(Debug, Clone)]
pub struct ArrayType {
    pub item_type: Box<ArrayItemType>,
    pub pos: Pos,
    pub default: Value,
    pub doc: Documentation,
}

#[derive(Debug, Clone)]
pub struct ArrayItemType {
    pub value_type: Type,
    pub pos: Pos,
    pub default: Value,
    pub validation: Option<Arc<NodeValidation>>,
}

#[derive(Debug, Clone)]
pub struct ScalarType {
    pub kind: ScalarKind,
    pub pos: Pos,
    pub default: Value,
    pub doc: Documentation,
}

#[derive(Debug, Clone)]
pub struct AnyType {
    pub default: Value,
    pub pos: Pos,
    pub doc: Documentation,
}

#[derive(Debug, Clone)]
pub struct NullType {
    pub value_type: Box<Type>,
    pub pos: Pos,
    pub doc: Documentation,
}

/// The type of a whole schema document.
#[derive(Debug, Clone)]
pub struct DocType {
    pub value_type: Type,
    pub pos: Pos,
    pub default: Value,
    pub validation: Option<Arc<NodeValidation>>,
}

impl Type {
    /// ytt's `String()` of a type, as in `expected: integer`.
    pub fn name(&self) -> String {
        match self {
            Type::Map(_) => "map".into(),
            Type::Array(_) => "array".into(),
            Type::Scalar(s) => s.kind.name().into(),
            Type::Any(_) => "any".into(),
            Type::Null(_) => "null".into(),
        }
    }

    pub fn pos(&self) -> &Pos {
        match self {
            Type::Map(t) => &t.pos,
            Type::Array(t) => &t.pos,
            Type::Scalar(t) => &t.pos,
            Type::Any(t) => &t.pos,
            Type::Null(t) => &t.pos,
        }
    }

    /// ytt's `GetDefaultValue`: maps build their default from their items.
    pub fn default_value(&self) -> Value {
        match self {
            Type::Map(m) => {
                let mut map = crate::yaml::Map {
                    items: Vec::with_capacity(m.items.len()),
                    pos: m.pos.clone(),
                    meta: Meta::default(),
                };
                for it in &m.items {
                    map.items.push(crate::yaml::MapItem {
                        key: it.key.clone(),
                        value: it.default.clone(),
                        pos: it.pos.clone(),
                        meta: Meta::default(),
                    });
                }
                Value::Map(crate::yaml::Shared::new(map))
            }
            Type::Array(a) => a.default.clone(),
            Type::Scalar(s) => s.default.clone(),
            Type::Any(a) => a.default.clone(),
            Type::Null(_) => Value::Null,
        }
    }

    pub(super) fn set_default(&mut self, v: Value) {
        match self {
            Type::Map(_) => {}
            Type::Array(a) => a.default = v,
            Type::Scalar(s) => s.default = v,
            Type::Any(a) => a.default = v,
            Type::Null(n) => n.value_type.set_default(v),
        }
    }

    pub fn doc(&self) -> &Documentation {
        match self {
            Type::Map(t) => &t.doc,
            Type::Array(t) => &t.doc,
            Type::Scalar(t) => &t.doc,
            Type::Any(t) => &t.doc,
            Type::Null(t) => &t.doc,
        }
    }

    pub(super) fn doc_mut(&mut self) -> &mut Documentation {
        match self {
            Type::Map(t) => &mut t.doc,
            Type::Array(t) => &mut t.doc,
            Type::Scalar(t) => &mut t.doc,
            Type::Any(t) => &mut t.doc,
            Type::Null(t) => &mut t.doc,
        }
    }
}

// ------------------------------------------------------------------ construction

/// A node of the schema document: its value, position and annotations.
pub(crate) struct NodeView<'a> {
    pub kind: NodeKind,
    pub value: &'a Value,
    pub pos: &'a Pos,
    pub meta: &'a Meta,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum NodeKind {
    Document,
    MapItem,
    ArrayItem,
}
