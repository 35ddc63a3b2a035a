//! Completion of annotations: ytt's annotation names after `#@` (each with
//! its arguments in words), and the named rules inside
//! `@schema/validation` and `@assert/validate` (`min_len=`, `one_of=`, ...).

use lsp_types::{CompletionItem, CompletionItemKind, Documentation, MarkupContent, MarkupKind};

use crate::template::compiler::metas::KNOWN_ANNOTATIONS;

/// Where in an annotation the cursor is.
#[derive(Debug, PartialEq, Eq)]
pub enum Place {
    /// After `#@`, writing the name.
    Name,
    /// In the arguments of a validation annotation, writing a keyword.
    Rule,
}

/// The place of the cursor, from the text of its line before it.
pub fn place(before: &str) -> Option<Place> {
    let rest = before.trim_start().strip_prefix("#@")?.trim_start();
    let name_end = rest.find([' ', '(']).unwrap_or(rest.len());
    let (name, args) = rest.split_at(name_end);
    if args.is_empty() {
        return name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '/' | '-' | '_'))
            .then_some(Place::Name);
    }
    if !matches!(name, "schema/validation" | "assert/validate") {
        return None;
    }
    // a keyword is being written: after a space, `(` or `,`, outside a string
    let quotes = args.chars().filter(|&c| c == '"').count();
    // (after the last character that is not of a word: a boundary, however
    // wide that character is)
    let word_start = args
        .char_indices()
        .rev()
        .find(|&(_, c)| !(c.is_ascii_alphanumeric() || c == '_'))
        .map_or(0, |(i, c)| i + c.len_utf8());
    let before_word = args[..word_start].trim_end();
    let after_separator =
        before_word.is_empty() || before_word.ends_with(',') || before_word.ends_with('(');
    (quotes % 2 == 0 && after_separator).then_some(Place::Rule)
}

/// What each annotation takes, in words (shown beside its name).
fn annotation_doc(name: &str) -> &'static str {
    match name {
        "data/values" => "A data values document (`#@data/values`; `after_library_module=True` to apply after library modules).",
        "data/values-schema" => "The schema document of data values.",
        "library/ref" => "Addresses a private library: `#@library/ref \"@name\"`.",
        "schema/nullable" => "The value may be null; its default is null.",
        "schema/type" => "`any=True`: the value may be of any type.",
        "schema/default" => "The default, when it differs from the value written: `#@schema/default [1, 2]`.",
        "schema/desc" => "A description: `#@schema/desc \"...\"`.",
        "schema/title" => "A title: `#@schema/title \"...\"`.",
        "schema/examples" => "Examples: `#@schema/examples (\"description\", value), ...`.",
        "schema/deprecated" => "Deprecated, with a notice: `#@schema/deprecated \"use x\"`.",
        "schema/validation" => "Rules on the value: `min=`, `max=`, `min_len=`, `max_len=`, `one_of=`, `format=`, `not_null=`, `one_not_null=`, `when=`, `when_null_skip=`, or `(\"description\", lambda v: ...)`.",
        "schema/removed" => "A value that no longer exists (a yttcheck extension): setting it is reported.",
        "schema/validation-defaults-for-strings" => "Default rules for the strings below.",
        "assert/validate" => "Rules on a node: `(\"description\", lambda v: ...)` and the named rules of `@schema/validation`.",
        "overlay/merge" => "Merge into the matched node (the default).",
        "overlay/remove" => "Remove the matched node.",
        "overlay/replace" => "Replace the matched node: `via=lambda left, right: ...`, `or_add=True`.",
        "overlay/insert" => "Insert an array item: `before=True` or `after=True`.",
        "overlay/append" => "Append an array item.",
        "overlay/assert" => "Assert on the matched node: `via=lambda left, right: ...`.",
        "overlay/match" => "Which nodes to match: `by=overlay.subset({...})`, `expects=`, `missing_ok=True`, `when=`.",
        "overlay/match-child-defaults" => "Defaults for the children's matches: `expects=`, `missing_ok=True`.",
        "yaml/map-key-override" => "Allow a key to be given twice (the last wins).",
        "yaml/text-templated-strings" => "Evaluate `(@= ... @)` in the node's key and string values.",
        "text/trim-left" => "Trim whitespace left of a text template's code.",
        "text/trim-right" => "Trim whitespace right of a text template's code.",
        "template/code" => "Starlark code (`#@ ...`), written as an annotation.",
        "template/value" => "A node's value from Starlark.",
        _ => "",
    }
}

