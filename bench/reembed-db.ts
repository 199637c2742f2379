/**
 * One index database's vectors replaced by another built-in model's (issue 18, the model lever):
 * what bench/reembed.ts does to each copied benchmark index. Nothing here embeds on its own: every
 * vector is dropped, the index's embedding queue is invalidated, and the engine's own embedding
 * pass (src/indexer/embed-pass.ts `runEmbedPass`) runs with the built-in provider pointed at the
 * candidate's directory, so each chunk is embedded from its stored text exactly as the indexer
 * embeds it (`embeddingText`, `encodeVector`, the configured `embed.maxChars` and `embed.storage`)
 * and the pass records the model's identity (`embed_model` fingerprint, `embed_ready`,
 * `embed_state`). The vector snapshot beside the database (`<db>.vec`, `<db>.vec.ok`) is removed
 * and written again by the engine's `persistVectors`. The working tree is never read: the chunk
 * texts are in the database.
 */
import { rmSync } from 'node:fs';
import { resolveConfig } from '../src/config/resolve.js';
import { silentLogger } from '../src/core/logger.js';
import { createBuiltinProvider } from '../src/embed/builtin-provider.js';
import { fingerprintKey, type ModelFingerprint } from '../src/embed/provider.js';
import { vectorFilePath } from '../src/embed/vector-file.js';
import { SemanticLayer } from '../src/engine/semantic.js';
import { EMBED_MODEL_KEY, EMBED_READY_KEY, runEmbedPass } from '../src/indexer/embed-pass.js';
import { INDEX_FEATURE_VERSION } from '../src/indexer/feature-version.js';
import { openConnection } from '../src/store/driver.js';
import { SCHEMA_VERSION } from '../src/store/migrations/index.js';
import { IndexStore } from '../src/store/index-store.js';

export interface ReembedReport {
  /** The model key the vectors are stored under now (`builtin:scry-code-nbow:<dims>:<sha>`). */
  readonly model: string;
  /** Distinct chunk texts embedded, and the index's chunks (each has a vector of the model now). */
  readonly embedded: number;
  readonly chunks: number;
  /** Where the vector snapshot came from when it was written again (`sqlite`), or why not. */
  readonly snapshot: string;
  readonly wallMs: number;
  readonly cpuMs: number;
}

/** Removes the vector snapshot and its memo beside `dbPath` (the next sync writes them again). */
export function removeVectorSnapshot(dbPath: string): void {
  const vec = vectorFilePath(dbPath);
  for (const f of [vec, `${vec}.ok`]) rmSync(f, { force: true });
}

/**
 * Replaces every vector of the index at `dbPath` with the built-in model in `modelDir`'s. The
 * index is written in place: call it on a copy. Throws the model's MODEL_NOT_FOUND / MODEL_INVALID
 * before anything is written.
 */
export async function reembedDatabase(dbPath: string, modelDir: string): Promise<ReembedReport> {
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const config = await resolveConfig({ db: dbPath, env: {} });
  const { batchSize, maxChars, storage } = config.embed;
  const provider = createBuiltinProvider({ batchSize }, { builtinModelDir: modelDir });
  // load (and check) the model before the index is touched
  const fingerprint = await provider.fingerprint();
  const store = IndexStore.open(dbPath, { create: false });
  try {
    // every vector goes, and no model counts as complete: the pass queues every file and embeds every text
    store.transaction(() => {
      store.embeddings.keepOnly('');
      store.meta.set(EMBED_READY_KEY, '');
    });
    removeVectorSnapshot(dbPath);
    const report = await runEmbedPass({ store, provider, batchSize, maxChars, storage, logger: silentLogger, now: Date.now });
    if (report.pending !== 0 || report.covered !== report.chunks) throw new Error(`${dbPath}: ${report.pending} texts left without a vector`);
    const snapshot = new SemanticLayer(config, silentLogger, Date.now).persistVectors(store);
    const cpu = process.cpuUsage(c0);
    return { model: fingerprintKey(fingerprint), embedded: report.embedded, chunks: report.chunks, snapshot: String(snapshot), wallMs: Math.round(performance.now() - t0), cpuMs: Math.round((cpu.user + cpu.system) / 1000) };
  } finally {
    store.close();
    await provider.close();
  }
}

/** What a database file says of itself, read on a read-only connection (nothing migrated or written). */
export interface IndexIdentity {
  readonly schema: number;
  readonly featureVersion: number | undefined;
  /** The model key its vectors are stored under, when it has one. */
  readonly model: string | undefined;
}

export function peekIndex(path: string): IndexIdentity {
  const db = openConnection(path, { readonly: true });
  try {
    const schema = Number(db.pragma('user_version'));
    const meta = (key: string): string | undefined => db.prepare<[string], { value: string }>('SELECT value FROM meta WHERE key = ?').get(key)?.value;
    const fv = meta('feature_version');
    const model = meta(EMBED_MODEL_KEY);
    return { schema, featureVersion: fv === undefined ? undefined : Number(fv), model: model ? fingerprintKey(JSON.parse(model) as ModelFingerprint) : undefined };
  } finally {
    db.close();
  }
}

/** A database the benchmark reads as is: the current schema and feature version (an older one is rebuilt from its tree, not re-embedded). */
export function isCurrentIndex(id: IndexIdentity): boolean {
  return id.schema === SCHEMA_VERSION && id.featureVersion === INDEX_FEATURE_VERSION;
}

export interface VectorDiff {
  /** Chunks of `a` with a vector of its model, how many of those have the very same bytes in `b`, differ, or have none there. */
  readonly chunks: number;
  readonly same: number;
  readonly differ: number;
  readonly missing: number;
  /** The model keys of `a` and `b`. */
  readonly models: readonly [string | undefined, string | undefined];
}

/** Each chunk's vector (by content hash) under the index's recorded model, read only. */
function chunkVectors(path: string): { model: string | undefined; vectors: Map<string, Buffer> } {
  const { model } = peekIndex(path);
  const vectors = new Map<string, Buffer>();
  if (!model) return { model, vectors };
  const db = openConnection(path, { readonly: true });
  try {
    const rows = db.prepare<[string], { hash: string; vector: Uint8Array }>('SELECT c.hash AS hash, e.vector AS vector FROM chunks c JOIN embeddings e ON e.model = ? AND e.chunk_hash = c.hash');
    for (const r of rows.iterate(model)) vectors.set(r.hash, Buffer.from(r.vector));
  } finally {
    db.close();
  }
  return { model, vectors };
}

/** The stored vectors of two indexes of the same tree, chunk by chunk, byte for byte (the identity check); both opened read-only. */
export function compareVectors(aPath: string, bPath: string): VectorDiff {
  const a = chunkVectors(aPath);
  const b = chunkVectors(bPath);
  let same = 0;
  let differ = 0;
  let missing = 0;
  for (const [hash, v] of a.vectors) {
    const w = b.vectors.get(hash);
    if (!w) missing++;
    else if (v.equals(w)) same++;
    else differ++;
  }
  return { chunks: a.vectors.size, same, differ, missing, models: [a.model, b.model] };
}
