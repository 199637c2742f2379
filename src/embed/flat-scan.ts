import { EngineError } from '../core/errors.js';
import {
  createScanKernel,
  createWasmMemory,
  WASM_MAX_PAGES,
  WASM_PAGE_BYTES,
  type KernelName,
  type ScanKernel,
  type WasmMemory,
} from './kernel/scan-kernel.js';
import { TopK } from './kernel/top-k.js';
import { VectorLayout, type VectorStorage } from './vector-layout.js';
import { DEFAULT_CHUNK_ROWS, type DenseBlock, type FlatVectorIndexOptions, type VectorHit, type VectorIndexMemory, MAP_BYTES_PER_ENTRY } from './vector-index-types.js';
import { VectorSlots } from './vector-slots.js';
import { decodeAnyVector, MAX_VECTOR_DIMENSIONS, quantizeInto, type DecodedVector, type QuantizedVector } from './quantize.js';

/**
 * An exact (brute-force) vector index: every search scores every row with a WebAssembly SIMD
 * kernel and keeps the best k (issue 8). At 500K × 384 int8 a scan reads 192 MB; see
 * bench/vector-scan.ts for what that costs here against a naive JS loop.
 *
 * Memory. All rows live in one WebAssembly.Memory the index owns, cut into chunks of `chunkRows`
 * rows. The memory grows by one chunk when the last one is full and never moves a row on growth
 * (V8 reserves the whole 4 GiB address range of a wasm32 memory up front, so growing maps pages in
 * place; nothing is copied). A removed row is replaced by the last row (one row copied), so the
 * rows stay dense; memory does not shrink after removals (a wasm memory cannot), and is reused
 * by the next adds (the layout: vector-layout.ts; which id a row holds: vector-slots.ts). Scores are
 * computed one chunk at a time into the shared scores area (it stays in cache) and selected in JS
 * right after: every row until the top k is full, then only the rows the kernel finds at or above
 * its worst score (so JS does not walk every score, which in a short-lived process runs cold).
 *
 * Scores: int8 storage gives `dot(q8, row8) · qScale · rowScale`, the cosine up to quantization
 * error (see quantize.ts), float32 storage the float dot product; both are the cosine for the
 * unit vectors providers return. Results are best first, equal scores by ascending id.
 */

export type { VectorStorage } from './vector-layout.js';

export type { DenseBlock, FlatVectorIndexOptions, VectorHit, VectorIndexMemory } from './vector-index-types.js';
export { DEFAULT_CHUNK_ROWS, MAP_BYTES_PER_ENTRY } from './vector-index-types.js';

function invalid(name: string, reason: string): EngineError {
  return new EngineError('INVALID_ARGUMENT', { name, reason });
}

export class FlatVectorIndex {
  readonly dimensions: number;
  readonly storage: VectorStorage;
  readonly chunkRows: number;
  /** Which kernel runs the scans: `wasm-simd`, or `js` where the runtime has no WebAssembly SIMD. */
  readonly kernelName: KernelName;

  /** Where the query, scores and rows live in `memory`. */
  private readonly layout: VectorLayout;
  private readonly memory: WasmMemory;
  private readonly kernel: ScanKernel;
  /** Which id each row holds (after a bulk load of ascending ids, found by binary search). */
  private readonly slots: VectorSlots;
  private buffer: ArrayBuffer;
  private i8: Int8Array;
  private f32: Float32Array;

  constructor(options: FlatVectorIndexOptions) {
    const { dimensions, storage = 'int8', kernel = 'auto', chunkRows = DEFAULT_CHUNK_ROWS } = options;
    if (!Number.isInteger(dimensions) || dimensions < 1 || dimensions > MAX_VECTOR_DIMENSIONS) {
      throw invalid('dimensions', `${dimensions}; expected an integer in 1..${MAX_VECTOR_DIMENSIONS}`);
    }
    if (storage !== 'int8' && storage !== 'float32') throw invalid('storage', `"${String(storage)}"; expected int8 or float32`);
    if (!Number.isInteger(chunkRows) || chunkRows < 16 || chunkRows > 1 << 20) {
      throw invalid('chunkRows', `${chunkRows}; expected an integer in 16..1048576`);
    }
    this.dimensions = dimensions;
    this.storage = storage;
    this.chunkRows = chunkRows;
    this.layout = new VectorLayout(dimensions, storage, chunkRows);
    this.memory = createWasmMemory(Math.ceil(this.layout.bytesFor(0) / WASM_PAGE_BYTES));
    this.kernel = createScanKernel(this.memory, kernel);
    this.kernelName = this.kernel.name;
    this.slots = new VectorSlots(chunkRows);
    this.buffer = this.memory.buffer;
    this.i8 = new Int8Array(this.buffer);
    this.f32 = new Float32Array(this.buffer);
  }

