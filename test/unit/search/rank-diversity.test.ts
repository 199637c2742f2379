import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { aggregateFiles, applyPriors, blendFileScore, capPerFile, decayPerFile } from '../../../src/search/rank.js';

const hit = (path: string, startLine: number, score: number) => ({ path, startLine, endLine: startLine + 9, score });
const at = (hits: readonly { path: string; startLine: number }[]): string[] => hits.map((h) => `${h.path}:${h.startLine}`);

describe('capPerFile with a closeness bound (within)', () => {
  it("keeps a file's extra chunks in place only when they score close to its best", () => {
    // a.ts:20 is 0.8 of a's best (kept), a.ts:40 only 0.5 (moved down though under the cap)
    const hits = [hit('a.ts', 1, 10), hit('a.ts', 20, 8), hit('b.ts', 1, 6), hit('a.ts', 40, 5), hit('c.ts', 1, 4)];
    expect(at(capPerFile(hits, 3, 0.7))).toEqual(['a.ts:1', 'a.ts:20', 'b.ts:1', 'c.ts:1', 'a.ts:40']);
    // without the bound, the cap alone decides
    expect(at(capPerFile(hits, 3))).toEqual(at(hits));
  });

  it('still caps chunks that are close to the best', () => {
    const hits = [hit('a.ts', 1, 10), hit('a.ts', 20, 9.9), hit('a.ts', 40, 9.8), hit('a.ts', 60, 9.7), hit('b.ts', 1, 1)];
    expect(at(capPerFile(hits, 3, 0.7))).toEqual(['a.ts:1', 'a.ts:20', 'a.ts:40', 'b.ts:1', 'a.ts:60']);
  });

  it('is a stable partition: first the chunks within cap and bound, then the rest, each in input order (property)', () => {
    const arb = fc.array(fc.tuple(fc.constantFrom('a', 'b', 'c', 'd'), fc.integer({ min: 1, max: 1000 })), { maxLength: 30 });
    fc.assert(
      fc.property(arb, fc.integer({ min: 1, max: 4 }), fc.double({ min: 0, max: 1, noNaN: true }), (raw, cap, within) => {
        const hits = raw.map(([p, s], i) => hit(p, i, s)).sort((x, y) => y.score - x.score || x.startLine - y.startLine);
        const best = new Map<string, number>();
        const n = new Map<string, number>();
        const kept = hits.filter((h) => {
          if (!best.has(h.path)) best.set(h.path, h.score);
          n.set(h.path, (n.get(h.path) ?? 0) + 1);
          return n.get(h.path)! === 1 || (n.get(h.path)! <= cap && h.score >= within * best.get(h.path)!);
        });
        const out = capPerFile(hits, cap, within);
        expect(at(out)).toEqual(at([...kept, ...hits.filter((h) => !kept.includes(h))]));
        // a moved chunk says why; a kept one is the input's own object
        for (const h of out.slice(kept.length)) expect((h as { why?: readonly string[] }).why?.[0]).toMatch(/^chunk \d+ of its file.*: below the other files$/);
        for (const h of out.slice(0, kept.length)) expect(hits).toContain(h);
        // every file shows its best chunk before any file shows a second-rate one
        const head = out.slice(0, kept.length);
        for (const p of best.keys()) expect(head.some((h) => h.path === p)).toBe(true);
      }),
    );
  });
});

