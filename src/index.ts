// The public library API of scry. Any new export added here becomes public API: named exports
// only, and the export list is pinned by test/unit/public-api.test.ts.
export { createEngine } from './engine/engine.js';
export type { Engine, EngineOptions, IndexOptions, SearchOptions } from './engine/engine.js';
export type { StatusReport } from './engine/status.js';
export { EngineError, ERROR_CODES, isEngineError } from './core/errors.js';
export type { ErrorCode } from './core/errors.js';
export type { ContentType, SkipReason } from './core/file.js';
export type { ChunkKind } from './core/chunk.js';
export type { Logger, Clock } from './core/logger.js';
export type { ConfigInput } from './config/schema.js';
export type { IndexReport } from './indexer/index-report.js';
export type { IndexProgress, IndexPhase } from './indexer/progress.js';
export type { DryRunReport, DirectoryTotal } from './indexer/dry-run.js';
export type { SearchResponse, SearchResult, SearchMeta } from './search/search-result.js';
export { MARK_OPEN, MARK_CLOSE } from './search/snippet.js';
export { MAX_QUERY_BYTES } from './search/query-parse.js';
