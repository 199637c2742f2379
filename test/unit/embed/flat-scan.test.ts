import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FlatVectorIndex, type VectorHit, type VectorStorage } from '../../../src/embed/flat-scan.js';
import { DOT_I8_WAT_SHA256 } from '../../../src/embed/kernel/dot-i8-wasm.js';
import { createScanKernel, createWasmMemory, simdSupported, type ScanKernel } from '../../../src/embed/kernel/scan-kernel.js';
import { TopK } from '../../../src/embed/kernel/top-k.js';
import { dotInt8, encodeVector, quantize } from '../../../src/embed/quantize.js';
import { caught } from '../../helpers/caught.js';

/** mulberry32: seeded uniform [0, 1). */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function randomUnit(rand: () => number, dim: number): Float32Array {
  const v = new Float32Array(dim);
  let s = 0;
  for (let i = 0; i < dim; i++) {
    v[i] = rand() * 2 - 1;
    s += v[i]! * v[i]!;
  }
  return v.map((x) => x / Math.sqrt(s));
}

/** The index's int8 score, computed independently: f32(dot) · f32(rowScale · qScale), rounded to f32. */
function int8Score(row: Float32Array, query: Float32Array): number {
  const r = quantize(row);
  const q = quantize(query);
  return Math.fround(Math.fround(dotInt8(r.values, q.values)) * Math.fround(r.scale * q.scale));
}

/** Brute force: every row scored, best first, equal scores by ascending id. */
function reference(rows: Map<number, Float32Array>, score: (v: Float32Array) => number, k: number, keep = (_id: number) => true): VectorHit[] {
  return [...rows]
    .filter(([id]) => keep(id))
    .map(([id, v]) => ({ id, score: score(v) }))
    .sort((a, b) => b.score - a.score || a.id - b.id)
    .slice(0, k);
}

