import type { SkipReason } from '../core/file.js';
import type { ResolvedConfig } from '../config/resolve.js';
import { INDEX_FEATURE_VERSION } from '../indexer/feature-version.js';
import { redactedFiles, type RedactedFile } from '../indexer/redaction-log.js';
import type { IndexStore } from '../store/index-store.js';
import type { ModelFingerprint } from '../embed/provider.js';
import { optionalRuntimes, type RuntimeStatus } from '../embed/runtimes.js';
import type { LanguageServerStatus } from '../lsp/lsp-pool.js';

/** What `scry status` reports about an index. */
export interface StatusReport {
  readonly root: string | null;
  readonly dbPath: string;
  /** False when no index has been built yet at dbPath. */
  readonly indexed: boolean;
  readonly schemaVersion: number | null;
  /** True when the index was built by this build's chunkers (otherwise the next pass re-chunks). */
  readonly featureVersionCurrent: boolean;
  readonly files: number;
  readonly bytes: number;
  readonly chunks: number;
  readonly languages: Record<string, number>;
  readonly contentTypes: Record<string, number>;
  readonly lastPassAt: string | null;
  readonly lastPassSkipped: Partial<Record<SkipReason, number>>;
  /** Stored files whose token literals were redacted (`«redacted:<rule>»`): how many, and at most 100 of them with their rules. */
  readonly redacted: { readonly files: number; readonly list: readonly RedactedFile[] };
  /** Bytes on disk: the database, its WAL and its vector snapshot (`<db>.vec`). */
  readonly dbBytes: number;
  /** Code structure: definitions and imports stored, files by parser, and files that fell back to line windows. */
  readonly structure: StructureStatus;
  /** Search capabilities that are live. */
  readonly capabilities: { readonly lexical: boolean; readonly semantic: boolean; readonly semanticReason: string };
  /** The embedding provider and the index's vectors (issue 8). */
  readonly embeddings: SemanticStatus | null;
  /** The process currently holding the writer lock, if any. */
  readonly writer: { readonly pid: number; readonly since: string } | null;
  /** The optional model runtimes (onnxruntime-node, USE-lite) and whether each is installed (issue 24). */
  readonly runtimes: readonly RuntimeStatus[];
  /** Language servers (issue 21): whether `lsp.enabled` is on, and each known server found, running, failed or missing. */
  readonly languageServers: { readonly enabled: boolean; readonly servers: readonly LanguageServerStatus[] };
}

export const SEMANTIC_UNAVAILABLE = 'lexical only: no embedding provider is configured';

/** What `scry status` and `index_status` say about vectors. */
export interface SemanticStatus {
  readonly provider: string;
  /** The configured model as the config names it. */
  readonly model: string | null;
  /** The fingerprint the index's vectors were made with. */
  readonly vectorsModel: ModelFingerprint | null;
  /** Chunks with a vector, of all chunks (by the last embedding pass). */
  readonly covered: number;
  readonly chunks: number;
  readonly pending: number;
  readonly lastError: { readonly code: string; readonly message: string } | null;
  /** The sentence search metadata carries. */
  readonly reason: string;
}


export interface StructureStatus {
  readonly symbols: number;
  readonly imports: number;
  /** Files by the parser that chunked them (`tree-sitter`, `markdown`, `json`, `window`...). */
  readonly parsers: Record<string, number>;
  /** Files of a language with a grammar that were chunked by line windows, by language and reason. */
  readonly fallbacks: ReadonlyArray<{ readonly language: string; readonly reason: string; readonly files: number; readonly example: string }>;
}

export const EMPTY_STRUCTURE: StructureStatus = { symbols: 0, imports: 0, parsers: {}, fallbacks: [] };

/** The status of the index at `config.dbPath`: `store` is its open store, or undefined when there is no database yet. */
export function statusReport(
  config: ResolvedConfig,
  store: IndexStore | undefined,
  writer: StatusReport['writer'],
  embeddings: SemanticStatus | null = null,
  languageServers: StatusReport['languageServers'] = { enabled: false, servers: [] },
): StatusReport {
  const capabilities = { lexical: false, semantic: false, semanticReason: SEMANTIC_UNAVAILABLE };
  const root = config.root ?? null;
  const runtimes = optionalRuntimes();
  if (!store) {
    return { root, dbPath: config.dbPath, indexed: false, schemaVersion: null, featureVersionCurrent: false, files: 0, bytes: 0, chunks: 0, languages: {}, contentTypes: {}, lastPassAt: null, lastPassSkipped: {}, redacted: { files: 0, list: [] }, dbBytes: 0, structure: EMPTY_STRUCTURE, capabilities, embeddings, writer, runtimes, languageServers };
  }
  return store.read(() => {
    const counts = store.files.counts();
    const lastPass = store.meta.get('last_pass_at');
    const redacted = redactedFiles(store);
    return {
      root,
      dbPath: config.dbPath,
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
      redacted: { files: redacted.length, list: redacted.slice(0, 100) },
      dbBytes: store.sizeOnDisk(),
      structure: { ...store.structure.counts(), parsers: store.files.parsers(), fallbacks: store.files.fallbacks() },
      capabilities: { lexical: lastPass !== undefined, semantic: (embeddings?.covered ?? 0) > 0, semanticReason: embeddings?.reason ?? SEMANTIC_UNAVAILABLE },
      embeddings,
      writer,
      runtimes,
      languageServers,
    };
  });
}
