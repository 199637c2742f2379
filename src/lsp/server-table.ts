/**
 * The language servers scry knows out of the box (issue 21). Only the config and this table name
 * what may be started: never a path or an argument from indexed content, never user text.
 */

/** A server family: one process serves every language mapped to it (TypeScript serves JS too). */
export interface ServerSpec {
  /** The family's name, also the config key (`lsp.servers.<name>`). */
  readonly name: string;
  /** Executable names, tried in order. */
  readonly commands: readonly string[];
  readonly args: readonly string[];
  /** The index's language names (src/discover/language.ts) this server answers for. */
  readonly languages: readonly string[];
  /** The one command a user runs to install it. */
  readonly install: string;
}

export const BUILTIN_SERVERS: readonly ServerSpec[] = [
  {
    name: 'typescript',
    commands: ['typescript-language-server'],
    args: ['--stdio'],
    languages: ['typescript', 'tsx', 'javascript'],
    install: 'npm install --save-dev typescript-language-server typescript',
  },
  { name: 'python', commands: ['pyright-langserver'], args: ['--stdio'], languages: ['python'], install: 'npm install --save-dev pyright' },
  { name: 'go', commands: ['gopls'], args: [], languages: ['go'], install: 'go install golang.org/x/tools/gopls@latest' },
  { name: 'rust', commands: ['rust-analyzer'], args: [], languages: ['rust'], install: 'rustup component add rust-analyzer' },
  { name: 'c', commands: ['clangd'], args: ['--background-index=false'], languages: ['c', 'cpp'], install: 'apt-get install clangd (or your platform\'s LLVM package)' },
  { name: 'java', commands: ['jdtls'], args: [], languages: ['java'], install: 'install Eclipse JDT Language Server and put `jdtls` on PATH' },
];

/** The LSP `languageId` of a file of an index language. */
export function languageIdOf(language: string): string {
  switch (language) {
    case 'tsx':
      return 'typescriptreact';
    case 'javascript':
      return 'javascript';
    default:
      return language;
  }
}

/** The built-in family serving an index language, or undefined. */
export function builtinFor(language: string): ServerSpec | undefined {
  return BUILTIN_SERVERS.find((s) => s.languages.includes(language));
}

/**
 * The servers in effect: the built-in table with each family's command replaced by the config's
 * (`lsp.servers.<family>`); a configured name outside the table adds a family for the language of that name.
 */
export function effectiveServers(configured: Readonly<Record<string, { command: string; args: readonly string[] }>>): ServerSpec[] {
  const table = BUILTIN_SERVERS.map((s) => {
    const c = configured[s.name] ?? s.languages.map((l) => configured[l]).find((x) => x !== undefined);
    return c ? { ...s, commands: [c.command], args: [...c.args] } : s;
  });
  for (const [name, c] of Object.entries(configured)) {
    if (table.some((s) => s.name === name || s.languages.includes(name))) continue;
    table.push({ name, commands: [c.command], args: [...c.args], languages: [name], install: `check lsp.servers.${name}.command in scry.config.json` });
  }
  return table;
}
