/**
 * The engine's semantic layer (issue 8): the configured embedding provider, created on first use;
 * the embedding pass after each lexical pass (and in slices while a watcher is idle); the choice of
 * search mode with the reason stated; query embedding under a time limit. Nothing here ever makes
 * a search fail: without a provider, without vectors, or with a provider that is down, search
 * answers lexically and `meta.semantic` says why.
 */
import type { ResolvedConfig } from '../config/resolve.js';
import { EngineError, isEngineError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import { createEmbeddingProvider } from '../embed/create-provider.js';
import { readVectorFileHeader, vectorFilePath } from '../embed/vector-file.js';
import { fingerprintKey, type EmbeddingProvider, type ModelFingerprint } from '../embed/provider.js';
import { readEmbedState, runEmbedPass, vectorCoverage, type EmbedProgress, type EmbedReport, type EmbedState } from '../indexer/embed-pass.js';
import type { SearchMode } from '../search/search-result.js';
import { hybridSearch, vectorTexts } from '../search/hybrid-search.js';
import type { ExpansionTable } from '../search/expansion.js';
import { BLEND_DIVERSITY, blendWeights, type RankerModel } from '../search/learned-rank.js';
import { filePriorSearch } from '../search/file-prior-search.js';
import { learnedSearch } from '../search/learned-search.js';
import { lexicalSearch, type LexicalOutcome, type LexicalParams } from '../search/lexical-search.js';
import { kindDiversity, rankingForKind } from '../search/kind-ranking.js';
import { classifyQuery, QUERY_KINDS, type QueryKind } from '../search/query-kind.js';
import { isLongQuery } from '../search/query-parse.js';
import { queryPieces } from '../search/query-pieces.js';
import { parseSubQueries } from '../search/sub-queries.js';
import { VectorIndexCache, type VectorLoadSource, type VectorSnapshot } from '../search/vector-search.js';
import type { IndexStore } from '../store/index-store.js';
import { VECTORS_STAMP_KEY } from '../store/meta-repo.js';
import { loadExpansionTable } from './expansion-model.js';
import { loadFileRankModel, loadRankerModel } from './ranker-model.js';
import type { FileRankModel } from '../search/file-rank.js';
import { SEMANTIC_UNAVAILABLE, type SemanticStatus } from './status.js';

/**
 * The blend weight for this query's kind (`search.fusion.blendByKind`; unlisted: `blend` for
 * natural-language queries, 0 for the others; typed queries count as natural): `on` when some kind blends, `weight` this kind's
 * (0: ranked lexically), `kinds` the kinds that blend, `largest` the largest weight of any kind.
 */
function blendGate(fusion: ResolvedConfig['search']['fusion'], query: string): { on: boolean; kind: QueryKind; weight: number; kinds: string; largest: number; prior: number } {
  // typed lines (`vec:`, `hyde:`) ask for the vector list in so many words: blended as natural language
  const kind: QueryKind = parseSubQueries(query).typed ? 'natural' : classifyQuery(query, { long: isLongQuery(query) });
  const weightOf = (k: QueryKind): number => fusion.blendByKind[k] ?? (k === 'natural' ? fusion.blend : 0);
  const blending = QUERY_KINDS.filter((k) => weightOf(k) > 0);
  return { on: blending.length > 0, kind, weight: weightOf(kind), kinds: blending.join(', '), largest: Math.max(0, ...QUERY_KINDS.map(weightOf)), prior: fusion.filePrior[kind] ?? 0 };
}

/** One slice of background embedding while a watcher is idle. */
const IDLE_SLICE_MS = 2000;

export interface ModePlan {
  readonly mode: SearchMode;
  readonly snapshot?: VectorSnapshot | undefined;
  /** What semantic search does, or why it is not used. */
  readonly reason: string;
}

/** What `prepare` hands to `rank`: the query vectors, or the reason the search is lexical. */
export interface PreparedQuery {
  readonly requested: 'auto' | SearchMode;
  /** One per `vectorTexts(query)`; absent when the search is lexical. */
  readonly vectors?: readonly Float32Array[];
  readonly embedMs?: number;
  /** Why the search is lexical (asked for, no vectors, provider down). */
  readonly lexical?: string;
}

const isSemanticFailure = (err: unknown): boolean =>
  isEngineError(err) && (err.code === 'EMBEDDING_UNAVAILABLE' || err.code === 'EMBEDDING_FAILED' || err.code === 'MODEL_NOT_FOUND' || err.code === 'MODEL_INVALID' || err.code === 'CONFIG_INVALID');

/** A pass that changed at least this share of the index's files rewrites the vector snapshot; a smaller one leaves it to the next reader. */
export const SNAPSHOT_REWRITE_SHARE = 0.01;

export class SemanticLayer {
  private created = false;
  private provider: EmbeddingProvider | undefined;
  private readonly vectors = new VectorIndexCache();
  private ranker: RankerModel | undefined;
  private fileRanker: FileRankModel | undefined;
  private expansion: ExpansionTable | undefined;

  constructor(
    private readonly config: ResolvedConfig,
    private readonly logger: Logger,
    private readonly now: () => number,
  ) {}

  get configured(): boolean {
    return this.config.embed.provider !== 'none';
  }

  /** The provider, created once; undefined for `none`. */
  private get(): EmbeddingProvider | undefined {
    if (!this.created) {
      this.created = true;
      this.provider = createEmbeddingProvider(this.config.embed, { modelsDir: this.config.models.dir, apiKey: this.config.embedApiKey() });
    }
    return this.provider;
  }

  /** Embeds what is pending, to the end (`scry embed`, and after a pass). Throws the provider's errors. */
  async embed(store: IndexStore, options: { signal?: AbortSignal | undefined; onProgress?: ((p: EmbedProgress) => void) | undefined; budgetMs?: number | undefined } = {}): Promise<EmbedReport> {
    const provider = this.get();
    if (!provider) throw new EngineError('INVALID_ARGUMENT', { name: 'embed.provider', reason: 'no embedding provider is configured (set embed.provider, or pass --provider)' });
    const { batchSize, maxChars, storage } = this.config.embed;
    return runEmbedPass({ store, provider, batchSize, maxChars, storage, logger: this.logger, now: this.now, ...options });
  }

  /** After a lexical pass: embeds, but a provider failure only becomes a warning (lexical search is ready). */
  async embedAfterPass(store: IndexStore, options: { signal?: AbortSignal | undefined; onProgress?: ((p: EmbedProgress) => void) | undefined; budgetMs?: number | undefined }): Promise<EmbedReport | { readonly error: { readonly code: string; readonly message: string } } | undefined> {
    if (!this.configured) return undefined;
    try {
      return await this.embed(store, options);
    } catch (err) {
      if (!isSemanticFailure(err)) throw err;
      const e = err as EngineError;
      this.logger.warn(`embedding stopped: ${e.message}`, { code: e.code });
      return { error: { code: e.code, message: e.message } };
    }
  }

  /**
   * After an embedding pass: brings the vector snapshot beside the database (`<db>.vec`) up to the
   * index's state, so the next process that blends reads it whole instead of every vector from
   * SQLite. A throwaway cache: it reads the old snapshot, applies what changed, writes the new one.
   * An index never stamped yet (written before vector snapshots) is stamped first. A pass that
   * wrote or removed fewer than `SNAPSHOT_REWRITE_SHARE` of the index's files (`changedFiles`)
   * leaves a snapshot of this model stale (`deferred`): bringing it up to date checks every
   * chunk's id and hash (~0.6 s of CPU on 195K chunks), which a one-file edit must not pay; the
   * next process that blends applies the delta and rewrites it (a long-running one after answering).
   */
  persistVectors(store: IndexStore, changedFiles = Number.POSITIVE_INFINITY): VectorLoadSource | 'current' | 'deferred' | undefined {
    const { model } = readEmbedState(store);
    if (!model) return undefined;
    const key = fingerprintKey(model);
    const stamp = store.read(() => store.meta.get(VECTORS_STAMP_KEY)) ?? store.transaction(() => store.meta.bumpVectorsStamp());
    // a pass that changed nothing: the file's header already names this state (a search checks the rest)
    const header = readVectorFileHeader(vectorFilePath(store.path));
    if (header?.model === key && header.stamp === stamp) return 'current';
    if (header?.model === key && changedFiles < SNAPSHOT_REWRITE_SHARE * store.read(() => store.files.count())) return 'deferred';
    let source: VectorLoadSource | undefined;
    new VectorIndexCache({ onLoad: (e) => (source = e.source) }).sync(store, key);
    return source;
  }

  /** One idle slice for a watcher: true when more is pending. */
  async idleSlice(store: IndexStore, signal: AbortSignal): Promise<boolean> {
    const report = await this.embedAfterPass(store, { signal, budgetMs: IDLE_SLICE_MS });
    return report !== undefined && !('error' in report) && report.pending > 0;
  }

  /**
   * The mode a search runs in, with its vectors, and the sentence saying why. `counted` false
   * leaves the chunk count out of a vector mode's sentence (`prepare` needs only the mode; the
   * count scans the chunks table).
   */
  plan(store: IndexStore, requested: 'auto' | SearchMode, counted = true): ModePlan {
    if (requested === 'lexical') return { mode: 'lexical', reason: 'lexical: asked for' };
    if (!this.configured) return { mode: 'lexical', reason: SEMANTIC_UNAVAILABLE };
    let provider: EmbeddingProvider | undefined;
    try {
      provider = this.get();
    } catch (err) {
      return { mode: 'lexical', reason: `lexical only: ${(err as Error).message}` };
    }
    const { model } = readEmbedState(store);
    if (!provider || !model || model.provider !== provider.name || model.model !== provider.model) {
      return { mode: 'lexical', reason: `lexical only: no vectors yet for ${provider?.name}:${provider?.model} (run \`scry embed\`)` };
    }
    const snapshot = this.vectors.sync(store, fingerprintKey(model));
    if (!snapshot) return { mode: 'lexical', reason: `lexical only: no vectors yet for ${provider.name}:${provider.model} (run \`scry embed\`)` };
    const mode: SearchMode = requested === 'auto' ? 'hybrid' : requested;
    if (!counted) return { mode, snapshot, reason: `${mode}: ${provider.name}:${provider.model}` };
    const chunks = store.read(() => store.search.chunkCount());
    const coverage = snapshot.size >= chunks ? `${snapshot.size} chunks` : `${snapshot.size} of ${chunks} chunks (embedding in progress)`;
    return { mode, snapshot, reason: `${mode}: ${provider.name}:${provider.model}, ${coverage}` };
  }

  /**
   * The first half of a search, before its snapshot: the mode `plan` allows now and, for vector
   * or hybrid, the query vectors (the one await of a search, kept out of its read transaction).
   * A provider failure becomes the reason the search answers lexically.
   */
  async prepare(store: IndexStore, query: string, requested: 'auto' | SearchMode, signal?: AbortSignal): Promise<PreparedQuery> {
    if (!['auto', 'lexical', 'vector', 'hybrid'].includes(requested)) throw new EngineError('INVALID_ARGUMENT', { name: 'mode', reason: 'must be auto, lexical, vector or hybrid' });
    // a kind the gate ranks lexically needs no query vector: neither the model nor the vectors are loaded for it
    const gated = this.configured ? this.gatedReason(query, requested) : undefined;
    if (gated !== undefined) return { requested, lexical: gated };
    const plan = this.plan(store, requested, false);
    if (plan.mode === 'lexical') return { requested, lexical: plan.reason };
    const t0 = performance.now();
    try {
      const texts = this.queryTexts(query);
      const vectors = texts.length > 0 ? await this.embedQueries(texts, signal) : [];
      const stale = await this.staleVectors(store, signal);
      if (stale !== undefined) return { requested, lexical: stale };
      return { requested, vectors, embedMs: Math.round((performance.now() - t0) * 100) / 100 };
    } catch (err) {
      if (!SemanticLayer.fallsBack(err)) throw err;
      return { requested, lexical: `lexical only: ${(err as Error).message}` };
    }
  }

  /**
   * Why the index's vectors cannot be compared with this model's query vectors, or undefined when
   * they can: `plan` matched the provider and model names only, but new weights under the same name
   * (an upgraded built-in model, `ollama pull`, another local ONNX file) make vectors of another
   * space. The fingerprint is known once the query is embedded (the remote ones cache it).
   */
  private async staleVectors(store: IndexStore, signal?: AbortSignal): Promise<string | undefined> {
    const stored = readEmbedState(store).model;
    const current = await this.get()!.fingerprint({ signal });
    if (!stored || fingerprintKey(stored) === fingerprintKey(current)) return undefined;
    return `lexical only: the index's vectors were made by ${fingerprintKey(stored)}, the model is now ${fingerprintKey(current)} (run \`scry embed\`)`;
  }

  /**
   * Lexical, vector or hybrid ranking, synchronous: called inside the search's snapshot, it plans
   * again on what that snapshot holds (and brings the vector cache to it), then ranks with the
   * vectors `prepare` made. Vectors that appeared since `prepare` wait for the next search.
   */
  rank(store: IndexStore, lexicalParams: LexicalParams, prepared: PreparedQuery): { outcome: LexicalOutcome; plan: ModePlan; embedMs?: number } {
    const weight = lexicalParams.ranking.expansion;
    // the table is read once, on the first search; only natural-language queries are expanded
    const params: LexicalParams = weight > 0 ? { ...lexicalParams, expansion: { table: (this.expansion ??= loadExpansionTable()), weight } } : lexicalParams;
    const plan: ModePlan = prepared.vectors ? this.plan(store, prepared.requested) : { mode: 'lexical', reason: prepared.lexical ?? SEMANTIC_UNAVAILABLE };
    const gate = blendGate(this.config.search.fusion, params.query);
    // a query of `vec:`/`hyde:` lines only has no lexical part to blend with: rank fusion takes it
    const lexicalText = this.lexicalQuery(params.query);
    const vectorOnly = lexicalText.trim() === '' && params.query.trim() !== '';
    // the learned ranker, for every query or for the kinds search.ranking.byKind turns it on for
    if (rankingForKind(params.ranking, gate.kind).learned && plan.mode !== 'vector' && !vectorOnly) {
      // score-level hybrid: one linear model over lexical and vector features (learned-search.ts)
      const model = (this.ranker ??= loadRankerModel());
      const hybrid = plan.mode === 'hybrid' && plan.snapshot && prepared.vectors;
      const vectors = hybrid ? { snapshot: plan.snapshot!, queryVectors: prepared.vectors!, depth: Math.max(this.config.search.fusion.depth, params.limit) } : undefined;
      const name = vectors ? 'hybrid' : 'lexical';
      const outcome = learnedSearch(store, { ...params, query: lexicalText, model: { weights: model[name], diversity: model.diversity, name }, vectors });
      return { outcome, plan: vectors ? plan : { mode: 'lexical', reason: plan.reason }, ...(prepared.vectors ? { embedMs: prepared.embedMs } : {}) };
    }
    // a kind with a file prior and no blend of its own (auto mode): lexical ranking, files reordered by the model (file-prior-search.ts)
    if (gate.prior > 0 && gate.weight === 0 && prepared.requested === 'auto' && !vectorOnly && plan.mode === 'hybrid' && plan.snapshot && prepared.vectors) {
      const f = this.config.search.fusion;
      const prior = { weight: gate.prior, pool: f.filePriorPool, recall: f.filePriorRecall, recallAt: f.filePriorRecallAt, top: f.filePriorTop, pieces: f.filePriorPieces === 'mean' ? ('mean' as const) : ('max' as const) };
      const outcome = filePriorSearch(store, { ...params, query: lexicalText, prior, vectors: { snapshot: plan.snapshot, queryVectors: prepared.vectors }, fileRanker: this.fileRankerFor(params.ranking, gate.kind) });
      return { outcome, plan, embedMs: prepared.embedMs };
    }
    // an explicit hybrid request of a gated kind is blended at the largest configured weight
    const blend = gate.weight > 0 ? gate.weight : gate.largest;
    if (blend > 0 && !vectorOnly && plan.mode === 'hybrid' && plan.snapshot && prepared.vectors) {
      // score-level blend: lexical + blend × cosine over both lists' candidates (learned-search.ts)
      const vectors = { snapshot: plan.snapshot, queryVectors: prepared.vectors, depth: Math.max(this.config.search.fusion.depth, params.limit), cosineForAll: true };
      // the blend keeps every chunk, unless the kind sets its own per-file steps (search.ranking.byKind)
      const model = { weights: blendWeights(blend, this.config.search.fusion.blendNames), diversity: kindDiversity(params.ranking, gate.kind) ?? BLEND_DIVERSITY, name: 'blend' };
      const nameDepth = this.config.search.fusion.blendNames > 0 ? this.config.search.fusion.blendNameDepth : 0;
      const { blendFileDepth: fileDepth, blendFileExpression: fileExpression } = this.config.search.fusion;
      const outcome = learnedSearch(store, { ...params, query: lexicalText, model, vectors, nameDepth, fileDepth, fileExpression });
      return { outcome, plan, embedMs: prepared.embedMs };
    }
    if (plan.mode !== 'lexical' && plan.snapshot && prepared.vectors) {
      const f = this.config.search.fusion;
      const fusion = { k: f.k, weights: { lexical: f.lexical, vector: f.vector, symbol: f.symbol }, depth: Math.max(f.depth, params.limit), fileCap: f.fileCap };
      const outcome = hybridSearch(store, { ...params, mode: plan.mode, fusion, vectors: plan.snapshot, queryVectors: prepared.vectors });
      return { outcome, plan, embedMs: prepared.embedMs };
    }
    return { outcome: lexicalSearch(store, { ...params, query: lexicalText, fileRanker: this.fileRankerFor(params.ranking, gate.kind) }), plan, ...(prepared.vectors ? { embedMs: prepared.embedMs } : {}) };
  }

  /** The file ranker's weights when the kind turns it on (`search.ranking.fileRanker`), read once. */
  private fileRankerFor(ranking: LexicalParams['ranking'], kind: QueryKind): FileRankModel | undefined {
    return rankingForKind(ranking, kind).fileRanker ? (this.fileRanker ??= loadFileRankModel()) : undefined;
  }

  /** Why this query is ranked lexically by the query-kind gate (auto mode, rule-based ranking), or undefined when it is blended. */
  private gatedReason(query: string, requested: 'auto' | SearchMode): string | undefined {
    const gate = blendGate(this.config.search.fusion, query);
    if (requested !== 'auto' || rankingForKind(this.config.search.ranking, gate.kind).learned) return undefined;
    return gate.on && gate.weight === 0 && gate.prior === 0 ? `lexical: ${gate.kind} query (the vector blend is for ${gate.kinds} queries)` : undefined;
  }

  /** The texts a search embeds: `vectorTexts`, then, for a kind with a file prior over pieces, the query's pieces (query-pieces.ts). */
  private queryTexts(query: string): string[] {
    const f = this.config.search.fusion;
    const gate = blendGate(f, query);
    const pieces = gate.prior > 0 && gate.weight === 0 && f.filePriorPieces !== 'none' && !parseSubQueries(query).typed ? queryPieces(query) : [];
    return [...vectorTexts(query), ...pieces];
  }

  /** Typed lines: the lexical list gets the plain and lex: lines only. */
  private lexicalQuery(query: string): string {
    const subs = parseSubQueries(query);
    return subs.typed ? [subs.plain, ...subs.lex].filter((t) => t.trim() !== '').join('\n') : query;
  }

  /** Query vectors within `embed.queryTimeoutMs`. */
  async embedQueries(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const provider = this.get();
    if (!provider) throw new EngineError('EMBEDDING_UNAVAILABLE', { provider: 'none', reason: 'no provider is configured' });
    const timeout = AbortSignal.timeout(this.config.embed.queryTimeoutMs);
    const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
    try {
      return await provider.embed(texts, { signal: combined, purpose: 'query' });
    } catch (err) {
      if (timeout.aborted && !signal?.aborted) throw new EngineError('EMBEDDING_UNAVAILABLE', { provider: provider.name, reason: `no query vector within ${this.config.embed.queryTimeoutMs} ms` });
      throw err;
    }
  }

  /** True when `err` is a provider failure that search answers lexically instead of throwing. */
  static fallsBack(err: unknown): boolean {
    return isSemanticFailure(err);
  }

  status(store: IndexStore | undefined): SemanticStatus {
    const e = this.config.embed;
    const model = e.provider === 'ollama' ? e.ollama.model : e.provider === 'openai' ? (e.openai?.model ?? null) : e.provider === 'onnx' ? (e.onnx?.model ?? e.onnx?.modelDir ?? null) : e.provider === 'use-lite' ? 'universal-sentence-encoder-lite' : e.provider === 'builtin' ? 'scry-code-nbow' : null;
    const saved: { model: ModelFingerprint | undefined; state: EmbedState | undefined } = store ? readEmbedState(store) : { model: undefined, state: undefined };
    const chunks = store ? store.read(() => store.chunks.count()) : 0;
    const covered = store && saved.model ? vectorCoverage(store, fingerprintKey(saved.model)) : 0;
    const reason = !this.configured ? SEMANTIC_UNAVAILABLE : covered === 0 ? 'lexical only: no vectors yet (run `scry embed`)' : `hybrid: ${covered} of ${chunks} chunks have vectors`;
    return { provider: e.provider, model, vectorsModel: saved.model ?? null, covered, chunks, pending: Math.max(0, chunks - covered), lastError: saved.state?.error ?? null, reason };
  }

  async close(): Promise<void> {
    await this.provider?.close().catch(() => undefined);
    this.provider = undefined;
    this.created = false;
  }
}
