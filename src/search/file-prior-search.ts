/**
 * Lexical search with the model's file prior (issue 18, file-vectors.ts): the lexical ranking of a
 * long query (its whole rule pipeline, per-file decay included) over a pool of `prior.pool`
 * chunks, each chunk then × its file's factor from the model's file scores (the best cosines of
 * all the chunks of each file in the pool), best first.
 * The per-file decay commutes with it (one factor per file), so the lexical order inside a file is
 * kept and only the order of files changes; a kind's per-file cap, an order rather than a score,
 * is applied after it.
 */
import type { IndexStore } from '../store/index-store.js';
import { applyFilePrior, combineFileScores, fileCosines, type FilePriorSettings, type PieceCombine } from './file-vectors.js';
import { lexicalSearch, toSearchResult, type LexicalOutcome, type LexicalParams } from './lexical-search.js';
import { kindRankingWhy, rankingForKind } from './kind-ranking.js';
import { classifyQuery } from './query-kind.js';
import { isLongQuery } from './query-parse.js';
import { capPerFile, displayScore, scoreFromBm25 } from './rank.js';
import type { SearchResult } from './search-result.js';
import type { VectorSnapshot } from './vector-search.js';

export interface FilePriorParams extends LexicalParams {
  /** `pool`: lexical chunks the prior reorders (at least `limit`). */
  readonly prior: FilePriorSettings & { readonly pieces: PieceCombine; readonly pool: number };
  readonly vectors: { readonly snapshot: VectorSnapshot; readonly queryVectors: readonly Float32Array[] };
}

/**
 * Each listed file's model score over the query vectors: every chunk of the files of `rows` scored
 * by each vector (`scoreIds`: the scan's kernel on just those rows), a file's score per vector the
 * mean of its `top` best cosines, the vectors (the whole query's, then its pieces) combined as
 * `prior.pieces` says (file-vectors.ts). Files outside the list need no score: the prior reorders
 * the list only.
 */
function fileScores(store: IndexStore, params: FilePriorParams, rows: LexicalOutcome['rows']): { files: Map<string, number>; cosines: Map<number, number> } {
  const pool = new Set(rows.map((r) => r.path));
  const chunks = store.read(() => store.search.chunkIdsOfPaths([...pool]));
  const pathOf = new Map(chunks.map((c) => [c.chunkId, c.path]));
  const ids = chunks.map((c) => c.chunkId);
  const perVector = params.vectors.queryVectors.map((q) => params.vectors.snapshot.index.scoreIds(q, ids));
  // the first vector is the whole query's: its cosines are what `similarity` reports
  const cosines = new Map((perVector[0] ?? []).map((h) => [h.id, h.score]));
  const files = combineFileScores(
    perVector.map((hits) => fileCosines(hits.map((h) => ({ path: pathOf.get(h.id)!, cosine: h.score })), params.prior.top)),
    pool,
    params.prior.pieces,
  );
  return { files, cosines };
}

export function filePriorSearch(store: IndexStore, params: FilePriorParams): LexicalOutcome & { similarity: ReadonlyMap<string, number> } {
  // the kind's decay commutes with the prior (one factor per file); its cap is an order, applied after it
  const r = rankingForKind(params.ranking, classifyQuery(params.query, { long: isLongQuery(params.query) }));
  const lexical = lexicalSearch(store, { ...params, limit: Math.max(params.prior.pool, params.limit), rankOnly: true, ranking: { ...r, byKind: {}, fileCap: 0 } });
  const { files, cosines } = fileScores(store, params, lexical.rows);
  const reordered = applyFilePrior(lexical.rows, files, params.prior);
  const picked = (params.files ? reordered : capPerFile(reordered, r.fileCap, r.fileCapWithin, r.fileCapSpread)).slice(0, params.limit);
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
