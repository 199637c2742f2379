import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mergeCollectionHits, type CollectionHits } from '../../../src/search/collection-merge.js';
import type { SearchResult } from '../../../src/search/search-result.js';

const hit = (path: string, score: number): SearchResult => ({
  path, startLine: 1, endLine: 2, score, language: 'markdown', contentType: 'docs', kind: 'section', symbol: null, container: null, signature: null, snippet: '', snippetLine: 1, chunkHash: path,
});

describe('mergeCollectionHits', () => {
  it('merges by score when every collection ranked in the same mode, each result tagged', () => {
    const merged = mergeCollectionHits(
      [
        { collection: 'project', mode: 'lexical', results: [hit('a.ts', 5), hit('b.ts', 1)] },
        { collection: 'notes', mode: 'lexical', results: [hit('n.md', 3)] },
      ],
      10,
    );
    expect(merged.merge).toBe('score');
    expect(merged.results.map((r) => `${r.collection}:${r.path}`)).toEqual(['project:a.ts', 'notes:n.md', 'project:b.ts']);
  });

  it('fuses by rank (RRF) when the modes differ: scores on different scales are not compared', () => {
    // the hybrid list's scores are tiny RRF sums; merging by score would bury its winner
    const merged = mergeCollectionHits(
      [
        { collection: 'project', mode: 'lexical', results: [hit('a.ts', 40), hit('b.ts', 30)] },
        { collection: 'notes', mode: 'hybrid', results: [hit('n.md', 0.03)] },
      ],
      10,
      true,
    );
    expect(merged.merge).toBe('rrf');
    expect(merged.results.map((r) => r.path)).toEqual(['a.ts', 'n.md', 'b.ts']);
    expect(merged.results[1]!.score).toBeCloseTo(1 / 61, 10);
    expect(merged.results[1]!.why?.at(-1)).toContain('collection notes: rank 1');
  });

  it('keeps at most limit results, and ties go to the earlier collection', () => {
    const merged = mergeCollectionHits([{ collection: 'x', mode: 'lexical', results: [hit('x.md', 1)] }, { collection: 'y', mode: 'lexical', results: [hit('y.md', 1)] }], 1);
    expect(merged.results.map((r) => r.collection)).toEqual(['x']);
  });

  it('property: every result comes from one input list, none twice, in non-increasing score order', () => {
    const list = (name: string) =>
      fc.record({ collection: fc.constant(name), mode: fc.constantFrom('lexical' as const, 'hybrid' as const), results: fc.array(fc.double({ min: 0, max: 100, noNaN: true }), { maxLength: 8 }) });
    fc.assert(
      fc.property(fc.tuple(list('a'), list('b'), list('c')), fc.integer({ min: 1, max: 30 }), (lists, limit) => {
        const input: CollectionHits[] = lists.map((l) => ({ ...l, results: l.results.map((s, i) => hit(`${l.collection}${i}`, s)) }));
        const merged = mergeCollectionHits(input, limit);
        const total = input.reduce((n, l) => n + l.results.length, 0);
        expect(merged.results.length).toBe(Math.min(limit, total));
        expect(new Set(merged.results.map((r) => r.path)).size).toBe(merged.results.length);
        for (const r of merged.results) expect(r.path.startsWith(r.collection)).toBe(true);
        for (let i = 1; i < merged.results.length; i++) expect(merged.results[i - 1]!.score).toBeGreaterThanOrEqual(merged.results[i]!.score);
      }),
    );
  });
});
