import { describe, expect, it } from 'vitest';
import { summarise } from '../../../src/mcp/summary.js';
import type { Envelope } from '../../../src/tools/envelope.js';

const ok = (data: unknown, meta: Partial<Envelope['meta']> = {}): Envelope => ({ ok: true, data, error: null, meta: { truncated: false, bytes: 100, warnings: [], ...meta } });
const fail = (error: Envelope['error'], data: Record<string, unknown>): Envelope => ({ ok: false, data: { reason: 'X', ...data } as never, error, meta: { truncated: false, bytes: 100, warnings: [] } });

describe('summarise', () => {
  it('counts the main list, quotes the query and labels the first items by place and symbol', () => {
    const results = Array.from({ length: 7 }, (_, i) => ({ path: `src/f${i}.ts`, start_line: i + 1, end_line: i + 10, symbol: i === 0 ? 'parseConfig' : null, score: 1 }));
    expect(summarise(ok({ query: 'parse config', results }))).toBe(
      "7 results for 'parse config': src/f0.ts:1-10 (parseConfig), src/f1.ts:2-11, src/f2.ts:3-12, src/f3.ts:4-13, src/f4.ts:5-14, …",
    );
  });

  it('takes the subject from the arguments when the data has none, and says "of total" for a limited list', () => {
    const files = [{ path: 'src/a.ts', language: 'typescript' }, { path: 'src/b.ts', language: 'typescript' }];
    expect(summarise(ok({ files, total: 12 }), { glob: 'src/**' })).toBe("2 of 12 files for 'src/**': src/a.ts, src/b.ts");
  });

  it('uses the singular for one item, labels groups by their nested list, and handles camelCase lines', () => {
    expect(summarise(ok({ files: [{ path: 'a.ts', references: [{}, {}, {}] }] }))).toBe('1 file: a.ts (3 references)');
    const groups = [{ path: 'a.ts', references: [{}] }, { path: 'b.ts', references: [{}, {}] }];
    expect(summarise(ok({ name: 'f', total: 3, files: groups }), { symbol_id: 'f' })).toBe("2 files, 3 references for 'f': a.ts (1 reference), b.ts (2 references)");
    expect(summarise(ok({ matches: [{ path: 'a.ts', line: 4 }] }))).toBe('1 match: a.ts:4');
    expect(summarise(ok({ results: [{ path: 'a.ts', startLine: 2, endLine: 2, name: 'f' }] }))).toBe('1 result: a.ts:2 (f)');
  });

  it('describes a single object by its place and line count, or by its keys', () => {
    expect(summarise(ok({ path: 'src/a.ts', start_line: 3, end_line: 5, text: 'a\nb\nc' }))).toBe('src/a.ts:3-5 (3 lines)');
    expect(summarise(ok({ indexed: true, files: 3, root: '/r', languages: { ts: 3 } }))).toBe('ok: indexed=true, files=3, root=/r');
    expect(summarise(ok({ id: 'a.ts#f@3', name: 'f', path: 'a.ts', start_line: 3, end_line: 4, text: 'x\ny', alternatives: [] }))).toBe('a.ts:3-4 (f) (2 lines)');
    expect(summarise(ok(null))).toBe('ok');
  });

  it('gives the code, message, issues, suggestions and hint of a failure', () => {
    const text = summarise(fail('not_found', { message: 'no such file in the project: src/x.ts', hint: 'paths are relative', suggestions: ['src/a.ts', 'src/b.ts'] }));
    expect(text).toBe('error not_found: no such file in the project: src/x.ts\ndid you mean: src/a.ts, src/b.ts\nhint: paths are relative');
    expect(summarise(fail('invalid_arguments', { message: 'invalid arguments for read_file', issues: ['path: expected string'] }))).toContain('issues: path: expected string');
    const staged = summarise(fail('requires_confirmation', { message: 'the change is staged', hash: 'abc', files: [{ path: 'README.md', status: 'modified' }] }));
    expect(staged).toBe('error requires_confirmation: the change is staged\n1 file: README.md');
  });

  it('adds what was cut and the warnings, and never runs long', () => {
    const text = summarise(ok({ results: [] }, { truncated: true, omitted: [{ field: 'results', count: 4 }], warnings: ['index refresh in progress'] }));
    expect(text.split('\n')).toEqual(['0 results', 'cut to fit: 4 results left out (see meta.omitted)', 'warnings: index refresh in progress']);
    const long = summarise(ok({ query: 'q'.repeat(5000), results: [{ path: 'p'.repeat(5000) }] }));
    expect(long.length).toBeLessThanOrEqual(600);
    expect(long).toContain(`'${'q'.repeat(59)}…'`);
  });
});
