//! The compiler: annotated YAML -> a ytt-dialect Starlark program and its
//! node table. Pure: it parses nothing but what it is given, evaluates
//! nothing (literal annotation arguments are read by starlark's parser,
//! never run), and knows nothing of the runtime that will run the program.
//!
//! * [`metas`] — what each `#@`/`#!` comment means;
//! * [`comments`] — every comment of a template, read once;
//! * [`program`] — annotated YAML -> ytt-dialect code and a node table;
//! * [`nodes`] — the program's model, shared with the runtime: the node
//!   table, code lines with positions, the instructions' names;
//! * [`literal`] — annotation arguments that are literals, evaluated once;
//! * [`blocks`] — ytt's `end`-closed blocks -> indented Starlark, over the
//!   logical lines `lines` scans;
//! * [`text`] — text templates (`(@= x @)`), in `.txt` files and YAML strings;
//! * [`limits`] — the size-checked `*` and the nesting limit of expressions.

pub mod blocks;
pub mod comments;
pub mod limits;
mod lines;
pub mod literal;
pub mod metas;
pub mod nodes;
pub mod program;
pub mod text;

pub use comments::has_templating;
pub use nodes::*;
pub use program::compile;

use starlark::syntax::{Dialect, DialectTypes};

/// The Starlark dialect of ytt: top-level `if`/`for`, lambdas, nested defs,
/// no f-strings, no type annotations.
pub fn dialect() -> Dialect {
    Dialect {
        enable_def: true,
        enable_lambda: true,
        enable_load: true,
        enable_keyword_only_arguments: false,
        enable_types: DialectTypes::Disable,
        enable_load_reexport: true,
        enable_top_level_stmt: true,
        enable_f_strings: false,
        ..Dialect::Standard
    }
}
