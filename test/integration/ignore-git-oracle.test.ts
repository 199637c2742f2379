/**
 * Property: for random small trees with random ignore files, the files `walk()` returns are exactly
 * the untracked, non-ignored files real git reports (`git ls-files --others --exclude-standard`).
 * Names avoid the built-in denylist and secrets so that only ignore-file semantics are compared.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { makeTempDir, removeDir, runWalk } from '../unit/discover/walk-helpers.js';

const DIR_NAMES = ['a', 'b', 'c d', 'é', '日本', 'tmp', 'sub', 'keep'];
const FILE_NAMES = ['x.log', 'keep.log', 'root-only', 'y.txt', 'b', 'a.md', 'ü ö.ts', 'tmp', 'notes', '.hidden'];
const PATTERNS = [
  '*.log', '!keep.log', 'tmp/', '/root-only', 'root-only', '**/tmp', 'a/**/b', 'a/**/b/', '!a', 'b', '/a/b',
  '*.md', '!*.md', 'c d', 'é/', '日本/', '**/y.txt', 'sub/*', '!sub/keep.log', '#comment', '', 'x.log   ',
  '/*.txt', 'keep/', '!keep/', '*', '!*/', '!y.txt', '**/sub/**', 'ü*', '.hidden', '!.hidden', 'notes/', '\\#x',
];

interface Dir {
  readonly files: readonly string[];
  readonly dirs: ReadonlyArray<readonly [string, Dir]>;
  readonly gitignore: readonly string[] | undefined;
}

function dirArb(depth: number): fc.Arbitrary<Dir> {
  const names = fc.uniqueArray(fc.constantFrom(...new Set([...DIR_NAMES, ...FILE_NAMES])), { maxLength: depth === 0 ? 4 : 5 });
  const gitignore = fc.option(fc.array(fc.constantFrom(...PATTERNS), { minLength: 1, maxLength: 5 }), { freq: 2, nil: undefined });
  return fc.tuple(names, gitignore).chain(([picked, ignoreLines]) => {
    const dirNames = depth > 0 ? picked.filter((n) => DIR_NAMES.includes(n)) : [];
    const fileNames = picked.filter((n) => !dirNames.includes(n));
    const children = dirNames.length === 0 ? fc.constant([] as Dir[]) : fc.tuple(...dirNames.map(() => dirArb(depth - 1)));
    return children.map((kids) => ({
      files: fileNames,
      dirs: dirNames.map((n, i) => [n, kids[i]!] as const),
      gitignore: ignoreLines,
    }));
  });
}

function writeDir(abs: string, dir: Dir): void {
  mkdirSync(abs, { recursive: true });
  for (const f of dir.files) writeFileSync(join(abs, f), `content of ${f}\n`);
  if (dir.gitignore) writeFileSync(join(abs, '.gitignore'), dir.gitignore.join('\n') + '\n');
  for (const [name, child] of dir.dirs) writeDir(join(abs, name), child);
}

const GIT_ENV = { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', HOME: '/nonexistent' };

function git(cwd: string, args: string[]): string {
  return execFileSync('git', ['-c', 'core.quotepath=false', '-c', 'core.excludesFile=/dev/null', ...args], {
    cwd,
    env: GIT_ENV,
    encoding: 'utf8',
  });
}

function gitUntracked(root: string): string[] {
  return git(root, ['ls-files', '-z', '--others', '--exclude-standard'])
    .split('\0')
    .filter((p) => p !== '')
    .sort();
}

/** 50 by default; raise with SCRY_ORACLE_RUNS for a longer hunt. */
const RUNS = Number(process.env.SCRY_ORACLE_RUNS ?? 50);

const roots: string[] = [];
afterAll(() => roots.forEach(removeDir));

describe('ignore rules agree with git', () => {
  it('walk() returns exactly the files git reports as untracked and not ignored', () => {
    fc.assert(
      fc.property(dirArb(3), fc.array(fc.constantFrom(...PATTERNS), { maxLength: 3 }), (tree, exclude) => {
        const root = makeTempDir('scry-git-oracle-');
        roots.push(root);
        git(root, ['init', '-q']);
        writeFileSync(join(root, '.git', 'info', 'exclude'), exclude.join('\n') + '\n');
        writeDir(root, tree);
        const result = runWalk(root);
        expect(result.paths).toEqual(gitUntracked(root));
        // nothing here is denylisted or secret: every skip must be an ignore-file decision
        for (const s of result.skipped) if (s.path !== '.git/') expect(s).toEqual({ path: s.path, reason: 'ignored' });
        removeDir(root);
      }),
      { numRuns: RUNS },
    );
  }, 60_000 + RUNS * 1_000);

  it('git sees the same precedence for a hand-picked tree (sanity check of the oracle)', () => {
    const root = makeTempDir('scry-git-oracle-');
    roots.push(root);
    git(root, ['init', '-q']);
    writeFileSync(join(root, '.git', 'info', 'exclude'), 'excluded.txt\n');
    const tree: Dir = {
      files: ['x.log', 'keep.log', 'excluded.txt', 'root-only'],
      gitignore: ['*.log', '/root-only'],
      dirs: [
        ['sub', { files: ['x.log', 'keep.log', 'root-only'], gitignore: ['!keep.log'], dirs: [] }],
        ['tmp', { files: ['y.txt'], gitignore: undefined, dirs: [] }],
      ],
    };
    writeDir(root, tree);
    const expected = ['.gitignore', 'sub/.gitignore', 'sub/keep.log', 'sub/root-only', 'tmp/y.txt'];
    expect(gitUntracked(root)).toEqual(expected);
    expect(runWalk(root).paths).toEqual(expected);
  });
});
