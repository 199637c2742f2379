#!/usr/bin/env node
// Bundles the CLI into one ESM file, dist/cli/scry.js, after `tsc` has built dist/ (issue 19: start-up).
// The library stays unbundled in dist/ with its types; this file is only what bin/scry.js runs.
//
// - Every module of src/ and the pure-JavaScript packages in INLINED are inlined; each command's
//   dynamic `import()` stays a lazy chunk under dist/cli/chunks/, loaded when the command runs.
// - Every other package stays external and loads from node_modules as before.
// - `import.meta.url` in a src/ module is rewritten to the URL its tsc output has in dist/, so
//   paths computed from it (the indexing worker dist/indexer/prepare-worker.js, models/builtin/,
//   package.json, createRequire) resolve exactly as they do unbundled.
import { readFile, rm } from 'node:fs/promises';
import { isBuiltin } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outfile = join(root, 'dist', 'cli', 'scry.js');

/**
 * The packages src/ imports that are inlined: pure JavaScript, nothing loaded from beside their
 * own files. Every other package src/ imports stays external and loads from node_modules as
 * unbundled: native addons (@photostructure/sqlite), WebAssembly (web-tree-sitter, the grammars,
 * tokenizers), model runtimes, packages that read files next to themselves or require() their
 * parts at run time (jsonc-parser's UMD build), and any dependency added later until it is
 * checked and listed here. What an inlined package imports is inlined with it.
 */
const INLINED = new Set(['commander', 'zod', 'diff', 'yaml', 'ignore', 'env-paths', 'fastest-levenshtein', 'cli-progress', '@modelcontextprotocol/sdk']);

const packageName = (specifier) => specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/');

/** Keeps every package src/ imports external unless it is in INLINED. */
const externalByDefault = {
  name: 'external-by-default',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith('node:') || isBuiltin(args.path)) return undefined;
      const fromSrc = args.importer.startsWith(join(root, 'src') + sep);
      return fromSrc && !INLINED.has(packageName(args.path)) ? { path: args.path, external: true } : undefined;
    });
  },
};

/** Rewrites `import.meta.url` in src/**.ts to the URL of the module's tsc output in dist/. */
const distUrls = {
  name: 'dist-import-meta-url',
  setup(b) {
    b.onLoad({ filter: /[\\/]src[\\/].*\.ts$/ }, async (args) => {
      const text = await readFile(args.path, 'utf8');
      if (!text.includes('import.meta.url')) return { contents: text, loader: 'ts' };
      const distFile = join(root, 'dist', relative(join(root, 'src'), args.path)).replace(/\.ts$/, '.js');
      const rel = relative(dirname(outfile), distFile).split(sep).join('/');
      const url = `new URL(${JSON.stringify(rel)}, import.meta.url).href`;
      return { contents: text.replaceAll('import.meta.url', url), loader: 'ts' };
    });
  },
};

// chunk names carry content hashes: drop the previous build's
await rm(join(dirname(outfile), 'chunks'), { recursive: true, force: true });

const result = await build({
  entryPoints: { scry: join(root, 'src', 'cli', 'main.ts') },
  outdir: dirname(outfile),
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  plugins: [externalByDefault, distUrls],
  // Some bundled CommonJS packages call require() for Node builtins.
  banner: { js: "import { createRequire as __scryCreateRequire } from 'node:module'; const require = __scryCreateRequire(import.meta.url);" },
  legalComments: 'none',
  logLevel: 'warning',
  metafile: true,
});

if (process.env.SCRY_BUNDLE_META) await (await import('node:fs/promises')).writeFile(process.env.SCRY_BUNDLE_META, JSON.stringify(result.metafile));
const bytes = Object.values(result.metafile.outputs).reduce((n, o) => n + o.bytes, 0);
process.stdout.write(`bundled the CLI: ${relative(root, outfile)} (${(bytes / 1024).toFixed(0)} KiB)\n`);
