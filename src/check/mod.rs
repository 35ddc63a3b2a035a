//! `yttcheck check`: every library x environment pair of a plan, evaluated
//! in parallel, and the findings they produce.
//!
//! * [`finding`] — findings (the `diagnostics` model) and their de-duplication;
//! * [`from_errors`] — engine errors -> findings;
//! * [`runner`] — running the pairs, sharing each library's work;
//! * [`memo`] — what a long-lived process keeps between checks;
//! * [`progress`] — the progress bar.

pub mod finding;
pub mod from_errors;
pub mod memo;
pub mod policy;
pub mod progress;
pub mod runner;
mod stored;
pub mod suppress;
pub mod usage;

pub use finding::{dedupe, Finding, Location, Related, Severity};
pub use memo::Memo;
pub use runner::{library_schemas, run, run_with, CheckOptions, CheckResult, PairOutcome};
