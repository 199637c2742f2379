import type { Clock, Logger } from '../core/logger.js';
import type { RepoMap } from '../context/repo-map.js';
import type { ResolvedConfig } from '../config/resolve.js';
import type { ConfigInput } from '../config/schema.js';
import type { DryRunReport } from '../indexer/dry-run.js';
import type { IndexReport } from '../indexer/index-report.js';
import type { IndexProgress } from '../indexer/progress.js';
import type { FileOutline } from '../search/outline.js';
import type { ReferencesResult } from '../search/references.js';
import type { RelatedFiles, RelatedOptions } from '../search/related.js';
import type { TextSearchOptions, TextSearchResult } from '../search/text-search.js';
import type { SymbolHit } from '../search/symbol-search.js';
import type { SearchFilters } from '../search/filters.js';
import type { SearchResponse } from '../search/search-result.js';
import type { ListedFile } from '../store/file-repo.js';
import type { SymbolRow } from '../store/structure-repo.js';
import type { FileSlice, ReadFileOptions } from '../workspace/files.js';
import type { AppliedChange, ChangeRequest, ProposedChange } from '../workspace/change.js';
import type { StatusReport } from './status.js';
import type { ContextOptions, TaskContext } from './context-api.js';
import type { DiagnosticsReport } from './lsp-layer.js';
import type { EmbedProgress } from '../indexer/embed-pass.js';
import type { WatchConfig } from '../config/schema.js';
import type { Freshness } from '../freshness/freshness.js';
import type { WatchEvent } from '../freshness/keeper.js';

/* The engine's public contract: the Engine interface and the options of its methods. */

export type { ContextOptions, TaskContext } from './context-api.js';

/** Options of `createEngine`. Give a root, a db, or both. */
export interface EngineOptions {
  /**
   * Project root to index. Optional when `db` names an existing index (its root is stored in it);
   * when given, its real path must be that stored root (else ROOT_MISMATCH, see `reroot`).
   */
  readonly root?: string | undefined;
  /** Index database path. Default: the user cache dir, keyed by the root's real path. */
  readonly db?: string | undefined;
  /**
   * Accept a `root` other than the one stored in `db` (default false: ROOT_MISMATCH at creation,
   * nothing read or written). The index then changes roots only through `index({ rebuild: true })`,
   * built beside the old one and swapped in when complete; any other pass throws ROOT_MISMATCH.
   */
  readonly reroot?: boolean | undefined;
  /** Config overrides, applied over the project's scry.config.json. */
  readonly config?: ConfigInput | undefined;
  readonly logger?: Logger | undefined;
  readonly clock?: Clock | undefined;
  /** Environment for SCRY_* variables (tests pass their own). Default: process.env. */
  readonly env?: Readonly<Record<string, string | undefined>> | undefined;
}

export interface IndexOptions {
  readonly onProgress?: ((event: IndexProgress) => void) | undefined;
  /**
   * Called while this request waits for another process that writes the index: its pid, and the
   * progress of the pass this request is queued behind when that process reports it.
   */
  readonly onLockWait?: ((owner: { pid: number; progress?: IndexProgress | undefined }) => void) | undefined;
  /**
   * Called when the request was handed to the process that owns the index (a `scry watch`,
   * `scry mcp` or another `scry index`): that process runs the pass, progress still arrives
   * through `onProgress`, and the report is the one it returns.
   */
  readonly onHandoff?: ((owner: { pid: number; role: 'index' | 'watch' }) => void) | undefined;
  /**
   * Index from scratch (recovers from corrupt or too-new indexes): a full pass (`paths` are ignored)
   * into a new database beside the live one, swapped in when complete; readers keep the old one
   * until then and a killed rebuild leaves it as it was.
   */
  readonly rebuild?: boolean | undefined;
  readonly signal?: AbortSignal | undefined;
  /**
   * Re-check only these files (relative to the root, or absolute inside it) instead of walking
   * the tree: each is indexed, updated, or removed if deleted or now excluded. For editors and
   * watchers that know what changed. A directory among them makes it a full pass.
   */
  readonly paths?: readonly string[] | undefined;
  /**
   * Embed new chunk texts after the pass when an embedding provider is configured (default true;
   * a watcher embeds in idle slices instead). Lexical search is ready before it starts.
   */
  readonly embed?: boolean | undefined;
  /** Progress of that embedding: texts done of those pending. */
  readonly onEmbedProgress?: ((event: EmbedProgress) => void) | undefined;
}

