import { existsSync } from 'node:fs';
import { isAbsolute, relative, sep } from 'node:path';
import { EngineError } from '../core/errors.js';
import { silentLogger, systemClock, type Clock, type Logger } from '../core/logger.js';
import { resolveConfig, type ResolvedConfig } from '../config/resolve.js';
import type { DryRunReport } from '../indexer/dry-run.js';
import type { IndexReport } from '../indexer/index-report.js';
import type { LexicalParams } from '../search/lexical-search.js';
import { outlineFile, type FileOutline } from '../search/outline.js';
import type { ReferencesResult } from '../search/references.js';
import { relatedFiles, type RelatedFiles, type RelatedOptions } from '../search/related.js';
import { UsesCache } from '../search/uses-cache.js';
import type { TextScanCache, TextSearchOptions, TextSearchResult } from '../search/text-search.js';
import { searchSymbols, validateKinds, type NameCache, type SymbolHit } from '../search/symbol-search.js';
import type { RerankMeta, SearchResponse, SearchResult } from '../search/search-result.js';
import type { Reranker } from '../rerank/reranker.js';
import { createConfiguredReranker, rerankResults } from './rerank-results.js';
import { IndexStore } from '../store/index-store.js';
import type { FileSlice, ReadFileOptions } from '../workspace/files.js';
import type { AppliedChange, ChangeRequest, ProposedChange } from '../workspace/change.js';
import { ConfirmationTokens } from '../workspace/confirmation.js';
import { applyChangeWith } from './change-ops.js';
import type { WalkOptions } from '../discover/walk.js';
import { WriterLock } from '../store/writer-lock.js';
import { observedFreshness, readState, statePathFor, type Freshness } from '../freshness/freshness.js';
import { endpointFor } from '../freshness/handoff.js';
import type { IndexKeeper } from '../freshness/keeper.js';
import { WriterLease } from '../freshness/lease.js';
import type { RepoMap, RepoMapCache } from '../context/repo-map.js';
import { IndexRunner } from './index-runner.js';
import { checkRoot, fileId, rootFromDb, rootMismatch } from './db-file.js';
import { rebuildBeside } from './rebuild.js';
import { scopedPaths } from './scoped-paths.js';
import { removeStaleRebuilds } from '../store/db-swap.js';
import { statusReport, type StatusReport } from './status.js';
import { SemanticLayer } from './semantic.js';
import { ReadConnection } from './read-connection.js';
import { watchHandle } from './watch-handle.js';
import { LspLayer, type DiagnosticsReport } from './lsp-layer.js';
import { closedEngine, referencesOf, symbolDefinition, type NavigationDeps } from './typed-navigation.js';
import { findSymbols } from './typed-symbols.js';
import { definitionsNearCursor } from './lsp-context.js';
import { listIndexedFiles, similarTo } from './file-queries.js';
import type {
  ApplyChangeOptions, ContextOptions, DiagnosticsOptions, SymbolLookupOptions, Engine, EngineOptions, FileListing, IndexOptions, IndexWatch, ListFilesOptions, MintTokenOptions,
  ReferenceOptions, RepoMapOptions, SearchOptions, SimilarOptions, SymbolDefinition, SymbolOptions, SymbolSearchResult, TaskContext, WatchOptions,
} from './engine-api.js';

/**
 * The composition root: resolves config, then opens the store lazily on first use. What a search
 * does not need (file reads and edits, task context, repo map, text search, the watcher) is
 * imported by the method that uses it (issue 19: start-up of `scry search`).
 */
export async function createEngine(options: EngineOptions): Promise<Engine> {
  const base = { db: options.db, overrides: options.config, env: options.env };
  let config = await resolveConfig({ ...base, root: options.root });
  let rerootFrom: string | undefined;
  if (config.root === undefined) config = await resolveConfig({ ...base, root: rootFromDb(config.dbPath) });
  else rerootFrom = checkRoot(config.dbPath, config.root, options.reroot === true);
  return new EngineImpl(config, options.logger ?? silentLogger, options.clock ?? systemClock, rerootFrom);
}

