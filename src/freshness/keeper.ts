import type { Clock, Logger } from '../core/logger.js';
import type { WatchConfig } from '../config/schema.js';
import type { WalkOptions } from '../discover/walk.js';
import type { IndexProgress } from '../indexer/progress.js';
import type { IndexReport } from '../indexer/index-report.js';
import { startFileWatcher, type FileWatcher } from '../watch/file-watcher.js';
import { observedFreshness, publishState, readState, type Freshness, type LastPass, type PassReason, type WatcherInfo } from './freshness.js';
import { errorMessage, type ServedRequest } from './handoff.js';
import type { WriterLease } from './lease.js';

/** One pass the keeper asks the engine to run (as the writer: the lease is held). */
export interface PassJob {
  readonly reason: PassReason;
  /** Only these root-relative paths; undefined is a full incremental pass. */
  readonly paths?: readonly string[] | undefined;
  readonly rebuild?: boolean | undefined;
}

export type WatchEvent =
  | { readonly type: 'role'; readonly role: 'writer' | 'reader'; readonly writerPid?: number | undefined }
  | { readonly type: 'watching'; readonly watcher: WatcherInfo }
  | { readonly type: 'pass-start'; readonly reason: PassReason; readonly paths: number | null }
  | { readonly type: 'progress'; readonly reason: PassReason; readonly progress: IndexProgress }
  | { readonly type: 'pass-end'; readonly reason: PassReason; readonly report: IndexReport }
  | { readonly type: 'pass-error'; readonly reason: PassReason; readonly message: string; readonly code?: string | undefined }
  | { readonly type: 'warning'; readonly message: string; readonly data?: Record<string, unknown> | undefined };

export interface KeeperOptions {
  readonly lease: WriterLease;
  /** Where the writer publishes its freshness for readers (`<db>.state.json`). */
  readonly statePath: string;
  readonly walk: WalkOptions;
  readonly watch: WatchConfig;
  /** Follow changes with a file watcher (default true); false runs the startup pass only. */
  readonly watchFiles: boolean;
  /** Runs one pass; the engine serialises it with its other passes. */
  readonly run: (job: PassJob, hooks: { signal: AbortSignal; onProgress: (p: IndexProgress) => void }) => Promise<IndexReport>;
  readonly isIndexed: () => boolean;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly onEvent?: ((event: WatchEvent) => void) | undefined;
  /** How often a reader checks whether it can take over writing. Default 1,000 ms. */
  readonly takeoverPollMs?: number | undefined;
  /**
   * Background work run in slices while no pass is due (the embedding of new chunks): each call
   * does a bounded amount and resolves true when more remains. A due pass waits for at most the
   * slice in progress; after every pass the work is offered again.
   */
  readonly idleWork?: ((signal: AbortSignal) => Promise<boolean>) | undefined;
}

/** How long `close()` waits for a running pass to stop at its next batch. */
const CLOSE_WAIT_MS = 5_000;
/** Least time between two progress publications (the state file) during a pass. */
const PUBLISH_EVERY_MS = 500;

type Job = PassJob & { readonly served?: ServedRequest | undefined };

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms).unref());

/**
 * Keeps one index fresh for as long as it runs. It tries to become the index's writer (the
 * lease); if another process writes it, it is a reader that tries again every second and takes
 * over when that process exits or dies. As the writer it watches the files first, then runs one
 * incremental pass (startup staleness: stat against the stored size and mtime, hash what differs,
 * re-index only what changed), then one pass per batch of changes the watcher hands it, requests
 * from other processes first. Readers go on reading the index meanwhile (WAL): answers come from
 * the index as it stands, with the state in `freshness()`.
 */
export class IndexKeeper {
  private watcher: FileWatcher | undefined;
  private readonly abort = new AbortController();
  private running: Promise<void> | undefined;
  private current: { reason: PassReason; progress: IndexProgress | null } | undefined;
  private startupDue = false;
  private lastPass: LastPass | null = null;
  private lastError: string | null = null;
  private closed = false;
  private pollTimer: NodeJS.Timeout | undefined;
  private publishedAt = 0;
  private idleWaiters: Array<() => void> = [];
  private becoming: Promise<void> | undefined;
  private readonly progressListeners = new Set<(p: IndexProgress) => void>();
  /** True while `idleWork` may have something to do (reset by every pass). */
  private idleWorkDue = true;

  constructor(private readonly options: KeeperOptions) {}

  get role(): 'writer' | 'reader' {
    return this.options.lease.held ? 'writer' : 'reader';
  }

