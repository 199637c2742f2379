#!/usr/bin/env node
// Bundles the CLI into one ESM file, dist/cli/scry.js (with lazy chunks), and one CommonJS script,
// dist/cli/scry.cjs (for runtimes without an ES module compile cache), after `tsc` has built dist/ (issue 19: start-up).
// The library stays unbundled in dist/ with its types; this file is only what bin/scry.js runs.
//
// - Every module of src/ and the pure-JavaScript packages in INLINED are inlined; each command's
//   dynamic `import()` stays a lazy chunk under dist/cli/chunks/, loaded when the command runs.
// - Every other package stays external and loads from node_modules as before.
// - `import.meta.url` in a src/ module is rewritten to the URL its tsc output has in dist/, so
//   paths computed from it (the indexing worker dist/indexer/prepare-worker.js, models/builtin/,
//   package.json, createRequire) resolve exactly as they do unbundled.
import { readFile, rm, writeFile } from 'node:fs/promises';
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

/**
 * Rewrites `import.meta.url` in a src/ module to the URL of its tsc output in dist/. In the script
 * bundle (CommonJS, dist/cli/scry.cjs, run by src/cli/script-bundle.ts) it is computed from the
 * bundle's own URL, `__scryBundleUrl`, which the loader passes in.
 */
function distUrls(path, text, script) {
  if (!text.includes('import.meta.url')) return text;
  const distFile = join(root, 'dist', relative(join(root, 'src'), path)).replace(/\.ts$/, '.js');
  const rel = relative(dirname(outfile), distFile).split(sep).join('/');
  if (script) return text.replaceAll('import.meta.url', `new URL(${JSON.stringify(rel)}, __scryBundleUrl).href`);
  // the module may land in the entry (dist/cli/) or in a chunk (dist/cli/chunks/): resolve from dist/cli/ either way
  return text.replaceAll('import.meta.url', `new URL(${JSON.stringify(rel)}, new URL(/\\/chunks\\/[^/]*$/.test(import.meta.url) ? '../' : './', import.meta.url)).href`);
}

/**
 * In the script bundle, a dynamic `import()` of a package left external calls `__scryImport`, the
 * loader's own `import()` (src/cli/script-bundle.ts): V8 drops what a script's `import()` needs
 * when its code comes from the code cache ("A dynamic import callback was not specified"). Only
 * code forms are rewritten (`await import(`, `??= import(`, `=> import(`), never text in a string;
 * imports of src/ modules and inlined packages stay `import()` for esbuild to bundle.
 */
