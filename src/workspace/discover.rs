//! Finding libraries and environments: by convention, or as `.yttcheck.yml`
//! declares them.
//!
//! Conventions (zero-config):
//!
//! * a **library** is a folder holding a `#@data/values-schema` document, or,
//!   without any schema, `#@data/values` defaults. Its root climbs from that
//!   folder while the folder above directly holds ytt files (YAML, Starlark,
//!   text) and no other library: a schema in `libs/web/config/` with values
//!   in `libs/web/` makes `libs/web` the library. A library inside another is part of
//!   it; `_ytt_lib/` folders are private libraries, never libraries of their
//!   own;
//! * an **environment root** is a folder named `envs/` or `environments/`
//!   (each sub-folder and each YAML file in it is an environment; a folder
//!   and a file of the same name are one environment), or `values/` (the
//!   same, except that a file holding a `#@data/values-schema` document is a
//!   library's, not an environment). It applies to the libraries inside the folder that
//!   holds it: at the repository root, to every library;
//! * in an environment folder, `<library>.yml` and `<library>/` are for that
//!   library alone, every other file for every library;
//! * an environment YAML file with a `#@data/values` (or schema) document is
//!   given to ytt with `-f`, a plain one with `--data-values-file`; other
//!   files (helpers) with `-f`;
//! * a library with no environment is checked with its defaults alone.

use std::collections::{BTreeMap, BTreeSet};

use std::sync::Arc;

use crate::source::{walk, RepoPath, SourceCache};
use crate::yaml::SourceFile;

use super::annotations::values_marks;
use super::config::CONFIG_FILE;
use super::patterns::glob_set;
use super::plan::{EnvInputs, FileArg, PlanProblem};

/// Folder names that hold environments.
const ENV_ROOTS: &[&str] = &["envs", "environments"];
/// Folder names that hold environments unless a file in them is a library's
/// own (a `#@data/values-schema` document): `values/<name>.yaml` is the
/// layout of many packages' example values.
const ENV_ROOTS_OF_VALUES: &[&str] = &["values"];
const PRIVATE_LIB_DIR: &str = "_ytt_lib";

/// The files of a repository (their texts read once, through the cache the
/// check reads them from too).
pub struct RepoFiles<'a> {
    pub sources: &'a SourceCache<'a>,
    /// Sorted.
    pub files: Vec<RepoPath>,
    /// Every folder holding a file, sorted.
    pub dirs: BTreeSet<RepoPath>,
    pub problems: Vec<PlanProblem>,
    /// Each file's [`RepoFiles::values_marks`], once asked.
    marks: std::sync::Mutex<std::collections::HashMap<RepoPath, (bool, bool)>>,
}

impl<'a> RepoFiles<'a> {
    /// Walks the snapshot, leaving out `exclude` globs (a pattern naming a
    /// folder leaves out everything in it).
    pub fn scan(sources: &'a SourceCache<'a>, exclude: &[String]) -> RepoFiles<'a> {
        let (files, errors) = walk(sources.snapshot(), &RepoPath::root());
        let excluded = glob_set(exclude);
        let files: Vec<RepoPath> = files
            .into_iter()
            .filter(|f| !excluded.as_ref().is_some_and(|g| g.is_match(f.as_str())))
            .collect();
        let mut dirs = BTreeSet::new();
        dirs.insert(RepoPath::root());
        for f in &files {
            let mut p = f.parent();
            while let Some(d) = p {
                if !dirs.insert(d.clone()) {
                    break;
                }
                p = d.parent();
            }
        }
        RepoFiles {
            sources,
            files,
            dirs,
            problems: errors
                .into_iter()
                .filter(|e| !excluded.as_ref().is_some_and(|g| g.is_match(&e.path)))
                .map(|e| PlanProblem {
                    path: RepoPath::new(&e.path).unwrap_or_default(),
                    message: e.message,
                    about: None,
                    line: None,
                    in_config: false,
                })
                .collect(),
            marks: Default::default(),
        }
    }

    /// Whether a file holds `#@data/values-schema` and `#@data/values`
    /// documents ([`super::annotations::values_marks`]; neither when it
    /// cannot be read). Asked once per file: discovery, the `values/`
    /// folders and the loose values files all ask, and a yes costs a parse.
    pub fn values_marks(&self, path: &RepoPath) -> (bool, bool) {
        if let Some(marks) = self.marks.lock().expect("marks").get(path) {
            return *marks;
        }
        let marks = self.text(path).map_or((false, false), |t| values_marks(&t));
        self.marks
            .lock()
            .expect("marks")
            .insert(path.clone(), marks);
        marks
    }

    /// Whether a file holds a `#@data/values` or `#@data/values-schema`
    /// document.
    pub fn holds_values_documents(&self, path: &RepoPath) -> bool {
        let (schema, values) = self.values_marks(path);
        schema || values
    }

    /// A file's text, or `None` when it cannot be read as text.
    pub fn text(&self, path: &RepoPath) -> Option<Arc<SourceFile>> {
        self.sources.get(path).ok()
    }

    /// Files in `dir` (at any depth).
    pub fn under<'s>(&'s self, dir: &RepoPath) -> &'s [RepoPath] {
        below(&self.files, dir)
    }

    pub fn is_dir(&self, dir: &RepoPath) -> bool {
        self.dirs.contains(dir)
    }

    pub fn is_file(&self, path: &RepoPath) -> bool {
        self.files.binary_search(path).is_ok()
    }
}

