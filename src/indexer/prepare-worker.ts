// Worker-thread entry: prepares batches of files (read, decode, chunk, hash, fields) for the
// indexer's main thread, which only writes. See prepare-pool.ts.
import { parentPort, workerData } from 'node:worker_threads';
import type { FileCandidate } from '../core/file.js';
import { prepareBatch, type PrepareConfig } from './prepare.js';

const config = workerData as PrepareConfig;

parentPort?.on('message', (message: { id: number; batch: FileCandidate[] }) => {
  try {
    const files = prepareBatch(config, message.batch);
    const transfer = files.flatMap((f) => (f.ok ? [f.bytes.buffer as ArrayBuffer] : []));
    parentPort!.postMessage({ id: message.id, files }, [...new Set(transfer)]);
  } catch (err) {
    parentPort!.postMessage({ id: message.id, error: err instanceof Error ? err.message : String(err) });
  }
});
