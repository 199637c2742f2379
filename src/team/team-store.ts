/**
 * The team index (issue 23): many repositories in one PostgreSQL database, filled by pushes of
 * local SQLite indexes and searched with the SQLite store's ranking. This file is the seam
 * `scry serve` / `scry push` build on; `pg-team-store.ts` implements it. See docs/DESIGN.md
 * "Team index (PostgreSQL)".
 *
 * A push is content-addressed per repository: the client asks which chunk postings and file
 * bodies the server lacks (`missingChunks`, `missingContents`), sends only those (`putChunks`,
 * `putContents`), then commits a manifest that names every file and chunk of the new revision
 * (`commitRevision`). Searches read the repository's head revision; the head moves in the same
 * transaction that writes the manifest, so a search sees the old revision or the new one, never
 * a part of it. A revision that is never committed is never visible and `gc` removes it.
 */
import type { ChunkKind } from '../core/chunk.js';
import type { ContentType } from '../core/file.js';
import type { SymbolKind } from '../core/symbol.js';
import type { SearchFilters } from '../search/filters.js';
import type { SearchResult } from '../search/search-result.js';
import type { TextSearchOptions, TextSearchResult } from '../search/text-search.js';
import type { FileSlice, ReadFileOptions } from '../workspace/files.js';

/** A repository of the team index. Names: 1–200 characters of `[A-Za-z0-9._/@-]`, not starting with `.` or `/`. */
export interface TeamRepo {
  readonly name: string;
  /** The committed revision searches read, or null before the first push. */
  readonly head: number | null;
  /** Files and chunks of the head revision (0 before the first push). */
  readonly files: number;
  readonly chunks: number;
  /** When the head revision was committed (ms since the epoch), or null. */
  readonly updatedAtMs: number | null;
}

/** A revision being pushed, returned by `beginRevision`; `id` names it in later calls. */
export interface OpenRevision {
  readonly repo: string;
  readonly id: number;
  /** The revision the push starts from (the head when it began), or null. */
  readonly base: number | null;
}

/** What `commitRevision` did. */
export interface CommittedRevision {
  readonly repo: string;
  readonly id: number;
  readonly files: number;
  readonly chunks: number;
  /** The revision it replaced as head, or null. */
  readonly previous: number | null;
}

/**
 * One FTS5 field of a chunk, in FTS5 column order: the posting's `column`. The weights of
 * `search.weights` apply in this order too.
 */
export const FTS_COLUMNS = ['stem', 'path', 'symbol', 'signature', 'body', 'parts', 'doc'] as const;

/**
 * The lexical postings of one chunk row as SQLite's FTS5 stored them (`fts5vocab` 'instance'):
 * the porter/unicode61 tokenizer ran on the client, the server stores its output. Content-addressed
 * by `hash`: sha256 of the canonical form (see `postingsHash`), checked by the server.
 */
export interface ChunkPayload {
  readonly hash: string;
  /** Tokens in the row, all columns (FTS5's `xColumnSize(-1)`): the BM25 document length. */
  readonly length: number;
  /** Sorted by term, then column: `[term, column, positions]` with positions ascending. */
  readonly postings: ReadonlyArray<readonly [term: string, column: number, positions: readonly number[]]>;
}

/** A file body as the index stores it (decoded text), keyed by the sha256 of its UTF-8 bytes (checked by the server). */
export interface ContentPayload {
  readonly hash: string;
  readonly body: string;
}

/** One chunk of a manifest file. `postings` names a `ChunkPayload`; `hash` is the chunk text's sha256 (`chunkHash` of results). */
export interface ManifestChunk {
  readonly ordinal: number;
  readonly kind: ChunkKind;
  readonly startLine: number;
  readonly endLine: number;
  readonly startByte: number;
  readonly endByte: number;
  readonly hash: string;
  readonly postings: string;
  readonly symbol: string | null;
  readonly container: string | null;
  readonly signature: string | null;
  readonly tsMs: number | null;
}

/** One file of a manifest: `content` names a `ContentPayload` (the sha256 of the stored body). */
export interface ManifestFile {
  readonly path: string;
  readonly language: string;
  readonly contentType: ContentType;
  readonly content: string;
  readonly size: number;
  readonly lineCount: number;
  readonly chunks: readonly ManifestChunk[];
}

