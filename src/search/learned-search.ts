/**
 * Score-level hybrid (issue 17) and learned ranking (issue 18): the candidates are the lexical
 * search's top `pool` chunks (its full rule-based pipeline, uncapped) and, with vectors, the vector
 * search's top `depth`; each is scored by the linear model of learned-rank.ts over its features,
 * then overlapping chunks are dropped and a file's extra chunks kept only close to its best
 * (`diversity`). With `explain`, each result carries its features and their contributions.
 */
import type { IndexStore } from '../store/index-store.js';
import type { FtsCandidate } from '../store/search-repo.js';
import { compileFilters } from './filters.js';
import { codeWordsOf, extractFeatures, scoreLinear, weighsText, type Diversity, type FeatureVector, type LinearScore, type LinearWeights, type RankerCandidate } from './learned-rank.js';
import { fileChunkCandidates, topPaths } from './file-chunks.js';
import { docWhyLines, fieldWeights, lexicalSearch, toSearchResult, type LexicalOutcome, type LexicalParams } from './lexical-search.js';
import { kindRankingWhy, rankingForKind } from './kind-ranking.js';
import { classifyQuery } from './query-kind.js';
import { isLongQuery } from './query-parse.js';
import { capPerFile, decayPerFile, dedupeOverlaps, displayScore, isTestPath, scoreFromBm25 } from './rank.js';
import type { RankerTrace, SearchResult } from './search-result.js';
import { nameCandidates } from './name-list.js';
import { bestName, nameWeights, queryNameWords, queryWords } from './name-match.js';
import { highlightTerms } from './snippet.js';
import type { VectorSnapshot } from './vector-search.js';
import { localeOrder } from '../core/text-order.js';

/** Lexical candidates the ranker scores (at least `limit`). */
export const LEARNED_POOL = 50;

export interface LearnedParams extends LexicalParams {
  readonly model: { readonly weights: LinearWeights; readonly diversity: Diversity; readonly name: string };
  /** With a model: its vectors, the query vectors (one per vector text) and how many vector hits join the pool. */
  readonly vectors?: { readonly snapshot: VectorSnapshot; readonly queryVectors: readonly Float32Array[]; readonly depth: number; readonly cosineForAll?: boolean } | undefined;
  /** The name list (name-list.ts): how many best-named definitions join the candidates (0 or absent: none). */
  readonly nameDepth?: number | undefined;
  /** The found files' chunks (file-chunks.ts): how many of the best files bring their other chunks (0 or absent: none). */
  readonly fileDepth?: number | undefined;
  /** Which lexical expression scores the found files' chunks: the one that ranked the candidates (default) or every kept group OR'ed. */
  readonly fileExpression?: 'main' | 'any' | undefined;
}

type Row = FtsCandidate & { readonly score?: number };

/** Vector hits that pass the filters, best cosine first: chunk id → cosine and 1-based rank. */
function vectorHits(store: IndexStore, params: LearnedParams): { rows: Row[]; byId: Map<number, { cosine: number; rank?: number | undefined }> } {
  const v = params.vectors;
  if (!v || v.queryVectors.length === 0) return { rows: [], byId: new Map() };
  const filter = compileFilters(params.filters);
  const best = new Map<number, number>();
  for (const q of v.queryVectors) for (const h of v.snapshot.index.search(q, v.depth * 2)) best.set(h.id, Math.max(best.get(h.id) ?? -Infinity, h.score));
  const ids = [...best].sort((a, b) => b[1] - a[1]).map(([id]) => id);
  const rows = store.read(() => store.search.byChunkIds(ids, filter));
  const order = new Map(ids.map((id, i) => [id, i]));
  rows.sort((a, b) => order.get(a.chunkId)! - order.get(b.chunkId)!);
  const kept = rows.slice(0, v.depth);
  return { rows: kept, byId: new Map(kept.map((r, i) => [r.chunkId, { cosine: best.get(r.chunkId)!, rank: i + 1 }])) };
}

