// Worker-thread entry: prepares batches of files (read, decode, parse, chunk, hash, fields) for
// the indexer's main thread, which only writes. See prepare-pool.ts.
import { parentPort, workerData } from 'node:worker_threads';
import type { FileCandidate } from '../core/file.js';
import { prepareBatch, type PrepareConfig } from './prepare.js';

const config = workerData as PrepareConfig;

// batches are handled one at a time, in order: grammar loading is the only await
let queue: Promise<void> = Promise.resolve();

parentPort?.on('message', (message: { id: number; batch: FileCandidate[] }) => {
  queue = queue.then(async () => {
    try {
      const batch = await prepareBatch(config, message.batch);
      const transfer = batch.files.flatMap((f) => (f.ok ? [f.bytes.buffer as ArrayBuffer] : []));
      parentPort!.postMessage({ id: message.id, batch }, [...new Set(transfer)]);
    } catch (err) {
      parentPort!.postMessage({ id: message.id, error: err instanceof Error ? err.message : String(err) });
    }
  });
});