export interface SearchOptions extends SearchFilters {
  /** Results to return. Range 1–1000; default from config (10). */
  readonly limit?: number | undefined;
  /** One result per file (its best chunk) instead of one per chunk. */
  readonly files?: boolean | undefined;
  /** Lines per snippet. Range 1–50; default 4. */
  readonly snippetLines?: number | undefined;
  /** Rerank the first results with the configured model (config `rerank`). Default true; no effect without a reranker. */
  readonly rerank?: boolean | undefined;
  /**
   * Attach `why` to each result: its BM25 score and every prior or structural step that changed it;
   * in vector or hybrid mode, each list's share of the fused score (and `fusion`, as data).
   */
  readonly explain?: boolean | undefined;
  /**
   * `auto` (config `search.mode`, default): hybrid when the index has vectors for the configured
   * embedding model, else lexical. `vector` and `hybrid` fall back to lexical (saying why in
   * `meta.semantic`) when they cannot run. Typed lines (`lex:`, `vec:`, `hyde:`) route sub-queries.
   */
  readonly mode?: 'auto' | 'lexical' | 'vector' | 'hybrid' | undefined;
  /** Cancels a model rerank or a query embedding in flight. */
  readonly signal?: AbortSignal | undefined;
}

export interface SymbolOptions {
  /** Only these kinds (`function`, `class`, `method`...); `any` or none for all. */
  readonly kind?: string | readonly string[] | undefined;
  /** Results to return. Range 1–1000; default 20. */
  readonly limit?: number | undefined;
}

/** Options of `Engine.symbol`. */
export interface SymbolLookupOptions {
  /** Lines of the definition's source returned at most. Default 200. */
  readonly maxLines?: number | undefined;
  /**
   * A use of the symbol (path relative to the root, 1-based line, optional column): with a
   * language server for that file (config `lsp`), the definition that use resolves to by type.
   */
  readonly at?: { readonly path: string; readonly line: number; readonly column?: number | undefined } | undefined;
  /** Also list the definitions implementing this one (textDocument/implementation; config `lsp`). */
  readonly implementations?: boolean | undefined;
}

export interface DiagnosticsOptions {
  /** Diagnostics to return. Range 1–1000; default 100. */
  readonly limit?: number | undefined;
}

export interface ReferenceOptions {
  /** References to return. Range 1–5000; default 50. */
  readonly limit?: number | undefined;
}

