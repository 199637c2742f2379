import type { SkipReason } from '../core/file.js';

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
  readonly dbBytes: number;
  /** Code structure: definitions and imports stored, files by parser, and files that fell back to line windows. */
  readonly structure: StructureStatus;
  /** Search capabilities that are live. */
  readonly capabilities: { readonly lexical: boolean; readonly semantic: boolean; readonly semanticReason: string };
  /** The process currently holding the writer lock, if any. */
  readonly writer: { readonly pid: number; readonly since: string } | null;
}

export const SEMANTIC_UNAVAILABLE = 'lexical only: no embedding provider is configured';

export interface StructureStatus {
  readonly symbols: number;
  readonly imports: number;
  /** Files by the parser that chunked them (`tree-sitter`, `markdown`, `json`, `window`...). */
  readonly parsers: Record<string, number>;
  /** Files of a language with a grammar that were chunked by line windows, by language and reason. */
  readonly fallbacks: ReadonlyArray<{ readonly language: string; readonly reason: string; readonly files: number; readonly example: string }>;
}

export const EMPTY_STRUCTURE: StructureStatus = { symbols: 0, imports: 0, parsers: {}, fallbacks: [] };
