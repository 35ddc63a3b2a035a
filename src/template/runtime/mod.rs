//! The runtime: what runs a compiled program. The node store that the
//! program's instructions build documents in ([`nodes`]), Starlark <-> YAML
//! values ([`convert`], [`values`]: with `data.values`' read log), budgets
//! that stop hostile templates ([`guard`]), errors with template positions
//! worded as ytt words them ([`error`]), and go-starlark's names and texts
//! for starlark-rust's values and errors ([`go`]). It reads the compiler's
//! model (`compiler::nodes`), never the other way round.

pub mod convert;
pub mod error;
pub mod go;
pub mod guard;
pub mod host;
pub mod nodes;
pub mod values;

pub use nodes::*;