class EngineImpl implements Engine {
  private store: IndexStore | undefined;
  private reranker: Promise<Reranker | undefined> | undefined;
  private closed = false;
  private readonly lock: WriterLock;
  private readonly lease: WriterLease;
  private readonly runner: IndexRunner;
  private keeper: IndexKeeper | undefined;
  private readonly semantic: SemanticLayer;
  /** The connection reads go through, never the writer's (docs/DESIGN.md, "Read snapshots"). */
  private readonly reads: ReadConnection;

  constructor(
    readonly config: ResolvedConfig,
    private readonly logger: Logger,
    private readonly clock: Clock,
    /** The root stored in the index when it differs from this engine's (`reroot`): only a rebuild may run. */
    private rerootFrom: string | undefined = undefined,
  ) {
    this.lock = new WriterLock(`${config.dbPath}.lock`);
    this.lease = new WriterLease(this.lock, endpointFor(config.dbPath), logger);
    this.runner = new IndexRunner({ lease: this.lease, lockTimeoutMs: config.lockTimeoutMs, pass: (o) => this.pass(o), logger });
    this.semantic = new SemanticLayer(config, logger, () => clock.now());
    this.reads = new ReadConnection(config.dbPath, () => {
      if (this.closed) throw new EngineError('CLOSED');
    });
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
    const store = this.reads.store();
    return store.snapshotSync(() => store.meta.get('last_pass_at') !== undefined);
  }


  private open(create: boolean): IndexStore {
    if (this.closed) throw new EngineError('CLOSED');
    // another process rebuilt the index (a new file at the same path): read the new one
    if (this.store && !this.lease.held && fileId(this.dbPath) !== this.storeFile && existsSync(this.dbPath)) {
      this.store.close();
      this.store = undefined;
    }
    if (!this.store) {
      this.storeFile = fileId(this.dbPath); // first: a swap before the open is seen on the next call
      this.store = IndexStore.open(this.dbPath, { create });
      this.storeFile ??= fileId(this.dbPath);
    }
    return this.store;
  }

  private storeFile: string | undefined;

  index(options: IndexOptions = {}): Promise<IndexReport> {
    if (this.closed) return Promise.reject(new EngineError('CLOSED'));
    return this.runner.index(options, this.rerootFrom === undefined);
  }

  /** One pass over the store; the runner calls it only while this process holds the writer lease. */
  private async pass(options: IndexOptions): Promise<IndexReport> {
    if (this.closed) throw new EngineError('CLOSED');
    if (this.rerootFrom !== undefined && !options.rebuild) throw rootMismatch(this.dbPath, this.rerootFrom, this.root);
    // checked before the database is created (issue 24): `--paths ../x` must not leave an empty index
    const paths = options.paths && !options.rebuild ? scopedPaths(this.root, options.paths) : undefined;
    removeStaleRebuilds(this.dbPath); // killed rebuilds' leftovers: this process holds the lease, so none is running
    // loaded on demand: a search-only process never loads discovery and chunking
    const { runIndexPass } = await import('../indexer/index-pass.js');
    const run = (store: IndexStore, paths?: string[]): Promise<IndexReport> =>
      runIndexPass({ root: this.root, config: this.config, store, clock: this.clock, logger: this.logger, onProgress: options.onProgress, signal: options.signal, paths });
    if (options.rebuild) {
      this.store?.close();
      this.store = undefined;
    }
    // a rebuild is built beside the live index and swapped in whole: readers and a killed pass keep the old one
    const report = options.rebuild ? await rebuildBeside(this.dbPath, run) : await run(this.open(true), paths);
    if (options.rebuild) {
      // reads meanwhile may have opened the old file: this process holds the lease, so nothing else would move it to the new one
      this.store?.close();
      this.store = undefined;
      this.rerootFrom = undefined;
    }
    const store = this.open(true);
    if (options.embed === false) return report;
    const embedding = await this.semantic.embedAfterPass(store, { signal: options.signal, onProgress: options.onEmbedProgress });
    if (embedding && !('error' in embedding)) this.semantic.persistVectors(store, report.filesIndexed + report.filesRemoved);
    return embedding ? { ...report, embedding } : report;
  }