function scriptImports(text) {
  return text.replace(/(await\s+|\?\?=\s*|=>\s*)import\((?!\s*['"`](?:\.|(?:[^'"`]+)['"`]))/g, '$1__scryImport(').replace(
    /(await\s+|\?\?=\s*|=>\s*)import\((\s*)(['"`])([^'"`]+)\3/g,
    (all, before, space, quote, specifier) => (specifier.startsWith('.') || INLINED.has(packageName(specifier)) ? all : `${before}__scryImport(${space}${quote}${specifier}${quote}`),
  );
}

/** Fails the build if the script bundle still holds a code-form `import()` (see scriptImports). */
function checkScriptImports(file, text) {
  const left = text.match(/(?:await\s*|\?\?=\s*|=>\s*)import\(/g);
  if (left) throw new Error(`bundle-cli: ${file} holds ${left.length} dynamic import() the script loader cannot serve from its code cache: ${left.join(', ')}`);
}

/**
 * Where each value src/index.ts exports comes from: name → { from: './engine/engine.js', local }.
 * index.ts holds `export { a, b as c } from './x.js';` lines only (test/unit/public-api.test.ts).
 */
function publicApiSources(text) {
  const sources = new Map();
  for (const [, type, names, from] of text.matchAll(/^export (type )?\{([^}]*)\} from '([^']+)';$/gm)) {
    if (type) continue;
    for (const item of names.split(',').map((n) => n.trim()).filter((n) => n && !n.startsWith('type '))) {
      const [local, exported = local] = item.split(/\s+as\s+/);
      sources.set(exported, { from, local });
    }
  }
  return sources;
}

/**
 * For the bundle only, an import of the public API (src/index.ts) in cli/, tools/, mcp/, agent/
 * or eval/ imports each name from the module index.ts re-exports it from. esbuild puts a module
 * in the chunk of every command whose imports reach its file, whether or not the command uses
 * it: through index.ts, `scry search` would load the whole library (context packing, the model
 * store, collections). The source keeps importing index.ts (the dependency rule); each command
 * loads the same code for the names it uses, and nothing else.
 */
function flattenPublicApi(text, sources) {
  return text.replace(/import\s+(type\s+)?\{([^}]*)\}\s*from\s*'((?:\.\.\/)+)index\.js';/g, (all, type, names, up) => {
    if (type) return all; // erased
    const items = names.split(',').map((n) => n.trim()).filter((n) => n && !n.startsWith('type '));
    return items
      .map((item) => {
        const [name, alias = name] = item.split(/\s+as\s+/);
        const source = sources.get(name);
        if (!source) throw new Error(`bundle-cli: ${name} is imported from index.js, which does not export it as a value`);
        return `import { ${source.local} as ${alias} } from '${up}${source.from.replace(/^\.\//, '')}';`;
      })
      .join('\n');
  });
}

const SURFACE = /[\\/]src[\\/](cli|tools|mcp|agent|eval)[\\/]/;

/**
 * commander requires node:child_process at load time, for executable subcommands scry does not
 * have; child_process brings net, dgram and the stream stack (a few ms of every start-up,
 * `--help` included). Inside commander it is a stand-in that requires the real module on first use.
 */
const lazyChildProcess = {
  name: 'lazy-child-process',
  setup(b) {
    b.onResolve({ filter: /^(node:)?child_process$/ }, (args) => (/[\\/]node_modules[\\/]commander[\\/]/.test(args.importer) ? { path: 'child_process', namespace: 'lazy-child-process' } : undefined));
    b.onLoad({ filter: /.*/, namespace: 'lazy-child-process' }, () => ({
      contents: "let real; module.exports = new Proxy({}, { get: (_, key) => (real ??= require('node:child_process'))[key] });",
      loader: 'js',
    }));
  },
};

/** Loads src/**.ts through distUrls, and the surfaces' imports of src/index.ts through flattenPublicApi. */
const srcLoader = (script) => ({
  name: 'scry-src',
  setup(b) {
    let sources;
    b.onLoad({ filter: /[\\/]src[\\/].*\.ts$/ }, async (args) => {
      let text = distUrls(args.path, await readFile(args.path, 'utf8'), script);
      if (script) text = scriptImports(text);
      if (SURFACE.test(args.path)) {
        sources ??= publicApiSources(await readFile(join(root, 'src', 'index.ts'), 'utf8'));
        text = flattenPublicApi(text, sources);
      }
      return { contents: text, loader: 'ts' };
    });
  },
});

// chunk names carry content hashes: drop the previous build's
await rm(join(dirname(outfile), 'chunks'), { recursive: true, force: true });

const common = { bundle: true, platform: 'node', target: 'node20', absWorkingDir: root, legalComments: 'none', minifyWhitespace: true, minifySyntax: true, logLevel: 'warning' };
const result = await build({
  ...common,
  entryPoints: { scry: join(root, 'src', 'cli', 'main.ts') },
  outdir: dirname(outfile),
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  format: 'esm',
  plugins: [lazyChildProcess, externalByDefault, srcLoader(false)],
  // Some bundled CommonJS packages call require() for Node builtins.
  banner: { js: "import { createRequire as __scryCreateRequire } from 'node:module'; const require = __scryCreateRequire(import.meta.url);" },
  metafile: true,
});

/**
 * The same CLI as one CommonJS file, dist/cli/scry.cjs: what bin/scry.js runs for a command on a
 * runtime without `module.enableCompileCache` (Node 20), as a `vm.Script` whose compiled code V8
 * caches (src/cli/script-bundle.ts). Lazy imports of src/ become lazily initialised parts of the
 * file; imports of external packages stay `import()` (run by the main context's loader) or `require`.
 */
await build({
  ...common,
  entryPoints: [join(root, 'src', 'cli', 'main.ts')],
  outfile: join(dirname(outfile), 'scry.cjs'),
  format: 'cjs',
  plugins: [lazyChildProcess, externalByDefault, srcLoader(true)],
});
checkScriptImports('dist/cli/scry.cjs', await readFile(join(dirname(outfile), 'scry.cjs'), 'utf8'));

if (process.env.SCRY_BUNDLE_META) await writeFile(process.env.SCRY_BUNDLE_META, JSON.stringify(result.metafile));

/**
 * dist/cli/bundle-inputs.json: what each file of the bundle holds, `{ "chunks/x.js": ["src/engine/engine.ts",
 * "commander", ...] }` (src/ modules by path, packages by name), so that a test can name the modules
 * a command loads (test/integration/startup-modules.test.ts).
 */
const packageOfInput = (input) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input)?.[1];
const inputs = Object.fromEntries(
  Object.entries(result.metafile.outputs)
    .filter(([file]) => file.endsWith('.js'))
    .map(([file, output]) => [relative(dirname(outfile), join(root, file)).split(sep).join('/'), [...new Set(Object.keys(output.inputs).map((i) => packageOfInput(i) ?? i))].sort()]),
);
await writeFile(join(dirname(outfile), 'bundle-inputs.json'), `${JSON.stringify(inputs, null, 1)}\n`);
const bytes = Object.values(result.metafile.outputs).reduce((n, o) => n + o.bytes, 0);
process.stdout.write(`bundled the CLI: ${relative(root, outfile)} (${(bytes / 1024).toFixed(0)} KiB)\n`);
