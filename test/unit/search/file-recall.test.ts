import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { recalledFiles, scoreQuantile, unionPool } from '../../../src/search/file-recall.js';

const chunk = (path: string, startLine: number, score: number) => ({ path, startLine, endLine: startLine + 9, score });

describe('recalledFiles', () => {
  it('keeps the best chunk by cosine of each file the pool lacks, best file first', () => {
    const hits = [
      { id: 1, path: 'a.py', cosine: 0.4 },
      { id: 2, path: 'b.py', cosine: 0.9 },
      { id: 3, path: 'c.py', cosine: 0.5 },
      { id: 4, path: 'c.py', cosine: 0.7 },
      { id: 5, path: 'a.py', cosine: 0.6 },
    ];
    expect(recalledFiles(hits, new Set(['b.py']))).toEqual([
      { id: 4, path: 'c.py', cosine: 0.7 },
      { id: 5, path: 'a.py', cosine: 0.6 },
    ]);
  });

  it('breaks cosine ties by chunk id, whatever the input order', () => {
    const hits = [
      { id: 9, path: 'a.py', cosine: 0.5 },
      { id: 3, path: 'a.py', cosine: 0.5 },
      { id: 7, path: 'b.py', cosine: 0.5 },
    ];
    expect(recalledFiles(hits, new Set())).toEqual(recalledFiles([...hits].reverse(), new Set()));
    expect(recalledFiles(hits, new Set()).map((h) => h.id)).toEqual([3, 7]);
  });
});

describe('scoreQuantile', () => {
  it('is the lowest score at 0, the median at 0.5, the best at 1, and 0 for no scores', () => {
    expect(scoreQuantile([5, 1, 3, 4, 2], 0)).toBe(1);
    expect(scoreQuantile([5, 1, 3, 4, 2], 0.5)).toBe(3);
    expect(scoreQuantile([5, 1, 3, 4, 2], 1)).toBe(5);
    expect(scoreQuantile([], 0.5)).toBe(0);
  });
});

describe('unionPool', () => {
  it('keeps the pool as it is and adds each new file at the pool score quantile, saying so', () => {
    const pool = [chunk('a.py', 1, 9), chunk('b.py', 1, 4), chunk('a.py', 20, 2)];
    const out = unionPool(pool, [chunk('c.py', 40, 0), chunk('d.py', 1, 0)], 0);
    expect(out.slice(0, 3)).toEqual(pool);
    expect(out.slice(3).map((r) => [r.path, r.score])).toEqual([
      ['c.py', 2],
      ['d.py', 2],
    ]);
    expect(out[3]!.why).toEqual(["from the model's file candidates"]);
    expect(unionPool(pool, [chunk('c.py', 40, 0)], 0.5)[3]!.score).toBe(4);
  });

  it('never adds a second chunk of a file the pool holds', () => {
    const out = unionPool([chunk('a.py', 1, 3)], [chunk('a.py', 50, 0), chunk('b.py', 1, 0)], 0);
    expect(out.map((r) => `${r.path}:${r.startLine}`)).toEqual(['a.py:1', 'b.py:1']);
  });

  it('holds every pool row once and each recalled file at most once, between the pool lowest and best score', () => {
    const path = fc.constantFrom('a.py', 'b.py', 'c.py', 'd.py', 'e.py');
    fc.assert(
      fc.property(
        fc.array(fc.record({ path, startLine: fc.nat(100), score: fc.double({ min: 0, max: 50, noNaN: true }) }), { minLength: 1, maxLength: 20 }),
        fc.array(path, { maxLength: 5 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (rows, extra, at) => {
          const pool = rows.map((r) => chunk(r.path, r.startLine, r.score));
          const recalled = [...new Set(extra)].map((p) => chunk(p, 1, 0));
          const out = unionPool(pool, recalled, at);
          expect(out.slice(0, pool.length)).toEqual(pool);
          const added = out.slice(pool.length);
          const inPool = new Set(pool.map((r) => r.path));
          expect(added.every((r) => !inPool.has(r.path))).toBe(true);
          expect(new Set(added.map((r) => r.path)).size).toBe(added.length);
          const lo = Math.min(...pool.map((r) => r.score));
          const hi = Math.max(...pool.map((r) => r.score));
          for (const r of added) expect(r.score >= lo && r.score <= hi).toBe(true);
        },
      ),
    );
  });
});
