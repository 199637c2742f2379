import { describe, expect, it } from 'vitest';
import { compareStats, MAX_DROP, maxKindDrop, type StatsRow } from './metrics.js';

const row = (slice: string, n: number, recall5: number, mrr: number): StatsRow => ({ mode: 'chunks', slice, n, recall1: 0.5, recall5, recall10: recall5, mrr });

describe('quality gates per kind', () => {
  it('tolerates one query of a small kind, or MAX_DROP of a large one', () => {
    expect(maxKindDrop(4)).toBe(0.25);
    expect(maxKindDrop(46)).toBeCloseTo(1 / 46, 12);
    expect(maxKindDrop(200)).toBe(MAX_DROP);
  });

  it('fails a kind that loses two queries even when overall holds', () => {
    const committed = [row('overall', 98, 0.918, 0.813), row('natural', 46, 0.848, 0.686), row('long', 22, 1, 0.924)];
    // natural loses two queries from the top 5 (−0.043); overall moves by less than MAX_DROP
    const now = [row('overall', 98, 0.9, 0.81), row('natural', 46, 0.805, 0.68), row('long', 22, 1, 0.93)];
    const { regressions, improvements } = compareStats(committed, now);
    expect(regressions).toEqual(['chunks/natural recall5: 0.848 → 0.805 (-0.043)']);
    expect(improvements).toEqual(['chunks/long mrr: 0.924 → 0.930 (+0.006)']);
  });

  it('lets one query of a kind move', () => {
    const committed = [row('overall', 98, 0.918, 0.813), row('path', 4, 1, 1)];
    const now = [row('overall', 98, 0.908, 0.803), row('path', 4, 0.75, 0.75)];
    expect(compareStats(committed, now).regressions).toEqual([]);
  });

  it('still fails an overall drop beyond MAX_DROP', () => {
    const { regressions } = compareStats([row('overall', 98, 0.918, 0.813)], [row('overall', 98, 0.918, 0.79)]);
    expect(regressions).toEqual(['chunks/overall mrr: 0.813 → 0.790 (-0.023)']);
  });
});