  async watch(options: WatchOptions = {}): Promise<IndexWatch> {
    if (this.closed) throw new EngineError('CLOSED');
    if (this.keeper) throw new EngineError('INVALID_ARGUMENT', { name: 'watch', reason: 'this engine already watches its index' });
    const { IndexKeeper } = await import('../freshness/keeper.js');
    const keeper = new IndexKeeper({
      lease: this.lease,
      statePath: statePathFor(this.dbPath),
      walk: this.walkOptions,
      watch: { ...this.config.watch, ...options.watch },
      watchFiles: options.files ?? true,
      run: (job, hooks) => this.runner.serial(() => this.pass({ paths: job.paths, rebuild: job.rebuild, signal: hooks.signal, onProgress: hooks.onProgress, embed: false })),
      // new chunks are embedded in slices while nothing is due, so edits never wait for a slow model
      idleWork: (signal) => (this.semantic.configured ? this.runner.serial(() => this.semantic.idleSlice(this.open(true), signal)) : Promise.resolve(false)),
      isIndexed: () => this.isIndexed(),
      logger: this.logger,
      clock: this.clock,
      onEvent: options.onEvent,
      takeoverPollMs: options.takeoverPollMs,
    });
    this.keeper = keeper;
    await keeper.start();
    return watchHandle(keeper, () => {
      if (this.keeper === keeper) this.keeper = undefined;
    });
  }

  freshness(): Freshness {
    return this.keeper?.freshness() ?? observedFreshness(this.lease.owner(), readState(statePathFor(this.dbPath)));
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
    const params: LexicalParams = {
      query,
      limit,
      files: options.files ?? false,
      filters: { path: options.path, language: options.language, type: options.type, where: options.where },
      weights: this.config.search.weights,
      ranking: this.config.search.ranking,
      snippetLines,
      explain: options.explain ?? false,
      nowMs: this.clock.now(),
    };
    // the query embedding is awaited first; then every read of the search in one snapshot
    const prepared = await this.semantic.prepare(this.reads.store(), query, options.mode ?? this.config.search.mode, options.signal);
    const { outcome, plan, embedMs, indexedFiles } = await this.reads.snapshot((store) => ({
      ...this.semantic.rank(store, params, prepared),
      indexedFiles: Number(store.meta.get('file_count') ?? 0) || store.files.counts().files,
    }));
    let results: readonly SearchResult[] = outcome.results;
    let rerank: RerankMeta | undefined;
    this.reranker ??= createConfiguredReranker(this.config, this.clock, this.logger);
    const reranker = options.rerank === false || results.length < 2 ? undefined : await this.reranker;
    if (reranker) ({ results, rerank } = await rerankResults(reranker, this.config.rerank.maxCandidates, query, results, outcome.texts, options.signal));
    return {
      query,
      results,
      meta: {
        mode: plan.mode,
        semantic: plan.reason,
        terms: outcome.terms,
        droppedTerms: outcome.dropped,
        longQuery: outcome.long,
        plan: outcome.plan,
        queryKind: outcome.kind,
        ...(outcome.expansion ? { expansion: outcome.expansion } : {}),
        filesAggregated: options.files ?? false,
        tookMs: Math.round((performance.now() - started) * 100) / 100,
        ...(embedMs !== undefined ? { embedMs } : {}),
        indexedFiles,
        root: this.root,
        ...(rerank ? { rerank } : {}),
      },
    };
  }

  private readonly nameCache: NameCache = { key: '', names: [] };
  /** Identifier kinds of names in file contents, kept across `references` and `related` calls. */
  private readonly usesCache = new UsesCache();

