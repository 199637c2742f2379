/**
 * The embedding pass (issue 8): every distinct chunk text of the index without a vector for the
 * configured model is embedded, in batches, and stored under (model fingerprint, chunk hash). It
 * runs after the lexical pass, by the writer only, so lexical search never waits for it. Each batch
 * is committed on its own: a pass stopped by an error, an abort or a crash resumes where it stopped
 * (the next pass finds the rest still pending).
 *
 * Only the chunks of queued files are looked at (issue 19; migration 009): the lexical pass
 * queues each file it writes, and a completed pass empties the queue. Meta `embed_ready` names
 * the model for which every chunk of an unqueued file has a vector; for any other model every
 * file is queued first. So a pass after a one-file edit reads that file's chunks, not the whole
 * index; each batch unqueues the files the cursor has passed, so a stopped pass resumes after
 * them. Vectors of texts no chunk has any more (an edit replaced them) and of other models are
 * swept when the pass queued everything, or once the vectors added or the chunks dropped since
 * the last sweep pass a share of the index: the sweep reads every vector, and a stale vector
 * costs only disk (search joins vectors through chunks).
 */
import { EngineError, isEngineError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import { encodeVector } from '../embed/quantize.js';
import { fingerprintKey, type EmbeddingProvider, type ModelFingerprint } from '../embed/provider.js';
import type { IndexStore } from '../store/index-store.js';
import { PENDING_START, type PendingChunk, type PendingCursor } from '../store/embedding-repo.js';

/** Meta key of the fingerprint (JSON) of the model the index's vectors belong to. */
export const EMBED_MODEL_KEY = 'embed_model';
/** Meta key of the last embedding pass's state (JSON `EmbedState`). */
export const EMBED_STATE_KEY = 'embed_state';
/** Meta key of the model key for which every chunk of a file not in `embed_queue` has a vector. */
export const EMBED_READY_KEY = 'embed_ready';
/** Meta key of the last sweep of stale vectors (JSON `SweepState`). */
const SWEEP_KEY = 'embed_sweep';
/** A sweep is due once the vectors added, or the chunks dropped, since the last pass this share of its chunks (plus SWEEP_MIN). */
const SWEEP_SHARE = 0.05;
const SWEEP_MIN = 16;

/** Chunks of the index at the last sweep, and vectors added since. */
interface SweepState {
  readonly chunks: number;
  readonly added: number;
}

export interface EmbedProgress {
  readonly phase: 'embed';
  /** Distinct chunk texts embedded so far in this pass. */
  readonly done: number;
  /** Distinct chunk texts that were pending when the pass started. */
  readonly total: number;
}

export interface EmbedReport {
  readonly model: ModelFingerprint;
  /** Texts embedded by this pass. */
  readonly embedded: number;
  /** Texts still without a vector (0 when the pass completed; more when a time budget stopped it). */
  readonly pending: number;
  /** Chunks of the index with a vector for the model, and all chunks. */
  readonly covered: number;
  readonly chunks: number;
  /** Vectors removed (texts gone, other models), when the pass completed. */
  readonly removed: number;
  readonly durationMs: number;
  /** Time inside the provider's `embed` calls: the pipeline's own overhead is `durationMs` minus this. */
  readonly providerMs: number;
}

/** What `scry status` and search metadata read back: the last pass's outcome. */
export interface EmbedState {
  readonly model: string;
  readonly covered: number;
  readonly chunks: number;
  readonly pending: number;
  readonly at: number;
  /** The error code and message that stopped the last pass, if one did. */
  readonly error?: { readonly code: string; readonly message: string } | undefined;
}

export interface EmbedPassOptions {
  readonly store: IndexStore;
  readonly provider: EmbeddingProvider;
  readonly batchSize: number;
  /** A chunk's text is cut to this many characters. */
  readonly maxChars: number;
  readonly storage: 'int8' | 'float32';
  readonly logger: Logger;
  readonly now: () => number;
  readonly onProgress?: ((p: EmbedProgress) => void) | undefined;
  readonly signal?: AbortSignal | undefined;
  /** Stop after the batch that passes this much time (a watcher's idle slice); the rest stays pending. */
  readonly budgetMs?: number | undefined;
}

/**
 * What is embedded for a chunk: its path and the symbol it defines, then its text. The path and
 * name carry meaning the body alone may not (a test file, a `parseConfig` method).
 */
export function embeddingText(c: Pick<PendingChunk, 'path' | 'symbol' | 'container'>, text: string, maxChars: number): string {
  const name = c.symbol ? `${c.container ? `${c.container}.` : ''}${c.symbol}` : '';
  const head = name ? `${c.path} ${name}\n` : `${c.path}\n`;
  const body = text.length > maxChars ? text.slice(0, maxChars) : text;
  return head + body;
}

/** Writes the pass's state, unless the stored one says the same (a pass with nothing to do writes nothing). */
function saveState(store: IndexStore, state: EmbedState): void {
  const stored = parseJson<EmbedState>(store.read(() => store.meta.get(EMBED_STATE_KEY)));
  if (stored && JSON.stringify({ ...stored, at: 0 }) === JSON.stringify({ ...state, at: 0 })) return;
  store.transaction(() => store.meta.set(EMBED_STATE_KEY, JSON.stringify(state)));
}

function parseJson<T>(s: string | undefined): T | undefined {
  if (s === undefined) return undefined;
  try {
    return JSON.parse(s) as T;
  } catch {
    return undefined;
  }
}

/**
 * Makes the queue hold every file whose chunks may lack a vector for `model`: unless the index's
 * vectors were complete for it when the queue was last emptied, every file. True when it queued all.
 */
function queueFor(store: IndexStore, model: string): boolean {
  if (store.read(() => store.meta.get(EMBED_READY_KEY)) === model) return false;
  store.transaction(() => {
    store.embeddings.queueAll();
    store.meta.set(EMBED_READY_KEY, model);
  });
  return true;
}

/** Chunks with a vector for `model`: every chunk but the queued ones without (the queue's invariant). */
function coveredChunks(store: IndexStore, model: string): number {
  return store.read(() => store.chunks.count() - store.embeddings.missingChunks(model));
}

/**
 * Nothing pending: the queue is emptied and, when due, stale vectors are swept, in one transaction
 * (none at all when there is nothing to write). Returns the vectors removed.
 */
function complete(store: IndexStore, model: string, embedded: number, queuedAll: boolean): number {
  const chunks = store.read(() => store.chunks.count());
  const sweep = parseJson<SweepState>(store.read(() => store.meta.get(SWEEP_KEY)));
  const added = (sweep?.added ?? 0) + embedded;
  const due = queuedAll || !sweep || added > sweep.chunks * SWEEP_SHARE + SWEEP_MIN || chunks < sweep.chunks * (1 - SWEEP_SHARE) - SWEEP_MIN;
  const queued = store.read(() => store.embeddings.queued());
  if (!due && !queued && embedded === 0) return 0;
  return store.transaction(() => {
    store.embeddings.clearQueue();
    if (!due) {
      store.meta.set(SWEEP_KEY, JSON.stringify({ chunks: sweep!.chunks, added } satisfies SweepState));
      return 0;
    }
    const removed = store.embeddings.removeOrphans() + store.embeddings.keepOnly(model);
    store.meta.set(SWEEP_KEY, JSON.stringify({ chunks, added: 0 } satisfies SweepState));
    return removed;
  });
}

/** Runs one embedding pass to completion (or until it fails or is aborted; what was done stays). */
export async function runEmbedPass(options: EmbedPassOptions): Promise<EmbedReport> {
  const { store, provider, signal } = options;
  const started = performance.now();
  const fingerprint = await provider.fingerprint({ signal });
  const model = fingerprintKey(fingerprint);
  const previous = store.read(() => store.meta.get(EMBED_MODEL_KEY));
  if (previous !== JSON.stringify(fingerprint)) store.transaction(() => store.meta.set(EMBED_MODEL_KEY, JSON.stringify(fingerprint)));
  const queuedAll = queueFor(store, model);
  const total = store.read(() => store.embeddings.pendingCount(model));
  const chunks = store.read(() => store.chunks.count());
  let done = 0;
  let providerMs = 0;
  options.onProgress?.({ phase: 'embed', done, total });
  const batch = Math.max(1, Math.min(options.batchSize, provider.maxBatch));
  let cursor: PendingCursor = PENDING_START;
  try {
    for (;;) {
      signal?.throwIfAborted();
      const rows = store.read(() => store.embeddings.pending(model, cursor, batch));
      if (rows.length === 0) break;
      cursor = rows[rows.length - 1]!;
      const seen = new Set<string>();
      const pending = rows.filter((c) => !seen.has(c.chunkHash) && seen.add(c.chunkHash));
      const texts = pending.map((c) => embeddingText(c, store.read(() => store.content.slice(c.fileHash, c.startByte, c.endByte)) ?? '', options.maxChars));
      const t0 = performance.now();
      const vectors = await provider.embed(texts, { signal, purpose: 'document' });
      providerMs += performance.now() - t0;
      if (vectors.length !== pending.length) throw new EngineError('EMBEDDING_FAILED', { provider: provider.name, reason: `${vectors.length} vectors for ${pending.length} texts` });
      store.transaction(() => {
        pending.forEach((c, i) => {
          const v = vectors[i]!;
          if (v.length !== fingerprint.dimensions) throw new EngineError('EMBEDDING_FAILED', { provider: provider.name, reason: `a ${v.length}-dimensional vector; the model has ${fingerprint.dimensions}` });
          store.embeddings.put(model, c.chunkHash, Buffer.from(encodeVector(v, options.storage)));
        });
        // the files the cursor has left behind are done: a stopped pass resumes after them
        store.embeddings.dequeueBefore(cursor.fileId);
      });
      done += pending.length;
      options.onProgress?.({ phase: 'embed', done, total: Math.max(total, done) });
      if (options.budgetMs !== undefined && performance.now() - started >= options.budgetMs) {
        const pendingNow = store.read(() => store.embeddings.pendingCount(model));
        if (pendingNow > 0) {
          const covered = coveredChunks(store, model);
          saveState(store, { model, covered, chunks, pending: pendingNow, at: options.now() });
          return { model: fingerprint, embedded: done, pending: pendingNow, covered, chunks, removed: 0, durationMs: performance.now() - started, providerMs };
        }
      }
    }
  } catch (err) {
    const covered = coveredChunks(store, model);
    const code = isEngineError(err) ? err.code : signal?.aborted ? 'ABORTED' : 'INTERNAL';
    saveState(store, { model, covered, chunks, pending: Math.max(0, total - done), at: options.now(), error: { code, message: err instanceof Error ? err.message : String(err) } });
    throw err;
  }
  const removed = complete(store, model, done, queuedAll);
  saveState(store, { model, covered: chunks, chunks, pending: 0, at: options.now() });
  if (done > 0) options.logger.info(`embedded ${done} chunk texts with ${model}`);
  return { model: fingerprint, embedded: done, pending: 0, covered: chunks, chunks, removed, durationMs: performance.now() - started, providerMs };
}

/** The stored model fingerprint and last pass state, for status and search metadata. */
export function readEmbedState(store: IndexStore): { model: ModelFingerprint | undefined; state: EmbedState | undefined } {
  return store.read(() => ({ model: parseJson<ModelFingerprint>(store.meta.get(EMBED_MODEL_KEY)), state: parseJson<EmbedState>(store.meta.get(EMBED_STATE_KEY)) }));
}

/** Chunks with a vector for `model`, cheaply when the queue is kept for it (status). */
export function vectorCoverage(store: IndexStore, model: string): number {
  if (store.read(() => store.meta.get(EMBED_READY_KEY)) === model) return coveredChunks(store, model);
  return store.read(() => store.embeddings.coveredChunks(model));
}
