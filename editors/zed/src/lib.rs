//! Starts `yttcheck lsp` for YAML and Starlark files: the binary on the
//! worktree's `PATH` (install it with `cargo install --locked --git
//! https://github.com/yttcheck/yttcheck yttcheck`), or the path given in
//! Zed's settings (`"lsp": {"yttcheck": {"binary": {"path": "..."}}}`).

use zed_extension_api::{self as zed, settings::LspSettings, LanguageServerId, Result};

struct Yttcheck;

impl zed::Extension for Yttcheck {
    fn new() -> Self {
        Yttcheck
    }

    fn language_server_command(
        &mut self,
        id: &LanguageServerId,
        worktree: &zed::Worktree,
    ) -> Result<zed::Command> {
        let configured = LspSettings::for_worktree(id.as_ref(), worktree)
            .ok()
            .and_then(|s| s.binary)
            .and_then(|b| b.path);
        let command = configured
            .or_else(|| worktree.which("yttcheck"))
            .ok_or_else(|| {
                "yttcheck is not on PATH: install it (cargo install --locked --git https://github.com/yttcheck/yttcheck yttcheck) or set lsp.yttcheck.binary.path".to_string()
            })?;
        Ok(zed::Command {
            command,
            args: vec!["lsp".into()],
            env: worktree.shell_env(),
        })
    }
}

zed::register_extension!(Yttcheck);