/// The named rules of ytt's validations, with what they take.
const RULES: &[(&str, &str)] = &[
    ("min", "`min=N`: at least N"),
    ("max", "`max=N`: at most N"),
    ("min_len", "`min_len=N`: at least N characters or items"),
    ("max_len", "`max_len=N`: at most N characters or items"),
    ("one_of", "`one_of=[...]`: one of these values"),
    (
        "format",
        "`format=\"...\"`: a format (`ip`, `hostname`, `uuid`, ...)",
    ),
    ("not_null", "`not_null=True`: the value must not be null"),
    (
        "one_not_null",
        "`one_not_null=[...]` (or `True`): exactly one of these keys is not null",
    ),
    (
        "when",
        "`when=lambda v: ...`: the rules apply only when this holds",
    ),
    (
        "when_null_skip",
        "`when_null_skip=True`: no rule applies to a null value",
    ),
];

/// The completion items of a place.
pub fn items(place: &Place) -> Vec<CompletionItem> {
    let doc = |text: &str| {
        Some(Documentation::MarkupContent(MarkupContent {
            kind: MarkupKind::Markdown,
            value: text.to_string(),
        }))
    };
    match place {
        Place::Name => KNOWN_ANNOTATIONS
            .iter()
            .map(|name| CompletionItem {
                label: (*name).to_string(),
                kind: Some(CompletionItemKind::KEYWORD),
                detail: Some("ytt annotation".into()),
                documentation: doc(annotation_doc(name)),
                ..CompletionItem::default()
            })
            .collect(),
        Place::Rule => RULES
            .iter()
            .map(|(name, what)| CompletionItem {
                label: (*name).to_string(),
                kind: Some(CompletionItemKind::PROPERTY),
                detail: Some("validation rule".into()),
                documentation: doc(what),
                insert_text: Some(format!("{name}=")),
                ..CompletionItem::default()
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_place_in_an_annotation() {
        assert_eq!(place("#@"), Some(Place::Name));
        assert_eq!(place("  #@schema/va"), Some(Place::Name));
        assert_eq!(place("#@schema/validation "), Some(Place::Rule));
        assert_eq!(place("#@schema/validation min=1, max_"), Some(Place::Rule));
        assert_eq!(
            place("#@assert/validate (\"a\", lambda v: v), mi"),
            Some(Place::Rule)
        );
        // inside a string, or a value being written, or another annotation
        assert_eq!(place("#@schema/validation (\"at le"), None);
        assert_eq!(place("#@schema/validation min=1"), None);
        assert_eq!(place("#@schema/desc \"x"), None);
        assert_eq!(place("#@ data.values.x"), None);
        assert_eq!(place("key: 1"), None);
        // a value being written, of characters wider than a byte
        assert_eq!(place("#@schema/validation min_len=😀"), None);
        assert_eq!(place("#@schema/validation min_len=1, é"), None);
        assert_eq!(place("#@schema/validation min_len=1, 😀 max"), None);
        assert_eq!(
            place("#@schema/validation (\"😀\", lambda v: v), ma"),
            Some(Place::Rule)
        );
    }

    #[test]
    fn every_annotation_is_described() {
        for name in KNOWN_ANNOTATIONS {
            assert!(!annotation_doc(name).is_empty(), "{name}");
        }
        assert!(items(&Place::Name)
            .iter()
            .any(|i| i.label == "schema/validation"));
        assert!(items(&Place::Rule)
            .iter()
            .any(|i| i.insert_text.as_deref() == Some("min_len=")));
    }
}
