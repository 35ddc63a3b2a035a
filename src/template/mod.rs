//! ytt's template language on starlark-rust: annotated YAML is compiled into a
//! Starlark program that rebuilds the document, then evaluated.
//!
//! Three parts, with one direction (`tests/it/architecture.rs` holds it):
//!
//! * [`compiler`] — annotated YAML -> a Starlark program and its node table;
//!   pure, and blind to the runtime;
//! * [`runtime`] — the node store the program builds documents in, values,
//!   budgets, errors and go-starlark's wording; it reads the compiler's model;
//! * the session that joins them: [`eval`] (sessions: options, limits, the
//!   print sink), [`cache`] (each file parsed and compiled once, shared by
//!   threads, and modules that no session can change evaluated once),
//!   `function` (a template evaluated again, called as a function compiled
//!   once) and [`loader`] (`load()` within the library tree and of `@ytt:`
//!   modules).

pub mod cache;
pub mod compiler;
pub mod eval;
mod function;
pub mod loader;
pub mod runtime;
pub mod setup;

pub use eval::{CompileCache, EvalOpts, EvalSession, Host};
pub use runtime::error::{multi_line_error, TemplateError, TemplateErrorKind};
