/** What a `FlatVectorIndex` (flat-scan.ts) takes and gives: its options, hits, memory report and bulk-load blocks. */
import type { KernelPreference } from './kernel/scan-kernel.js';
import type { VectorStorage } from './vector-layout.js';

export interface FlatVectorIndexOptions {
  /** Components per vector, 1..65535 (what a vector blob records). Every vector must have exactly this many. */
  readonly dimensions: number;
  /** `int8` (default): quantized, dim + 4 bytes a row. `float32`: exact, 4·dim bytes a row. */
  readonly storage?: VectorStorage;
  /** `auto` (default): the WebAssembly SIMD kernel when the runtime has SIMD, else JS loops. `simd` throws without it. */
  readonly kernel?: KernelPreference;
  /** Rows per chunk, the unit memory grows by: 16..1,048,576, default 8192 (3 MB of 384-d int8 rows). */
  readonly chunkRows?: number;
}

export interface VectorHit {
  readonly id: number;
  /** ≈ cosine (int8: within quantization error), higher is closer. */
  readonly score: number;
}

export interface VectorIndexMemory {
  readonly rows: number;
  readonly capacityRows: number;
  readonly chunks: number;
  /** The WebAssembly memory: query + scores areas + every chunk allocated so far. */
  readonly wasmBytes: number;
  /** Slot → id tables (8 bytes a row of capacity). */
  readonly idTableBytes: number;
  /** id → slot map, estimated at `MAP_BYTES_PER_ENTRY` a row (V8 does not report a Map's size). */
  readonly idMapBytesEstimate: number;
  readonly totalBytes: number;
}

/** One chunk's share of `addDenseBlocks`: views of the index's memory for rows `start..end`. */
export interface DenseBlock {
  readonly start: number;
  readonly end: number;
  /** `(end - start)` rows of `dimensions` components (int8, or float32 little endian), unpadded. */
  readonly rows: Uint8Array;
  /** int8 storage: `(end - start)` float32 scales; undefined for float32 storage. */
  readonly scales: Uint8Array | undefined;
}

export const DEFAULT_CHUNK_ROWS = 8192;
/** V8's hash map with small-integer keys and values, measured by bench/vector-scan.ts (≈ 20–30 B); rounded up. */
export const MAP_BYTES_PER_ENTRY = 32;
