import { EngineError } from '../core/errors.js';

/**
 * Vector quantization and the on-disk vector blob (issue 8).
 *
 * Vectors are stored int8-quantized by default: symmetric, one scale per vector,
 * `scale = max|v| / 127`, `q[i] = round(v[i] / scale)` clamped to [-127, 127] (never -128, so the
 * value range is symmetric and an int8 product fits an int16). Rounding is half away from zero,
 * so `quantize(-v)` is exactly `-quantize(v)`. A zero vector has scale 0 and all-zero values. The
 * dot product of two quantized vectors times both scales approximates the float dot product,
 * which is the cosine for the unit vectors providers return; the error per component is at most
 * scale / 2.
 *
 * Blob layout (little-endian, what the vectors table stores), `VECTOR_BLOB_HEADER` = 8 bytes:
 *
 * | offset | size | field |
 * |---|---|---|
 * | 0 | 1 | format version, `VECTOR_BLOB_VERSION` |
 * | 1 | 1 | kind: 1 = int8 (`VECTOR_KIND_INT8`), 2 = float32 (`VECTOR_KIND_FLOAT32`) |
 * | 2 | 2 | dimensions, uint16 (1..65535) |
 * | 4 | 4 | int8: the scale, float32; float32: 0 (reserved) |
 * | 8 | dim or 4·dim | int8 values, or float32 values |
 *
 * The float32 values start at offset 8, so they can be read in place from a 4-byte-aligned buffer.
 */

/**
 * The blob format version; a reader rejects any other.
 * 1: the first format (issue 8): 8-byte header, int8 + float32 scale or float32 values.
 */
export const VECTOR_BLOB_VERSION = 1;
export const VECTOR_BLOB_HEADER = 8;
export const VECTOR_KIND_INT8 = 1;
export const VECTOR_KIND_FLOAT32 = 2;
/** Largest dimension a blob records (its header field is a uint16). */
export const MAX_VECTOR_DIMENSIONS = 65_535;

/** The largest magnitude a quantized component takes (symmetric: -127..127). */
export const INT8_MAX = 127;

export interface QuantizedVector {
  readonly values: Int8Array;
  /** max|v| / 127; 0 for a zero vector. Multiply a component by it to get the float back. */
  readonly scale: number;
}

/** A vector decoded from a blob: int8 with its scale, or float32. */
export type DecodedVector =
  | { readonly kind: 'int8'; readonly values: Int8Array; readonly scale: number }
  | { readonly kind: 'float32'; readonly values: Float32Array };

function invalid(reason: string): EngineError {
  return new EngineError('INVALID_ARGUMENT', { name: 'vector', reason });
}

function assertFinite(v: ArrayLike<number>): void {
  for (let i = 0; i < v.length; i++) {
    if (!Number.isFinite(v[i]!)) throw invalid(`component ${i} is ${v[i]}, not a finite number`);
  }
}

/**
 * Quantizes `v` into `out` (a new Int8Array of `v.length` when omitted; a longer `out` keeps its
 * tail, so a zero-padded row stays padded) and returns the scale. Throws INVALID_ARGUMENT for a
 * non-finite component.
 */
export function quantizeInto(v: ArrayLike<number>, out: Int8Array): number {
  if (out.length < v.length) throw invalid(`output holds ${out.length} components, the vector has ${v.length}`);
  let max = 0;
  for (let i = 0; i < v.length; i++) {
    const a = Math.abs(v[i]!);
    if (a > max) max = a;
    else if (!(a <= max)) assertFinite(v); // NaN: compares false both ways
  }
  if (max === Number.POSITIVE_INFINITY) assertFinite(v);
  // Math.fround: the scale is stored as float32, and dequantizing must use the stored value.
  const scale = Math.fround(max / INT8_MAX);
  if (scale === 0) {
    out.fill(0, 0, v.length);
    return 0;
  }
  const inv = 1 / scale;
  for (let i = 0; i < v.length; i++) {
    const x = v[i]! * inv;
    const r = x < 0 ? -Math.round(-x) : Math.round(x);
    out[i] = r > INT8_MAX ? INT8_MAX : r < -INT8_MAX ? -INT8_MAX : r;
  }
  return scale;
}

/** Symmetric per-vector int8 quantization of a document vector or a query (same rule for both). */
export function quantize(v: ArrayLike<number>): QuantizedVector {
  const values = new Int8Array(v.length);
  const scale = quantizeInto(v, values);
  return { values, scale };
}

/** The float vector a quantized one stands for: `values[i] · scale`. */
export function dequantize(q: QuantizedVector): Float32Array {
  const out = new Float32Array(q.values.length);
  for (let i = 0; i < out.length; i++) out[i] = q.values[i]! * q.scale;
  return out;
}