  /** Rows stored. */
  get size(): number {
    return this.slots.size;
  }

  /** Bytes held: `memoryReport().totalBytes`. */
  get bytes(): number {
    return this.memoryReport().totalBytes;
  }

  memoryReport(): VectorIndexMemory {
    const wasmBytes = this.memory.buffer.byteLength;
    const idTableBytes = this.slots.capacity * 8;
    const idMapBytesEstimate = this.slots.mapEntries * MAP_BYTES_PER_ENTRY;
    return {
      rows: this.slots.size,
      capacityRows: this.slots.capacity,
      chunks: this.slots.chunks,
      wasmBytes,
      idTableBytes,
      idMapBytesEstimate,
      totalBytes: wasmBytes + idTableBytes + idMapBytesEstimate,
    };
  }

  has(id: number): boolean {
    return this.slots.slotFor(id) !== undefined;
  }

  /**
   * Stores `vector` under `id` (a safe integer), replacing any vector the id had. `vector` is a
   * Float32Array, a quantized vector, or a blob from quantize.ts (int8 or float32; an int8 blob
   * into float32 storage is dequantized, a float32 one into int8 storage quantized). Throws
   * INVALID_ARGUMENT on a wrong dimension, a non-finite component or a malformed blob, and
   * TOO_LARGE when the memory cannot grow (4 GiB).
   */
  add(id: number, vector: Float32Array | Uint8Array | QuantizedVector): void {
    if (!Number.isSafeInteger(id)) throw invalid('id', `${id}; expected a safe integer`);
    const v = decodeAnyVector(vector);
    if (v.values.length !== this.dimensions) {
      throw invalid('vector', `${v.values.length} dimensions; this index holds ${this.dimensions}`);
    }
    if (v.kind === 'float32') assertFinite(v.values);
    else if (!(Number.isFinite(v.scale) && v.scale >= 0)) throw invalid('vector', `scale ${v.scale}`);
    this.slots.materialize();
    const slot = this.slots.slotFor(id) ?? this.allocate(id);
    if (this.storage === 'int8') this.writeInt8(slot, v);
    else this.writeFloat32(slot, v);
  }

  /** Bulk load, e.g. straight from the vectors table: `add` for each row. Returns the rows read. */
  addBlobs(rows: Iterable<{ readonly id: number; readonly blob: Uint8Array }>): number {
    let n = 0;
    for (const { id, blob } of rows) {
      this.add(id, blob);
      n++;
    }
    return n;
  }

  /**
   * Bulk load of rows as `exportRows` gives them (one file read, no blob decode): row i of `rows`
   * (`dimensions` components: int8 with its scale in `scales`, or float32) goes under `ids[i]`.
   * Throws INVALID_ARGUMENT when the arrays do not fit this index's storage and dimensions.
   */
  addRows(ids: ArrayLike<number>, rows: Int8Array | Float32Array, scales?: Float32Array): void {
    const n = ids.length;
    const int8 = this.storage === 'int8';
    if (int8 !== rows instanceof Int8Array || rows.length !== n * this.dimensions || (int8 && (!scales || scales.length !== n))) {
      throw invalid('rows', `${rows.length} ${rows instanceof Int8Array ? 'int8' : 'float32'} components for ${n} rows of ${this.dimensions} (${this.storage})`);
    }
    const d = this.dimensions;
    if (this.slots.size === 0 && this.layout.dp === d && this.addDense(ids, rows, scales)) return;
    this.slots.materialize();
    for (let i = 0; i < n; i++) {
      const id = ids[i]!;
      if (!Number.isSafeInteger(id)) throw invalid('id', `${id}; expected a safe integer`);
      const slot = this.slots.slotFor(id) ?? this.allocate(id);
      this.refreshViews();
      const at = this.layout.rowOffset(slot);
      if (int8) {
        this.i8.set((rows as Int8Array).subarray(i * d, i * d + d), at);
        this.i8.fill(0, at + d, at + this.layout.dp);
        this.f32[this.layout.scaleIndex(slot)] = scales![i]!;
      } else {
        this.f32.set((rows as Float32Array).subarray(i * d, i * d + d), at / 4);
        this.f32.fill(0, at / 4 + d, at / 4 + this.layout.dp);
      }
    }
  }

