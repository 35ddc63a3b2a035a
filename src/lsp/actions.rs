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

/// A position in a line (a count of characters) as LSP counts it: UTF-16
/// code units.
fn utf16(line: &str, chars: usize) -> u32 {
    line.chars().take(chars).map(|c| c.len_utf16() as u32).sum()
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
    if let Some(fix) = &data.fix {
        let index = fix.location.line.saturating_sub(1) as usize;
        if let Some(line) = lines.get(index) {
            // the first `old` at or after the column, as Fix::apply finds it
            let from = line
                .char_indices()
                .nth(fix.location.column.saturating_sub(1) as usize)
                .map_or(line.len(), |(i, _)| i);
            if let Some(at) = line.get(from..).and_then(|rest| rest.find(&fix.old)) {
                let start = line[..from + at].chars().count();
                let end = start + fix.old.chars().count();
                out.push(CodeAction {
                    title: fix.title.clone(),
                    kind: Some(CodeActionKind::QUICKFIX),
                    diagnostics: Some(vec![diagnostic.clone()]),
                    edit: Some(edit(vec![TextEdit {
                        range: Range {
                            start: Position {
                                line: index as u32,
                                character: utf16(line, start),
                            },
                            end: Position {
                                line: index as u32,
                                character: utf16(line, end),
                            },
                        },
                        new_text: fix.new.clone(),
                    }])),
                    is_preferred: Some(true),
                    ..Default::default()
                });
            }
        }
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
}
