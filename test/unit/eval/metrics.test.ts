/**
 * Eval metrics on hand-made rankings: each case says what the ranking looks like and why the
 * number is what it is.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chunkListFileHits, CUTOFFS, distinctFiles, percentile, scoreQuery, summarize, type RankedHit } from '../../../src/eval/metrics.js';

const hit = (path: string, startLine = 1, endLine = 10): RankedHit => ({ path, startLine, endLine });

describe('scoreQuery', () => {
  it('ranks by distinct files: two chunks of one file count once', () => {
    const hits = [hit('a.ts'), hit('a.ts', 20, 30), hit('b.ts'), hit('gold.ts')];
    expect(distinctFiles(hits)).toEqual(['a.ts', 'b.ts', 'gold.ts']);
    const s = scoreQuery(hits, [{ path: 'gold.ts' }]);
    expect(s.firstFileRank).toBe(3);
    expect(s.accAt).toEqual({ 1: false, 5: true, 10: true });
    expect(s.reciprocalRank).toBeCloseTo(1 / 3);
    // no line spans in the gold: function hit is not defined
    expect(s.functionHitAt).toBeNull();
  });

  it('Acc@k needs every gold file within k; MRR uses the first one found', () => {
    const hits = [hit('x.ts'), hit('one.ts'), ...Array.from({ length: 8 }, (_, i) => hit(`f${i}.ts`)), hit('two.ts')];
    const s = scoreQuery(hits, [{ path: 'one.ts' }, { path: 'two.ts' }]);
    expect(s.firstFileRank).toBe(2);
    expect(s.reciprocalRank).toBe(0.5);
    // two.ts is the 11th distinct file: not all gold within 10
    expect(s.accAt).toEqual({ 1: false, 5: false, 10: false });
  });

  it('a gold file beyond rank 10 gives MRR@10 = 0 and a miss', () => {
    const hits = [...Array.from({ length: 10 }, (_, i) => hit(`f${i}.ts`)), hit('gold.ts')];
    const s = scoreQuery(hits, [{ path: 'gold.ts' }]);
    expect(s.firstFileRank).toBe(11);
    expect(s.reciprocalRank).toBe(0);
  });

  it('function hit@k: a result among the first k whose lines overlap a gold span', () => {
    const hits = [hit('gold.ts', 1, 9), hit('other.ts', 50, 60), hit('gold.ts', 40, 55)];
    const s = scoreQuery(hits, [{ path: 'gold.ts', startLine: 50, endLine: 70 }]);
    // the file is first, but the chunk covering lines 50-70 is only the third result
    expect(s.accAt[1]).toBe(true);
    expect(s.functionHitAt).toEqual({ 1: false, 5: true, 10: true });
    // same lines in another file do not count
    expect(scoreQuery([hit('other.ts', 50, 60)], [{ path: 'gold.ts', startLine: 50, endLine: 70 }]).functionHitAt).toEqual({ 1: false, 5: false, 10: false });
  });

  it('no results: every metric is a miss', () => {
    const s = scoreQuery([], [{ path: 'gold.ts', startLine: 1, endLine: 2 }]);
    expect(s).toEqual({ firstFileRank: null, accAt: { 1: false, 5: false, 10: false }, reciprocalRank: 0, functionHitAt: { 1: false, 5: false, 10: false } });
  });

  it('properties: Acc@k and function hit@k never decrease with k; RR is 1/rank within 10', () => {
    const pathArb = fc.constantFrom('a.ts', 'b.ts', 'c.ts', 'd.ts', 'e.ts', 'f.ts', 'g.ts', 'h.ts', 'i.ts', 'j.ts', 'k.ts', 'l.ts');
    const hitArb = fc.tuple(pathArb, fc.integer({ min: 1, max: 100 }), fc.integer({ min: 0, max: 30 })).map(([p, s, n]) => hit(p, s, s + n));
    const goldArb = fc.array(fc.tuple(pathArb, fc.option(fc.integer({ min: 1, max: 100 }), { nil: undefined })).map(([path, startLine]) => ({ path, startLine, endLine: startLine })), { minLength: 1, maxLength: 3 });
    fc.assert(
      fc.property(fc.array(hitArb, { maxLength: 40 }), goldArb, (hits, gold) => {
        const s = scoreQuery(hits, gold);
        for (let i = 1; i < CUTOFFS.length; i++) {
          expect(!s.accAt[CUTOFFS[i - 1]!] || s.accAt[CUTOFFS[i]!]).toBe(true);
          if (s.functionHitAt) expect(!s.functionHitAt[CUTOFFS[i - 1]!] || s.functionHitAt[CUTOFFS[i]!]).toBe(true);
        }
        expect(s.reciprocalRank).toBe(s.firstFileRank !== null && s.firstFileRank <= 10 ? 1 / s.firstFileRank : 0);
        if (s.accAt[1]) expect(new Set(gold.map((g) => g.path)).size).toBe(1);
      }),
    );
  });
});

describe('chunkListFileHits (cfile@k)', () => {
  it('counts distinct files in the order of the first 20 chunks only', () => {
    // 18 chunks of a wrong file, then 4 other files: the list shows 3 files, the gold is the 4th
    const list = [...Array.from({ length: 18 }, (_, i) => hit('wrong.ts', i * 10 + 1, i * 10 + 9)), hit('b.ts'), hit('c.ts'), hit('gold.ts'), hit('d.ts')];
    // gold.ts is chunk 21: past the 20 an agent reads, though the 3rd distinct file of the whole list
    expect(scoreQuery(list, [{ path: 'gold.ts' }]).accAt[5]).toBe(true);
    expect(chunkListFileHits(list, [{ path: 'gold.ts' }])).toEqual({ 5: false, 10: false });
    expect(chunkListFileHits(list, [{ path: 'c.ts' }])).toEqual({ 5: true, 10: true });
  });

  it('needs every gold file within k distinct files, as Acc@k', () => {
    const list = ['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((p) => hit(`${p}.ts`));
    expect(chunkListFileHits(list, [{ path: 'b.ts' }, { path: 'f.ts' }])).toEqual({ 5: false, 10: true });
    expect(chunkListFileHits(list, [{ path: 'b.ts' }, { path: 'zz.ts' }])).toEqual({ 5: false, 10: false });
    expect(chunkListFileHits(list, [])).toEqual({ 5: false, 10: false });
  });

  it('never hits where the distinct-file ranking of the whole list misses, and is monotone in k (property)', () => {
    const pathArb = fc.constantFrom('a.ts', 'b.ts', 'c.ts', 'd.ts', 'e.ts', 'f.ts', 'g.ts');
    fc.assert(
      fc.property(fc.array(pathArb.map((p) => hit(p)), { maxLength: 40 }), fc.array(pathArb.map((path) => ({ path })), { minLength: 1, maxLength: 2 }), (hits, gold) => {
        const c = chunkListFileHits(hits, gold);
        const s = scoreQuery(hits, gold);
        expect(!c[5] || c[10]).toBe(true);
        expect(!c[5] || s.accAt[5]).toBe(true);
        expect(!c[10] || s.accAt[10]).toBe(true);
      }),
    );
  });
});

describe('summarize', () => {
  it('averages over queries; function hit only over queries with spans; nearest-rank percentiles', () => {
    const a = scoreQuery([hit('gold.ts', 1, 5)], [{ path: 'gold.ts', startLine: 2, endLine: 3 }]);
    const b = scoreQuery([hit('x.ts'), hit('gold.ts')], [{ path: 'gold.ts' }]);
    const s = summarize([a, b], [10, 30]);
    expect(s.queries).toBe(2);
    expect(s.accAt).toEqual({ 1: 0.5, 5: 1, 10: 1 });
    expect(s.mrr).toBe(0.75);
    expect(s.functionQueries).toBe(1);
    expect(s.functionHitAt).toEqual({ 1: 1, 5: 1, 10: 1 });
    expect(s.latencyMs).toEqual({ p50: 10, p90: 30 });
    expect(percentile([5, 1, 4, 2, 3], 50)).toBe(3);
    expect(percentile([], 90)).toBe(0);
  });
});
