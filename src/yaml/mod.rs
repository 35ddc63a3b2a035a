//! ytt's YAML model: parsing with positions and comments, scalar resolution,
//! the node tree, and the ytt-compatible printer.

mod comments;
mod events;
mod float;
mod goyaml;
mod input;
pub mod node;
pub mod parse;
pub mod pos;
pub mod print;
pub mod scalar;

pub use node::{
    push_key_path, AnnValue, Annotation, Array, ArrayItem, Comment, DocSet, Document, Map, MapItem,
    Meta, Shared, Value,
};
pub use pos::{Pos, SourceFile};