/// The paths of `sorted` inside `dir` (at any depth; the root holds all),
/// by binary search: paths with a common prefix are contiguous in sorted
/// order, and those starting `dir/` sort before `dir0` (`0` follows `/`).
fn below<'s>(sorted: &'s [RepoPath], dir: &RepoPath) -> &'s [RepoPath] {
    if dir.is_root() {
        return sorted;
    }
    let dir = dir.as_str();
    let (start, end) = (format!("{dir}/"), format!("{dir}0"));
    let from = sorted.partition_point(|p| p.as_str() < start.as_str());
    let to = sorted.partition_point(|p| p.as_str() < end.as_str());
    &sorted[from..to]
}

pub(super) fn in_private_lib(p: &RepoPath) -> bool {
    p.components().any(|c| c == PRIVATE_LIB_DIR)
}

/// ytt reads these as templates or Starlark.
pub(super) fn is_ytt_file(p: &RepoPath) -> bool {
    let n = p.file_name();
    p.is_yaml() || n.ends_with(".star") || n.ends_with(".txt")
}

/// An environment found on disk: folders and files of one name in one
/// environment root.
#[derive(Debug, Clone)]
pub(super) struct FoundEnv {
    pub(super) name: String,
    /// The folder and/or YAML file(s) it is made of.
    pub(super) parts: Vec<(RepoPath, bool)>,
    /// Libraries under this folder are the ones it applies to.
    pub(super) scope: RepoPath,
}

/// The environment roots of a repository and the paths they claim.
/// `declared` are the folders `.yttcheck.yml` makes libraries; `other_tools`
/// tells another tool's file (see [`discover_libraries`]); a `values/`
/// folder that is a library's own is said in `conventions`.
pub(super) fn find_envs(
    files: &RepoFiles,
    declared: &[RepoPath],
    other_tools: &dyn Fn(&RepoPath) -> bool,
    conventions: &mut Vec<(RepoPath, String)>,
) -> (Vec<FoundEnv>, Vec<RepoPath>) {
    let mut out: Vec<FoundEnv> = Vec::new();
    let mut claimed: Vec<RepoPath> = Vec::new();
    for d in &files.dirs {
        let name = d.file_name();
        let values_root = ENV_ROOTS_OF_VALUES.contains(&name);
        if d.is_root() || !(ENV_ROOTS.contains(&name) || values_root) || in_private_lib(d) {
            continue;
        }
        // `values/` beside a library's templates, all of whose YAML files
        // are `#@data/values` documents, and the only defaults there, is
        // the library's own folder of defaults (`config/values/00-values.yml`,
        // `10-images.yml`), read by `ytt -f config`: environments are
        // beside or above libraries. Plain YAML there would render as
        // templates: those are environments still
        if values_root && is_library_values_folder(files, d, declared, other_tools) {
            conventions.push((
                d.clone(),
                "no environments: #@data/values files beside the library's templates are its own defaults (ytt -f reads them)".to_string(),
            ));
            continue;
        }
        // an environment root inside another environment is part of that one
        if claimed.iter().any(|c| d.starts_with(c)) {
            continue;
        }
        let scope = d.parent().unwrap_or_default();
        let mut by_name: BTreeMap<String, Vec<(RepoPath, bool)>> = BTreeMap::new();
        for f in files.under(d) {
            let rel = f.strip_prefix(d).unwrap_or("");
            match rel.split_once('/') {
                Some((child, _)) => {
                    let path = d.join(child);
                    let parts = by_name.entry(child.to_string()).or_default();
                    if !parts.contains(&(path.clone(), true)) {
                        parts.push((path, true));
                    }
                }
                None if f.is_yaml() && !(values_root && files.values_marks(f).0) => {
                    by_name
                        .entry(f.stem().to_string())
                        .or_default()
                        .push((f.clone(), false));
                }
                None => {}
            }
        }
        for (name, parts) in by_name {
            claimed.extend(parts.iter().map(|(p, _)| p.clone()));
            out.push(FoundEnv {
                name,
                parts,
                scope: scope.clone(),
            });
        }
    }
    claimed.sort();
    (out, claimed)
}