  async symbols(name: string, options: SymbolOptions = {}): Promise<SymbolHit[]> {
    const kinds = validateKinds(typeof options.kind === 'string' ? options.kind.split(',') : options.kind);
    return this.reads.snapshot((store) => searchSymbols(store, name, { kinds, limit: options.limit }, this.nameCache));
  }

  async findSymbols(name: string, options: SymbolOptions = {}): Promise<SymbolSearchResult> {
    const kinds = validateKinds(typeof options.kind === 'string' ? options.kind.split(',') : options.kind);
    return findSymbols(this.navigation(), name, { kinds, limit: options.limit ?? 20 }, await this.symbols(name, options));
  }
  async references(name: string, options: ReferenceOptions = {}): Promise<ReferencesResult> {
    return referencesOf(this.navigation(), name, options.limit ?? 50);
  }

  async related(path: string, options: RelatedOptions = {}): Promise<RelatedFiles> {
    return this.reads.snapshot((store) => relatedFiles(store, this.root, path, options, { cache: this.usesCache }));
  }

  async outline(path: string): Promise<FileOutline> {
    const rel = typeof path === 'string' && isAbsolute(path) ? relative(this.root, path).split(sep).join('/') : path;
    if (typeof rel === 'string' && (rel.startsWith('..') || isAbsolute(rel))) throw new EngineError('PATH_OUTSIDE_ROOT', { path });
    return this.reads.snapshot((store) => outlineFile(store, rel));
  }

  status(): StatusReport {
    const owner = this.lock.peek();
    const writer = owner ? { pid: owner.pid, since: new Date(owner.acquiredAt).toISOString() } : null;
    const servers = { enabled: this.config.lsp.enabled, servers: this.lspLayer().status() };
    if (!this.hasIndex()) return statusReport(this.config, undefined, writer, this.semantic.status(undefined), servers);
    const store = this.reads.store();
    return store.snapshotSync(() => statusReport(this.config, store, writer, this.semantic.status(store), servers));
  }

  private get walkOptions(): WalkOptions {
    const c = this.config;
    return { root: this.root, maxFileBytes: c.maxFileBytes, maxDocumentBytes: c.documents.maxBytes, ignore: c.ignore, denylist: c.denylist };
  }

  private indexedPaths = (): string[] => {
    if (!this.hasIndex()) return [];
    const store = this.reads.store();
    return store.snapshotSync(() => store.files.paths());
  };

  async readFile(path: string, options: ReadFileOptions = {}): Promise<FileSlice> {
    if (this.closed) throw new EngineError('CLOSED');
    const { readFileSlice } = await import('../workspace/files.js');
    return readFileSlice(this.walkOptions, path, options, this.indexedPaths);
  }

  async listFiles(options: ListFilesOptions = {}): Promise<FileListing> {
    return listIndexedFiles((fn) => this.reads.snapshot(fn), options);
  }

  async symbol(id: string, options: SymbolLookupOptions = {}): Promise<SymbolDefinition> {
    return symbolDefinition(this.navigation(), id, options);
  }

  async diagnostics(path?: string, options: DiagnosticsOptions = {}): Promise<DiagnosticsReport> {
    const slice = path === undefined ? undefined : await this.readFile(path, { maxBytes: 200_000 });
    return this.lspLayer().diagnostics(slice, options.limit ?? 100);
  }

  private lsp: LspLayer | undefined;
  private lspLayer = (): LspLayer => (this.closed ? closedEngine() : (this.lsp ??= new LspLayer(this.root, this.config.lsp, this.logger)));

  /** What definitions and references by type need (typed-navigation.ts). */
  private navigation = (): NavigationDeps => ({
    lsp: this.lspLayer(), read: (p) => this.readFile(p, { maxBytes: 200_000 }), snapshot: (fn) => this.reads.snapshot(fn), readStored: this.readStored.bind(this), near: (name) => this.symbols(name, { limit: 5 }), uses: this.usesCache,
  });

