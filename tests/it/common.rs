//! Helpers every test module uses.

use std::path::Path;

/// Writes `content` to `dir/name`, creating the folders on the way.
pub fn write(dir: &Path, name: &str, content: impl AsRef<[u8]>) {
    let path = dir.join(name);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    std::fs::write(path, content).unwrap();
}
