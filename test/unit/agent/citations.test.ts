import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { citationProblem, parseCitations, spansIn } from '../../../src/agent/citations.js';

describe('parseCitations', () => {
  it('finds path:start-end and path:line citations in prose, brackets and backticks', () => {
    const text = 'It retries (src/http/retry_policy.py:3-9) and opens `src/db/open-database.ts:4` [docs/guide.md:1–5]. See https://x.io:443 too.';
    expect(parseCitations(text)).toEqual([
      { path: 'src/http/retry_policy.py', startLine: 3, endLine: 9 },
      { path: 'src/db/open-database.ts', startLine: 4, endLine: 4 },
      { path: 'docs/guide.md', startLine: 1, endLine: 5 },
    ]);
  });

  it('reads path:line:col as the line, and a trailing full stop as punctuation', () => {
    expect(parseCitations('at src/a.ts:12:5: error. Also lib/b.py:7.')).toEqual([
      { path: 'src/a.ts', startLine: 12, endLine: 12 },
      { path: 'lib/b.py', startLine: 7, endLine: 7 },
    ]);
  });

  it('never throws, and every citation it finds appears in the text (fuzz)', () => {
    const piece = fc.oneof(fc.string({ maxLength: 20 }), fc.constantFrom('src/a.ts:3-9', 'a.', ':', '-', '/', '12', ' ', '(', 'https://h.io:443'));
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }).map((a) => a.join('')), (text) => {
        for (const c of parseCitations(text)) {
          expect(c.startLine).toBeGreaterThanOrEqual(1);
          expect(c.endLine).toBeGreaterThanOrEqual(c.startLine);
          expect(text).toContain(`${c.path}:${c.startLine}`);
          expect(c.path).not.toMatch(/\s/);
        }
      }),
    );
  });

  it('drops reversed ranges, line 0 and repeats', () => {
    expect(parseCitations('a/b.ts:9-3 a/b.ts:0 a/b.ts:2-4 a/b.ts:2-4')).toEqual([{ path: 'a/b.ts', startLine: 2, endLine: 4 }]);
  });
});

describe('citationProblem', () => {
  const seen = spansIn({ pieces: [{ cite: 'src/a.ts:10-20' }], file: { path: 'src/b.ts', start_line: 1, end_line: 5 }, listed: [{ path: 'docs/c.md' }] });

  it('accepts citations that overlap what was shown', () => {
    expect(citationProblem('See src/a.ts:15-30 and src/b.ts:5 and docs/c.md:100-120.', seen)).toBeUndefined();
  });

  it('rejects an answer without citations, and citations of lines or files never shown', () => {
    expect(citationProblem('It works.', seen)).toBe('the answer cites no path:start-end');
    expect(citationProblem('See src/a.ts:30-40.', seen)).toContain('src/a.ts:30-40');
    expect(citationProblem('See src/zzz.ts:1-2.', seen)).toContain('src/zzz.ts:1-2');
    expect(citationProblem('  ', seen)).toBe('the answer is empty');
  });
});
