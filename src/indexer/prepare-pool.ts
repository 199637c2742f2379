import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { FileCandidate } from '../core/file.js';
import type { Clock, Logger } from '../core/logger.js';
import { contentKey, prepareBatch, type FileDone, type PrepareConfig, type PreparedBatch } from './prepare.js';

/** What the index holds of a batch's content; plain data, so that it can be sent to a worker. */
export interface BatchHints {
  /** Content hash by path, of the files stored with the current feature version. */
  readonly stored?: ReadonlyMap<string, string> | undefined;
  /** Whether a file whose content another stored file has is left unparsed (for the writer to copy). */
  readonly reuse: boolean;
}

/** Prepares batches of files, on worker threads when they are available. */
export interface Preparer {
  /** How many batches may usefully be in flight at once. */
  readonly parallelism: number;
  /** Without hints every accepted file is parsed. `onFile` hears of each file as it is prepared. */
  prepare(batch: readonly FileCandidate[], hints?: BatchHints, onFile?: FileDone): Promise<PreparedBatch>;
  close(): Promise<void>;
}

/** Whether a file of `language` with content `hash` is stored with the current feature version. */
export type ContentLookup = (hash: string, language: string) => boolean;

/** Inline preparation: for small passes, where starting a thread costs more than it saves. `clock` times the parse guard. */
export function inlinePreparer(config: PrepareConfig, reusable?: ContentLookup, clock?: Clock): Preparer {
  return {
    parallelism: 1,
    prepare: (batch, hints, onFile) => prepareBatch(config, batch, { stored: hints?.stored, reusable: hints?.reuse ? reusable : undefined }, onFile, clock),
    close: async () => {},
  };
}

/** A worker's answer to a batch, or (`file`) word that one of its files is prepared. */
type Reply = { id: number; batch?: PreparedBatch; error?: string; file?: number };

/** What a worker starts with: the config, and the contents the index held when the pass began (`contentKey`s). */
export interface WorkerData {
  readonly config: PrepareConfig;
  readonly contents: readonly string[];
}

/** A batch sent to a worker. */
export interface WorkerRequest {
  readonly id: number;
  readonly batch: readonly FileCandidate[];
  readonly hints?: BatchHints | undefined;
}

function startWorker(workerData: WorkerData): Worker {
  const here = import.meta.url;
  if (here.endsWith('.js')) return new Worker(new URL('./prepare-worker.js', here), { workerData });
  // Running from TypeScript sources (tests): load the worker through tsx, a dev dependency.
  const entry = new URL('./prepare-worker.ts', here).href;
  const code = `import('tsx/esm/api').then((m) => { m.register(); return import(${JSON.stringify(entry)}); });`;
  return new Worker(code, { eval: true, workerData });
}

/** Batches queued on each worker at once (see `workerPreparer`). */
const QUEUED_PER_WORKER = 2;

/** Worker threads for a large pass: one per core, at most 2 (the main thread writes meanwhile). */
export function workerCount(): number {
  return Math.max(1, Math.min(2, availableParallelism()));
}

/**
 * Worker threads preparing batches while the main thread writes: reading, decoding, parsing,
 * chunking and hashing overlap SQLite's FTS inserts. Batches go to the worker with the fewest in
 * flight. If a worker cannot start or dies, its batches are prepared inline; nothing is lost.
 * `contents` (`contentKey`s) are the reusable contents: the index's as the pass began.
 */
export function workerPreparer(config: PrepareConfig, logger: Logger, count = workerCount(), contents: readonly string[] = []): Preparer {
  const known = new Set(contents);
  const inline = inlinePreparer(config, (hash, language) => known.has(contentKey(hash, language)));
  const workers: Array<{ worker: Worker; busy: number; failed: boolean }> = [];
  let nextId = 0;
  let warned = false;
  const pending = new Map<number, { resolve: (f: PreparedBatch) => void; reject: (e: Error) => void; slot: number; onFile: FileDone | undefined }>();
  const fail = (slot: number, err: Error): void => {
    if (!warned) logger.warn('indexing worker unavailable, preparing files on the main thread', { reason: err.message });
    warned = true;
    workers[slot]!.failed = true;
    for (const [id, p] of pending) {
      if (p.slot !== slot) continue;
      pending.delete(id);
      p.reject(err);
    }
  };
  for (let slot = 0; slot < count; slot++) {
    try {
      const worker = startWorker({ config, contents });
      workers.push({ worker, busy: 0, failed: false });
      worker.on('message', (reply: Reply) => {
        const p = pending.get(reply.id);
        if (!p) return;
        if (reply.file !== undefined) return p.onFile?.(reply.file);
        pending.delete(reply.id);
        workers[slot]!.busy--;
        if (reply.batch) p.resolve(reply.batch);
        else p.reject(new Error(reply.error ?? 'worker failed'));
      });
      worker.on('error', (err) => fail(slot, err));
      worker.on('exit', (code) => {
        if ([...pending.values()].some((p) => p.slot === slot)) fail(slot, new Error(`worker exited with code ${code}`));
      });
    } catch (err) {
      logger.warn('indexing worker unavailable, preparing files on the main thread', { reason: (err as Error).message });
      warned = true;
    }
  }
  return {
    // two batches per worker: one being prepared, the next queued behind it, so that a worker that
    // finishes early starts another batch instead of waiting for the writer to take the oldest one
    parallelism: Math.max(1, workers.length * QUEUED_PER_WORKER),
    prepare: async (batch, hints, onFile) => {
      const live = workers.map((w, slot) => ({ w, slot })).filter(({ w }) => !w.failed);
      if (live.length === 0) return inline.prepare(batch, hints, onFile);
      const { w, slot } = live.reduce((a, b) => (b.w.busy < a.w.busy ? b : a));
      const id = nextId++;
      w.busy++;
      try {
        return await new Promise<PreparedBatch>((resolve, reject) => {
          pending.set(id, { resolve, reject, slot, onFile });
          const request: WorkerRequest = { id, batch, hints };
          w.worker.postMessage(request);
        });
      } catch {
        return inline.prepare(batch, hints, onFile);
      }
    },
    close: async () => {
      await Promise.all(workers.map((w) => w.worker.terminate()));
    },
  };
}
