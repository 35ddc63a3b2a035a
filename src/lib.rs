//! yttcheck: a fast, git-aware checker for Carvel ytt configuration.
//!
//! Data flows one way: files -> snapshot -> library/environment plan -> engine
//! -> findings -> reports. The engine (`yaml`, `template`, `overlay`, `values`,
//! `schema`, `validation`, `render`) knows nothing of git, terminals or reports.

pub mod app;
pub mod assertions;
pub mod check;
pub mod cli;
pub mod daemon;
pub mod diagnostics;
pub mod diff;
pub mod disk;
pub mod escape;
pub mod fetch;
pub mod files;
pub mod gocompat;
pub mod kubernetes;
pub mod lsp;
pub mod overlay;
pub mod post;
pub mod render;
pub mod report;
pub mod schema;
pub mod secrets;
pub mod source;
pub mod template;
pub mod validation;
pub mod values;
pub mod workspace;
pub mod yaml;
pub mod ytt;