  /**
   * `addRows` into an empty index whose rows need no padding, ids ascending (as `exportRows` gives
   * them): a block copy per chunk, ids kept for binary search. False (index left empty) otherwise:
   * the row-by-row path decides.
   */
  private addDense(ids: ArrayLike<number>, rows: Int8Array | Float32Array, scales: Float32Array | undefined): boolean {
    const sorted = ids instanceof Float64Array ? ids.slice() : Float64Array.from(ids);
    const width = this.dimensions * rows.BYTES_PER_ELEMENT;
    const bytes = new Uint8Array(rows.buffer, rows.byteOffset, rows.byteLength);
    const scaleBytes = scales ? new Uint8Array(scales.buffer, scales.byteOffset, scales.byteLength) : undefined;
    return this.addDenseBlocks(sorted, (b) => {
      b.rows.set(bytes.subarray(b.start * width, b.end * width));
      b.scales?.set(scaleBytes!.subarray(b.start * 4, b.end * 4));
    });
  }

  /**
   * Bulk load into an empty index, straight into its memory: `ids` (ascending safe integers; the
   * index keeps this array) and, once per chunk in order, `fill` writes rows `start..end` into
   * `block.rows` (unpadded: `dimensions` int8 or float32 components a row) and, int8, their
   * float32 scales into `block.scales`, both views of the index's own memory (valid until the
   * next add). A loader that reads a file there copies nothing twice. False, index left empty,
   * when the ids are not ascending safe integers or rows would need padding (dimensions not a
   * multiple of 16 for int8, of 4 for float32). If `fill` throws, the index must be discarded.
   */
  addDenseBlocks(ids: Float64Array, fill: (block: DenseBlock) => void): boolean {
    const n = ids.length;
    if (this.slots.size !== 0 || this.layout.dp !== this.dimensions) return false;
    for (let i = 0; i < n; i++) {
      const id = ids[i]!;
      if (!Number.isSafeInteger(id) || (i > 0 && !(id > ids[i - 1]!))) return false;
    }
    const width = this.layout.rowBytes;
    this.reserve(Math.ceil(n / this.chunkRows));
    for (let start = 0; start < n; start += this.chunkRows) {
      const end = Math.min(n, start + this.chunkRows);
      if (start === this.slots.capacity) this.growChunk();
      this.refreshViews();
      const c = start / this.chunkRows;
      const base = this.layout.chunkOffset(c);
      this.slots.chunk(c).set(ids.subarray(start, end));
      const scales = this.storage === 'int8' ? new Uint8Array(this.buffer, base + this.layout.scalesInChunk, (end - start) * 4) : undefined;
      fill({ start, end, rows: new Uint8Array(this.buffer, base, (end - start) * width), scales });
    }
    this.slots.adoptSorted(ids);
    return true;
  }

