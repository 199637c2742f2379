import { isEngineError, type Clock, type Engine, type IndexProgress, type Logger } from '../index.js';
import type { HostFreshness } from '../tools/tool.js';

/** Default minimum time between background index passes (`--refresh-interval`). */
export const DEFAULT_REFRESH_INTERVAL_MS = 30_000;
/** How long `close()` waits for a running pass to stop before giving up on it. */
const CLOSE_WAIT_MS = 5_000;

export const REFRESHING_WARNING = 'index refresh in progress';

export interface RefreshOptions {
  /**
   * Minimum time from the end of one pass to the start of the next, in ms. A pass starts only
   * when a tool call comes in after that (lazily; there is no timer). 0 refreshes on every call,
   * still one pass at a time. Default 30 000.
   */
  readonly intervalMs?: number | undefined;
  readonly clock?: Clock | undefined;
  /** Failed passes are logged here (the server's stderr). */
  readonly logger?: Logger | undefined;
}

/** The parts of an engine the refresher drives. */
export type IndexingEngine = Pick<Engine, 'index' | 'isIndexed'>;

/**
 * Keeps the index of a long-running server fresh without making a tool call wait for it.
 * `start()` runs an incremental pass in the background (cheap when nothing changed). Calls wait
 * for a pass only while no completed index exists yet (`ready`); otherwise they read the index as
 * it stands and carry the warning `index refresh in progress`. After that, `touch()` (every tool
 * call) starts another background pass once the interval has passed since the last one ended.
 * Until the file watcher lands, this is how edits made outside the server reach the index. If
 * another process holds the writer lock, the pass waits for it or gives up, and the server keeps
 * answering from the index that process is writing.
 */
export class IndexRefresher {
  private readonly intervalMs: number;
  private readonly clock: Clock;
  private readonly logger: Logger | undefined;
  private readonly abort = new AbortController();
  private readonly listeners = new Set<(event: IndexProgress) => void>();
  private running: Promise<void> | undefined;
  private indexed = false;
  private closed = false;
  private lastEndedAt = -Infinity;
  private ended = 0;
  private lockOwner: number | undefined;
  private lastError: string | undefined;

  constructor(
    private readonly engine: IndexingEngine,
    options: RefreshOptions = {},
  ) {
    this.intervalMs = options.intervalMs ?? DEFAULT_REFRESH_INTERVAL_MS;
    this.clock = options.clock ?? { now: () => Date.now() };
    this.logger = options.logger;
  }

  /** Starts the first pass in the background. */
  start(): void {
    this.hasIndex();
    if (!this.running) this.run();
  }

  /** Passes ended so far (successful or not): what the index holds may have changed since. */
  get passes(): number {
    return this.ended;
  }

  /** True while a pass runs (started by this server). */
  get refreshing(): boolean {
    return this.running !== undefined;
  }

  /**
   * Resolves when tools can answer: at once if a completed index exists, otherwise when the
   * running pass ends (successfully or not: a tool then reports what is missing). Progress events
   * of that pass go to `onProgress` while waiting; `signal` stops the wait (the pass goes on).
   */
  async ready(options: { signal?: AbortSignal | undefined; onProgress?: ((event: IndexProgress) => void) | undefined } = {}): Promise<void> {
    const pass = this.running;
    if (!pass || this.hasIndex()) return;
    const { signal, onProgress } = options;
    if (onProgress) this.listeners.add(onProgress);
    let onAbort: (() => void) | undefined;
    try {
      signal?.throwIfAborted();
      const aborted = new Promise<never>((_, reject) => {
        onAbort = () => reject(signal?.reason ?? new Error('aborted'));
        signal?.addEventListener('abort', onAbort, { once: true });
      });
      await Promise.race([pass, aborted]);
    } finally {
      if (onProgress) this.listeners.delete(onProgress);
      if (onAbort) signal?.removeEventListener('abort', onAbort);
    }
  }

  /** Called on every tool call: starts a background pass when one is due. Never waits. */
  touch(): void {
    if (this.closed || this.running) return;
    if (this.clock.now() - this.lastEndedAt < this.intervalMs) return;
    this.run();
  }

  /** The host's view of freshness, for index_status. */
  freshness(): HostFreshness {
    const ended = Number.isFinite(this.lastEndedAt) ? new Date(this.lastEndedAt).toISOString() : null;
    return { indexing: this.running !== undefined, lastRefreshAt: ended, lastError: this.lastError ?? null, mode: `background pass on start, then at most every ${Math.round(this.intervalMs / 1000)} s when tools are used` };
  }

  /** What every tool result should say about the index right now. */
  warnings(): string[] {
    const out: string[] = [];
    if (this.running) out.push(this.lockOwner !== undefined ? `${REFRESHING_WARNING} (waiting for pid ${this.lockOwner}, which is writing this index)` : REFRESHING_WARNING);
    if (this.lastError !== undefined) out.push(`index refresh failed: ${this.lastError}`);
    return out;
  }

  /** Stops a running pass at its next batch and waits (a bounded time) for it to let go of the index. */
  async close(): Promise<void> {
    this.closed = true;
    this.abort.abort(new Error('the server is shutting down'));
    const pass = this.running;
    if (!pass) return;
    let timer: NodeJS.Timeout | undefined;
    const giveUp = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, CLOSE_WAIT_MS);
      timer.unref();
    });
    await Promise.race([pass, giveUp]);
    clearTimeout(timer);
  }

  /** Whether a completed index exists (cached once true: the check opens the database). */
  private hasIndex(): boolean {
    if (this.indexed) return true;
    try {
      this.indexed = this.engine.isIndexed();
    } catch {
      this.indexed = false; // unreadable (corrupt, too new): the pass reports why
    }
    return this.indexed;
  }

  private run(): void {
    this.lockOwner = undefined;
    const pass = this.engine
      .index({
        signal: this.abort.signal,
        onProgress: (event) => {
          for (const listener of this.listeners) listener(event);
        },
        onLockWait: ({ pid }) => {
          this.lockOwner = pid;
        },
      })
      .then(
        () => {
          this.indexed = true;
          this.lastError = undefined;
        },
        (err: unknown) => this.failed(err),
      )
      .finally(() => {
        this.running = undefined;
        this.lockOwner = undefined;
        this.lastEndedAt = this.clock.now();
        this.ended++;
      });
    this.running = pass;
  }

  private failed(err: unknown): void {
    if (this.closed) return;
    const message = err instanceof Error ? err.message : String(err);
    // another process is writing this index: it keeps it fresh, and reads go on meanwhile
    if (isEngineError(err, 'INDEX_LOCKED') && this.hasIndex()) {
      this.lastError = undefined;
      return;
    }
    this.lastError = message;
    this.logger?.warn(`index refresh failed: ${message}`, isEngineError(err) ? { code: err.code } : {});
  }
}
