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
