import { fuseRrf, RRF_K } from './fusion.js';
import type { SearchMode, SearchResult } from './search-result.js';

/**
 * Merges the results of one query over several collections (issue 22), each answered by its own
 * database. When every collection ranked in the same mode, scores are on one scale (BM25 with the
 * same priors, or the same RRF) and results are merged by score; otherwise only ranks are
 * comparable and the lists are fused by Reciprocal Rank Fusion (src/search/fusion.ts), one list
 * per collection of weight 1. Pure: no I/O, no clock.
 */

/** One collection's ranked answer. */
export interface CollectionHits {
  readonly collection: string;
  readonly mode: SearchMode;
  readonly results: readonly SearchResult[];
}

/** A result tagged with the collection it came from. */
export type CollectionResult = SearchResult & { readonly collection: string };

export interface MergedCollections {
  /** `score` when the modes agreed, else `rrf`. */
  readonly merge: 'score' | 'rrf';
  readonly results: readonly CollectionResult[];
}

/**
 * Merges `lists` into at most `limit` results. Ties go to the earlier collection in `lists`,
 * then to the better rank, so the output is deterministic. With `explain`, each result's `why`
 * gains one line saying how it was merged.
 */
export function mergeCollectionHits(lists: readonly CollectionHits[], limit: number, explain = false, k = RRF_K): MergedCollections {
  const modes = new Set(lists.map((l) => l.mode));
  if (modes.size <= 1) {
    const all = lists.flatMap((l, li) => l.results.map((r, i) => ({ r, li, i, collection: l.collection })));
    all.sort((a, b) => b.r.score - a.r.score || a.li - b.li || a.i - b.i);
    const results = all.slice(0, limit).map(({ r, collection, i }) => tag(r, collection, r.score, explain ? `collection ${collection}: rank ${i + 1}, merged by score` : undefined));
    return { merge: 'score', results };
  }
  const byKey = new Map<string, { r: SearchResult; collection: string }>();
  const ranked = lists.map((l) => ({
    list: `collection:${l.collection}`,
    weight: 1,
    keys: l.results.map((r, i) => {
      const key = `${l.collection}\u0000${i}`;
      byKey.set(key, { r, collection: l.collection });
      return key;
    }),
  }));
  const results = fuseRrf(ranked, k)
    .slice(0, limit)
    .map((f) => {
      const { r, collection } = byKey.get(f.key)!;
      const c = f.contributions[0]!;
      return tag(r, collection, f.score, explain ? `collection ${collection}: rank ${c.rank} (${l2(r.score)} in ${modeOf(lists, collection)} mode) → 1/(${k}+${c.rank}) = ${f.score.toFixed(5)} (RRF over collections)` : undefined);
    });
  return { merge: 'rrf', results };
}

const l2 = (n: number): string => n.toFixed(3);

const modeOf = (lists: readonly CollectionHits[], collection: string): SearchMode => lists.find((l) => l.collection === collection)!.mode;

function tag(r: SearchResult, collection: string, score: number, why: string | undefined): CollectionResult {
  return { ...r, collection, score, ...(why !== undefined ? { why: [...(r.why ?? []), why] } : {}) };
}
