/**
 * Pure ranking steps after FTS5: score sign, overlap dedupe, file aggregation.
 * No I/O, no clock; see docs/DESIGN.md "Ranking".
 */

export interface RankedChunk {
  readonly path: string;
  readonly startLine: number;
  readonly endLine: number;
  /** Higher is better. */
  readonly score: number;
}

/** FTS5's bm25() is "lower is better" and negative; scry reports `-bm25`, so higher is better. */
export function scoreFromBm25(bm25: number): number {
  return Math.round(-bm25 * 1e4) / 1e4;
}

/**
 * Drops a hit whose line range overlaps a better-scored hit of the same file (overlapping
 * windows would otherwise show the same lines twice). Input order must be best first; kept order
 * is preserved.
 */
export function dedupeOverlaps<T extends RankedChunk>(hits: readonly T[]): T[] {
  const kept: T[] = [];
  const byPath = new Map<string, T[]>();
  for (const h of hits) {
    const same = byPath.get(h.path) ?? [];
    if (same.some((k) => h.startLine <= k.endLine && k.startLine <= h.endLine)) continue;
    same.push(h);
    byPath.set(h.path, same);
    kept.push(h);
  }
  return kept;
}

/** Weight of the 2nd and 3rd best chunks of a file in its file score. */
export const FILE_SUPPORT_WEIGHT = 0.2;

/**
 * One entry per file: the best chunk represents the file; file score =
 * best + FILE_SUPPORT_WEIGHT × (2nd + 3rd best). Sorted by that score, ties by path.
 */
export function aggregateFiles<T extends RankedChunk>(hits: readonly T[]): Array<{ best: T; score: number; chunks: number }> {
  const groups = new Map<string, T[]>();
  for (const h of hits) {
    const g = groups.get(h.path);
    if (g) g.push(h);
    else groups.set(h.path, [h]);
  }
  const out = [...groups.values()].map((g) => {
    const sorted = [...g].sort((a, b) => b.score - a.score);
    const support = (sorted[1]?.score ?? 0) + (sorted[2]?.score ?? 0);
    return { best: sorted[0]!, score: Math.round((sorted[0]!.score + FILE_SUPPORT_WEIGHT * support) * 1e4) / 1e4, chunks: g.length };
  });
  return out.sort((a, b) => b.score - a.score || a.best.path.localeCompare(b.best.path));
}
