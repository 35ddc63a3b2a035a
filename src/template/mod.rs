//! ytt's template language on starlark-rust: annotated YAML is compiled into a
//! Starlark program that rebuilds the document, then evaluated.
//!
//! * [`metas`] — what each `#@`/`#!` comment means;
//! * [`compile`] — annotated YAML -> ytt-dialect code and a node table;
//! * [`literal`] — annotation arguments that are literals, evaluated once;
//! * [`blocks`] — ytt's `end`-closed blocks -> indented Starlark;
//! * [`text`] — text templates (`(@= x @)`), in `.txt` files and YAML strings;
//! * [`runtime`] — the instructions that build nodes while the program runs;
//! * [`eval`] — sessions: evaluation options, limits and the print sink;
//! * [`cache`] — parsing and compiling each file once, shared by threads;
//! * [`loader`] — `load()` within the library tree and of `@ytt:` modules;
//! * [`guard`] — budgets that stop hostile templates;
//! * [`convert`], [`values`] — Starlark <-> YAML values;
//! * [`error`] — errors with template positions, worded as ytt words them;
//! * [`go`] — go-starlark's names and texts for starlark-rust values and errors.

pub mod blocks;
pub mod cache;
pub mod compile;
pub mod convert;
pub mod error;
pub mod eval;
mod function;
pub mod go;
pub mod guard;
pub mod literal;
pub mod loader;
pub mod metas;
pub mod runtime;
pub mod text;
pub mod values;

pub use error::{multi_line_error, TemplateError, TemplateErrorKind};
pub use eval::{CompileCache, EvalOpts, EvalSession, Host};
