//! JUnit XML: one test case per library x environment pair
//! (`<library>@<env>`), failing when the pair has findings at or above the
//! `--fail-on` severity. CI systems that render JUnit then show which
//! environments of which libraries are broken.

use crate::check::Finding;

use super::ReportInput;

use crate::escape::xml::text as xml_escape;

fn line(f: &Finding) -> String {
    let place = f
        .location
        .as_ref()
        .map(|l| l.display())
        .or_else(|| f.origin.clone())
        .unwrap_or_default();
    format!(
        "{} [{}] {}: {}",
        f.severity.as_str(),
        f.rule_id(),
        place,
        f.message_with_hints()
    )
}

pub fn render(input: &ReportInput) -> String {
    let mut pairs: Vec<_> = input
        .result
        .pairs
        .iter()
        .enumerate()
        .map(|(i, p)| (p, input.result.findings_of(i)))
        .collect();
    pairs.sort_by(|(a, _), (b, _)| a.name.cmp(&b.name));
    // findings of no pair (config problems, unreadable folders) fail a test
    // case of their own, so that JUnit is red whenever the run fails
    let unpaired: Vec<&Finding> = input
        .result
        .findings
        .iter()
        .filter(|f| f.library.is_empty())
        .collect();
    let failures = pairs
        .iter()
        .filter(|(_, found)| found.iter().any(|f| f.severity.reaches(input.fail_on)))
        .count()
        + usize::from(unpaired.iter().any(|f| f.severity.reaches(input.fail_on)));
    let tests = pairs.len() + usize::from(!unpaired.is_empty());
    let total: f64 = pairs.iter().map(|(p, _)| p.duration.as_secs_f64()).sum();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    out.push_str(&format!(
        "<testsuites name=\"yttcheck\" tests=\"{tests}\" failures=\"{failures}\" errors=\"0\" time=\"{total:.3}\">\n"
    ));
    out.push_str(&format!(
        "  <testsuite name=\"yttcheck\" tests=\"{tests}\" failures=\"{failures}\" errors=\"0\" skipped=\"0\" time=\"{total:.3}\">\n"
    ));
    if !unpaired.is_empty() {
        let text: Vec<String> = unpaired.iter().map(|f| line(f)).collect();
        out.push_str(&format!(
            "    <testcase name=\"yttcheck@plan\" classname=\"yttcheck\" time=\"0.000\">\n      <failure type=\"yttcheck\" message=\"{}\">{}</failure>\n    </testcase>\n",
            xml_escape(&format!("{} problem(s) with the repository or its configuration", unpaired.len())),
            xml_escape(&text.join("\n"))
        ));
    }
    for (p, found) in pairs {
        out.push_str(&format!(
            "    <testcase name=\"{}\" classname=\"{}\" time=\"{:.3}\"",
            xml_escape(&p.name),
            xml_escape(&p.library),
            p.duration.as_secs_f64()
        ));
        let (failing, others): (Vec<&Finding>, Vec<&Finding>) = found
            .into_iter()
            .partition(|f| f.severity.reaches(input.fail_on));
        if failing.is_empty() && others.is_empty() {
            out.push_str("/>\n");
            continue;
        }
        out.push_str(">\n");
        if !failing.is_empty() {
            let text: Vec<String> = failing.iter().map(|f| line(f)).collect();
            out.push_str(&format!(
                "      <failure type=\"yttcheck\" message=\"{}\">{}</failure>\n",
                xml_escape(&format!(
                    "{} finding{}: {}",
                    failing.len(),
                    if failing.len() == 1 { "" } else { "s" },
                    failing[0].message
                )),
                xml_escape(&text.join("\n"))
            ));
        }
        if !others.is_empty() {
            let text: Vec<String> = others.iter().map(|f| line(f)).collect();
            out.push_str(&format!(
                "      <system-out>{}</system-out>\n",
                xml_escape(&text.join("\n"))
            ));
        }
        out.push_str("    </testcase>\n");
    }
    out.push_str("  </testsuite>\n</testsuites>\n");
    out
}
