import { nameFilter, type WalkOptions } from '../discover/walk.js';
import { ChangeQueue, systemScheduler, type ChangeBatch, type Scheduler } from './change-queue.js';
import { DirectoryBackend } from './dir-watch.js';
import { RecursiveBackend } from './recursive-watch.js';
import { errorCode, errorMessage, nodeWatch, WatchLimitError, type Backend, type BackendContext, type WatchFunction } from './watch-context.js';

export type { ChangeBatch, RescanReason } from './change-queue.js';
export type { WatchFunction } from './watch-context.js';

/**
 * `directories`: one non-recursive watch per directory the index walk enters (Linux default).
 * `recursive`: one recursive watch on the root, every event filtered by the walk's rules (macOS
 * and Windows default). `poll`: no OS watch, a rescan every `pollIntervalMs`. `auto` picks by platform.
 */
export type WatchBackend = 'auto' | 'directories' | 'recursive' | 'poll';

export interface FileWatcherOptions {
  /** What the index walks; `walk.root` is the real path of the root. Watches follow exactly its decisions. */
  readonly walk: WalkOptions;
  readonly backend: WatchBackend;
  /** A path is ready once no event touched it for this long. ms, ≥ 0; default 500. */
  readonly debounceMs: number;
  /** No path waits longer than this once it changed, however busy it stays. ms, ≥ 0; default 2,000. */
  readonly maxBatchWaitMs: number;
  /** More pending paths than this is a storm: they are dropped for one rescan. ≥ 1; default 1,000. */
  readonly stormPaths: number;
  /** Interval of the poll backend, and of the fallback to it. ms, > 0; default 30,000. */
  readonly pollIntervalMs: number;
  /** Called (synchronously, from a timer, at most once until the next take()) when a batch becomes due. */
  readonly onDue: () => void;
  /** Watcher problems worth a log line (an fs.watch error, a fallback to polling). */
  readonly onWarning?: ((message: string, data?: Record<string, unknown>) => void) | undefined;
  /** Whether the OS watches keep the process alive (as `fs.watch`'s option). Timers never do. Default true. */
  readonly persistent?: boolean | undefined;
  /** Replaces `fs.watch` (tests simulate an exhausted inotify limit with it). */
  readonly watchFn?: WatchFunction | undefined;
  /** Replaces real time (tests). */
  readonly scheduler?: Scheduler | undefined;
  /** Replaces `process.platform` when resolving `auto`. */
  readonly platform?: NodeJS.Platform | undefined;
}

export interface FileWatcher {
  /** The backend in use; 'poll' after a fallback. */
  readonly backend: 'directories' | 'recursive' | 'poll';
  /** Why it fell back to polling, if it did. */
  readonly fallbackReason: string | undefined;
  /** OS watches held (directories backend: directories watched; recursive: 1; poll: 0). */
  readonly watches: number;
  /** Pending changes right now: paths queued, and whether a rescan is pending. */
  pending(): { readonly paths: number; readonly rescan: boolean };
  /**
   * Removes and returns the changes that are due now (undefined if none is due). The consumer
   * runs one index pass per batch and calls take() again when it is free; events arriving
   * meanwhile keep accumulating (bounded by stormPaths).
   */
  take(): ChangeBatch | undefined;
  close(): Promise<void>;
}

/** The backend `auto` means on a platform. */
export function resolveBackend(backend: WatchBackend, platform: NodeJS.Platform): 'directories' | 'recursive' | 'poll' {
  if (backend !== 'auto') return backend;
  return platform === 'linux' ? 'directories' : 'recursive';
}

class Watcher implements FileWatcher {
  backend: 'directories' | 'recursive' | 'poll';
  fallbackReason: string | undefined;
  private os: Backend | undefined;
  private readonly queue: ChangeQueue;
  private readonly scheduler: Scheduler;
  private cancelPoll: (() => void) | undefined;
  private closed = false;

  constructor(private readonly options: FileWatcherOptions) {
    this.scheduler = options.scheduler ?? systemScheduler;
    this.backend = resolveBackend(options.backend, options.platform ?? process.platform);
    const { debounceMs, maxBatchWaitMs, stormPaths, onDue } = options;
    this.queue = new ChangeQueue({ debounceMs, maxBatchWaitMs, stormPaths, onDue, scheduler: this.scheduler, onWarning: (message, data) => this.warn(message, data) });
  }

  get watches(): number {
    return this.os?.watches ?? 0;
  }

  start(): void {
    if (this.backend === 'poll') return this.schedulePoll();
    const ctx: BackendContext = {
      walk: this.options.walk,
      filter: nameFilter(this.options.walk),
      queue: this.queue,
      persistent: this.options.persistent ?? true,
      watchFn: this.options.watchFn ?? nodeWatch,
      warn: (message, data) => this.warn(message, data),
      fail: (error) => this.fallBack(error, true),
    };
    this.os = this.backend === 'directories' ? new DirectoryBackend(ctx) : new RecursiveBackend(ctx);
    try {
      this.os.start();
    } catch (err) {
      // nothing was missed yet: the consumer's first pass covers the start
      this.fallBack(err, false);
    }
  }

