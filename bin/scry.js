#!/usr/bin/env node
// Thin launcher: the CLI is compiled to dist/ by `npm run build` (run by `prepare` on install).
import { main } from '../dist/cli/main.js';

main(process.argv).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`scry: fatal: ${err && err.stack ? err.stack : String(err)}\n`);
    process.exitCode = 1;
  },
);
