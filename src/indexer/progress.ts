/** Progress of one indexing pass, emitted through the library API (the CLI draws a bar from it). */
export type IndexPhase = 'scan' | 'index' | 'finalize' | 'done';

export interface IndexProgress {
  readonly phase: IndexPhase;
  /**
   * In `scan`: files found so far by the walk (reported every {@link SCAN_PROGRESS_EVERY} files, the
   * total unknown until it ends). In `index`: files examined so far, counted file by file as they
   * are prepared (read, parsed, chunked), not batch by batch.
   */
  readonly filesDone: number;
  /** Files that need examining (new, changed or suspect); known after `scan`. */
  readonly filesTotal: number;
  readonly bytesDone: number;
  readonly bytesTotal: number;
}

export type ProgressListener = (event: IndexProgress) => void;

/** The walk reports the files found so far this often: a large tree takes tens of seconds to walk. */
export const SCAN_PROGRESS_EVERY = 200;