/// Whether a `values/` folder is a library's own (see [`find_envs`]): in a
/// declared library, or beside templates (at any depth of its parent, not
/// in a private library) with no other defaults or schema there, and
/// holding `#@data/values` documents only.
fn is_library_values_folder(
    files: &RepoFiles,
    dir: &RepoPath,
    declared: &[RepoPath],
    other_tools: &dyn Fn(&RepoPath) -> bool,
) -> bool {
    let parent = dir.parent().unwrap_or_default();
    if parent.is_root() || !all_values_documents(files, dir) {
        return false;
    }
    if declared.iter().any(|l| parent.starts_with(l)) {
        return true;
    }
    let beside: Vec<&RepoPath> = files
        .under(&parent)
        .iter()
        .filter(|f| !f.starts_with(dir) && !in_private_lib(f) && is_ytt_file(f) && !other_tools(f))
        .collect();
    !beside.is_empty()
        && !beside
            .iter()
            .any(|f| f.is_yaml() && files.holds_values_documents(f))
}

/// Whether every YAML file in `dir` holds a `#@data/values` or
/// `#@data/values-schema` document (and there is one).
fn all_values_documents(files: &RepoFiles, dir: &RepoPath) -> bool {
    let mut yaml = files.under(dir).iter().filter(|f| f.is_yaml()).peekable();
    yaml.peek().is_some() && yaml.all(|f| files.holds_values_documents(f))
}

/// The folders that directly hold ytt files (YAML, Starlark, text) that are
/// neither `claimed` nor another tool's.
fn folders_holding_ytt_files<'f>(
    files: &'f RepoFiles,
    claimed: &[RepoPath],
    other_tools: &dyn Fn(&RepoPath) -> bool,
) -> BTreeSet<&'f str> {
    files
        .files
        .iter()
        .filter(|f| is_ytt_file(f) && !is_claimed(claimed, f) && !other_tools(f))
        .filter_map(|f| f.as_str().rsplit_once('/').map(|(dir, _)| dir))
        .collect()
}

/// Whether `f` is (in) one of the `claimed` paths (sorted): one binary
/// search per ancestor.
pub(super) fn is_claimed(claimed: &[RepoPath], f: &RepoPath) -> bool {
    if claimed.is_empty() {
        return false;
    }
    // the path and each ancestor, as slices of it (no allocation: this runs
    // for every file of the repository)
    let path = f.as_str();
    let found = |p: &str| claimed.binary_search_by(|c| c.as_str().cmp(p)).is_ok();
    if path.is_empty() {
        return false;
    }
    if found(path) {
        return true;
    }
    path.match_indices('/').any(|(i, _)| found(&path[..i]))
}

