//! Carvel `Package` CRs (kapp-controller's `data.packaging.carvel.dev`)
//! lying in the repository, each tied to the library it packages, so the
//! check can hold the CR's `spec.valuesSchema.openAPIv3` (what `kctrl` and
//! `tanzu package available get --values-schema` show a package's users)
//! to the library's own schema.
//!
//! A CR is tied by what it says: its `spec.template.spec.template[].ytt.paths`
//! name folders of its bundle (`config/`), and the bundle lies beside the CR
//! (`packages/x/1.0.0/package.yaml` and `packages/x/1.0.0/bundle/config/`).
//! When no path says it, the one library under the CR's folder is its; a
//! library entry of `.yttcheck.yml` may name its CR (`package:`) outright.

use std::sync::Arc;

use crate::source::RepoPath;
use crate::yaml::node::{DocSet, Value};

use super::discover::RepoFiles;
use super::plan::{Library, PackageCr};

/// The API group of kapp-controller's packaging CRs.
const GROUP: &str = "data.packaging.carvel.dev/";

/// Whether a file's text may hold a Package CR: a cheap look before it is
/// parsed (most YAML files of a repository hold none).
pub fn may_hold_packages(text: &str) -> bool {
    text.contains(GROUP) && kinds(text).any(|k| k == "Package")
}

/// The values of a text's `kind:` lines, unquoted (a cheap look at what
/// its documents are, before anything is parsed).
pub(super) fn kinds(text: &str) -> impl Iterator<Item = &str> {
    text.lines().filter_map(|l| {
        Some(
            l.trim()
                .strip_prefix("kind:")?
                .trim()
                .trim_matches(['"', '\'']),
        )
    })
}

/// Whether what a file says, beyond its `#@` lines, can change the plan:
/// Carvel packaging documents (a Package's ytt paths, an install's package
/// and Secrets) and Secrets (their names and keys are an install's values
/// files). A long-lived process plans again when such a file changes.
pub fn shapes_plan(text: &str) -> bool {
    text.contains("packaging.carvel.dev/") || crate::secrets::has_top_kind(text, "Secret")
}

/// Whether a file's text holds Carvel packaging documents that are no ytt
/// input (`PackageMetadata`, `PackageInstall`, `PackageRepository`...):
/// another tool's files, never a `workspace/unused-file`. (A `Package` CR
/// tied to no library is one: `package:` on a library's entry ties it.)
pub fn holds_packaging_metadata(text: &str) -> bool {
    text.contains("packaging.carvel.dev/")
        && kinds(text).any(|k| {
            k.strip_prefix("Package")
                .is_some_and(|rest| !rest.is_empty())
        })
}

/// The documents of a parsed file that are Package CRs, with their index.
pub fn package_documents(docs: &DocSet) -> impl Iterator<Item = (usize, &Value)> {
    docs.docs.iter().enumerate().filter_map(|(i, d)| {
        let m = d.value.as_map()?;
        let api = m.get("apiVersion")?.value.as_str()?;
        let kind = m.get("kind")?.value.as_str()?;
        (api.starts_with(GROUP) && kind == "Package").then_some((i, &d.value))
    })
}

/// A map's value at a path of keys.
pub fn at<'v>(v: &'v Value, path: &[&str]) -> Option<&'v Value> {
    path.iter()
        .try_fold(v, |v, k| Some(&v.as_map()?.get(k)?.value))
}

/// The CR's `metadata.name`.
pub fn package_name(doc: &Value) -> String {
    at(doc, &["metadata", "name"])
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string()
}

/// What a Package CR says of itself (`tied_by` left for the caller).
fn package_cr(path: &RepoPath, document: usize, doc: &Value) -> PackageCr {
    let text = |p: &[&str]| at(doc, p).and_then(Value::as_str).unwrap_or("").to_string();
    PackageCr {
        path: path.clone(),
        document,
        name: package_name(doc),
        ref_name: text(&["spec", "refName"]),
        version: text(&["spec", "version"]),
        tied_by: String::new(),
    }
}

/// The folders of its bundle a Package's ytt step reads
/// (`spec.template.spec.template[].ytt.paths`), normalised (`config`), the
/// standard input (`-`) left out.
fn ytt_paths(doc: &Value) -> Vec<String> {
    let Some(steps) = at(doc, &["spec", "template", "spec", "template"]).and_then(Value::as_array)
    else {
        return Vec::new();
    };
    steps
        .items
        .iter()
        .filter_map(|s| at(&s.value, &["ytt", "paths"])?.as_array())
        .flat_map(|a| a.items.iter().filter_map(|p| p.value.as_str()))
        .map(|p| p.trim_start_matches("./").trim_end_matches('/').to_string())
        .filter(|p| !p.is_empty() && p != "-" && p != ".")
        .collect()
}

