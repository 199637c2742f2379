import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readCandidate } from '../../src/discover/read.js';
import { makeTempDir, removeDir, runWalk, writeTree } from '../unit/discover/walk-helpers.js';

const PRIVATE_KEY = '-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----\n';
const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach(removeDir));

function tempRoot(files: Record<string, string> = {}): string {
  const root = makeTempDir();
  dirs.push(root);
  writeTree(root, files);
  return root;
}

describe('paths', () => {
  it('returns POSIX relative paths for names with spaces and unicode, in sorted order', () => {
    const root = tempRoot({
      'my docs/read me.md': '# hi\n', 'src/日本語/ファイル.ts': 'x', 'src/café/naïve.py': 'x', 'z.ts': 'x', 'A.ts': 'x',
      'émoji 😀.txt': 'x',
    });
    const result = runWalk(root);
    expect(result.files.map((f) => f.path)).toEqual([
      'A.ts', 'my docs/read me.md', 'src/café/naïve.py', 'src/日本語/ファイル.ts', 'z.ts', 'émoji 😀.txt',
    ]);
    const readme = result.files.find((f) => f.path === 'my docs/read me.md')!;
    expect(readme).toMatchObject({ absPath: join(root, 'my docs', 'read me.md'), size: 5, language: 'markdown', contentType: 'docs' });
    expect(Number.isInteger(readme.mtimeMs)).toBe(true);
  });

  it('reports nothing for an empty root and walks an empty directory silently', () => {
    const root = tempRoot();
    mkdirSync(join(root, 'empty'));
    const result = runWalk(root);
    expect(result.files).toEqual([]);
    expect(result.skipped).toEqual([]);
  });
});

