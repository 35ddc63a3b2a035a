//! `yttcheck lsp` with a real LSP client: the pytest-lsp suite in
//! `tests/lsp/` (pytest-lsp and lsprotocol from PyPI, installed by `.ci/run`
//! in target/tools/venv) drives the built binary over stdio.

use std::path::Path;
use std::process::Command;

use super::common::tool;

#[test]
fn a_real_lsp_client_sees_findings_as_you_type() {
    let Some(pytest) = tool("pytest") else { return };
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new(pytest)
        .current_dir(root)
        .args([
            "-q",
            "-p",
            "no:cacheprovider",
            "-o",
            "asyncio_default_fixture_loop_scope=function",
            "tests/lsp/test_lsp.py",
        ])
        .env("YTTCHECK_BIN", env!("CARGO_BIN_EXE_yttcheck"))
        .output()
        .expect("run pytest");
    let report = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{report}");
    // every test ran (none skipped or deselected)
    assert!(report.contains("12 passed"), "{report}");
}

/// Neovim's built-in client (Debian's `neovim`, headless) sees the same:
/// diagnostics of an opened values file, cleared by an unsaved edit (the
/// file on disk untouched), and every environment's value on hover.
#[test]
fn neovim_sees_diagnostics_and_hovers() {
    let Some(nvim) = tool("nvim") else { return };
    let d = tempfile::tempdir().unwrap();
    let repo = d.path().join("repo");
    let w = |p: &str, t: &str| super::common::write(&repo, p, t);
    w(
        "libs/web/schema.yml",
        "#@data/values-schema\n---\n#@schema/validation min=1\nreplicas: 1\n",
    );
    w(
        "libs/web/deploy.yml",
        "#@ load(\"@ytt:data\", \"data\")\n---\nreplicas: #@ data.values.replicas\n",
    );
    w("envs/dev/web.yml", "replicas: 2\n");
    w("envs/prod/web.yml", "replicas: 0\n");
    super::common::git(&repo, &["init", "-q"]);
    let out = d.path().join("seen.txt");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let status = Command::new(nvim)
        .current_dir(root)
        .args([
            "--headless",
            "-u",
            "NONE",
            "-c",
            "luafile tests/lsp/nvim.lua",
        ])
        .env("YTTCHECK_BIN", env!("CARGO_BIN_EXE_yttcheck"))
        .env("REPO", &repo)
        .env("OUT", &out)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run nvim");
    let seen = std::fs::read_to_string(&out).unwrap_or_else(|e| {
        panic!(
            "{e}: nvim wrote nothing ({status:?}): {}",
            String::from_utf8_lossy(&status.stderr)
        )
    });
    for fact in [
        "diagnostic validation/min line 0 severity 1",
        "cleared after edit",
        "on disk: replicas: 0",
        "hover | `web@dev` | `2` | `envs/dev/web.yml:1` |",
        "hover | `web@prod` | `3` | `envs/prod/web.yml:1` |",
    ] {
        assert!(seen.lines().any(|l| l == fact), "{fact:?} not in:\n{seen}");
    }
}

/// The editors' set-ups are real code: VS Code's extension parses as
/// JavaScript and names the server and the files it serves; Zed's extension
/// compiles (its own workspace, its own target folder).
#[test]
fn the_editor_extensions_are_well_formed() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let vscode = root.join("editors/vscode");
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(vscode.join("package.json")).unwrap())
            .unwrap();
    let main = manifest["main"].as_str().unwrap();
    let js = std::fs::read_to_string(vscode.join(main)).unwrap();
    assert!(js.contains("args: [\"lsp\"]"), "{js}");
    assert!(manifest["dependencies"]["vscode-languageclient"].is_string());
    match Command::new("node")
        .arg("--check")
        .arg(vscode.join(main))
        .output()
    {
        Ok(out) => assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        ),
        Err(e) => {
            assert!(std::env::var_os("CI").is_none(), "node: {e}, and CI is set");
            super::common::skip("editors/vscode: node is not installed");
        }
    }
    let out = Command::new(env!("CARGO"))
        .args(["check", "--quiet", "--manifest-path"])
        .arg(root.join("editors/zed/Cargo.toml"))
        .env("CARGO_TARGET_DIR", root.join("target/editors-zed"))
        .output()
        .expect("run cargo");
    assert!(
        out.status.success(),
        "editors/zed does not compile: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}