describe('scan kernels', () => {
  const simd = simdSupported();

  it('this runtime (Node 20) runs the WebAssembly SIMD kernel', () => {
    expect(simd).toBe(true);
    expect(new FlatVectorIndex({ dimensions: 8 }).kernelName).toBe('wasm-simd');
    expect(new FlatVectorIndex({ dimensions: 8, kernel: 'js' }).kernelName).toBe('js');
  });

  it('the generated module matches dot-i8.wat (regenerate with scripts/build-kernel.mjs)', () => {
    const wat = readFileSync(new URL('../../../src/embed/kernel/dot-i8.wat', import.meta.url));
    expect(createHash('sha256').update(wat).digest('hex')).toBe(DOT_I8_WAT_SHA256);
  });

  /** Random int8 query + n rows of dp bytes at fixed offsets in a fresh memory. */
  function setup(dp: number, n: number, seed: number, fill?: (rand: () => number) => number) {
    const memory = createWasmMemory(Math.ceil((1024 + dp * (n + 1) + 8 * n + 4096) / 65536) + 1);
    const rand = prng(seed);
    const gen = fill ?? ((r: () => number) => Math.floor(r() * 256) - 128);
    const q = 0;
    const rows = Math.ceil(dp / 16) * 16;
    const out = rows + dp * n + 64;
    const i8 = new Int8Array(memory.buffer);
    for (let i = 0; i < rows + dp * n; i++) i8[i] = gen(rand);
    const expected = Array.from({ length: n }, (_, r) => {
      let s = 0;
      for (let j = 0; j < dp; j++) s += i8[q + j]! * i8[rows + r * dp + j]!;
      return s;
    });
    return { memory, q, rows, out, expected };
  }

  it.skipIf(!simd).each([
    [16, 1],
    [16, 5],
    [32, 4],
    [48, 7],
    [400, 9], // a 390-d vector padded to 400
    [384, 33],
    [1024, 3],
  ])('SIMD and JS dot_i8 equal the exact integer sums (dp %i, n %i)', (dp, n) => {
    for (const seed of [1, 2, 3]) {
      const { memory, q, rows, out, expected } = setup(dp, n, seed * 7919 + dp);
      for (const prefer of ['simd', 'js'] as const) {
        createScanKernel(memory, prefer).dotI8(q, rows, n, dp, out);
        expect([...new Int32Array(memory.buffer, out, n)], prefer).toEqual(expected);
      }
    }
  });

  it.skipIf(!simd)('extreme values (±127, -128) do not overflow', () => {
    for (const v of [127, -127, -128]) {
      const { memory, q, rows, out, expected } = setup(1024, 6, 1, () => v);
      for (const prefer of ['simd', 'js'] as const) {
        createScanKernel(memory, prefer).dotI8(q, rows, 6, 1024, out);
        expect([...new Int32Array(memory.buffer, out, 6)]).toEqual(expected);
      }
    }
  });

  it.skipIf(!simd)('score_i8: SIMD and JS give bit-identical float32 scores', () => {
    const n = 23;
    const dp = 64;
    const { memory, q, rows, out } = setup(dp, n, 99, (r) => Math.floor(r() * 255) - 127);
    const scales = out + 4 * n + 64;
    const rand = prng(5);
    new Float32Array(memory.buffer, scales, n).forEach((_, i, a) => (a[i] = rand() / 100));
    const run = (k: ScanKernel): number[] => {
      k.scoreI8(q, rows, scales, n, dp, 0.0123, out);
      return [...new Float32Array(memory.buffer, out, n)];
    };
    expect(run(createScanKernel(memory, 'simd'))).toEqual(run(createScanKernel(memory, 'js')));
  });

  it.skipIf(!simd)('dot_f32: SIMD and JS agree within float rounding', () => {
    const memory = createWasmMemory(2);
    const f = new Float32Array(memory.buffer);
    const rand = prng(11);
    const dp = 388;
    const n = 11;
    for (let i = 0; i < dp * (n + 1); i++) f[i] = rand() * 2 - 1;
    const out = 4 * dp * (n + 1);
    const results = (['simd', 'js'] as const).map((p) => {
      createScanKernel(memory, p).dotF32(0, 4 * dp, n, dp, out);
      return [...new Float32Array(memory.buffer, out, n)];
    });
    for (let r = 0; r < n; r++) {
      let exact = 0;
      for (let j = 0; j < dp; j++) exact += f[j]! * f[dp * (r + 1) + j]!;
      expect(results[0]![r]!).toBeCloseTo(exact, 4);
      expect(results[1]![r]!).toBeCloseTo(exact, 4);
    }
  });
});

