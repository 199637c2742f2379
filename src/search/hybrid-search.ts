/**
 * Vector and hybrid search (issue 8). Hybrid fuses, with Reciprocal Rank Fusion (fusion.ts), the
 * lexical ranking (the full BM25 + priors pipeline of lexical-search.ts), the vector ranking
 * (cosine over the chunk embeddings) and the symbol list (chunks defining a symbol the query names
 * in code form); vector mode uses the vector lists alone. Typed sub-queries (sub-queries.ts) give
 * each list its own inputs. Results are deduplicated by chunk (and by overlapping lines), capped
 * per file, and, with `explain`, carry each list's contribution.
 */
import type { FtsCandidate } from '../store/search-repo.js';
import type { IndexStore } from '../store/index-store.js';
import { compileFilters } from './filters.js';
import { fuseRrf, type RankedList } from './fusion.js';
import { kindRankingWhy } from './kind-ranking.js';
import { lexicalSearch, toSearchResult, type LexicalOutcome, type LexicalParams } from './lexical-search.js';
import { capPerFile, dedupeOverlaps, displayScore } from './rank.js';
import type { SearchMode, SearchResult } from './search-result.js';
import { highlightTerms } from './snippet.js';
import { classifyQuery } from './query-kind.js';
import { isLongQuery } from './query-parse.js';
import { parseSubQueries } from './sub-queries.js';
import type { VectorSnapshot } from './vector-search.js';

export interface FusionParams {
  readonly k: number;
  readonly weights: { readonly lexical: number; readonly vector: number; readonly symbol: number };
  /** Results each list contributes. */
  readonly depth: number;
  /** Most chunks of one file before other files' (0 off). */
  readonly fileCap: number;
}

export interface HybridParams extends LexicalParams {
  readonly mode: Exclude<SearchMode, 'lexical'>;
  readonly fusion: FusionParams;
  readonly vectors: VectorSnapshot;
  /**
   * The query vectors, one per `vectorTexts(query)`, embedded by the caller before the search
   * reads anything: the reads then run in one snapshot that no await holds open.
   */
  readonly queryVectors: readonly Float32Array[];
}

/** The texts a vector list embeds for `query`: the plain query, then its `vec:` and `hyde:` lines. */
export function vectorTexts(query: string): string[] {
  const subs = parseSubQueries(query);
  return [...(subs.plain.trim() ? [subs.plain] : []), ...subs.vec, ...subs.hyde];
}

/** Words written as code (an inner capital, `_`, a digit): what the symbol list looks up. */
function codeWords(text: string): string[] {
  const out = new Set<string>();
  for (const m of text.matchAll(/[A-Za-z_$][A-Za-z0-9_$]{2,}/g)) if (/[a-z][A-Z]|[A-Z][a-z]+[A-Z]|_|\d/.test(m[0])) out.add(m[0]);
  return [...out].slice(0, 16);
}

/** Chunks defining a symbol named in code form in `texts`, exact names first. */
function symbolList(store: IndexStore, texts: readonly string[], depth: number): number[] {
  const ids: number[] = [];
  for (const word of codeWords(texts.join('\n'))) {
    for (const s of store.read(() => store.structure.byName(word, undefined, 5))) {
      if (s.name !== word) continue;
      const id = store.read(() => store.search.chunkAt(s.path, s.startLine));
      if (id !== undefined && !ids.includes(id)) ids.push(id);
      if (ids.length >= depth) return ids;
    }
  }
  return ids;
}

/**
 * The vector search or hybrid search of `params.query`. Chunk mode fuses chunk rankings; files
 * mode fuses file rankings (each list's files in the order of their best chunk; the lexical list
 * is the lexical search's own file ranking), since summing flat RRF shares per file would favour
 * files with many middling chunks over the one with the best.
 */
