import type { ChunkKind } from '../core/chunk.js';
import type { ContentType } from '../core/file.js';
import type { Contribution } from './fusion.js';

/** One search result: a chunk (or, with `files`, the best chunk of a file). Stable JSON schema. */
export interface SearchResult {
  /** Path relative to the project root, `/`-separated. */
  readonly path: string;
  /** 1-based, inclusive. */
  readonly startLine: number;
  /** 1-based, inclusive. */
  readonly endLine: number;
  /** Higher is better; comparable within one response only. */
  readonly score: number;
  readonly language: string;
  readonly contentType: ContentType;
  readonly kind: ChunkKind;
  /** Symbol or heading the chunk is about, or null. */
  readonly symbol: string | null;
  /** Breadcrumb of containers (`class Foo`, `Install > From source`), or null. */
  readonly container: string | null;
  /** Declaration head of the chunk's symbol (`function parse(text: string): Ast`), or null. */
  readonly signature: string | null;
  /** A few lines of the chunk around the best match; matched terms wrapped in « ». */
  readonly snippet: string;
  /** 1-based line of the snippet's first line. */
  readonly snippetLine: number;
  /** sha256 of the chunk text: cite it to prove what was read. */
  readonly chunkHash: string;
  /** With `files`: how many matching chunks the file has. */
  readonly matches?: number;
  /** With `explain`: the BM25 score, then each prior and structural step that changed it. */
  readonly why?: readonly string[];
  /** The reranking model's score of this result (LLM: 0–10; cross-encoder: its logit), when it scored it. */
  readonly rerankScore?: number;
  /** With `explain` in vector or hybrid mode: each list's share of the fused score (they sum to `fusion.score`). */
  readonly fusion?: FusionTrace;
  /** The collection the result came from, when several were searched together (issue 22). */
  readonly collection?: string;
  /** How to cite a document's chunk where lines mean little: `file.pdf#page=N` for a PDF page. */
  readonly cite?: string;
  /** With `explain` under the learned ranker: each feature's value and share of the score. */
  readonly ranker?: RankerTrace;
}

/** `file.pdf#page=N` for a chunk of a PDF's page N (its heading path starts `Page N`), else undefined. */
export function pdfCitation(path: string, language: string, container: string | null, symbol: string | null): string | undefined {
  if (language !== 'pdf') return undefined;
  const page = /^Page (\d+)\b/.exec(container ?? symbol ?? '');
  return page ? `${path}#page=${page[1]}` : undefined;
}

/** How the learned ranker (src/search/learned-rank.ts) scored a result: `score` = Σ contributions. */
export interface RankerTrace {
  /** Which weight set: `lexical` or `hybrid`. */
  readonly model: string;
  readonly score: number;
  /** Every feature's value, 0–1. */
  readonly features: Readonly<Record<string, number>>;
  /** weight × value of each non-zero feature. */
  readonly contributions: Readonly<Record<string, number>>;
}

/** How a fused result's score came about (Reciprocal Rank Fusion, see src/search/fusion.ts). */
export interface FusionTrace {
  /** The unrounded fused score: the sum of the contributions' values. */
  readonly score: number;
  readonly k: number;
  readonly contributions: readonly Contribution[];
  /** The cosine of the best vector list's match, when a vector list ranked it. */
  readonly similarity?: number;
}

/** What model reranking did to a response (present when a reranker is configured and ran). */
export interface RerankMeta {
  /** `llm` or `cross-encoder`. */
  readonly provider: string;
  readonly model: string;
  /** Leading results offered to the model. */
  readonly candidates: number;
  /** How many it scored (the others kept their places). */
  readonly scored: number;
  /** Scores served from the cache. */
  readonly cached: number;
  /** Why some were not scored (`timeout`, `unavailable`, `bad_response`, `aborted`, `error`), or null. */
  readonly skipped: { readonly reason: string; readonly candidates: number; readonly detail?: string } | null;
  readonly tookMs: number;
}

/** How results are ranked: BM25 only, vectors only, or both fused (with symbol matches). */
export type SearchMode = 'lexical' | 'vector' | 'hybrid';

export interface SearchMeta {
  /** How results were ranked: `hybrid` by default when the index has vectors for the configured model, else `lexical`. */
  readonly mode: SearchMode;
  /** What semantic search did or why it was not used, stated plainly. */
  readonly semantic: string;
  /** Terms searched for, after stop words and selection. */
  readonly terms: readonly string[];
  /** Terms left out, with the reason (not_in_index, too_common, over_limit). */
  readonly droppedTerms: readonly { readonly raw: string; readonly reason: string }[];
  /** True when the input counted as long (issue body, stack trace): quotes are not required. */
  readonly longQuery: boolean;
  /**
   * Which candidates were scored: `any` (chunks matching any term: plain BM25 over the OR), or,
   * when the terms are so common on this index that scoring them all would be slow, `all`
   * (chunks matching every term) or `rare` (chunks matching any of the rarest terms).
   */
  readonly plan: 'any' | 'all' | 'rare';
  /** The query's kind (identifier, path, long, natural), which gates query expansion and the vector blend. */
  readonly queryKind: 'identifier' | 'path' | 'long' | 'natural';
  /** Query expansion (`search.ranking.expansion`, natural-language queries): each code token searched, the query word it came from, and the weight. */
  readonly expansion?: { readonly weight: number; readonly terms: readonly { readonly term: string; readonly from: string }[] };
  readonly filesAggregated: boolean;
  readonly tookMs: number;
  /** Of `tookMs`, the time spent embedding the query (vector and hybrid mode). */
  readonly embedMs?: number;
  readonly indexedFiles: number;
  readonly root: string;
  /** Model reranking of the first results, when a reranker is configured and was not turned off. */
  readonly rerank?: RerankMeta;
}

export interface SearchResponse {
  readonly query: string;
  readonly results: readonly SearchResult[];
  readonly meta: SearchMeta;
}