describe('capPerFile with a spread', () => {
  // a.ts:20 is the second function of the best file, at 0.5 of its best: the cap moves it down
  const hits = [hit('a.ts', 1, 10), hit('a.ts', 20, 5), hit('b.ts', 1, 4.9), hit('c.ts', 1, 4.8), hit('d.ts', 1, 4.7), hit('e.ts', 1, 4.6)];

  it('moves a chunk below the next `spread` files only, not below all of them', () => {
    expect(at(capPerFile(hits, 3, 0.7, 2))).toEqual(['a.ts:1', 'b.ts:1', 'c.ts:1', 'a.ts:20', 'd.ts:1', 'e.ts:1']);
    expect(at(capPerFile(hits, 3, 0.7, 1))).toEqual(['a.ts:1', 'b.ts:1', 'a.ts:20', 'c.ts:1', 'd.ts:1', 'e.ts:1']);
    // spread 0: below every other file (the prototype's cap)
    expect(at(capPerFile(hits, 3, 0.7, 0))).toEqual(['a.ts:1', 'b.ts:1', 'c.ts:1', 'd.ts:1', 'e.ts:1', 'a.ts:20']);
    // fewer files than the spread: at the end
    expect(at(capPerFile(hits.slice(0, 3), 3, 0.7, 5))).toEqual(['a.ts:1', 'b.ts:1', 'a.ts:20']);
  });

  it('counts only files whose best chunk comes after the moved one, and says where it went', () => {
    // b.ts:30 (b's second chunk) does not count as a new file for a.ts:20
    const two = [hit('a.ts', 1, 10), hit('b.ts', 1, 9), hit('a.ts', 20, 5), hit('b.ts', 30, 8.9 / 2), hit('c.ts', 1, 4), hit('d.ts', 1, 3)];
    const out = capPerFile(two, 2, 0.7, 1);
    expect(at(out)).toEqual(['a.ts:1', 'b.ts:1', 'c.ts:1', 'a.ts:20', 'b.ts:30', 'd.ts:1']);
    expect((out[3] as { why?: readonly string[] }).why).toEqual(['chunk 2 of its file at 0.5 of its best, under 0.7: below the next 1 file']);
    expect(at(capPerFile(two, 1, 0, 1))).toEqual(['a.ts:1', 'b.ts:1', 'c.ts:1', 'a.ts:20', 'b.ts:30', 'd.ts:1']);
    expect((capPerFile(two, 1, 0, 1)[3] as { why?: readonly string[] }).why).toEqual(['chunk 2 of its file, cap 1: below the next 1 file']);
  });

  it('keeps every chunk once, each file\'s best in input order, and moves a chunk no further than `spread` new files (property)', () => {
    const arb = fc.array(fc.tuple(fc.constantFrom('a', 'b', 'c', 'd', 'e'), fc.integer({ min: 1, max: 1000 })), { maxLength: 30 });
    fc.assert(
      fc.property(arb, fc.integer({ min: 1, max: 3 }), fc.double({ min: 0, max: 1, noNaN: true }), fc.integer({ min: 0, max: 4 }), (raw, cap, within, spread) => {
        const hits = raw.map(([p, s], i) => hit(p, i, s)).sort((x, y) => y.score - x.score || x.startLine - y.startLine);
        const out = capPerFile(hits, cap, within, spread);
        expect(at(out).sort()).toEqual(at(hits).sort());
        const firsts = (xs: readonly { path: string; startLine: number }[]): string[] => at(xs.filter((h, i) => xs.findIndex((x) => x.path === h.path) === i));
        expect(firsts(out)).toEqual(firsts(hits));
        if (spread === 0) return;
        // a moved chunk has at most `spread` files' first chunks between its old and new place that were not before it
        out.forEach((h, i) => {
          const j = hits.findIndex((x) => x.path === h.path && x.startLine === h.startLine);
          const seenBefore = new Set(hits.slice(0, j).map((x) => x.path));
          const newFiles = new Set(out.slice(0, i).filter((x) => !seenBefore.has(x.path) && x.path !== h.path).map((x) => x.path));
          expect(newFiles.size).toBeLessThanOrEqual(spread);
        });
      }),
    );
  });
});

