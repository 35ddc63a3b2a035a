//! A library's or a policy's files, read through the run's file cache as
//! the engine's input files; a file that cannot be read is a finding.

use std::sync::Arc;

use super::finding::{Finding, Location};
use super::from_errors::Subject;
use crate::diagnostics::RuleId;
use crate::files::InputFile;
use crate::source::{EntryKind, RepoPath, Snapshot, SourceCache, SourceError};
use crate::workspace::plan::EmbeddedValues;

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

/// A data values file kept inside another file (a Secret's key), read for
/// one pair and served to the values flags under a name no repository path
/// can have; its findings name the Secret's file, at its lines.
pub(super) struct EmbeddedFile {
    virtual_path: String,
    shown_as: RepoPath,
    text: String,
}

impl EmbeddedFile {
    /// The `--data-values-file` argument: `name=path`, the Secret's file as
    /// the name.
    pub(super) fn flag(&self) -> String {
        format!("{}={}", self.shown_as, self.virtual_path)
    }
}

/// The pair's values kept in Secrets, read; a key that cannot be read (the
/// file changed since the plan, base64 that is not) is a finding at its
/// line.
pub(super) fn embedded_values(
    sources: &SourceCache,
    wanted: &[EmbeddedValues],
    who: &Subject,
) -> Result<Vec<EmbeddedFile>, Vec<Finding>> {
    let mut out = Vec::new();
    let mut problems = Vec::new();
    for (i, e) in wanted.iter().enumerate() {
        let src = match sources.get(&e.path) {
            Ok(src) => src,
            Err(err) => {
                problems.push(unreadable(&err, who));
                continue;
            }
        };
        match crate::workspace::embedded::values_text(&src, e.document, &e.key) {
            Ok(text) => out.push(EmbeddedFile {
                // NUL is in no repository path
                virtual_path: format!("\0embedded/{i}.yml"),
                shown_as: e.path.clone(),
                text,
            }),
            Err(err) => {
                let mut location = Location::file(e.path.as_str());
                location.line = err.line;
                problems.push(who.finding(
                    RuleId::FileUnreadable,
                    format!(
                        "the values {} of a Secret cannot be read: {}",
                        e.key, err.message
                    ),
                    Some(location),
                ));
            }
        }
    }
    if problems.is_empty() {
        Ok(out)
    } else {
        Err(problems)
    }
}

/// A finding of an install pair without the internal name its Secret's
/// values are read under (`gitops/web.yml=\0embedded/0.yml` is
/// `gitops/web.yml`, the Secret's file, in messages and places).
pub(super) fn without_embedded_paths(f: &mut Finding) {
    static EMBEDDED: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new("=\x00embedded/[0-9]+\\.yml").expect("a valid pattern")
    });
    if f.message.contains('\0') {
        f.message = EMBEDDED.replace_all(&f.message, "").into_owned();
    }
    if f.detail.iter().any(|d| d.contains('\0')) {
        f.detail = f
            .detail
            .iter()
            .map(|d| EMBEDDED.replace_all(d, "").into_owned())
            .collect();
    }
    if let Some(loc) = f.location.as_mut().filter(|l| l.path.contains('\0')) {
        loc.path = EMBEDDED.replace_all(&loc.path, "").into_owned();
    }
}

/// What the values a pair reads from Secrets must never show as: each
/// scalar of each Secret's values (read again through the file cache; a
/// key that cannot be read has nothing to hide).
pub(super) fn secret_values_of(
    sources: &SourceCache,
    wanted: &[EmbeddedValues],
) -> crate::secrets::Secrets {
    let values = crate::workspace::embedded::secret_scalars(sources, wanted);
    crate::secrets::Secrets::shared().with_values(values.iter().map(String::as_str))
}

/// A finding of a pair whose values are kept in a Secret, with no value of
/// that Secret in what it says: a value that fails a conversion or a
/// custom validation (``Cannot parse `hunter2` ...``) is quoted by ytt's
/// message, and a finding reaches every report, log and cache.
pub(super) fn without_secret_values(f: &mut Finding, secrets: &crate::secrets::Secrets) {
    let mask = |text: &str| -> Option<String> {
        match secrets.mask_text(text) {
            None => Some(crate::secrets::HIDDEN.to_string()),
            Some(std::borrow::Cow::Owned(o)) => Some(o),
            Some(std::borrow::Cow::Borrowed(_)) => None,
        }
    };
    if let Some(m) = mask(&f.message) {
        f.message = m;
    }
    if f.detail.iter().any(|d| mask(d).is_some()) {
        f.detail = f
            .detail
            .iter()
            .map(|d| mask(d).unwrap_or_else(|| d.clone()))
            .collect();
    }
    if f.related.iter().any(|r| mask(&r.message).is_some()) {
        f.related = f
            .related
            .iter()
            .map(|r| {
                let mut r = r.clone();
                if let Some(m) = mask(&r.message) {
                    r.message = m;
                }
                r
            })
            .collect();
    }
    if let Some(m) = f.key_path.as_deref().and_then(mask) {
        f.key_path = Some(m);
    }
    if let Some(m) = f.origin.as_deref().and_then(mask) {
        f.origin = Some(m);
    }
}

/// The snapshot as the values flags read it (plain values files), through
/// the shared file cache, with the pair's embedded values files.
pub(super) struct PairSnapshot<'a> {
    pub(super) sources: &'a SourceCache<'a>,
    pub(super) embedded: &'a [EmbeddedFile],
}

impl PairSnapshot<'_> {
    fn embedded(&self, path: &str) -> Option<&EmbeddedFile> {
        self.embedded.iter().find(|e| e.virtual_path == path)
    }
}

impl Snapshot for PairSnapshot<'_> {
    fn kind(&self, path: &str) -> Result<EntryKind, SourceError> {
        match self.embedded(path) {
            Some(_) => Ok(EntryKind::File),
            None => self.sources.snapshot().kind(path),
        }
    }
    fn list(&self, dir: &str) -> Result<Vec<String>, SourceError> {
        self.sources.snapshot().list(dir)
    }
    fn list_kinds(
        &self,
        dir: &str,
    ) -> Result<Vec<(String, crate::source::EntryKindResult)>, SourceError> {
        self.sources.snapshot().list_kinds(dir)
    }
    fn read(&self, path: &str) -> Result<Vec<u8>, SourceError> {
        if let Some(e) = self.embedded(path) {
            return Ok(e.text.as_bytes().to_vec());
        }
        match RepoPath::new(path) {
            Some(p) => self.sources.get(&p).map(|s| s.text().as_bytes().to_vec()),
            None => self.sources.snapshot().read(path),
        }
    }
    fn resolve_symlink(&self, path: &str) -> Option<String> {
        match self.embedded(path) {
            Some(_) => None,
            None => self.sources.snapshot().resolve_symlink(path),
        }
    }
    fn describe(&self) -> String {
        self.sources.snapshot().describe()
    }
}
