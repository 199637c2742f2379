/**
 * The reranker contract. A reranker reorders the first few candidates of a search by a model's
 * judgement of relevance; the deterministic structural ranking (src/search/rank.ts) has already
 * run and is what the user gets when no reranker is configured or when one fails.
 *
 * A reranker never throws into search and never blocks results past its time budget: whatever
 * it could not score keeps its place, and `skipped` says why.
 */

/** One search result offered for reranking. */
export interface RerankCandidate {
  /** Stable id of the candidate (the chunk hash); cache keys use it. */
  readonly id: string;
  readonly path: string;
  readonly startLine: number;
  readonly endLine: number;
  /** The chunk's text as indexed (the reranker may cut it). */
  readonly text: string;
}

/** Why some or all candidates were not scored. */
export type RerankSkipReason = 'timeout' | 'unavailable' | 'bad_response' | 'aborted' | 'error';

export interface RerankOutcome {
  /** Candidate ids, best first: always a permutation of the input ids. */
  readonly order: readonly string[];
  /** The model's score of each candidate it scored (LLM: 0–10; cross-encoder: its logit). */
  readonly scores: ReadonlyMap<string, number>;
  /** Present when some candidates were not scored: how many, and the first reason. */
  readonly skipped?: { readonly reason: RerankSkipReason; readonly candidates: number; readonly detail?: string };
  /** Scores served from the cache. */
  readonly cached: number;
  readonly tookMs: number;
}

export interface RerankOptions {
  readonly signal?: AbortSignal | undefined;
}

export interface Reranker {
  /** `llm` or `cross-encoder`. */
  readonly name: string;
  /** The model identifier, for reports and cache keys. */
  readonly model: string;
  rerank(query: string, candidates: readonly RerankCandidate[], options?: RerankOptions): Promise<RerankOutcome>;
  /** Releases sessions and sockets; idempotent. */
  close(): Promise<void>;
}

/**
 * The order after scoring: scored candidates sorted by score (ties keep their input order) fill
 * the slots the scored candidates held; a candidate without a score keeps its slot. So a partial
 * failure reorders only what was judged, and a total failure is the input order.
 */
export function orderByScores(ids: readonly string[], scores: ReadonlyMap<string, number>): string[] {
  const scoredIds = ids.filter((id) => scores.has(id));
  const sorted = scoredIds
    .map((id, i) => ({ id, i, s: scores.get(id)! }))
    .sort((a, b) => b.s - a.s || a.i - b.i)
    .map((x) => x.id);
  let next = 0;
  return ids.map((id) => (scores.has(id) ? sorted[next++]! : id));
}