export interface Engine {
  readonly root: string;
  readonly dbPath: string;
  readonly config: ResolvedConfig;
  /** Builds or refreshes the index incrementally. One writer per index across processes. */
  index(options?: IndexOptions): Promise<IndexReport>;
  /** What an index pass would take and leave out; writes nothing. */
  preview(): Promise<DryRunReport>;
  /** True once a database file exists at dbPath. */
  hasIndex(): boolean;
  /** True once an index pass has completed at dbPath (cheap: one meta lookup). */
  isIndexed(): boolean;
  search(query: string, options?: SearchOptions): Promise<SearchResponse>;
  /**
   * Definitions by name: exact, then prefix, then typo-tolerant matches; `Foo.bar` (or `Foo::bar`,
   * `Foo#bar`) restricts to members of `Foo`.
   */
  symbols(name: string, options?: SymbolOptions): Promise<SymbolHit[]>;
  /**
   * `symbols`, joined (config `lsp`) by the workspace/symbol answer of each language family's
   * server (`resolution: "lsp"`): what the name tiers miss (substring and camel-case matches) is
   * added, nothing the index has is dropped. A slow or failed server falls back to names (`fallback`).
   */
  findSymbols(name: string, options?: SymbolOptions): Promise<SymbolSearchResult>;
  /**
   * Occurrences of a symbol, grouped by file, definitions first: by type (`resolution: "lsp"`) when
   * its definition is known (an id with a path, or a name defined once) and a language server
   * answers for it (config `lsp`); else by name, with the reason in `fallback`.
   */
  references(name: string, options?: ReferenceOptions): Promise<ReferencesResult>;
  /**
   * Diagnostics (errors, warnings) of a file, from its language's server when one runs (config
   * `lsp`), else for TS/JS from the TypeScript compiler API; without a path, the project's
   * (tsconfig.json) from the compiler API. `source` says where they came from or why there are none.
   */
  diagnostics(path?: string, options?: DiagnosticsOptions): Promise<DiagnosticsReport>;
  /** One file's definitions, imports (resolved to repository files), importers and tests. */
  outline(path: string): Promise<FileOutline>;
  /**
   * Files related to one file, ranked: its tests, imports and importers, and the files calling its
   * definitions or defining what it imports (by name). Paths outside the root → PATH_OUTSIDE_ROOT,
   * a path not indexed → FILE_NOT_FOUND.
   */
  related(path: string, options?: RelatedOptions): Promise<RelatedFiles>;
  status(): StatusReport;
  /**
   * Keeps the index fresh until the returned handle is closed: becomes the index's single writer
   * (or a reader that takes over when the writer exits), watches the files, brings the index up to
   * date with the disk (startup staleness), then indexes each batch of changes. Other processes'
   * `index()` calls are handed to it. One watch per engine.
   */
  watch(options?: WatchOptions): Promise<IndexWatch>;
  /** How fresh the index is and who keeps it so (this process's watch, or the writer's published state). */
  freshness(): Freshness;
  /** A line range of a file as it is on disk now. Only files the index would include: links resolved inside the root, secrets refused. */
  readFile(path: string, options?: ReadFileOptions): Promise<FileSlice>;
  /** Indexed files, in path order, optionally only those matching globs. */
  listFiles(options?: ListFilesOptions): Promise<FileListing>;
  /**
   * A definition by id (`path#Container.name@line`, from `formatSymbolId`) or by plain name, with
   * its source text and the other definitions of that name.
   */
  symbol(id: string, options?: SymbolLookupOptions): Promise<SymbolDefinition>;
  /**
   * Code like a snippet. Lexical similarity (the snippet's distinctive identifiers) until an
   * embedding provider is configured; `meta.mode` says which.
   */
  similar(snippet: string, options?: SimilarOptions): Promise<SearchResponse>;
  // --- text search (search_text) ---
  /**
   * Exact text (or, with `regex`, a JavaScript regex) in the indexed files' stored text, like
   * ripgrep: one match per matching line, by path then line. Smart case by default. Stops after
   * `limit` lines (`truncated`) or `timeoutMs` (`timedOut`, checked between files: a regex cannot
   * be interrupted inside a file, so regex mode skips files over 1 MiB, counted in `filesSkipped`).
   */
  searchText(query: string, options?: TextSearchOptions): Promise<TextSearchResult>;
  // --- changes (write tools) ---
  /**
   * Validates a change against the files as they are now (paths inside the root and indexable,
   * hunks applying exactly) and returns it as a canonical diff with its hash. Writes nothing.
   */
  proposeChange(request: ChangeRequest): Promise<ProposedChange>;
  /**
   * Applies a change: validates it again, then without a token throws CONFIRMATION_REQUIRED (data:
   * `hash`, `diff`, `files`); with a token minted by `mintConfirmationToken` for this workspace
   * (and, if bound, for this change's hash) consumes it, writes every file or none, and re-indexes
   * the touched paths. A refused token (TOKEN_INVALID) writes nothing and is not consumed.
   */
  applyChange(request: ChangeRequest, options?: ApplyChangeOptions): Promise<AppliedChange>;
  /**
   * A single-use confirmation token for `applyChange`. For the host (a UI, after a person said yes,
   * or an autonomous agent mode), never for a tool. Bind it to a proposal's `hash` to allow only
   * that change.
   */
  mintConfirmationToken(options?: MintTokenOptions): string;
  // --- repo map (repo_map) ---
  /**
   * A token-budgeted map of the repository: code files ranked by PageRank over the import graph
   * (personalised toward `focus` files and files defining identifiers in `query`), shown as a
   * directory tree with each file's top-level exported signatures and its role (`main` entry
   * points, `utility` leaves). Built from the index (no reparse); the graph is cached until the
   * next pass.
   */
  repoMap(options?: RepoMapOptions): Promise<RepoMap>;
  /**
   * The context for a task, inside a token budget (o200k): a window of the current file around
   * the cursor, the signatures of symbols the query names, then the best retrieved chunks whole —
   * merged, deduplicated, at most 2 per file, each cited `path:start-end` with its hash. The pack
   * never exceeds `tokens`; what did not fit is listed in `omitted`.
   */
  context(query: string, options?: ContextOptions): Promise<TaskContext>;
  /**
   * Embeds every chunk text without a vector for the configured model (`scry embed`), after an
   * incremental pass; resumable (each batch is committed). Throws INVALID_ARGUMENT without a
   * provider. Handed to another process that writes the index, it returns once that process's
   * pass is done; a watcher embeds in the background (see `status().embeddings`).
   */
  embed(options?: IndexOptions): Promise<IndexReport>;
  close(): void;
}

export interface ApplyChangeOptions {
  /** A token from `mintConfirmationToken`; without one the change is only staged. */
  readonly confirmationToken?: string | undefined;
}