  pending(): { readonly paths: number; readonly rescan: boolean } {
    return this.queue.pending();
  }

  take(): ChangeBatch | undefined {
    return this.queue.take();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.os?.close();
    this.os = undefined;
    this.cancelPoll?.();
    this.cancelPoll = undefined;
    this.queue.close();
  }

  private warn(message: string, data?: Record<string, unknown>): void {
    try {
      this.options.onWarning?.(message, data);
    } catch {
      // a logger that throws must not take the watcher down
    }
  }

  /** Closes every OS watch and polls instead; at run time events may have been lost, so a rescan follows. */
  private fallBack(err: unknown, atRunTime: boolean): void {
    if (this.closed || this.backend === 'poll') return;
    this.os?.close();
    this.os = undefined;
    const from = this.backend;
    this.backend = 'poll';
    const hint = err instanceof WatchLimitError ? err.hint : undefined;
    this.fallbackReason = hint ? `${errorMessage(err)} (${hint})` : errorMessage(err);
    this.warn('watch: falling back to polling', { from, reason: this.fallbackReason, code: errorCode(err), pollIntervalMs: this.options.pollIntervalMs });
    if (atRunTime) this.queue.requestRescan('watcher-error');
    this.schedulePoll();
  }

  private schedulePoll(): void {
    this.cancelPoll?.();
    this.cancelPoll = this.scheduler.schedule(this.options.pollIntervalMs, () => {
      this.cancelPoll = undefined;
      if (this.closed) return;
      this.queue.requestRescan('poll', true);
      this.schedulePoll();
    });
  }
}

/**
 * Starts watching `options.walk.root` and batching changes for an indexer.
 *
 * **What is watched.** Exactly what the index walk enters: the denylist, secrets, each
 * directory's `.gitignore`/`.scryignore`, config `ignore` patterns and links (a link to a
 * directory is never entered) decide on names before any watch is placed or any event costs a
 * stat. With the `directories` backend, node_modules, .git, build output and gitignored
 * directories hold no watch at all. A new directory is watched with its whole subtree and every
 * file already in it is queued (they may predate the watch); a vanished directory closes its
 * watches and queues its path (the consumer drops what it held), so a directory rename is the old
 * path plus the new subtree's files. Links are queued under their own name; the indexer judges
 * their targets. An edit to an ignore file resyncs the watched set (once per burst of events)
 * and asks for a rescan (`ignore-rules`).
 *
 * **When a batch is due.** Each path keeps its first and last event time. `take()` returns every
 * path that is ready (quiet for `debounceMs`) or overdue (first event `maxBatchWaitMs` ago). A
 * batch becomes due (`onDue` fires, from one re-armed timer, never a polling interval) when all
 * pending paths are ready or the oldest is overdue. So one save is due `debounceMs` after its
 * last event, a steady trickle is flushed at least every `maxBatchWaitMs`, and a file written
 * continuously is not starved. After `onDue`, `take()` always returns a batch: what was due then,
 * even if some of it changed again while the consumer was busy (those changes queue anew).
 *
 * **Rescans.** A requested rescan replaces every pending path (a rescan covers them all). It is
 * due once no event arrived for `debounceMs`, or at the latest `maxBatchWaitMs` after the request.
 *
 * **Storms.** Once more than `stormPaths` paths are pending, they are dropped (memory stays
 * bounded) and one rescan stands for them (`storm`): due when no event at all arrived for
 * `debounceMs`, or `5 × maxBatchWaitMs` after the storm began. A 10,000-file checkout is one
 * rescan batch (plus perhaps a few trailing paths), never thousands of batches. The storm rule is
 * also the safety net for inotify queue overflows (beyond `fs.inotify.max_queued_events`), which
 * libuv drops silently: an overflow only happens under a flood far larger than `stormPaths`.
 *
 * **Failures.** An event without a file name asks for a rescan (`unknown-path`). A watch that
 * errors is closed, re-placed if its directory still exists, and a rescan follows
 * (`watcher-error`). When the OS refuses watches (ENOSPC: the inotify watch limit; EMFILE,
 * ENFILE), every watch is closed and the watcher falls back to polling, with `onWarning` naming
 * the limit and how to raise it, and `fallbackReason` set; at run time a rescan follows, since
 * events may have been lost. Event handlers never throw: a failure is reported and becomes a rescan.
 *
 * **Polling.** The `poll` backend (and the fallback) makes a rescan (`poll`) due every
 * `pollIntervalMs`. Timers never keep the process alive; OS watches do unless `persistent` is
 * false. After `close()` nothing fires.
 *
 * **Not watched.** `.git/info/exclude` (inside .git, which is never watched) and the config's
 * own `ignore` patterns: changing them needs a restart or a full pass.
 */
export async function startFileWatcher(options: FileWatcherOptions): Promise<FileWatcher> {
  const watcher = new Watcher(options);
  watcher.start();
  return watcher;
}