/// The library folders of the repository, and the folders with values that
/// conventions set aside, with why. `other_tools` tells another tool's file
/// (a library does not climb to a folder for it).
pub(super) fn discover_libraries(
    files: &RepoFiles,
    claimed: &[RepoPath],
    other_tools: &dyn Fn(&RepoPath) -> bool,
) -> (Vec<RepoPath>, Vec<(RepoPath, String)>) {
    // every YAML file is read for its annotations: on all cores (reading
    // is most of discovery), each file once for both
    use rayon::prelude::*;
    let yaml: Vec<&RepoPath> = files
        .files
        .iter()
        .filter(|f| f.is_yaml() && !is_claimed(claimed, f) && !in_private_lib(f))
        .collect();
    let marks: Vec<(bool, bool)> = yaml
        .par_iter()
        .with_min_len(16)
        .map(|f| files.values_marks(f))
        .collect();
    // a library's own `values/` folder of defaults (see `find_envs`: one
    // that is not an environment root is the library's) marks the folder
    // holding it
    let marked = |which: fn(&(bool, bool)) -> bool, lift: bool| -> BTreeSet<RepoPath> {
        yaml.iter()
            .zip(&marks)
            .filter(|(_, m)| which(m))
            .filter_map(|(f, _)| f.parent())
            .map(|d| match d.parent() {
                Some(up)
                    if lift && ENV_ROOTS_OF_VALUES.contains(&d.file_name()) && !up.is_root() =>
                {
                    up
                }
                _ => d,
            })
            .collect()
    };
    let mut roots = marked(|m| m.0, false);
    // libraries without a schema: folders with `@data/values` defaults that
    // are neither inside nor around a schema library
    let mut defaults = marked(|m| m.1, true);
    // the repository root is never a library while folders below it are:
    // a sample values file at the root is an environment (see `loose`);
    // it is one only when nothing below is
    let root_marked = defaults.remove(&RepoPath::root()) || roots.contains(&RepoPath::root());
    if roots.len() > 1 {
        roots.remove(&RepoPath::root());
    }
    let from_schema = roots.clone();
    for r in defaults {
        if !has_at_or_above(&roots, &r) && !has_below(&roots, &r) {
            roots.insert(r);
        }
    }
    // climb while the folder above holds more of this library's files and
    // no other library; each question is a lookup in a sorted set, not a
    // scan (a monorepo has hundreds of libraries)
    let candidates: Vec<RepoPath> = roots.into_iter().collect();
    // folders holding ytt files right in them (not only in sub-folders,
    // which may be other things entirely)
    // (other tools' files are not ytt's: a bundle's vendir.yml, the
    // Package CR beside a bundle; a library does not climb to them)
    let holding_ytt_files = folders_holding_ytt_files(files, claimed, other_tools);
    let mut climbed = BTreeSet::new();
    for root in &candidates {
        let mut r = root.clone();
        while let Some(parent) = r.parent() {
            if parent.is_root() {
                break;
            }
            // another library below the folder above (`root` is one)
            let others = count_at_or_below(&candidates, &parent, 2) > 1;
            if others || !holding_ytt_files.contains(parent.as_str()) {
                break;
            }
            r = parent;
        }
        climbed.insert(r);
    }
    // a folder of `#@data/values` files and nothing else to render is no
    // library: its files are values for one (`ci/inputs/x.yml`,
    // `tests/ytt/capi/values.yml`), matched by their keys (see `loose`)
    let values_only: BTreeSet<&RepoPath> = yaml
        .iter()
        .zip(&marks)
        .filter(|(_, m)| m.1 && !m.0)
        .map(|(f, _)| *f)
        .collect();
    let renders = |root: &RepoPath| {
        files.under(root).iter().any(|f| {
            is_ytt_file(f)
                && !values_only.contains(f)
                && !in_private_lib(f)
                && !is_claimed(claimed, f)
                && !other_tools(f)
        })
    };
    let mut set_aside = Vec::new();
    climbed.retain(|r| {
        if has_at_or_above(&from_schema, r) || has_below(&from_schema, r) {
            return true;
        }
        if !renders(r) {
            set_aside.push((
                r.clone(),
                "no library: #@data/values files and nothing to render; each is an environment of the library its keys are (or no one's)".to_string(),
            ));
            return false;
        }
        if let Some(script) = rendered_with_generated_input(files, r) {
            set_aside.push((
                r.clone(),
                format!("no library: {script} renders it with generated input (ytt -f -)"),
            ));
            return false;
        }
        true
    });
    if climbed.is_empty() && root_marked {
        climbed.insert(RepoPath::root());
    } else if root_marked {
        set_aside.push((
            RepoPath::root(),
            "no library: the repository root holds data values, but folders below it are libraries; its values files are environments of the library their keys are".to_string(),
        ));
    }
    // a library inside another is part of it
    let inside_another = |r: &RepoPath| r.parent().is_some_and(|p| has_at_or_above(&climbed, &p));
    let libraries = climbed
        .iter()
        .filter(|r| !inside_another(r))
        .cloned()
        .collect();
    (libraries, set_aside)
}