/** Σ a[i]·b[i] over int8 vectors, exact (an int32 for any length up to 2^17). */
export function dotInt8(a: Int8Array, b: Int8Array): number {
  if (a.length !== b.length) throw invalid(`lengths differ: ${a.length} and ${b.length}`);
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

/** The approximate dot product (the cosine, for unit vectors) of two quantized vectors. */
export function quantizedDot(a: QuantizedVector, b: QuantizedVector): number {
  return dotInt8(a.values, b.values) * a.scale * b.scale;
}

function header(kind: number, dim: number, byteLength: number): { blob: Uint8Array; view: DataView } {
  if (!Number.isInteger(dim) || dim < 1 || dim > MAX_VECTOR_DIMENSIONS) {
    throw invalid(`${dim} dimensions; a blob holds 1..${MAX_VECTOR_DIMENSIONS}`);
  }
  const blob = new Uint8Array(VECTOR_BLOB_HEADER + byteLength);
  const view = new DataView(blob.buffer);
  view.setUint8(0, VECTOR_BLOB_VERSION);
  view.setUint8(1, kind);
  view.setUint16(2, dim, true);
  return { blob, view };
}

/** The int8 blob of a quantized vector (header + scale + values): 8 + dim bytes. */
export function encodeInt8Blob(q: QuantizedVector): Uint8Array {
  const { blob, view } = header(VECTOR_KIND_INT8, q.values.length, q.values.length);
  view.setFloat32(4, q.scale, true);
  blob.set(new Uint8Array(q.values.buffer, q.values.byteOffset, q.values.length), VECTOR_BLOB_HEADER);
  return blob;
}

/** The float32 blob of a vector (header + values): 8 + 4·dim bytes. */
export function encodeFloat32Blob(v: Float32Array): Uint8Array {
  assertFinite(v);
  const { blob, view } = header(VECTOR_KIND_FLOAT32, v.length, v.length * 4);
  for (let i = 0; i < v.length; i++) view.setFloat32(VECTOR_BLOB_HEADER + 4 * i, v[i]!, true);
  return blob;
}

/** Quantizes and encodes in one step: the blob for int8 storage. */
export function encodeVector(v: Float32Array, kind: 'int8' | 'float32' = 'int8'): Uint8Array {
  return kind === 'int8' ? encodeInt8Blob(quantize(v)) : encodeFloat32Blob(v);
}

/** What a blob's header says, validated against its length. Throws INVALID_ARGUMENT when malformed. */
export function readBlobHeader(blob: Uint8Array): { kind: 'int8' | 'float32'; dimensions: number; scale: number } {
  if (blob.length < VECTOR_BLOB_HEADER) throw invalid(`a blob of ${blob.length} bytes is shorter than its header`);
  const view = new DataView(blob.buffer, blob.byteOffset, blob.byteLength);
  const version = view.getUint8(0);
  if (version !== VECTOR_BLOB_VERSION) throw invalid(`blob format version ${version}; this build reads ${VECTOR_BLOB_VERSION}`);
  const kindByte = view.getUint8(1);
  const dimensions = view.getUint16(2, true);
  const scale = view.getFloat32(4, true);
  const kind = kindByte === VECTOR_KIND_INT8 ? 'int8' : kindByte === VECTOR_KIND_FLOAT32 ? 'float32' : undefined;
  if (kind === undefined) throw invalid(`unknown blob kind ${kindByte}`);
  const expected = VECTOR_BLOB_HEADER + dimensions * (kind === 'int8' ? 1 : 4);
  if (dimensions === 0 || blob.length !== expected) {
    throw invalid(`a ${kind} blob of ${dimensions} dimensions is ${expected} bytes, not ${blob.length}`);
  }
  if (kind === 'int8' && !(Number.isFinite(scale) && scale >= 0)) throw invalid(`int8 scale ${scale}`);
  return { kind, dimensions, scale: kind === 'int8' ? scale : 0 };
}

/**
 * Decodes a blob. The int8 values are a view into `blob` (no copy); the float32 values are a
 * view when the blob's values are 4-byte aligned, otherwise a copy.
 */
export function decodeVectorBlob(blob: Uint8Array): DecodedVector {
  const { kind, dimensions, scale } = readBlobHeader(blob);
  const at = blob.byteOffset + VECTOR_BLOB_HEADER;
  if (kind === 'int8') return { kind, values: new Int8Array(blob.buffer, at, dimensions), scale };
  if (at % 4 === 0) return { kind, values: new Float32Array(blob.buffer, at, dimensions) };
  const view = new DataView(blob.buffer, at, dimensions * 4);
  const values = new Float32Array(dimensions);
  for (let i = 0; i < dimensions; i++) values[i] = view.getFloat32(4 * i, true);
  return { kind, values };
}

/** A vector in any of the forms an index accepts (float32 values, a stored blob, int8 values with their scale), decoded. */
export function decodeAnyVector(vector: Float32Array | Uint8Array | QuantizedVector): DecodedVector {
  if (vector instanceof Float32Array) return { kind: 'float32', values: vector };
  if (vector instanceof Uint8Array) return decodeVectorBlob(vector);
  return { kind: 'int8', values: vector.values, scale: vector.scale };
}
