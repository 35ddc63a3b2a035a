//! What the `@ytt:` modules ask of the library a file belongs to
//! (`data.list`, `data.read`, `@ytt:library`): a trait the host implements
//! and injects, as starlark-rust's `FileLoader` lets a host supply loads.

use crate::yaml::{DocSet, Value};

/// Services the ytt modules need from the library a file belongs to.
pub trait Host: Send + Sync {
    /// `data.list(path)`.
    fn data_list(&self, path: &str) -> Result<Vec<String>, String>;
    /// `data.read(path)`.
    fn data_read(&self, path: &str) -> Result<String, String>;
    /// `library.get(...)` then `.eval()`, `.data_values()` or `.export()`.
    fn library(&self, req: &LibraryRequest, op: &LibraryOp) -> Result<LibraryAnswer, String>;
}

/// What `@ytt:library` asks for: a private library, the options of
/// `library.get`, and what `with_data_values`/`with_data_values_schema`
/// added, in call order.
#[derive(Debug, Clone, Default)]
pub struct LibraryRequest {
    pub path: String,
    pub alias: String,
    pub ignore_unknown_comments: Option<bool>,
    pub implicit_map_key_overrides: Option<bool>,
    pub strict: Option<bool>,
    pub skip_validation: bool,
    /// `with_data_values(value, plain=...)`.
    pub data_values: Vec<(Value, bool)>,
    /// `with_data_values_schema(value)`.
    pub schemas: Vec<Value>,
}

/// The operation on a requested library.
#[derive(Debug, Clone)]
pub enum LibraryOp {
    /// Whether the library exists (`library.get` fails at once, as in ytt).
    Find,
    Eval,
    DataValues,
    Export {
        symbol: String,
        path: Option<String>,
    },
}

/// What a library operation gives back.
pub enum LibraryAnswer {
    Found,
    Docs(DocSet),
    Values(Value),
    Symbol(starlark::values::OwnedFrozenValue),
}
