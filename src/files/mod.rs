//! The files a ytt run sees, and the libraries they form.
//!
//! ytt turns the `-f` inputs into a tree in which every directory is a library;
//! directories named `_ytt_lib` hold *private* libraries, reachable only with
//! `load("@name:file")` or `library.get("name")`. A file loads others relative
//! to its own directory, never upwards (`..` does not exist in this tree), and
//! `/path` is relative to the root of the library it belongs to.
//!
//! This module only models that tree; reading files from disk or git is the
//! business of `source`.

pub mod marks;

use std::sync::Arc;

use crate::yaml::SourceFile;
pub use marks::Marks;

pub const PRIVATE_LIB_DIR: &str = "_ytt_lib";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileType {
    Yaml,
    Starlark,
    Text,
    Unknown,
}

/// One input file.
#[derive(Debug)]
pub struct InputFile {
    /// Path relative to the input it was found in (ytt's `RelativePath`).
    pub rel_path: String,
    /// Whether it was found inside a directory given with `-f` (not named itself).
    pub implied: bool,
    pub src: Arc<SourceFile>,
    /// Position in the order ytt processes files.
    pub order: usize,
    /// What `--file-mark`s say of it (its type, whether it is a template,
    /// whether it is output), over what its name says.
    pub marks: Marks,
}

impl InputFile {
    /// Its type: as marked, else by its extension.
    pub fn file_type(&self) -> FileType {
        match self.marks.kind {
            Some((t, _)) => t,
            None => file_type_of(&self.rel_path),
        }
    }

    /// `*.lib.yml`, `*.lib.txt`, `*.star` (or marked starlark): loadable,
    /// never output.
    pub fn is_library(&self) -> bool {
        let base = base_name(&self.rel_path);
        let parts: Vec<&str> = base.split('.').collect();
        if parts.len() > 2 && parts[parts.len() - 2] == "lib" {
            return true;
        }
        self.file_type() == FileType::Starlark
    }

    /// As marked; else YAML and text files that are not libraries are
    /// templates.
    pub fn is_template(&self) -> bool {
        match self.marks.kind {
            Some((_, template)) => template,
            None => {
                !self.is_library() && matches!(self.file_type(), FileType::Yaml | FileType::Text)
            }
        }
    }

    /// Whether a render outputs it (ytt's `IsForOutput`): as marked, else a
    /// file marked a template, else a YAML or text file that is not a
    /// library (plain ones included).
    pub fn is_for_output(&self) -> bool {
        if let Some(out) = self.marks.for_output {
            return out;
        }
        if self.marks.kind.is_some_and(|(_, template)| template) {
            return true;
        }
        !self.is_library() && matches!(self.file_type(), FileType::Yaml | FileType::Text)
    }

    pub fn name(&self) -> &str {
        base_name(&self.rel_path)
    }
}

pub fn file_type_of(path: &str) -> FileType {
    let base = base_name(path);
    if base.ends_with(".yml") || base.ends_with(".yaml") {
        FileType::Yaml
    } else if base.ends_with(".star") {
        FileType::Starlark
    } else if base.ends_with(".txt") {
        FileType::Text
    } else {
        FileType::Unknown
    }
}

pub fn base_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// Directory pieces and file name of a path.
pub fn split_path(path: &str) -> (Vec<&str>, &str) {
    let mut pieces: Vec<&str> = path.split('/').collect();
    let name = pieces.pop().unwrap_or("");
    (pieces, name)
}

pub type DirId = usize;

#[derive(Debug)]
pub struct Dir {
    pub name: String,
    pub private: bool,
    pub parent: Option<DirId>,
    pub children: Vec<DirId>,
    pub files: Vec<Arc<InputFile>>,
}

/// The library tree of one run.
#[derive(Debug)]
pub struct LibraryTree {
    pub dirs: Vec<Dir>,
}

/// Where a file is being evaluated: its directory and the root of its library.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct LibraryCtx {
    pub current: DirId,
    pub root: DirId,
}

impl LibraryCtx {
    pub const ROOT: LibraryCtx = LibraryCtx {
        current: 0,
        root: 0,
    };
}