export function hybridSearch(store: IndexStore, params: HybridParams): LexicalOutcome & { similarity: ReadonlyMap<string, number> } {
  const subs = parseSubQueries(params.query);
  const { fusion, mode } = params;
  const keyOf = (c: { chunkId: number; path: string }): string => (params.files ? c.path : String(c.chunkId));
  const lists: RankedList[] = [];
  /** Key → its result row (the first list to rank it decides, lexical first) and chunk id. */
  const candidates = new Map<string, { id: number; row: FtsCandidate & { matches?: number | undefined } }>();
  const offer = (id: number, row: FtsCandidate & { matches?: number | undefined }): string => {
    const key = keyOf({ chunkId: id, path: row.path });
    if (!candidates.has(key)) candidates.set(key, { id, row });
    return key;
  };
  const filter = compileFilters(params.filters);
  let lexical: LexicalOutcome | undefined;
  const lexTexts = [...(subs.plain.trim() ? [subs.plain] : []), ...subs.lex];
  if (mode === 'hybrid') {
    for (const text of lexTexts) {
      const outcome = lexicalSearch(store, { ...params, query: text, limit: fusion.depth, explain: false, rankOnly: true });
      lexical ??= outcome;
      const keys = outcome.rows.map((r) => offer(r.chunkId, r));
      lists.push({ list: 'lexical', query: subs.typed ? text : undefined, weight: fusion.weights.lexical, keys });
    }
    const symbols = store.read(() => store.search.byChunkIds(symbolList(store, lexTexts, fusion.depth), filter));
    if (symbols.length > 0) lists.push({ list: 'symbol', weight: fusion.weights.symbol, keys: symbols.map((r) => offer(r.chunkId, r)) });
  }
  const vecTexts = vectorTexts(params.query);
  const similarity = new Map<string, number>();
  const filtered = filter.languages?.length || filter.contentTypes?.length || filter.pathMatch;
  if (vecTexts.length > 0) {
    params.queryVectors.forEach((v, i) => {
      // filters need the chunk's row: over-fetch, then keep the first `depth` that pass
      const hits = params.vectors.index.search(v, filtered || params.files ? fusion.depth * 4 : fusion.depth);
      const cos = new Map(hits.map((h) => [h.id, h.score]));
      const keys: string[] = [];
      for (const r of store.read(() => store.search.byChunkIds(hits.map((h) => h.id), filter))) {
        const key = offer(r.chunkId, r);
        if (!keys.includes(key)) keys.push(key);
        similarity.set(key, Math.max(similarity.get(key) ?? -Infinity, cos.get(r.chunkId)!));
        if (keys.length >= fusion.depth) break;
      }
      lists.push({ list: 'vector', query: vecTexts.length > 1 ? vecTexts[i]!.split('\n')[0]!.slice(0, 80) : undefined, weight: fusion.weights.vector, keys });
    });
  }
  const ranked = fuseRrf(lists, fusion.k).flatMap((f) => {
    const c = candidates.get(f.key);
    return c ? [{ key: f.key, id: c.id, c: c.row, path: c.row.path, startLine: c.row.startLine, endLine: c.row.endLine, score: f.score, fused: f }] : [];
  });
  const picked = (params.files ? ranked : capPerFile(dedupeOverlaps(ranked), fusion.fileCap)).slice(0, params.limit).map((hit) => ({ hit, score: hit.score, matches: hit.c.matches }));
  const marks = lexical?.marks ?? highlightTerms([]);
  const texts = new Map<string, string>(lexical?.texts ?? []);
  // the lexical list was ranked with its kind's own settings (search.ranking.byKind)
  const kindWhy = params.explain && lexical ? kindRankingWhy(params.ranking, lexical.kind) : undefined;
  const results = picked.map(({ hit, score, matches }): SearchResult => {
    const cos = similarity.get(hit.key);
    const fusionTrace = { score: hit.fused.score, k: fusion.k, contributions: hit.fused.contributions, ...(cos !== undefined ? { similarity: displayScore(cos) } : {}) };
    const extra = {
      ...(matches !== undefined ? { matches } : {}),
      ...(params.explain
        ? {
            why: [...(kindWhy !== undefined ? [kindWhy] : []), ...hit.fused.contributions.map((c) => `${c.list}${c.query !== undefined ? ` "${c.query}"` : ''} #${c.rank}: ${c.weight}/(${fusion.k}+${c.rank}) = ${displayScore(c.value)}`), ...(cos !== undefined ? [`cosine ${displayScore(cos)}`] : [])],
            fusion: fusionTrace,
          }
        : {}),
    };
    return toSearchResult(store, hit.c, score, marks, params.snippetLines, texts, extra);
  });
  return {
    results,
    terms: lexical?.terms ?? [],
    dropped: lexical?.dropped ?? [],
    long: lexical?.long ?? false,
    plan: lexical?.plan ?? 'any',
    texts,
    chunkIds: picked.map((p) => p.hit.id),
    marks,
    rows: picked.map((p) => ({ ...p.hit.c, score: p.score })),
    similarity,
    kind: lexical?.kind ?? classifyQuery(params.query, { long: isLongQuery(params.query) }),
  };
}
