import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyFilePrior, combineFileScores, fileCosines, filePriorFactors } from '../../../src/search/file-vectors.js';

const chunk = (path: string, startLine: number, score: number) => ({ path, startLine, endLine: startLine + 9, score });

describe('fileCosines', () => {
  it('scores a file by its best chunk cosine, or the mean of its top k', () => {
    const hits = [
      { path: 'a.py', cosine: 0.5 },
      { path: 'a.py', cosine: 0.9 },
      { path: 'a.py', cosine: 0.1 },
      { path: 'b.py', cosine: 0.6 },
    ];
    expect(Object.fromEntries(fileCosines(hits, 1))).toEqual({ 'a.py': 0.9, 'b.py': 0.6 });
    const top2 = fileCosines(hits, 2);
    expect(top2.get('a.py')).toBeCloseTo(0.7, 12);
    // fewer chunks than k: the mean of those it has
    expect(top2.get('b.py')).toBeCloseTo(0.6, 12);
  });

  it('equals the mean of each file\'s sorted best k, bit for bit, in the same file order (property)', () => {
    // the definition it replaced: every file's cosines sorted, the first k averaged
    const reference = (hits: ReadonlyArray<{ path: string; cosine: number }>, top: number): Array<[string, number]> => {
      const byFile = new Map<string, number[]>();
      for (const h of hits) byFile.set(h.path, [...(byFile.get(h.path) ?? []), h.cosine]);
      return [...byFile].map(([p, c]) => {
        const best = c.sort((a, b) => b - a).slice(0, Math.max(1, top));
        return [p, best.reduce((a, x) => a + x, 0) / best.length];
      });
    };
    const cosine = fc.oneof(fc.double({ min: -1, max: 1, noNaN: true }), fc.constantFrom(0.25, 0.5, -0.125, 0));
    fc.assert(
      fc.property(fc.array(fc.record({ path: fc.constantFrom('a', 'b', 'c', 'd'), cosine }), { maxLength: 60 }), fc.integer({ min: 0, max: 6 }), (hits, top) => {
        expect([...fileCosines(hits, top)]).toEqual(reference(hits, top));
      }),
      { numRuns: 300 },
    );
  });
});

describe('filePriorFactors', () => {
  it('maps the files min-max onto [1 − weight, 1]; a file without a model score counts as the least liked', () => {
    const f = filePriorFactors(['a', 'b', 'c', 'd'], new Map([['a', 0.2], ['b', 0.6], ['c', 0.4]]), 0.5);
    expect(f.get('a')!.factor).toBeCloseTo(0.5, 12);
    expect(f.get('b')!.factor).toBeCloseTo(1, 12);
    expect(f.get('c')!.factor).toBeCloseTo(0.75, 12);
    expect(f.get('d')).toEqual({ factor: 0.5, cosine: undefined });
  });

  it('gives every file factor 1 when the model scores them all the same', () => {
    const f = filePriorFactors(['a', 'b'], new Map([['a', 0.3], ['b', 0.3]]), 0.4);
    expect([...f.values()].map((x) => x.factor)).toEqual([1, 1]);
  });
});

describe('applyFilePrior', () => {
  it('moves a file the model prefers above a lexically better one, and keeps the order of chunks inside each file', () => {
    const hits = [chunk('lex.py', 1, 10), chunk('lex.py', 20, 9), chunk('model.py', 1, 8), chunk('model.py', 30, 7.9)];
    const out = applyFilePrior(hits, new Map([['lex.py', 0.2], ['model.py', 0.7]]), { weight: 0.4, top: 1 });
    expect(out.map((h) => `${h.path}:${h.startLine}`)).toEqual(['model.py:1', 'model.py:30', 'lex.py:1', 'lex.py:20']);
    expect(out[2]!.score).toBeCloseTo(6, 12);
    expect(out[0]!.why).toEqual(['file prior: model file score 0.7 ×1']);
    expect(out[2]!.why).toEqual(['file prior: model file score 0.2 ×0.6']);
  });

  it('is the identity at weight 0', () => {
    const hits = [chunk('a', 1, 3), chunk('b', 1, 2)];
    expect(applyFilePrior(hits, new Map([['b', 1], ['a', 0]]), { weight: 0, top: 1 })).toEqual(hits);
  });

  it('never reorders the chunks of one file, whatever the scores (property)', () => {
    const arb = fc.array(fc.record({ path: fc.constantFrom('a', 'b', 'c'), startLine: fc.integer({ min: 1, max: 500 }), score: fc.double({ min: 0.01, max: 100, noNaN: true }) }), { maxLength: 30 });
    const files = fc.dictionary(fc.constantFrom('a', 'b', 'c'), fc.double({ min: -1, max: 1, noNaN: true }));
    fc.assert(
      fc.property(arb, files, fc.double({ min: 0, max: 0.9, noNaN: true }), (raw, fileScores, weight) => {
        const hits = raw.map((h) => ({ ...h, endLine: h.startLine })).sort((x, y) => y.score - x.score || x.path.localeCompare(y.path) || x.startLine - y.startLine);
        const out = applyFilePrior(hits, new Map(Object.entries(fileScores)), { weight, top: 1 });
        expect(out).toHaveLength(hits.length);
        for (const p of ['a', 'b', 'c']) {
          const before = hits.filter((h) => h.path === p).map((h) => h.startLine);
          const after = out.filter((h) => h.path === p).map((h) => h.startLine);
          expect(after).toEqual(before);
        }
      }),
    );
  });
});

describe('combineFileScores', () => {
  const whole = new Map([['a', 0.5], ['b', 0.4], ['c', 0.3]]);
  const piece = new Map([['a', 0.1], ['b', 0.9], ['c', 0.2]]);
  const pool = new Set(['a', 'b', 'c']);

  it('passes one vector through', () => {
    expect(combineFileScores([whole], pool, 'mean')).toEqual(whole);
  });

  it('max: each file at its best score over the whole query and its pieces', () => {
    expect(Object.fromEntries(combineFileScores([whole, piece], pool, 'max'))).toEqual({ a: 0.5, b: 0.9, c: 0.3 });
  });

  it('mean: each vector normalised over the pool, then averaged, so a piece votes as much as the whole', () => {
    const m = combineFileScores([whole, piece], pool, 'mean');
    // whole: a 1, b 0.5, c 0; piece: a 0, b 1, c 0.125
    expect(m.get('a')).toBeCloseTo(0.5, 12);
    expect(m.get('b')).toBeCloseTo(0.75, 12);
    expect(m.get('c')).toBeCloseTo(0.0625, 12);
  });
});