describe('symlinks', () => {
  it('indexes a link to a file inside the root under the link path, with the real path as absPath', () => {
    const root = tempRoot({ 'src/real.ts': 'export const a = 1;\n' });
    symlinkSync('src/real.ts', join(root, 'alias.ts'));
    const result = runWalk(root);
    expect(result.paths).toEqual(['alias.ts', 'src/real.ts']);
    expect(result.files.find((f) => f.path === 'alias.ts')?.absPath).toBe(join(root, 'src', 'real.ts'));
  });

  it('skips a broken link as `broken_symlink`', () => {
    const root = tempRoot({ 'a.ts': 'x' });
    symlinkSync('does-not-exist.ts', join(root, 'dangling.ts'));
    expect(runWalk(root).reasons.get('dangling.ts')).toBe('broken_symlink');
  });

  it('never follows or reads a link to a file outside the root', () => {
    const outside = tempRoot({ 'secret.txt': PRIVATE_KEY });
    const root = tempRoot({ 'a.ts': 'x' });
    symlinkSync(join(outside, 'secret.txt'), join(root, 'innocent.txt'));
    symlinkSync(outside, join(root, 'outside-dir'));
    const result = runWalk(root);
    expect(result.paths).toEqual(['a.ts']);
    expect(result.reasons.get('innocent.txt')).toBe('symlink_outside_root');
    expect(result.reasons.get('outside-dir')).toBe('symlink_outside_root');
  });

  it('readCandidate refuses a file that became a link to outside the root after the walk', () => {
    const outside = tempRoot({ 'target.txt': PRIVATE_KEY });
    const root = tempRoot({ 'f.txt': 'fine' });
    const [candidate] = runWalk(root).files;
    // A FIFO outside: if readCandidate opened it, the read would block forever.
    execFileSync('mkfifo', [join(outside, 'pipe')]);
    const swapped = { ...candidate!, absPath: join(root, 'link') };
    symlinkSync(join(outside, 'pipe'), swapped.absPath);
    expect(readCandidate(root, swapped, 1_000_000)).toEqual({ ok: false, reason: 'symlink_outside_root' });
  });

  it('skips a link to a directory inside the root as `symlink_duplicate`; the target is walked in place', () => {
    const root = tempRoot({ 'lib/a.ts': 'x' });
    symlinkSync('lib', join(root, 'lib-alias'));
    const result = runWalk(root);
    expect(result.paths).toEqual(['lib/a.ts']);
    expect(result.reasons.get('lib-alias/')).toBe('symlink_duplicate');
  });

  it('does not hang on link loops', () => {
    const root = tempRoot({ 'd/a.ts': 'x' });
    symlinkSync('loop-b', join(root, 'loop-a'));
    symlinkSync('loop-a', join(root, 'loop-b'));
    symlinkSync('..', join(root, 'd', 'up'));
    symlinkSync('.', join(root, 'self'));
    const result = runWalk(root);
    expect(result.paths).toEqual(['d/a.ts']);
    expect(result.reasons.get('loop-a')).toBe('broken_symlink');
    expect(result.reasons.get('loop-b')).toBe('broken_symlink');
    expect(result.reasons.get('d/up/')).toBe('symlink_duplicate');
    expect(result.reasons.get('self/')).toBe('symlink_duplicate');
  });

  it('does not leak a secret through an innocently named link to it', () => {
    const root = tempRoot({ '.env': 'API_KEY=hunter2\n', 'keys/deploy.pem': 'x', 'node_modules/x/index.js': 'x' });
    symlinkSync('.env', join(root, 'settings.txt'));
    symlinkSync('keys/deploy.pem', join(root, 'deploy.txt'));
    symlinkSync('node_modules/x/index.js', join(root, 'x.js'));
    const result = runWalk(root);
    expect(result.reasons.get('settings.txt')).toBe('secret');
    expect(result.reasons.get('deploy.txt')).toBe('secret');
    expect(result.reasons.get('x.js')).toBe('denylist');
    expect(result.paths).toEqual([]);
  });

  it('judges content secrets by the link target name too', () => {
    const root = tempRoot({ 'cfg/.npmrc': '//registry.npmjs.org/:_authToken=npm_x\n' });
    symlinkSync('cfg/.npmrc', join(root, 'registry.cfg'));
    const link = runWalk(root).files.find((f) => f.path === 'registry.cfg');
    expect(link && readCandidate(root, link, 1_000_000)).toMatchObject({ ok: false, reason: 'secret' });
  });
});

describe('special files', () => {
  it('skips a FIFO as `special_file` without opening it', () => {
    const root = tempRoot({ 'a.ts': 'x' });
    execFileSync('mkfifo', [join(root, 'pipe')]);
    const result = runWalk(root);
    expect(result.paths).toEqual(['a.ts']);
    expect(result.reasons.get('pipe')).toBe('special_file');
  });

  it('skips a link to a FIFO inside the root as `special_file`', () => {
    const root = tempRoot();
    execFileSync('mkfifo', [join(root, 'pipe')]);
    symlinkSync('pipe', join(root, 'pipe-link'));
    expect(runWalk(root).reasons.get('pipe-link')).toBe('special_file');
  });

  it('reports a file that vanished between the walk and the read as `unreadable`', () => {
    const root = tempRoot({ 'gone.ts': 'x' });
    const [candidate] = runWalk(root).files;
    removeDir(join(root, 'gone.ts'));
    expect(readCandidate(root, candidate!, 1_000_000)).toEqual({ ok: false, reason: 'unreadable' });
  });

  it('skips a dangling link to a directory as `broken_symlink` and walks siblings', () => {
    const root = tempRoot({ 'b/ok.ts': 'x' });
    mkdirSync(join(root, 'gone'));
    symlinkSync('gone', join(root, 'a-link'));
    removeDir(join(root, 'gone'));
    writeFileSync(join(root, 'c.ts'), 'x');
    const result = runWalk(root);
    expect(result.paths).toEqual(['b/ok.ts', 'c.ts']);
    expect(result.reasons.get('a-link')).toBe('broken_symlink');
  });
});
