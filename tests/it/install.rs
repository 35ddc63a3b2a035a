//! What the README's Install section promises: the minimum Rust version it
//! states is the one Cargo.toml declares, and no dependency needs a newer one.

use std::path::Path;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn version_tuple(v: &str) -> Vec<u32> {
    v.split('.').map(|p| p.parse().unwrap_or(0)).collect()
}

#[test]
fn minimum_rust_version_is_declared_stated_and_sufficient() {
    let manifest = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    let msrv = manifest
        .lines()
        .find_map(|l| l.strip_prefix("rust-version = "))
        .expect("Cargo.toml declares rust-version")
        .trim_matches('"')
        .to_string();
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    assert!(
        readme.contains(&format!("Rust {msrv} or newer")),
        "README's Install section must state the minimum Rust version {msrv}"
    );
    // every dependency of this platform builds with it (the packages of
    // this platform are the ones `cargo test` fetched: a fresh clone has
    // no others, and the test needs no network)
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let vv = std::process::Command::new(rustc)
        .arg("-vV")
        .output()
        .expect("rustc -vV runs");
    let host = String::from_utf8_lossy(&vv.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("host: ").map(str::to_string))
        .expect("rustc -vV names the host");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = std::process::Command::new(cargo)
        .current_dir(root())
        .args([
            "metadata",
            "--format-version",
            "1",
            "--offline",
            "--locked",
            "--filter-platform",
            &host,
        ])
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let needs: Vec<(String, String)> = meta["packages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| {
            Some((
                p["name"].as_str()?.to_string(),
                p["rust_version"].as_str()?.to_string(),
            ))
        })
        .filter(|(_, v)| version_tuple(v) > version_tuple(&msrv))
        .collect();
    assert!(
        needs.is_empty(),
        "dependencies need a newer Rust than rust-version {msrv}: {needs:?}"
    );
}

#[test]
fn release_binaries_carry_no_debug_info_but_profiling_ones_do() {
    let manifest = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    let release = manifest
        .split("[profile.release]")
        .nth(1)
        .and_then(|s| s.split("\n[").next())
        .expect("a release profile");
    assert!(!release.contains("debug = 1"), "{release}");
    assert!(manifest.contains("[profile.profiling]"));
}
