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
import { companionStep } from './companion-pass.js';
import { recalledFiles, unionPool } from './file-recall.js';
import type { FileRankModel } from './file-rank.js';
import { fileRankContext, rankFilesOfPool } from './file-rank-pass.js';
import { compileFilters } from './filters.js';
import { applyFilePrior, combineFileScores, fileCosines, type FilePriorSettings, type PieceCombine } from './file-vectors.js';
import { lexicalSearch, toSearchResult, type LexicalOutcome, type LexicalParams } from './lexical-search.js';
import { kindRankingWhy, rankingForKind } from './kind-ranking.js';
import { classifyQuery } from './query-kind.js';
import { isLongQuery } from './query-parse.js';
import { capPerFile, displayScore, scoreFromBm25 } from './rank.js';
import type { RankerTrace, SearchResult } from './search-result.js';
import type { VectorSnapshot } from './vector-search.js';

export interface FilePriorParams extends LexicalParams {
  /**
   * `pool`: lexical chunks the prior reorders (at least `limit`); `recall`: the files of each query
   * vector's top this many chunks join them (0: none), each at the pool's score quantile `recallAt` (file-recall.ts).
   */
  readonly prior: FilePriorSettings & { readonly pieces: PieceCombine; readonly pool: number; readonly recall?: number; readonly recallAt?: number };
  readonly vectors: { readonly snapshot: VectorSnapshot; readonly queryVectors: readonly Float32Array[] };
  /** The learned file ranker's weights, when the kind turns it on (`search.ranking.fileRanker`): it orders the files instead of the prior's factors. */
  readonly fileRanker?: FileRankModel | undefined;
}

/**
 * Each listed file's model score over the query vectors: every chunk of the files of `rows` scored
 * by each vector (`scoreIds`: the scan's kernel on just those rows), a file's score per vector the
 * mean of its `top` best cosines, the vectors (the whole query's, then its pieces) combined as
 * `prior.pieces` says (file-vectors.ts). Files outside the list need no score: the prior reorders
 * the list only.
 */
function fileScores(store: IndexStore, params: FilePriorParams, rows: readonly Row[], lexicalFiles: ReadonlySet<string>): { files: Map<string, number>; cosines: Map<number, number> } {
  const pool = new Set(rows.map((r) => r.path));
  const chunks = store.read(() => store.search.chunkIdsOfPaths([...pool]));
  const pathOf = new Map(chunks.map((c) => [c.chunkId, c.path]));
  const ids = chunks.map((c) => c.chunkId);
  const perVector = params.vectors.queryVectors.map((q) => params.vectors.snapshot.index.scoreIds(q, ids));
  // the first vector is the whole query's: its cosines are what `similarity` reports
  const cosines = new Map((perVector[0] ?? []).map((h) => [h.id, h.score]));
  const files = combineFileScores(
    perVector.map((hits) => fileCosines(hits.map((h) => ({ path: pathOf.get(h.id)!, cosine: h.score })), params.prior.top)),
    lexicalFiles,
    params.prior.pieces,
    pool,
  );
  return { files, cosines };
}

type Row = LexicalOutcome['rows'][number];

/** The lexical pool ∪ the best chunk of each file of the query vectors' top `prior.recall` chunks the pool lacks (file-recall.ts). */
function withModelCandidates(store: IndexStore, params: FilePriorParams, rows: readonly Row[]): Row[] {
  const n = params.prior.recall ?? 0;
  if (n <= 0) return [...rows];
  const hits = params.vectors.queryVectors.flatMap((q) => params.vectors.snapshot.index.search(q, n));
  const cosine = new Map<number, number>();
  for (const h of hits) cosine.set(h.id, Math.max(cosine.get(h.id) ?? -Infinity, h.score));
  const candidates = store.read(() => store.search.byChunkIds([...cosine.keys()], compileFilters(params.filters)));
  const byId = new Map(candidates.map((c) => [c.chunkId, c]));
  const picked = recalledFiles(
    candidates.map((c) => ({ id: c.chunkId, path: c.path, cosine: cosine.get(c.chunkId)! })),
    new Set(rows.map((r) => r.path)),
  );
  return unionPool(rows, picked.map((p): Row => ({ ...byId.get(p.id)!, score: 0 })), params.prior.recallAt ?? 0);
}

export function filePriorSearch(store: IndexStore, params: FilePriorParams): LexicalOutcome & { similarity: ReadonlyMap<string, number> } {
  // the kind's decay commutes with the prior (one factor per file); its cap is an order, applied after it
  const r = rankingForKind(params.ranking, classifyQuery(params.query, { long: isLongQuery(params.query) }));
  const lexical = lexicalSearch(store, { ...params, fileRanker: undefined, limit: Math.max(params.prior.pool, params.limit), rankOnly: true, ranking: { ...r, byKind: {}, fileCap: 0, companionBoost: 0 } });
  const pool = withModelCandidates(store, params, lexical.rows);
  // the prior's range is the lexical pool's files: a recalled file never moves their factors
  const lexicalFiles = new Set(lexical.rows.map((r) => r.path));
  const { files, cosines } = fileScores(store, params, pool, lexicalFiles);
  // the file ranker (file-rank.ts) weighs the model's file scores with the lexical evidence; chunk lists only
  const ranker = params.fileRanker && r.fileRanker && !params.files ? fileRankContext(params.query, lexical, files) : undefined;
  const prior: Array<Row & { readonly why?: readonly string[] | undefined; readonly ranker?: RankerTrace | undefined }> = ranker ? rankFilesOfPool(pool, ranker, params.fileRanker, params.explain ?? false) : applyFilePrior(pool, files, params.prior, lexicalFiles);
  // companions (companions.ts): files tied to the first ones gain, once the prior has ordered the files; long texts with file evidence, chunk lists only
  const reordered = lexical.fileEvidence && !params.files ? companionStep(store, prior, r) : prior;
  const picked = (params.files ? reordered : capPerFile(reordered, r.fileCap, r.fileCapWithin, r.fileCapSpread)).slice(0, params.limit);
  const similarity = new Map<string, number>();
  const kindWhy = params.explain ? kindRankingWhy(params.ranking, lexical.kind) : undefined;
  const results = picked.map((hit): SearchResult => {
    const cosine = cosines.get(hit.chunkId);
    if (cosine !== undefined) similarity.set(String(hit.chunkId), cosine);
    const extra = params.explain ? { why: [`bm25 ${displayScore(scoreFromBm25(hit.bm25))}`, ...(kindWhy !== undefined ? [kindWhy] : []), ...(hit.why ?? [])] } : {};
    const trace = hit.ranker ? { ranker: hit.ranker } : {};
    return toSearchResult(store, hit, hit.score, lexical.marks, params.snippetLines, lexical.texts, { ...(hit.matches !== undefined ? { matches: hit.matches } : {}), ...extra, ...trace });
  });
  return { ...lexical, results, chunkIds: picked.map((p) => p.chunkId), rows: picked, similarity };
}
