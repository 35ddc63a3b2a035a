// yttcheck for VS Code: starts `yttcheck lsp` (stdio) for the workspace and
// hands it YAML and Starlark files. Everything else (findings, hover,
// completion, definitions, code actions, symbols) is the server's.
"use strict";

const vscode = require("vscode");
const { LanguageClient, TransportKind } = require("vscode-languageclient/node");

let client;

async function activate(context) {
  const config = vscode.workspace.getConfiguration("yttcheck");
  const command = config.get("path") || "yttcheck";
  const server = { command, args: ["lsp"], transport: TransportKind.stdio };
  client = new LanguageClient(
    "yttcheck",
    "yttcheck",
    { run: server, debug: server },
    {
      documentSelector: [
        { scheme: "file", language: "yaml" },
        { scheme: "file", language: "starlark" },
        { scheme: "file", pattern: "**/*.star" },
      ],
      // whether the repository's .yttcheck.yml may have schemas fetched over
      // the network: the user's own setting (machine scope: a repository's
      // .vscode/settings.json cannot set it), in a workspace VS Code trusts
      initializationOptions: {
        trustWorkspace: vscode.workspace.isTrusted && config.get("trustWorkspace") === true,
      },
      synchronize: {
        // files changed outside the editor (a branch switch, a formatter)
        fileEvents: vscode.workspace.createFileSystemWatcher("**/{*.yml,*.yaml,*.star,*.txt,.yttcheck.yml}"),
        // {"yttcheck": {"trustWorkspace": ...}} when the setting changes
        configurationSection: "yttcheck",
      },
    }
  );
  context.subscriptions.push(
    vscode.commands.registerCommand("yttcheck.restart", async () => {
      if (client) {
        await client.restart();
      }
    })
  );
  try {
    await client.start();
  } catch (e) {
    vscode.window.showErrorMessage(
      `yttcheck: cannot start \`${command} lsp\` (${e.message}). Install yttcheck (cargo install --locked --git https://github.com/yttcheck/yttcheck yttcheck) or set yttcheck.path.`
    );
  }
}

async function deactivate() {
  if (client) {
    await client.stop();
  }
}

module.exports = { activate, deactivate };
