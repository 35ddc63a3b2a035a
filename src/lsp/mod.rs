//! `yttcheck lsp`: the checker as a language server (LSP 3.17 over stdio).
//!
//! The third face of the application layer, beside the command line and the
//! daemon: it checks a workspace folder with `app::check::run`, reading the
//! editor's unsaved buffers over the work tree (`app::SourceOptions::buffers`),
//! and publishes every finding `check` would report as diagnostics of the
//! file it is about: open or not, and cleared when fixed. What it keeps
//! between checks is the daemon's memo, so an edit re-evaluates only the
//! pairs that read the edited file.
//!
//! JSON-RPC framing is `lsp-server`'s (rust-analyzer's): a synchronous
//! loop over a channel, which fits a server whose work is one check at a
//! time (the check itself runs on the memo's worker threads); the types are
//! `lsp-types`'. Nothing is written to stdout but the protocol: messages go
//! to the client's log (`window/logMessage`).

pub mod actions;
pub mod annotations;
pub mod completion;
pub mod diagnostics;
pub mod hover;
pub mod references;
mod server;
pub mod symbols;
pub mod uri;
mod watch;

pub use server::serve;
