/**
 * Lexical search with the model's file prior (issue 18, file-vectors.ts): the lexical ranking of a
 * long query (its whole rule pipeline, per-file decay included) over a pool of `FILE_PRIOR_POOL`
 * chunks, each chunk then × its file's factor from the model's file scores (the best cosines of
 * each file's chunks over the vector list's top `depth` and the lexical candidates), best first.
 * The per-file steps commute with it (one factor per file), so the lexical order inside a file is
 * kept and only the order of files changes.
 */
import type { IndexStore } from '../store/index-store.js';
import { compileFilters } from './filters.js';
import { applyFilePrior, fileCosines, type FilePriorSettings } from './file-vectors.js';
import { lexicalSearch, toSearchResult, type LexicalOutcome, type LexicalParams } from './lexical-search.js';
import { kindRankingWhy } from './kind-ranking.js';
import { displayScore, scoreFromBm25 } from './rank.js';
import type { SearchResult } from './search-result.js';
import type { VectorSnapshot } from './vector-search.js';

/** Lexical chunks the prior reorders (at least `limit`). */
export const FILE_PRIOR_POOL = 100;

export interface FilePriorParams extends LexicalParams {
  readonly prior: FilePriorSettings & { readonly depth: number };
  readonly vectors: { readonly snapshot: VectorSnapshot; readonly queryVectors: readonly Float32Array[] };
}

/** Chunk id → best cosine over the query vectors: the vector list's top `depth`, plus the rows of `ids` it missed. */
function chunkCosines(params: FilePriorParams, ids: readonly number[]): Map<number, number> {
  const best = new Map<number, number>();
  const offer = (id: number, s: number): void => {
    if (s > (best.get(id) ?? -Infinity)) best.set(id, s);
  };
  const { index } = params.vectors.snapshot;
  for (const q of params.vectors.queryVectors) for (const h of index.search(q, params.prior.depth)) offer(h.id, h.score);
  const missing = ids.filter((id) => !best.has(id));
  if (missing.length > 0) for (const q of params.vectors.queryVectors) for (const h of index.scoreIds(q, missing)) offer(h.id, h.score);
  return best;
}

export function filePriorSearch(store: IndexStore, params: FilePriorParams): LexicalOutcome & { similarity: ReadonlyMap<string, number> } {
  const lexical = lexicalSearch(store, { ...params, limit: Math.max(FILE_PRIOR_POOL, params.limit), rankOnly: true });
  const cosines = chunkCosines(params, lexical.rows.map((r) => r.chunkId));
  const pathOf = new Map(lexical.rows.map((r) => [r.chunkId, r.path]));
  const unknown = [...cosines.keys()].filter((id) => !pathOf.has(id));
  for (const r of store.read(() => store.search.byChunkIds(unknown, compileFilters(params.filters)))) pathOf.set(r.chunkId, r.path);
  const files = fileCosines(
    [...cosines].flatMap(([id, cosine]) => {
      const path = pathOf.get(id);
      return path === undefined ? [] : [{ path, cosine }];
    }),
    params.prior.top,
  );
  const picked = applyFilePrior(lexical.rows, files, params.prior).slice(0, params.limit);
  const similarity = new Map<string, number>();
  const kindWhy = params.explain ? kindRankingWhy(params.ranking, lexical.kind) : undefined;
  const results = picked.map((hit): SearchResult => {
    const cosine = cosines.get(hit.chunkId);
    if (cosine !== undefined) similarity.set(String(hit.chunkId), cosine);
    const extra = params.explain ? { why: [`bm25 ${displayScore(scoreFromBm25(hit.bm25))}`, ...(kindWhy !== undefined ? [kindWhy] : []), ...((hit as { why?: readonly string[] }).why ?? [])] } : {};
    return toSearchResult(store, hit, hit.score, lexical.marks, params.snippetLines, lexical.texts, { ...(hit.matches !== undefined ? { matches: hit.matches } : {}), ...extra });
  });
  return { ...lexical, results, chunkIds: picked.map((p) => p.chunkId), rows: picked, similarity };
}
