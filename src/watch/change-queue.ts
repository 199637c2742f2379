import type { Scheduler } from '../core/logger.js';
/** Why a batch asks for a full incremental pass instead of naming paths. */
export type RescanReason = 'storm' | 'ignore-rules' | 'watcher-error' | 'poll' | 'unknown-path';

/** What the consumer indexes next: the paths that changed, or everything (one incremental pass over the walk). */
export type ChangeBatch =
  | {
      readonly kind: 'paths';
      /** Root-relative, `/`-separated, sorted, unique. A path may be a file or a directory that is gone. */
      readonly paths: readonly string[];
    }
  | { readonly kind: 'rescan'; readonly reason: RescanReason };

/** Time and one-shot timers (`core/logger.ts`); a watcher's must not keep the process alive. */
export type { Scheduler } from '../core/logger.js';

/** Real time: `performance.now()` and unref'd timeouts (the consumer decides what keeps the process up). */
export const systemScheduler: Scheduler = {
  now: () => performance.now(),
  schedule: (delayMs, run) => {
    const timer = setTimeout(run, delayMs);
    timer.unref();
    return () => clearTimeout(timer);
  },
};

export interface ChangeQueueOptions {
  /** A path is ready once no event touched it for this long (ms, ≥ 0). */
  readonly debounceMs: number;
  /** A path is overdue this long after its first pending event, however busy it stays (ms, ≥ 0). */
  readonly maxBatchWaitMs: number;
  /** More pending paths than this drops them all for one rescan (≥ 1). */
  readonly stormPaths: number;
  /** Called from a timer when a batch becomes due; at most once until the next `take()`. */
  readonly onDue: () => void;
  /** Reports an exception thrown by `onDue` (swallowed: it must not crash a timer callback). */
  readonly onWarning?: ((message: string, data?: Record<string, unknown>) => void) | undefined;
  readonly scheduler?: Scheduler | undefined;
}

/** A storm's rescan waits at most this many `maxBatchWaitMs` while events keep coming. */
export const STORM_WAIT_FACTOR = 5;

interface PathState {
  /** First event since the path was last taken. */
  readonly first: number;
  last: number;
  /** Ready or overdue when onDue fired: part of the batch promised then. */
  promised?: boolean;
}

interface PendingRescan {
  readonly reason: RescanReason;
  /** Last event of any kind since the rescan was requested. */
  last: number;
  /** Due at this time even if events keep arriving. */
  deadline: number;
}

/**
 * Debounces and batches change events (see `startFileWatcher` for the rules). Memory is bounded by
 * `stormPaths`: past it the paths are dropped and one rescan stands for all of them.
 */
export class ChangeQueue {
  private readonly scheduler: Scheduler;
  /** Insertion order is first-event order, so the first entry is the oldest. */
  private readonly paths = new Map<string, PathState>();
  /** Latest event among the pending paths. */
  private latest = -Infinity;
  private rescan: PendingRescan | undefined;
  /** When onDue fired, if take() has not been called since. */
  private signalledAt: number | undefined;
  private cancelTimer: (() => void) | undefined;
  private timerAt = Infinity;
  private closed = false;

  constructor(private readonly options: ChangeQueueOptions) {
    this.scheduler = options.scheduler ?? systemScheduler;
  }

  /** Records an event on `path`. */
  add(path: string): void {
    if (this.closed) return;
    const now = this.scheduler.now();
    if (this.rescan) {
      // a pending rescan covers every path; the event only keeps it from going quiet
      this.rescan.last = now;
      return;
    }
    const state = this.paths.get(path);
    if (state) state.last = now;
    else if (this.paths.size >= this.options.stormPaths) return this.requestRescan('storm');
    else this.paths.set(path, { first: now, last: now });
    this.latest = now;
    this.arm();
  }

