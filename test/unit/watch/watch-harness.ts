import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFileWatcher, type ChangeBatch, type FileWatcher, type FileWatcherOptions } from '../../../src/watch/file-watcher.js';
import { writeTree } from '../discover/walk-helpers.js';

export interface WatchHarness {
  readonly root: string;
  readonly watcher: FileWatcher;
  /** Every batch the harness took so far, in order (it takes as soon as onDue fires, while `autoTake`). */
  readonly batches: ChangeBatch[];
  /** Take on onDue (default), or leave taking to the test (a busy consumer). */
  autoTake: boolean;
  /** How many times onDue fired. */
  readonly dues: number;
  readonly warnings: { message: string; data?: Record<string, unknown> }[];
  /** Writes files under the root (POSIX relative path → content). */
  write(files: Record<string, string>): void;
  abs(rel: string): string;
  /** Paths of every 'paths' batch so far. */
  paths(): Set<string>;
  rescans(): string[];
  /** Resolves once `predicate` holds; fails after `timeoutMs` (generous: this waits for the OS, it is not a timing assertion). */
  until(predicate: () => boolean, what: string, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** Short waits so that tests run fast; a real consumer uses the defaults (500 / 2,000). */
export const FAST = { debounceMs: 50, maxBatchWaitMs: 400, stormPaths: 1000, pollIntervalMs: 30_000 } as const;

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A real temp root with `files` (and whatever `prepare` adds), and a watcher on it whose consumer takes every batch at once. */
export async function startHarness(
  files: Record<string, string>,
  overrides: Partial<FileWatcherOptions> = {},
  prepare: (root: string) => void = () => {},
): Promise<WatchHarness> {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'scry-watch-')));
  writeTree(root, files);
  prepare(root);
  const batches: ChangeBatch[] = [];
  const warnings: WatchHarness['warnings'] = [];
  const state = { autoTake: true, dues: 0 };
  // onDue runs from a timer, so `watcher` is assigned by the time it is called
  const watcher: FileWatcher = await startFileWatcher({
    walk: { root, maxFileBytes: 1_000_000, ignore: [], denylist: { add: [], remove: [] } },
    backend: 'directories',
    ...FAST,
    onDue: () => {
      state.dues++;
      if (!state.autoTake) return;
      const batch = watcher.take();
      if (batch) batches.push(batch);
    },
    onWarning: (message, data) => warnings.push(data ? { message, data } : { message }),
    ...overrides,
  });
  return {
    root,
    watcher,
    batches,
    get autoTake() {
      return state.autoTake;
    },
    set autoTake(value: boolean) {
      state.autoTake = value;
    },
    get dues() {
      return state.dues;
    },
    warnings,
    write: (more) => writeTree(root, more),
    abs: (rel) => join(root, ...rel.split('/')),
    paths: () => new Set(batches.flatMap((b) => (b.kind === 'paths' ? b.paths : []))),
    rescans: () => batches.flatMap((b) => (b.kind === 'rescan' ? [b.reason] : [])),
    async until(predicate, what, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (!predicate()) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; batches: ${JSON.stringify(batches).slice(0, 2000)}`);
        await sleep(10);
      }
    },
    async close() {
      await watcher.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
