//! What yttcheck writes to disk, below every face: files written without
//! following a link the checkout holds (`disk::write`: reports, rendered
//! output, hooks, the store's pack), and the persistent results store
//! (`disk::store`, `--cache-dir`), which the command line, the daemon and
//! the editor can all hand to `app` as the check's `OutcomeStore`.

pub mod hooks;
pub mod output;
pub mod store;
pub mod write;
