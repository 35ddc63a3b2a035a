//! Data values documents with their destination library.
//!
//! A data values document is for the library it is in, unless it says
//! otherwise: `#@library/ref "@app"` (or a `@app:` prefix on a flag) sends it to
//! private library `app`; `@app@db` to library `db` inside `app`; `@~inst` to
//! the instance of a library that `library.get(..., alias="inst")` created.

use crate::yaml::{AnnValue, Document};

pub const ANN_DATA_VALUES: &str = "data/values";
pub const ANN_DATA_VALUES_SCHEMA: &str = "data/values-schema";
pub const ANN_LIBRARY_REF: &str = "library/ref";

/// One step of a library reference: `path~alias`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LibRef {
    pub path: String,
    pub alias: String,
}

impl LibRef {
    /// ytt's `Matches`: paths must match, and aliases when given.
    pub fn matches(&self, other: &LibRef) -> bool {
        let path_match = self.path == other.path;
        if self.alias.is_empty() {
            return path_match;
        }
        let alias_match = self.alias == other.alias;
        if self.path.is_empty() {
            return alias_match;
        }
        alias_match && path_match
    }

    pub fn as_string(&self) -> String {
        if self.alias.is_empty() {
            self.path.clone()
        } else {
            format!("{}~{}", self.path, self.alias)
        }
    }
}

/// Parses `@path[~alias][@path...]`.
pub fn parse_lib_ref(s: &str) -> Result<Vec<LibRef>, String> {
    if s.is_empty() {
        return Err("Expected library ref to not be empty".to_string());
    }
    let Some(rest) = s.strip_prefix('@') else {
        return Err("Expected library ref to start with '@'".to_string());
    };
    let mut out = Vec::new();
    for piece in rest.split('@') {
        let parts: Vec<&str> = piece.split('~').collect();
        match parts.len() {
            1 => out.push(LibRef {
                path: parts[0].to_string(),
                alias: String::new(),
            }),
            2 => {
                if parts[1].is_empty() {
                    return Err("Expected library alias to not be empty".to_string());
                }
                out.push(LibRef {
                    path: parts[0].to_string(),
                    alias: parts[1].to_string(),
                });
            }
            _ => {
                return Err(format!(
                    "Expected library ref to have form: '@path', '@~alias', or '@path~alias', got: '{s}'"
                ))
            }
        }
    }
    Ok(out)
}

fn ann_str(v: &AnnValue) -> Option<String> {
    match v {
        AnnValue::Str(s) => Some(s.clone()),
        AnnValue::Frozen(f) => f.unpack_str().map(|s| s.to_string()),
        _ => None,
    }
}

fn ann_bool(v: &AnnValue) -> Option<bool> {
    match v {
        AnnValue::Bool(b) => Some(*b),
        AnnValue::Frozen(f) => f.unpack_bool(),
        _ => None,
    }
}

fn ann_type(v: &AnnValue) -> String {
    match v {
        AnnValue::None => "starlark.NoneType".into(),
        AnnValue::Bool(_) => "starlark.Bool".into(),
        AnnValue::Int(_) => "starlark.Int".into(),
        AnnValue::Str(_) => "starlark.String".into(),
        AnnValue::Frozen(f) => crate::template::runtime::go::go_type_name(f.value()),
        AnnValue::Live(_) => "value".into(),
    }
}

