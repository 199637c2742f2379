import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyRecency, recencyFactor } from '../../../src/search/recency.js';

const DAY = 86_400_000;
const NOW = Date.UTC(2025, 5, 1);
const p = { weight: 0.15, halfLifeDays: 180, nowMs: NOW };

describe('recency boost', () => {
  it('is 1 + weight for content from now, halves its boost every half-life, and is exactly 1 without a timestamp', () => {
    expect(recencyFactor(NOW, p).factor).toBeCloseTo(1.15, 12);
    expect(recencyFactor(NOW - 180 * DAY, p).factor).toBeCloseTo(1.075, 12);
    expect(recencyFactor(NOW - 3650 * DAY, p).factor).toBeLessThan(1.0001);
    expect(recencyFactor(null, p)).toEqual({ factor: 1 });
    expect(recencyFactor(NOW + 10 * DAY, p).factor).toBeCloseTo(1.15, 12); // future → age 0
    expect(recencyFactor(NOW, { ...p, weight: 0 })).toEqual({ factor: 1 });
  });

  it('lifts a recent hit over an older one of nearly the same score, explains it, and leaves undated hits alone', () => {
    const hits: { id: string; score: number; tsMs: number | null; why?: readonly string[] }[] = [
      { id: 'old', score: 10, tsMs: NOW - 2000 * DAY },
      { id: 'undated', score: 9.5, tsMs: null },
      { id: 'new', score: 9.6, tsMs: NOW - 5 * DAY },
    ];
    const out = applyRecency(hits, p);
    expect(out.map((h) => h.id)).toEqual(['new', 'old', 'undated']);
    expect(out[0]!.why![0]).toMatch(/^recency ×1\.14\d+ \(age 5 d\)$/);
    expect(out.find((h) => h.id === 'undated')).toEqual(hits[1]);
    expect(applyRecency(hits, { ...p, weight: 0 })).toEqual(hits);
  });

  it('property: never lowers a score, and never moves a hit above one it trails by more than the maximum boost', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ score: fc.double({ min: 0.01, max: 100, noNaN: true }), tsMs: fc.option(fc.integer({ min: NOW - 5000 * DAY, max: NOW }), { nil: null }) }), { maxLength: 20 }), (drawn) => {
        const hits = drawn.map((h, id) => ({ ...h, id })); // identity by id: two scores may differ by one ulp
        const out = applyRecency(hits, p);
        expect(out.map((h) => h.id).sort((a, b) => a - b)).toEqual(hits.map((h) => h.id));
        for (const h of out) {
          const before = hits[h.id]!;
          expect(h.score).toBeCloseTo(before.score * recencyFactor(h.tsMs, p).factor, 9);
          expect(h.score).toBeGreaterThanOrEqual(before.score);
        }
        for (let i = 1; i < out.length; i++) expect(out[i - 1]!.score).toBeGreaterThanOrEqual(out[i]!.score);
      }),
    );
  });
});
