import { Worker } from 'node:worker_threads';
import type { FileCandidate } from '../core/file.js';
import type { Logger } from '../core/logger.js';
import { prepareBatch, type PrepareConfig, type PreparedFile } from './prepare.js';

/** Prepares batches of files, on a worker thread when one is available. */
export interface Preparer {
  prepare(batch: readonly FileCandidate[]): Promise<PreparedFile[]>;
  close(): Promise<void>;
}

/** Inline preparation: for small passes, where starting a thread costs more than it saves. */
export function inlinePreparer(config: PrepareConfig): Preparer {
  return { prepare: async (batch) => prepareBatch(config, batch), close: async () => {} };
}

type Reply = { id: number; files?: PreparedFile[]; error?: string };

function startWorker(config: PrepareConfig): Worker {
  const here = import.meta.url;
  if (here.endsWith('.js')) return new Worker(new URL('./prepare-worker.js', here), { workerData: config });
  // Running from TypeScript sources (tests): load the worker through tsx, a dev dependency.
  const entry = new URL('./prepare-worker.ts', here).href;
  const code = `import('tsx/esm/api').then((m) => { m.register(); return import(${JSON.stringify(entry)}); });`;
  return new Worker(code, { eval: true, workerData: config });
}

/**
 * One worker thread preparing batches while the main thread writes: on 2 cores this overlaps the
 * CPU work of reading, chunking and hashing with SQLite's FTS inserts. If the worker cannot start
 * or dies, the remaining batches are prepared inline; nothing is lost.
 */
export function workerPreparer(config: PrepareConfig, logger: Logger): Preparer {
  const inline = inlinePreparer(config);
  let worker: Worker | undefined;
  let failed = false;
  let nextId = 0;
  const pending = new Map<number, { resolve: (f: PreparedFile[]) => void; reject: (e: Error) => void }>();
  const fail = (err: Error): void => {
    if (!failed) logger.warn('indexing worker unavailable, preparing files on the main thread', { reason: err.message });
    failed = true;
    for (const p of pending.values()) p.reject(err);
    pending.clear();
  };
  try {
    worker = startWorker(config);
    worker.on('message', (reply: Reply) => {
      const p = pending.get(reply.id);
      if (!p) return;
      pending.delete(reply.id);
      if (reply.files) p.resolve(reply.files);
      else p.reject(new Error(reply.error ?? 'worker failed'));
    });
    worker.on('error', fail);
    worker.on('exit', (code) => {
      if (pending.size > 0) fail(new Error(`worker exited with code ${code}`));
    });
  } catch (err) {
    fail(err as Error);
  }
  return {
    prepare: async (batch) => {
      if (failed || !worker) return inline.prepare(batch);
      const id = nextId++;
      try {
        return await new Promise<PreparedFile[]>((resolve, reject) => {
          pending.set(id, { resolve, reject });
          worker!.postMessage({ id, batch });
        });
      } catch {
        return inline.prepare(batch);
      }
    },
    close: async () => {
      if (worker) await worker.terminate();
    },
  };
}