  /** Becomes the writer, or a reader waiting to take over. Resolves once the role is settled. */
  async start(): Promise<void> {
    if (await this.tryBecomeWriter()) return;
    const owner = this.options.lease.owner();
    this.emit({ type: 'role', role: 'reader', writerPid: owner?.pid });
    this.pollTimer = setInterval(() => void this.tryBecomeWriter().catch((err: Error) => this.warn('taking over the index failed', { reason: err.message })), this.options.takeoverPollMs ?? 1000);
    this.pollTimer.unref();
  }

  private async tryBecomeWriter(): Promise<boolean> {
    if (this.closed) return false;
    if (this.options.lease.held) return true;
    this.becoming ??= (async () => {
      const other = await this.options.lease.tryAcquire('watch');
      if (other || this.closed) return;
      if (this.pollTimer) clearInterval(this.pollTimer);
      this.pollTimer = undefined;
      this.options.lease.onRequest = () => this.pump();
      this.emit({ type: 'role', role: 'writer' });
      if (this.options.watchFiles) await this.startWatcher();
      this.startupDue = true;
      this.pump();
    })().finally(() => (this.becoming = undefined));
    await this.becoming;
    return this.options.lease.held;
  }

  private async startWatcher(): Promise<void> {
    const { watch, walk } = this.options;
    try {
      this.watcher = await startFileWatcher({
        walk,
        backend: watch.backend,
        debounceMs: watch.debounceMs,
        maxBatchWaitMs: watch.maxBatchWaitMs,
        stormPaths: watch.stormPaths,
        pollIntervalMs: watch.pollIntervalMs,
        onDue: () => this.pump(),
        onWarning: (message, data) => this.warn(message, data),
      });
      this.emit({ type: 'watching', watcher: this.watcherInfo()! });
    } catch (err) {
      this.warn('cannot watch the files; the index is refreshed only on request', { reason: (err as Error).message });
    }
  }

  private watcherInfo(): WatcherInfo | null {
    const w = this.watcher;
    return w ? { backend: w.backend, watches: w.watches, fallbackReason: w.fallbackReason ?? null } : null;
  }

  /** Runs the next job if none is running: requests first, then the startup pass, then due changes. */
  private pump(): void {
    if (this.closed || this.running || !this.options.lease.held) return;
    const job = this.nextJob();
    if (!job && this.idleWorkDue && this.options.idleWork) {
      const work = this.options.idleWork;
      this.running = work(this.abort.signal)
        .then((more) => {
          this.idleWorkDue = more;
        })
        .catch((err: unknown) => {
          this.idleWorkDue = false;
          if (!this.closed) this.warn('background work failed', { reason: err instanceof Error ? err.message : String(err) });
        })
        .finally(() => {
          this.running = undefined;
          this.pump();
        });
      return;
    }
    if (!job) {
      this.publish(true);
      if (this.isIdle()) for (const resolve of this.idleWaiters.splice(0)) resolve();
      return;
    }
    this.running = this.runJob(job).finally(() => {
      this.running = undefined;
      this.current = undefined;
      this.pump();
    });
  }

  private nextJob(): Job | undefined {
    const served = this.options.lease.takeRequest();
    if (served) return { reason: 'request', paths: served.request.paths, rebuild: served.request.rebuild, served };
    if (this.startupDue) {
      this.startupDue = false;
      return { reason: 'startup' };
    }
    const batch = this.watcher?.take();
    if (batch?.kind === 'paths') return { reason: 'changes', paths: batch.paths };
    if (batch?.kind === 'rescan') return { reason: 'rescan' };
    return undefined;
  }

  private async runJob(job: Job): Promise<void> {
    const { reason, served } = job;
    this.current = { reason, progress: null };
    this.emit({ type: 'pass-start', reason, paths: job.paths?.length ?? null });
    this.publish(true);
    const onProgress = (progress: IndexProgress): void => {
      if (this.current) this.current.progress = progress;
      for (const listener of this.progressListeners) listener(progress);
      served?.send({ type: 'progress', progress });
      this.options.lease.broadcast(progress);
      this.emit({ type: 'progress', reason, progress });
      this.publish(false);
    };
    this.idleWorkDue = true;
    try {
      const report = await this.options.run({ reason, paths: job.paths, rebuild: job.rebuild }, { signal: this.abort.signal, onProgress });
      this.lastPass = {
        reason,
        at: new Date(this.options.clock.now()).toISOString(),
        durationMs: report.durationMs,
        filesIndexed: report.filesIndexed,
        filesRemoved: report.filesRemoved,
        filesTouched: report.filesTouched,
      };
      this.lastError = null;
      served?.send({ type: 'done', report });
      this.emit({ type: 'pass-end', reason, report });
    } catch (err) {
      served?.send(errorMessage(err));
      if (this.closed) return;
      const message = err instanceof Error ? err.message : String(err);
      // a requester's bad paths are its own error, not the index's
      if (!served) this.lastError = message;
      const code = (err as { code?: string }).code;
      this.emit({ type: 'pass-error', reason, message, code });
      if (!served) this.options.logger.warn(`index pass failed: ${message}`, code ? { code } : {});
    }
  }