export function learnedSearch(store: IndexStore, params: LearnedParams): LexicalOutcome & { similarity: ReadonlyMap<string, number> } {
  // the kind's file blend shapes the lexical scores; its cap and decay, if any, come with `diversity`
  const kindRanking = rankingForKind(params.ranking, classifyQuery(params.query, { long: isLongQuery(params.query) }));
  const lexical = lexicalSearch(store, {
    ...params,
    limit: Math.max(LEARNED_POOL, params.limit),
    files: false,
    explain: false,
    rankOnly: true,
    ranking: { ...kindRanking, byKind: {}, fileCap: 0, fileDecay: 1 },
  });
  const vec = vectorHits(store, params);
  const pool = candidatePool(store, params, lexical, vec);
  const { named } = pool;
  const texts = new Map<string, string>();
  // the name match reads the names of the definitions inside each candidate (a merged chunk holds several)
  const nameWords = params.explain === true || params.model.weights.nameMatch !== 0 ? queryNameWords(params.query) : undefined;
  const ctx: PoolContext = { store, params, lexical, vec, texts, nameWords };
  let { rows, cands, scored } = scorePool(ctx, pool.rows, pool.lexRank);
  // the best files' other chunks (file-chunks.ts), then every candidate scored again over the larger set
  const added = fileChunks(ctx, scored, new Set(rows.map((r) => r.chunkId)));
  if (added.length > 0) {
    const lexRank = new Map(pool.lexRank);
    added.forEach((r, i) => lexRank.set(r.chunkId, pool.rows.length + i + 1));
    ({ rows, cands, scored } = scorePool(ctx, [...rows, ...added], lexRank));
  }
  const deduped = dedupeOverlaps(scored);
  const d = params.model.diversity;
  const ranked = params.files ? bestPerFile(deduped) : capPerFile(decayPerFile(deduped, d.decay ?? 1), d.cap, d.within, d.spread ?? 0);
  const picked = ranked.slice(0, params.limit);
  const marks = lexical.query ? lexical.marks : highlightTerms([]);
  const similarity = new Map<string, number>();
  const docWhy = params.explain ? docWhyLines(store, lexical.expression, params.weights, picked) : new Map<number, string[]>();
  const kindWhy = params.explain ? kindRankingWhy(params.ranking, lexical.kind) : undefined;
  const nameWhy = params.explain ? nameExplainer(rows, cands, nameWords, named, added) : () => [];
  const results = picked.map((hit): SearchResult => {
    if (hit.cosine !== undefined) similarity.set(String(hit.chunkId), hit.cosine);
    const ranker: RankerTrace = { model: params.model.name, score: hit.linear.score, features: hit.features, contributions: hit.linear.contributions };
    const why = Object.entries(hit.linear.contributions).map(([f, v]) => `${f} ${displayScore(hit.features[f as keyof typeof hit.features])} × ${displayScore(params.model.weights[f as keyof LinearWeights])} = ${displayScore(v)}`);
    return toSearchResult(store, hit, hit.score, marks, params.snippetLines, texts, params.explain ? { why: [`learned ranker (${params.model.name}): ${displayScore(hit.linear.score)}`, ...why, ...nameWhy(hit.chunkId), ...(docWhy.get(hit.chunkId) ?? []), ...(kindWhy !== undefined ? [kindWhy] : []), ...hit.why], ranker } : {});
  });
  return { ...lexical, results, texts, chunkIds: picked.map((p) => p.chunkId), rows: picked, similarity };
}

interface PoolContext {
  readonly store: IndexStore;
  readonly params: LearnedParams;
  readonly lexical: LexicalOutcome;
  readonly vec: ReturnType<typeof vectorHits>;
  /** Chunk texts read so far, by chunk hash. */
  readonly texts: Map<string, string>;
  readonly nameWords: readonly string[] | undefined;
}

type Scored = Row & { readonly score: number; readonly why: readonly string[]; readonly linear: LinearScore; readonly features: FeatureVector; readonly cosine: number | undefined };

/** Each candidate's features over the whole set and its model score, best first. */
function scorePool(ctx: PoolContext, rows: readonly Row[], lexRank: ReadonlyMap<number, number>): { rows: readonly Row[]; cands: RankerCandidate[]; scored: Scored[] } {
  const { store, params, texts, nameWords, vec } = ctx;
  const textOf = (r: Row): string => {
    const t = texts.get(r.chunkHash) ?? store.read(() => store.content.slice(r.fileHash, r.startByte, r.endByte)) ?? '';
    texts.set(r.chunkHash, t);
    return t;
  };
  const names = nameWords ? definitionNames(store, rows) : undefined;
  // texts feed only the text features: the blend weighs none, so it reads just its results' texts (explain shows every feature)
  const readText = params.explain === true || weighsText(params.model.weights);
  const cands: RankerCandidate[] = rows.map((r) => {
    const rank = lexRank.get(r.chunkId);
    return {
      ...r,
      text: readText ? textOf(r) : '',
      names: names?.get(r.chunkId),
      lexical: rank !== undefined ? { score: r.score ?? 0, rank, bm25: scoreFromBm25(r.bm25) } : undefined,
      vector: vec.byId.get(r.chunkId),
    };
  });
  const lexical = ctx.lexical;
  const traits = lexical.query ?? { words: [], names: new Set<string>(), wantsTests: false, wantsDocs: false };
  const features = extractFeatures(cands, { ...traits, long: lexical.long, codeWords: codeWordsOf(params.query), isTest: isTestPath, nameWords });
  const scored = rows
    .map((r, i): Scored => {
      const s = scoreLinear(features[i]!, params.model.weights);
      // exp keeps scores positive, so `diversity.within` is a ratio as in capPerFile
      // `why` restarts here: the explanation is the model's, then the per-file steps below
      return { ...r, score: Math.exp(s.score), why: [], linear: s, features: features[i]!, cosine: vec.byId.get(r.chunkId)?.cosine };
    })
    .sort((a, b) => b.score - a.score || localeOrder(a.path, b.path) || a.startLine - b.startLine);
  return { rows, cands, scored };
}

