//! `render --all --output-files DIR [--check]`: the rendered-manifests
//! pattern (GitOps repositories that commit what each environment
//! deploys). Every pair is rendered exactly as its ytt command renders it
//! (`yttcheck list` prints that command; the same flags are parsed here)
//! into `DIR/<library>/<environment>/`, deterministically; `--check`
//! compares instead of writing and names each stale pair.

use std::collections::BTreeMap;
use std::path::Path;

use clap::Parser;

use crate::app::{load_plan, open_source, Selection, UsageError};
use crate::source::worktree::WorkTree;
use crate::source::{SourceCache, Stdin};

use super::render::{render_in, RenderArgs};

/// One pair's ytt command, parsed as `render` parses its flags.
#[derive(Parser)]
struct PairRender {
    #[command(flatten)]
    args: RenderArgs,
}

/// Each pair's folder under DIR, and its files (relative to it).
type Outputs = BTreeMap<String, BTreeMap<String, Vec<u8>>>;

pub fn run(args: &RenderArgs) -> i32 {
    let cwd = match super::args::current_dir() {
        Ok(c) => c,
        Err(UsageError(m)) => {
            errln!("yttcheck: error: {m}");
            return 2;
        }
    };
    match run_inner(&cwd, args) {
        Ok(code) => code,
        Err(UsageError(m)) => {
            errln!("yttcheck: error: {m}");
            2
        }
    }
}

