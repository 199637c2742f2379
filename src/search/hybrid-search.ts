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
import { lexicalSearch, toSearchResult, type LexicalOutcome, type LexicalParams } from './lexical-search.js';
import { aggregateFiles, capPerFile, dedupeOverlaps, displayScore } from './rank.js';
import type { SearchMode, SearchResult } from './search-result.js';
import { highlightTerms } from './snippet.js';
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
  /** Query vectors for the given texts (the caller bounds its time; a failure is the caller's to report). */
  readonly embedQueries: (texts: readonly string[]) => Promise<Float32Array[]>;
}

/** Words written as code (an inner capital, `_`, a digit): what the symbol list looks up. */
function codeWords(text: string): string[] {
  const out = new Set<string>();
  for (const m of text.matchAll(/[A-Za-z_$][A-Za-z0-9_$]{2,}/g)) if (/[a-z][A-Z]|[A-Z][a-z]+[A-Z]|_|\d/.test(m[0])) out.add(m[0]);
  return [...out].slice(0, 16);
}

const keyOf = (chunkId: number): string => String(chunkId);

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

/** The vector search or hybrid search of `params.query`. */
export async function hybridSearch(store: IndexStore, params: HybridParams): Promise<LexicalOutcome & { similarity: ReadonlyMap<number, number> }> {
  const subs = parseSubQueries(params.query);
  const { fusion, mode } = params;
  const lists: RankedList[] = [];
  const candidates = new Map<number, FtsCandidate | SearchResult>();
  let lexical: LexicalOutcome | undefined;
  const lexTexts = [...(subs.plain.trim() ? [subs.plain] : []), ...subs.lex];
  if (mode === 'hybrid') {
    for (const text of lexTexts) {
      const outcome = lexicalSearch(store, { ...params, query: text, limit: fusion.depth, files: false, explain: false });
      lexical ??= outcome;
      outcome.chunkIds.forEach((id, i) => candidates.set(id, outcome.results[i]!));
      lists.push({ list: 'lexical', query: subs.typed ? text : undefined, weight: fusion.weights.lexical, keys: outcome.chunkIds.map(keyOf) });
    }
    const symbols = symbolList(store, lexTexts, fusion.depth);
    if (symbols.length > 0) lists.push({ list: 'symbol', weight: fusion.weights.symbol, keys: symbols.map(keyOf) });
  }
  const vecTexts = [...(subs.plain.trim() ? [subs.plain] : []), ...subs.vec, ...subs.hyde];
  const similarity = new Map<number, number>();
  const filter = compileFilters(params.filters);
  const filtered = filter.languages?.length || filter.contentTypes?.length || filter.pathMatch;
  if (vecTexts.length > 0) {
    const vectors = await params.embedQueries(vecTexts);
    vectors.forEach((v, i) => {
      // filters need the chunk's row: over-fetch, then keep the first `depth` that pass
      const hits = params.vectors.index.search(v, filtered ? fusion.depth * 4 : fusion.depth);
      const rows = store.read(() => store.search.byChunkIds(hits.map((h) => h.id), filter)).slice(0, fusion.depth);
      const cos = new Map(hits.map((h) => [h.id, h.score]));
      for (const r of rows) {
        if (!candidates.has(r.chunkId)) candidates.set(r.chunkId, r);
        similarity.set(r.chunkId, Math.max(similarity.get(r.chunkId) ?? -Infinity, cos.get(r.chunkId)!));
      }
      lists.push({ list: 'vector', query: vecTexts.length > 1 ? vecTexts[i]!.split('\n')[0]!.slice(0, 80) : undefined, weight: fusion.weights.vector, keys: rows.map((r) => keyOf(r.chunkId)) });
    });
  }
  const fused = fuseRrf(lists, fusion.k);
  // symbol-list chunks not met in another list still need their rows
  const missing = fused.map((f) => Number(f.key)).filter((id) => !candidates.has(id));
  for (const r of store.read(() => store.search.byChunkIds(missing, filter))) candidates.set(r.chunkId, r);
  const ranked = fused.flatMap((f) => {
    const c = candidates.get(Number(f.key));
    return c ? [{ id: Number(f.key), c, path: c.path, startLine: c.startLine, endLine: c.endLine, score: f.score, fused: f }] : [];
  });
  const scored = capPerFile(dedupeOverlaps(ranked), fusion.fileCap);
  const picked = params.files
    ? aggregateFiles(scored).slice(0, params.limit).map((f) => ({ hit: f.best, score: f.score, matches: f.chunks as number | undefined }))
    : scored.slice(0, params.limit).map((hit) => ({ hit, score: hit.score, matches: undefined }));
  const marks = lexical?.marks ?? highlightTerms([]);
  const texts = new Map<string, string>(lexical?.texts ?? []);
  const results = picked.map(({ hit, score, matches }): SearchResult => {
    const cos = similarity.get(hit.id);
    const fusionTrace = { score: hit.fused.score, k: fusion.k, contributions: hit.fused.contributions, ...(cos !== undefined ? { similarity: displayScore(cos) } : {}) };
    const extra = {
      ...(matches !== undefined ? { matches } : {}),
      ...(params.explain
        ? {
            why: [...hit.fused.contributions.map((c) => `${c.list}${c.query !== undefined ? ` "${c.query}"` : ''} #${c.rank}: ${c.weight}/(${fusion.k}+${c.rank}) = ${displayScore(c.value)}`), ...(cos !== undefined ? [`cosine ${displayScore(cos)}`] : [])],
            fusion: fusionTrace,
          }
        : {}),
    };
    const base = 'snippet' in hit.c ? { ...hit.c, score: displayScore(score) } : toSearchResult(store, hit.c, score, marks, params.snippetLines, texts);
    const { why: _w, ...rest } = base;
    return { ...rest, ...extra };
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
    similarity,
  };
}
