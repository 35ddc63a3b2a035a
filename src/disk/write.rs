//! Writing files where a checkout may hold symlinks: report files
//! (`--format FMT=FILE`, `-o`, `--update-baseline`, `ci`'s report folder)
//! and `render --output-files`.
//!
//! A pull request can commit `report.sarif -> ~/.bashrc` or a folder link
//! `out -> /etc`; a CI recipe that writes `report.sarif` or renders into
//! `out/` would then write through the link. So:
//!
//! * a file is never opened through a final link: the bytes go to a new
//!   temporary file beside the target (created exclusively), which is then
//!   renamed over it. A link there is replaced, not followed;
//! * a relative path's folders must stay in the current folder once links
//!   are resolved (a committed folder link that leads out is refused);
//! * below `--output-files DIR`, no folder on the way may be a link at
//!   all, and the path may not climb out of DIR.
//!
//! Devices named on purpose (`/dev/stdout`, `/dev/stderr`) are written as
//! they are: a person typed them.

use std::io::{self, Write};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

fn refused(msg: String) -> io::Error {
    io::Error::new(io::ErrorKind::PermissionDenied, msg)
}

/// A device or process file a person names to get a report on a stream.
fn is_device_path(path: &Path) -> bool {
    path.starts_with("/dev/") || path.starts_with("/proc/self/fd/")
}

/// `path` made absolute (against the current folder) and cleaned of `.`
/// and `..` pieces, without touching the file system.
fn lexical(path: &Path) -> io::Result<PathBuf> {
    let abs = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir()?.join(path)
    };
    let mut out = PathBuf::new();
    for c in abs.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    Ok(out)
}

/// The folder a report file goes in, checked (and made when missing): for
/// a path inside the current folder, it must still be inside once links
/// are resolved.
fn report_folder(path: &Path) -> io::Result<(PathBuf, std::ffi::OsString)> {
    let full = lexical(path)?;
    let name = full
        .file_name()
        .ok_or_else(|| refused(format!("{} names no file", path.display())))?
        .to_os_string();
    let parent = full.parent().unwrap_or(Path::new("/")).to_path_buf();
    let cwd = std::env::current_dir()?;
    let inside_cwd = parent.starts_with(&cwd);
    // the deepest folder that exists decides where the rest would go
    let mut existing = parent.clone();
    while std::fs::symlink_metadata(&existing).is_err() {
        if !existing.pop() {
            break;
        }
    }
    if inside_cwd {
        let real = std::fs::canonicalize(&existing)?;
        let real_cwd = std::fs::canonicalize(&cwd)?;
        if !real.starts_with(&real_cwd) {
            return Err(refused(format!(
                "{} leads out of the current folder through a symlink ({} is {}); \
                 write reports to a path without links",
                path.display(),
                existing.display(),
                real.display()
            )));
        }
    }
    std::fs::create_dir_all(&parent)?;
    Ok((parent, name))
}

/// Whether a report file can be written at `path` (checked before a check
/// runs, so that a bad path fails at once); writes nothing.
pub fn can_write(path: &Path) -> io::Result<()> {
    if is_device_path(path) {
        return Ok(());
    }
    let full = lexical(path)?;
    if full.file_name().is_none() {
        return Err(refused(format!("{} names no file", path.display())));
    }
    if std::fs::symlink_metadata(&full).is_ok_and(|m| m.is_dir()) {
        return Err(refused(format!("{} is a folder", path.display())));
    }
    let parent = full.parent().unwrap_or(Path::new("/"));
    let cwd = std::env::current_dir()?;
    if parent.starts_with(&cwd) {
        let mut existing = parent.to_path_buf();
        while std::fs::symlink_metadata(&existing).is_err() && existing.pop() {}
        let real = std::fs::canonicalize(&existing)?;
        if !real.starts_with(std::fs::canonicalize(&cwd)?) {
            return Err(refused(format!(
                "{} leads out of the current folder through a symlink ({} is {})",
                path.display(),
                existing.display(),
                real.display()
            )));
        }
    }
    Ok(())
}

/// Writes a report file (see the module's rules).
pub fn report_file(path: &Path, bytes: &[u8]) -> io::Result<()> {
    if is_device_path(path) {
        let mut f = std::fs::OpenOptions::new().write(true).open(path)?;
        return f.write_all(bytes);
    }
    let (dir, name) = report_folder(path)?;
    replace(&dir, &name, bytes)
}