describe('at_least and TopK.offerRows (a full heap looks only at the rows that can enter it)', () => {
  /** Scores with ties, NaN and infinities; thresholds among them and outside. */
  const scoreList = fc.array(fc.oneof(fc.float({ noDefaultInfinity: false, noNaN: false }), fc.constantFrom(0.5, -0.25, 0.5, 1, Number.NaN)), { minLength: 0, maxLength: 70 });

  it('SIMD and JS give the ascending rows whose score is not below t, NaN included (property)', () => {
    const memory = createWasmMemory(1);
    fc.assert(
      fc.property(scoreList, fc.oneof(fc.float({ noNaN: true }), fc.constant(Number.NEGATIVE_INFINITY), fc.constant(0.5)), (list, t) => {
        new Float32Array(memory.buffer, 0, list.length).set(list);
        const expected = list.flatMap((s, i) => (!(Math.fround(s) < t) ? [i] : []));
        for (const prefer of simdSupported() ? (['simd', 'js'] as const) : (['js'] as const)) {
          const count = createScanKernel(memory, prefer).atLeast(0, list.length, t, 4096);
          expect([...new Int32Array(memory.buffer, 4096, count)]).toEqual(expected);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('offerRows of the rows at_least finds keeps what offerAll keeps, chunk after chunk (property)', () => {
    const memory = createWasmMemory(1);
    const kernel = createScanKernel(memory, 'auto');
    fc.assert(
      fc.property(fc.array(scoreList, { minLength: 1, maxLength: 5 }), fc.integer({ min: 1, max: 12 }), (chunks, k) => {
        const all = new TopK(k);
        const some = new TopK(k);
        let nextId = 1;
        for (const list of chunks) {
          const scores = new Float32Array(memory.buffer, 0, list.length);
          scores.set(list);
          const ids = Float64Array.from(list, () => nextId++ % 7); // repeated ids: ties broken by id
          all.offerAll(scores, list.length, ids, undefined);
          if (some.size < some.k) some.offerAll(scores, list.length, ids, undefined);
          else {
            const count = kernel.atLeast(0, list.length, some.threshold, 4096);
            some.offerRows(scores, new Int32Array(memory.buffer, 4096, count), count, ids, undefined);
          }
        }
        expect(some.sorted()).toEqual(all.sorted());
      }),
      { numRuns: 300 },
    );
  });
});

describe('TopK', () => {
  it('keeps the k best, best first, ties by ascending id', () => {
    const top = new TopK(3);
    for (const [s, id] of [[0.5, 9], [0.9, 4], [0.5, 2], [0.1, 1], [0.9, 7], [0.5, 1]] as const) top.offer(s, id);
    expect(top.sorted()).toEqual([{ id: 4, score: 0.9 }, { id: 7, score: 0.9 }, { id: 1, score: 0.5 }]);
    expect(new TopK(0).sorted()).toEqual([]);
  });
});

describe.each<[VectorStorage, 'auto' | 'js']>([
  ['int8', 'auto'],
  ['int8', 'js'],
  ['float32', 'auto'],
  ['float32', 'js'],
])('FlatVectorIndex (%s, kernel %s)', (storage, kernel) => {
  const score = (q: Float32Array) => (v: Float32Array): number =>
    storage === 'int8' ? int8Score(v, q) : v.reduce((s, x, i) => s + x * q[i]!, 0);
  const tolerance = storage === 'int8' ? 0 : 1e-5;

  function expectHits(got: readonly VectorHit[], want: readonly VectorHit[]): void {
    if (tolerance === 0) {
      expect(got).toEqual(want);
      return;
    }
    expect(got.map((h) => h.id)).toEqual(want.map((h) => h.id));
    got.forEach((h, i) => expect(Math.abs(h.score - want[i]!.score)).toBeLessThan(tolerance));
  }

  function build(dim: number, n: number, seed: number, chunkRows?: number) {
    const rand = prng(seed);
    const rows = new Map<number, Float32Array>();
    const index = new FlatVectorIndex({ dimensions: dim, storage, kernel, ...(chunkRows ? { chunkRows } : {}) });
    for (let i = 0; i < n; i++) {
      const id = i * 3 + 1;
      const v = randomUnit(rand, dim);
      rows.set(id, v);
      index.add(id, v);
    }
    return { index, rows, rand };
  }

  it.each([1, 5, 16, 17, 100, 384])('ranks like brute force for %i dimensions', (dim) => {
    const { index, rows, rand } = build(dim, 150, dim);
    for (let t = 0; t < 5; t++) {
      const q = randomUnit(rand, dim);
      expectHits(index.search(q, 10), reference(rows, score(q), 10));
    }
  });

  it('k larger than the index returns every row; k = 0 and an empty index return nothing', () => {
    const { index, rows, rand } = build(24, 7, 3);
    const q = randomUnit(rand, 24);
    const all = index.search(q, 50);
    expect(all).toHaveLength(7);
    expectHits(all, reference(rows, score(q), 50));
    expect(index.search(q, 0)).toEqual([]);
    expect(new FlatVectorIndex({ dimensions: 24, storage, kernel }).search(q, 5)).toEqual([]);
  });

  it('filter: results only from kept ids, asked only about candidates', () => {
    const { index, rows, rand } = build(32, 400, 4);
    const q = randomUnit(rand, 32);
    const asked: number[] = [];
    const keep = (id: number): boolean => {
      asked.push(id);
      return id % 2 === 0;
    };
    expectHits(index.search(q, 10, keep), reference(rows, score(q), 10, (id) => id % 2 === 0));
    expect(asked.length).toBeLessThan(400);
    expect(index.search(q, 10, () => false)).toEqual([]);
  });

  it('remove: the id is gone, the row moved into its slot still scores right, re-add works', () => {
    const { index, rows, rand } = build(20, 50, 5, 16);
    for (const id of [1, 4 * 3 + 1, 49 * 3 + 1, 20 * 3 + 1]) {
      expect(index.remove(id)).toBe(true);
      rows.delete(id);
    }
    expect(index.remove(1)).toBe(false);
    expect(index.remove(12345)).toBe(false);
    expect(index.size).toBe(46);
    expect(index.has(1)).toBe(false);
    for (const [id, v] of [...rows].slice(0, 10)) expect(index.search(v, 1)[0]!.id).toBe(id);
    const q = randomUnit(rand, 20);
    expectHits(index.search(q, 46), reference(rows, score(q), 46));
    const back = randomUnit(rand, 20);
    index.add(1, back);
    rows.set(1, back);
    expect(index.search(back, 1)[0]!.id).toBe(1);
    expectHits(index.search(q, 100), reference(rows, score(q), 100));
  });

  it('equal scores come back by ascending id, and k cuts among them by id', () => {
    const index = new FlatVectorIndex({ dimensions: 10, storage, kernel });
    const same = randomUnit(prng(6), 10);
    for (const id of [40, 7, 99, 3, 12]) index.add(id, same);
    const hits = index.search(same, 3);
    expect(hits.map((h) => h.id)).toEqual([3, 7, 12]);
    expect(new Set(hits.map((h) => h.score)).size).toBe(1);
  });

  it('add on an existing id replaces its vector', () => {
    const { index, rows, rand } = build(12, 20, 8);
    const v = randomUnit(rand, 12);
    index.add(4, v);
    rows.set(4, v);
    expect(index.size).toBe(20);
    expect(index.search(v, 1)[0]!.id).toBe(4);
    const q = randomUnit(rand, 12);
    expectHits(index.search(q, 20), reference(rows, score(q), 20));
  });

  it('loads blobs of either kind: same results as adding the vectors', () => {
    const { index, rows, rand } = build(48, 60, 9);
    for (const kind of ['int8', 'float32'] as const) {
      const fromBlobs = new FlatVectorIndex({ dimensions: 48, storage, kernel });
      expect(fromBlobs.addBlobs([...rows].map(([id, v]) => ({ id, blob: encodeVector(v, kind) })))).toBe(60);
      const q = randomUnit(rand, 48);
      const got = fromBlobs.search(q, 10);
      if (kind === storage) expect(got).toEqual(index.search(q, 10));
      else expect(got.map((h) => h.id).slice(0, 3)).toEqual(index.search(q, 3).map((h) => h.id));
    }
  });

  it('grows chunk by chunk to thousands of rows, and reports its memory', () => {
    const { index, rows, rand } = build(64, 5000, 10, 256);
    const report = index.memoryReport();
    expect(report).toMatchObject({ rows: 5000, chunks: 20, capacityRows: 5120, idTableBytes: 5120 * 8 });
    const rowBytes = storage === 'int8' ? 64 + 4 : 256;
    expect(report.wasmBytes).toBeGreaterThanOrEqual(5120 * rowBytes);
    expect(report.wasmBytes).toBeLessThan(5120 * rowBytes + 2 * 256 * rowBytes + 65536 * 2);
    expect(index.bytes).toBe(report.totalBytes);
    for (let t = 0; t < 3; t++) {
      const q = randomUnit(rand, 64);
      expectHits(index.search(q, 25), reference(rows, score(q), 25));
    }
    for (let id = 1; id < 3 * 2000; id += 3) {
      index.remove(id);
      rows.delete(id);
    }
    expect(index.memoryReport().wasmBytes).toBe(report.wasmBytes); // memory is kept for the next adds
    const q = randomUnit(rand, 64);
    expectHits(index.search(q, 25), reference(rows, score(q), 25));
  });

  it('agrees with a Map oracle under random adds and removes (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.boolean(), fc.integer({ min: 0, max: 60 }), fc.integer()), { maxLength: 120 }),
        fc.integer(),
        (ops, qSeed) => {
          const index = new FlatVectorIndex({ dimensions: 9, storage, kernel, chunkRows: 16 });
          const rows = new Map<number, Float32Array>();
          for (const [isAdd, id, seed] of ops) {
            if (isAdd) {
              const v = randomUnit(prng(seed), 9);
              index.add(id, v);
              rows.set(id, v);
            } else {
              expect(index.remove(id)).toBe(rows.delete(id));
            }
          }
          expect(index.size).toBe(rows.size);
          const q = randomUnit(prng(qSeed), 9);
          expectHits(index.search(q, 8), reference(rows, score(q), 8));
        },
      ),
      { numRuns: 60 },
    );
  });

  it('scoreIds: the scan\'s own score of each given row, bit for bit, in the order given; ids without a row left out (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 70 }), fc.integer(), fc.array(fc.integer({ min: 0, max: 260 }), { maxLength: 40 }), (dim, seed, asked) => {
        const { index, rand } = build(dim, 80, seed, 16);
        for (let id = 1; id < 60; id += 9) index.remove(id); // moved rows score from their new slot
        const q = randomUnit(rand, dim);
        const scanned = new Map(index.search(q, index.size).map((h) => [h.id, h.score]));
        const got = index.scoreIds(q, asked);
        expect(got).toEqual(asked.filter((id) => scanned.has(id)).map((id) => ({ id, score: scanned.get(id)! })));
      }),
      { numRuns: 40 },
    );
    expect(new FlatVectorIndex({ dimensions: 3, storage, kernel }).scoreIds(randomUnit(prng(1), 3), [1, 2])).toEqual([]);
  });

  it('scoreIds: runs of consecutive rows, across chunk boundaries, score as the scan does (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 70 }), fc.integer(), fc.array(fc.tuple(fc.integer({ min: 0, max: 90 }), fc.integer({ min: 1, max: 40 })), { maxLength: 6 }), (dim, seed, runs) => {
        const { index, rand } = build(dim, 80, seed, 16);
        const q = randomUnit(rand, dim);
        const scanned = new Map(index.search(q, index.size).map((h) => [h.id, h.score]));
        const asked = runs.flatMap(([from, n]) => Array.from({ length: n }, (_, k) => from + k));
        expect(index.scoreIds(q, asked)).toEqual(asked.filter((id) => scanned.has(id)).map((id) => ({ id, score: scanned.get(id)! })));
      }),
      { numRuns: 40 },
    );
  });

  // 17: padded rows (row by row); 32: unpadded (a block copy per chunk into an empty index)
  it.each([17, 32])('exportRows → addRows rebuilds the same index: same hits and scores, bit for bit, after removes (the vector snapshot, %i dimensions)', (dim) => {
    const { index, rand } = build(dim, 300, 11, 64);
    for (let id = 1; id < 300; id += 7) index.remove(id);
    const copy = new FlatVectorIndex({ dimensions: dim, storage, kernel, chunkRows: 32 });
    const { ids, rows, scales } = index.exportRows();
    expect(ids.length).toBe(index.size);
    copy.addRows(ids, rows, scales);
    expect(copy.size).toBe(index.size);
    for (let t = 0; t < 5; t++) {
      const q = randomUnit(rand, dim);
      expect(copy.search(q, 20)).toEqual(index.search(q, 20));
      expect(copy.scoreIds(q, ids)).toEqual(index.scoreIds(q, ids));
    }
    // ids come out ascending; the copy still takes changes (its id map is built on the first one)
    expect([...ids]).toEqual([...ids].sort((a, b) => a - b));
    expect(copy.has(ids[3]!)).toBe(true);
    expect(copy.has(ids[3]! + 0.5)).toBe(false);
    for (const target of [index, copy]) {
      target.remove(ids[3]!);
      target.add(ids[3]!, randomUnit(prng(99), dim));
      target.add(100_000, randomUnit(prng(98), dim));
    }
    const q = randomUnit(rand, dim);
    expect(copy.search(q, 50)).toEqual(index.search(q, 50));
    // ids out of order load row by row, the same
    const reversed = new FlatVectorIndex({ dimensions: dim, storage, kernel });
    const order = [...ids.keys()].reverse();
    reversed.addRows(order.map((i) => ids[i]!), storage === 'int8' ? Int8Array.from(order.flatMap((i) => [...rows.subarray(i * dim, (i + 1) * dim)])) : Float32Array.from(order.flatMap((i) => [...rows.subarray(i * dim, (i + 1) * dim)])), scales ? Float32Array.from(order.map((i) => scales[i]!)) : undefined);
    const fresh = new FlatVectorIndex({ dimensions: dim, storage, kernel });
    fresh.addRows(ids, rows, scales);
    expect(reversed.search(q, 30)).toEqual(fresh.search(q, 30));
    expect(caught(() => copy.addRows(ids, rows.subarray(1), scales)).code).toBe('INVALID_ARGUMENT');
    // a repeated id: the last row wins, as with add
    const dup = new FlatVectorIndex({ dimensions: dim, storage, kernel });
    dup.addRows([5, 5], rows.subarray(0, 2 * dim), scales?.subarray(0, 2));
    expect(dup.size).toBe(1);
  });

  it('rejects bad input with INVALID_ARGUMENT', () => {
    const index = new FlatVectorIndex({ dimensions: 4, storage, kernel });
    expect(caught(() => index.scoreIds(new Float32Array(3), [1]))).toMatchObject({ code: 'INVALID_ARGUMENT', data: { name: 'query' } });
    expect(caught(() => index.scoreIds(Float32Array.from([1, Number.NaN, 0, 0]), [1]))).toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(caught(() => index.add(1, new Float32Array(5)))).toMatchObject({ code: 'INVALID_ARGUMENT', data: { name: 'vector' } });
    expect(caught(() => index.add(1, Float32Array.from([1, Number.NaN, 0, 0])))).toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(caught(() => index.add(1.5, new Float32Array(4)))).toMatchObject({ code: 'INVALID_ARGUMENT', data: { name: 'id' } });
    expect(caught(() => index.add(1, encodeVector(new Float32Array(3))))).toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(caught(() => index.add(1, Uint8Array.from([9, 9, 9])))).toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(caught(() => index.add(1, { values: new Int8Array(4), scale: -1 }))).toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(caught(() => index.search(new Float32Array(3), 1))).toMatchObject({ code: 'INVALID_ARGUMENT', data: { name: 'query' } });
    expect(caught(() => index.search(new Float32Array(4), -1))).toMatchObject({ code: 'INVALID_ARGUMENT', data: { name: 'k' } });
    expect(caught(() => index.search(new Float32Array(4), 1.5))).toMatchObject({ code: 'INVALID_ARGUMENT', data: { name: 'k' } });
    expect(index.size).toBe(0);
  });
});

describe('FlatVectorIndex options', () => {
  it('rejects bad dimensions, storage and chunk sizes', () => {
    for (const options of [
      { dimensions: 0 },
      { dimensions: 1.5 },
      { dimensions: 70_000 },
      { dimensions: 8, storage: 'int4' as VectorStorage },
      { dimensions: 8, chunkRows: 8 },
      { dimensions: 8, chunkRows: 100.5 },
    ]) {
      expect(caught(() => new FlatVectorIndex(options))).toMatchObject({ code: 'INVALID_ARGUMENT' });
    }
  });

  it('int8 scores approximate the float32 ones (cosine within 0.02 for 384-d unit vectors)', () => {
    const rand = prng(12);
    const a = new FlatVectorIndex({ dimensions: 384 });
    const b = new FlatVectorIndex({ dimensions: 384, storage: 'float32' });
    for (let i = 0; i < 200; i++) {
      const v = randomUnit(rand, 384);
      a.add(i, v);
      b.add(i, v);
    }
    const q = randomUnit(rand, 384);
    const exact = new Map(b.search(q, 200).map((h) => [h.id, h.score]));
    for (const h of a.search(q, 200)) expect(Math.abs(h.score - exact.get(h.id)!)).toBeLessThan(0.02);
  });
});