  private isIdle(): boolean {
    const p = this.watcher?.pending();
    return !this.running && !this.startupDue && this.options.lease.queued === 0 && (p === undefined || (p.paths === 0 && !p.rescan));
  }

  /** Resolves when the writer has nothing pending and no pass running (tests and benchmarks). */
  idle(): Promise<void> {
    if (this.options.lease.held && this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /**
   * Resolves when tools can answer: at once if a completed index exists; otherwise when the first
   * pass (this process's, or the writer's) has completed one. Progress of that pass goes to
   * `onProgress`; `signal` stops the wait.
   */
  async ready(options: { signal?: AbortSignal | undefined; onProgress?: ((p: IndexProgress) => void) | undefined } = {}): Promise<void> {
    const { onProgress } = options;
    // as the writer, every event of the pass; as a reader, what the writer publishes
    if (onProgress) this.progressListeners.add(onProgress);
    try {
      let lastSeen: IndexProgress | null = null;
      for (;;) {
        options.signal?.throwIfAborted();
        if (this.safeIsIndexed()) return;
        if (!this.options.lease.held && onProgress) {
          const progress = this.freshness().progress;
          if (progress && JSON.stringify(progress) !== JSON.stringify(lastSeen)) onProgress(progress);
          lastSeen = progress;
        }
        // the first pass failed and nothing is running: tools report what is missing
        if (this.options.lease.held && !this.running && !this.startupDue && this.lastError !== null) return;
        if (this.closed) return;
        await sleep(50);
      }
    } finally {
      if (onProgress) this.progressListeners.delete(onProgress);
    }
  }

  private safeIsIndexed(): boolean {
    try {
      return this.options.isIndexed();
    } catch {
      return false;
    }
  }

  freshness(): Freshness {
    if (!this.options.lease.held) {
      const seen = observedFreshness(this.options.lease.owner(), readState(this.options.statePath));
      return { ...seen, role: 'reader' };
    }
    const pending = this.watcher?.pending() ?? { paths: 0, rescan: false };
    const waiting = pending.paths > 0 || pending.rescan || this.startupDue || this.options.lease.queued > 0;
    const state = this.current ? 'indexing' : waiting ? 'pending' : this.watcher ? 'fresh' : 'unwatched';
    return {
      state,
      role: 'writer',
      writer: { pid: process.pid, role: 'watch' },
      watcher: this.watcherInfo(),
      pendingChanges: pending.paths,
      rescanPending: pending.rescan || this.startupDue,
      progress: this.current?.progress ?? null,
      lastPass: this.lastPass,
      lastError: this.lastError,
    };
  }

  /** Writes the state file for readers: on every transition, and at most twice a second during a pass. */
  private publish(force: boolean): void {
    if (!this.options.lease.held) return;
    const now = this.options.clock.now();
    if (!force && now - this.publishedAt < PUBLISH_EVERY_MS) return;
    this.publishedAt = now;
    publishState(this.options.statePath, { pid: process.pid, updatedAt: now, freshness: this.freshness() });
  }

  private emit(event: WatchEvent): void {
    try {
      this.options.onEvent?.(event);
    } catch {
      // a listener's failure is not the keeper's
    }
  }

  private warn(message: string, data?: Record<string, unknown>): void {
    this.options.logger.warn(message, data);
    this.emit({ type: 'warning', message, data });
  }

  /** Stops watching, stops a running pass at its next batch (bounded wait), and gives up the lease. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.pollTimer) clearInterval(this.pollTimer);
    this.abort.abort(new Error('the index keeper is shutting down'));
    await this.becoming?.catch(() => undefined);
    await this.watcher?.close().catch(() => undefined);
    const pass = this.running;
    if (pass) await Promise.race([pass, sleep(CLOSE_WAIT_MS)]);
    for (const resolve of this.idleWaiters.splice(0)) resolve();
    if (this.options.lease.held) await this.options.lease.release();
  }
}
