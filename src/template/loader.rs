//! `load()`: resolving a module name to a file of the library tree (or to the
//! host's `@ytt:` standard library), compiling and evaluating it once per
//! session, and the services `@ytt:data` needs from a library.

use std::sync::Arc;

use starlark::environment::FrozenModule;
use starlark::eval::FileLoader;

use crate::files::{InputFile, LibraryCtx, LibraryTree};

use super::runtime::error::{TemplateError, TemplateErrorKind};

use super::eval::*;

// ------------------------------------------------------------------ loading

pub(super) struct Loader<'s, 'a> {
    pub(super) session: &'s EvalSession<'a>,
    pub(super) lib: LibraryCtx,
    pub(super) file: Arc<InputFile>,
}

impl FileLoader for Loader<'_, '_> {
    fn load(&self, path: &str) -> starlark::Result<FrozenModule> {
        self.load_inner(path).map_err(|e| {
            starlark::Error::new_other(anyhow::anyhow!("cannot load {path}: {}", e.message))
        })
    }
}

impl Loader<'_, '_> {
    fn load_inner(&self, module: &str) -> Result<FrozenModule, TemplateError> {
        let tree = &self.session.tree;
        let mut lib = self.lib;
        let mut path = module.to_string();
        if let Some(rest) = module.strip_prefix('@') {
            let Some((libname, p)) = rest.split_once(':') else {
                return Err(load_err(
                    "Expected library path to be in format '@name:path' e.g. '@github.com/vmware-tanzu/test:test.star' or '@ytt:base64'",
                ));
            };
            if libname == "ytt" {
                if p == "data" {
                    return self.session.data_module();
                }
                return self.session.cache.stdlib()?.module(p, self.session);
            }
            let dir = tree
                .find_accessible_library(lib.current, libname)
                .map_err(load_err)?;
            lib = LibraryCtx {
                current: dir,
                root: dir,
            };
            path = p.to_string();
        }
        let mut from = lib.current;
        if let Some(stripped) = path.strip_prefix('/') {
            from = lib.root;
            path = stripped.to_string();
        }
        let found = tree.find_file(from, &path).map_err(|e| {
            if path.split('/').any(|piece| piece == "..") {
                // ytt has no `..` in load paths (a library cannot reach out
                // of itself); say so rather than leave "Did not find ''".
                load_err(format!(
                    "{e} (hint: load() paths cannot go up with '..'; start the path with '/' to load from the library root)"
                ))
            } else {
                load_err(e)
            }
        })?;
        if !found.file.is_library() {
            return Err(load_err(format!(
                "Expected file '{}' to be a library file, but was not (hint: library filename must end with '.lib.yml' or '.star'; use data.read(...) for loading non-templated file contents)",
                found.file.rel_path
            )));
        }
        let _ = &self.file;
        let file_lib = LibraryCtx {
            current: found.dir,
            root: lib.root,
        };
        self.session.eval_module(&found, file_lib)
    }
}

fn load_err(msg: impl Into<String>) -> TemplateError {
    TemplateError::new(TemplateErrorKind::Load, msg, None)
}

/// `data.list()` / `data.read()` for a file in library `lib`.
pub(super) struct LibraryHost {
    pub(super) tree: Arc<LibraryTree>,
    pub(super) lib: LibraryCtx,
    pub(super) libraries: Option<Arc<dyn Libraries>>,
}

impl Host for LibraryHost {
    fn data_list(&self, path: &str) -> Result<Vec<String>, String> {
        let mut dir = self.lib.current;
        let mut from_root = false;
        let mut p = path;
        if let Some(stripped) = p.strip_prefix('/') {
            from_root = true;
            dir = self.lib.root;
            p = stripped;
        }
        if !p.is_empty() {
            dir = self.tree.find_library(dir, p)?;
        }
        Ok(self
            .tree
            .accessible_files_in_tree_order(dir)
            .into_iter()
            .map(|f| {
                if from_root {
                    format!("/{}", f.rel_path)
                } else {
                    f.rel_path
                }
            })
            .collect())
    }

    fn data_read(&self, path: &str) -> Result<String, String> {
        let (dir, p) = match path.strip_prefix('/') {
            Some(s) => (self.lib.root, s),
            None => (self.lib.current, path),
        };
        let f = self.tree.find_file(dir, p)?;
        Ok(f.file.src.text().to_string())
    }

    fn library(&self, req: &LibraryRequest, op: &LibraryOp) -> Result<LibraryAnswer, String> {
        match &self.libraries {
            Some(l) => l.call(self.lib, req, op),
            None => Err("@ytt:library is only available when rendering templates".to_string()),
        }
    }
}
