//! What a diff may print, bounded: a pull request chooses its values, and
//! one 10 MB string changed in three environments must not make a 1 GB
//! report. Three bounds, each saying what it left out:
//!
//! * a string changed between two multi-line texts (an embedded config)
//!   is a line diff with [`CONTEXT_LINES`] of context, as dyff and
//!   helm-diff show it, each line masked as the text would be;
//! * every value printed whole is cut: a string at [`MAX_VALUE_CHARS`], a
//!   map or array added whole at [`MAX_TREE_CHARS`] in all
//!   (`values::cut_tree`);
//! * a report holds at most [`REPORT_BUDGET`] of changes, counted as the
//!   most expanding printer prints them ([`printed_len`]); the changes past
//!   it are counted per pair, not printed (`diff::within_budget`).
//!
//! This file knows strings only: the diff's model uses it, not the other
//! way round.

use crate::secrets::Secrets;

/// The most characters of one string value printed.
pub const MAX_VALUE_CHARS: usize = 2_000;
/// The most characters of a map or array printed whole.
pub const MAX_TREE_CHARS: usize = 8_000;
/// Unchanged lines shown around each changed one of a line diff.
pub const CONTEXT_LINES: usize = 2;
/// The most lines of one line diff.
pub const MAX_DIFF_LINES: usize = 80;
/// The most characters of one line of a line diff.
pub const MAX_LINE_CHARS: usize = 400;
/// The most bytes of changes one report holds (16 MiB).
pub const REPORT_BUDGET: usize = 16 << 20;

/// `s` cut at `max` characters, with a note of its length when it was.
pub fn cut_str(s: &str, max: usize) -> std::borrow::Cow<'_, str> {
    match s.char_indices().nth(max) {
        None => std::borrow::Cow::Borrowed(s),
        Some((at, _)) => std::borrow::Cow::Owned(format!(
            "{}… (cut: {} characters in all)",
            &s[..at],
            s.chars().count()
        )),
    }
}

/// The line diff of two texts of which one at least has several lines:
/// unified-diff lines (`  kept`, `- old`, `+ new`, and `@@ line N @@`
/// before each hunk), each masked by `secrets` and cut at
/// [`MAX_LINE_CHARS`], at most [`MAX_DIFF_LINES`] of them (a last line
/// counts the rest). `None` when neither text has a line break, or either
/// is wholly a secret value (the change is then shown redacted).
pub fn line_diff(before: &str, after: &str, secrets: &Secrets) -> Option<Vec<String>> {
    if !before.contains('\n') && !after.contains('\n') {
        return None;
    }
    secrets.mask_text(before)?;
    secrets.mask_text(after)?;
    let diff = similar::TextDiff::configure()
        // a pathological pair of texts gives a coarser diff, never a hang
        .timeout(std::time::Duration::from_millis(500))
        .diff_lines(before, after);
    let mut out = Vec::new();
    let mut hidden = 0usize;
    for group in diff.grouped_ops(CONTEXT_LINES) {
        let Some(first) = group.first() else { continue };
        let header = format!("@@ line {} @@", first.new_range().start + 1);
        for line in std::iter::once(header).chain(group.iter().flat_map(|op| {
            diff.iter_changes(op).map(|c| {
                let sign = match c.tag() {
                    similar::ChangeTag::Equal => ' ',
                    similar::ChangeTag::Delete => '-',
                    similar::ChangeTag::Insert => '+',
                };
                let text = c.value().strip_suffix('\n').unwrap_or(c.value());
                let text = text.strip_suffix('\r').unwrap_or(text);
                format!(
                    "{sign} {}",
                    cut_str(&secrets.mask_line(text), MAX_LINE_CHARS)
                )
            })
        })) {
            if out.len() < MAX_DIFF_LINES {
                out.push(line);
            } else {
                hidden += 1;
            }
        }
    }
    if hidden > 0 {
        out.push(format!("… (cut: {hidden} more lines of this diff)"));
    }
    Some(out)
}

/// What a text costs once printed by the most expanding printer: an
/// unsafe character or an HTML-special one may take six bytes (`\u0001`,
/// `&quot;`).
pub fn printed_len(s: &str) -> usize {
    s.len()
        + 5 * s
            .chars()
            .filter(|&c| {
                matches!(c, '<' | '>' | '&' | '"' | '\'' | '\\') || crate::escape::is_unsafe(c)
            })
            .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_string_is_cut_with_its_length() {
        assert_eq!(cut_str("short", 10), "short");
        let long = "é".repeat(30);
        assert_eq!(cut_str(&long, 4), "éééé… (cut: 30 characters in all)");
    }

    #[test]
    fn a_changed_text_is_its_changed_lines_with_two_of_context() {
        let before: String = (0..50).map(|i| format!("k{i}: v{i}\n")).collect();
        let after = before.replace("k20: v20", "k20: changed");
        let lines = line_diff(&before, &after, &Secrets::default()).unwrap();
        assert_eq!(
            lines,
            [
                "@@ line 19 @@",
                "  k18: v18",
                "  k19: v19",
                "- k20: v20",
                "+ k20: changed",
                "  k21: v21",
                "  k22: v22",
            ]
        );
        assert!(line_diff("a", "b", &Secrets::default()).is_none());
    }

    #[test]
    fn a_changed_secret_line_names_its_key_and_hides_its_values() {
        let secrets = Secrets::default().with_values(["hunter22"]);
        let before = "user: admin\npassword: old-pw-1\nurl: https://x\n";
        let after = "user: admin\npassword: new-pw-2\nurl: https://x?pw=hunter22\n";
        let lines = line_diff(before, after, &secrets).unwrap().join("\n");
        assert!(lines.contains("- password: (value not shown)"), "{lines}");
        assert!(lines.contains("+ password: (value not shown)"), "{lines}");
        assert!(
            lines.contains("+ url: https://x?pw=(value not shown)"),
            "{lines}"
        );
        for leak in ["old-pw-1", "new-pw-2", "hunter22"] {
            assert!(!lines.contains(leak), "{lines}");
        }
        // a text that is wholly a secret value is no line diff: redacted
        let secrets = Secrets::default().with_values(["line one\nline two"]);
        assert!(line_diff("line one\nline two", "x\ny", &secrets).is_none());
    }

    #[test]
    fn a_line_diff_is_bounded_and_says_how_much_it_left_out() {
        let before: String = (0..1000).map(|i| format!("{i}\n")).collect();
        let after: String = (0..1000)
            .map(|i| format!("{}{}\n", i, "x".repeat(1000)))
            .collect();
        let lines = line_diff(&before, &after, &Secrets::default()).unwrap();
        assert_eq!(lines.len(), MAX_DIFF_LINES + 1);
        assert!(lines
            .iter()
            .all(|l| l.chars().count() < MAX_LINE_CHARS + 50));
        assert_eq!(
            lines.last().unwrap(),
            "… (cut: 1921 more lines of this diff)"
        );
    }
}
