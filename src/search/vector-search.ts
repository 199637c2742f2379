/**
 * Vector search over the index's chunk embeddings (issue 8): the vectors of the active model are
 * held in memory in a `FlatVectorIndex` (int8 or float32, scanned by the WebAssembly SIMD kernel),
 * keyed by chunk id. The first search loads them; later searches bring the set up to date with what
 * changed since (chunks removed, chunks added or re-embedded), checked only when the database
 * changed. The scan is exact: every vector is scored.
 */
import { FlatVectorIndex } from '../embed/flat-scan.js';
import { decodeVectorBlob } from '../embed/quantize.js';
import { HASH_BYTES, vectorFilePath, writeVectorFile } from '../embed/vector-file.js';
import { loadVectorFile } from '../embed/vector-file-load.js';
import type { Clock } from '../core/logger.js';
import { VECTORS_STAMP_KEY } from '../store/meta-repo.js';
import type { IndexStore } from '../store/index-store.js';

export interface VectorSnapshot {
  readonly index: FlatVectorIndex;
  /** Chunks with a vector in the index. */
  readonly size: number;
}

/** Where the vectors came from on the last sync that read any: the snapshot file whole, the file plus the rows that changed, or the database. */
export type VectorLoadSource = 'snapshot' | 'delta' | 'sqlite';

export interface VectorCacheOptions {
  /** Read and write the vector snapshot beside the database (`<db>.vec`); default true. */
  readonly snapshotFile?: boolean;
  /** Told each load and each snapshot write (counts, for tests and benches). */
  readonly onLoad?: ((event: { source: VectorLoadSource; rows: number; written?: number; checked?: 'crc' | 'memo' }) => void) | undefined;
  /** When a checked snapshot may be remembered as checked (`<db>.vec.ok`, see embed/vector-file-load.ts); default the system clock. */
  readonly clock?: Clock | undefined;
}

/**
 * The in-memory vectors of one model for one store, kept in step with the database. The first
 * sync reads the snapshot file when its stamp is the database's meta `vectors_stamp` (no SQLite
 * read of vectors at all); a stale one is brought up to date like the cache itself (by chunk id and
 * hash), a missing or damaged one replaced by a load from the database; either is then written
 * back so the next process finds it current. Later syncs run only when the stamp changed.
 */
export class VectorIndexCache {
  private index: FlatVectorIndex | undefined;
  private model = '';
  private version = '';
  /** The vectors stamp the index holds (undefined: not loaded). */
  private stamp: string | undefined;
  private store: IndexStore | undefined;
  /** Chunk id → content hash, for every chunk in the index (built from a snapshot only when a delta needs it). */
  private readonly hashes = new Map<number, string>();
  /** A snapshot's ids and hashes not yet put in `hashes`. */
  private fileHashes: { ids: Float64Array; hashes: () => Uint8Array | undefined } | undefined;
  private writeDue = false;
  /** How the last snapshot file loaded was checked (for onLoad). */
  private checked: 'crc' | 'memo' | undefined;

  constructor(private readonly options: VectorCacheOptions = {}) {}

  /** The vectors of `model`, or undefined when the index has none. */
  sync(store: IndexStore, model: string): VectorSnapshot | undefined {
    const version = store.read(() => store.search.dataVersion());
    if (store !== this.store || model !== this.model) this.reset(store, model);
    else if (version === this.version && this.index) return { index: this.index, size: this.index.size };
    store.snapshotSync(() => this.update(store, model));
    this.version = version;
    return this.index && this.index.size > 0 ? { index: this.index, size: this.index.size } : undefined;
  }

  private reset(store: IndexStore, model: string): void {
    this.index = undefined;
    this.hashes.clear();
    this.fileHashes = undefined;
    this.stamp = undefined;
    this.store = store;
    this.model = model;
    this.version = '';
  }

  private get filePath(): string | undefined {
    return this.options.snapshotFile === false || !this.store ? undefined : vectorFilePath(this.store.path);
  }

