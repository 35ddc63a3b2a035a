//! The application: what a user asks of yttcheck (check a repository, diff
//! two revisions, plan its pairs), answered as typed values.
//!
//! The command line, the daemon and the language server are its faces: each
//! turns its own input (flags, a socket request, an editor's buffers) into a
//! request of this module and presents the answer in its own way. Nothing
//! here prints, exits, parses flags or reads the process's environment (the
//! current folder is given as `cwd`), so a check asked by the daemon is the
//! check the command line runs, byte for byte.

pub mod budget;
pub mod check;
pub mod ci;
pub mod comment;
pub mod derived;
pub mod diff;
pub mod docs;
pub mod inspect;
pub mod kubernetes;
pub mod plan;
pub mod rendered;
pub mod source;
pub mod verdict;
pub mod ytt;

pub use budget::Budget;
pub use check::{Answer, CheckRequest, Warm};
pub use plan::load_plan;
pub use source::{open_source, Opened, Selection, Source, SourceOptions};

/// A usage or configuration problem (an unknown library, an unreadable
/// baseline, a revision git does not know): exit status 2, with a message
/// that says what to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsageError(pub String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<crate::source::git::GitError> for UsageError {
    fn from(e: crate::source::git::GitError) -> UsageError {
        UsageError(e.0)
    }
}
