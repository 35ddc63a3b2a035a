//! `file://` URIs <-> paths, as editors write them (percent-encoded bytes,
//! `/` kept).

use std::path::{Path, PathBuf};
use std::str::FromStr;

use lsp_types::Uri;

/// The `file://` URI of an absolute path.
pub fn of_path(path: &Path) -> Option<Uri> {
    use std::os::unix::ffi::OsStrExt;
    let mut s = String::from("file://");
    for &b in path.as_os_str().as_bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                s.push(b as char)
            }
            _ => s.push_str(&format!("%{b:02X}")),
        }
    }
    Uri::from_str(&s).ok()
}

/// The path a `file://` URI names (`None` for another scheme, or a URI
/// that is not a local absolute path).
pub fn to_path(uri: &Uri) -> Option<PathBuf> {
    use std::os::unix::ffi::OsStringExt;
    let s = uri.as_str();
    let rest = s.strip_prefix("file://")?;
    // `file://localhost/x` and `file:///x`
    let rest = rest.strip_prefix("localhost").unwrap_or(rest);
    if !rest.starts_with('/') {
        return None;
    }
    let bytes = rest.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    Some(PathBuf::from(std::ffi::OsString::from_vec(out)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_go_there_and_back() {
        for p in ["/repo/envs/prod/web.yml", "/a b/c#d?e%f/é.yml", "/"] {
            let uri = of_path(Path::new(p)).unwrap();
            assert!(uri.as_str().starts_with("file:///"), "{}", uri.as_str());
            assert_eq!(to_path(&uri).unwrap(), PathBuf::from(p));
        }
        let u = Uri::from_str("file:///repo/a%20b.yml").unwrap();
        assert_eq!(to_path(&u).unwrap(), PathBuf::from("/repo/a b.yml"));
        assert!(to_path(&Uri::from_str("untitled:Untitled-1").unwrap()).is_none());
        // a truncated escape, if the URI parser lets it through
        if let Ok(u) = Uri::from_str("file:///x%2") {
            assert!(to_path(&u).is_none());
        }
    }
}
