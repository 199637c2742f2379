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
  /** Search capabilities that are live. */
  readonly capabilities: { readonly lexical: boolean; readonly semantic: boolean; readonly semanticReason: string };
  /** The process currently holding the writer lock, if any. */
  readonly writer: { readonly pid: number; readonly since: string } | null;
}

export const SEMANTIC_UNAVAILABLE = 'lexical only: no embedding provider is configured';
