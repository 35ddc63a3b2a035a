//! A library's or a policy's files, read through the run's file cache as
//! the engine's input files; a file that cannot be read is a finding.

use std::sync::Arc;

use super::finding::{Finding, Location};
use super::from_errors::Subject;
use crate::diagnostics::RuleId;
use crate::files::InputFile;
use crate::source::{RepoPath, SourceCache, SourceError};

/// A file read failure as a finding.
fn unreadable(e: &SourceError, who: &Subject) -> Finding {
    let path = RepoPath::new(&e.path)
        .map(|p| p.as_str().to_string())
        .unwrap_or_else(|| e.path.clone());
    // a problem at a place (a byte that is not UTF-8) is shown there
    let mut location = Location::file(&path);
    if e.line > 0 {
        location.line = e.line;
        location.column = e.column;
    }
    who.finding(RuleId::FileUnreadable, e.message.clone(), Some(location))
}

pub(super) fn input_files(
    sources: &SourceCache,
    paths: impl IntoIterator<Item = (RepoPath, String, usize)>,
    who: &Subject,
) -> Result<Vec<Arc<InputFile>>, Vec<Finding>> {
    marked_input_files(
        sources,
        paths
            .into_iter()
            .map(|(p, r, o)| (p, r, o, crate::files::Marks::default())),
        who,
    )
}

/// [`input_files`], each with what `--file-mark`s say of it.
pub(super) fn marked_input_files(
    sources: &SourceCache,
    paths: impl IntoIterator<Item = (RepoPath, String, usize, crate::files::Marks)>,
    who: &Subject,
) -> Result<Vec<Arc<InputFile>>, Vec<Finding>> {
    let mut files = Vec::new();
    let mut problems = Vec::new();
    for (path, rel_path, order, marks) in paths {
        // ytt parses YAML, Starlark and text templates; other files are data
        let kind = marks
            .kind
            .map_or_else(|| crate::files::file_type_of(&rel_path), |(t, _)| t);
        let parsed = matches!(
            kind,
            crate::files::FileType::Yaml
                | crate::files::FileType::Starlark
                | crate::files::FileType::Text
        );
        let read = if parsed {
            sources.get(&path)
        } else {
            sources.get_data(&path)
        };
        match read {
            Ok(src) => files.push(Arc::new(InputFile {
                rel_path,
                implied: true,
                src,
                order,
                marks,
            })),
            Err(e) => problems.push(unreadable(&e, who)),
        }
    }
    if problems.is_empty() {
        Ok(files)
    } else {
        Err(problems)
    }
}
