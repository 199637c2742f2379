/**
 * A development-benchmark row (bench/devset-report.ts `DevRow`) that hits at every depth or misses
 * at every depth, for tests of the report, the guard and the paired comparison of runs.
 */
import type { DevRow } from '../../bench/devset-report.js';

export function devRow(hit: boolean, over: Partial<DevRow> & Pick<DevRow, 'id' | 'repo'>): DevRow {
  return {
    split: 'tune',
    kind: 'doc',
    tookMs: 1,
    firstFileRank: hit ? 1 : null,
    accAt: { 1: hit, 5: hit, 10: hit },
    reciprocalRank: hit ? 1 : 0,
    functionHitAt: { 1: hit, 5: hit, 10: hit },
    ...over,
  };
}
