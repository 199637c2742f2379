import type { EmbedReport } from './embed-pass.js';
import type { SkipReason } from '../core/file.js';

/** What one indexing pass did. */
export interface IndexReport {
  /** Files seen by the walk and accepted for indexing. */
  readonly filesSeen: number;
  /** Files whose chunks were (re)written. */
  readonly filesIndexed: number;
  /**
   * Of `filesIndexed`, files not parsed because a stored file of the same language already had
   * their content (a rename, a copy): its chunks, symbols and imports were copied to them.
   */
  readonly filesReused: number;
  /** Files whose size/mtime changed but whose content did not (only their stat was updated). */
  readonly filesTouched: number;
  /** Files left alone because size and mtime matched. */
  readonly filesUnchanged: number;
  /** Files removed from the index (deleted on disk, or now skipped). */
  readonly filesRemoved: number;
  readonly chunksWritten: number;
  readonly bytesIndexed: number;
  /** Paths left out, counted by reason (files and directories). */
  readonly skipped: Partial<Record<SkipReason, number>>;
  readonly durationMs: number;
  /**
   * The embedding pass that followed (when an embedding provider is configured and the pass was
   * not asked to skip it): its report, or the provider error that stopped it (lexical search is
   * ready either way; the rest stays pending for the next pass or `scry embed`).
   */
  readonly embedding?: EmbedReport | { readonly error: { readonly code: string; readonly message: string } } | undefined;
}
