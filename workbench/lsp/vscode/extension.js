// Starts `pilotage lsp --stdio` for PDL files, JSON program files and
// pilotage.yaml; everything the editor shows comes from the server.
const vscode = require('vscode');
const { LanguageClient } = require('vscode-languageclient/node');

let client;

function activate(context) {
  const command = vscode.workspace.getConfiguration('pilotage').get('path') || 'pilotage';
  const server = { command, args: ['lsp', '--stdio'] };
  client = new LanguageClient('pilotage', 'Pilotage', { run: server, debug: server }, {
    documentSelector: [
      { scheme: 'file', language: 'pdl' },
      // Program files: the server checks those pilotage.yaml maps to a
      // Language and leaves the others alone.
      { scheme: 'file', language: 'json' },
      // The settings file: its problems, as pilotage config show reports them.
      { scheme: 'file', pattern: '**/pilotage.yaml' },
    ],
  });
  context.subscriptions.push({ dispose: () => client && client.stop() });
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
