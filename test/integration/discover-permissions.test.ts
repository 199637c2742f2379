/**
 * Permission-denied paths become `unreadable`. Root reads through chmod 000, so when the tests run
 * as root the check runs in a child process as user `nobody` (uid/gid 65534) on a world-readable
 * temp tree; otherwise it runs in-process.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { readCandidate } from '../../src/discover/read.js';
import { makeTempDir, removeDir, runWalk, writeTree } from '../unit/discover/walk-helpers.js';

const isRoot = process.getuid?.() === 0;
const NOBODY = 65534;
const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

/**
 * Can `nobody` reach this checkout's sources and tsx at all? Not when the checkout sits under a
 * private directory (a CI clone in a 0700 temp dir): then the root-only variant cannot run here.
 */
const nobodyCanRun =
  isRoot &&
  spawnSync(process.execPath, ['-e', `require('fs').accessSync(${JSON.stringify(join(repoRoot, 'node_modules/tsx/package.json'))})`], {
    uid: NOBODY,
    gid: NOBODY,
    cwd: '/',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
  }).status === 0;

interface Outcome {
  readonly files: string[];
  readonly skipped: Record<string, string>;
  readonly reads: Record<string, string>;
}

/** Walks and reads `root` in this process. */
function inProcess(root: string): Outcome {
  const walked = runWalk(root);
  const reads: Record<string, string> = {};
  for (const f of walked.files) {
    const r = readCandidate(root, f, 1_000_000);
    reads[f.path] = r.ok ? 'ok' : r.reason;
  }
  return { files: walked.paths, skipped: Object.fromEntries(walked.reasons), reads };
}

const CHILD_SCRIPT = `
import { walk } from ${JSON.stringify(join(repoRoot, 'src/discover/walk.ts'))};
import { readCandidate } from ${JSON.stringify(join(repoRoot, 'src/discover/read.ts'))};
const root = process.argv[2];
const files = [], skipped = {}, reads = {};
walk({ root, maxFileBytes: 1e6, ignore: [], denylist: { add: [], remove: [] } }, {
  file: (c) => { files.push(c.path); const r = readCandidate(root, c, 1e6); reads[c.path] = r.ok ? 'ok' : r.reason; },
  skip: (s) => { skipped[s.path] = s.reason; },
});
console.log(JSON.stringify({ files: files.sort(), skipped, reads, uid: process.getuid() }));
`;

/** Walks and reads `root` in a child process running as `nobody`. */
function asNobody(root: string, scratch: string): Outcome {
  const script = join(scratch, 'walk-as-nobody.ts');
  writeFileSync(script, CHILD_SCRIPT, { mode: 0o644 });
  const child = spawnSync(process.execPath, ['--import', 'tsx', script, root], {
    cwd: repoRoot,
    uid: NOBODY,
    gid: NOBODY,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: scratch },
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (child.status !== 0) throw new Error(`child failed (${child.status}): ${child.stderr}${String(child.error ?? '')}`);
  const parsed = JSON.parse(child.stdout.trim().split('\n').pop()!) as Outcome & { uid: number };
  expect(parsed.uid).toBe(NOBODY);
  return parsed;
}

const dirs: string[] = [];
const locked: string[] = [];
afterEach(() => {
  for (const l of locked.splice(0)) chmodSync(l, 0o755);
  for (const d of dirs.splice(0)) removeDir(d);
});

/** A world-readable temp dir, removed after the test. */
function openDir(prefix: string): string {
  const dir = makeTempDir(prefix);
  chmodSync(dir, 0o755);
  dirs.push(dir);
  return dir;
}

function lock(path: string): void {
  chmodSync(path, 0o000);
  locked.push(path);
}

function walkAs(root: string): Outcome {
  return isRoot ? asNobody(root, openDir('scry-perm-scratch-')) : inProcess(root);
}

// Skipped only when running as root in a checkout that user nobody cannot read (see above).
describe.skipIf(isRoot && !nobodyCanRun)(`permission denied (${isRoot ? 'child process as nobody' : 'in-process'})`, () => {
  it('reports an unreadable file and directory as `unreadable`', () => {
    const root = openDir('scry-perm-');
    writeTree(root, { 'ok.ts': 'export const ok = 1;\n', 'locked.ts': 'x', 'locked-dir/inner.ts': 'y', 'open/also-ok.md': '# ok\n' });
    chmodSync(join(root, 'open'), 0o755);
    for (const f of ['ok.ts', 'open/also-ok.md']) chmodSync(join(root, f), 0o644);
    lock(join(root, 'locked.ts'));
    lock(join(root, 'locked-dir'));

    const outcome = walkAs(root);
    // the walk sees the locked file (its directory is readable); reading it fails
    expect(outcome.files).toEqual(['locked.ts', 'ok.ts', 'open/also-ok.md']);
    expect(outcome.reads).toEqual({ 'locked.ts': 'unreadable', 'ok.ts': 'ok', 'open/also-ok.md': 'ok' });
    expect(outcome.skipped).toEqual({ 'locked-dir/': 'unreadable' });
  });

  it('reports an unreadable walk root as `./`', () => {
    const parent = openDir('scry-perm-');
    writeTree(parent, { 'locked-root/a.ts': 'x' });
    lock(join(parent, 'locked-root'));
    expect(walkAs(join(parent, 'locked-root'))).toMatchObject({ files: [], skipped: { './': 'unreadable' } });
  });
});