/// A file found in a library, with the path it has from that library's root.
#[derive(Debug, Clone)]
pub struct FileInLibrary {
    pub file: Arc<InputFile>,
    pub dir: DirId,
    /// Path relative to the library root it was listed from.
    pub rel_path: String,
}

impl FileInLibrary {
    /// What tells this file from every other of a run: its path and its
    /// place in the order. Two files may share a path (`ytt -f
    /// ci/templates/x.yml -f ci/inputs/x.yml` names both `x.yml`), and the
    /// values file among them is no output while the template is.
    pub fn output_key(&self) -> String {
        format!("{}\u{0}{}", self.rel_path, self.file.order)
    }
}

impl LibraryTree {
    pub fn new(files: Vec<Arc<InputFile>>) -> LibraryTree {
        let mut tree = LibraryTree {
            dirs: vec![Dir {
                name: String::new(),
                private: false,
                parent: None,
                children: Vec::new(),
                files: Vec::new(),
            }],
        };
        for f in files {
            let (dirs, _) = split_path(&f.rel_path);
            let mut cur = 0;
            for piece in dirs {
                cur = match tree.child(cur, piece) {
                    Some(c) => c,
                    None => tree.create(cur, piece),
                };
            }
            tree.dirs[cur].files.push(f);
        }
        tree
    }

    fn create(&mut self, parent: DirId, name: &str) -> DirId {
        let id = self.dirs.len();
        self.dirs.push(Dir {
            name: name.to_string(),
            private: name == PRIVATE_LIB_DIR,
            parent: Some(parent),
            children: Vec::new(),
            files: Vec::new(),
        });
        self.dirs[parent].children.push(id);
        id
    }

    fn child(&self, dir: DirId, name: &str) -> Option<DirId> {
        self.dirs[dir]
            .children
            .iter()
            .copied()
            .find(|&c| self.dirs[c].name == name)
    }

    /// ytt's `FindLibrary`: a (non-private) subdirectory path.
    pub fn find_library(&self, from: DirId, path: &str) -> Result<DirId, String> {
        let mut cur = from;
        let pieces: Vec<&str> = path.split('/').collect();
        for (i, piece) in pieces.iter().enumerate() {
            let Some(next) = self.child(cur, piece) else {
                return Err(format!("Did not find '{}'", pieces[..i].join("/")));
            };
            if self.dirs[next].private {
                return Err(format!("Encountered private library '{PRIVATE_LIB_DIR}'"));
            }
            cur = next;
        }
        Ok(cur)
    }

    /// ytt's `FindFile`, relative to directory `from`.
    pub fn find_file(&self, from: DirId, path: &str) -> Result<FileInLibrary, String> {
        let (dirs, name) = split_path(path);
        let mut cur = from;
        if !dirs.is_empty() {
            cur = self
                .find_library(from, &dirs.join("/"))
                .map_err(|e| format!("Expected to find file '{path}', but did not: {e}"))?;
        }
        for f in &self.dirs[cur].files {
            if f.name() == name {
                return Ok(FileInLibrary {
                    file: f.clone(),
                    dir: cur,
                    rel_path: path.to_string(),
                });
            }
        }
        Err(format!(
            "Expected to find file '{path}' (hint: only files included via -f flag are available)"
        ))
    }

    /// ytt's `FindAccessibleLibrary`: `name` (a path) under `from`'s `_ytt_lib`.
    pub fn find_accessible_library(&self, from: DirId, path: &str) -> Result<DirId, String> {
        let Some(private) = self.dirs[from]
            .children
            .iter()
            .copied()
            .find(|&c| self.dirs[c].private)
        else {
            return Err(format!(
                "Could not find private library (directory '{PRIVATE_LIB_DIR}' missing?)"
            ));
        };
        let pieces: Vec<&str> = path.split('/').collect();
        let mut cur = private;
        for (i, piece) in pieces.iter().enumerate() {
            let Some(next) = self.child(cur, piece) else {
                return Err(format!(
                    "Expected to find library '{path}', but did not find '{}'",
                    pieces[..i].join("/")
                ));
            };
            if self.dirs[next].private {
                return Err(format!(
                    "Could not load private library '{}'",
                    pieces[..i].join("/")
                ));
            }
            cur = next;
        }
        Ok(cur)
    }