/** The chunks of the best `fileDepth` files not yet candidates (file-chunks.ts), with their cosines; none unless `fileDepth` is set. */
function fileChunks(ctx: PoolContext, scored: readonly Scored[], exclude: ReadonlySet<number>): Row[] {
  const { store, params, lexical, vec } = ctx;
  if (!params.fileDepth) return [];
  const p = { paths: topPaths(scored, params.fileDepth), filter: compileFilters(params.filters), exclude, expression: (params.fileExpression === 'any' ? lexical.anyExpression : lexical.expression) ?? '', weights: fieldWeights(params.weights), wantsTests: lexical.query?.wantsTests ?? false };
  const added = fileChunkCandidates(store, p);
  if (params.vectors && added.length > 0) addLexicalCosines(params.vectors, added, vec.byId);
  return added;
}

/**
 * The cosine of each lexical candidate the vector list did not rank, so the blend never reads a
 * missing cosine as 0: scored row by row (`scoreIds`, the scan's own scores for just these rows,
 * not a second scan of the whole index).
 */
function addLexicalCosines(v: NonNullable<LearnedParams['vectors']>, rows: readonly Row[], byId: Map<number, { cosine: number; rank?: number | undefined }>): void {
  const missing = new Set(rows.map((r) => r.chunkId).filter((id) => !byId.has(id)));
  if (missing.size === 0) return;
  for (const q of v.queryVectors) {
    for (const h of v.snapshot.index.scoreIds(q, missing)) {
      const had = byId.get(h.id);
      if (!had || h.score > had.cosine) byId.set(h.id, { cosine: h.score });
    }
  }
}

/** The candidates: the lexical list, the name list's chunks, then the vector list's others; each lexical one's 1-based rank. */
function candidatePool(store: IndexStore, params: LearnedParams, lexical: LexicalOutcome, vec: ReturnType<typeof vectorHits>): { rows: Row[]; lexRank: Map<number, number>; named: Row[] } {
  const named = nameList(store, params, lexical, new Set([...lexical.rows, ...vec.rows].map((r) => r.chunkId)));
  const lexRows = [...lexical.rows, ...named];
  if (params.vectors?.cosineForAll) addLexicalCosines(params.vectors, lexRows, vec.byId);
  const pool = new Map<number, Row>();
  for (const r of lexRows) pool.set(r.chunkId, r);
  for (const r of vec.rows) if (!pool.has(r.chunkId)) pool.set(r.chunkId, r);
  return { rows: [...pool.values()], lexRank: new Map(lexRows.map((r, i) => [r.chunkId, i + 1])), named };
}

/** The `--explain` lines of the name match, by chunk id: the definition it matched (weighed as the feature is), and whether the name list brought the chunk. */
function nameExplainer(rows: readonly Row[], cands: readonly RankerCandidate[], nameWords: readonly string[] | undefined, named: readonly Row[], added: readonly Row[]): (id: number) => string[] {
  const namesOf = new Map(cands.map((c, i) => [rows[i]!.chunkId, c.names ?? (c.symbol ? [c.symbol] : [])]));
  const weights = nameWords ? nameWeights(nameWords, [...namesOf.values()]) : undefined;
  const namedIds = new Set(named.map((r) => r.chunkId));
  const addedIds = new Set(added.map((r) => r.chunkId));
  return (id) => {
    const best = nameWords ? bestName(nameWords, namesOf.get(id) ?? [], weights) : undefined;
    return [...(best?.name !== undefined ? [`name match: ${best.name}`] : []), ...(namedIds.has(id) ? ['from the name list (a definition the query names, scored by the lexical expression)'] : []),
      ...(addedIds.has(id) ? ["from a found file's other chunks (one of the best files, scored by the lexical expression)"] : []),
    ];
  };
}

/** The name list's chunks (name-list.ts), scored by the lexical expression; none unless `nameDepth` is set. */
function nameList(store: IndexStore, params: LearnedParams, lexical: LexicalOutcome, exclude: ReadonlySet<number>): Row[] {
  if (!params.nameDepth || !lexical.anyExpression) return [];
  const words = queryWords(params.query).map((w) => w.toLowerCase());
  const p = { words, nameWords: queryNameWords(params.query), depth: params.nameDepth, filter: compileFilters(params.filters), exclude, expression: lexical.anyExpression, weights: fieldWeights(params.weights), wantsTests: lexical.query?.wantsTests ?? false };
  return nameCandidates(store, p);
}

/** The names of the definitions inside each row's lines (its own symbol first), by chunk id. */
function definitionNames(store: IndexStore, rows: readonly Row[]): Map<number, string[]> {
  const inside = store.read(() => store.search.definitionNames(rows.map((r) => r.chunkId)));
  return new Map(rows.map((r) => [r.chunkId, [...new Set([...(r.symbol ? [r.symbol] : []), ...(inside.get(r.chunkId) ?? [])])]]));
}

/** Files mode: each file once, at its best chunk's place. */
function bestPerFile<T extends { readonly path: string }>(hits: readonly T[]): T[] {
  const seen = new Set<string>();
  return hits.filter((h) => !seen.has(h.path) && seen.add(h.path) !== undefined);
}
