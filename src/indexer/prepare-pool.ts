import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { FileCandidate } from '../core/file.js';
import type { Logger } from '../core/logger.js';
import { prepareBatch, type PrepareConfig, type PreparedBatch } from './prepare.js';

/** Prepares batches of files, on worker threads when they are available. */
export interface Preparer {
  /** How many batches may usefully be in flight at once. */
  readonly parallelism: number;
  prepare(batch: readonly FileCandidate[]): Promise<PreparedBatch>;
  close(): Promise<void>;
}

/** Inline preparation: for small passes, where starting a thread costs more than it saves. */
export function inlinePreparer(config: PrepareConfig): Preparer {
  return { parallelism: 1, prepare: (batch) => prepareBatch(config, batch), close: async () => {} };
}

type Reply = { id: number; batch?: PreparedBatch; error?: string };

function startWorker(config: PrepareConfig): Worker {
  const here = import.meta.url;
  if (here.endsWith('.js')) return new Worker(new URL('./prepare-worker.js', here), { workerData: config });
  // Running from TypeScript sources (tests): load the worker through tsx, a dev dependency.
  const entry = new URL('./prepare-worker.ts', here).href;
  const code = `import('tsx/esm/api').then((m) => { m.register(); return import(${JSON.stringify(entry)}); });`;
  return new Worker(code, { eval: true, workerData: config });
}

/** Worker threads for a large pass: one per core, at most 2 (the main thread writes meanwhile). */
export function workerCount(): number {
  return Math.max(1, Math.min(2, availableParallelism()));
}

/**
 * Worker threads preparing batches while the main thread writes: reading, decoding, parsing,
 * chunking and hashing overlap SQLite's FTS inserts. Batches go to the worker with the fewest in
 * flight. If a worker cannot start or dies, its batches are prepared inline; nothing is lost.
 */
export function workerPreparer(config: PrepareConfig, logger: Logger, count = workerCount()): Preparer {
  const inline = inlinePreparer(config);
  const workers: Array<{ worker: Worker; busy: number; failed: boolean }> = [];
  let nextId = 0;
  let warned = false;
  const pending = new Map<number, { resolve: (f: PreparedBatch) => void; reject: (e: Error) => void; slot: number }>();
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
      const worker = startWorker(config);
      workers.push({ worker, busy: 0, failed: false });
      worker.on('message', (reply: Reply) => {
        const p = pending.get(reply.id);
        if (!p) return;
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
    parallelism: Math.max(1, workers.length),
    prepare: async (batch) => {
      const live = workers.map((w, slot) => ({ w, slot })).filter(({ w }) => !w.failed);
      if (live.length === 0) return inline.prepare(batch);
      const { w, slot } = live.reduce((a, b) => (b.w.busy < a.w.busy ? b : a));
      const id = nextId++;
      w.busy++;
      try {
        return await new Promise<PreparedBatch>((resolve, reject) => {
          pending.set(id, { resolve, reject, slot });
          w.worker.postMessage({ id, batch });
        });
      } catch {
        return inline.prepare(batch);
      }
    },
    close: async () => {
      await Promise.all(workers.map((w) => w.worker.terminate()));
    },
  };
}
