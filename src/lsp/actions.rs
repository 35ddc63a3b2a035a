//! Code actions on a diagnostic: the finding's fix when one is known for
//! sure (a misspelt key with one near name, `#@overlay.remove` written for
//! the annotation), and an inline `#! yttcheck: ignore[rule] reason`
//! comment above the line, which silences the rule there.

use std::collections::HashMap;

use lsp_types::{
    CodeAction, CodeActionKind, Diagnostic, Position, Range, TextEdit, Uri, WorkspaceEdit,
};
use serde::{Deserialize, Serialize};

/// What a diagnostic carries for its actions (its `data`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Data {
    pub rule: String,
    pub fix: Option<crate::diagnostics::Fix>,
}

use super::position::utf16_column;

/// Where a fix's edit goes in its line (a range of bytes), and its text.
///
/// A key renamed (`key`: `schema/undeclared-key`) is edited exactly where
/// the key is written, at the finding's column, and only when the text
/// there is the key as the check saw it written (`old`: quotes and escapes
/// included, `"repl\x69caz"`); `new` is already written so that it reads
/// back as the new key. Another fix replaces the first `old` at or after
/// the column, as `Fix::apply` finds it.
fn fix_span(
    line: &str,
    fix: &crate::diagnostics::Fix,
    key: bool,
) -> Option<(usize, usize, String)> {
    let from = line
        .char_indices()
        .nth(fix.location.column.saturating_sub(1) as usize)
        .map_or(line.len(), |(i, _)| i);
    let rest = &line[from..];
    if !key {
        let at = from + rest.find(&fix.old)?;
        return Some((at, at + fix.old.len(), fix.new.clone()));
    }
    // the check gives the key as written (quotes and escapes included)
    // and the new key as it is to be written
    let written = crate::diagnostics::keys::written_key(rest)?;
    (written == fix.old).then(|| (from, from + written.len(), fix.new.clone()))
}

/// Where a fix's edit goes in the file whose lines are `lines`, and its
/// text: whole lines written afresh while they still hold what was read,
/// or a span of one line ([`fix_span`]); `None` when the file changed so
/// that the fix no longer applies.
fn fix_edit(lines: &[&str], fix: &crate::diagnostics::Fix, rule: &str) -> Option<(Range, String)> {
    let index = fix.location.line.saturating_sub(1) as usize;
    let at = |line: usize, character: u32| Position {
        line: line as u32,
        character,
    };
    if let Some(n) = fix.lines {
        let n = n as usize;
        let held = lines.get(index..index.checked_add(n)?)?;
        if n == 0 || held.join("\n") != fix.old {
            return None;
        }
        let last = held[n - 1];
        let end = at(index + n - 1, utf16_column(last, last.len()));
        return Some((
            Range {
                start: at(index, 0),
                end,
            },
            fix.new.clone(),
        ));
    }
    let line = lines.get(index)?;
    let key = rule == crate::diagnostics::RuleId::SchemaUndeclaredKey.id();
    let (start, end, new_text) = fix_span(line, fix, key)?;
    let range = Range {
        start: at(index, utf16_column(line, start)),
        end: at(index, utf16_column(line, end)),
    };
    Some((range, new_text))
}