/** Chunk vectors of one embedding model, quantised as scry stores them (int8 + scale, see src/embed/quantize.ts). */
export interface VectorPayload {
  /** Model fingerprint (`name@dims@version`), as the SQLite index keys vectors. */
  readonly model: string;
  /** Chunk text hash → the stored vector blob (src/embed/quantize.ts layout: 8-byte header, int8 values and scale, or float32). */
  readonly vectors: ReadonlyArray<readonly [chunkHash: string, vector: Uint8Array]>;
}

/** A whole revision: every file (a revision is a snapshot, not a diff). Paths are unique. */
export interface PushManifest {
  readonly files: readonly ManifestFile[];
}

/** What a local SQLite index holds for a push (see `readPushSource`). */
export interface PushSource {
  readonly manifest: PushManifest;
  /** Postings by hash, for the hashes the server says it lacks. */
  chunks(hashes: readonly string[]): ChunkPayload[];
  /** File bodies by hash. */
  contents(hashes: readonly string[]): ContentPayload[];
  /** Vectors of the index's embedding model, or undefined when it has none. */
  vectors(): VectorPayload | undefined;
}

export interface TeamSearchOptions {
  /** Repositories to search; undefined or empty: every repository of the store (a server narrows this to what a token may read). */
  readonly repos?: readonly string[] | undefined;
  /** Results to return, 1–100; default 10. */
  readonly k?: number | undefined;
  /** One result per file. */
  readonly files?: boolean | undefined;
  readonly filters?: SearchFilters | undefined;
  /** Attach `why` to each result. */
  readonly explain?: boolean | undefined;
}

/** A search result of the team index: `SearchResult` plus the repository it came from. */
export type TeamSearchResult = SearchResult & { readonly repo: string };

/** The same shape as `scry search --json` (`SearchResponse`), with `repo` on each result. */
export interface TeamSearchResponse {
  readonly query: string;
  readonly results: readonly TeamSearchResult[];
  readonly meta: {
    readonly mode: 'lexical';
    readonly semantic: string;
    readonly terms: readonly string[];
    readonly droppedTerms: readonly { readonly raw: string; readonly reason: string }[];
    readonly longQuery: boolean;
    readonly plan: 'any' | 'all' | 'rare';
    readonly filesAggregated: boolean;
    readonly tookMs: number;
    readonly indexedFiles: number;
    readonly root: string;
    /** The repositories searched, with the revision each was read at. */
    readonly repos: readonly { readonly name: string; readonly revision: number }[];
  };
}

export interface TeamTextOptions extends TextSearchOptions {
  readonly repos?: readonly string[] | undefined;
}

/** `TextSearchResult` with the repository on each match. */
export type TeamTextResult = Omit<TextSearchResult, 'matches'> & { readonly matches: ReadonlyArray<TextSearchResult['matches'][number] & { readonly repo: string }> };

/**
 * A slice of a file of a repository's head revision, bounded like the local read_file
 * (`sliceText`). `sha256` is the stored body's hash (sha256 of its UTF-8 bytes, the text the
 * index keeps); `revision` is the head it was read at.
 */
export type TeamFileSlice = FileSlice & { readonly repo: string; readonly revision: number };

export interface TeamListFilesOptions {
  /** Globs (`src/**\/*.ts`, `*.md`) or directory prefixes, as the local list_files takes them; none lists everything. */
  readonly glob?: string | readonly string[] | undefined;
  /** Files to return. Range 1–10,000; default 200. */
  readonly limit?: number | undefined;
  /** Matching files to skip first (the next page starts at `offset + files.length`). Default 0. */
  readonly offset?: number | undefined;
  /** Include paths with a segment starting with `.`. Default false. */
  readonly includeHidden?: boolean | undefined;
}

/** Files of a repository's head revision in path order (byte order), a page of those matching. */
export interface TeamFileListing {
  readonly repo: string;
  readonly revision: number;
  /** Files matching before `offset` and `limit`. */
  readonly total: number;
  readonly offset: number;
  readonly files: ReadonlyArray<{ readonly path: string; readonly language: string; readonly lineCount: number; readonly size: number }>;
}

/** A definition of the team index, from the chunk it heads (`team_chunks.symbol`, `container`, `signature`, `kind`). */
export interface TeamSymbolHit {
  readonly repo: string;
  /** `path#Container.name@line`, as the local search_symbols forms it. */
  readonly id: string;
  readonly name: string;
  readonly kind: SymbolKind;
  readonly container: string | null;
  readonly signature: string | null;
  readonly path: string;
  readonly language: string;
  readonly startLine: number;
  readonly endLine: number;
  readonly match: 'exact' | 'prefix' | 'fuzzy';
  readonly distance: number;
}

