/** Parsing hand-written eval sets: valid lines, and every kind of bad line failing with its line number. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isEngineError } from '../../../src/index.js';
import { parseQueriesFile } from '../../../src/eval/queries-file.js';

describe('parseQueriesFile', () => {
  it('reads one query per line, skipping blank lines; ids default to q1, q2...', () => {
    const text = [
      '{"query": "open the database", "expected": [{"path": "./src/db.ts", "startLine": 10, "endLine": 20}]}',
      '',
      '{"id": "retry", "query": "retry with backoff", "expected": [{"path": "src\\\\http\\\\retry.py"}, {"path": "src/b.ts", "startLine": 3}]}',
    ].join('\r\n');
    expect(parseQueriesFile(text)).toEqual([
      { id: 'q1', query: 'open the database', expected: [{ path: 'src/db.ts', startLine: 10, endLine: 20 }] },
      {
        id: 'retry',
        query: 'retry with backoff',
        expected: [
          { path: 'src/http/retry.py', startLine: undefined, endLine: undefined },
          // a start line alone is a one-line span
          { path: 'src/b.ts', startLine: 3, endLine: 3 },
        ],
      },
    ]);
  });

  it('accepts the informational fields a miner writes (sha, source) and keeps only what is searched', () => {
    const line = '{"id": "a1", "query": "x fails", "expected": [{"path": "a.py"}], "commit": "abc1234", "sha": "def5678", "source": "https://github.com/o/r/pull/12"}';
    expect(parseQueriesFile(line)).toEqual([{ id: 'a1', query: 'x fails', expected: [{ path: 'a.py', startLine: undefined, endLine: undefined }], commit: 'abc1234' }]);
    expect(() => parseQueriesFile('{"query": "x", "expected": [{"path": "a"}], "source": ""}', 'q.jsonl')).toThrow('q.jsonl:1: source');
  });

  it.each([
    ['not json', 'q.jsonl:2: not JSON'],
    ['{"query": "x"}', 'q.jsonl:2: expected'],
    ['{"query": "", "expected": [{"path": "a"}]}', 'q.jsonl:2: query'],
    ['{"query": "x", "expected": []}', 'q.jsonl:2: expected'],
    ['{"query": "x", "expected": [{"path": "a", "endLine": 3}]}', 'q.jsonl:2: expected.0'],
    ['{"query": "x", "expected": [{"path": "a", "startLine": 5, "endLine": 3}]}', 'q.jsonl:2: expected.0'],
    ['{"query": "x", "expected": [{"path": "a"}], "extra": 1}', 'q.jsonl:2: line'],
    ['{"query": "x", "expected": [{"path": "../outside.ts"}]}', 'must be relative to the root'],
    ['{"query": "x", "expected": [{"path": "/etc/passwd"}]}', 'must be relative to the root'],
  ])('fails on %s with the line number', (bad, message) => {
    const text = `{"query": "ok", "expected": [{"path": "a.ts"}]}\n${bad}\n`;
    expect(() => parseQueriesFile(text, 'q.jsonl')).toThrow(message);
  });

  it('an empty file is an error, not an empty evaluation', () => {
    expect(() => parseQueriesFile('\n\n', 'q.jsonl')).toThrow('no queries');
  });

  it('any input either parses or fails with INVALID_ARGUMENT, never another error', () => {
    const lineArb = fc.oneof(
      fc.string(),
      fc.json(),
      fc.record({ query: fc.string(), expected: fc.array(fc.record({ path: fc.string(), startLine: fc.integer(), endLine: fc.integer() }, { requiredKeys: ['path'] })) }).map((o) => JSON.stringify(o)),
    );
    fc.assert(
      fc.property(fc.array(lineArb, { maxLength: 6 }), (lines) => {
        try {
          const queries = parseQueriesFile(lines.join('\n'));
          for (const q of queries) {
            expect(q.query.length).toBeGreaterThan(0);
            for (const e of q.expected) expect(e.path.startsWith('/') || e.path.split('/').includes('..')).toBe(false);
          }
        } catch (err) {
          expect(isEngineError(err) && err.code === 'INVALID_ARGUMENT').toBe(true);
        }
      }),
      { numRuns: 500 },
    );
  });
});