export interface MintTokenOptions {
  /** Allow only the change with this hash (`ProposedChange.hash`). Default: any change in this workspace. */
  readonly hash?: string | undefined;
  /** Life of the token in milliseconds. Range 1–600,000; default 60,000. */
  readonly ttlMs?: number | undefined;
}

export interface ListFilesOptions {
  /** Globs (`src/**\/*.ts`, `*.md`) or directory prefixes; none lists everything. */
  readonly glob?: string | readonly string[] | undefined;
  /** Files to return. Range 1–10,000; default 200. */
  readonly limit?: number | undefined;
  /** Include paths with a segment starting with `.` (`.github/workflows/ci.yml`). Default false. */
  readonly includeHidden?: boolean | undefined;
}

export interface FileListing {
  readonly files: ReadonlyArray<ListedFile>;
  /** Files matching before `limit`. */
  readonly total: number;
}

export interface SimilarOptions {
  readonly language?: string | undefined;
  /** Leave out results from this file (where the snippet came from). */
  readonly excludeFile?: string | undefined;
  /** Results. Range 1–100; default 5. */
  readonly limit?: number | undefined;
}

/** `Engine.findSymbols`: definitions by name, and by the language servers' workspace/symbol when they run. */
export interface SymbolSearchResult {
  readonly symbols: SymbolHit[];
  /** `lsp` when at least one language server answered workspace/symbol; `name` otherwise. */
  readonly resolution: 'lsp' | 'name';
  /** The servers that answered (`typescript`, `python`...), when `resolution` is `lsp`. */
  readonly servers?: readonly string[] | undefined;
  /** Why a server did not answer (each family's reason, `; `-joined), when one was expected to. */
  readonly fallback?: string | undefined;
}

/** A definition with its code. */
export interface SymbolDefinition {
  readonly id: string;
  readonly symbol: SymbolRow;
  /** The definition's source lines (at most `maxLines`, default 200), from the index. */
  readonly text: string;
  /** True when the definition is longer than the text returned. */
  readonly truncated: boolean;
  /** Other definitions the id could mean (same name elsewhere), as ids. */
  readonly alternatives: readonly string[];
  /** `lsp` when a language server resolved the use given in `at`; else `name`. */
  readonly resolution: 'lsp' | 'name';
  /** Why `at` was not resolved by a server (none configured, a timeout, a crash). */
  readonly fallback?: string | undefined;
  /**
   * With `implementations`: the definitions implementing this one (classes of an interface,
   * overrides of a method), as ids, by the server's textDocument/implementation; empty with
   * `implementationsFallback` when no server answered.
   */
  readonly implementations?: readonly string[] | undefined;
  readonly implementationsFallback?: string | undefined;
}

export interface WatchOptions {
  /** Follow file changes (default true). False: be the writer, run the startup pass and take requests, but watch no files. */
  readonly files?: boolean | undefined;
  /** Overrides of the config's `watch` section (debounce, batch wait, backend, storm threshold, poll interval). */
  readonly watch?: Partial<WatchConfig> | undefined;
  /** Every role change, pass start, progress, end and error, and watcher warnings. */
  readonly onEvent?: ((event: WatchEvent) => void) | undefined;
  /** How often a reader checks whether it can take over writing. Default 1,000 ms. */
  readonly takeoverPollMs?: number | undefined;
}

/** A running watch (see `Engine.watch`). */
export interface IndexWatch {
  /** `writer` while this process writes the index, `reader` while another one does. */
  readonly role: 'writer' | 'reader';
  freshness(): Freshness;
  /**
   * Resolves when tools can answer: at once if a completed index exists, otherwise when the first
   * pass has completed one (this process's or the writer's). Progress goes to `onProgress`.
   */
  ready(options?: { signal?: AbortSignal | undefined; onProgress?: ((p: IndexProgress) => void) | undefined }): Promise<void>;
  /** Resolves when the writer has nothing pending and no pass running (tests, benchmarks). */
  idle(): Promise<void>;
  /** Stops watching, stops a running pass at its next batch, and gives up the writer role. */
  close(): Promise<void>;
}

export interface RepoMapOptions {
  /** Token budget of the map text (o200k), filled with as many top-ranked files as fit. Range 64–100,000; default 1024. */
  readonly tokens?: number | undefined;
  /**
   * Files or directories (relative to the root, or absolute inside it) the map should centre on:
   * they and the files around them in the import graph rank higher. At most 100.
   */
  readonly focus?: readonly string[] | undefined;
  /** Words or identifiers of the task at hand: files defining a matching symbol (any case) or named by a word rank higher. */
  readonly query?: string | undefined;
}
