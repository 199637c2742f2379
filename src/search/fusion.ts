/**
 * Reciprocal Rank Fusion (Cormack, Clarke & Büttcher, SIGIR 2009): each list contributes
 * `weight / (k + rank)` to every item it ranks (rank 1-based), and items are ordered by the sum.
 * Only ranks matter, so BM25 scores, cosines and symbol matches need no common scale. `k` damps the
 * head of each list: with k = 60 (the paper's value, named RRF_K) the first and tenth place of one
 * list differ by 13%, so an item two lists agree on beats one list's winner alone.
 */

/** The RRF constant from the paper; configurable as `search.fusion.k`. */
export const RRF_K = 60;

export interface RankedList {
  /** `lexical`, `vector`, `symbol`. */
  readonly list: string;
  /** The sub-query this list answered, when the query had several. */
  readonly query?: string | undefined;
  readonly weight: number;
  /** Item keys, best first; a key listed twice counts at its first place. */
  readonly keys: readonly string[];
}

/** One list's share of a fused score. */
export interface Contribution {
  readonly list: string;
  readonly query?: string | undefined;
  readonly rank: number;
  readonly weight: number;
  /** weight / (k + rank). */
  readonly value: number;
}

export interface FusedItem {
  readonly key: string;
  /** The sum of `contributions[].value`. */
  readonly score: number;
  readonly contributions: readonly Contribution[];
}

/**
 * Fuses ranked lists. Ties (equal sums) go to the item with the better best rank, then the one
 * first seen in list order, so the result is deterministic.
 */
export function fuseRrf(lists: readonly RankedList[], k = RRF_K): FusedItem[] {
  if (!Number.isFinite(k) || k < 0) throw new RangeError(`RRF k must be a finite number >= 0, got ${k}`);
  const items = new Map<string, { contributions: Contribution[]; best: number; order: number }>();
  for (const l of lists) {
    if (!(l.weight > 0)) continue;
    const seen = new Set<string>();
    l.keys.forEach((key, i) => {
      if (seen.has(key)) return;
      seen.add(key);
      const rank = i + 1;
      const c: Contribution = { list: l.list, ...(l.query !== undefined ? { query: l.query } : {}), rank, weight: l.weight, value: l.weight / (k + rank) };
      const item = items.get(key);
      if (item) {
        item.contributions.push(c);
        item.best = Math.min(item.best, rank);
      } else items.set(key, { contributions: [c], best: rank, order: items.size });
    });
  }
  return [...items]
    .map(([key, it]) => ({ key, score: it.contributions.reduce((s, c) => s + c.value, 0), contributions: it.contributions, best: it.best, order: it.order }))
    .sort((a, b) => b.score - a.score || a.best - b.best || a.order - b.order)
    .map(({ key, score, contributions }) => ({ key, score, contributions }));
}