/// A script in `dir` that runs ytt on standard input (`-f -`): the folder
/// is rendered with input a build generates (`istioctl manifest generate |
/// ytt -f values.yaml -f - -f overlays`), not on its own.
fn rendered_with_generated_input(files: &RepoFiles, dir: &RepoPath) -> Option<RepoPath> {
    files
        .under(dir)
        .iter()
        .filter(|f| f.parent().as_ref() == Some(dir) && f.file_name().ends_with(".sh"))
        .find(|f| files.text(f).is_some_and(|t| runs_ytt_on_stdin(t.text())))
        .cloned()
}

/// Whether a shell script runs `ytt` with a file `-` (continued lines
/// joined).
fn runs_ytt_on_stdin(script: &str) -> bool {
    let joined = script.replace("\\\n", " ");
    joined.lines().any(|line| {
        let words: Vec<&str> = line.split_whitespace().collect();
        words.iter().any(|w| *w == "ytt" || w.ends_with("/ytt"))
            && (words
                .windows(2)
                .any(|p| matches!(p[0], "-f" | "--file") && p[1] == "-")
                || words
                    .iter()
                    .any(|w| matches!(*w, "-f-" | "--file=-" | "/dev/stdin")))
    })
}

/// Whether `set` holds `dir` or a folder around it.
fn has_at_or_above(set: &BTreeSet<RepoPath>, dir: &RepoPath) -> bool {
    let mut at = Some(dir.clone());
    while let Some(a) = at {
        if set.contains(&a) {
            return true;
        }
        at = a.parent();
    }
    false
}

/// Whether `set` holds a path inside `dir` (not `dir` itself).
fn has_below(set: &BTreeSet<RepoPath>, dir: &RepoPath) -> bool {
    if dir.is_root() {
        return set.iter().any(|p| !p.is_root());
    }
    let prefix = format!("{}/", dir.as_str());
    set.range::<str, _>((
        std::ops::Bound::Included(prefix.as_str()),
        std::ops::Bound::Unbounded,
    ))
    .next()
    .is_some_and(|p| p.as_str().starts_with(&prefix))
}

/// How many of the `sorted` paths are `dir` or inside it, counting up to
/// `limit`.
fn count_at_or_below(sorted: &[RepoPath], dir: &RepoPath, limit: usize) -> usize {
    if dir.is_root() {
        return sorted.len().min(limit);
    }
    let own = usize::from(sorted.binary_search(dir).is_ok());
    (own + below(sorted, dir).len()).min(limit)
}

pub(super) fn library_files(
    files: &RepoFiles,
    root: &RepoPath,
    claimed: &[RepoPath],
) -> Vec<RepoPath> {
    // a single-file library (`path: ci/templates/x.yml`) is its file
    if files.is_file(root) {
        return vec![root.clone()];
    }
    files
        .under(root)
        .iter()
        .filter(|f| !is_claimed(claimed, f) && f.as_str() != CONFIG_FILE)
        .cloned()
        .collect()
}

