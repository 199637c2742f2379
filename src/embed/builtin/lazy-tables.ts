/**
 * The builtin model's tables, decoded as they are used (issue 19): a CLI search embeds one query
 * of a few tokens, so it need not dequantise all 17K rows × 96 of the weight file (~7 ms of
 * CPU), decode every half-precision scale and weight (~6 ms) nor build a Map of the 15K-token
 * vocabulary (~4 ms) first. Each row is decoded on first use with the same arithmetic as a whole
 * table would be (bit-identical vectors), and the vocabulary becomes a Map once it has been asked
 * often enough that the Map pays (an indexing pass, a long-lived server).
 */
import { fromHalf, weightsByteLength } from './format.js';

export interface WeightRows {
  /** Row r's values at `r·dims` (only rows `ensure`d are filled). */
  readonly table: Float32Array;
  readonly queryWeights: Float32Array;
  readonly codeWeights: Float32Array;
  /** Decodes row r (its values, scale and both token weights) when it is not yet. */
  ensure(r: number): void;
}

/** The rows of a weight file (layout in ./format.ts), decoded on demand; undefined when its length does not match the shapes. */
export function lazyWeightRows(bytes: Uint8Array, rows: number, dims: number): WeightRows | undefined {
  if (bytes.byteLength !== weightsByteLength(rows, dims)) return undefined;
  const vectors = new Int8Array(bytes.buffer, bytes.byteOffset, rows * dims);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const half = (section: number, r: number): number => Math.fround(fromHalf(view.getUint16(rows * dims + section * rows * 2 + r * 2, true)));
  const table = new Float32Array(rows * dims);
  const queryWeights = new Float32Array(rows);
  const codeWeights = new Float32Array(rows);
  const ready = new Uint8Array(rows);
  return {
    table,
    queryWeights,
    codeWeights,
    ensure(r) {
      if (ready[r] === 1) return;
      ready[r] = 1;
      const s = half(0, r);
      queryWeights[r] = half(1, r);
      codeWeights[r] = half(2, r);
      for (let j = 0; j < dims; j++) table[r * dims + j] = vectors[r * dims + j]! * s;
    },
  };
}

/** Lookups answered by a scan of the token list before the Map is built (a Map costs as much as ~100 scans). */
const SCANS_BEFORE_MAP = 64;

/**
 * Token → row of a vocabulary (one token a row; a token listed twice maps to its last row, as a
 * Map filled in order does), a scan of the list per lookup until `SCANS_BEFORE_MAP` lookups, a
 * Map after.
 */
export class VocabLookup {
  readonly size: number;
  private map: Map<string, number> | undefined;
  private scans = 0;

  constructor(private readonly tokens: readonly string[]) {
    this.size = tokens.length;
  }

  get(token: string): number | undefined {
    if (!this.map && ++this.scans > SCANS_BEFORE_MAP) {
      this.map = new Map();
      this.tokens.forEach((t, i) => this.map!.set(t, i));
    }
    if (this.map) return this.map.get(token);
    const row = this.tokens.lastIndexOf(token);
    return row < 0 ? undefined : row;
  }
}
