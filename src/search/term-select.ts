import { MAX_LONG_GROUP_WEIGHT, type TermGroup } from './query-parse.js';
import { localeOrder } from '../core/text-order.js';

/** Knobs of query term selection; see docs/DESIGN.md "Query processing". */
export interface SelectParams {
  /**
   * Most groups sent to FTS5; long inputs keep their most informative ones. Default 24, and 40
   * for long queries: on the golden set's issue-like queries 40 beat 24 and 32 on both halves
   * (files recall@1 0.82/0.73 → 0.91/1.00), and more changed nothing.
   */
  readonly maxGroups: number;
  /**
   * A group in more than this fraction of chunks is dropped when rarer groups exist: it costs
   * scoring time on large indexes and adds little. Default 0.5 for short queries, where every
   * word the user typed counts, and 0.2 for long ones (issue bodies, stack traces).
   */
  readonly maxDfRatio: number;
  /** Rank groups by their query weight too (a long query's title and code words, query-parse.ts): `… × weight`. Default false. */
  readonly byWeight?: boolean | undefined;
  /** A kept group in at most this share of chunks gains 1 in weight (up to MAX_LONG_GROUP_WEIGHT); 0 is off. */
  readonly rareRatio?: number | undefined;
}

export const DEFAULT_SELECT_PARAMS: SelectParams = { maxGroups: 24, maxDfRatio: 0.5 };
export const LONG_QUERY_SELECT_PARAMS: SelectParams = { maxGroups: 40, maxDfRatio: 0.2 };

/** The selection knobs of a query: `search.ranking.longTerms` for a long one, the defaults for the rest. */
export function selectParamsFor(long: boolean, longTerms?: { readonly maxGroups: number; readonly maxDfRatio: number; readonly selectByWeight: boolean; readonly rareRatio?: number }): SelectParams {
  if (!long) return DEFAULT_SELECT_PARAMS;
  if (!longTerms) return LONG_QUERY_SELECT_PARAMS;
  return { maxGroups: longTerms.maxGroups, maxDfRatio: longTerms.maxDfRatio, byWeight: longTerms.selectByWeight, ...(longTerms.rareRatio ? { rareRatio: longTerms.rareRatio } : {}) };
}

export type DropReason = 'not_in_index' | 'too_common' | 'over_limit';

export interface Selection {
  readonly kept: readonly TermGroup[];
  /** Document frequency of each kept group, aligned with `kept`. */
  readonly keptDf: readonly number[];
  readonly dropped: readonly { readonly raw: string; readonly reason: DropReason }[];
}

/** BM25's idf (the Robertson–Spärck Jones form FTS5 uses), floored at a small positive value. */
export function idf(df: number, total: number): number {
  return Math.max(1e-6, Math.log(1 + (total - df + 0.5) / (df + 0.5)));
}

/** Group document frequency: the rarest word in any alternative that the index contains. */
export function groupDf(group: TermGroup, dfOf: (word: string) => number): number {
  let best = Infinity;
  for (const alt of group.alternatives) for (const w of alt) {
    const df = dfOf(w);
    if (df > 0 && df < best) best = df;
  }
  return best === Infinity ? 0 : best;
}

/**
 * Chooses which groups to search for. Pure: document frequencies come in as a function.
 * Drops groups the index does not contain, then groups so common that they only cost time
 * (when rarer ones exist), then keeps the `maxGroups` with the highest weight
 * `idf × (1 + ln count) × (1.5 for identifiers, paths and phrases)`. Required groups always stay.
 */
export function selectGroups(groups: readonly TermGroup[], dfOf: (word: string) => number, totalChunks: number, params: SelectParams = DEFAULT_SELECT_PARAMS): Selection {
  const dropped: { raw: string; reason: DropReason }[] = [];
  const scored = groups.map((g) => {
    const df = groupDf(g, dfOf);
    const weight = idf(df, Math.max(totalChunks, df)) * (1 + Math.log(g.count)) * (g.kind === 'word' ? 1 : 1.5) * (params.byWeight ? g.weight : 1);
    return { g, df, weight };
  });
  let live = scored.filter((s) => {
    if (s.df > 0 || s.g.required) return true;
    if (s.g.kind !== 'joined') dropped.push({ raw: s.g.raw, reason: 'not_in_index' });
    return false;
  });
  const rareExists = live.some((s) => s.df <= params.maxDfRatio * totalChunks);
  if (rareExists) {
    live = live.filter((s) => {
      if (s.g.required || s.df <= params.maxDfRatio * totalChunks) return true;
      dropped.push({ raw: s.g.raw, reason: 'too_common' });
      return false;
    });
  }
  live.sort((a, b) => Number(b.g.required) - Number(a.g.required) || b.weight - a.weight || localeOrder(a.g.key, b.g.key));
  for (const s of live.slice(params.maxGroups)) if (!s.g.required) dropped.push({ raw: s.g.raw, reason: 'over_limit' });
  const keptScored = live.filter((s, i) => i < params.maxGroups || s.g.required);
  const rare = params.rareRatio ?? 0;
  const kept = keptScored.map((s) => (rare > 0 && s.df <= rare * totalChunks ? { ...s.g, weight: Math.min(MAX_LONG_GROUP_WEIGHT, s.g.weight + 1) } : s.g));
  return { kept, keptDf: keptScored.map((s) => s.df), dropped };
}
