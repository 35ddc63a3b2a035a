//! The CI job summary, a printer over the findings report (and the diff's
//! Markdown, which its face renders): GitHub renders `$GITHUB_STEP_SUMMARY`
//! as Markdown on the run's page, and refuses a step's summary over 1 MiB (the whole step's
//! summary is then dropped, not cut). So the summary is built from sections
//! in order of importance and cut at a line before the limit, with a line
//! that says where the rest is.

use super::ReportInput;

/// GitHub's limit on one step's summary.
pub const GITHUB_SUMMARY_LIMIT: usize = 1024 * 1024;

/// The summary of `sections`, at most `limit` bytes: whole sections while
/// they fit, then as many whole lines of the next as fit, then `cut_note`.
/// An HTML `<details>` left open by the cut is closed, so the note shows.
pub fn fit(sections: &[String], limit: usize, cut_note: &str) -> String {
    let total: usize = sections.iter().map(String::len).sum();
    if total <= limit {
        return sections.concat();
    }
    let closing = "\n</details>\n";
    let note = format!("\n> ✂️ {cut_note}\n");
    let budget = limit.saturating_sub(note.len() + closing.len());
    let mut out = String::new();
    'sections: for s in sections {
        if out.len() + s.len() <= budget {
            out.push_str(s);
            continue;
        }
        for line in s.split_inclusive('\n') {
            if out.len() + line.len() > budget {
                break 'sections;
            }
            out.push_str(line);
        }
        break;
    }
    if out.matches("<details>").count() > out.matches("</details>").count() {
        out.push_str(closing);
    }
    out.push_str(&note);
    out
}

/// The summary of a change: the findings it brings first, those that
/// stood on its base in a collapsed section, then the diff.
pub fn verdict_sections(
    headline: &str,
    new: &ReportInput,
    old: &ReportInput,
    diff: Option<String>,
    nothing: bool,
) -> Vec<String> {
    let mut sections = sections(headline, new, None, nothing);
    if !nothing && !old.result.findings.is_empty() {
        let report = super::render(super::Format::Markdown, old);
        // the report's own title gives way to the section's, and its pairs
        // table (the first section has it) goes
        let rest = report.split_once('\n').map_or("", |(_, r)| r);
        let rest = rest
            .find("<details><summary>Pairs checked")
            .map_or(rest, |at| &rest[..at]);
        let n = old.result.findings.len();
        sections.push(format!(
            "<details><summary>{n} finding{} already on the base: still there, not this change's</summary>\n\n{rest}\n</details>\n\n",
            if n == 1 { "" } else { "s" }
        ));
    }
    sections.extend(diff);
    sections
}

/// The summary of a check: the findings report under its title, with the
/// headline under it, then the diff (already Markdown).
pub fn sections(
    headline: &str,
    input: &ReportInput,
    diff: Option<String>,
    nothing: bool,
) -> Vec<String> {
    if nothing {
        // (the headline is ours: counts, the event's name, the shard asked)
        return vec![format!("✅ yttcheck: {headline}.\n")];
    }
    // the findings report's own title, then our line of context under it
    let report = super::render(super::Format::Markdown, input);
    let (title, rest) = report.split_once('\n').unwrap_or((&report, ""));
    let mut sections = vec![format!("{title}\n\n_{headline}_\n{rest}\n")];
    sections.extend(diff);
    sections
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_summaries_are_whole() {
        let s = vec!["a\n".to_string(), "b\n".to_string()];
        assert_eq!(fit(&s, 100, "cut"), "a\nb\n");
    }

    #[test]
    fn a_big_summary_is_cut_at_a_line_under_the_limit_with_a_note() {
        let table: String = (0..1000).map(|i| format!("| row {i} |\n")).collect();
        let s = vec![
            "## head\n".to_string(),
            format!("<details><summary>x</summary>\n\n{table}</details>\n"),
            "THE-END\n".to_string(),
        ];
        let out = fit(&s, 2000, "truncated, see the artifact");
        assert!(out.len() <= 2000, "{}", out.len());
        assert!(out.starts_with("## head\n<details>"));
        assert!(
            out.ends_with("\n> ✂️ truncated, see the artifact\n"),
            "{out}"
        );
        assert!(out.contains("</details>"));
        assert!(!out.contains("THE-END"));
        // whole lines only
        for line in out.lines().filter(|l| l.starts_with("| row")) {
            assert!(line.ends_with(" |"), "{line}");
        }
    }
}
