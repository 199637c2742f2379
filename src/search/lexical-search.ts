import type { FieldWeights, RankingConfig } from '../config/schema.js';
import type { IndexStore } from '../store/index-store.js';
import type { FtsCandidate } from '../store/search-repo.js';
import { buildFtsExpression } from './fts-expression.js';
import { companionStep } from './companion-pass.js';
import { expandCandidates, type ExpansionSettings, type ExpansionTrace } from './expansion-pass.js';
import { gatherFileEvidence, type FileEvidenceOutcome } from './file-evidence-pass.js';
import { applyFileEvidence } from './file-score.js';
import type { FileRankModel } from './file-rank.js';
import { fileRankContext, rankFilesOfPool } from './file-rank-pass.js';
import { compileFilters, type SearchFilters } from './filters.js';
import { kindRankingWhy, rankingForKind } from './kind-ranking.js';
import { classifyQuery, type QueryKind } from './query-kind.js';
import { parseQuery } from './query-parse.js';
import { applyFrameFates, stripNoise } from './query-understand.js';
import { planQuery, runPlan, type PlanLevel } from './query-plan.js';
import { addFileSupport, aggregateFiles, applyPriors, applyStructure, blendFileScore, capPerFile, decayPerFile, dedupeOverlaps, displayScore, FILE_SUPPORT_WEIGHT, queryWantsDocs, queryWantsTests, scoreFromBm25 } from './rank.js';
import { pdfCitation, type RankerTrace, type SearchResult } from './search-result.js';
import { applyRecency } from './recency.js';
import { highlightTerms, makeSnippet } from './snippet.js';
import { selectGroups, selectParamsFor, type DropReason } from './term-select.js';
import { frameFate, type Frame, type FrameFate } from './traceback.js';

export interface LexicalParams {
  readonly query: string;
  readonly limit: number;
  /** One result per file instead of per chunk. */
  readonly files: boolean;
  readonly filters: SearchFilters;
  readonly weights: FieldWeights;
  readonly ranking: RankingConfig;
  /** Attach `why` (how each score came about) to results. */
  readonly explain?: boolean;
  /** Lines per snippet. */
  readonly snippetLines: number;
  /** Rank only: `results` stay empty and `rows` carry the ranked candidates (hybrid search materialises just what it keeps). */
  readonly rankOnly?: boolean | undefined;
  /** The time content ages are measured from, for the recency boost (`ranking.recency`); default: no boost. */
  readonly nowMs?: number | undefined;
  /** Query expansion (expansion-pass.ts), applied to natural-language queries only (query-kind.ts). */
  readonly expansion?: ExpansionSettings | undefined;
  /** The learned file ranker's weights (file-rank.ts), used when the kind turns it on and the file evidence ran; chunk lists only. */
  readonly fileRanker?: FileRankModel | undefined;
}

export interface LexicalOutcome {
  readonly results: SearchResult[];
  readonly terms: string[];
  readonly dropped: { raw: string; reason: DropReason }[];
  readonly long: boolean;
  /** Which candidate set was scored; see query-plan.ts. */
  readonly plan: PlanLevel['mode'];
  /** Each result's chunk text, by chunk hash (for rerankers). */
  readonly texts: Map<string, string>;
  /** The chunk id of each result, in order (files mode: of each file's best chunk). */
  readonly chunkIds: readonly number[];
  /** The words snippets mark. */
  readonly marks: ReadonlySet<string>;
  /** The ranked candidates behind `chunkIds`, with their ranking score (and, in files mode, matching chunks). */
  readonly rows: ReadonlyArray<FtsCandidate & { readonly score: number; readonly matches?: number | undefined }>;
  /** What the query asks for, as the learned ranker reads it (absent when no term was kept). */
  readonly query?: QueryTraits | undefined;
  /** The query's kind (query-kind.ts), which gates expansion and the vector blend. */
  readonly kind: QueryKind;
  /** The expansion terms searched, when the query was expanded. */
  readonly expansion?: Omit<ExpansionTrace, 'added'> | undefined;
  /** The FTS5 expression whose bm25() scored the candidates ('' when none ran). */
  readonly expression?: string | undefined;
  /** The FTS5 expression of every kept group OR'ed (the plan's widest level): what scores a chunk another list found. */
  readonly anyExpression?: string | undefined;
  /** The file evidence of a long text, when it ran (the file ranker, file-rank.ts, reads it). */
  readonly fileEvidence?: FileEvidenceOutcome | undefined;
}

/** The query's kept words, the names it mentions, and whether it asks for tests or docs. */
export interface QueryTraits {
  readonly words: readonly string[];
  readonly names: ReadonlySet<string>;
  readonly wantsTests: boolean;
  readonly wantsDocs: boolean;
}

