import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bm25Prior, codeTermWeights, hardNeighbours, makeBatches } from '../../train/batches.js';
import { bm25Index, bm25Query, bm25Stats, countsOf, zNormalise } from '../../train/bm25.js';
import { evalSet, reciprocalRanks } from '../../train/heldout.js';
import { rng } from '../../train/nbow.js';
import type { PairRecord } from '../../train/harvest.js';

const codes = countsOf([
  'function uploadFile(path) { return put(path) }',
  'function retryUpload(path, tries) { for (;;) uploadFile(path) }',
  'function parseDuration(text) { return Number(text) }',
  'function formatDuration(ms) { return String(ms) }',
]);
const queries = countsOf(['upload a file', 'retry a failed upload', 'parse a duration string', 'format a duration']);

describe('training against BM25 (train/bm25.ts, train/batches.ts)', () => {
  it('scores a description highest against the unit sharing its rarest words', () => {
    const stats = bm25Stats(codes);
    const scores = bm25Query(bm25Index(codes, stats), stats, queries[1]!);
    expect([...scores].indexOf(Math.max(...scores))).toBe(1);
    expect(scores[2]).toBe(0);
  });

  it('mines hard neighbours inside the package, never the description\'s own unit', () => {
    const stats = bm25Stats(codes);
    const nb = hardNeighbours(new Map([['a', [0, 1]], ['b', [2, 3]]]), queries, codes, stats, 3);
    expect([...nb[0]!]).toEqual([1]);
    expect([...nb[1]!]).toEqual([0]);
    expect([...nb[2]!]).toEqual([3]);
    for (const [i, list] of nb.entries()) expect([...list]).not.toContain(i);
  });

  it('builds batches that use each pair at most once', () => {
    fc.assert(fc.property(fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 6 }), fc.integer({ min: 1, max: 8 }), (sizes, group) => {
      const byPkg = new Map<string, number[]>();
      let next = 0;
      sizes.forEach((n, p) => byPkg.set(`p${p}`, Array.from({ length: n }, () => next++)));
      const neighbours = Array.from({ length: next }, (_, i) => Int32Array.from([i + 1, i + 2].filter((j) => j < next)));
      const batches = makeBatches(byPkg, group, group, rng(3), neighbours);
      const seen = batches.flat();
      expect(new Set(seen).size).toBe(seen.length);
      expect(seen.every((i) => i >= 0 && i < next)).toBe(true);
    }));
  });

  it('standardises each description\'s BM25 prior over the batch and scales it', () => {
    const stats = bm25Stats(codes);
    const prior = bm25Prior([0, 1, 2, 3], queries, codeTermWeights(codes, stats), stats, 2);
    for (let i = 0; i < 4; i++) {
      const row = [...prior.slice(i * 4, i * 4 + 4)];
      expect(row.reduce((a, b) => a + b, 0)).toBeCloseTo(0, 5);
      expect(Math.sqrt(row.reduce((a, b) => a + b * b, 0) / 4)).toBeCloseTo(2, 4);
    }
    expect(prior[2 * 4 + 2]).toBeGreaterThan(prior[2 * 4 + 3]!);
  });

  it('z-normalises a constant row to zeros', () => {
    const x = Float32Array.from([3, 3, 3]);
    zNormalise(x);
    expect([...x]).toEqual([0, 0, 0]);
  });
});

describe('held-out protocol (train/heldout.ts)', () => {
  const pair = (description: string, symbol: string, code: string): PairRecord => ({ pkg: 'p', ecosystem: 'npm', language: 'javascript', path: 'a.js', description, symbol, code, kind: 'function' });
  const pairs = [
    pair('retry a failed upload', 'retryUpload', 'for (;;) uploadFile(path)'),
    pair('parse a duration string', 'parseDuration', 'return Number(text)'),
    pair('merge two sorted lists', 'mergeSorted', 'return a.concat(b).sort()'),
  ];

  it('ranks by BM25 alone, by the dense scores alone, and by their blend', () => {
    const set = evalSet(pairs);
    expect([...reciprocalRanks(set, undefined, 1, 0)]).toEqual([1, 1, 1]);
    // A dense matrix that prefers the wrong unit for query 0 only.
    const dense = Float32Array.from([0, 1, 0, 0, 1, 0, 0, 0, 1]);
    expect([...reciprocalRanks(set, dense, 0, 1)]).toEqual([0.5, 1, 1]);
    expect(reciprocalRanks(set, dense, 1, 0.1)[0]).toBe(1);
  });
});
