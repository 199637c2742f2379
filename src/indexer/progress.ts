/** Progress of one indexing pass, emitted through the library API (the CLI draws a bar from it). */
export type IndexPhase = 'scan' | 'index' | 'finalize' | 'done';

export interface IndexProgress {
  readonly phase: IndexPhase;
  /** Files examined so far in the `index` phase. */
  readonly filesDone: number;
  /** Files that need examining (new, changed or suspect); known after `scan`. */
  readonly filesTotal: number;
  readonly bytesDone: number;
  readonly bytesTotal: number;
}

export type ProgressListener = (event: IndexProgress) => void;
