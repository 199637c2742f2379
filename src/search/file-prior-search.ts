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
import { applyFilePrior, combineFileScores, fileCosines, type FilePriorSettings, type PieceCombine } from './file-vectors.js';
import { lexicalSearch, toSearchResult, type LexicalOutcome, type LexicalParams } from './lexical-search.js';
import { kindRankingWhy } from './kind-ranking.js';
import { displayScore, scoreFromBm25 } from './rank.js';
import type { SearchResult } from './search-result.js';
import type { VectorSnapshot } from './vector-search.js';

/** Lexical chunks the prior reorders (at least `limit`). */
export const FILE_PRIOR_POOL = 100;

export interface FilePriorParams extends LexicalParams {
  readonly prior: FilePriorSettings & { readonly depth: number; readonly pieces: PieceCombine };
  readonly vectors: { readonly snapshot: VectorSnapshot; readonly queryVectors: readonly Float32Array[] };
}

/** Chunk id → cosine for one query vector: the vector list's top `depth`, plus the rows of `ids` it missed. */
function chunkCosines(snapshot: VectorSnapshot, q: Float32Array, depth: number, ids: readonly number[]): Map<number, number> {
  const out = new Map<number, number>();
  for (const h of snapshot.index.search(q, depth)) out.set(h.id, h.score);
  const missing = ids.filter((id) => !out.has(id));
  if (missing.length > 0) for (const h of snapshot.index.scoreIds(q, missing)) out.set(h.id, h.score);
  return out;
}

/** Each file's model score over the query vectors: one vector, or pieces combined as `prior.pieces` says (file-vectors.ts). */
function fileScores(store: IndexStore, params: FilePriorParams, rows: LexicalOutcome['rows']): { files: Map<string, number>; cosines: Map<number, number> } {
  const ids = rows.map((r) => r.chunkId);
  const perVector = params.vectors.queryVectors.map((q) => chunkCosines(params.vectors.snapshot, q, params.prior.depth, ids));
  const pathOf = new Map(rows.map((r) => [r.chunkId, r.path]));
  const unknown = [...new Set(perVector.flatMap((m) => [...m.keys()]))].filter((id) => !pathOf.has(id));
  for (const r of store.read(() => store.search.byChunkIds(unknown, compileFilters(params.filters)))) pathOf.set(r.chunkId, r.path);
  const withPaths = (m: ReadonlyMap<number, number>): Array<{ path: string; cosine: number }> =>
    [...m].flatMap(([id, cosine]) => {
      const path = pathOf.get(id);
      return path === undefined ? [] : [{ path, cosine }];
    });
  // the first vector is the whole query's: its cosines are what `--explain` and `similarity` show
  const cosines = perVector[0] ?? new Map<number, number>();
  const files = combineFileScores(perVector.map((m) => fileCosines(withPaths(m), params.prior.top)), new Set(rows.map((r) => r.path)), params.prior.pieces);
  return { files, cosines };
}

export function filePriorSearch(store: IndexStore, params: FilePriorParams): LexicalOutcome & { similarity: ReadonlyMap<string, number> } {
  const lexical = lexicalSearch(store, { ...params, limit: Math.max(FILE_PRIOR_POOL, params.limit), rankOnly: true });
  const { files, cosines } = fileScores(store, params, lexical.rows);
  const picked = applyFilePrior(lexical.rows, files, params.prior).slice(0, params.limit);
  const similarity = new Map<string, number>();
  const kindWhy = params.explain ? kindRankingWhy(params.ranking, lexical.kind) : undefined;
  const results = picked.map((hit): SearchResult => {
    const cosine = cosines.get(hit.chunkId);
    if (cosine !== undefined) similarity.set(String(hit.chunkId), cosine);
    const extra = params.explain ? { why: [`bm25 ${displayScore(scoreFromBm25(hit.bm25))}`, ...(kindWhy !== undefined ? [kindWhy] : []), ...(hit.why ?? [])] } : {};
    return toSearchResult(store, hit, hit.score, lexical.marks, params.snippetLines, lexical.texts, { ...(hit.matches !== undefined ? { matches: hit.matches } : {}), ...extra });
  });
  return { ...lexical, results, chunkIds: picked.map((p) => p.chunkId), rows: picked, similarity };
}
