#!/usr/bin/env node
// Bundles the CLI into one ESM file, dist/cli/scry.js, after `tsc` has built dist/ (issue 19: start-up).
// The library stays unbundled in dist/ with its types; this file is only what bin/scry.js runs.
//
// - Every module of src/ and the pure-JavaScript packages are inlined; each command's dynamic
//   `import()` stays lazy (esbuild wraps the module, so its body runs when the command runs).
// - Packages with native code, WebAssembly or files found next to their own module stay external
//   and load from node_modules as before (EXTERNAL below).
// - `import.meta.url` in a src/ module is rewritten to the URL its tsc output has in dist/, so
//   paths computed from it (the indexing worker dist/indexer/prepare-worker.js, models/builtin/,
//   package.json, createRequire) resolve exactly as they do unbundled.
import { readFile } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outfile = join(root, 'dist', 'cli', 'scry.js');

/** Packages that must load from node_modules: native addons, WebAssembly, assets beside the module, optional peers. */
const EXTERNAL = [
  'better-sqlite3',
  'web-tree-sitter',
  '@repomix/tree-sitter-wasms',
  '@huggingface/tokenizers',
  'onnxruntime-node',
  '@energetic-ai/*',
  'gpt-tokenizer',
  'gpt-tokenizer/*',
  // its `main` is a UMD build that require()s its parts by relative path at run time
  'jsonc-parser',
];

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

const result = await build({
  entryPoints: { scry: join(root, 'src', 'cli', 'main.ts') },
  outdir: dirname(outfile),
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: EXTERNAL,
  plugins: [distUrls],
  // Some bundled CommonJS packages call require() for Node builtins.
  banner: { js: "import { createRequire as __scryCreateRequire } from 'node:module'; const require = __scryCreateRequire(import.meta.url);" },
  legalComments: 'none',
  logLevel: 'warning',
  metafile: true,
});

if (process.env.SCRY_BUNDLE_META) await (await import('node:fs/promises')).writeFile(process.env.SCRY_BUNDLE_META, JSON.stringify(result.metafile));
const bytes = Object.values(result.metafile.outputs).reduce((n, o) => n + o.bytes, 0);
process.stdout.write(`bundled the CLI: ${relative(root, outfile)} (${(bytes / 1024).toFixed(0)} KiB)\n`);
