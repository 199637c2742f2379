import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decodeVectorBlob,
  dequantize,
  dotInt8,
  encodeFloat32Blob,
  encodeInt8Blob,
  encodeVector,
  quantize,
  quantizedDot,
  quantizeInto,
  readBlobHeader,
  VECTOR_BLOB_HEADER,
  VECTOR_BLOB_VERSION,
} from '../../../src/embed/quantize.js';
import { caught } from '../../helpers/caught.js';

const unit = (v: number[]): Float32Array => {
  const f = Float32Array.from(v);
  const n = Math.hypot(...f);
  return n > 0 ? f.map((x) => x / n) : f;
};

const dot = (a: ArrayLike<number>, b: ArrayLike<number>): number => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
};

/** A seeded unit vector with Gaussian components (Box–Muller over mulberry32). */
function gaussianUnit(seed: number, dim: number): Float32Array {
  let a = seed >>> 0;
  const rand = (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const v: number[] = [];
  for (let i = 0; i < dim; i++) v.push(Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand()));
  return unit(v);
}

const floatVector = (minLength: number, maxLength: number) =>
  fc.array(fc.float({ min: -1000, max: 1000, noNaN: true, noDefaultInfinity: true }), { minLength, maxLength });

describe('quantize', () => {
  it('maps the largest magnitude to ±127 and rounds half away from zero', () => {
    const q = quantize([1, -0.5, 0.25, 0, -1]);
    expect(q.scale).toBe(Math.fround(1 / 127));
    // -0.5 · 127 = -63.5 → -64; 0.25 · 127 = 31.75 → 32
    expect([...q.values]).toEqual([127, -64, 32, 0, -127]);
  });

  it('gives a zero vector scale 0 and zero values, and a zero dot product', () => {
    const q = quantize(new Float32Array(8));
    expect(q.scale).toBe(0);
    expect([...q.values]).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
    expect([...dequantize(q)]).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
    expect(quantizedDot(q, quantize(unit([1, 2, 3, 4, 5, 6, 7, 8])))).toBe(0);
  });

  it('rejects a non-finite component', () => {
    expect(caught(() => quantize([1, Number.NaN]))).toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(caught(() => quantize([Number.POSITIVE_INFINITY, 1]))).toMatchObject({ code: 'INVALID_ARGUMENT' });
  });

  it('keeps the tail of a longer output (zero padding survives)', () => {
    const out = new Int8Array(8);
    const scale = quantizeInto([0.5, -0.5, 1], out);
    expect(scale).toBe(Math.fround(1 / 127));
    expect([...out]).toEqual([64, -64, 127, 0, 0, 0, 0, 0]);
    expect(caught(() => quantizeInto([1, 2, 3], new Int8Array(2)))).toMatchObject({ code: 'INVALID_ARGUMENT' });
  });

  it('round trip: every component comes back within scale / 2, values stay in [-127, 127]', () => {
    fc.assert(
      fc.property(floatVector(1, 64), (v) => {
        const q = quantize(v);
        const back = dequantize(q);
        for (let i = 0; i < v.length; i++) {
          expect(q.values[i]!).toBeGreaterThanOrEqual(-127);
          expect(Math.abs(back[i]! - v[i]!)).toBeLessThanOrEqual(q.scale / 2 + Math.abs(v[i]!) * 1e-6 + 1e-30);
        }
      }),
    );
  });

  it('is odd: quantize(-v) = -quantize(v) with the same scale', () => {
    fc.assert(
      fc.property(floatVector(1, 32), (v) => {
        const a = quantize(v);
        const b = quantize(v.map((x) => -x));
        expect(b.scale).toBe(a.scale);
        expect([...b.values]).toEqual([...a.values].map((x) => (x === 0 ? 0 : -x)));
      }),
    );
  });

  it('quantized dot products stay within the worst-case bound of the float dot product, for any unit vectors', () => {
    // |â·b̂ − a·b| ≤ ‖a‖₁·s_b/2 + ‖b‖₁·s_a/2 + d·s_a·s_b/4, with s ≤ max|x|/127
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 96 }).chain((d) => fc.tuple(floatVector(d, d), floatVector(d, d))),
        ([a0, b0]) => {
          const a = unit(a0);
          const b = unit(b0);
          const qa = quantize(a);
          const qb = quantize(b);
          const l1 = (v: Float32Array): number => v.reduce((s, x) => s + Math.abs(x), 0);
          const bound = (l1(a) * qb.scale) / 2 + (l1(b) * qa.scale) / 2 + (a.length * qa.scale * qb.scale) / 4;
          expect(Math.abs(quantizedDot(qa, qb) - dot(a, b))).toBeLessThanOrEqual(bound + 1e-6);
        },
      ),
    );
  });

  it('|cos(q) − cos(float)| < 0.01 for Gaussian unit vectors of 384 dimensions (typical error ≈ 0.001)', () => {
    fc.assert(
      fc.property(fc.integer(), fc.integer(), (s1, s2) => {
        const a = gaussianUnit(s1, 384);
        const b = gaussianUnit(s2 ^ 0x9e3779b9, 384);
        expect(Math.abs(quantizedDot(quantize(a), quantize(b)) - dot(a, b))).toBeLessThan(0.01);
        // a vector against itself: the quantized cosine stays near 1
        expect(Math.abs(quantizedDot(quantize(a), quantize(a)) - 1)).toBeLessThan(0.01);
      }),
      { numRuns: 50 },
    );
  });

  it('dotInt8 is the exact integer sum and rejects different lengths', () => {
    expect(dotInt8(Int8Array.from([127, -127, 3]), Int8Array.from([127, 127, -2]))).toBe(-6);
    expect(caught(() => dotInt8(new Int8Array(2), new Int8Array(3)))).toMatchObject({ code: 'INVALID_ARGUMENT' });
  });
});