/// A data values document and where it goes.
#[derive(Debug, Clone)]
pub struct Envelope {
    pub doc: Document,
    pub after_library_module: bool,
    pub lib_ref: Vec<LibRef>,
    pub original_ref: Vec<LibRef>,
    /// Set once a library took this envelope (shared by clones: a clone is
    /// the same envelope; [`Envelope::used_in_library`] makes a new one).
    pub used: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl Envelope {
    /// Whether a library has taken this envelope.
    pub fn is_used(&self) -> bool {
        self.used.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// ytt's `UsedInLibrary`: the envelope as library `expected` sees it (one
    /// step of its `@library/ref` path consumed), marking it used; `None`
    /// when it is addressed to another library.
    pub fn used_in_library(&self, expected: &LibRef) -> Option<Envelope> {
        let mut copy = if self.lib_ref.is_empty() {
            self.clone()
        } else {
            self.for_child(expected)?
        };
        self.used.store(true, std::sync::atomic::Ordering::Relaxed);
        copy.used = Default::default();
        Some(copy)
    }

    /// From a document, reading `@library/ref` and `@data/values` kwargs.
    pub fn new(doc: Document) -> Result<Envelope, String> {
        let (lib_ref, after) = parse_annotations(&doc, ANN_DATA_VALUES)?;
        Ok(Envelope {
            doc,
            after_library_module: after,
            original_ref: lib_ref.clone(),
            lib_ref,
            used: Default::default(),
        })
    }

    /// From a document sent to `lib_ref` by a flag prefix (`@lib:`).
    pub fn with_lib_ref(doc: Document, lib_ref: &str) -> Result<Envelope, String> {
        if lib_ref.is_empty() {
            return Envelope::new(doc);
        }
        let refs = parse_lib_ref(lib_ref)?;
        let (_, after) = parse_annotations(&doc, ANN_DATA_VALUES)?;
        Ok(Envelope {
            doc,
            after_library_module: after,
            original_ref: refs.clone(),
            lib_ref: refs,
            used: Default::default(),
        })
    }

    pub fn intended_for_another_library(&self) -> bool {
        !self.lib_ref.is_empty()
    }

    /// The envelope as seen by library `expected` (one step closer), or `None`
    /// when it is not for that library.
    pub fn for_child(&self, expected: &LibRef) -> Option<Envelope> {
        let first = self.lib_ref.first()?;
        if !first.matches(expected) {
            return None;
        }
        let mut e = self.clone();
        e.lib_ref.remove(0);
        Some(e)
    }

    /// ytt's description of an envelope (for "unused" messages).
    pub fn describe(&self) -> String {
        self.describe_as("Data Value")
    }

    /// ytt's description of a schema envelope.
    pub fn describe_schema(&self) -> String {
        self.describe_as("Schema")
    }

    fn describe_as(&self, what: &str) -> String {
        let desc: Vec<String> = self.original_ref.iter().map(|r| r.as_string()).collect();
        format!(
            "{what} belonging to library '@{}' on {}",
            desc.join("@"),
            self.doc.pos.as_line_string()
        )
    }
}

/// Reads `@library/ref` and the `after_library_module` kwarg of `ann_name`.
pub fn parse_annotations(doc: &Document, ann_name: &str) -> Result<(Vec<LibRef>, bool), String> {
    let mut lib_ref = Vec::new();
    if let Some(ann) = doc.meta.annotation(ANN_LIBRARY_REF) {
        if ann.args.len() != 1 {
            return Err(format!(
                "Expected {ANN_LIBRARY_REF} annotation to have one arg, got {}",
                ann.args.len()
            ));
        }
        let s = ann_str(&ann.args[0])
            .ok_or_else(|| format!("expected a string, but was {}", ann_type(&ann.args[0])))?;
        lib_ref = parse_lib_ref(&s).map_err(|e| format!("Annotation {ANN_LIBRARY_REF}: {e}"))?;
    }
    let mut after = false;
    if let Some(ann) = doc.meta.annotation(ann_name) {
        for (k, v) in &ann.kwargs {
            match k.as_str() {
                "after_library_module" => {
                    after = ann_bool(v).ok_or_else(|| {
                        format!("expected starlark.Bool, but was {}", ann_type(v))
                    })?;
                    if lib_ref.is_empty() {
                        return Err(format!(
                            "Annotation {ann_name}: Expected kwarg 'after_library_module' to be used with {ANN_LIBRARY_REF} annotation"
                        ));
                    }
                }
                other => {
                    return Err(format!("Unknown kwarg {other} for annotation {ann_name}"));
                }
            }
        }
    }
    Ok((lib_ref, after))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lib_refs() {
        let r = parse_lib_ref("@app~inst@db").unwrap();
        assert_eq!(r.len(), 2);
        assert_eq!(r[0].alias, "inst");
        assert!(parse_lib_ref("app").is_err());
        assert!(parse_lib_ref("@app~").is_err());
        let want = LibRef {
            path: "app".into(),
            alias: "inst".into(),
        };
        assert!(LibRef {
            path: "".into(),
            alias: "inst".into()
        }
        .matches(&want));
        assert!(LibRef {
            path: "app".into(),
            alias: "".into()
        }
        .matches(&want));
    }
}
