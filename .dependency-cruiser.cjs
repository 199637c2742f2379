/**
 * Dependency direction from ../shared/STYLE.md §2, enforced in `npm run lint`:
 *   core ← config ← { discover | parse | store | embed | rerank | lsp } ← { indexer | search | workspace | watch }
 *        ← { context | freshness | team } ← engine ← src/index.ts ← tools ← agent ← { mcp | cli }
 * team/ (issue 23, the PostgreSQL team index) reads local indexes through store/ and ranks with
 * search/'s pure functions; it is the one folder besides store/ that runs SQL (PostgreSQL's).
 */
const layers = ['core', 'config', 'discover|parse|store|embed|rerank|lsp', 'indexer|search|workspace|watch', 'context|freshness|team', 'engine'];

/** Folders a given folder may NOT import: everything at or to the right of its layer, except itself. */
function forbiddenFor(index) {
  const right = layers.slice(index + 1).join('|');
  return right;
}

const layerRules = layers.flatMap((layer, i) => {
  const rules = [];
  const right = forbiddenFor(i);
  if (right) {
    rules.push({
      name: `layer-${layer.replace(/\|/g, '-')}-imports-only-left`,
      severity: 'error',
      from: { path: `^src/(${layer})/` },
      to: { path: `^src/(${right}|tools|eval|agent|mcp|cli)/|^src/index\\.ts$` },
    });
  }
  if (layer.includes('|')) {
    // siblings never import each other
    for (const a of layer.split('|')) {
      const others = layer.split('|').filter((b) => b !== a).join('|');
      rules.push({
        name: `siblings-${a}-not-${others.replace(/\|/g, '-')}`,
        severity: 'error',
        from: { path: `^src/${a}/` },
        to: { path: `^src/(${others})/` },
      });
    }
  }
  return rules;
});

module.exports = {
  forbidden: [
    ...layerRules,
    {
      name: 'surfaces-use-public-api-only',
      comment: 'tools, eval, agent, mcp and cli talk to the engine through src/index.ts only',
      severity: 'error',
      from: { path: '^src/(tools|eval|agent|mcp|cli)/' },
      to: { path: '^src/(config|discover|parse|store|embed|rerank|lsp|indexer|search|workspace|watch|context|freshness|team|engine)/' },
    },
    {
      name: 'eval-not-surfaces',
      severity: 'error',
      from: { path: '^src/eval/' },
      to: { path: '^src/(tools|mcp|cli)/' },
    },
    {
      name: 'tools-only-index',
      severity: 'error',
      from: { path: '^src/tools/' },
      to: { path: '^src/(agent|mcp|cli)/' },
    },
    {
      name: 'agent-not-surfaces',
      comment: 'agent/ (the model loop of scry ask / complete and the evidence seam) sits between tools and the surfaces',
      severity: 'error',
      from: { path: '^src/agent/' },
      to: { path: '^src/(eval|mcp|cli)/' },
    },
    {
      name: 'sqlite-driver-in-store',
      comment: 'only the driver seam (src/store/driver.ts) touches a SQLite binding; everything else uses its Connection',
      severity: 'error',
      from: { pathNot: '^src/store/driver\\.ts$' },
      to: { path: '(^|/)node_modules/(@photostructure/sqlite|better-sqlite3)/|^(node:)?sqlite$' },
    },
    {
      name: 'serve-is-a-surface',
      comment: 'serve/ (scry serve and scry push, issue 23) sits beside mcp and cli: it uses the team store, config (tokens, limits) and the MCP transport; only cli imports it',
      severity: 'error',
      from: { path: '^src/serve/' },
      to: { path: '^src/(discover|parse|store|embed|rerank|lsp|indexer|search|workspace|watch|context|freshness|engine|tools|agent|eval|cli)/' },
    },
    {
      name: 'only-cli-imports-serve',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(serve|cli)/' },
      to: { path: '^src/serve/' },
    },
    {
      name: 'no-circular',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
