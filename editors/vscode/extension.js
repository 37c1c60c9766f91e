// Starts `pbtxt-lint lsp` for Triton model configs; everything else is the server's.
"use strict";
const vscode = require("vscode");
const { LanguageClient, TransportKind } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const command = vscode.workspace.getConfiguration("pbtxt-lint").get("path") || "pbtxt-lint";
  const serverOptions = { command, args: ["lsp"], transport: TransportKind.stdio };
  const clientOptions = {
    documentSelector: [{ scheme: "file", language: "pbtxt" }],
    synchronize: { configurationSection: "pbtxt-lint" },
  };
  client = new LanguageClient("pbtxt-lint", "pbtxt-lint", serverOptions, clientOptions);
  context.subscriptions.push(client);
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
