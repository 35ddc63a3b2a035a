//! The data values pipeline: a library's schema and final data values, from
//! every source ytt accepts, in ytt's order.

pub mod envelope;
pub mod flags;
pub mod pipeline;
pub mod private_library;
pub mod schema_pipeline;

pub use envelope::{Envelope, LibRef};
pub use flags::DataValuesFlags;
pub use pipeline::{library_values, LibraryValues, ValuesError, ValuesErrorKind};
pub use private_library::{
    private_libraries, private_library_values, ParentEnvelopes, PrivateLibrary,
};
pub use schema_pipeline::{library_schema, LibrarySchema};
