// The public library API of scry. Any new export added here becomes public API: named exports
// only, and the export list is pinned by test/unit/public-api.test.ts.
export { createEngine } from './engine/engine.js';
export type { Engine, EngineOptions, IndexOptions, SearchOptions, SymbolOptions, ReferenceOptions } from './engine/engine.js';
export type { StatusReport } from './engine/status.js';
export { EngineError, ERROR_CODES, isEngineError } from './core/errors.js';
export type { ErrorCode } from './core/errors.js';
export type { ContentType, SkipReason } from './core/file.js';
export type { ChunkKind, FallbackReason } from './core/chunk.js';
export type { SymbolKind, ImportKind } from './core/symbol.js';
export type { SymbolHit, SymbolMatch } from './search/symbol-search.js';
export type { ReferencesResult, ReferenceGroup, Reference, ReferenceKind } from './search/references.js';
export type { FileOutline, ResolvedImport } from './search/outline.js';
export type { SymbolRow, ImportRow } from './store/structure-repo.js';
export type { Logger, Clock } from './core/logger.js';
export type { ConfigInput } from './config/schema.js';
export type { IndexReport } from './indexer/index-report.js';
export type { IndexProgress, IndexPhase } from './indexer/progress.js';
export type { DryRunReport, DirectoryTotal } from './indexer/dry-run.js';
export type { SearchResponse, SearchResult, SearchMeta } from './search/search-result.js';
export { MARK_OPEN, MARK_CLOSE } from './search/snippet.js';
export { MAX_QUERY_BYTES } from './search/query-parse.js';
export type { ListFilesOptions, FileListing, SimilarOptions, SymbolDefinition } from './engine/engine.js';
export type { ReadFileOptions, FileSlice } from './workspace/files.js';
export type { ListedFile } from './store/file-repo.js';
export { formatSymbolId, parseSymbolId } from './search/symbol-id.js';
export type { ParsedSymbolId } from './search/symbol-id.js';
export { loadTokenCounter, estimateTokens } from './context/tokens.js';
export type { TokenCounter } from './context/tokens.js';