describe('vector blobs', () => {
  it('int8 layout: version, kind, uint16 dimensions, float32 scale, values (pinned bytes)', () => {
    const blob = encodeInt8Blob({ values: Int8Array.from([127, -64, 0]), scale: 0.5 });
    // 0.5 as float32 little-endian is 00 00 00 3f; -64 as a byte is 0xc0
    expect([...blob]).toEqual([1, 1, 3, 0, 0x00, 0x00, 0x00, 0x3f, 127, 0xc0, 0]);
    expect(VECTOR_BLOB_VERSION).toBe(1);
    expect(VECTOR_BLOB_HEADER).toBe(8);
  });

  it('float32 layout: header with a zero scale field, then little-endian floats (pinned bytes)', () => {
    const blob = encodeFloat32Blob(Float32Array.from([1, -2]));
    // 1.0f = 00 00 80 3f, -2.0f = 00 00 00 c0
    expect([...blob]).toEqual([1, 2, 2, 0, 0, 0, 0, 0, 0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0x00, 0xc0]);
  });

  it('round trips both kinds, from any byte offset and from a Node Buffer', () => {
    fc.assert(
      fc.property(floatVector(1, 300), fc.integer({ min: 0, max: 7 }), (raw, shift) => {
        const v = Float32Array.from(raw);
        const q = quantize(v);
        for (const blob of [encodeVector(v, 'int8'), encodeVector(v, 'float32')]) {
          // copy to an odd offset inside a larger buffer, as SQLite hands out Buffers from a pool
          const host = new Uint8Array(blob.length + 8);
          host.set(blob, shift);
          const moved = host.subarray(shift, shift + blob.length);
          for (const input of [blob, moved, Buffer.from(moved)]) {
            const d = decodeVectorBlob(input);
            if (d.kind === 'int8') {
              expect(d.scale).toBe(q.scale);
              expect([...d.values]).toEqual([...q.values]);
            } else {
              expect([...d.values]).toEqual([...v]);
            }
          }
        }
      }),
      { numRuns: 50 },
    );
  });

  it('round trips a zero vector', () => {
    const d = decodeVectorBlob(encodeVector(new Float32Array(5)));
    expect(d).toMatchObject({ kind: 'int8', scale: 0 });
    expect([...d.values]).toEqual([0, 0, 0, 0, 0]);
  });

  it('reads the header without decoding', () => {
    expect(readBlobHeader(encodeVector(unit([3, 4]), 'int8'))).toEqual({ kind: 'int8', dimensions: 2, scale: Math.fround(0.8 / 127) });
    expect(readBlobHeader(encodeVector(unit([3, 4]), 'float32'))).toEqual({ kind: 'float32', dimensions: 2, scale: 0 });
  });

  it('rejects malformed blobs with INVALID_ARGUMENT', () => {
    const good = encodeVector(unit([1, 2, 3]));
    const patch = (at: number, byte: number): Uint8Array => {
      const b = Uint8Array.from(good);
      b[at] = byte;
      return b;
    };
    for (const bad of [
      good.subarray(0, 5), // shorter than the header
      patch(0, 2), // unknown version
      patch(1, 9), // unknown kind
      patch(2, 4), // dimensions disagree with the length
      good.subarray(0, good.length - 1), // truncated values
      patch(7, 0xff), // scale is NaN
      encodeVector(unit([1, 2, 3])).subarray(0, VECTOR_BLOB_HEADER), // zero values
    ]) {
      expect(caught(() => decodeVectorBlob(bad))).toMatchObject({ code: 'INVALID_ARGUMENT' });
    }
    expect(caught(() => encodeFloat32Blob(Float32Array.from([Number.NaN])))).toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(caught(() => encodeInt8Blob({ values: new Int8Array(0), scale: 0 }))).toMatchObject({ code: 'INVALID_ARGUMENT' });
  });
});
