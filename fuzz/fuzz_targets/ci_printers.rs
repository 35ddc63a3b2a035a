//! The printers a pull request's text reaches in CI: arbitrary keys, names,
//! paths and messages go into findings, pairs and a values diff, and every
//! report format (and the diff's) comes out. No output may hold a workflow
//! command yttcheck did not mean (read as the Actions runner reads it), a
//! raw control character, or Markdown that leaves its table row.
#![no_main]
use std::time::Duration;

use libfuzzer_sys::fuzz_target;
use yttcheck::check::{CheckResult, Finding, PairOutcome, Severity};
use yttcheck::diagnostics::{FindingFields, Location, Related, RuleId};
use yttcheck::diff::values::{diff, Secrets, Tree};
use yttcheck::diff::{DiffReport, PairDiff, PairStatus};
use yttcheck::report::{render, Format, ReportInput};
use yttcheck::workspace::Plan;

#[path = "../../tests/it/runner.rs"]
#[allow(dead_code)]
mod runner;

fn no_raw_controls(what: &str, text: &str) {
    if let Some(c) = text.chars().find(|c| {
        let u = *c as u32;
        (u < 0x20 && *c != '\n') || (0x7f..=0x9f).contains(&u) || u == 0x2028 || u == 0x2029
    }) {
        panic!("{what}: raw U+{:04X} in:\n{text}", c as u32);
    }
}

fn no_commands(what: &str, text: &str) {
    assert!(
        !text.contains("::") && !text.contains("##["),
        "{what}: a command marker in:\n{text}"
    );
}