fn run_inner(cwd: &Path, args: &RenderArgs) -> Result<i32, UsageError> {
    let Some(dir) = &args.output_files else {
        return Err(UsageError("--all needs --output-files DIR".into()));
    };
    let selection = Selection::whole(cwd.to_path_buf());
    let source = open_source(&selection)?;
    let cache = SourceCache::new(source.opened.snapshot());
    let plan = load_plan(&cache, &source, &selection)?;
    let snap = WorkTree::command_line(cwd.to_path_buf());
    let mut outputs: Outputs = BTreeMap::new();
    let mut failed = Vec::new();
    for pair in &plan.pairs {
        let name = pair.name(&plan);
        if !pair.inputs.embedded_values.is_empty() {
            errln!(
                "yttcheck: note: {}: its values are kept in a Secret (a PackageInstall's); --output-files does not render such pairs yet (`yttcheck check` and `diff` do)",
                crate::escape::control(&name)
            );
            continue;
        }
        let mut cmd = super::list::ytt_command(&plan, pair);
        // `ytt ... --data-values-inspect`: the render, without the inspect
        cmd.retain(|a| a != "--data-values-inspect");
        cmd[0] = "render".into();
        let one =
            PairRender::try_parse_from(&cmd).map_err(|e| UsageError(format!("{name}: {e}")))?;
        // names come from the repository (a declared library's `name:`):
        // each must be one plain folder name under DIR
        let (library, environment) = (&plan.libraries[pair.library].name, &pair.environment);
        if !plain_name(library) || !plain_name(environment) {
            failed.push(format!(
                "{}: a library or environment name that is no plain folder name cannot name a folder under --output-files",
                crate::escape::control(&name)
            ));
            continue;
        }
        match render_in(&snap, &Stdin::closed(), &pair.inputs.env, &one.args) {
            Ok(r) => {
                let folder = format!("{library}/{environment}");
                let files = outputs.entry(folder).or_default();
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
            Err(e) => failed.push(format!(
                "{}: {}",
                crate::escape::control(&name),
                crate::template::multi_line_error(&e)
            )),
        }
    }
    for f in &failed {
        errln!("yttcheck: error: {f}");
    }
    let dir = cwd.join(dir);
    if args.check {
        let stale = stale(&dir, &outputs, &failed);
        for s in &stale {
            outln!("stale: {s}");
        }
        if stale.is_empty() && failed.is_empty() {
            outln!("fresh: {} pairs in {}", outputs.len(), dir.display());
            return Ok(0);
        }
        if !stale.is_empty() {
            errln!(
                "yttcheck: {} pair{} rendered output is stale: run `yttcheck render --all --output-files {}`",
                stale.len(),
                if stale.len() == 1 { "'s" } else { "s'" },
                args.output_files.as_ref().map_or(String::new(), |d| d.display().to_string())
            );
        }
        return Ok(1);
    }
    std::fs::create_dir_all(&dir)
        .map_err(|e| UsageError(format!("cannot create {}: {e}", dir.display())))?;
    for (folder, files) in &outputs {
        replace_folder(&dir, folder, files)?;
        outln!(
            "rendered: {folder} ({} file{})",
            files.len(),
            if files.len() == 1 { "" } else { "s" }
        );
    }
    Ok(i32::from(!failed.is_empty()))
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

/// Writes a pair's folder afresh: what an earlier render left there and
/// this one does not make is removed (a link there is removed, not
/// followed), then each file is written through `disk::write`.
fn replace_folder(
    dir: &Path,
    folder: &str,
    files: &BTreeMap<String, Vec<u8>>,
) -> Result<(), UsageError> {
    let path = dir.join(folder);
    match std::fs::symlink_metadata(&path) {
        Ok(m) if m.is_dir() => std::fs::remove_dir_all(&path),
        Ok(_) => std::fs::remove_file(&path),
        Err(_) => Ok(()),
    }
    .map_err(|e| UsageError(format!("cannot replace {}: {e}", path.display())))?;
    for (rel, bytes) in files {
        crate::disk::write::output_file(dir, &format!("{folder}/{rel}"), bytes)
            .map_err(|e| UsageError(format!("cannot write {folder}/{rel}: {e}")))?;
    }
    Ok(())
}

/// The files under `dir` (relative, `/`-separated), read through no link.
fn files_under(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut todo = vec![(dir.to_path_buf(), String::new())];
    while let Some((at, rel)) = todo.pop() {
        let Ok(entries) = std::fs::read_dir(&at) else {
            continue;
        };
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let child = if rel.is_empty() {
                name
            } else {
                format!("{rel}/{name}")
            };
            match e.file_type() {
                Ok(t) if t.is_dir() => todo.push((e.path(), child)),
                Ok(t) if t.is_file() => {
                    out.insert(child, std::fs::read(e.path()).unwrap_or_default());
                }
                // a link is never what a render writes: stale
                _ => {
                    out.insert(child, Vec::new());
                }
            }
        }
    }
    out
}

/// Each stale pair folder, with why: files missing, extra or different,
/// and folders of no pair.
fn stale(dir: &Path, outputs: &Outputs, failed: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for (folder, files) in outputs {
        let have = files_under(&dir.join(folder));
        let differ: Vec<&String> = files
            .iter()
            .filter(|(rel, bytes)| have.get(*rel) != Some(*bytes))
            .map(|(rel, _)| rel)
            .chain(have.keys().filter(|rel| !files.contains_key(*rel)))
            .collect();
        if !differ.is_empty() {
            let shown: Vec<String> = differ.iter().take(3).map(|s| s.to_string()).collect();
            out.push(format!(
                "{folder}: {}{}",
                shown.join(", "),
                if differ.len() > 3 {
                    format!(" and {} more", differ.len() - 3)
                } else {
                    String::new()
                }
            ));
        }
    }
    // a library/environment folder that no pair renders any more
    let failed_folders: Vec<String> = failed
        .iter()
        .filter_map(|f| f.split_once(':').map(|(n, _)| n.replace('@', "/")))
        .collect();
    for (rel, _) in files_under(dir) {
        let mut parts = rel.splitn(3, '/');
        if let (Some(l), Some(e), Some(_)) = (parts.next(), parts.next(), parts.next()) {
            let folder = format!("{l}/{e}");
            if !outputs.contains_key(&folder)
                && !failed_folders.contains(&folder)
                && !out.iter().any(|o| o.starts_with(&format!("{folder}:")))
            {
                out.push(format!("{folder}: no pair renders it any more"));
            }
        }
    }
    out
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
