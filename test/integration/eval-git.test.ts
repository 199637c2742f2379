/**
 * `scry eval --from-git` on a real git repository made by the test: informative commits become
 * queries, their modified source files and touched functions the gold, searched in the tree at
 * each parent (a git worktree) or, with --fast, in the current index.
 */
import { execFileSync } from 'node:child_process';
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/temp.js';

const STORE_V1 = [
  '/** The index store. */',
  'export class Store {',
  '  private handle: number | undefined;',
  '',
  '  open(path: string): void {',
  '    this.handle = path.length;',
  '  }',
  '',
  '  close(): void {',
  '    this.handle = undefined;',
  '  }',
  '}',
].join('\n');

const RETRY_V1 = ['/** Retries a function that fails with SQLITE_BUSY. */', 'export function retryBusy(fn: () => void): void {', '  for (;;) {', '    try {', '      return fn();', '    } catch {', '      continue;', '    }', '  }', '}'].join('\n');

describe('scry eval --from-git', () => {
  let t: ReturnType<typeof tempDir>;
  let root: string;
  const sh = (...args: string[]): string => execFileSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', '-c', 'commit.gpgsign=false', ...args], { cwd: root, encoding: 'utf8' });
  const commit = (message: string, files: Record<string, string>): void => {
    writeTree(root, files);
    sh('add', '-A');
    sh('commit', '-q', '-m', message);
  };

  beforeAll(() => {
    t = tempDir();
    root = join(t.dir, 'repo');
    writeTree(root, { 'README.md': '# Demo\n' });
    sh('init', '-q');
    commit('Initial commit', { 'src/store.ts': STORE_V1, 'src/retry.ts': RETRY_V1, 'package.json': '{"version": "1.0.0"}\n' });
    commit('Make retryBusy give up after five attempts with a clear error', {
      'src/retry.ts': RETRY_V1.replace('  for (;;) {', '  for (let i = 0; ; i++) {').replace('      continue;', "      if (i >= 5) throw new Error('gave up');"),
    });
    commit('bump version', { 'package.json': '{"version": "1.0.1"}\n' });
    commit('Close the store handle when opening the database fails halfway', { 'src/store.ts': STORE_V1.replace('    this.handle = path.length;', '    this.handle = path.length;\n    if (!path) this.close();') });
    commit('Document the retry policy in the README for operators', { 'README.md': '# Demo\n\nRetries five times.\n' });
    // a file outside git must not change anything
    writeFileSync(join(root, 'untracked.ts'), 'export const x = 1;\n');
  });
  afterAll(() => t.cleanup());

  it('mines the informative commits that modify source, and scores them at each parent', async () => {
    const r = await runCli(['eval', root, '--from-git', '--db', join(t.dir, 'current.db'), '--json'], { cwd: t.dir });
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    // newest first; the version bump, the README-only commit and the root commit are not queries
    expect(report.queries.map((q: { query: string }) => q.query)).toEqual([
      'Close the store handle when opening the database fails halfway',
      'Make retryBusy give up after five attempts with a clear error',
    ]);
    expect(report.queries.map((q: { expected: string[] }) => q.expected)).toEqual([['src/store.ts'], ['src/retry.ts']]);
    const s = report.modes.lexical;
    expect(s.queries).toBe(2);
    expect(s.functionQueries).toBe(2);
    expect(s.accAt[10]).toBe(1);
    // the worktree is gone afterwards
    expect(execFileSync('git', ['worktree', 'list'], { cwd: root, encoding: 'utf8' }).trim().split('\n')).toHaveLength(1);
  });

  it('removes a worktree a killed run left behind', async () => {
    const { mkdtempSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const stale = join(mkdtempSync(join(tmpdir(), 'scry-eval-')), 'tree');
    sh('worktree', 'add', '--detach', '--force', stale, 'HEAD~1');
    expect(sh('worktree', 'list').trim().split('\n')).toHaveLength(2);
    const r = await runCli(['eval', root, '--from-git', '--commits', '1', '--db', join(t.dir, 'current.db'), '--json'], { cwd: t.dir });
    expect(r.code).toBe(0);
    expect(sh('worktree', 'list').trim().split('\n')).toHaveLength(1);
  });

  it('--fast searches the current index; --commits limits the queries', async () => {
    const r = await runCli(['eval', root, '--from-git', '--fast', '--commits', '1', '--db', join(t.dir, 'current.db'), '--json'], { cwd: t.dir });
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.queries).toHaveLength(1);
    expect(report.queries[0]).toMatchObject({ expected: ['src/store.ts'], firstFileRank: 1 });
  });

  it('refuses a directory that is not a git repository, and bad --commits', async () => {
    const plain = join(t.dir, 'plain');
    writeTree(plain, { 'a.ts': 'export const a = 1;\n' });
    const r = await runCli(['eval', plain, '--from-git', '--db', join(t.dir, 'plain.db'), '--json'], { cwd: t.dir });
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stderr).error.message).toContain('not inside a git repository');
    const bad = await runCli(['eval', root, '--from-git', '--commits', '0', '--db', join(t.dir, 'current.db')], { cwd: t.dir });
    expect(bad.code).toBe(2);
  });

  it('--export writes the mined queries pinned to their parent commits; --queries evaluates them there, --cache reuses each index', async () => {
    const file = join(t.dir, 'mined.jsonl');
    const cache = join(t.dir, 'eval-cache');
    const ex = await runCli(['eval', root, '--from-git', '--export', file, '--db', join(t.dir, 'current.db'), '--json'], { cwd: t.dir });
    expect(ex.code).toBe(0);
    expect(JSON.parse(ex.stdout)).toMatchObject({ queries: 2 });
    const { readFileSync, readdirSync } = await import('node:fs');
    const lines = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const parents = sh('log', '--format=%P', '-n', '5').trim().split('\n');
    expect(lines.map((l) => l.query)).toEqual(['Close the store handle when opening the database fails halfway', 'Make retryBusy give up after five attempts with a clear error']);
    for (const l of lines) {
      expect(parents).toContain(l.commit);
      expect(sh('rev-parse', `${l.sha}^`).trim()).toBe(l.commit);
    }
    // the gold function is located in the parent's version: retryBusy spans lines 2-10 there
    expect(lines[1].expected).toEqual([{ path: 'src/retry.ts', startLine: 2, endLine: 10 }]);

    const first = await runCli(['eval', root, '--queries', file, '--cache', cache, '--db', join(t.dir, 'current.db'), '--json'], { cwd: t.dir });
    expect(first.code).toBe(0);
    const report = JSON.parse(first.stdout);
    expect(report.modes.lexical.queries).toBe(2);
    expect(report.modes.lexical.accAt[10]).toBe(1);
    const cached = readdirSync(cache).filter((f) => f.endsWith('.db')).sort();
    expect(cached).toEqual([...new Set(lines.map((l) => `${l.commit}.db`))].sort());
    // a second run searches the cached indexes: same numbers, no worktree needed, no cached file rewritten
    const stamps = cached.map((f) => statSync(join(cache, f)).mtimeMs);
    const second = await runCli(['eval', root, '--queries', file, '--cache', cache, '--db', join(t.dir, 'current.db'), '--json'], { cwd: t.dir });
    expect(JSON.parse(second.stdout).queries.map((q: { firstFileRank: number }) => q.firstFileRank)).toEqual(report.queries.map((q: { firstFileRank: number }) => q.firstFileRank));
    expect(sh('worktree', 'list').trim().split('\n')).toHaveLength(1);
    expect(cached.map((f) => statSync(join(cache, f)).mtimeMs)).toEqual(stamps);
  });

  it('a query pinned to a commit the repository does not have is a clear error', async () => {
    const file = join(t.dir, 'bad-commit.jsonl');
    writeFileSync(file, `${JSON.stringify({ query: 'store handle', expected: [{ path: 'src/store.ts' }], commit: 'deadbeefdeadbeef' })}\n`);
    const r = await runCli(['eval', root, '--queries', file, '--db', join(t.dir, 'current.db'), '--json'], { cwd: t.dir });
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stderr).error.message).toContain('deadbeefdeadbeef is not a commit');
  });
});
