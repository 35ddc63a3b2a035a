//! Vendored packages: upstream configuration a repository keeps as it is
//! (synced by Carvel's vendir, or listed under `.yttcheck.yml`'s
//! `vendored:`). Their authors fix their lints, not the team that vendors
//! them, so such findings are notes there (`check::suppress`); what makes
//! ytt fail or changes what renders stays what it is.
//!
//! Also the files other tools keep in a repository (`.pre-commit-config.yaml`,
//! `vendir.yml`, CI workflows...): YAML that is no ytt input, and no
//! `workspace/unused-file`.

use crate::source::RepoPath;

use super::discover::RepoFiles;

/// vendir's configuration and lock file names.
const VENDIR_FILES: &[&str] = &[
    "vendir.yml",
    "vendir.yaml",
    "vendir.lock.yml",
    "vendir.lock.yaml",
];

/// The folders vendir files of the repository sync: each directory's
/// `path` and each of its contents' `path` (relative to the vendir file's
/// folder), sorted. A vendir file that does not parse vendors nothing (it
/// is vendir's to report).
pub(super) fn vendir_folders(files: &RepoFiles) -> Vec<RepoPath> {
    let mut out = Vec::new();
    for f in files
        .files
        .iter()
        .filter(|f| VENDIR_FILES.contains(&f.file_name()))
    {
        let Some(text) = files.text(f) else { continue };
        let Ok(doc) = serde_norway::from_str::<serde_json::Value>(text.text()) else {
            continue;
        };
        let base = f.parent().unwrap_or_default();
        let dirs = doc["directories"].as_array().cloned().unwrap_or_default();
        for d in &dirs {
            let Some(dir) = d["path"].as_str() else {
                continue;
            };
            let contents = d["contents"].as_array().cloned().unwrap_or_default();
            let mut paths: Vec<String> = contents
                .iter()
                .filter_map(|c| c["path"].as_str())
                .map(|c| {
                    if c == "." || c.is_empty() {
                        dir.to_string()
                    } else {
                        format!("{dir}/{c}")
                    }
                })
                .collect();
            if paths.is_empty() {
                paths.push(dir.to_string());
            }
            for p in paths {
                let joined = if base.is_root() {
                    p
                } else {
                    format!("{base}/{p}")
                };
                if let Ok(r) = crate::source::confine(&joined) {
                    if !r.is_root() {
                        out.push(r);
                    }
                }
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

/// Names of files other tools keep in a repository, which are no ytt input.
const WELL_KNOWN_FILES: &[&str] = &[
    ".pre-commit-config.yaml",
    ".pre-commit-config.yml",
    ".pre-commit-hooks.yaml",
    "vendir.yml",
    "vendir.yaml",
    "vendir.lock.yml",
    "vendir.lock.yaml",
    ".gitlab-ci.yml",
    ".travis.yml",
    "appveyor.yml",
    "azure-pipelines.yml",
    "bitbucket-pipelines.yml",
    "codecov.yml",
    ".codecov.yml",
    "mkdocs.yml",
    ".readthedocs.yaml",
    ".readthedocs.yml",
    ".yamllint",
    ".yamllint.yml",
    ".yamllint.yaml",
    ".golangci.yml",
    ".golangci.yaml",
    ".goreleaser.yml",
    ".goreleaser.yaml",
    "docker-compose.yml",
    "docker-compose.yaml",
    "compose.yml",
    "compose.yaml",
    ".markdownlint.yml",
    ".markdownlint.yaml",
    "renovate.yml",
    ".kodiak.yml",
    "kbld.yml",
];

/// Folders of other tools' configuration (`.github/workflows`,
/// `.circleci`...) and imgpkg's bundle metadata.
const WELL_KNOWN_FOLDERS: &[&str] = &[
    ".github",
    ".gitlab",
    ".circleci",
    ".imgpkg",
    ".buildkite",
    ".devcontainer",
];

/// Whether a file is another tool's (never a `workspace/unused-file`).
pub(super) fn is_well_known(f: &RepoPath) -> bool {
    WELL_KNOWN_FILES.contains(&f.file_name())
        || f.as_str()
            .split('/')
            .rev()
            .skip(1)
            .any(|d| WELL_KNOWN_FOLDERS.contains(&d))
}

/// The API groups of Carvel's other tools' configuration (a bundle's
/// `kbld-config.yml`, `vendir.yml`, `.imgpkg/images.yml`).
const CARVEL_TOOLS: &[&str] = &["kbld.k14s.io/", "vendir.k14s.io/", "imgpkg.carvel.dev/"];

/// Whether a file is another tool's: a well-known file (`vendir.yml`,
/// `.imgpkg/`...), Carvel's packaging (a `Package` CR, its metadata), or
/// another Carvel tool's configuration.
pub(super) fn is_other_tools(files: &RepoFiles, f: &RepoPath) -> bool {
    if is_well_known(f) {
        return true;
    }
    if !f.is_yaml() {
        return false;
    }
    let Some(src) = files.text(f) else {
        return false;
    };
    let t = src.text();
    let names_a_tool = |group: &str| {
        t.contains(group)
            && t.lines().any(|l| {
                l.strip_prefix("apiVersion:")
                    .is_some_and(|v| v.trim().trim_matches(['"', '\'']).starts_with(group))
            })
    };
    super::packages::may_hold_packages(t)
        || super::packages::holds_packaging_metadata(t)
        || CARVEL_TOOLS.iter().any(|g| names_a_tool(g))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn other_tools_files_are_well_known() {
        for f in [
            ".pre-commit-config.yaml",
            "vendir.lock.yml",
            ".github/workflows/ci.yml",
            "packages/x/bundle/.imgpkg/images.yml",
            "deploy/docker-compose.yml",
        ] {
            assert!(is_well_known(&RepoPath::new(f).unwrap()), "{f}");
        }
        for f in ["envs/prod/web.yml", "deploy/prod.yml", "github/x.yml"] {
            assert!(!is_well_known(&RepoPath::new(f).unwrap()), "{f}");
        }
    }
}