  /** Every row by ascending id, unpadded: what `addRows` takes back fastest (a vector snapshot's body). */
  exportRows(): { ids: Float64Array; rows: Int8Array | Float32Array; scales?: Float32Array } {
    const n = this.slots.size;
    const d = this.dimensions;
    const slots = Array.from({ length: n }, (_, slot) => slot);
    let ascending = true;
    for (let slot = 1; slot < n && ascending; slot++) ascending = this.slots.idAt(slot) > this.slots.idAt(slot - 1);
    if (!ascending) slots.sort((a, b) => this.slots.idAt(a) - this.slots.idAt(b));
    const ids = new Float64Array(n);
    const rows = this.storage === 'int8' ? new Int8Array(n * d) : new Float32Array(n * d);
    const scales = this.storage === 'int8' ? new Float32Array(n) : undefined;
    this.refreshViews();
    slots.forEach((slot, i) => {
      ids[i] = this.slots.idAt(slot);
      const at = this.layout.rowOffset(slot);
      if (scales) {
        (rows as Int8Array).set(this.i8.subarray(at, at + d), i * d);
        scales[i] = this.f32[this.layout.scaleIndex(slot)]!;
      } else (rows as Float32Array).set(this.f32.subarray(at / 4, at / 4 + d), i * d);
    });
    return scales ? { ids, rows, scales } : { ids, rows };
  }

  /** Drops `id`'s vector; false when it had none. The last row moves into its slot. */
  remove(id: number): boolean {
    const freed = this.slots.remove(id);
    if (freed === undefined) return false;
    const { slot, last } = freed;
    if (slot !== last) {
      const from = this.layout.rowOffset(last);
      this.refreshViews();
      new Uint8Array(this.buffer).copyWithin(this.layout.rowOffset(slot), from, from + this.layout.rowBytes);
      if (this.storage === 'int8') this.f32[this.layout.scaleIndex(slot)] = this.f32[this.layout.scaleIndex(last)]!;
    }
    return true;
  }

  /**
   * The k rows closest to `query` (a vector of `dimensions` floats, unit length for cosine
   * scores), best first, equal scores by ascending id. `filter` is asked only about rows whose
   * score would enter the current top k; a row it rejects is skipped (it must not change the
   * index). k larger than the index gives every row. Throws INVALID_ARGUMENT on a wrong
   * dimension, a non-finite component or a k that is not a non-negative integer.
   */
  search(query: Float32Array, k: number, filter?: (id: number) => boolean): VectorHit[] {
    if (!Number.isInteger(k) || k < 0) throw invalid('k', `${k}; expected a non-negative integer`);
    this.checkQuery(query);
    const count = this.slots.size;
    if (k === 0 || count === 0) return [];
    const qScale = this.loadQuery(query);
    const top = new TopK(Math.min(k, count));
    const scores = new Float32Array(this.buffer, this.layout.scoresOffset, this.chunkRows);
    for (let c = 0; c * this.chunkRows < count; c++) {
      const n = Math.min(this.chunkRows, count - c * this.chunkRows);
      const rows = this.layout.chunkOffset(c);
      if (this.storage === 'int8') this.kernel.scoreI8(0, rows, rows + this.layout.scalesInChunk, n, this.layout.dp, qScale, this.layout.scoresOffset);
      else this.kernel.dotF32(0, rows, n, this.layout.dp, this.layout.scoresOffset);
      if (top.size < top.k) top.offerAll(scores, n, this.slots.chunk(c), filter);
      else {
        // a full heap: only the rows that reach its worst score, found by the kernel (a short process would walk every score in cold JS)
        const picked = this.kernel.atLeast(this.layout.scoresOffset, n, top.threshold, this.layout.selectedOffset);
        top.offerRows(scores, new Int32Array(this.buffer, this.layout.selectedOffset, picked), picked, this.slots.chunk(c), filter);
      }
    }
    return top.sorted();
  }