  /**
   * Replaces whatever is pending by one rescan. It is due once no event arrived for `debounceMs`,
   * or at the latest `maxBatchWaitMs` after the request (`STORM_WAIT_FACTOR` times that for a
   * storm); `immediate` makes it due now (polling). A second request keeps the first reason and
   * the earlier deadline.
   */
  requestRescan(reason: RescanReason, immediate = false): void {
    if (this.closed) return;
    const now = this.scheduler.now();
    this.paths.clear();
    this.latest = -Infinity;
    const wait = immediate ? 0 : reason === 'storm' ? STORM_WAIT_FACTOR * this.options.maxBatchWaitMs : this.options.maxBatchWaitMs;
    if (this.rescan) {
      this.rescan.last = now;
      this.rescan.deadline = Math.min(this.rescan.deadline, now + wait);
    } else {
      this.rescan = { reason, last: now, deadline: now + wait };
    }
    this.arm();
  }

  pending(): { readonly paths: number; readonly rescan: boolean } {
    return { paths: this.paths.size, rescan: this.rescan !== undefined };
  }

  /**
   * Removes and returns what is due now: a due rescan, else every ready or overdue path. After
   * onDue it always returns a batch: what was due then (even if events arrived since) and
   * whatever else became ready.
   */
  take(): ChangeBatch | undefined {
    if (this.closed) return undefined;
    const now = this.scheduler.now();
    const signalledAt = this.signalledAt;
    this.signalledAt = undefined;
    const batch = this.rescan ? this.takeRescan(now, signalledAt) : this.takePaths(now, signalledAt);
    this.arm();
    return batch;
  }

  close(): void {
    this.closed = true;
    this.disarm();
    this.paths.clear();
    this.rescan = undefined;
  }

  private takeRescan(now: number, signalledAt: number | undefined): ChangeBatch | undefined {
    const rescan = this.rescan;
    if (!rescan || (signalledAt === undefined && now < this.rescanDueAt(rescan))) return undefined;
    this.rescan = undefined;
    return { kind: 'rescan', reason: rescan.reason };
  }

  private takePaths(now: number, signalledAt: number | undefined): ChangeBatch | undefined {
    const taken: string[] = [];
    let latest = -Infinity;
    for (const [path, state] of this.paths) {
      // a path promised when onDue fired is taken whatever happened since
      if ((signalledAt !== undefined && state.promised) || this.isDue(state, now)) taken.push(path);
      else latest = Math.max(latest, state.last);
    }
    if (taken.length === 0) return undefined;
    for (const path of taken) this.paths.delete(path);
    this.latest = latest;
    return { kind: 'paths', paths: taken.sort() };
  }

  private isDue(state: PathState, now: number): boolean {
    return now - state.last >= this.options.debounceMs || now - state.first >= this.options.maxBatchWaitMs;
  }

  private rescanDueAt(rescan: PendingRescan): number {
    return Math.min(rescan.last + this.options.debounceMs, rescan.deadline);
  }

  /** When the pending changes become a due batch; undefined when nothing is pending. */
  private dueAt(): number | undefined {
    if (this.rescan) return this.rescanDueAt(this.rescan);
    const oldest = this.paths.values().next();
    if (oldest.done) return undefined;
    return Math.min(this.latest + this.options.debounceMs, oldest.value.first + this.options.maxBatchWaitMs);
  }

  /**
   * Keeps one timer, armed no later than the due time. Events only move the due time later, so
   * most of them leave the timer alone; when it fires early it re-arms for the new due time.
   */
  private arm(): void {
    if (this.closed || this.signalledAt !== undefined) return;
    const due = this.dueAt();
    if (due === undefined) return this.disarm();
    if (this.cancelTimer && this.timerAt <= due) return;
    this.disarm();
    const delay = Math.max(0, Math.ceil(due - this.scheduler.now()));
    this.timerAt = due;
    this.cancelTimer = this.scheduler.schedule(delay, () => this.onTimer());
  }

  private disarm(): void {
    this.cancelTimer?.();
    this.cancelTimer = undefined;
    this.timerAt = Infinity;
  }

  private onTimer(): void {
    this.cancelTimer = undefined;
    this.timerAt = Infinity;
    if (this.closed || this.signalledAt !== undefined) return;
    const due = this.dueAt();
    if (due === undefined) return;
    const now = this.scheduler.now();
    if (now < due) return this.arm();
    this.signalledAt = now;
    for (const state of this.paths.values()) state.promised = this.isDue(state, now);
    try {
      this.options.onDue();
    } catch (err) {
      this.options.onWarning?.('watch: onDue threw', { error: err instanceof Error ? err.message : String(err) });
    }
  }
}
