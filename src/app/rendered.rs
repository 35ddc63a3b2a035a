//! `render --all --output-files DIR [--check]`: the rendered-manifests
//! pattern (GitOps repositories that commit what each environment
//! deploys). Every pair is rendered exactly as its ytt command renders it
//! (`yttcheck list` prints that command: [`super::ytt::pair_run`] makes
//! both) into `DIR/<library>/<environment>/`, deterministically; the
//! command line writes them (`disk::output`) or compares.

use crate::disk::output::Outputs;
use crate::source::overlay::Overlay;
use crate::source::{Snapshot, Stdin};
use crate::workspace::plan::EmbeddedValues;
use crate::workspace::Plan;

use super::ytt::{pair_run, render_in, RenderRun};

/// Every pair's rendered files, and what could not be rendered.
#[derive(Debug, Default)]
pub struct RenderedPairs {
    /// Each pair's folder (`<library>/<environment>`) and its files.
    pub outputs: Outputs,
    /// A pair that failed, with why (`<pair>: <error>`), escaped.
    pub failed: Vec<String>,
}

/// Renders every pair of `plan` from the work tree at `root`, read as a
/// check reads the repository (nothing outside it, nothing in `.git`).
pub fn render_work_tree(plan: &Plan, root: &std::path::Path) -> RenderedPairs {
    render_pairs(plan, &crate::source::worktree::WorkTree::new(root))
}

/// Renders every pair of `plan` from `snap` (the work tree).
pub fn render_pairs(plan: &Plan, snap: &dyn Snapshot) -> RenderedPairs {
    let mut done = RenderedPairs::default();
    for pair in &plan.pairs {
        let name = crate::escape::control(&pair.name(plan)).into_owned();
        // names come from the repository (a declared library's `name:`):
        // each must be one plain folder name under DIR
        let (library, environment) = (&plan.libraries[pair.library].name, &pair.environment);
        if !plain_name(library) || !plain_name(environment) {
            done.failed.push(format!(
                "{name}: a library or environment name that is no plain folder name cannot name a folder under --output-files"
            ));
            continue;
        }
        let mut run = RenderRun {
            input: pair_run(plan, pair),
            output: Vec::new(),
        };
        // values kept in a Secret: each key served as a file of its own,
        // under the Secret's path as if it were a folder (no path of the
        // repository can be), named after the Secret in messages
        let mut embedded = std::collections::BTreeMap::new();
        let mut secret_values = Vec::new();
        for (i, e) in pair.inputs.embedded_values.iter().enumerate() {
            match embedded_text(snap, e) {
                Ok(text) => {
                    secret_values.extend(crate::workspace::embedded::scalar_values(&text));
                    let at = e.path.join(&format!("{i}.yml"));
                    run.input.data_values_file.push(format!("{}={at}", e.path));
                    embedded.insert(at, Some(text.into_bytes()));
                }
                Err(why) => {
                    done.failed.push(format!("{name}: {why}"));
                    break;
                }
            }
        }
        if embedded.len() != pair.inputs.embedded_values.len() {
            continue;
        }
        let snap = Overlay::new(snap, embedded);
        match render_in(&snap, &Stdin::closed(), &pair.inputs.env, &run) {
            Ok(r) => {
                let files = done
                    .outputs
                    .entry(format!("{library}/{environment}"))
                    .or_default();
                for f in &r.files {
                    let bytes = match &f.content {
                        crate::render::OutputContent::Yaml(docs) => {
                            crate::yaml::print::print_docs(&r.docs.docs[docs.clone()])
                        }
                        crate::render::OutputContent::Text(t) => t.clone(),
                    };
                    files.insert(f.path.clone(), bytes.into_bytes());
                }
            }
            Err(e) => {
                let mut text = crate::template::multi_line_error(&e);
                if !pair.inputs.embedded_values.is_empty() {
                    // ytt quotes source lines (`  23 |     key: value`), and
                    // a Secret's values are never printed
                    text = hide_quoted_values(&text);
                    // and ytt quotes a value that fails a conversion or a
                    // custom validation in its message
                    let secrets = crate::secrets::Secrets::shared()
                        .with_values(secret_values.iter().map(String::as_str));
                    text = secrets
                        .mask_text(&text)
                        .map_or_else(|| crate::secrets::HIDDEN.to_string(), |t| t.into_owned());
                }
                done.failed.push(format!("{name}: {text}"));
            }
        }
    }
    done
}

/// The text of a Secret's key, as the check reads it.
fn embedded_text(snap: &dyn Snapshot, e: &EmbeddedValues) -> Result<String, String> {
    let bytes = snap.read(e.path.as_str()).map_err(|err| err.message)?;
    let text = String::from_utf8(bytes).map_err(|_| format!("{} is not UTF-8 text", e.path))?;
    let src = crate::yaml::SourceFile::new(e.path.as_str(), text);
    crate::workspace::embedded::values_text(&src, e.document, &e.key).map_err(|err| {
        format!(
            "{}:{}: the values {} of a Secret cannot be read: {}",
            e.path, err.line, e.key, err.message
        )
    })
}

/// ytt's error text with the values of the source lines it quotes
/// (`  23 |     replicas: many`) left out.
fn hide_quoted_values(text: &str) -> String {
    let mut out: Vec<String> = Vec::new();
    for l in text.lines() {
        let quoted = l.split_once(" | ").filter(|(n, _)| {
            let n = n.trim();
            !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())
        });
        out.push(match quoted {
            Some((n, code)) => format!("{n} | {}", crate::secrets::hide_value(code)),
            None => l.to_string(),
        });
    }
    let mut joined = out.join("\n");
    if text.ends_with('\n') {
        joined.push('\n');
    }
    joined
}

/// Whether a name is one plain folder name (no separator, not `.` or
/// `..`, no control character).
fn plain_name(name: &str) -> bool {
    !name.is_empty()
        && name != "."
        && name != ".."
        && !name.contains(['/', '\\'])
        && !name.chars().any(char::is_control)
}

#[cfg(test)]
mod tests {
    #[test]
    fn only_plain_names_name_folders() {
        for n in ["web", "prod-eu", "antrea-1.5.3", "_x"] {
            assert!(super::plain_name(n), "{n}");
        }
        for n in ["", ".", "..", "../x", "a/b", "a\\b", "a\nb"] {
            assert!(!super::plain_name(n), "{n}");
        }
    }
}
