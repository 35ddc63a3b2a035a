//! ytt's output folders (`render --output-files DIR`,
//! `--dangerous-emptied-output-directory DIR`): a render's files written
//! under the folder through [`super::write`], as ytt writes them; and
//! `render --all`'s folder of every pair's output (`DIR/<library>/<environment>/`),
//! each pair's folder replaced whole, or compared with what is there.

use std::collections::BTreeMap;
use std::path::Path;

use crate::render::{OutputContent, Rendered};

/// ytt's `--dangerous-emptied-output-directory`: `dir` emptied (a link
/// there is removed, not followed), then written as `--output-files`
/// writes.
pub fn write_emptied(r: &Rendered, dir: &Path, announce: &dyn Fn(&Path)) -> Result<(), String> {
    let mut seen = std::collections::BTreeSet::new();
    let dups: Vec<&str> = r
        .files
        .iter()
        .filter(|f| !seen.insert(f.path.as_str()))
        .map(|f| f.path.as_str())
        .collect();
    if !dups.is_empty() {
        return Err(format!(
            "Multiple files have same output destination paths: {}",
            dups.join(", ")
        ));
    }
    if ["/", ".", "./", ""].contains(&dir.to_string_lossy().as_ref()) {
        return Err("Expected output directory path to not be one of '/', '.', './', ''".into());
    }
    super::write::output_folder(dir).map_err(|e| e.to_string())?;
    match std::fs::symlink_metadata(dir) {
        Ok(md) if md.file_type().is_symlink() || !md.is_dir() => {
            std::fs::remove_file(dir).map_err(|e| format!("Deleting '{}': {e}", dir.display()))?
        }
        Ok(_) => std::fs::remove_dir_all(dir)
            .map_err(|e| format!("Deleting '{}': {e}", dir.display()))?,
        Err(_) => {}
    }
    write_files(r, dir, announce)
}

/// ytt's `--output-files`: each output file under `dir` (created when
/// missing), each announced (ytt prints `creating: <path>`) once written. A path that would leave
/// `dir` (an absolute name or `..` given with `-f name=path`) is refused.
pub fn write_files(r: &Rendered, dir: &Path, announce: &dyn Fn(&Path)) -> Result<(), String> {
    super::write::output_folder(dir).map_err(|e| e.to_string())?;
    std::fs::create_dir_all(dir).map_err(|e| format!("Creating '{}': {e}", dir.display()))?;
    for f in &r.files {
        let bytes = match &f.content {
            OutputContent::Yaml(docs) => crate::yaml::print::print_docs(&r.docs.docs[docs.clone()]),
            OutputContent::Text(t) => t.clone(),
        };
        let path = super::write::output_file(dir, &f.path, bytes.as_bytes())
            .map_err(|e| format!("Writing '{}': {e}", f.path))?;
        announce(&path);
    }
    Ok(())
}

/// Each pair's folder under DIR, and its files (relative to it).
pub type Outputs = BTreeMap<String, BTreeMap<String, Vec<u8>>>;

/// `render --all`'s folder, made when missing, after [`super::write::output_folder`]
/// has refused a committed link to it or above it.
pub fn prepare(dir: &Path) -> Result<(), String> {
    super::write::output_folder(dir).map_err(|e| e.to_string())?;
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))
}

/// Writes a pair's folder afresh: what an earlier render left there and
/// this one does not make is removed (a link there is removed, not
/// followed), then each file is written through `disk::write`.
pub fn replace_folder(
    dir: &Path,
    folder: &str,
    files: &BTreeMap<String, Vec<u8>>,
) -> Result<(), String> {
    super::write::output_folder(dir).map_err(|e| e.to_string())?;
    let path = dir.join(folder);
    match std::fs::symlink_metadata(&path) {
        Ok(m) if m.is_dir() => std::fs::remove_dir_all(&path),
        Ok(_) => std::fs::remove_file(&path),
        Err(_) => Ok(()),
    }
    .map_err(|e| format!("cannot replace {}: {e}", path.display()))?;
    for (rel, bytes) in files {
        super::write::output_file(dir, &format!("{folder}/{rel}"), bytes)
            .map_err(|e| format!("cannot write {folder}/{rel}: {e}"))?;
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
pub fn stale(dir: &Path, outputs: &Outputs, failed: &[String]) -> Result<Vec<String>, String> {
    // a committed link as DIR, or above it, is refused before anything
    // under it is read or listed
    super::write::output_folder(dir).map_err(|e| e.to_string())?;
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
    Ok(out)
}
