/**
 * Vector search over the index's chunk embeddings (issue 8): the vectors of the active model are
 * held in memory in a `FlatVectorIndex` (int8 or float32, scanned by the WebAssembly SIMD kernel),
 * keyed by chunk id. The first search loads them; later searches bring the set up to date with what
 * changed since (chunks removed, chunks added or re-embedded), checked only when the database
 * changed. The scan is exact: every vector is scored.
 */
import { FlatVectorIndex } from '../embed/flat-scan.js';
import { decodeVectorBlob } from '../embed/quantize.js';
import type { IndexStore } from '../store/index-store.js';

export interface VectorSnapshot {
  readonly index: FlatVectorIndex;
  /** Chunks with a vector in the index. */
  readonly size: number;
}

/** The in-memory vectors of one model for one store, kept in step with the database. */
export class VectorIndexCache {
  private index: FlatVectorIndex | undefined;
  private model = '';
  private version = '';
  private store: IndexStore | undefined;
  /** Chunk id → content hash, for every chunk in the index. */
  private readonly hashes = new Map<number, string>();

  /** The vectors of `model`, or undefined when the index has none. */
  sync(store: IndexStore, model: string): VectorSnapshot | undefined {
    const version = store.read(() => store.search.dataVersion());
    if (store !== this.store || model !== this.model) this.reset(store, model);
    else if (version === this.version && this.index) return { index: this.index, size: this.index.size };
    store.read(() => this.update(store, model));
    this.version = version;
    return this.index && this.index.size > 0 ? { index: this.index, size: this.index.size } : undefined;
  }

  private reset(store: IndexStore, model: string): void {
    this.index = undefined;
    this.hashes.clear();
    this.store = store;
    this.model = model;
    this.version = '';
  }

  private update(store: IndexStore, model: string): void {
    // the bulk join read this snapshot's vectors whole: there is nothing to compare yet
    if (this.hashes.size === 0) return this.bulkLoad(store, model);
    const current = new Map<number, string>();
    for (const row of store.embeddings.chunkIds()) current.set(row.id, row.hash);
    // removed chunks, and chunks whose id now holds another text
    for (const [id, hash] of this.hashes) {
      if (current.get(id) !== hash) {
        this.index?.remove(id);
        this.hashes.delete(id);
      }
    }
    for (const [id, hash] of current) {
      if (this.hashes.get(id) === hash) continue;
      const blob = store.embeddings.get(model, hash);
      if (blob) this.add(id, hash, blob); // else not embedded yet: looked at again after the next change
    }
  }

  private add(id: number, hash: string, blob: Buffer): void {
    // decoded once here (the index would decode the blob again)
    const v = decodeVectorBlob(blob);
    this.index ??= new FlatVectorIndex({ dimensions: v.values.length, storage: v.kind });
    if (v.values.length !== this.index.dimensions) return;
    this.index.add(id, v.kind === 'int8' ? v : v.values);
    this.hashes.set(id, hash);
  }

  /** The first load: one join over chunks and their vectors instead of a lookup per chunk. */
  private bulkLoad(store: IndexStore, model: string): void {
    for (const row of store.embeddings.chunkVectors(model)) this.add(row.id, row.hash, row.vector);
  }
}