  private update(store: IndexStore, model: string): void {
    const stamp = store.meta.get(VECTORS_STAMP_KEY);
    // no chunk or vector changed since the index was loaded (stamp replaced by every such write)
    if (this.index && stamp !== undefined && stamp === this.stamp) return;
    let source: VectorLoadSource;
    if (!this.index && this.loadFile(model, stamp)) {
      source = 'snapshot';
      if (stamp !== undefined && stamp === this.stamp) return this.options.onLoad?.({ source, rows: this.index!.size, checked: this.checked });
      source = 'delta';
      if (!this.materializeHashes()) {
        this.reset(store, model);
        source = 'sqlite';
        this.bulkLoad(store, model);
      } else this.applyDelta(store, model);
    } else if (this.hashes.size === 0 && !this.fileHashes) {
      source = 'sqlite';
      this.bulkLoad(store, model);
    } else {
      // a long-lived process (MCP server, watch) brought its vectors up to date: the file follows
      // after this search has answered, not in its way. A snapshot replaced since it was loaded
      // (its hashes no longer readable) means starting over from the file now there.
      if (!this.materializeHashes()) {
        this.reset(store, model);
        return this.update(store, model);
      }
      this.applyDelta(store, model);
      this.stamp = stamp;
      this.writeSoon(store, model);
      return this.options.onLoad?.({ source: 'delta', rows: this.index?.size ?? 0 });
    }
    this.stamp = stamp;
    const written = stamp !== undefined ? this.writeFile(model, stamp) : undefined;
    this.options.onLoad?.({ source, rows: this.index?.size ?? 0, ...(written !== undefined ? { written } : {}), ...(source === 'delta' ? { checked: this.checked } : {}) });
  }

  /** Writes the file on the next turn of the event loop (once for any number of syncs before it), with the state then held. */
  private writeSoon(store: IndexStore, model: string): void {
    if (this.writeDue) return;
    this.writeDue = true;
    setImmediate(() => {
      this.writeDue = false;
      if (this.store === store && this.model === model && this.stamp !== undefined) this.writeFile(model, this.stamp);
    }).unref();
  }

  /** Loads the snapshot file as the index (whatever its stamp); false when there is none usable. */
  private loadFile(model: string, current: string | undefined): boolean {
    const path = this.filePath;
    const file = path ? loadVectorFile(path, model, { clock: this.options.clock, stamp: current }) : undefined;
    if (!file) return false;
    this.index = file.index;
    this.fileHashes = { ids: file.ids, hashes: file.hashes };
    this.checked = file.checked;
    this.stamp = file.stamp === current ? current : undefined;
    return true;
  }

  /** Writes the snapshot of the index as of `stamp`; the bytes written, undefined when not written. */
  private writeFile(model: string, stamp: string): number | undefined {
    const path = this.filePath;
    if (!path || !this.index || this.index.size === 0 || !this.materializeHashes()) return undefined;
    const { ids, rows, scales } = this.index.exportRows();
    const hashes = Buffer.alloc(ids.length * HASH_BYTES);
    for (let i = 0; i < ids.length; i++) {
      const hex = this.hashes.get(ids[i]!);
      // a hash the file cannot hold (not 64 hex digits): no snapshot
      if (hex?.length !== 2 * HASH_BYTES || hashes.write(hex, i * HASH_BYTES, HASH_BYTES, 'hex') !== HASH_BYTES) return undefined;
    }
    try {
      return writeVectorFile(path, { model, stamp, dimensions: this.index.dimensions, ids, rows, scales, hashes });
    } catch {
      return undefined; // a read-only directory, a full disk: the database still answers
    }
  }

  /**
   * Puts a loaded snapshot's hashes into `hashes` (a delta compares by them). False when they
   * were left in the file and the file has been replaced since (the index must be reloaded).
   */
  private materializeHashes(): boolean {
    const f = this.fileHashes;
    if (!f) return true;
    const hashes = f.hashes();
    if (!hashes) return false;
    this.fileHashes = undefined;
    const bytes = Buffer.from(hashes.buffer, hashes.byteOffset, hashes.byteLength);
    for (let i = 0; i < f.ids.length; i++) this.hashes.set(f.ids[i]!, bytes.toString('hex', i * HASH_BYTES, (i + 1) * HASH_BYTES));
    return true;
  }

  private applyDelta(store: IndexStore, model: string): void {
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
