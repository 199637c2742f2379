/**
 * Repository paths and read/list parameters of the team server's read_file and list_files
 * (issue 23): untrusted input, checked before any query. A property test: whatever the string,
 * the answer is a clean relative path or a stable error code, never a path that climbs.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isEngineError } from '../../../src/core/errors.js';
import { parseListParams, parseReadParams } from '../../../src/serve/file-routes.js';
import { repoPath } from '../../../src/team/pg-files.js';
import { sliceText } from '../../../src/workspace/files.js';

const code = (f: () => unknown): string | undefined => {
  try {
    f();
    return undefined;
  } catch (err) {
    if (isEngineError(err)) return err.code;
    throw err;
  }
};

describe('repoPath', () => {
  it('normalises ./, duplicate slashes and backslashes; refuses climbing and absolute paths', () => {
    expect(repoPath('./src//a.ts')).toBe('src/a.ts');
    expect(repoPath('src\\a.ts')).toBe('src/a.ts');
    expect(repoPath('a/./b')).toBe('a/b');
    expect(repoPath('..foo/bar..')).toBe('..foo/bar..');
    for (const p of ['..', '../x', 'a/../../x', 'a/..', '/etc/passwd', '\\\\host\\share', 'C:/x', 'c:x', '..\\x']) expect(code(() => repoPath(p)), p).toBe('PATH_OUTSIDE_ROOT');
    for (const p of ['', '.', './', 'a\0b', 'x'.repeat(1025)]) expect(code(() => repoPath(p)), JSON.stringify(p.slice(0, 10))).toBe('INVALID_ARGUMENT');
  });

  it('any string: a relative path without . or .. segments, or PATH_OUTSIDE_ROOT / INVALID_ARGUMENT', () => {
    const piece = fc.constantFrom('..', '.', '', 'a', 'b.ts', '/', '\\', 'C:', '\0', '...');
    const path = fc.oneof(fc.string({ maxLength: 40 }), fc.array(piece, { maxLength: 8 }).map((xs) => xs.join('/')), fc.array(piece, { maxLength: 8 }).map((xs) => xs.join('')));
    fc.assert(
      fc.property(path, (p) => {
        let out: string;
        try {
          out = repoPath(p);
        } catch (err) {
          expect(isEngineError(err) && ['PATH_OUTSIDE_ROOT', 'INVALID_ARGUMENT'].includes(err.code)).toBe(true);
          return;
        }
        const segments = out.split('/');
        expect(out.startsWith('/')).toBe(false);
        expect(out.includes('\\') || out.includes('\0')).toBe(false);
        expect(segments.every((s) => s !== '' && s !== '.' && s !== '..')).toBe(true);
        expect(/^[A-Za-z]:/.test(out)).toBe(false);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('read and list parameters', () => {
  const params = (q: string): URLSearchParams => new URLSearchParams(q);
  it('read: exactly one repository, a path, line numbers and a byte budget in range', () => {
    expect(parseReadParams(params('repo=api&path=src/a.ts&start=3&end=9&max_bytes=2048'))).toEqual({ repo: 'api', path: 'src/a.ts', startLine: 3, endLine: 9, maxBytes: 2048 });
    expect(parseReadParams(params('repo=api&path=a'))).toEqual({ repo: 'api', path: 'a', startLine: undefined, endLine: undefined, maxBytes: undefined });
    for (const q of ['path=a', 'repo=api', 'repo=a,b&path=x', 'repo=a&repo=b&path=x', 'repo=.x&path=a', 'repo=a&path=x&start=0', 'repo=a&path=x&end=1.5', 'repo=a&path=x&max_bytes=200001', 'repo=a&path=x&max_bytes=10']) {
      expect(code(() => parseReadParams(params(q))), q).toBe('INVALID_ARGUMENT');
    }
  });

  it('list: globs, a page and hidden files', () => {
    expect(parseListParams(params('repo=api&glob=src/**&glob=*.md&limit=50&offset=100&hidden=1'))).toEqual({ repo: 'api', glob: ['src/**', '*.md'], limit: 50, offset: 100, includeHidden: true });
    expect(parseListParams(params('repo=api'))).toEqual({ repo: 'api', glob: undefined, limit: undefined, offset: undefined, includeHidden: false });
    for (const q of ['', 'repo=a&limit=0', 'repo=a&limit=501', 'repo=a&offset=-1']) expect(code(() => parseListParams(params(q))), q).toBe('INVALID_ARGUMENT');
  });
});

describe('sliceText (shared by the local and the team read_file)', () => {
  it('stops at the last whole line within the budget, at least one line', () => {
    const text = 'aaaa\nbbbb\ncccc\n';
    expect(sliceText(text, { maxBytes: 10 })).toEqual({ startLine: 1, endLine: 2, totalLines: 3, text: 'aaaa\nbbbb', truncated: true });
    expect(sliceText(text, { startLine: 3, endLine: 99 })).toEqual({ startLine: 3, endLine: 3, totalLines: 3, text: 'cccc', truncated: false });
    expect(sliceText('x'.repeat(50), { maxBytes: 10 })).toMatchObject({ endLine: 1, truncated: false });
    expect(code(() => sliceText(text, { startLine: 4 }))).toBe('INVALID_ARGUMENT');
  });
});
