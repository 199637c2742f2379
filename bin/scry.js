#!/usr/bin/env node
// Thin launcher. `npm run build` (run by `prepare` on install) compiles src/ to dist/ and bundles the
// CLI into dist/cli/scry.js (scripts/bundle-cli.mjs): one file to read instead of hundreds, and each
// command's code is evaluated only when that command runs. dist/cli/main.js, the unbundled CLI, is
// the fallback when only `tsc` has run.
import { existsSync } from 'node:fs';
import module from 'node:module';
import { URL } from 'node:url';

// V8's code cache on disk (Node >= 22.1): later runs skip compiling the CLI. Node 20 has no
// equivalent for ES modules; NODE_DISABLE_COMPILE_CACHE=1 turns it off.
module.enableCompileCache?.();

const bundle = new URL('../dist/cli/scry.js', import.meta.url);
const { main } = await import(existsSync(bundle) ? bundle.href : new URL('../dist/cli/main.js', import.meta.url).href);

main(process.argv).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`scry: fatal: ${err && err.stack ? err.stack : String(err)}\n`);
    process.exitCode = 1;
  },
);