/// Every row of each Markdown table has its header's number of cells.
fn tables_hold(what: &str, md: &str) {
    let cells = |line: &str| {
        let mut n = 0;
        let mut escaped = false;
        for c in line.chars() {
            match c {
                '\\' if !escaped => {
                    escaped = true;
                    continue;
                }
                '|' if !escaped => n += 1,
                _ => {}
            }
            escaped = false;
        }
        n
    };
    let mut header: Option<usize> = None;
    for line in md.lines() {
        if line.starts_with('|') {
            let n = cells(line);
            match header {
                None => header = Some(n),
                Some(h) => assert_eq!(n, h, "{what}: a row of another width: {line}\n{md}"),
            }
        } else {
            header = None;
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut parts = text.split('\u{1}').map(str::to_string);
    let mut next = || parts.next().unwrap_or_default();
    let (library, env, path, key, message, detail, origin, line_text) = (
        next(),
        next(),
        next(),
        next(),
        next(),
        next(),
        next(),
        next(),
    );
    let finding = Finding::of(
        Severity::Error,
        FindingFields {
            rule: RuleId::ALL[data.len() % RuleId::ALL.len()],
            specific_rule: None,
            message: message.clone(),
            location: Some(Location {
                path: path.clone(),
                line: 1,
                column: 2,
            }),
            origin: Some(origin),
            related: vec![Related {
                location: Location {
                    path: key.clone(),
                    line: 3,
                    column: 0,
                },
                message: detail.clone(),
            }],
            key_path: Some(key.clone()),
            library: library.clone(),
            environments: vec![env.clone()],
            detail: vec![detail.clone(), format!("hint: {message}")],
            fix: None,
        },
    );
    let pair = PairOutcome {
        name: format!("{library}@{env}"),
        library: library.clone(),
        environment: env.clone(),
        findings: vec![finding.clone()],
        duration: Duration::ZERO,
        values: None,
        usage: None,
        rendered: None,
    };
    // (each pair's own findings stand: no suppression ran)
    let result = CheckResult {
        findings: vec![finding],
        pairs: vec![std::sync::Arc::new(pair)],
        elapsed: Duration::ZERO,
        ..Default::default()
    };
    let plan = Plan::default();
    let source = move |path: &str| {
        Some(yttcheck::yaml::SourceFile::new(
            path,
            format!("{line_text}\n{line_text}\n"),
        ))
    };
    let input = ReportInput {
        result: &result,
        plan: &plan,
        fail_on: Severity::Error,
        source: &source,
        color: false,
        frames: None,
        repo_prefix: String::new(),
    };
    for format in [
        Format::Text,
        Format::Json,
        Format::Sarif,
        Format::Github,
        Format::Gitlab,
        Format::Junit,
        Format::Markdown,
    ] {
        let out = render(format, &input);
        let what = format!("{format:?}");
        no_raw_controls(&what, &out);
        match format {
            // the human report goes through the runner's guard
            Format::Text => runner::assert_only_our_commands(
                &what,
                &yttcheck::escape::workflow::guard(
                    &out,
                    "yttcheck-0123456789abcdef0123456789abcdef",
                ),
            ),
            Format::Github => runner::assert_only_our_commands(&what, &out),
            _ => no_commands(&what, &out),
        }
        if format == Format::Markdown {
            tables_hold(&what, &out);
        }
    }

    // a values diff: a map added whole under the fuzzed key
    let before = Tree::Map(vec![]);
    let after = Tree::Map(vec![(
        key.clone(),
        Tree::Map(vec![
            (message.clone(), Tree::Str(detail.clone())),
            ("password".into(), Tree::Str("fuzz-secret".into())),
        ]),
    )]);
    let report = DiffReport {
        base: library.clone(),
        head: env.clone(),
        notes: vec![message.clone()],
        pairs: vec![PairDiff {
            name: format!("{library}@{env}"),
            status: PairStatus::Added,
            changes: diff(&before, &after, &Secrets::default()),
            head_errors: 1,
            base_errors: 0,
            newly_failing: true,
            // why it fails: the rule, a message and a place of the repository's
            head_reasons: vec![yttcheck::diff::FailReason {
                rule: "validation/min".into(),
                message: message.clone(),
                at: Some(format!("{library}/{env}.yml:1")),
            }],
            base_reasons: Vec::new(),
            // a rendered object named by the repository, with a changed field
            objects: vec![yttcheck::diff::objects::ObjectChange {
                change: yttcheck::diff::objects::ObjectChangeKind::Changed,
                api_version: "v1".into(),
                kind: message.clone(),
                namespace: Some(env.clone()),
                name: detail.clone(),
                fields: {
                    // and a changed text: its line diff, of fuzzed lines
                    let text = |a: &str, b: &str| {
                        Tree::Map(vec![(
                            "conf".into(),
                            Tree::Str(format!("{a}\nkept\n{b}\n")),
                        )])
                    };
                    let mut fields = diff(&before, &after, &Secrets::default());
                    fields.extend(diff(
                        &text(&message, &detail),
                        &text(&detail, &message),
                        &Secrets::default(),
                    ));
                    fields
                },
            }],
            changes_not_shown: 1,
            fails_as_on_base: false,
            // objects named by the repository that could not be compared
            not_compared: Some(yttcheck::diff::NotCompared {
                failed: "head",
                objects: vec![message.clone(), detail.clone()],
                total: 3,
            }),
            library,
            environment: env,
        }],
        schemas: Vec::new(),
    };
    for (what, out) in [
        ("diff text", yttcheck::diff::render::text(&report, false)),
        ("diff markdown", yttcheck::diff::render::markdown(&report)),
        ("diff json", yttcheck::diff::render::json(&report)),
    ] {
        no_raw_controls(what, &out);
        assert!(!out.contains("fuzz-secret"), "{what}: a secret:\n{out}");
        if what == "diff text" {
            runner::assert_only_our_commands(
                what,
                &yttcheck::escape::workflow::guard(
                    &out,
                    "yttcheck-0123456789abcdef0123456789abcdef",
                ),
            );
        } else {
            no_commands(what, &out);
        }
        if what == "diff markdown" {
            tables_hold(what, &out);
        }
    }
});