describe('blendFileScore', () => {
  it("scales each chunk by its file's score relative to the best file", () => {
    // a.ts: 10 + 0.2 × 6 = 11.2 (best file); b.ts: 10.2 alone, so its chunk falls below a.ts's best
    const hits = [hit('b.ts', 1, 10.2), hit('a.ts', 1, 10), hit('a.ts', 40, 6)];
    const out = blendFileScore(hits, 0.3);
    expect(at(out)).toEqual(['a.ts:1', 'b.ts:1', 'a.ts:40']);
    expect(out[0]!.score).toBe(10);
    expect(out[1]!.score).toBeCloseTo(10.2 * (0.7 + (0.3 * 10.2) / 11.2), 10);
    expect((out[1] as { why?: readonly string[] }).why).toEqual(['file score 0.91 of the best ×0.97']);
  });

  it('is off at share 0 (a copy)', () => {
    const hits = [hit('b.ts', 1, 10.5), hit('a.ts', 1, 10)];
    const out = blendFileScore(hits, 0);
    expect(out).toEqual(hits);
    expect(out).not.toBe(hits);
  });

  it('never raises a score, lowers it by at most `share`, and leaves the best file untouched (property)', () => {
    const arb = fc.array(fc.tuple(fc.constantFrom('a', 'b', 'c', 'd'), fc.double({ min: 0.01, max: 100, noNaN: true })), { minLength: 1, maxLength: 30 });
    fc.assert(
      fc.property(arb, fc.double({ min: 0, max: 1, noNaN: true }), (raw, share) => {
        const hits = raw.map(([p, s], i) => hit(p, i, s));
        const out = blendFileScore(hits, share);
        expect(out).toHaveLength(hits.length);
        const top = aggregateFiles(hits)[0]!.best.path;
        for (const o of out) {
          const before = hits.find((h) => h.startLine === o.startLine)!;
          expect(o.score).toBeLessThanOrEqual(before.score + 1e-9);
          expect(o.score).toBeGreaterThanOrEqual(before.score * (1 - share) - 1e-9);
          if (o.path === top) expect(o.score).toBeCloseTo(before.score, 9);
        }
        if (share > 0) for (let i = 1; i < out.length; i++) expect(out[i - 1]!.score).toBeGreaterThanOrEqual(out[i]!.score);
      }),
    );
  });
});

describe('decayPerFile', () => {
  it("lowers a file's later chunks geometrically, so another file's best can pass them", () => {
    const hits = [hit('a.ts', 1, 10), hit('a.ts', 20, 9), hit('b.ts', 1, 8.5), hit('a.ts', 40, 8)];
    const out = decayPerFile(hits, 0.9);
    // a.ts:20 → 8.1, a.ts:40 → 8 × 0.81 = 6.48
    expect(at(out)).toEqual(['a.ts:1', 'b.ts:1', 'a.ts:20', 'a.ts:40']);
    expect(out[2]!.score).toBeCloseTo(8.1, 10);
    expect(out[3]!.score).toBeCloseTo(6.48, 10);
    expect((out[3] as { why?: readonly string[] }).why).toEqual(['chunk 3 of its file ×0.81']);
  });

  it('is off at 1 (a copy)', () => {
    const hits = [hit('a.ts', 1, 10), hit('a.ts', 20, 9)];
    const out = decayPerFile(hits, 1);
    expect(out).toEqual(hits);
    expect(out).not.toBe(hits);
  });

  it("keeps each file's chunks in their order and its best chunk's score (property)", () => {
    const arb = fc.array(fc.tuple(fc.constantFrom('a', 'b', 'c'), fc.integer({ min: 1, max: 1000 })), { maxLength: 30 });
    fc.assert(
      fc.property(arb, fc.double({ min: 0.1, max: 1, noNaN: true }), (raw, decay) => {
        const hits = raw.map(([p, s], i) => hit(p, i, s)).sort((x, y) => y.score - x.score || x.startLine - y.startLine);
        const out = decayPerFile(hits, decay);
        expect(out).toHaveLength(hits.length);
        for (const p of ['a', 'b', 'c']) {
          const before = hits.filter((h) => h.path === p);
          const after = out.filter((h) => h.path === p);
          expect(after.map((h) => h.startLine)).toEqual(before.map((h) => h.startLine));
          if (before.length > 0) expect(after[0]!.score).toBe(before[0]!.score);
        }
        for (let i = 1; i < out.length; i++) expect(out[i - 1]!.score).toBeGreaterThanOrEqual(out[i]!.score);
      }),
    );
  });
});

describe('applyPriors: nonDefinition', () => {
  it('demotes code chunks that define nothing, not definitions, docs or imports twice', () => {
    const c = (startLine: number, kind: string, contentType = 'code') => ({ ...hit('a.ts', startLine, 10), kind, contentType });
    const out = applyPriors([c(1, 'statements'), c(20, 'function'), c(40, 'window'), c(60, 'section', 'docs')], { longQuery: false, wantsTests: false, wantsDocs: true, nonDefinition: 0.8 });
    expect(out.map((h) => [h.startLine, h.score])).toEqual([
      [20, 10],
      [60, 10],
      [1, 8],
      [40, 8],
    ]);
    expect((out[2] as { why?: readonly string[] }).why).toEqual(['no definition ×0.8']);
  });
});