/// The actions on `diagnostic` of the file whose text is `text`.
pub fn for_diagnostic(uri: &Uri, text: &str, diagnostic: &Diagnostic) -> Vec<CodeAction> {
    let Some(data) = diagnostic
        .data
        .clone()
        .and_then(|d| serde_json::from_value::<Data>(d).ok())
    else {
        return Vec::new();
    };
    let lines: Vec<&str> = text.split('\n').collect();
    let edit = |edits: Vec<TextEdit>| WorkspaceEdit {
        changes: Some(HashMap::from([(uri.clone(), edits)])),
        ..Default::default()
    };
    let mut out = Vec::new();
    if let Some((fix, (range, new_text))) = data
        .fix
        .as_ref()
        .and_then(|fix| Some((fix, fix_edit(&lines, fix, &data.rule)?)))
    {
        out.push(CodeAction {
            title: crate::escape::control(&fix.title).into_owned(),
            kind: Some(CodeActionKind::QUICKFIX),
            diagnostics: Some(vec![diagnostic.clone()]),
            edit: Some(edit(vec![TextEdit { range, new_text }])),
            is_preferred: Some(true),
            ..Default::default()
        });
    }
    let line = diagnostic.range.start.line;
    if let Some(text) = lines.get(line as usize) {
        let indent: String = text.chars().take_while(|c| *c == ' ').collect();
        out.push(CodeAction {
            title: format!("Ignore {} on this line (with a reason)", data.rule),
            kind: Some(CodeActionKind::QUICKFIX),
            diagnostics: Some(vec![diagnostic.clone()]),
            edit: Some(edit(vec![TextEdit {
                range: Range {
                    start: Position { line, character: 0 },
                    end: Position { line, character: 0 },
                },
                new_text: format!("{indent}#! yttcheck: ignore[{}] REASON\n", data.rule),
            }])),
            ..Default::default()
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::str::FromStr;

    #[test]
    fn a_fix_edits_its_word_and_an_ignore_goes_above() {
        let uri = Uri::from_str("file:///r/envs/prod/web.yml").unwrap();
        let fix = crate::diagnostics::Fix::replace(
            crate::diagnostics::Location {
                path: "envs/prod/web.yml".into(),
                line: 2,
                column: 3,
            },
            "replicaz",
            "replicas",
        );
        let d = Diagnostic {
            range: Range {
                start: Position {
                    line: 1,
                    character: 2,
                },
                end: Position {
                    line: 2,
                    character: 0,
                },
            },
            data: Some(
                serde_json::to_value(Data {
                    rule: "schema/undeclared-key".into(),
                    fix: Some(fix),
                })
                .unwrap(),
            ),
            ..Default::default()
        };
        let actions = for_diagnostic(&uri, "é: 1\n  replicaz: 4\n", &d);
        assert_eq!(actions.len(), 2);
        let edits = &actions[0].edit.as_ref().unwrap().changes.as_ref().unwrap()[&uri];
        assert_eq!(edits[0].new_text, "replicas");
        assert_eq!(
            edits[0].range.start,
            Position {
                line: 1,
                character: 2
            }
        );
        assert_eq!(
            edits[0].range.end,
            Position {
                line: 1,
                character: 10
            }
        );
        let ignore = &actions[1].edit.as_ref().unwrap().changes.as_ref().unwrap()[&uri][0];
        assert_eq!(
            ignore.new_text,
            "  #! yttcheck: ignore[schema/undeclared-key] REASON\n"
        );
        // a stale fix (the line changed since) is not offered
        assert_eq!(for_diagnostic(&uri, "é: 1\n  other: 4\n", &d).len(), 1);
    }

    /// The edit of a key rename on `line` (the key at `column`), if offered.
    fn rename(line: &str, column: u32, old: &str, new: &str) -> Option<TextEdit> {
        let uri = Uri::from_str("file:///r/v.yml").unwrap();
        let fix = crate::diagnostics::Fix::replace(
            crate::diagnostics::Location {
                path: "v.yml".into(),
                line: 1,
                column,
            },
            old,
            new,
        );
        let d = Diagnostic {
            data: Some(
                serde_json::to_value(Data {
                    rule: "schema/undeclared-key".into(),
                    fix: Some(fix),
                })
                .unwrap(),
            ),
            ..Default::default()
        };
        let mut actions = for_diagnostic(&uri, line, &d);
        actions.pop(); // the ignore comment
        let edits = actions.pop()?.edit?.changes?.remove(&uri)?;
        Some(edits.into_iter().next().unwrap())
    }

    #[test]
    fn a_block_fix_replaces_its_whole_lines_only_while_they_hold_what_was_read() {
        let uri = Uri::from_str("file:///r/package.yaml").unwrap();
        let text = "spec:\n  valuesSchema:\n    openAPIv3: {}\n  template: x\n";
        let fix = crate::diagnostics::Fix::replace_lines(
            "write it".into(),
            crate::diagnostics::Location {
                path: "package.yaml".into(),
                line: 2,
                column: 0,
            },
            "  valuesSchema:\n    openAPIv3: {}",
            "  valuesSchema:\n    openAPIv3:\n      type: object".into(),
        );
        assert_eq!(
            fix.apply(text).unwrap(),
            "spec:\n  valuesSchema:\n    openAPIv3:\n      type: object\n  template: x\n"
        );
        let d = |fix: crate::diagnostics::Fix| Diagnostic {
            data: Some(
                serde_json::to_value(Data {
                    rule: "package/schema-drift".into(),
                    fix: Some(fix),
                })
                .unwrap(),
            ),
            ..Default::default()
        };
        let actions = for_diagnostic(&uri, text, &d(fix.clone()));
        let edit = &actions[0].edit.as_ref().unwrap().changes.as_ref().unwrap()[&uri][0];
        assert_eq!(
            (edit.range.start, edit.range.end),
            (
                Position {
                    line: 1,
                    character: 0
                },
                Position {
                    line: 2,
                    character: 17
                }
            )
        );
        assert_eq!(edit.new_text, fix.new);
        // the file changed since: no fix (the ignore stays)
        let changed = text.replace("{}", "{a: 1}");
        assert_eq!(fix.apply(&changed), None);
        let actions = for_diagnostic(&uri, &changed, &d(fix));
        assert!(actions.iter().all(|a| !a.title.contains("write it")));
    }

    #[test]
    fn a_key_rename_edits_the_key_as_written_or_nothing() {
        let span = |e: &TextEdit| (e.range.start.character, e.range.end.character);
        // the key as written, escape and all: that text, not `abc` further
        // on the line
        let e = rename(r#"{"a\u0062c": 1, other: abc}"#, 2, r#""a\u0062c""#, "abd").unwrap();
        assert_eq!((span(&e), e.new_text.as_str()), ((1, 11), "abd"));
        // a fix whose key is not what is written there (the file changed)
        assert_eq!(
            rename(r#"{"a\u0062c": 1, other: abc}"#, 2, "abc", "abd"),
            None
        );
        // quoted plainly: the quotes go too
        let e = rename("{'abc': 1, b: abc}", 2, "'abc'", "abd").unwrap();
        assert_eq!((span(&e), e.new_text.as_str()), ((1, 6), "abd"));
        let e = rename("😀: 1\n", 1, "😀", "ok").unwrap();
        assert_eq!((span(&e), e.new_text.as_str()), ((0, 2), "ok"));
        // the new key is used as the check wrote it
        let e = rename("abc: 1", 1, "abc", r#""ab\nc""#).unwrap();
        assert_eq!(e.new_text, r#""ab\nc""#);
        // not at a key
        assert_eq!(rename("a: abc", 1, "abc", "abd"), None);
    }
}