type Scored = FtsCandidate & { readonly score: number; readonly why?: readonly string[] | undefined; readonly ranker?: RankerTrace | undefined };

/** Candidates fetched when file evidence (fileScore, mentionBoost) is on: enough files for it to re-order. */
export const FILE_EVIDENCE_POOL = 100;
/**
 * File evidence (fileScore, mentionBoost) applies to texts of at least this many distinct terms:
 * an issue body (tuning texts: median 31–48) rather than a commit message with a short body
 * (median 17), on which it lowered MRR (docs/DESIGN.md "Long texts: files first").
 */
export const FILE_EVIDENCE_MIN_TERMS = 20;

/** BM25 over the code-aware FTS fields, then overlap dedupe, optional file aggregation, snippets. */
export function lexicalSearch(store: IndexStore, params: LexicalParams): LexicalOutcome {
  const lt = params.ranking.longTerms;
  // with `longTerms.frames`, a library's stack frame is left out and the project's written with the index's path (traceback.ts)
  const frames = lt.frames ? (f: Frame): FrameFate => frameFate(f, (p) => store.read(() => store.files.info(p)) !== undefined) : undefined;
  const defined = lt.fences || lt.codeDefined ? (name: string): boolean => store.read(() => store.structure.byName(name, undefined, 1)).length > 0 : undefined;
  const parsed = parseQuery(params.query, { weighLong: params.ranking.queryWeights, longTerms: lt, frames, defined, hyphenJoined: params.ranking.hyphenJoined });
  const filter = compileFilters(params.filters);
  const words = [...new Set(parsed.groups.flatMap((g) => g.alternatives.flat()))];
  const stats = store.read(() => store.search.termStats(words));
  const dfByWord = new Map<string, number>();
  for (const s of stats) {
    const w = words[s.index]!;
    dfByWord.set(w, Math.min(dfByWord.get(w) ?? Infinity, s.df));
  }
  const total = Number(store.read(() => store.meta.get('chunk_count')) ?? 0);
  const selectParams = selectParamsFor(parsed.long, lt);
  const selection = selectGroups(parsed.groups, (w) => dfByWord.get(w) ?? 0, total, selectParams);
  const terms = selection.kept.map((g) => g.raw);
  const kind = classifyQuery(params.query, parsed);
  const expand = params.expansion && kind === 'natural' ? params.expansion : undefined;
  // with expansion, a question none of whose words the index holds may still find code by its associated tokens
  if (selection.kept.length === 0 && !expand) return { results: [], terms, dropped: [...selection.dropped], long: parsed.long, plan: 'any', texts: new Map(), chunkIds: [], marks: new Set(), rows: [], kind };

  const weights = fieldWeights(params.weights);
  // the per-file steps of this query's kind (search.ranking.byKind)
  const r = rankingForKind(params.ranking, kind);
  // file evidence needs many terms: a text of fewer (a commit subject and a line) is ranked without it
  const fileEvidenceOn = (r.fileScore > 0 || r.mentionBoost > 0) && parsed.groups.filter((g) => g.kind !== 'joined').length >= FILE_EVIDENCE_MIN_TERMS;
  // file evidence re-orders files: it needs more of them among the candidates than the list shows
  const fetch = Math.max(params.files ? Math.max(params.limit * 10, 100) : Math.max(params.limit * 4, 40), fileEvidenceOn ? FILE_EVIDENCE_POOL : 0);
  // planning needs the cost of matching a group: a phrase walks the position lists of all its
  // words, so its cost is its most frequent word, not its rarest
  const cost = (g: (typeof selection.kept)[number]): number => g.alternatives.reduce((n, alt) => n + Math.max(...alt.map((w) => dfByWord.get(w) ?? 0)), 0);
  // and a group matches at most as many chunks as its alternatives' rarest words (a bound that lets the plan skip a level)
  const matches = (g: (typeof selection.kept)[number]): number => g.alternatives.reduce((n, alt) => n + Math.min(...alt.map((w) => dfByWord.get(w) ?? Infinity)), 0);
  const levels = selection.kept.length === 0 ? [] : planQuery(selection.kept.map((group) => ({ group, df: cost(group), matches: matches(group) })));
  const run = runPlan(levels, fetch, {
    score: (e) => store.read(() => store.search.search(e, weights, fetch, filter)),
    count: (e, upTo) => store.read(() => store.search.countUpTo(e, upTo)),
  });
  let candidates: FtsCandidate[] = run.candidates;
  const plan: PlanLevel['mode'] = run.level?.mode ?? 'any';
  const expression = run.level?.expression ?? '';
  let expansion: ExpansionTrace | undefined;
  if (expand) {
    const mainCost = selection.kept.reduce((n, g) => n + cost(g), 0);
    const maxDfRatio = selectParams.maxDfRatio;
    ({ candidates, trace: expansion } = expandCandidates(store, { groups: parsed.groups, kept: selection.kept, mainCost, mainExpression: expression, candidates, weights, fetch, filter, totalChunks: total, maxDfRatio }, expand));
  }
  const keptWords = selection.kept.flatMap((g) => g.alternatives.flat());
  const priors = { longQuery: parsed.long, wantsTests: queryWantsTests(keptWords), wantsDocs: queryWantsDocs(keptWords, params.query, parsed.long), nonCode: r.nonCode, nonDefinition: r.nonDefinition };
  let evidence: FileEvidenceOutcome | undefined;
  if (fileEvidenceOn) {
        // `longTerms.fileWeights` false: file scoring counts every kept group once (the chunk expression keeps the weights)
    const fileKept = lt.fileWeights ? selection.kept : selection.kept.map((g) => ({ ...g, weight: 1 }));
    evidence = gatherFileEvidence(store, { text: parsed.long ? longText(params.query, frames) : params.query, kept: fileKept, keptDf: selection.keptDf, expression, weights, candidates, filter, priors }, r);
    candidates = evidence.candidates;
  }
  const names = new Set(selection.kept.filter((g) => g.kind === 'identifier' || g.kind === 'word').map((g) => g.alternatives[0]!.join('')));
  const structure = { names, definitionBoost: r.definitionBoost, testToSource: r.testToSource };
  // files mode aggregates support itself (aggregateFiles); chunk mode gets it per chunk
  const recency = { weight: params.nowMs === undefined ? 0 : r.recency, halfLifeDays: r.recencyHalfLifeDays, nowMs: params.nowMs ?? 0 };
  const prior = applyRecency(applyStructure(applyPriors(candidates.map((c) => ({ ...c, score: scoreFromBm25(c.bm25) })), priors), structure), recency);
  const structured = evidence ? applyFileEvidence(prior, { fileScores: evidence.fileScores, share: r.fileScore, mentions: evidence.mentions, boost: r.mentionBoost }) : prior;
  const ranked = params.files ? structured : blendFileScore(addFileSupport(structured, r.fileSupport), r.fileBlend);
  // the per-file decay and cap shape a list of chunks; files mode scores each file from its undecayed chunks
  const deduped = dedupeOverlaps(ranked);
  const decayed = params.files ? deduped : decayPerFile(deduped, r.fileDecay);
  // the learned file ranker (file-rank.ts) orders the files of a long text's pool, lexically here (no model)
  const ranker = params.fileRanker && r.fileRanker && !params.files ? fileRankContext(params.query, { query: { words: keptWords, wantsTests: priors.wantsTests }, fileEvidence: evidence }) : undefined;
  const filed = ranker ? rankFilesOfPool(decayed, ranker, params.fileRanker, params.explain ?? false) : decayed;
  // companions (companions.ts): once the files are ordered, files tied to the first ones gain; long texts with file evidence, chunk lists only
  const ordered = evidence && !params.files ? companionStep(store, filed, r) : filed;
  const scored: Scored[] = params.files ? deduped : capPerFile(ordered, r.fileCap, r.fileCapWithin, r.fileCapSpread);
  const picked: Array<{ hit: Scored; score: number; matches?: number }> = params.files
    ? aggregateFiles(scored).slice(0, params.limit).map((f) => ({ hit: f.best, score: f.score, matches: f.chunks }))
    : scored.slice(0, params.limit).map((hit) => ({ hit, score: hit.score }));

  const marks = highlightTerms(keptWords);
  const texts = new Map<string, string>();
  const rows = picked.map(({ hit, score, matches }) => ({ ...hit, score, matches }));
  const query: QueryTraits = { words: keptWords, names, wantsTests: priors.wantsTests, wantsDocs: priors.wantsDocs };
  const expanded = expansion ? { weight: expansion.weight, terms: expansion.terms } : undefined;
  const common = { terms, dropped: [...selection.dropped], long: parsed.long, plan, texts, chunkIds: picked.map((p) => p.hit.chunkId), marks, rows, query, kind, expansion: expanded, expression, anyExpression: selection.kept.length > 0 ? buildFtsExpression(selection.kept) : '', fileEvidence: evidence };
  if (params.rankOnly) return { results: [], ...common };
  const docShare = params.explain ? docShares(store, expression, weights, picked.map((p) => p.hit)) : new Map<number, number>();
  const kindWhy = params.explain ? kindRankingWhy(params.ranking, kind) : undefined;
  const results = picked.map(({ hit, score, matches }): SearchResult =>
    toSearchResult(store, hit, score, marks, params.snippetLines, texts, {
      ...(matches !== undefined ? { matches } : {}),
      ...(params.explain && hit.ranker ? { ranker: hit.ranker } : {}),
      ...(params.explain ? { why: [`bm25 ${displayScore(scoreFromBm25(hit.bm25))}`, ...docWhy(docShare.get(hit.chunkId), weights[DOC_COLUMN]!), ...expansionWhy(expansion, hit.chunkId), ...(kindWhy !== undefined ? [kindWhy] : []), ...(hit.why ?? []), ...(matches !== undefined && score !== hit.score ? [`file: best + ${FILE_SUPPORT_WEIGHT} × next two = ${displayScore(score)}`] : [])] } : {}),
    }),
  );
  return { results, ...common };
}

