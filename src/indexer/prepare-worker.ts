// Worker-thread entry: prepares batches of files (read, decode, parse, chunk, hash, fields) for
// the indexer's main thread, which only writes. See prepare-pool.ts.
import { parentPort, workerData } from 'node:worker_threads';
import type { WorkerData, WorkerRequest } from './prepare-pool.js';
import { loadChunkEmbedder } from './chunk-vectors.js';
import { contentKey, prepareBatch, type PrepareEmbedding } from './prepare.js';

const { config, contents } = workerData as WorkerData;
const stored = new Set(contents);
const reusable = (hash: string, language: string): boolean => stored.has(contentKey(hash, language));
// the built-in model, loaded once for this thread when the pass embeds as it prepares
const embedding: Promise<PrepareEmbedding | undefined> = config.embed
  ? loadChunkEmbedder(config.embed).then((embedder) => (embedder ? { embedder, seen: new Set<number>() } : undefined))
  : Promise.resolve(undefined);

// batches are handled one at a time, in order: grammar loading is the only await
let queue: Promise<void> = Promise.resolve();

parentPort?.on('message', (message: WorkerRequest) => {
  queue = queue.then(async () => {
    try {
      const hints = message.hints;
      const onFile = (file: number): void => parentPort!.postMessage({ id: message.id, file });
      const batch = await prepareBatch(config, message.batch, { stored: hints?.stored, reusable: hints?.reuse ? reusable : undefined }, onFile, undefined, await embedding);
      const transfer = batch.files.flatMap((f) => (f.ok ? [f.bytes.buffer as ArrayBuffer, ...(f.vectors ? [f.vectors.buffer as ArrayBuffer] : [])] : []));
      parentPort!.postMessage({ id: message.id, batch }, [...new Set(transfer)]);
    } catch (err) {
      parentPort!.postMessage({ id: message.id, error: err instanceof Error ? err.message : String(err) });
    }
  });
});
