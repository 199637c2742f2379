import { chmodSync, lstatSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { WalkOptions } from '../../../src/discover/walk.js';
import { commitChange, confirmationRequired, prepareChange } from '../../../src/workspace/change.js';
import { tempDir, writeTree } from '../../helpers/temp.js';
import { caught } from '../../helpers/caught.js';

describe('changes on disk: validate, propose, commit', () => {
  let t: ReturnType<typeof tempDir>;
  let walk: WalkOptions;

  beforeEach(() => {
    t = tempDir();
    walk = { root: realpathSync(t.dir), maxFileBytes: 10_000, ignore: [], denylist: { add: [], remove: [] } };
    writeTree(walk.root, { 'src/a.ts': 'export const a = 1;\n', 'run.sh': '#!/bin/sh\necho hi\n' });
  });
  afterEach(() => t.cleanup());

  it('proposes a canonical git-style diff with counts and a sha256 hash, whatever the request form', () => {
    const viaEdits = prepareChange(walk, { kind: 'edits', path: 'src/a.ts', edits: [{ startLine: 1, startCol: 17, endLine: 1, endCol: 18, replacement: '2' }] });
    const viaDiff = prepareChange(walk, { kind: 'diff', diff: '--- src/a.ts\n+++ src/a.ts\n@@ -1 +1 @@\n-export const a = 1;\n+export const a = 2;\n' });
    expect(viaEdits.proposal).toEqual(viaDiff.proposal);
    expect(viaEdits.proposal.diff).toBe('diff --git a/src/a.ts b/src/a.ts\n--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1,1 +1,1 @@\n-export const a = 1;\n+export const a = 2;\n');
    expect(viaEdits.proposal.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(viaEdits.proposal.files).toEqual([{ path: 'src/a.ts', status: 'modified', additions: 1, deletions: 1 }]);
    expect(viaEdits.paths).toEqual(['src/a.ts']);
  });

  it('adds and deletes files; a deleted executable keeps its mode in the diff', () => {
    chmodSync(join(walk.root, 'run.sh'), 0o755);
    const diff = '--- /dev/null\n+++ b/src/deep/new.ts\n@@ -0,0 +1 @@\n+export {};\n--- a/run.sh\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-#!/bin/sh\n-echo hi\n';
    const prepared = prepareChange(walk, { kind: 'diff', diff });
    expect(prepared.proposal.diff).toContain('diff --git a/src/deep/new.ts b/src/deep/new.ts\nnew file mode 100644\n--- /dev/null\n+++ b/src/deep/new.ts\n');
    expect(prepared.proposal.diff).toContain('diff --git a/run.sh b/run.sh\ndeleted file mode 100755\n--- a/run.sh\n+++ /dev/null\n');
    expect(prepared.proposal.files.map((f) => [f.path, f.status, f.additions, f.deletions])).toEqual([['src/deep/new.ts', 'added', 1, 0], ['run.sh', 'deleted', 0, 2]]);
    commitChange(prepared);
    expect(readFileSync(join(walk.root, 'src/deep/new.ts'), 'utf8')).toBe('export {};\n');
    expect(() => lstatSync(join(walk.root, 'run.sh'))).toThrow();
  });

  it('keeps a UTF-8 byte order mark and the file mode', () => {
    writeFileSync(join(walk.root, 'bom.txt'), Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('one\ntwo\n')]));
    chmodSync(join(walk.root, 'bom.txt'), 0o640);
    commitChange(prepareChange(walk, { kind: 'diff', diff: '--- a/bom.txt\n+++ b/bom.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+2\n' }));
    expect(readFileSync(join(walk.root, 'bom.txt'))).toEqual(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('one\n2\n')]));
    expect(lstatSync(join(walk.root, 'bom.txt')).mode & 0o777).toBe(0o640);
  });

  it('writes through a link inside the root to its target, keeping the link', () => {
    symlinkSync(join(walk.root, 'src/a.ts'), join(walk.root, 'alias.ts'));
    commitChange(prepareChange(walk, { kind: 'edits', path: 'alias.ts', edits: [{ startLine: 1, startCol: 0, endLine: 1, endCol: 0, replacement: '// hi\n' }] }));
    expect(lstatSync(join(walk.root, 'alias.ts')).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(walk.root, 'src/a.ts'), 'utf8')).toBe('// hi\nexport const a = 1;\n');
    const both = '--- a/alias.ts\n+++ b/alias.ts\n@@ -1 +1 @@\n-// hi\n+// one\n--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1 +1 @@\n-// hi\n+// two\n';
    expect(caught(() => prepareChange(walk, { kind: 'diff', diff: both })).message).toMatch(/src\/a.ts and alias.ts are the same file/);
  });

  it('refuses binary, non-UTF-8 and secret-looking files, a result over maxFileBytes and a change that changes nothing', () => {
    writeTree(walk.root, {
      'bin.dat': Buffer.from([1, 2, 0, 3]),
      'latin.txt': Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]),
      'key.txt': '-----BEGIN RSA PRIVATE KEY-----\nabc\n-----END RSA PRIVATE KEY-----\n',
    });
    const edit = (path: string) => ({ kind: 'edits' as const, path, edits: [{ startLine: 1, startCol: 0, endLine: 1, endCol: 0, replacement: 'x' }] });
    expect(caught(() => prepareChange(walk, edit('bin.dat')))).toMatchObject({ code: 'PATH_DENIED' });
    expect(caught(() => prepareChange(walk, edit('latin.txt'))).message).toMatch(/windows-1252; only UTF-8 files can be changed/);
    expect(caught(() => prepareChange(walk, edit('key.txt'))).message).toMatch(/looks like a secret/);
    const big = { kind: 'edits' as const, path: 'src/a.ts', edits: [{ startLine: 1, startCol: 0, endLine: 1, endCol: 0, replacement: 'x'.repeat(20_000) }] };
    expect(caught(() => prepareChange(walk, big))).toMatchObject({ code: 'TOO_LARGE', data: { limit: 10_000 } });
    const same = { kind: 'edits' as const, path: 'src/a.ts', edits: [{ startLine: 1, startCol: 0, endLine: 1, endCol: 6, replacement: 'export' }] };
    expect(caught(() => prepareChange(walk, same)).message).toMatch(/leaves every file as it is/);
    expect(caught(() => prepareChange(walk, { kind: 'nope' } as never)).code).toBe('INVALID_ARGUMENT');
  });

  it('carries the proposal in CONFIRMATION_REQUIRED', () => {
    const { proposal } = prepareChange(walk, { kind: 'diff', diff: '--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1 +1 @@\n-export const a = 1;\n+export const a = 3;\n' });
    const err = confirmationRequired(proposal);
    expect(err.code).toBe('CONFIRMATION_REQUIRED');
    expect(err.data).toEqual({ hash: proposal.hash, diff: proposal.diff, files: proposal.files });
    expect(err.message).toContain(proposal.hash);
  });
});
