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
    assert!(report.contains("4 passed"), "{report}");
}
