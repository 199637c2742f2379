/** Where the engine reports things a human may want to know. Injected; never a global. */
export interface Logger {
  debug(message: string, data?: Record<string, unknown>): void;
  info(message: string, data?: Record<string, unknown>): void;
  warn(message: string, data?: Record<string, unknown>): void;
}

export const silentLogger: Logger = {
  debug: () => {},
  info: () => {},
  warn: () => {},
};

/** Time source, injected so that indexing timestamps are testable. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** Time and one-shot timers, injected so that deadlines and batching are tested without waiting. */
export interface Scheduler {
  /** Milliseconds on a monotonic clock. */
  now(): number;
  /** Runs `run` once after `delayMs`; the returned function cancels it. */
  schedule(delayMs: number, run: () => void): () => void;
}
