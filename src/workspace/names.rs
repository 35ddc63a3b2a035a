//! Library names: after the nearest folder that is not a layout word or a
//! version, told apart by what differs when several would share one.

use std::collections::{BTreeMap, BTreeSet};

use crate::source::RepoPath;

/// Folder names that say how a package lays out its files, not what the
/// package is: a library in such a folder is named by the nearest folder
/// above that is not one (`packages/contour/config` is `contour`,
/// `packages/secretgen-controller/bundle/config` is `secretgen-controller`).
const LAYOUT_NAMES: &[&str] = &[
    "config",
    "configs",
    "base",
    "bundle",
    "carvel",
    "chart",
    "deploy",
    "deployment",
    "k8s",
    "kubernetes",
    "lib",
    "manifests",
    "package",
    "src",
    "templates",
    "ytt",
];

/// Whether a folder name is a version (`1.6.2`, `v1`, `0.23.0-alpha.1`):
/// it says which release of a package, not which package.
fn is_version(name: &str) -> bool {
    let n = name.strip_prefix(['v', 'V']).unwrap_or(name);
    n.bytes().next().is_some_and(|b| b.is_ascii_digit())
        && n.split(['-', '+']).next().is_some_and(|core| {
            core.split('.')
                .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
        })
}

/// Whether a folder name says nothing of the package (a layout word or a
/// version).
fn is_layout(name: &str) -> bool {
    LAYOUT_NAMES.contains(&name) || is_version(name)
}

/// A library's name, and where it came from when that is not the folder's
/// own name (for `yttcheck list`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LibraryName {
    pub name: String,
    pub origin: Option<String>,
}

/// Library names. A library is named after the nearest folder (its own, or
/// one above) that is not a layout word or a version; when several
/// libraries would get one name, each gains the folders that tell them
/// apart: the versions and layout words below the name first
/// (`antrea-1.5.2`, `antrea-1.7.1`), then the folders above it
/// (`apps-web`, `libs-web`); as a last resort a number.
pub(super) fn library_names(roots: &[RepoPath]) -> Vec<LibraryName> {
    // each root's folders, and the index of the one that names it
    let parts: Vec<Vec<&str>> = roots
        .iter()
        .map(|r| {
            if r.is_root() {
                Vec::new()
            } else {
                // a single-file library is named without its extension
                let path = r.as_str();
                let path = [".yml", ".yaml", ".star"]
                    .iter()
                    .find_map(|ext| path.strip_suffix(ext))
                    .unwrap_or(path);
                path.split('/').collect()
            }
        })
        .collect();
    let base = |segs: &[&str]| -> Option<usize> {
        if segs.is_empty() {
            return None;
        }
        Some(
            (0..segs.len())
                .rev()
                .find(|&i| !is_layout(segs[i]))
                .unwrap_or(segs.len() - 1),
        )
    };
    let first: Vec<String> = parts
        .iter()
        .map(|segs| base(segs).map_or_else(|| "root".to_string(), |i| segs[i].to_string()))
        .collect();
    let mut groups: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, n) in first.iter().enumerate() {
        groups.entry(n.as_str()).or_default().push(i);
    }
    let mut names: Vec<String> = first.clone();
    for members in groups.values().filter(|m| m.len() > 1) {
        // the versions below the name (layout words alone tell nothing
        // apart unless that is all that differs)
        let below = |i: usize, keep: &dyn Fn(&str) -> bool| -> Vec<String> {
            let segs = &parts[i];
            match base(segs) {
                Some(b) => segs[b + 1..]
                    .iter()
                    .filter(|s| keep(s))
                    .map(|s| s.to_string())
                    .collect(),
                None => Vec::new(),
            }
        };
        let try_names = |make: &dyn Fn(usize) -> String| -> Option<Vec<String>> {
            let made: Vec<String> = members.iter().map(|&i| make(i)).collect();
            let unique: BTreeSet<&String> = made.iter().collect();
            (unique.len() == made.len()).then_some(made)
        };
        let with_below = |keep: &dyn Fn(&str) -> bool| {
            try_names(&|i| {
                let mut n = vec![first[i].clone()];
                n.extend(below(i, keep));
                n.join("-")
            })
        };
        let mut chosen = with_below(&is_version).or_else(|| with_below(&|_| true));
        // then the folders above the name, one more at a time
        let depth = members
            .iter()
            .map(|&i| base(&parts[i]).unwrap_or(0))
            .max()
            .unwrap_or(0);
        for k in 1..=depth {
            if chosen.is_some() {
                break;
            }
            chosen = try_names(&|i| {
                let segs = &parts[i];
                let b = base(segs).unwrap_or(0);
                let from = b.saturating_sub(k);
                let mut n: Vec<String> = segs[from..=b.min(segs.len().saturating_sub(1))]
                    .iter()
                    .map(|s| s.to_string())
                    .collect();
                n.extend(below(i, &is_version));
                if n.is_empty() {
                    "root".into()
                } else {
                    n.join("-")
                }
            });
        }
        if let Some(made) = chosen {
            for (&i, n) in members.iter().zip(made) {
                names[i] = n;
            }
        }
    }
    // what is still shared (a path that is another's name): numbered
    let mut taken = BTreeSet::new();
    roots
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let mut name = names[i].clone();
            let stem = name.clone();
            let mut n = 2;
            while !taken.insert(name.clone()) {
                name = format!("{stem}-{n}");
                n += 1;
            }
            let own = if r.is_root() { "root" } else { r.file_name() };
            let origin = (name != own).then(|| {
                let named_by = parts[i]
                    .iter()
                    .rposition(|s| *s == first[i])
                    .map(|at| parts[i][..=at].join("/"))
                    .unwrap_or_default();
                if name == first[i] {
                    format!("after {named_by} (the folders below it are layout folders or versions)")
                } else {
                    format!("after {named_by}, with what tells it apart from the other libraries named '{}'", first[i])
                }
            });
            LibraryName { name, origin }
        })
        .collect()
}
