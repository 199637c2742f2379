import { existsSync, rmSync, statSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { EngineError } from '../core/errors.js';
import { silentLogger, systemClock, type Clock, type Logger } from '../core/logger.js';
import { resolveConfig, type ResolvedConfig } from '../config/resolve.js';
import type { DryRunReport } from '../indexer/dry-run.js';
import { INDEX_FEATURE_VERSION } from '../indexer/feature-version.js';
import type { IndexReport } from '../indexer/index-report.js';
import type { ProgressListener } from '../indexer/progress.js';
import { lexicalSearch } from '../search/lexical-search.js';
import { MAX_QUERY_BYTES } from '../search/query-parse.js';
import { outlineFile, type FileOutline } from '../search/outline.js';
import { findReferences, type ReferencesResult } from '../search/references.js';
import { createTextScanCache, searchText, type TextSearchOptions, type TextSearchResult } from '../search/text-search.js';
import { searchSymbols, validateKinds, type NameCache, type SymbolHit } from '../search/symbol-search.js';
import type { RerankMeta, SearchResponse, SearchResult } from '../search/search-result.js';
import type { Reranker } from '../rerank/reranker.js';
import { IndexStore } from '../store/index-store.js';
import { formatSymbolId, parseSymbolId, resolveSymbolId } from '../search/symbol-id.js';
import { pathMatcher } from '../search/filters.js';
import { readFileSlice, type FileSlice, type ReadFileOptions } from '../workspace/files.js';
import { commitChange, confirmationRequired, prepareChange, type AppliedChange, type ChangeRequest, type ProposedChange } from '../workspace/change.js';
import { ConfirmationTokens } from '../workspace/confirmation.js';
import type { WalkOptions } from '../discover/walk.js';
import { WriterLock, type LockOwner } from '../store/writer-lock.js';
import { EMPTY_STRUCTURE, SEMANTIC_UNAVAILABLE, type StatusReport } from './status.js';
import type {
  ApplyChangeOptions, Engine, EngineOptions, FileListing, IndexOptions, ListFilesOptions, MintTokenOptions,
  ReferenceOptions, SearchOptions, SimilarOptions, SymbolDefinition, SymbolOptions,
} from './engine-api.js';

export type {
  ApplyChangeOptions, Engine, EngineOptions, FileListing, IndexOptions, ListFilesOptions, MintTokenOptions,
  ReferenceOptions, SearchOptions, SimilarOptions, SymbolDefinition, SymbolOptions,
} from './engine-api.js';

function rootFromDb(dbPath: string): string {
  const store = IndexStore.open(dbPath, { create: false });
  try {
    const root = store.meta.get('root');
    if (!root) throw new EngineError('INDEX_NOT_FOUND', { db: dbPath }, { hint: 'the database has no completed index pass; run `scry index DIR --db PATH`' });
    return root;
  } finally {
    store.close();
  }
}

/** The composition root: resolves config, then opens the store lazily on first use. */
export async function createEngine(options: EngineOptions): Promise<Engine> {
  const base = { db: options.db, overrides: options.config, env: options.env };
  let config = await resolveConfig({ ...base, root: options.root });
  if (config.root === undefined) config = await resolveConfig({ ...base, root: rootFromDb(config.dbPath) });
  return new EngineImpl(config, options.logger ?? silentLogger, options.clock ?? systemClock);
}

class EngineImpl implements Engine {
  private store: IndexStore | undefined;
  private reranker: Promise<Reranker | undefined> | undefined;
  private closed = false;
  private readonly lock: WriterLock;

  constructor(
    readonly config: ResolvedConfig,
    private readonly logger: Logger,
    private readonly clock: Clock,
  ) {
    this.lock = new WriterLock(`${config.dbPath}.lock`);
  }

  get root(): string {
    return this.config.root!;
  }

  get dbPath(): string {
    return this.config.dbPath;
  }

  hasIndex(): boolean {
    return existsSync(this.dbPath);
  }

  isIndexed(): boolean {
    if (!this.hasIndex()) return false;
    const store = this.open(false);
    return store.read(() => store.meta.get('last_pass_at') !== undefined);
  }

  private open(create: boolean): IndexStore {
    if (this.closed) throw new EngineError('CLOSED');
    this.store ??= IndexStore.open(this.dbPath, { create });
    return this.store;
  }

  /** Passes of this engine run one after another: the lock file serialises processes, this chain the calls of one process. */
  private queue: Promise<unknown> = Promise.resolve();

  index(options: IndexOptions = {}): Promise<IndexReport> {
    const run = this.queue.then(() => this.indexNow(options));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async indexNow(options: IndexOptions): Promise<IndexReport> {
    if (this.closed) throw new EngineError('CLOSED');
    await this.lock.acquire({ timeoutMs: this.config.lockTimeoutMs, onWait: (o: LockOwner) => options.onLockWait?.({ pid: o.pid }) });
    try {
      if (options.rebuild) {
        this.store?.close();
        this.store = undefined;
        for (const suffix of ['', '-wal', '-shm']) rmSync(this.dbPath + suffix, { force: true });
      }
      const store = this.open(true);
      const onProgress: ProgressListener | undefined = options.onProgress;
      const paths = options.paths ? this.scopedPaths(options.paths) : undefined;
      // loaded on demand: a search-only process never loads discovery and chunking
      const { runIndexPass } = await import('../indexer/index-pass.js');
      return await runIndexPass({ root: this.root, config: this.config, store, clock: this.clock, logger: this.logger, onProgress, signal: options.signal, paths });
    } finally {
      this.lock.release();
    }
  }

  /** Root-relative POSIX paths for a scoped pass; undefined (a full pass) if one is a directory. */
  private scopedPaths(paths: readonly string[]): string[] | undefined {
    const out: string[] = [];
    for (const p of paths) {
      if (typeof p !== 'string' || p === '') throw new EngineError('INVALID_ARGUMENT', { name: 'paths', reason: 'each path must be a non-empty string' });
      const abs = resolve(this.root, p);
      const rel = relative(this.root, abs);
      if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) throw new EngineError('PATH_OUTSIDE_ROOT', { path: p });
      try {
        if (statSync(abs).isDirectory()) return undefined;
      } catch {
        // deleted: a scoped pass removes it
      }
      out.push(rel.split(sep).join('/'));
    }
    return [...new Set(out)];
  }

  async preview(): Promise<DryRunReport> {
    const { previewIndex } = await import('../indexer/dry-run.js');
    return previewIndex(this.root, this.config);
  }

  async search(query: string, options: SearchOptions = {}): Promise<SearchResponse> {
    const started = performance.now();
    const limit = options.limit ?? this.config.search.limit;
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new EngineError('INVALID_ARGUMENT', { name: 'limit', reason: 'must be an integer from 1 to 1000' });
    const snippetLines = options.snippetLines ?? 4;
    if (!Number.isInteger(snippetLines) || snippetLines < 1 || snippetLines > 50) throw new EngineError('INVALID_ARGUMENT', { name: 'snippetLines', reason: 'must be an integer from 1 to 50' });
    if (typeof query !== 'string') throw new EngineError('INVALID_ARGUMENT', { name: 'query', reason: 'must be a string' });
    const store = this.open(false);
    const outcome = lexicalSearch(store, {
      query,
      limit,
      files: options.files ?? false,
      filters: { path: options.path, language: options.language, type: options.type },
      weights: this.config.search.weights,
      ranking: this.config.search.ranking,
      snippetLines,
      explain: options.explain ?? false,
    });
    let results: readonly SearchResult[] = outcome.results;
    let rerank: RerankMeta | undefined;
    const reranker = options.rerank === false || results.length < 2 ? undefined : await this.getReranker();
    if (reranker) ({ results, rerank } = await this.rerankResults(reranker, query, results, outcome.texts, options.signal));
    return {
      query,
      results,
      meta: {
        mode: 'lexical',
        semantic: SEMANTIC_UNAVAILABLE,
        terms: outcome.terms,
        droppedTerms: outcome.dropped,
        longQuery: outcome.long,
        plan: outcome.plan,
        filesAggregated: options.files ?? false,
        tookMs: Math.round((performance.now() - started) * 100) / 100,
        indexedFiles: store.read(() => Number(store.meta.get('file_count') ?? 0)) || store.read(() => store.files.counts().files),
        root: this.root,
        ...(rerank ? { rerank } : {}),
      },
    };
  }

  /** The configured reranker, created on first use (its model and sockets only when needed). */
  private getReranker(): Promise<Reranker | undefined> {
    const r = this.config.rerank;
    this.reranker ??= (async (): Promise<Reranker | undefined> => {
      if (r.provider === 'llm' && r.llm) {
        const { createLlmReranker } = await import('../rerank/llm-reranker.js');
        const key = this.config.rerankApiKey();
        const env = r.llm.apiKeyEnv && key ? { [r.llm.apiKeyEnv]: key } : {};
        return createLlmReranker({ endpoint: r.llm, maxCandidates: r.maxCandidates, timeoutMs: r.timeoutMs }, { clock: this.clock, env });
      }
      if (r.provider === 'cross-encoder' && r.crossEncoder) {
        const { createCrossEncoderReranker } = await import('../rerank/cross-encoder.js');
        return createCrossEncoderReranker({ ...r.crossEncoder, maxCandidates: r.maxCandidates, timeoutMs: r.timeoutMs, clock: this.clock, logger: this.logger });
      }
      return undefined;
    })();
    return this.reranker;
  }

  /** Reorders the first `maxCandidates` results by the model's scores; the rest follow unchanged. */
  private async rerankResults(reranker: Reranker, query: string, results: readonly SearchResult[], texts: ReadonlyMap<string, string>, signal: AbortSignal | undefined): Promise<{ results: SearchResult[]; rerank: RerankMeta }> {
    const head = results.slice(0, this.config.rerank.maxCandidates);
    // identical text may sit in two files, so the id is the chunk's content hash and its place
    const idOf = (r: SearchResult): string => `${r.chunkHash}@${r.path}:${r.startLine}`;
    const candidates = head.map((r) => ({ id: idOf(r), path: r.path, startLine: r.startLine, endLine: r.endLine, text: texts.get(r.chunkHash) ?? r.snippet }));
    const outcome = await reranker.rerank(query, candidates, { signal });
    const byId = new Map(head.map((r) => [idOf(r), r]));
    const reordered = outcome.order.map((id) => {
      const r = byId.get(id)!;
      const s = outcome.scores.get(id);
      if (s === undefined) return r;
      return { ...r, rerankScore: s, ...(r.why ? { why: [...r.why, `${reranker.name} ${reranker.model}: ${s}`] } : {}) };
    });
    const rerank: RerankMeta = {
      provider: reranker.name,
      model: reranker.model,
      candidates: head.length,
      scored: outcome.scores.size,
      cached: outcome.cached,
      skipped: outcome.skipped ?? null,
      tookMs: outcome.tookMs,
    };
    return { results: [...reordered, ...results.slice(head.length)], rerank };
  }

  private readonly nameCache: NameCache = { key: '', names: [] };

  async symbols(name: string, options: SymbolOptions = {}): Promise<SymbolHit[]> {
    const kinds = validateKinds(typeof options.kind === 'string' ? options.kind.split(',') : options.kind);
    const store = this.open(false);
    return searchSymbols(store, name, { kinds, limit: options.limit }, this.nameCache);
  }

  async references(name: string, options: ReferenceOptions = {}): Promise<ReferencesResult> {
    return findReferences(this.open(false), name, options.limit ?? 50);
  }

  async outline(path: string): Promise<FileOutline> {
    const rel = typeof path === 'string' && isAbsolute(path) ? relative(this.root, path).split(sep).join('/') : path;
    if (typeof rel === 'string' && (rel.startsWith('..') || isAbsolute(rel))) throw new EngineError('PATH_OUTSIDE_ROOT', { path });
    return outlineFile(this.open(false), rel);
  }

  status(): StatusReport {
    const owner = this.lock.peek();
    const writer = owner ? { pid: owner.pid, since: new Date(owner.acquiredAt).toISOString() } : null;
    const capabilities = { lexical: false, semantic: false, semanticReason: SEMANTIC_UNAVAILABLE };
    if (!this.hasIndex()) {
      return { root: this.config.root ?? null, dbPath: this.dbPath, indexed: false, schemaVersion: null, featureVersionCurrent: false, files: 0, bytes: 0, chunks: 0, languages: {}, contentTypes: {}, lastPassAt: null, lastPassSkipped: {}, dbBytes: 0, structure: EMPTY_STRUCTURE, capabilities, writer };
    }
    const store = this.open(false);
    return store.read(() => {
      const counts = store.files.counts();
      const lastPass = store.meta.get('last_pass_at');
      return {
        root: this.config.root ?? null,
        dbPath: this.dbPath,
        indexed: lastPass !== undefined,
        schemaVersion: store.schemaVersion(),
        featureVersionCurrent: Number(store.meta.get('feature_version')) === INDEX_FEATURE_VERSION,
        files: counts.files,
        bytes: counts.bytes,
        chunks: store.chunks.count(),
        languages: counts.byLanguage,
        contentTypes: counts.byContentType,
        lastPassAt: lastPass ? new Date(Number(lastPass)).toISOString() : null,
        lastPassSkipped: store.meta.getJson('last_pass_skipped') ?? {},
        dbBytes: store.sizeOnDisk(),
        structure: { ...store.structure.counts(), parsers: store.files.parsers(), fallbacks: store.files.fallbacks() },
        capabilities: { ...capabilities, lexical: lastPass !== undefined },
        writer,
      };
    });
  }

  private get walkOptions(): WalkOptions {
    const c = this.config;
    return { root: this.root, maxFileBytes: c.maxFileBytes, ignore: c.ignore, denylist: c.denylist };
  }

  private indexedPaths = (): string[] => {
    if (!this.hasIndex()) return [];
    const store = this.open(false);
    return store.read(() => store.files.paths());
  };

  async readFile(path: string, options: ReadFileOptions = {}): Promise<FileSlice> {
    if (this.closed) throw new EngineError('CLOSED');
    return readFileSlice(this.walkOptions, path, options, this.indexedPaths);
  }

  async listFiles(options: ListFilesOptions = {}): Promise<FileListing> {
    const limit = options.limit ?? 200;
    if (!Number.isInteger(limit) || limit < 1 || limit > 10_000) throw new EngineError('INVALID_ARGUMENT', { name: 'limit', reason: 'must be an integer from 1 to 10000' });
    const globs = options.glob === undefined ? [] : typeof options.glob === 'string' ? [options.glob] : [...options.glob];
    const match = pathMatcher(globs.map((g) => g.trim()).filter((g) => g !== ''));
    const store = this.open(false);
    const hidden = (p: string): boolean => p.startsWith('.') || p.includes('/.');
    const all = store.read(() => store.files.listing()).filter((f) => (options.includeHidden || !hidden(f.path)) && (!match || match(f.path)));
    return { files: all.slice(0, limit), total: all.length };
  }

  async symbol(id: string, options: { maxLines?: number } = {}): Promise<SymbolDefinition> {
    const maxLines = options.maxLines ?? 200;
    const store = this.open(false);
    const rows = resolveSymbolId(store, id);
    const best = rows[0];
    if (!best) {
      const near = await this.symbols(parseSymbolId(id).name, { limit: 5 }).catch(() => []);
      throw new EngineError('SYMBOL_NOT_FOUND', { id, suggestions: near.map(formatSymbolId) });
    }
    const lines = best.endLine - best.startLine + 1;
    const shown = Math.min(lines, maxLines);
    const text = await this.readStored(best.path, best.startLine, best.startLine + shown - 1);
    return { id: formatSymbolId(best), symbol: best, text, truncated: shown < lines, alternatives: rows.slice(1, 21).map(formatSymbolId) };
  }

  /** Lines of a file as indexed (the stored text the symbol spans refer to). */
  private async readStored(path: string, startLine: number, endLine: number): Promise<string> {
    const store = this.open(false);
    const text = store.read(() => {
      const f = store.files.some([path]).get(path);
      return f ? store.content.text(f.hash) : undefined;
    });
    return text === undefined ? '' : text.split('\n').slice(startLine - 1, endLine).join('\n');
  }

  async similar(snippet: string, options: SimilarOptions = {}): Promise<SearchResponse> {
    if (typeof snippet !== 'string' || snippet.trim() === '') throw new EngineError('INVALID_ARGUMENT', { name: 'code_snippet', reason: 'must be non-empty code' });
    const limit = options.limit ?? 5;
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw new EngineError('INVALID_ARGUMENT', { name: 'limit', reason: 'must be an integer from 1 to 100' });
    const exclude = options.excludeFile?.replace(/^\.\//, '');
    // the long-query path picks the snippet's most distinctive identifiers; cut at a line boundary
    const cut = Buffer.from(snippet, 'utf8').subarray(0, MAX_QUERY_BYTES).toString('utf8');
    const query = cut.length < snippet.length ? cut.slice(0, Math.max(cut.lastIndexOf('\n'), 1)) : snippet;
    const response = await this.search(query, { limit: Math.min(limit + 20, 1000), language: options.language, rerank: false });
    const results = response.results.filter((r) => r.path !== exclude).slice(0, limit);
    return { ...response, results };
  }

  private tokens: ConfirmationTokens | undefined;
  /** The tokens this engine minted (in memory: a token is only good in the process that minted it). */
  private confirmations(): ConfirmationTokens {
    return (this.tokens ??= new ConfirmationTokens(this.root, this.clock));
  }

  async proposeChange(request: ChangeRequest): Promise<ProposedChange> {
    if (this.closed) throw new EngineError('CLOSED');
    return prepareChange(this.walkOptions, request, this.indexedPaths).proposal;
  }

  async applyChange(request: ChangeRequest, options: ApplyChangeOptions = {}): Promise<AppliedChange> {
    if (this.closed) throw new EngineError('CLOSED');
    // validated again, then the token checked against this very change's hash
    const prepared = prepareChange(this.walkOptions, request, this.indexedPaths);
    if (options.confirmationToken === undefined) throw confirmationRequired(prepared.proposal);
    this.confirmations().consume(options.confirmationToken, { root: this.root, hash: prepared.proposal.hash });
    commitChange(prepared);
    if (!this.isIndexed()) return { ...prepared.proposal, reindexed: 0 };
    try {
      const report = await this.index({ paths: prepared.paths });
      return { ...prepared.proposal, reindexed: report.filesIndexed + report.filesRemoved };
    } catch (err) {
      this.logger.warn('re-index after a change failed', { paths: prepared.paths, error: (err as Error).message });
      return { ...prepared.proposal, reindexed: 0, reindexError: (err as Error).message };
    }
  }

  mintConfirmationToken(options: MintTokenOptions = {}): string {
    if (this.closed) throw new EngineError('CLOSED');
    return this.confirmations().mint(options);
  }

  private readonly textScanCache = createTextScanCache();

  async searchText(query: string, options: TextSearchOptions = {}): Promise<TextSearchResult> {
    return searchText(this.open(false), query, options, this.textScanCache);
  }

  close(): void {
    void this.reranker?.then((r) => r?.close()).catch(() => undefined);
    this.reranker = undefined;
    this.store?.close();
    this.store = undefined;
    this.lock.release();
    this.closed = true;
  }
}