/// Whether `dir` may be an output folder (`render --output-files DIR`,
/// `--dangerous-emptied-output-directory DIR`, `render --all`): inside the
/// current folder, neither `dir` nor a folder on the way to it may be a
/// link that leads out of the current folder or into `.git`, and no piece
/// of it may be `.git` (a committed `out -> ../../victim` would otherwise
/// have files there deleted and written, through the documented
/// `yttcheck-rendered` hook). A folder outside the current one was typed by
/// a person and is theirs.
pub fn output_folder(dir: &Path) -> io::Result<()> {
    let full = lexical(dir)?;
    let cwd = std::env::current_dir()?;
    let Ok(rel) = full.strip_prefix(&cwd) else {
        return Ok(());
    };
    let is_git = |p: &Path| {
        p.components()
            .any(|c| c.as_os_str().to_string_lossy().eq_ignore_ascii_case(".git"))
    };
    if is_git(rel) {
        return Err(refused(format!(
            "{} is inside .git: output is never written there",
            dir.display()
        )));
    }
    let real_cwd = std::fs::canonicalize(&cwd)?;
    let mut at = cwd.clone();
    for piece in rel.components() {
        at.push(piece);
        match std::fs::symlink_metadata(&at) {
            Ok(m) if m.file_type().is_symlink() => {
                let real = std::fs::canonicalize(&at).unwrap_or_default();
                let inside = real.strip_prefix(&real_cwd).ok();
                if inside.is_none_or(is_git) {
                    return Err(refused(format!(
                        "{} leads out of the current folder through a symlink ({} is a link); \
                         render to a folder without links",
                        dir.display(),
                        at.display()
                    )));
                }
            }
            Ok(_) => {}
            Err(_) => break,
        }
    }
    Ok(())
}

/// Writes `rel` (a path a template's output named) under the output folder
/// `dir`: no piece may be absolute or `..`, and no folder on the way may be
/// a link; missing folders are made.
pub fn output_file(dir: &Path, rel: &str, bytes: &[u8]) -> io::Result<PathBuf> {
    let mut at = dir.to_path_buf();
    let pieces: Vec<Component> = Path::new(rel).components().collect();
    let Some((last, folders)) = pieces.split_last() else {
        return Err(refused(format!("'{rel}' names no file")));
    };
    for c in folders {
        match c {
            Component::CurDir => continue,
            Component::Normal(p) => {
                at.push(p);
                match std::fs::symlink_metadata(&at) {
                    Ok(m) if m.file_type().is_symlink() => {
                        return Err(refused(format!(
                            "'{}' is a symlink: output files are not written through links",
                            at.display()
                        )))
                    }
                    Ok(m) if m.is_dir() => {}
                    Ok(_) => return Err(refused(format!("'{}' is not a folder", at.display()))),
                    Err(_) => std::fs::create_dir(&at)?,
                }
            }
            _ => {
                return Err(refused(format!(
                    "Expected output file path '{rel}' to stay inside the output directory"
                )))
            }
        }
    }
    let Component::Normal(name) = last else {
        return Err(refused(format!(
            "Expected output file path '{rel}' to stay inside the output directory"
        )));
    };
    replace(&at, name, bytes)?;
    Ok(at.join(name))
}

/// `dir/name` replaced by a file holding `bytes`: written to a temporary
/// file made exclusively beside it, then renamed over it (a link at
/// `dir/name` is replaced, never followed; a reader never sees half a
/// file).
fn replace(dir: &Path, name: &std::ffi::OsStr, bytes: &[u8]) -> io::Result<()> {
    replace_with_mode(dir, name, bytes, 0o666)
}

/// [`replace`], the new file made with `mode` (less the umask): an
/// executable hook.
pub fn replace_with_mode(
    dir: &Path,
    name: &std::ffi::OsStr,
    bytes: &[u8],
    mode: u32,
) -> io::Result<()> {
    use std::os::unix::fs::OpenOptionsExt;
    static N: AtomicUsize = AtomicUsize::new(0);
    let target = dir.join(name);
    if std::fs::symlink_metadata(&target).is_ok_and(|m| m.is_dir()) {
        return Err(refused(format!("{} is a folder", target.display())));
    }
    let tmp = dir.join(format!(
        ".{}.yttcheck-{}-{}.tmp",
        name.to_string_lossy(),
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let result = (|| {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(mode)
            .open(&tmp)?;
        f.write_all(bytes)?;
        drop(f);
        std::fs::rename(&tmp, &target)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_final_link_is_replaced_not_followed() {
        let d = tempfile::tempdir().unwrap();
        let victim = d.path().join("victim");
        std::fs::write(&victim, "keep").unwrap();
        let out = d.path().join("out");
        std::fs::create_dir(&out).unwrap();
        std::os::unix::fs::symlink(&victim, out.join("report.sarif")).unwrap();
        replace(&out, std::ffi::OsStr::new("report.sarif"), b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep");
        assert_eq!(
            std::fs::read_to_string(out.join("report.sarif")).unwrap(),
            "new"
        );
        assert!(!std::fs::symlink_metadata(out.join("report.sarif"))
            .unwrap()
            .file_type()
            .is_symlink());
        // no temporary file is left behind
        assert_eq!(std::fs::read_dir(&out).unwrap().count(), 1);
    }

    #[test]
    fn output_files_refuse_links_and_climbing() {
        let d = tempfile::tempdir().unwrap();
        let outside = d.path().join("outside");
        std::fs::create_dir(&outside).unwrap();
        let dir = d.path().join("rendered");
        std::fs::create_dir(&dir).unwrap();
        std::os::unix::fs::symlink(&outside, dir.join("sub")).unwrap();
        assert!(output_file(&dir, "sub/x.yml", b"x").is_err());
        assert!(output_file(&dir, "../x.yml", b"x").is_err());
        assert!(output_file(&dir, "/tmp/x.yml", b"x").is_err());
        assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0);
        let p = output_file(&dir, "./a/b/ok.yml", b"ok").unwrap();
        assert_eq!(std::fs::read_to_string(p).unwrap(), "ok");
    }
}
