//! `yttcheck lsp`: the checker as a language server (LSP 3.17 over stdio).
//!
//! The third face of the application layer, beside the command line and the
//! daemon: it checks a workspace folder with `app::check::run`, reading the
//! editor's unsaved buffers over the work tree (`app::SourceOptions::buffers`),
//! and publishes every finding `check` would report as diagnostics of the
//! file it is about: open or not, and cleared when fixed. What it keeps
//! between checks is the daemon's memo (keeping, too, the pairs whose budget
//! ran out), so an edit re-evaluates only the pairs that read the edited
//! file.
//!
//! JSON-RPC framing is `lsp-server`'s (rust-analyzer's) `Message::read` and
//! `Message::write`, read through a bounded reader of our own
//! (`lsp::frame`: a frame over 64 MiB is refused before anything is
//! allocated for it, and input that is no message is answered with a parse
//! error while the server goes on); the types are `lsp-types`'. Requests are
//! answered on one loop, in order; checks run on a worker thread
//! (`lsp::worker`), a newer check superseding an older one, so a slow or
//! looping template never holds up hover, completion or symbols. Nothing is
//! written to stdout but the protocol: messages go to the client's log
//! (`window/logMessage`).
//!
//! A repository opened in the editor is not trusted: until the user says
//! so (`trustWorkspace`), nothing its configuration names is fetched over
//! the network, and its `budget:` may shorten evaluations, not lengthen
//! them beyond the default.

pub mod actions;
pub mod annotations;
pub mod completion;
pub mod diagnostics;
pub mod frame;
pub mod hover;
pub mod position;
pub mod references;
mod server;
pub mod symbols;
mod transport;
pub mod uri;
mod watch;
mod worker;

pub use server::serve;