  /**
   * The scores of the rows of `ids`, in the order given (ids without a row are left out): the
   * scores `search` gives them, bit for bit (the same kernel; each row's score is its own), without
   * scanning the other rows. A run of ids in consecutive slots of one chunk (a file's chunks, loaded
   * in id order) is one kernel call. For scoring known candidates, e.g. the lexical ones a blend
   * reorders, or every chunk of a long query's files. Throws as `search` does on a wrong query.
   */
  scoreIds(query: Float32Array, ids: Iterable<number>): VectorHit[] {
    this.checkQuery(query);
    if (this.slots.size === 0) return [];
    const qScale = this.loadQuery(query);
    const found: number[] = [];
    const slots: number[] = [];
    for (const id of ids) {
      const slot = this.slots.slotFor(id);
      if (slot === undefined) continue;
      found.push(id);
      slots.push(slot);
    }
    const scores = new Float32Array(this.buffer, this.layout.scoresOffset, this.chunkRows);
    const out: VectorHit[] = [];
    for (let i = 0; i < slots.length; ) {
      const first = slots[i]!;
      let n = 1;
      while (i + n < slots.length && slots[i + n] === first + n && (first + n) % this.chunkRows !== 0) n++;
      const row = this.layout.rowOffset(first);
      if (this.storage === 'int8') this.kernel.scoreI8(0, row, this.layout.scaleIndex(first) * 4, n, this.layout.dp, qScale, this.layout.scoresOffset);
      else this.kernel.dotF32(0, row, n, this.layout.dp, this.layout.scoresOffset);
      for (let j = 0; j < n; j++) out.push({ id: found[i + j]!, score: scores[j]! });
      i += n;
    }
    return out;
  }

  private checkQuery(query: Float32Array): void {
    if (query.length !== this.dimensions) {
      throw invalid('query', `${query.length} dimensions; this index holds ${this.dimensions}`);
    }
    assertFinite(query);
  }

  /** Writes `query`, zero-padded (quantized for int8), to the query area; returns its int8 scale (0 for float32). */
  private loadQuery(query: Float32Array): number {
    this.refreshViews();
    if (this.storage === 'float32') {
      this.f32.set(query, 0);
      this.f32.fill(0, this.dimensions, this.layout.dp);
      return 0;
    }
    const qScale = quantizeInto(query, this.i8.subarray(0, this.layout.dp));
    this.i8.fill(0, this.dimensions, this.layout.dp);
    return qScale;
  }

  /** A new slot at the end for `id`, growing the memory by one chunk when the last one is full. */
  private allocate(id: number): number {
    if (this.slots.size === this.slots.capacity) this.growChunk();
    return this.slots.append(id);
  }

  private growChunk(): void {
    this.reserve(this.slots.chunks + 1);
    this.slots.addChunk();
  }

  /** Grows the memory, in one step, to hold `chunks` chunks. Throws TOO_LARGE past 4 GiB. */
  private reserve(chunks: number): void {
    const need = this.layout.bytesFor(chunks);
    const have = this.memory.buffer.byteLength;
    if (need > have) {
      try {
        this.memory.grow(Math.ceil((need - have) / WASM_PAGE_BYTES));
      } catch (cause) {
        throw new EngineError('TOO_LARGE', { what: 'the vector index', size: need, unit: 'bytes', limit: WASM_MAX_PAGES * WASM_PAGE_BYTES }, { cause });
      }
    }
  }

  /** Typed-array views die when the memory grows; recreate them then. */
  private refreshViews(): void {
    if (this.buffer === this.memory.buffer) return;
    this.buffer = this.memory.buffer;
    this.i8 = new Int8Array(this.buffer);
    this.f32 = new Float32Array(this.buffer);
  }

  private writeInt8(slot: number, v: DecodedVector): void {
    this.refreshViews();
    const at = this.layout.rowOffset(slot);
    const row = this.i8.subarray(at, at + this.layout.dp);
    const scale = v.kind === 'float32' ? quantizeInto(v.values, row) : (row.set(v.values), v.scale);
    row.fill(0, this.dimensions);
    this.f32[this.layout.scaleIndex(slot)] = scale;
  }

  private writeFloat32(slot: number, v: DecodedVector): void {
    this.refreshViews();
    const at = this.layout.rowOffset(slot) / 4;
    const row = this.f32.subarray(at, at + this.layout.dp);
    if (v.kind === 'float32') row.set(v.values);
    else for (let i = 0; i < v.values.length; i++) row[i] = v.values[i]! * v.scale;
    row.fill(0, this.dimensions);
  }
}

function assertFinite(v: ArrayLike<number>): void {
  for (let i = 0; i < v.length; i++) {
    if (!Number.isFinite(v[i]!)) throw invalid('vector', `component ${i} is ${v[i]}, not a finite number`);
  }
}
