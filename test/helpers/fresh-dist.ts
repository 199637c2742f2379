import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root. */
export const REPO = fileURLToPath(new URL('../../', import.meta.url));
/** What `scry` runs: bin/scry.js imports the bundle dist/cli/scry.js (scripts/bundle-cli.mjs). */
export const BIN = join(REPO, 'bin', 'scry.js');
/** Written last by a build: tsc emits dist/, then the bundler writes dist/cli/scry.js and then this (the script bundle). */
const ENTRY = join(REPO, 'dist', 'cli', 'scry.cjs');
const LOCK = join(REPO, 'dist', '.fresh-dist.lock');
/** A lock older than this belongs to a dead run. */
const STALE_LOCK_MS = 5 * 60_000;

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

const builtAt = (): number => (existsSync(ENTRY) ? statSync(ENTRY).mtimeMs : 0);
const sleep = (ms: number): void => void Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/**
 * Makes sure dist/ is at least as new as src/, so tests spawning the built `bin/scry.js` never
 * test stale code: runs `tsc -p tsconfig.build.json` and then the CLI bundler when any file under
 * src/ is newer than the bundles (dist/cli/scry.cjs is written last). Test files in parallel workers take turns through a lock directory. Type
 * errors elsewhere in src/ do not block it (tsc emits anyway; they are printed).
 */
export function ensureFreshDist(): void {
  if (newestMtime(join(REPO, 'src')) <= builtAt()) return;
  mkdirSync(join(REPO, 'dist'), { recursive: true });
  for (;;) {
    try {
      mkdirSync(LOCK);
      break;
    } catch {
      const held = statSync(LOCK, { throwIfNoEntry: false });
      if (held && Date.now() - held.mtimeMs > STALE_LOCK_MS) rmSync(LOCK, { recursive: true, force: true });
      else sleep(250);
    }
  }
  try {
    const before = builtAt();
    if (newestMtime(join(REPO, 'src')) <= before) return; // another worker built it meanwhile
    const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
    const r = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: REPO, encoding: 'utf8', timeout: 170_000 });
    if (r.status !== 0) console.warn(`tsc -p tsconfig.build.json reported errors (dist/ was emitted anyway):\n${r.stdout}`);
    const b = spawnSync(process.execPath, [join(REPO, 'scripts', 'bundle-cli.mjs')], { cwd: REPO, encoding: 'utf8', timeout: 170_000 });
    if (builtAt() <= before) throw new Error(`dist/ is older than src/ and \`npm run build\` did not rebuild it:\n${r.stdout}${r.stderr}${b.stdout}${b.stderr}`);
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}