/** A long text as file evidence reads it: the noise out, and the frames' fates applied. */
function longText(query: string, frames: ((f: Frame) => FrameFate) | undefined): string {
  const text = stripNoise(query);
  return frames ? applyFrameFates(text, frames) : text;
}

/** `search.weights` in FTS column order, as bm25() takes them. */
export function fieldWeights(w: FieldWeights): number[] {
  return [w.stem, w.path, w.symbol, w.signature, w.body, w.parts, w.doc];
}

/** The FTS column of comments and docstrings (`doc`, schema 10): the last of `fieldWeights`. */
const DOC_COLUMN = 6;

/** The `--explain` line of each hit whose comments and docstrings matched: what the `doc` field adds to its BM25 score. */
export function docWhyLines(store: IndexStore, expression: string | undefined, w: FieldWeights, hits: readonly FtsCandidate[]): Map<number, string[]> {
  const weights = fieldWeights(w);
  const shares = docShares(store, expression ?? '', weights, hits);
  return new Map([...shares].map(([id, share]) => [id, docWhy(share, weights[DOC_COLUMN]!)]));
}

/**
 * How much of each hit's BM25 score its comments and docstrings give (the `doc` field): its score
 * minus the score it would have with the field's weight 0 (BM25 saturates, so the shares of the
 * fields do not add up; this is what the field adds to the rest). Only chunks with doc text matched.
 */