/// The files under a library's folder that it does not read, relative to
/// the folder, a whole folder of them as `folder/**/*` (ytt's `--file-mark`
/// pattern for everything below it).
pub(super) fn left_out(files: &RepoFiles, root: &RepoPath, own: &[RepoPath]) -> Vec<String> {
    let own: BTreeSet<&RepoPath> = own.iter().collect();
    let under: Vec<&RepoPath> = files.under(root).iter().collect();
    let rel = |f: &RepoPath| f.strip_prefix(root).unwrap_or(f.as_str()).to_string();
    let mut out: Vec<String> = Vec::new();
    let mut covered: Vec<String> = Vec::new();
    for f in under.iter().filter(|f| !own.contains(*f)) {
        let r = rel(f);
        if covered.iter().any(|c| r.starts_with(c.as_str())) {
            continue;
        }
        // the highest folder on the way whose files are all left out
        let mut whole: Option<String> = None;
        let mut dir = String::new();
        for piece in r
            .split('/')
            .collect::<Vec<_>>()
            .split_last()
            .map_or(&[][..], |(_, d)| d)
        {
            dir = if dir.is_empty() {
                piece.to_string()
            } else {
                format!("{dir}/{piece}")
            };
            let prefix = format!("{dir}/");
            let all_out = under
                .iter()
                .filter(|g| rel(g).starts_with(&prefix))
                .all(|g| !own.contains(*g));
            if all_out {
                whole = Some(prefix);
                break;
            }
        }
        match whole {
            Some(prefix) => {
                out.push(format!("{prefix}**/*"));
                covered.push(prefix);
            }
            None => out.push(r),
        }
    }
    out
}

/// Sorts an environment's files for one library into `-f` files and plain
/// values files.
fn classify(files: &RepoFiles, args: impl IntoIterator<Item = FileArg>, inputs: &mut EnvInputs) {
    for a in args {
        let plain = a.path.is_yaml()
            && files.text(&a.path).is_some()
            && !files.holds_values_documents(&a.path);
        if plain {
            inputs.data_values_files.push(a.path);
        } else {
            // annotated, a helper, or unreadable (reported when read)
            inputs.files.push(a);
        }
    }
}

/// An environment's files, by owner: the library a file or folder is named
/// after (or `None`: for every library); and the YAML files named after no
/// library, which no library reads.
pub(super) struct EnvFiles {
    by_owner: BTreeMap<Option<String>, Vec<FileArg>>,
    pub(super) unmatched: Vec<RepoPath>,
}

/// Names of environment files and folders that are for every library of
/// the environment: `common.yml`, `shared/`, `values.yml`, and any name
/// starting with `_` (`_all.yml`).
const ENV_WIDE_NAMES: &[&str] = &["common", "shared", "global", "all", "values", "defaults"];

/// Whether an environment file or folder of this name (a file's stem) is
/// for every library of the environment.
pub(super) fn is_env_wide(name: &str) -> bool {
    name.starts_with('_') || ENV_WIDE_NAMES.contains(&name)
}

/// The library a file or folder named `<library>-more` (or `.more`, `_more`)
/// is for: the longest library name it starts with, then a separator.
fn prefixed_owner(named: &str, names: &BTreeSet<String>) -> Option<String> {
    names
        .iter()
        .filter(|n| {
            named.len() > n.len()
                && named.starts_with(n.as_str())
                && matches!(named.as_bytes()[n.len()], b'-' | b'.' | b'_')
        })
        .max_by_key(|n| n.len())
        .cloned()
}

