//! The look discovery takes at a file's annotations: whether it holds a
//! `#@data/values-schema` or `#@data/values` document. A cheap scan of its
//! `#@` lines says no for almost every file of a repository; a yes is
//! confirmed by a parse, so that only what ytt reads as an annotation
//! counts (a `#@` line inside a block scalar is text).

use std::sync::Arc;

use crate::yaml::SourceFile;

/// Whether the parsed file has a comment naming each of `annotations`
/// (each `true` when the file does not parse: the check reports why).
fn parsed_annotations(file: &Arc<SourceFile>, annotations: &[&str]) -> Vec<bool> {
    // as the look does, past a byte order mark (see `for_each_annotation`)
    let unmarked;
    let file = match file.text().strip_prefix('\u{feff}') {
        Some(rest) => {
            unmarked = SourceFile::new(file.name(), rest);
            &unmarked
        }
        None => file,
    };
    let Ok(set) = crate::yaml::parse::parse(file, true) else {
        return vec![true; annotations.len()];
    };
    let mut found = vec![false; annotations.len()];
    let mut look = |meta: &crate::yaml::Meta| {
        for (i, a) in annotations.iter().enumerate() {
            found[i] |= meta_names(meta, a);
        }
    };
    fn walk(v: &crate::yaml::Value, look: &mut dyn FnMut(&crate::yaml::Meta)) {
        match v {
            crate::yaml::Value::Map(m) => m.items.iter().for_each(|i| {
                look(&i.meta);
                walk(&i.value, look);
            }),
            crate::yaml::Value::Array(a) => a.items.iter().for_each(|i| {
                look(&i.meta);
                walk(&i.value, look);
            }),
            _ => {}
        }
    }
    look(&set.meta);
    for d in &set.docs {
        look(&d.meta);
        walk(&d.value, &mut look);
    }
    found
}

/// Whether a node's comments hold `#@annotation`.
pub(super) fn meta_names(meta: &crate::yaml::Meta, annotation: &str) -> bool {
    meta.comments.iter().any(|c| {
        c.data
            .strip_prefix('@')
            .is_some_and(|rest| names(rest.trim_start(), annotation))
    })
}

/// Whether the text after an annotation line's `#@` names `annotation`
/// (and not a longer name that starts with it).
fn names(rest: &str, annotation: &str) -> bool {
    rest.starts_with(annotation)
        && !rest[annotation.len()..]
            .starts_with(|c: char| c.is_alphanumeric() || c == '-' || c == '/')
}

/// Whether a file has `#@data/values-schema` and `#@data/values` documents:
/// a cheap look at its `#@` lines, confirmed by a parse when it finds one
/// (a `#@data/values` line inside a block scalar, a Secret's embedded
/// config, is text to ytt, not an annotation). A file that does not parse
/// keeps the look's answer.
pub(super) fn values_marks(file: &Arc<SourceFile>) -> (bool, bool) {
    match scan_values_marks(file) {
        (false, false) => (false, false),
        (schema, values) => {
            let parsed = parsed_annotations(file, &["data/values-schema", "data/values"]);
            (schema && parsed[0], values && parsed[1])
        }
    }
}

fn scan_values_marks(file: &SourceFile) -> (bool, bool) {
    let (mut schema, mut values) = (false, false);
    for_each_annotation(file.text(), |rest| {
        schema |= names(rest, "data/values-schema");
        values |= names(rest, "data/values");
        schema && values
    });
    (schema, values)
}

/// Calls `f` with the text after `#@` (and spaces) of each line that
/// starts, after indentation, with `#@` — the lines
/// [`SourceFile::annotation_lines`] lists — until `f` says it is done.
/// Discovery asks this of every YAML file of the repository, and a schema
/// has dozens of `#@` lines: it jumps from `#` to `#` instead of listing
/// lines, and looks back from a `#` only over the spaces before it (so even
/// a long line of `#`s is read about once).
fn for_each_annotation(text: &str, mut f: impl FnMut(&str) -> bool) {
    // a byte order mark hides the first line's annotation from ytt, but
    // the file is still meant as a library (or values): discovery finds it,
    // and the check says what the mark does (`file/byte-order-mark`)
    let text = text.trim_start_matches('\u{feff}');
    let mut from = 0;
    while let Some(found) = text[from..].find('#') {
        let at = from + found;
        from = at + 1;
        if text.as_bytes().get(at + 1) != Some(&b'@') {
            continue;
        }
        // only indentation before it on its line
        let starts_line = text[..at]
            .chars()
            .rev()
            .find(|c| *c == '\n' || !c.is_whitespace())
            .is_none_or(|c| c == '\n');
        if !starts_line {
            continue;
        }
        let line_end = text[at..].find('\n').map_or(text.len(), |i| at + i);
        if f(text[at + 2..line_end].trim_start()) {
            return;
        }
        from = line_end;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan_has_annotation(file: &SourceFile, annotation: &str) -> bool {
        let mut found = false;
        for_each_annotation(file.text(), |rest| {
            found = names(rest, annotation);
            found
        });
        found
    }

    /// The scan answers what a look through the listed `#@` lines answers.
    #[test]
    fn the_annotation_scan_agrees_with_the_annotation_lines() {
        use proptest::prelude::*;
        let piece = prop::sample::select(vec![
            "#@",
            "#@ ",
            "data/values",
            "data/values-schema",
            "data/valuesx",
            " ",
            "\t",
            "\u{a0}",
            "\n",
            "\r\n",
            "a: 1",
            "x",
            "-",
            "/",
            "\u{feff}",
            "#",
            "@",
            "é",
        ]);
        proptest!(ProptestConfig::with_cases(4000), |(pieces in prop::collection::vec(piece, 0..24))| {
            let text: String = pieces.concat();
            let file = SourceFile::new("f.yml", text.trim_start_matches('\u{feff}'));
            for annotation in ["data/values", "data/values-schema"] {
                let by_lines = file.annotation_lines().iter().any(|rest| names(rest, annotation));
                prop_assert_eq!(scan_has_annotation(&file, annotation), by_lines, "{:?}", text);
            }
            let both = |a| file.annotation_lines().iter().any(|rest| names(rest, a));
            prop_assert_eq!(
                scan_values_marks(&file),
                (both("data/values-schema"), both("data/values")),
                "{:?}", text
            );
        });
    }
}