function docShares(store: IndexStore, expression: string, weights: readonly number[], hits: readonly FtsCandidate[]): Map<number, number> {
  if (!expression || !weights[DOC_COLUMN]) return new Map();
  const without = weights.map((w, i) => (i === DOC_COLUMN ? 0 : w));
  const ids = hits.map((h) => h.chunkId);
  const rest = store.read(() => store.search.scoreIds(expression, without, ids));
  const full = store.read(() => store.search.scoreIds(expression, weights, ids));
  const out = new Map<number, number>();
  for (const id of ids) {
    const a = full.get(id);
    const b = rest.get(id);
    if (a !== undefined && b !== undefined && a !== b) out.set(id, scoreFromBm25(a) - scoreFromBm25(b));
  }
  return out;
}

/** The `--explain` line of a result's doc-field share. */
function docWhy(share: number | undefined, weight: number): string[] {
  return share === undefined ? [] : [`of which doc (comments, docstrings × ${weight}) ${displayScore(share)}`];
}

/** The `--explain` line of a result's expansion share. */
function expansionWhy(expansion: ExpansionTrace | undefined, chunkId: number): string[] {
  const added = expansion?.added.get(chunkId);
  if (!expansion || added === undefined) return [];
  return [`of which expansion ${displayScore(added)} (${expansion.terms.map((t) => `${t.from}→${t.term}`).join(', ')} × ${expansion.weight})`];
}

function citation(hit: FtsCandidate): { cite?: string } {
  const cite = pdfCitation(hit.path, hit.language, hit.container, hit.symbol);
  return cite !== undefined ? { cite } : {};
}

/** A candidate as a result: its text read once (kept in `texts` by chunk hash), a snippet around the marked terms. */
export function toSearchResult(
  store: IndexStore,
  hit: FtsCandidate,
  score: number,
  marks: ReadonlySet<string>,
  snippetLines: number,
  texts: Map<string, string>,
  extra: Partial<Pick<SearchResult, 'matches' | 'why' | 'fusion' | 'ranker'>> = {},
): SearchResult {
  const text = texts.get(hit.chunkHash) ?? store.read(() => store.content.slice(hit.fileHash, hit.startByte, hit.endByte)) ?? '';
  texts.set(hit.chunkHash, text);
  const snippet = makeSnippet(text, hit.startLine, marks, snippetLines);
  return {
    path: hit.path,
    startLine: hit.startLine,
    endLine: hit.endLine,
    score: displayScore(score),
    language: hit.language,
    contentType: hit.contentType,
    kind: hit.kind,
    symbol: hit.symbol,
    container: hit.container,
    signature: hit.signature,
    snippet: snippet.text,
    snippetLine: snippet.startLine,
    chunkHash: hit.chunkHash,
    ...citation(hit),
    ...extra,
  };
}
