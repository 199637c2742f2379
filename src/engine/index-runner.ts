import { EngineError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import { HandoffUnavailable, errorMessage, requestIndex } from '../freshness/handoff.js';
import type { WriterLease } from '../freshness/lease.js';
import type { IndexReport } from '../indexer/index-report.js';
import type { IndexProgress } from '../indexer/progress.js';
import type { IndexOptions } from './engine-api.js';

/** How often a process waiting for a lock whose owner takes no requests looks again. */
const WAIT_POLL_MS = 200;

const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason ?? new Error('aborted'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });

export interface IndexRunnerDeps {
  readonly lease: WriterLease;
  /** Give up with INDEX_LOCKED after waiting this long for an owner that takes no requests. */
  readonly lockTimeoutMs: number;
  /** One pass over the store; only ever called while the lease is held. */
  readonly pass: (options: IndexOptions) => Promise<IndexReport>;
  readonly logger: Logger;
}

/**
 * Where an `index()` call runs. Passes of one process run one after another (a promise chain).
 * Across processes, exactly one holds the lease: if this process holds it (a watcher runs here)
 * the pass runs at once; if nobody does, this process takes it for the pass, serves any request
 * that arrived meanwhile, and lets go; if another process holds it, the request is handed to that
 * process, which runs it after its current pass and streams progress back. An owner that takes
 * no requests (an older scry) or cannot be reached is waited for, politely, up to lockTimeoutMs.
 */
export class IndexRunner {
  private chain: Promise<unknown> = Promise.resolve();

  constructor(private readonly deps: IndexRunnerDeps) {}

  /** Serialises `fn` after every pass this process already started. */
  serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.chain.then(fn);
    this.chain = run.catch(() => undefined);
    return run;
  }

  /** `handOff: false` runs the pass here, waiting for the lock, never in the owner (which may index another root). */
  index(options: IndexOptions, handOff = true): Promise<IndexReport> {
    return this.serial(() => this.runOrHandOff(options, handOff));
  }

  private async runOrHandOff(options: IndexOptions, handOff: boolean): Promise<IndexReport> {
    const { lease } = this.deps;
    if (lease.held) return this.deps.pass(options); // the long-running writer of this process
    const deadline = Date.now() + this.deps.lockTimeoutMs;
    for (;;) {
      options.signal?.throwIfAborted();
      const owner = await lease.tryAcquire('index');
      if (owner === undefined) return this.runHoldingLease(options);
      if (owner.endpoint && handOff) {
        try {
          return await requestIndex(owner.endpoint, { paths: options.paths, rebuild: options.rebuild }, {
            signal: options.signal,
            onAccepted: (o) => options.onHandoff?.(o),
            onWaiting: (p) => options.onLockWait?.({ pid: owner.pid, progress: p }),
            onProgress: options.onProgress,
          });
        } catch (err) {
          if (!(err instanceof HandoffUnavailable)) throw err;
          // the owner is letting go (the lock is free on the next try), or cannot be reached
        }
      }
      if (Date.now() >= deadline) throw new EngineError('INDEX_LOCKED', { pid: owner.pid, lock: lease.path });
      options.onLockWait?.({ pid: owner.pid });
      await sleep(owner.endpoint && handOff ? 50 : WAIT_POLL_MS, options.signal);
    }
  }

  /** This process's pass, then every request that queued behind it, then the lease goes. */
  private async runHoldingLease(options: IndexOptions): Promise<IndexReport> {
    const { lease } = this.deps;
    try {
      const onProgress = (p: IndexProgress): void => {
        options.onProgress?.(p);
        lease.broadcast(p);
      };
      const report = await this.deps.pass({ ...options, onProgress });
      await this.drainRequests();
      return report;
    } finally {
      await lease.release();
    }
  }

  /** Runs the requests other processes handed over while this one held the lease. */
  async drainRequests(): Promise<void> {
    const { lease } = this.deps;
    for (let served = lease.takeRequest(); served; served = lease.takeRequest()) {
      const target = served;
      try {
        const report = await this.deps.pass({
          paths: target.request.paths,
          rebuild: target.request.rebuild,
          onProgress: (p) => {
            target.send({ type: 'progress', progress: p });
            lease.broadcast(p);
          },
        });
        target.send({ type: 'done', report });
      } catch (err) {
        target.send(errorMessage(err));
        this.deps.logger.warn('a handed-over index request failed', { reason: (err as Error).message });
      }
    }
  }
}
