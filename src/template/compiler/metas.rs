//! What a comment means in a ytt template.
//!
//! * `#! text` is a comment;
//! * `#@ code` above a node is Starlark code, on the node's own line it is the
//!   node's value (`key: #@ expr`);
//! * `#@name args` is an annotation on the node below (`#@overlay/match by=...`);
//! * `#@if/end cond:` (and `for/end`, `def/end`, `else/end`, `elif/end`) is code
//!   whose block ends right after the node;
//! * any other `#` comment is an error in a template (ytt's rule, unless
//!   `--ignore-unknown-comments`).

use crate::yaml::{Comment, Pos};

pub const ANN_CODE: &str = "template/code";
pub const ANN_VALUE: &str = "template/value";
pub const ANN_COMMENT: &str = "comment";

/// A comment, classified.
#[derive(Debug, Clone, PartialEq)]
pub enum MetaKind {
    Comment,
    Code(String),
    Value(String),
    Annotation { name: String, content: String },
}

/// Why a comment could not be read.
#[derive(Debug, Clone)]
pub struct MetaError {
    pub pos: Pos,
    pub message: String,
}

/// Classifies `comment`, attached to a node at `node_pos`.
pub fn classify(
    comment: &Comment,
    node_pos: &Pos,
    ignore_unknown: bool,
) -> Result<MetaKind, MetaError> {
    let data = comment.data.as_str();
    if let Some(rest) = data.strip_prefix('!') {
        let _ = rest;
        return Ok(MetaKind::Comment);
    }
    if let Some(rest) = data.strip_prefix('@') {
        let (name, content) = match rest.split_once(' ') {
            Some((n, c)) => (n, c),
            None => (rest, ""),
        };
        if name.is_empty() {
            let same_line = node_pos.is_known() && comment.pos.line() == node_pos.line();
            return Ok(if same_line {
                MetaKind::Value(content.to_string())
            } else {
                MetaKind::Code(content.to_string())
            });
        }
        return Ok(match name {
            ANN_CODE => MetaKind::Code(content.to_string()),
            ANN_VALUE => MetaKind::Value(content.to_string()),
            ANN_COMMENT => MetaKind::Comment,
            _ => MetaKind::Annotation {
                name: name.to_string(),
                content: content.to_string(),
            },
        });
    }
    if ignore_unknown {
        return Ok(MetaKind::Comment);
    }
    Err(MetaError {
        pos: comment.pos.clone(),
        message: format!(
            "Failed to parse line {}: '#{}': Expected ytt-formatted string (use '#@' for annotations or code, '#!' for comments)",
            if comment.pos.is_known() {
                comment.pos.line().to_string()
            } else {
                "?".to_string()
            },
            data
        ),
    })
}

/// Whether a node's comments make its file a template (anything but `#!`/plain
/// comments). Plain YAML files skip templating entirely, as in ytt.
pub fn is_templating(comment: &Comment) -> bool {
    comment.data.starts_with('@')
        && !matches!(
            classify(comment, &Pos::unknown(), true),
            Ok(MetaKind::Comment)
        )
}

/// ytt's refusal of annotations where plain YAML merges.
pub const PLAIN_YAML_EXPECTED: &str =
    "Expected to be plain YAML, having no annotations (hint: remove comments starting with `#@`)";

/// ytt's `HasTemplating`: a node below carries an annotation, either still
/// as a `#@` comment (a file) or evaluated (a fragment a template built keeps
/// `@overlay/...`, `@schema/...`, `@yaml/text-templated-strings`, while its
/// code annotations are gone).
pub fn value_has_templating(v: &crate::yaml::Value) -> bool {
    let annotated = |meta: &crate::yaml::Meta| {
        !meta.annotations.is_empty() || meta.comments.iter().any(is_templating)
    };
    match v {
        crate::yaml::Value::Map(m) => m
            .items
            .iter()
            .any(|i| annotated(&i.meta) || value_has_templating(&i.value)),
        crate::yaml::Value::Array(a) => a
            .items
            .iter()
            .any(|i| annotated(&i.meta) || value_has_templating(&i.value)),
        _ => false,
    }
}

/// The annotation namespaces ytt itself defines. An unknown name inside one of
/// them (`@schema/nullabel`) is almost surely a typo: ytt ignores it silently,
/// yttcheck reports it.
pub const KNOWN_ANNOTATIONS: &[&str] = &[
    "data/values",
    "data/values-schema",
    "library/ref",
    "schema/nullable",
    "schema/type",
    "schema/default",
    "schema/desc",
    "schema/title",
    "schema/examples",
    "schema/deprecated",
    "schema/validation",
    "schema/removed",
    "schema/validation-defaults-for-strings",
    "assert/validate",
    "overlay/merge",
    "overlay/remove",
    "overlay/replace",
    "overlay/insert",
    "overlay/append",
    "overlay/assert",
    "overlay/match",
    "overlay/match-child-defaults",
    "yaml/map-key-override",
    "yaml/text-templated-strings",
    "text/trim-left",
    "text/trim-right",
    "template/code",
    "template/value",
];

const KNOWN_NAMESPACES: &[&str] = &[
    "data/",
    "library/",
    "schema/",
    "assert/",
    "overlay/",
    "yaml/",
    "text/",
    "template/",
];

/// `Some(suggestion)` when `name` is in a ytt namespace but is not a ytt annotation.
pub fn unknown_in_known_namespace(name: &str) -> Option<Option<&'static str>> {
    if !KNOWN_NAMESPACES.iter().any(|ns| name.starts_with(ns)) {
        return None;
    }
    if KNOWN_ANNOTATIONS.contains(&name) {
        return None;
    }
    let best = KNOWN_ANNOTATIONS
        .iter()
        .map(|k| (strsim(name, k), *k))
        .filter(|(d, _)| *d <= 3)
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k);
    Some(best)
}

