//! A private library (`_ytt_lib/<name>/`) evaluated on its own, as
//! `library.get("<name>").data_values()` computes it in a template.
//!
//! `inspect` only prints the root library's values (as ytt does), but the
//! checker wants every library's values: a private library has its own schema
//! and validations, and the root sends it values with `#@library/ref "@name"`
//! documents and `@name:` flags. This module routes those values the way
//! ytt's `library.get` does:
//!
//! 1. schema documents addressed to the library are overlaid on its own
//!    schema; those addressed further down (`@name@inner`) are passed on;
//! 2. values addressed to it come after its own `@data/values` files, those
//!    marked `after_library_module=True` last;
//! 3. values and schemas for its own private libraries are handed back for
//!    the next level, parent's after the library's own.
//!
//! `check` runs it for each private library of a pair; rendering runs it
//! for `library.get(...)`, adding what the template passes with
//! `.with_data_values(...)`.

use crate::files::{DirId, LibraryCtx};
use crate::template::eval::EvalSession;

use super::envelope::{Envelope, LibRef};
use super::pipeline::{library_values, LibraryValues, ValuesError};
use super::schema_pipeline::{library_schema, LibrarySchema};

/// The schema and final values of one private library, and what it passes on
/// to its own private libraries.
pub struct PrivateLibrary {
    /// Its path under the parent's `_ytt_lib` (`app`, or `app/inner`).
    pub name: String,
    pub ctx: LibraryCtx,
    pub schema: LibrarySchema,
    pub values: LibraryValues,
    /// Values addressed to libraries inside this one.
    pub values_for_libraries: Vec<Envelope>,
    /// Schemas addressed to libraries inside this one.
    pub schemas_for_libraries: Vec<Envelope>,
}

/// Values addressed by a parent library to its private libraries.
#[derive(Debug, Clone, Default)]
pub struct ParentEnvelopes {
    pub values: Vec<Envelope>,
    pub schemas: Vec<Envelope>,
}

/// The private libraries directly available to `parent` (`_ytt_lib/*`, nested
/// paths included), by name.
pub fn private_libraries(session: &EvalSession, parent: LibraryCtx) -> Vec<(String, DirId)> {
    session.tree.private_libraries(parent.current)
}

/// Evaluates private library `me` (its path under `parent`'s `_ytt_lib`,
/// and alias) with what the parent sends it, marking what it takes as used
/// (ytt's `UsedInLibrary`).
pub fn private_library_values(
    session: &EvalSession,
    parent: LibraryCtx,
    me: &LibRef,
    from_parent: &ParentEnvelopes,
    skip_validation: bool,
) -> Result<PrivateLibrary, ValuesError> {
    let dir = session
        .tree
        .find_accessible_library(parent.current, &me.path)
        .map_err(|e| ValuesError::other(e, None))?;
    let ctx = LibraryCtx {
        current: dir,
        root: dir,
    };

    let (mut schemas_here, mut schemas_below) = (Vec::new(), Vec::new());
    for env in &from_parent.schemas {
        if let Some(copy) = env.used_in_library(me) {
            if copy.intended_for_another_library() {
                schemas_below.push(copy);
            } else {
                schemas_here.push(copy);
            }
        }
    }
    let schema = library_schema(session, ctx, &schemas_here)?;

    let (mut before, mut after, mut values_below) = (Vec::new(), Vec::new(), Vec::new());
    for env in &from_parent.values {
        let Some(copy) = env.used_in_library(me) else {
            continue;
        };
        if copy.intended_for_another_library() {
            values_below.push(copy);
        } else if copy.after_library_module {
            after.push(copy);
        } else {
            before.push(copy);
        }
    }
    before.extend(after);
    let values = library_values(session, ctx, &before, &schema.schema, skip_validation)?;

    let mut values_for_libraries = values.for_libraries.clone();
    values_for_libraries.extend(values_below);
    let mut schemas_for_libraries = schema.for_libraries.clone();
    schemas_for_libraries.extend(schemas_below);
    Ok(PrivateLibrary {
        name: me.path.clone(),
        ctx,
        schema,
        values,
        values_for_libraries,
        schemas_for_libraries,
    })
}
