import { describe, expect, it } from 'vitest';
import { applyUnifiedDiff, MAX_DIFF_BYTES, parseUnifiedDiff } from '../../../src/workspace/unified-diff.js';
import { memorySource } from './memory-source.js';
import { caught } from '../../helpers/caught.js';

const TEN = 'one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\n';

const apply = (diff: string, files: Record<string, string>) => applyUnifiedDiff(diff, memorySource(files));

describe('unified diff: parse and apply in memory', () => {
  it('applies hunks to several files, with or without a/ b/ prefixes', () => {
    const diff = [
      'diff --git a/src/a.ts b/src/a.ts',
      'index 1234567..89abcde 100644',
      '--- a/src/a.ts',
      '+++ b/src/a.ts',
      '@@ -1,3 +1,3 @@ function heading',
      ' one',
      '-two',
      '+TWO',
      ' three',
      '@@ -8,3 +8,4 @@',
      ' eight',
      ' nine',
      '+nine and a half',
      ' ten',
      '--- docs/b.md',
      '+++ docs/b.md',
      '@@ -1 +1 @@',
      '-old',
      '+new',
      '',
    ].join('\n');
    const out = apply(diff, { 'src/a.ts': TEN, 'docs/b.md': 'old\n' });
    expect(out.map((c) => [c.path, c.status])).toEqual([['src/a.ts', 'modified'], ['docs/b.md', 'modified']]);
    expect(out[0]!.after).toBe(TEN.replace('two', 'TWO').replace('nine\n', 'nine\nnine and a half\n'));
    expect(out[1]!.after).toBe('new\n');
  });

  it('tolerates prose around the diff and applies a hunk at an offset, like git apply', () => {
    const diff = 'Here is the fix:\n\n--- a/src/a.ts\n+++ b/src/a.ts\n@@ -3,3 +3,3 @@\n five\n-six\n+SIX\n seven\n\nThanks!\n';
    expect(apply(diff, { 'src/a.ts': TEN })[0]!.after).toBe(TEN.replace('six', 'SIX'));
  });

  it('adds and deletes files (/dev/null and git hunkless sections)', () => {
    const diff = [
      '--- /dev/null',
      '+++ b/src/new.ts',
      '@@ -0,0 +1,2 @@',
      '+export const a = 1;',
      '+export const b = 2;',
      '--- a/src/old.ts',
      '+++ /dev/null',
      '@@ -1,2 +0,0 @@',
      '-gone',
      '-too',
      'diff --git a/empty.txt b/empty.txt',
      'new file mode 100644',
      'diff --git a/was-empty.txt b/was-empty.txt',
      'deleted file mode 100644',
      '',
    ].join('\n');
    const out = apply(diff, { 'src/old.ts': 'gone\ntoo\n', 'was-empty.txt': '' });
    expect(out.map((c) => [c.path, c.status, c.after])).toEqual([
      ['src/new.ts', 'added', 'export const a = 1;\nexport const b = 2;\n'],
      ['src/old.ts', 'deleted', ''],
      ['empty.txt', 'added', ''],
      ['was-empty.txt', 'deleted', ''],
    ]);
  });

  it('handles "\\ No newline at end of file" on either side', () => {
    const drop = '--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n\\ No newline at end of file\n';
    expect(apply(drop, { 'f.txt': 'a\nb\n' })[0]!.after).toBe('a\nc');
    const add = '--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n';
    expect(apply(add, { 'f.txt': 'a\nb' })[0]!.after).toBe('a\nc\n');
    const neither = '--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n';
    expect(apply(neither, { 'f.txt': 'a\nb' })[0]!.after).toBe('a\nc');
    const wrong = caught(() => apply(neither, { 'f.txt': 'a\nb\n' }));
    expect(wrong.code).toBe('PATCH_CONFLICT');
    expect(wrong.message).toMatch(/No newline at end of file.*ends with a newline/);
  });

  it('keeps CRLF in a CRLF file when the diff uses LF, and accepts a diff sent with CRLF', () => {
    const lf = '--- a/w.txt\n+++ b/w.txt\n@@ -1,2 +1,3 @@\n a\n-b\n+c\n+d\n';
    expect(apply(lf, { 'w.txt': 'a\r\nb\r\n' })[0]!.after).toBe('a\r\nc\r\nd\r\n');
    expect(apply(lf.replace(/\n/g, '\r\n'), { 'w.txt': 'a\nb\n' })[0]!.after).toBe('a\nc\nd\n');
    const mixed = caught(() => apply(lf, { 'w.txt': 'a\r\nb\nc\n' }));
    expect(mixed.code).toBe('PATCH_CONFLICT');
    expect(mixed.message).toMatch(/line endings/);
  });

  it('reports a conflict with the file, hunk, line, expected and found text', () => {
    const diff = '--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n@@ -7,3 +7,3 @@\n seven\n-acht\n+EIGHT\n nine\n';
    const err = caught(() => apply(diff, { 'src/a.ts': TEN }));
    expect(err.code).toBe('PATCH_CONFLICT');
    expect(err.data).toMatchObject({ path: 'src/a.ts', section: 1, hunk: 2, header: '@@ -7,3 +7,3 @@', line: 8, expected: 'acht', found: 'eight' });
    expect(err.message).toBe('the change does not apply to src/a.ts: hunk 2 of 2 (@@ -7,3 +7,3 @@) expects line 8 to be "acht", but it is "eight"; that text is nowhere in the file');
  });

  it('finds the failing hunk among many, where earlier hunks landed at an offset', () => {
    const lines = Array.from({ length: 400 }, (_, i) => `line ${i}`);
    const hunks = Array.from({ length: 50 }, (_, k) => `@@ -${k * 8 + 2},1 +${k * 8 + 2},1 @@\n-line ${k * 8 + 1}\n+LINE ${k * 8 + 1}`);
    const diff = `--- a/f\n+++ b/f\n${hunks.join('\n')}\n`;
    // two lines inserted at the top move every hunk down by 2; hunk 37 targets a line that changed
    const file = ['new 1', 'new 2', ...lines].join('\n').replace('line 289\n', 'line 289 (edited)\n');
    const err = caught(() => apply(diff, { f: `${file}\n` }));
    expect(err.data).toMatchObject({ hunk: 37, header: '@@ -290,1 +290,1 @@', line: 292, expected: 'line 289', found: 'line 289 (edited)' });
    expect(apply(diff, { f: `${['new 1', 'new 2', ...lines].join('\n')}\n` })[0]!.after).toContain('new 2\nline 0\nLINE 1\n');
  });

  it('says where a hunk runs past the end of the file, and where a stale line moved', () => {
    const past = caught(() => apply('--- a/f\n+++ b/f\n@@ -2,3 +2,3 @@\n two\n three\n-four\n+4\n', { f: 'one\ntwo\n' }));
    expect(past.data).toMatchObject({ line: 3, expected: 'three', found: null });
    expect(past.message).toMatch(/the file ends after line 2/);
    const moved = caught(() => apply('--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n zero\n-two\n+2\n', { f: 'one\ntwo\nzero\n' }));
    expect(moved.message).toMatch(/expects line 1 to be "zero", but it is "one"; that text is at line 3/);
  });

  it('refuses a diff that names a file twice, renames, copies, mode changes and binary patches', () => {
    const twice = '--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-b\n+c\n';
    expect(caught(() => apply(twice, { f: 'a\n' })).message).toMatch(/f is named twice \(file sections 1 and 2\); put all of its hunks in one section/);
    const rename = 'diff --git a/x.ts b/y.ts\nsimilarity index 100%\nrename from x.ts\nrename to y.ts\n';
    expect(caught(() => apply(rename, { 'x.ts': 'a\n' })).message).toMatch(/renames are not supported .*delete the old file/);
    const differ = '--- a/x.ts\n+++ b/y.ts\n@@ -1 +1 @@\n-a\n+b\n';
    expect(caught(() => apply(differ, { 'x.ts': 'a\n' })).message).toMatch(/old and new names differ/);
    const copy = 'diff --git a/x.ts b/y.ts\nsimilarity index 100%\ncopy from x.ts\ncopy to y.ts\n';
    expect(caught(() => apply(copy, { 'x.ts': 'a\n' })).message).toMatch(/copies are not supported/);
    const mode = 'diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n';
    expect(caught(() => apply(mode, { 'run.sh': 'a\n' })).message).toMatch(/mode changes/);
    const binary = 'diff --git a/logo.png b/logo.png\nindex 1..2 100644\nGIT binary patch\nliteral 5\nMcmZ?wc\n\n';
    expect(caught(() => apply(binary, {})).message).toMatch(/diff line 3: binary patches are not supported/);
    const binaryFiles = 'diff --git a/logo.png b/logo.png\nindex 1..2 100644\nBinary files a/logo.png and b/logo.png differ\n';
    expect(caught(() => apply(binaryFiles, {})).message).toMatch(/binary patches are not supported/);
  });

  it('refuses malformed diffs with the diff line and what to fix', () => {
    const cases: Array<[string, RegExp]> = [
      ['', /the diff is empty/],
      ['please apply my change', /no file changes found/],
      ['--- a/f\n+++ b/f\n@@ @@\n-a\n+b\n', /diff line 3: malformed hunk header "@@ @@"/],
      ['--- a/f\n+++ b/f\n@@ -1,4 +1,4 @@\n a\n-b\n+c\n', /diff line 3 .* ends before its header's counts are met: it promises 4 old and 4 new lines, the body has 2 old and 2 new lines/],
      ['--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-b\n+c\n@@ -9,1 +9,1 @@\n-x\n+y\n', /fewer lines than its header promises .* runs into diff line 7, "@@ -9,1 \+9,1 @@"/],
      ['--- a/f\n+++ b/f\n@@ -1,1 +1,1 @@\n a\n-b\n+c\n', /more lines than its header promises \(1 old and 1 new lines\)/],
      ['--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\na\n-b\n+c\n', /diff line 4 .* starts with neither " ", "\+", "-" nor "\\": "a"; context lines start with a space/],
      ['--- a/f\n@@ -1 +1 @@\n-a\n+b\n', /Missing "\+\+\+ \.\.\." file header/],
      ['--- a/f\n+++ b/f\n', /no hunks/],
      ['@@ -1 +1 @@\n-a\n+b\n', /hunks without `--- a\/PATH` and `\+\+\+ b\/PATH` lines/],
      ['--- /dev/null\n+++ b/n\n@@ -0,0 +1,2 @@\n+a\n b\n', /does not match its header's counts: it promises 0 old and 2 new lines, the body has 1 old and 2 new/],
      ['--- /dev/null\n+++ b/n\n@@ -1,1 +1,2 @@\n+a\n b\n', /a new file \(--- \/dev\/null\) can only have added lines/],
      ['--- a/f\n+++ b/f\n@@ -5,2 +5,2 @@\n a\n-b\n+c\n@@ -1,2 +1,2 @@\n x\n-y\n+z\n', /hunk 2 .* starts before hunk 1 .* ends; hunks must be in file order/],
      ['--- a/f\n+++ b/f\n@@ -999999999999,1 +1,1 @@\n-a\n+b\n', /names a line past/],
      ['--- /dev/null\n+++ /dev/null\n@@ -0,0 +1 @@\n+a\n', /both file names are \/dev\/null/],
    ];
    for (const [diff, reason] of cases) {
      const err = caught(() => apply(diff, { f: 'a\nb\n' }));
      expect(err.code, diff).toBe('PATCH_INVALID');
      expect(err.message, diff).toMatch(reason);
    }
  });

  it('refuses an addition over an existing file, a deletion that leaves lines, and a missing target', () => {
    const add = caught(() => apply('--- /dev/null\n+++ b/f\n@@ -0,0 +1 @@\n+a\n', { f: 'x\n' }));
    expect(add).toMatchObject({ code: 'PATCH_CONFLICT', data: { path: 'f' } });
    expect(add.message).toMatch(/already exists/);
    const del = caught(() => apply('--- a/f\n+++ /dev/null\n@@ -1 +0,0 @@\n-a\n', { f: 'a\nb\n' }));
    expect(del.message).toMatch(/a deletion must remove every line/);
    expect(caught(() => apply('--- a/g\n+++ b/g\n@@ -1 +1 @@\n-a\n+b\n', {})).code).toBe('FILE_NOT_FOUND');
  });

  it('passes every path through the workspace guard', () => {
    expect(caught(() => apply('--- a/../x\n+++ b/../x\n@@ -1 +1 @@\n-a\n+b\n', {})).code).toBe('PATH_OUTSIDE_ROOT');
    expect(caught(() => apply('--- /etc/passwd\n+++ /etc/passwd\n@@ -1 +1 @@\n-a\n+b\n', {})).code).toBe('PATH_OUTSIDE_ROOT');
    expect(caught(() => apply('--- /dev/null\n+++ b/.env\n@@ -0,0 +1 @@\n+K=v\n', {})).code).toBe('PATH_DENIED');
  });

  it('limits the diff to 1 MB', () => {
    const big = `--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+${'x'.repeat(MAX_DIFF_BYTES)}\n`;
    expect(caught(() => parseUnifiedDiff(big))).toMatchObject({ code: 'TOO_LARGE', data: { what: 'the diff', limit: MAX_DIFF_BYTES } });
    expect(caught(() => parseUnifiedDiff(42 as unknown as string)).code).toBe('PATCH_INVALID');
  });
});