    /// ytt's `ListAccessibleFiles`: files of `dir` and its non-private
    /// subdirectories, with paths relative to `dir`, in input order.
    pub fn accessible_files(&self, dir: DirId) -> Vec<FileInLibrary> {
        let mut out = self.accessible_files_in_tree_order(dir);
        out.sort_by_key(|f| f.file.order);
        out
    }

    /// The files of a library as ytt walks them (`ListAccessibleFiles`): a
    /// directory's own files, then each sub-directory's, in the order they
    /// were first given. `data.list()` answers in this order, and templates
    /// are evaluated in it (their output is then sorted by file order).
    pub fn accessible_files_in_tree_order(&self, dir: DirId) -> Vec<FileInLibrary> {
        let mut out = Vec::new();
        self.collect_files(dir, "", &mut out);
        out
    }

    fn collect_files(&self, dir: DirId, prefix: &str, out: &mut Vec<FileInLibrary>) {
        for f in &self.dirs[dir].files {
            out.push(FileInLibrary {
                file: f.clone(),
                dir,
                rel_path: format!("{prefix}{}", f.name()),
            });
        }
        for &c in &self.dirs[dir].children {
            if !self.dirs[c].private {
                let p = format!("{prefix}{}/", self.dirs[c].name);
                self.collect_files(c, &p, out);
            }
        }
    }

    /// All private library directories directly under `dir`'s `_ytt_lib`
    /// (name, directory), nested ones included by path (`a/b`).
    pub fn private_libraries(&self, dir: DirId) -> Vec<(String, DirId)> {
        let mut out = Vec::new();
        if let Some(private) = self.dirs[dir]
            .children
            .iter()
            .copied()
            .find(|&c| self.dirs[c].private)
        {
            let mut stack: Vec<(String, DirId)> = self.dirs[private]
                .children
                .iter()
                .map(|&c| (self.dirs[c].name.clone(), c))
                .collect();
            while let Some((name, d)) = stack.pop() {
                if self.dirs[d].private {
                    continue;
                }
                if !self.dirs[d].files.is_empty() {
                    out.push((name.clone(), d));
                }
                for &c in &self.dirs[d].children {
                    if !self.dirs[c].private {
                        stack.push((format!("{name}/{}", self.dirs[c].name), c));
                    }
                }
            }
        }
        out.sort();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(path: &str, order: usize) -> Arc<InputFile> {
        Arc::new(InputFile {
            rel_path: path.to_string(),
            implied: true,
            src: SourceFile::new(path, ""),
            order,
            marks: Marks::default(),
        })
    }

    #[test]
    fn tree_and_lookups() {
        let tree = LibraryTree::new(vec![
            file("values.yml", 1),
            file("lib/helpers.star", 2),
            file("_ytt_lib/app/config.yml", 3),
            file("_ytt_lib/app/sub/x.lib.yml", 4),
        ]);
        assert_eq!(tree.find_file(0, "values.yml").unwrap().file.order, 1);
        assert_eq!(tree.find_file(0, "lib/helpers.star").unwrap().file.order, 2);
        assert!(tree.find_file(0, "../values.yml").is_err());
        assert!(tree.find_file(0, "_ytt_lib/app/config.yml").is_err());
        let app = tree.find_accessible_library(0, "app").unwrap();
        let files: Vec<String> = tree
            .accessible_files(app)
            .into_iter()
            .map(|f| f.rel_path)
            .collect();
        assert_eq!(files, vec!["config.yml", "sub/x.lib.yml"]);
        let root: Vec<String> = tree
            .accessible_files(0)
            .into_iter()
            .map(|f| f.rel_path)
            .collect();
        assert_eq!(root, vec!["values.yml", "lib/helpers.star"]);
        assert!(file("a.lib.yml", 0).is_library());
        assert!(file("a.star", 0).is_library());
        assert!(file("a.yml", 0).is_template());
        assert!(!file("a.lib.yml", 0).is_template());
    }
}
