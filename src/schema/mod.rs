//! Data values schemas: types, defaults and type checking, as ytt does them,
//! plus OpenAPI v3 and JSON Schema export.

pub mod build;
pub mod check;
pub mod error;
pub mod export;
pub mod string_defaults;
pub mod types;

pub use error::{render_violations, SchemaError, Violation};
pub use types::{DocType, Type};

use crate::yaml::{Document, Meta};

/// The schema of a library (or none: ytt's "null schema", which accepts
/// anything and has no defaults).
#[derive(Debug, Clone, Default)]
pub struct Schema {
    pub doc_type: Option<DocType>,
}

impl Schema {
    pub fn null() -> Schema {
        Schema { doc_type: None }
    }

    /// Builds the schema of a (merged) schema document.
    pub fn from_document(doc: &Document) -> Result<Schema, SchemaError> {
        let mut doc_type = build::document_type(doc)?;
        string_defaults::apply(doc, &mut doc_type)?;
        Ok(Schema {
            doc_type: Some(doc_type),
        })
    }

    pub fn is_null(&self) -> bool {
        self.doc_type.is_none()
    }
}

impl Schema {
    /// The schema's defaults as a data values document (none without a
    /// schema).
    pub fn defaults(&self) -> Option<Document> {
        self.doc_type.as_ref().map(|dt| Document {
            value: dt.default.clone(),
            pos: dt.pos.clone(),
            meta: Meta::default(),
            injected: false,
        })
    }

    /// Type-checks final values (and fills in defaults ytt fills in).
    pub fn check(&self, doc: &mut Document) -> Vec<Violation> {
        match &self.doc_type {
            None => Vec::new(),
            Some(dt) => check::check_document(dt, doc),
        }
    }
}
