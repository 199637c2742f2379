/**
 * The LSP method names scry sends and handles, as the protocol specifies them. They are plain
 * strings so that the modules naming them need nothing of vscode-languageserver-protocol at load
 * time: that package (with vscode-jsonrpc, node:net, node:child_process) is imported when a
 * language server starts (`LspClient.start`), not when the engine is created (issue 19: start-up).
 */
export const LSP = {
  initialize: 'initialize',
  initialized: 'initialized',
  shutdown: 'shutdown',
  exit: 'exit',
  didOpen: 'textDocument/didOpen',
  didChange: 'textDocument/didChange',
  publishDiagnostics: 'textDocument/publishDiagnostics',
  definition: 'textDocument/definition',
  implementation: 'textDocument/implementation',
  references: 'textDocument/references',
  workspaceSymbol: 'workspace/symbol',
} as const;
