#!/usr/bin/env node
// Thin launcher. `npm run build` (run by `prepare` on install) compiles src/ to dist/ and bundles the
// CLI into dist/cli/scry.js (scripts/bundle-cli.mjs): one file to read instead of hundreds, and each
// command's code is evaluated only when that command runs. dist/cli/main.js, the unbundled CLI, is
// the fallback when only `tsc` has run.
import { existsSync } from 'node:fs';
import module from 'node:module';
import { URL, fileURLToPath } from 'node:url';

// V8's code cache on disk for ES modules (Node >= 22.1): this launcher, the loader and `--help`'s
// bundle. NODE_DISABLE_COMPILE_CACHE=1 turns it off.
module.enableCompileCache?.();

/**
 * A command (not `--help`, which loads little) runs the CommonJS bundle dist/cli/scry.cjs with V8's
 * code from an earlier run (src/cli/script-bundle.ts): Node 20 has no code cache for ES modules,
 * and on Node 22 a blended search costs less CPU this way. NODE_DISABLE_COMPILE_CACHE=1 runs the
 * ES module bundle instead; SCRY_SCRIPT_BUNDLE=0 or 1 forces the choice (tests, benchmarks).
 */
async function scriptMain() {
  const command = process.argv[2];
  const wanted = process.env.SCRY_SCRIPT_BUNDLE ?? '1';
  if (wanted !== '1' || process.env.NODE_DISABLE_COMPILE_CACHE || !command || command.startsWith('-')) return undefined;
  const file = new URL('../dist/cli/scry.cjs', import.meta.url);
  const loader = new URL('../dist/cli/script-bundle.js', import.meta.url);
  if (!existsSync(file) || !existsSync(loader)) return undefined;
  const { loadScriptBundle, scriptCacheDir } = await import(loader.href);
  const bundle = loadScriptBundle({ file: fileURLToPath(file), cacheDir: scriptCacheDir(), command });
  process.once('exit', bundle.save);
  return bundle.exports.main;
}

async function esmMain() {
  const bundle = new URL('../dist/cli/scry.js', import.meta.url);
  return (await import(existsSync(bundle) ? bundle.href : new URL('../dist/cli/main.js', import.meta.url).href)).main;
}

const main = (await scriptMain()) ?? (await esmMain());

main(process.argv).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`scry: fatal: ${err && err.stack ? err.stack : String(err)}\n`);
    process.exitCode = 1;
  },
);