/// An annotation in one of ytt's namespaces that ytt does not know: ytt keeps
/// and ignores it, so whatever its author meant does not happen.
#[derive(Debug, Clone)]
pub struct UnknownAnnotation {
    pub name: String,
    pub pos: Pos,
    /// The closest annotation ytt knows, when one is close.
    pub suggestion: Option<&'static str>,
}

/// Every annotation of a parsed file (name and comment position), in
/// source order. Walks the comments attached to every node, as the template
/// compiler reads them.
fn annotations(ds: &crate::yaml::DocSet) -> Vec<(String, Pos)> {
    use crate::yaml::Value;
    fn meta(m: &crate::yaml::Meta, out: &mut Vec<(String, Pos)>) {
        for c in &m.comments {
            if let Ok(MetaKind::Annotation { name, .. }) = classify(c, &Pos::unknown(), true) {
                out.push((name, c.pos.clone()));
            }
        }
    }
    fn value(v: &Value, out: &mut Vec<(String, Pos)>) {
        match v {
            Value::Map(m) => {
                meta(&m.meta, out);
                for item in &m.items {
                    meta(&item.meta, out);
                    value(&item.value, out);
                }
            }
            Value::Array(a) => {
                meta(&a.meta, out);
                for item in &a.items {
                    meta(&item.meta, out);
                    value(&item.value, out);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    meta(&ds.meta, &mut out);
    for d in &ds.docs {
        meta(&d.meta, &mut out);
        value(&d.value, &mut out);
    }
    out.sort_by_key(|(name, pos)| (pos.line(), pos.col(), name.clone()));
    out.dedup_by(|a, b| (a.1.line(), a.1.col(), &a.0) == (b.1.line(), b.1.col(), &b.0));
    out
}

/// Every unknown annotation of a parsed file, in source order.
pub fn unknown_annotations(ds: &crate::yaml::DocSet) -> Vec<UnknownAnnotation> {
    annotations(ds)
        .into_iter()
        .filter_map(|(name, pos)| {
            let suggestion = unknown_in_known_namespace(&name)?;
            Some(UnknownAnnotation {
                name,
                pos,
                suggestion,
            })
        })
        .collect()
}

/// Annotations whose name looks like code (`#@data.values.x`, `#@str(x)`):
/// a `#@` comment written without the space that makes it code. ytt reads
/// them as annotations and ignores them (carvel-dev/ytt#621). Returns the
/// name and the comment's position.
pub fn code_like_annotations(ds: &crate::yaml::DocSet) -> Vec<(String, Pos)> {
    annotations(ds)
        .into_iter()
        .filter(|(name, _)| looks_like_code(name))
        .collect()
}

/// The annotation a code-like name means when it is a known annotation
/// with `.` for `/` (`overlay.remove` -> `overlay/remove`).
pub fn annotation_meant(name: &str) -> Option<String> {
    let (ns, rest) = name.split_once('.')?;
    let candidate = format!("{ns}/{rest}");
    KNOWN_ANNOTATIONS
        .contains(&candidate.as_str())
        .then_some(candidate)
}

/// A name with call, index, string or operator syntax, or a dotted name
/// outside any `namespace/` (annotation names are `namespace/name`).
fn looks_like_code(name: &str) -> bool {
    name.contains(['(', ')', '[', ']', '{', '}', '"', '\'', '=', '+', '%'])
        || (name.contains('.') && !name.contains('/'))
}

/// Levenshtein distance, for "did you mean" hints.
pub fn strsim(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut cur = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            cur[j] = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::SourceFile;

    fn c(data: &str, line: u32) -> Comment {
        let src = SourceFile::new("t.yml", "x\ny\nz\n");
        Comment {
            data: data.to_string(),
            pos: Pos::new(&src, line, 1),
        }
    }

    #[test]
    fn classification() {
        let src = SourceFile::new("t.yml", "x\ny\nz\n");
        let node = Pos::new(&src, 2, 1);
        assert_eq!(
            classify(&c("! hi", 1), &node, false).unwrap(),
            MetaKind::Comment
        );
        assert_eq!(
            classify(&c("@ x = 1", 1), &node, false).unwrap(),
            MetaKind::Code("x = 1".into())
        );
        assert_eq!(
            classify(&c("@ x", 2), &node, false).unwrap(),
            MetaKind::Value("x".into())
        );
        assert_eq!(
            classify(&c("@overlay/match by=1", 1), &node, false).unwrap(),
            MetaKind::Annotation {
                name: "overlay/match".into(),
                content: "by=1".into()
            }
        );
        assert_eq!(
            classify(&c("@data/values", 1), &node, false).unwrap(),
            MetaKind::Annotation {
                name: "data/values".into(),
                content: "".into()
            }
        );
        let err = classify(&c(" plain", 3), &node, false).unwrap_err();
        assert!(
            err.message.contains("Failed to parse line 3"),
            "{}",
            err.message
        );
        assert_eq!(
            classify(&c(" plain", 3), &node, true).unwrap(),
            MetaKind::Comment
        );
    }

    #[test]
    fn typo_detection() {
        assert_eq!(
            unknown_in_known_namespace("schema/nullabel"),
            Some(Some("schema/nullable"))
        );
        assert_eq!(unknown_in_known_namespace("schema/nullable"), None);
        assert_eq!(unknown_in_known_namespace("mycompany/thing"), None);
    }
}