/// Ties the Package CRs of the repository to `libraries` (their `packages`):
/// first the CR files library entries name (`declared`: the library's
/// index, the file), then every other YAML file that holds a Package CR and
/// is no library's file. A CR that ties to no library, or to several, is
/// left alone (its file is then an unused file, as any other).
pub(super) fn tie(files: &RepoFiles, libraries: &mut [Library], declared: &[(usize, RepoPath)]) {
    let parsed = |path: &RepoPath| -> Option<(Arc<crate::yaml::SourceFile>, DocSet)> {
        let src = files.text(path)?;
        if !may_hold_packages(src.text()) {
            return None;
        }
        let docs = crate::yaml::parse::parse(&src, false).ok()?;
        Some((src, docs))
    };
    for (lib, path) in declared {
        let Some((_, docs)) = parsed(path) else {
            continue;
        };
        for (i, doc) in package_documents(&docs) {
            libraries[*lib].packages.push(PackageCr {
                tied_by: "named in .yttcheck.yml".to_string(),
                ..package_cr(path, i, doc)
            });
        }
    }
    let owned: std::collections::BTreeSet<&RepoPath> = libraries
        .iter()
        .flat_map(|l| l.files.iter().chain(l.extra_files.iter().map(|f| &f.path)))
        .collect();
    let named: std::collections::BTreeSet<&RepoPath> = declared.iter().map(|(_, p)| p).collect();
    let mut ties = Vec::new();
    for path in files.files.iter().filter(|f| f.is_yaml()) {
        if owned.contains(path) || named.contains(path) {
            continue;
        }
        let Some((_, docs)) = parsed(path) else {
            continue;
        };
        let folder = path.parent().unwrap_or_default();
        for (i, doc) in package_documents(&docs) {
            if let Some((lib, how)) = library_of(libraries, &folder, &ytt_paths(doc)) {
                ties.push((
                    lib,
                    PackageCr {
                        tied_by: how,
                        ..package_cr(path, i, doc)
                    },
                ));
            }
        }
    }
    for (lib, cr) in ties {
        libraries[lib].packages.push(cr);
    }
}

/// The library a Package CR in `folder` packages: the one library under
/// the folder whose own folder is one of the CR's ytt paths inside a bundle
/// there (`bundle/config` for `config/`), else the only library under the
/// folder.
fn library_of(
    libraries: &[Library],
    folder: &RepoPath,
    paths: &[String],
) -> Option<(usize, String)> {
    let under: Vec<usize> = (0..libraries.len())
        .filter(|&i| libraries[i].root.starts_with(folder) && &libraries[i].root != folder)
        .collect();
    let by_path: Vec<usize> = under
        .iter()
        .copied()
        .filter(|&i| {
            let rest = libraries[i].root.strip_prefix(folder).unwrap_or("");
            paths
                .iter()
                .any(|p| rest == p || rest.ends_with(&format!("/{p}")))
        })
        .collect();
    match (by_path.as_slice(), under.as_slice()) {
        ([one], _) => Some((
            *one,
            format!(
                "its ytt paths ({}) in the bundle beside it",
                paths.join(", ")
            ),
        )),
        ([], [one]) => Some((*one, "the only library in its folder".to_string())),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_top_level_kind_is_a_documents_and_a_crds_names_kind_is_not() {
        let crd = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec:\n  names:\n    kind: PackageInstall\n";
        assert!(!crate::secrets::has_top_kind(crd, "PackageInstall"));
        assert!(crate::secrets::has_top_kind(
            "---\nkind: \"Secret\"\n",
            "Secret"
        ));
        assert!(!crate::secrets::has_top_kind(
            "kind: SecretTemplate\n",
            "Secret"
        ));
    }

    #[test]
    fn a_package_is_told_by_its_group_and_kind() {
        let cr = "apiVersion: data.packaging.carvel.dev/v1alpha1\nkind: Package\n";
        assert!(may_hold_packages(cr));
        assert!(!may_hold_packages(
            "apiVersion: data.packaging.carvel.dev/v1alpha1\nkind: PackageMetadata\n"
        ));
        assert!(!may_hold_packages("apiVersion: v1\nkind: Package\n"));
        assert!(holds_packaging_metadata(
            "apiVersion: data.packaging.carvel.dev/v1alpha1\nkind: PackageMetadata\n"
        ));
    }
}
