//! Values files that lie outside every library and environment folder (a
//! `sample-install-values.yml` at the repository root, `ci/inputs/x.yml`):
//! each is an environment of the library whose declared values its keys
//! are, wherever it lies, as `ytt -f config -f sample-install-values.yml`
//! uses it.
//!
//! A library's declared values are the top-level keys of its schema, or,
//! without one, of its `#@data/values` defaults: exactly the keys a values
//! file may set without `missing_ok`, so a file that ytt takes for a
//! library matches it. A file matches when every key it sets is declared by
//! the library, and by no other library as fully (two libraries that
//! declare all its keys leave it to `.yttcheck.yml`). Files under a test
//! folder (`tests/`, `e2e/`...) set a few keys for a harness that adds the
//! rest: they make no pair. Each file's fate is kept, with why, for
//! `yttcheck list --all`.

use std::collections::BTreeSet;

use crate::source::RepoPath;
use crate::yaml::{Document, Value};

use super::annotations::meta_names;
use super::discover::{in_private_lib, is_claimed, RepoFiles};
use super::plan::{EnvInputs, FileArg, Library, LooseFile, LooseOutcome};

/// Folders whose values files are a test harness's input.
const TEST_FOLDERS: &[&str] = &["test", "tests", "testing", "testdata", "e2e", "fixtures"];

/// The values files outside `libraries` and the `claimed` environment
/// paths, each matched to a library by its keys. `skip` tells files that
/// are no one's values (other tools', vendored).
pub(super) fn match_files(
    files: &RepoFiles,
    libraries: &[Library],
    claimed: &[RepoPath],
    skip: &dyn Fn(&RepoPath) -> bool,
) -> Vec<LooseFile> {
    if libraries.is_empty() || libraries.iter().any(|l| l.root.is_root()) {
        return Vec::new();
    }
    let candidates: Vec<(RepoPath, bool)> = files
        .files
        .iter()
        .filter(|f| {
            f.is_yaml()
                && !in_private_lib(f)
                && !libraries.iter().any(|l| f.starts_with(&l.root))
                && !is_claimed(claimed, f)
        })
        .filter_map(|f| {
            let (schema, values) = files.values_marks(f);
            let plain_values = !schema && !values && f.file_name().contains("values");
            ((values && !schema) || plain_values).then(|| (f.clone(), values))
        })
        .filter(|(f, _)| !skip(f))
        .collect();
    if candidates.is_empty() {
        return Vec::new();
    }
    let declared: Vec<BTreeSet<String>> =
        libraries.iter().map(|l| declared_keys(files, l)).collect();
    let mut out = Vec::new();
    for (path, annotated) in candidates {
        let in_tests = path
            .components()
            .any(|c| TEST_FOLDERS.contains(&c.to_ascii_lowercase().as_str()));
        let keys = file_keys(files, &path, annotated);
        let outcome = if in_tests {
            LooseOutcome::TestInput
        } else {
            match keys {
                // a file that sets nothing, or does not parse, is no one's
                // environment (the check reports what does not parse)
                None => continue,
                Some(keys) if keys.is_empty() => continue,
                Some(keys) => outcome_for(path.stem(), &keys, &declared, libraries),
            }
        };
        // a plain file that no library's keys fit is some other tool's
        if !annotated && !matches!(outcome, LooseOutcome::Environment { .. }) {
            continue;
        }
        out.push(LooseFile {
            path,
            annotated,
            outcome,
        });
    }
    out
}

/// Each file that is an environment, added to its library's environments
/// (an annotated file with `-f`, a plain one with `--data-values-file`).
pub(super) fn add_environments(
    loose: &[LooseFile],
    per_lib: &mut [Vec<(String, EnvInputs, Vec<RepoPath>)>],
) {
    for file in loose {
        if let LooseOutcome::Environment { library, .. } = file.outcome {
            let mut inputs = EnvInputs::default();
            if file.annotated {
                inputs.files.push(FileArg::single(file.path.clone()));
            } else {
                inputs.data_values_files.push(file.path.clone());
            }
            per_lib[library].push((file.environment(), inputs, vec![file.path.clone()]));
        }
    }
}

/// Which library a file setting `keys` belongs to.
fn outcome_for(
    stem: &str,
    keys: &BTreeSet<String>,
    declared: &[BTreeSet<String>],
    libraries: &[Library],
) -> LooseOutcome {
    let fitting: Vec<usize> = (0..libraries.len())
        .filter(|&i| keys.is_subset(&declared[i]))
        .collect();
    // a library that declares no values (`ci/templates/x.yml`) takes the
    // values file named as it is (`ci/inputs/x.yml`)
    let named = (0..libraries.len()).find(|&i| declared[i].is_empty() && libraries[i].name == stem);
    match (fitting.as_slice(), named) {
        ([one], _) => LooseOutcome::Environment {
            library: *one,
            by_name: false,
        },
        ([], Some(library)) => LooseOutcome::Environment {
            library,
            by_name: true,
        },
        ([], None) => LooseOutcome::NoLibrary {
            undeclared: keys
                .iter()
                .filter(|k| !declared.iter().any(|d| d.contains(*k)))
                .cloned()
                .collect(),
        },
        (many, _) => {
            LooseOutcome::Ambiguous(many.iter().map(|&i| libraries[i].name.clone()).collect())
        }
    }
}

fn top_keys(doc: &Document, into: &mut BTreeSet<String>) {
    if let Value::Map(m) = &doc.value {
        into.extend(m.items.iter().map(|i| i.key_display()));
    }
}

/// The top-level keys a library declares: its schema's, else its
/// `#@data/values` defaults'. A private library's are its own.
fn declared_keys(files: &RepoFiles, library: &Library) -> BTreeSet<String> {
    let own: Vec<&RepoPath> = library
        .files
        .iter()
        .chain(library.extra_files.iter().map(|f| &f.path))
        .filter(|f| f.is_yaml() && !in_private_lib(f))
        .collect();
    let mut schema = BTreeSet::new();
    let mut defaults = BTreeSet::new();
    for f in own {
        if !files.holds_values_documents(f) {
            continue;
        }
        let Some(text) = files.text(f) else { continue };
        let Ok(set) = crate::yaml::parse::parse(&text, true) else {
            continue;
        };
        for doc in &set.docs {
            if meta_names(&doc.meta, "data/values-schema") {
                top_keys(doc, &mut schema);
            } else if meta_names(&doc.meta, "data/values") {
                top_keys(doc, &mut defaults);
            }
        }
    }
    if schema.is_empty() {
        defaults
    } else {
        schema
    }
}

/// The top-level keys a values file sets: of its `#@data/values` documents
/// when it has them (its marks say so, confirmed by a parse), else of all
/// its documents. `None` when it does not parse.
fn file_keys(files: &RepoFiles, path: &RepoPath, annotated_file: bool) -> Option<BTreeSet<String>> {
    let text = files.text(path)?;
    let set = crate::yaml::parse::parse(&text, true).ok()?;
    let mut keys = BTreeSet::new();
    for doc in &set.docs {
        if !annotated_file || meta_names(&doc.meta, "data/values") {
            top_keys(doc, &mut keys);
        }
    }
    Some(keys)
}
