//! `yttcheck check`: every library x environment pair of a plan, evaluated
//! in parallel, and the findings they produce.
//!
//! * [`finding`] — findings (the `diagnostics` model) and their de-duplication;
//! * [`from_errors`] — engine errors -> findings;
//! * [`outcome`] — what a check is asked and what it answers;
//! * [`schedule`] — running the pairs in parallel, and the findings about the
//!   whole run;
//! * [`runner`] — a library's shared start and one pair's steps;
//! * `inputs` — files read as the engine's input files;
//! * [`memo`] — what is kept between checks (a daemon's memory, the
//!   persistent store), under content keys;
//! * [`usage`], [`policy`] — what templates read, and the policies of
//!   `.yttcheck.yml`;
//! * [`progress`] — the progress bar.

pub mod finding;
pub mod from_errors;
mod inputs;
pub mod kubernetes;
pub mod memo;
pub mod outcome;
pub mod package;
pub mod policy;
pub mod progress;
pub mod runner;
pub mod schedule;
mod stored;
pub mod suppress;
pub mod usage;

pub use finding::{dedupe, Finding, Location, Related, Severity};
pub use memo::Memo;
pub use outcome::{CheckOptions, CheckResult, PairOutcome};
pub use runner::{library_schemas, library_schemas_of};
pub use schedule::{run, run_with};