  /** Lines of a file as indexed (the stored text the symbol spans refer to). */
  private async readStored(path: string, startLine: number, endLine: number): Promise<string> {
    const text = await this.reads.snapshot((store) => {
      const f = store.files.some([path]).get(path);
      return f ? store.content.text(f.hash) : undefined;
    });
    return text === undefined ? '' : text.split('\n').slice(startLine - 1, endLine).join('\n');
  }

  async similar(snippet: string, options: SimilarOptions = {}): Promise<SearchResponse> {
    return similarTo(this.search.bind(this), snippet, options);
  }

  private tokens: ConfirmationTokens | undefined;
  /** The tokens this engine minted (in memory: a token is only good in the process that minted it). */
  private confirmations(): ConfirmationTokens {
    return (this.tokens ??= new ConfirmationTokens(this.root, this.clock));
  }

  async proposeChange(request: ChangeRequest): Promise<ProposedChange> {
    if (this.closed) throw new EngineError('CLOSED');
    const { prepareChange } = await import('../workspace/change.js');
    return prepareChange(this.walkOptions, request, this.indexedPaths).proposal;
  }

  async applyChange(request: ChangeRequest, options: ApplyChangeOptions = {}): Promise<AppliedChange> {
    if (this.closed) throw new EngineError('CLOSED');
    const deps = { root: this.root, walk: this.walkOptions, indexedPaths: this.indexedPaths, tokens: () => this.confirmations(), isIndexed: () => this.isIndexed(), index: (paths: readonly string[]) => this.index({ paths }), logger: this.logger };
    return applyChangeWith(deps, request, options.confirmationToken);
  }

  mintConfirmationToken(options: MintTokenOptions = {}): string {
    if (this.closed) throw new EngineError('CLOSED');
    return this.confirmations().mint(options);
  }

  private textScanCache: TextScanCache | undefined;

  async searchText(query: string, options: TextSearchOptions = {}): Promise<TextSearchResult> {
    const { createTextScanCache, searchText } = await import('../search/text-search.js');
    const cache = (this.textScanCache ??= createTextScanCache());
    return this.reads.snapshot((store) => searchText(store, query, options, cache));
  }

  private mapCache: RepoMapCache | undefined;

  async repoMap(options: RepoMapOptions = {}): Promise<RepoMap> {
    const { buildRepoMap, createRepoMapCache } = await import('../context/repo-map.js');
    const cache = (this.mapCache ??= createRepoMapCache());
    return this.reads.snapshot((store) => buildRepoMap(store, this.root, options, cache));
  }

  async context(query: string, options: ContextOptions = {}): Promise<TaskContext> {
    const deps = { root: this.root, search: this.search.bind(this), symbols: this.symbols.bind(this), readFile: this.readFile.bind(this), readStored: this.readStored.bind(this) };
    const structure = { related: this.related.bind(this), references: this.references.bind(this), outline: this.outline.bind(this), repoMap: this.repoMap.bind(this), listFiles: this.listFiles.bind(this) };
    const definitionsNear = this.config.lsp.enabled ? (c: { path: string; line?: number | undefined }) => definitionsNearCursor(this.navigation(), c) : undefined;
    const { buildTaskContext } = await import('./context-builder.js');
    return this.reads.snapshot(() => buildTaskContext({ ...deps, ...structure, definitionsNear }, query, options));
  }

  async embed(options: IndexOptions = {}): Promise<IndexReport> {
    if (!this.semantic.configured) throw new EngineError('INVALID_ARGUMENT', { name: 'embed.provider', reason: 'no embedding provider is configured (set embed.provider in scry.config.json, or pass --provider)' });
    return this.index({ ...options, embed: true });
  }

  close(): void {
    void this.lsp?.close();
    void this.semantic.close();
    void this.reranker?.then((r) => r?.close()).catch(() => undefined);
    this.reranker = undefined;
    void this.keeper?.close();
    this.store?.close();
    this.store = undefined;
    this.reads.close();
    this.lock.release();
    this.closed = true;
  }
}
