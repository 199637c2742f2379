/**
 * The builtin model's weight file (`scry-nbow` format, version 1), written by train/ and read by
 * ./model.ts. Little-endian, no header (the manifest says rows and dimensions):
 *
 *   int8    vectors[rows × dims]   each row quantised by its own scale (round(x / scale))
 *   float16 scales[rows]           row r's value j is vectors[r·dims + j] · scales[r]
 *   float16 queryWeights[rows]     a token's weight in a query
 *   float16 codeWeights[rows]      a token's weight in a code chunk
 *
 * Rows are the vocabulary (vocab.txt, one token a line, row = line) then the hash buckets.
 */

export const MODEL_FORMAT = 'scry-nbow';
export const MODEL_FORMAT_VERSION = 1;

export interface NbowWeights {
  readonly rows: number;
  readonly dims: number;
  readonly vectors: Int8Array;
  readonly scales: Float32Array;
  readonly queryWeights: Float32Array;
  readonly codeWeights: Float32Array;
}

/** Bytes of a weight file with these shapes. */
export function weightsByteLength(rows: number, dims: number): number {
  return rows * dims + rows * 2 * 3;
}

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** IEEE-754 half precision bits of `x` (round to nearest even; overflow to infinity). */
export function toHalf(x: number): number {
  f32[0] = x;
  const b = u32[0]!;
  const sign = (b >>> 16) & 0x8000;
  const exp = (b >>> 23) & 0xff;
  let mant = b & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  let e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - e;
    let half = mant >>> shift;
    const rem = mant & ((1 << shift) - 1);
    const mid = 1 << (shift - 1);
    if (rem > mid || (rem === mid && (half & 1))) half++;
    return sign | half;
  }
  let half = (e << 10) | (mant >>> 13);
  const rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem === 0x1000 && (half & 1))) half++;
  if ((half & 0x7c00) === 0x7c00) e = 0x1f;
  return sign | (e === 0x1f ? 0x7c00 : half);
}

/** The number whose half-precision bits are `h`. */
export function fromHalf(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >>> 10) & 0x1f;
  const mant = h & 0x3ff;
  if (exp === 0) return sign * mant * 2 ** -24;
  if (exp === 0x1f) return mant ? NaN : sign * Infinity;
  return sign * (1 + mant / 1024) * 2 ** (exp - 15);
}

/** The weight file of `w` (vectors already quantised). */
export function encodeWeights(w: NbowWeights): Uint8Array {
  const out = new Uint8Array(weightsByteLength(w.rows, w.dims));
  out.set(new Uint8Array(w.vectors.buffer, w.vectors.byteOffset, w.rows * w.dims), 0);
  const view = new DataView(out.buffer);
  let at = w.rows * w.dims;
  for (const arr of [w.scales, w.queryWeights, w.codeWeights]) {
    for (let r = 0; r < w.rows; r++, at += 2) view.setUint16(at, toHalf(arr[r]!), true);
  }
  return out;
}

/** Reads a weight file; undefined when its length does not match the shapes. */
export function decodeWeights(bytes: Uint8Array, rows: number, dims: number): NbowWeights | undefined {
  if (bytes.byteLength !== weightsByteLength(rows, dims)) return undefined;
  const vectors = new Int8Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + rows * dims));
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const halves = (start: number): Float32Array => {
    const a = new Float32Array(rows);
    for (let r = 0; r < rows; r++) a[r] = fromHalf(view.getUint16(start + r * 2, true));
    return a;
  };
  const base = rows * dims;
  return { rows, dims, vectors, scales: halves(base), queryWeights: halves(base + rows * 2), codeWeights: halves(base + rows * 4) };
}