/// Sorts an environment's files by the library each is for. In an
/// environment of several libraries, a YAML file or folder named after no
/// library and by no environment-wide name is nobody's: applied to every
/// library, a values file meant for one breaks all the others.
pub(super) fn env_files(
    files: &RepoFiles,
    env: &FoundEnv,
    names: &BTreeSet<String>,
    ambiguous: &BTreeSet<String>,
    problems: &mut Vec<PlanProblem>,
) -> EnvFiles {
    let mut by_owner: BTreeMap<Option<String>, Vec<FileArg>> = BTreeMap::new();
    let mut unmatched = Vec::new();
    for (path, is_dir) in &env.parts {
        if !is_dir {
            by_owner
                .entry(None)
                .or_default()
                .push(FileArg::single(path.clone()));
            continue;
        }
        for f in files.under(path) {
            let rel = f.strip_prefix(path).unwrap_or("");
            let named = match rel.split_once('/') {
                Some((dir, _)) => dir,
                None => f.stem(),
            };
            if ambiguous.contains(named) && !names.contains(named) {
                // several libraries are named after this folder: whose is it?
                problems.push(PlanProblem {
                    path: f.clone(),
                    message: format!(
                        "several libraries have a folder named '{named}' (so they are named otherwise): which one is {f} for? Rename it after the library's name (see `yttcheck list`) or declare the environment in .yttcheck.yml"
                    ),
                    about: None,
                    line: None,
                    in_config: false,
                });
                continue;
            }
            // nobody's: a values file (or a folder) named like no library,
            // where the environment has several
            let nobodys = |is_values: bool| {
                is_values && names.len() > 1 && !names.contains(named) && !is_env_wide(named)
            };
            let (owner, arg) = match rel.split_once('/') {
                // `<library>/...`: ytt paths relative to that folder
                Some((dir, rest)) if names.contains(dir) => (
                    Some(dir.to_string()),
                    FileArg {
                        path: f.clone(),
                        rel: rest.to_string(),
                    },
                ),
                // `<library>-more/...`
                Some((dir, _)) if prefixed_owner(dir, names).is_some() => (
                    prefixed_owner(dir, names),
                    FileArg {
                        path: f.clone(),
                        rel: rel.to_string(),
                    },
                ),
                Some(_) if nobodys(is_ytt_file(f)) => {
                    unmatched.push(f.clone());
                    continue;
                }
                Some(_) => (
                    None,
                    FileArg {
                        path: f.clone(),
                        rel: rel.to_string(),
                    },
                ),
                None if names.contains(f.stem()) && f.is_yaml() => {
                    (Some(f.stem().to_string()), FileArg::single(f.clone()))
                }
                // `<library>-more.yml`, `<library>.more.yml`
                None if f.is_yaml() && prefixed_owner(f.stem(), names).is_some() => {
                    (prefixed_owner(f.stem(), names), FileArg::single(f.clone()))
                }
                None if nobodys(f.is_yaml()) => {
                    unmatched.push(f.clone());
                    continue;
                }
                None => (None, FileArg::single(f.clone())),
            };
            by_owner.entry(owner).or_default().push(arg);
        }
    }
    EnvFiles {
        by_owner,
        unmatched,
    }
}

pub(super) fn inputs_for(ef: &EnvFiles, library: &str) -> EnvInputs {
    let mut inputs = EnvInputs::default();
    let common = ef.by_owner.get(&None).cloned().unwrap_or_default();
    let own = ef
        .by_owner
        .get(&Some(library.to_string()))
        .cloned()
        .unwrap_or_default();
    inputs.unsorted = common.into_iter().chain(own).collect();
    inputs
}

/// Sorts an environment's unsorted files (see [`EnvInputs::unsorted`]).
pub(super) fn sort_inputs(files: &RepoFiles, inputs: &mut EnvInputs) {
    let unsorted = std::mem::take(&mut inputs.unsorted);
    classify(files, unsorted, inputs);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sorted-set lookups answer what a scan of every path answers
    /// (`starts_with` is "is or is inside"), for every pair of a tree with
    /// look-alike names (`libs-x` sorts between `libs` and `libs/...`).
    #[test]
    fn set_lookups_agree_with_a_scan() {
        let all: Vec<RepoPath> = [
            "",
            "libs",
            "libs-x",
            "libs-x/a",
            "libs/a",
            "libs/a/b",
            "libs/ab",
            "libs/b/c/d",
            "x",
        ]
        .iter()
        .map(|p| RepoPath::new(p).unwrap())
        .collect();
        // every subset of the paths as the set, every path as the question
        for mask in 0u32..(1 << all.len()) {
            let set: BTreeSet<RepoPath> = all
                .iter()
                .enumerate()
                .filter(|(i, _)| mask & (1 << i) != 0)
                .map(|(_, p)| p.clone())
                .collect();
            let sorted: Vec<RepoPath> = set.iter().cloned().collect();
            for dir in &all {
                let above = set.iter().any(|s| dir.starts_with(s));
                let below = set.iter().any(|s| s != dir && s.starts_with(dir));
                let count = set.iter().filter(|s| s.starts_with(dir)).count();
                assert_eq!(has_at_or_above(&set, dir), above, "{dir} in {set:?}");
                assert_eq!(has_below(&set, dir), below, "{dir} in {set:?}");
                for limit in 1..4 {
                    assert_eq!(
                        count_at_or_below(&sorted, dir, limit),
                        count.min(limit),
                        "{dir} in {set:?}"
                    );
                }
            }
        }
    }
}
