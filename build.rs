//! Names this build: a hash of the sources (ours and the vendored
//! starlark-rust), the manifest and the lock file,
//! as `YTTCHECK_BUILD_ID`. The persistent result cache keys entries by it,
//! so a result is never trusted by a binary built from other code (the
//! version number alone does not change between development builds).

use std::hash::{Hash, Hasher};
use std::path::Path;

fn walk(dir: &Path, files: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            // (a build made inside the vendored crate is not its source)
            if p.file_name().is_some_and(|n| n == "target") {
                continue;
            }
            walk(&p, files);
        } else {
            files.push(p);
        }
    }
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    walk(&root.join("src"), &mut files);
    // the patched starlark-rust the build compiles (Cargo.toml's [patch])
    walk(&root.join("vendor"), &mut files);
    files.sort();
    for f in ["Cargo.toml", "Cargo.lock", "build.rs"] {
        files.push(root.join(f));
    }
    // a stable hasher (SipHash with fixed keys): the id only has to differ
    // when the code does
    #[allow(deprecated)]
    let mut h = std::hash::SipHasher::new();
    for f in &files {
        f.strip_prefix(root).unwrap_or(f).hash(&mut h);
        std::fs::read(f).unwrap_or_default().hash(&mut h);
    }
    std::env::var("TARGET").unwrap_or_default().hash(&mut h);
    std::env::var("PROFILE").unwrap_or_default().hash(&mut h);
    println!("cargo:rustc-env=YTTCHECK_BUILD_ID={:016x}", h.finish());
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rerun-if-changed=vendor");
    println!("cargo:rerun-if-changed=Cargo.toml");
    println!("cargo:rerun-if-changed=Cargo.lock");
    println!("cargo:rerun-if-changed=build.rs");
}