export interface TeamSymbolOptions {
  readonly repos?: readonly string[] | undefined;
  /** Only these kinds (default every definition kind). */
  readonly kinds?: readonly SymbolKind[] | undefined;
  /** Range 1–1000; default 20. */
  readonly limit?: number | undefined;
}

/** The storage interface of the team index. Every method may throw `EngineError` (TEAM_DB_FAILED, PUSH_INVALID, REPO_NOT_FOUND...). */
export interface TeamStore {
  /** Applies pending migrations; TEAM_DB_TOO_NEW when the database is newer than this build. Idempotent. */
  migrate(): Promise<{ from: number; to: number }>;
  /** Creates the repository when missing (INVALID_ARGUMENT for a bad name). */
  ensureRepo(name: string): Promise<TeamRepo>;
  listRepos(): Promise<TeamRepo[]>;
  /** The hashes among `hashes` whose postings the repository does not have. */
  missingChunks(repo: string, hashes: readonly string[]): Promise<string[]>;
  /** The hashes among `hashes` whose bodies the repository does not have. */
  missingContents(repo: string, hashes: readonly string[]): Promise<string[]>;
  /** Opens a revision (invisible to searches until committed). REPO_NOT_FOUND when the repository does not exist. */
  beginRevision(repo: string): Promise<OpenRevision>;
  /** Stores postings (idempotent; hashes checked: PUSH_INVALID on a mismatch). */
  putChunks(revision: OpenRevision, chunks: readonly ChunkPayload[]): Promise<void>;
  /** Stores file bodies (idempotent; hashes checked). */
  putContents(revision: OpenRevision, contents: readonly ContentPayload[]): Promise<void>;
  /** Stores chunk vectors of one model for the repository. */
  putVectors(revision: OpenRevision, vectors: VectorPayload): Promise<void>;
  /**
   * Adds manifest files (with their chunks) to an open revision, for a manifest too large for one
   * request: still invisible until `commitRevision`. PUSH_INVALID when a file names uploads the
   * repository lacks, or a path is already in the revision.
   */
  putFiles(revision: OpenRevision, files: PushManifest['files']): Promise<void>;
  /**
   * Writes the manifest's files (added to those of `putFiles`) and makes the revision the head, in one transaction. Refused whole
   * (PUSH_INVALID) when it names postings or bodies the repository lacks, or is malformed;
   * REVISION_NOT_OPEN when the revision was committed, aborted or collected meanwhile.
   */
  commitRevision(revision: OpenRevision, manifest: PushManifest): Promise<CommittedRevision>;
  /** Drops an open revision (what a failed push does; `gc` does it for pushes that died). */
  abortRevision(revision: OpenRevision): Promise<void>;
  /** Removes open revisions older than `olderThanMs` and data no revision references. */
  gc(options?: { olderThanMs?: number }): Promise<{ revisions: number; chunks: number; contents: number }>;
  /** Lexical search with the SQLite store's ranking, over the head revisions of `repos`. */
  search(query: string, options?: TeamSearchOptions): Promise<TeamSearchResponse>;
  /** Literal or regex search over file bodies (pg_trgm candidates, exact scan in process). */
  searchText(query: string, options?: TeamTextOptions): Promise<TeamTextResult>;
  /** Vector search of one model's vectors, scanned per repository in process. */
  searchVectors(query: Float32Array, model: string, options?: { repos?: readonly string[]; k?: number }): Promise<Array<{ repo: string; path: string; startLine: number; endLine: number; chunkHash: string; score: number }>>;
  /**
   * Lines of one file of the repository's head revision, from its stored body. PATH_OUTSIDE_ROOT
   * for an absolute path or one with a `..` segment, REPO_NOT_FOUND for a repository without a
   * committed revision, FILE_NOT_FOUND (with suggestions) for a path the head does not have.
   */
  readFile(repo: string, path: string, options?: ReadFileOptions): Promise<TeamFileSlice>;
  /** Files of the repository's head revision (REPO_NOT_FOUND without one). */
  listFiles(repo: string, options?: TeamListFilesOptions): Promise<TeamFileListing>;
  /**
   * Definitions by name over the head revisions of `repos` (every repository when none), matched
   * like the local name fallback: exact (any case), then prefix, then within a few typos.
   */
  searchSymbols(name: string, options?: TeamSymbolOptions): Promise<TeamSymbolHit[]>;
  /** Bytes the team tables take on disk (tables, indexes, TOAST). */
  sizeOnDisk(): Promise<number>;
  close(): Promise<void>;
}
