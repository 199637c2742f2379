/**
 * The exact vector scan (issue 8): FlatVectorIndex's WebAssembly SIMD kernel against a naive JS
 * loop over the same int8 data, measured in the same run.
 *
 *   node --expose-gc --import tsx bench/vector-scan.ts [--n 500000] [--dim 384] [--queries 20] [--k 10] [--seed 42]
 *
 * (`npx tsx bench/vector-scan.ts` works too; without --expose-gc the heap numbers are noisier.)
 * Builds n seeded random unit vectors (Gaussian components, normalised), quantizes each into an
 * int8 blob (quantize.ts layout) in one buffer, loads the blobs into an int8 index, and measures
 * per query, interleaved so that load on the shared machine hits every path alike: the SIMD
 * search (scan + top-k), a naive JS search over the blobs (one plain loop per row, sorted-array
 * top-k: the reference), the index's JS fallback kernel (what runs without SIMD), and a float32
 * index (SIMD f32x4). Half the queries are random unit vectors (their neighbours are barely
 * closer than the rest: the worst case for quantization), half a stored vector plus as much noise
 * again (cosine ≈ 0.7 to it, a clear neighbourhood, closer to real embeddings). recall@k compares
 * the int8 top k with the float32 top k. Writes bench/results/vector-scan.json.
 */
import { FlatVectorIndex, type VectorHit } from '../src/embed/flat-scan.js';
import { TopK } from '../src/embed/kernel/top-k.js';
import { simdSupported } from '../src/embed/kernel/scan-kernel.js';
import { encodeInt8Blob, quantize, VECTOR_BLOB_HEADER } from '../src/embed/quantize.js';
import { environment, writeResult } from './results.js';
import { fmtMB, fmtMs, MB, round2, summarize, timeSync, prng } from './stats.js';

function numberFlag(name: string, fallback: number): number {
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === `--${name}` && i + 1 < argv.length) return Number(argv[i + 1]);
    if (a.startsWith(`--${name}=`)) return Number(a.slice(name.length + 3));
  }
  return fallback;
}

const N = numberFlag('n', 500_000);
const DIM = numberFlag('dim', 384);
const QUERIES = numberFlag('queries', 20);
const K = numberFlag('k', 10);
const SEED = numberFlag('seed', 42);
const WARMUP = 3;
const STRIDE = VECTOR_BLOB_HEADER + DIM;


/** Fills `out` with N(0, 1) components (Box–Muller) and scales it to unit length. */
function gaussianUnit(rand: () => number, out: Float32Array): Float32Array {
  for (let i = 0; i < out.length; i += 2) {
    const r = Math.sqrt(-2 * Math.log(1 - rand()));
    const t = 2 * Math.PI * rand();
    out[i] = r * Math.cos(t);
    if (i + 1 < out.length) out[i + 1] = r * Math.sin(t);
  }
  let s = 0;
  for (let i = 0; i < out.length; i++) s += out[i]! * out[i]!;
  const inv = 1 / Math.sqrt(s);
  for (let i = 0; i < out.length; i++) out[i]! *= inv;
  return out;
}

const gc = (globalThis as { gc?: () => void }).gc;
const settle = (): void => gc?.();

/** The reference: one plain loop per row over the blobs, a sorted array for the top k. */
function naiveSearch(blobs: Int8Array, scales: Float32Array, q: Int8Array, qScale: number, k: number): VectorHit[] {
  const best: VectorHit[] = [];
  for (let r = 0; r < N; r++) {
    const base = r * STRIDE + VECTOR_BLOB_HEADER;
    let dot = 0;
    for (let j = 0; j < DIM; j++) dot += q[j]! * blobs[base + j]!;
    const score = dot * scales[r]! * qScale;
    if (best.length === k && score <= best[k - 1]!.score) continue;
    let at = best.length;
    while (at > 0 && best[at - 1]!.score < score) at--;
    best.splice(at, 0, { id: r, score });
    if (best.length > k) best.pop();
  }
  return best;
}

function makeQueries(data: Float32Array): { query: Float32Array; kind: 'random' | 'near' }[] {
  const rand = prng(SEED ^ 0x5eed);
  const out: { query: Float32Array; kind: 'random' | 'near' }[] = [];
  for (let i = 0; i < QUERIES + WARMUP; i++) {
    const q = gaussianUnit(rand, new Float32Array(DIM));
    if (i % 2 === 1) {
      // a stored vector plus a random unit vector: cosine ≈ 1/√2 to the stored one
      const row = Math.floor(rand() * N);
      for (let j = 0; j < DIM; j++) q[j] = q[j]! + data[row * DIM + j]!;
      let s = 0;
      for (let j = 0; j < DIM; j++) s += q[j]! * q[j]!;
      for (let j = 0; j < DIM; j++) q[j]! /= Math.sqrt(s);
    }
    out.push({ query: q, kind: i % 2 === 1 ? 'near' : 'random' });
  }
  return out;
}

function recall(got: readonly VectorHit[], truth: readonly VectorHit[]): number {
  const want = new Set(truth.map((h) => h.id));
  return got.filter((h) => want.has(h.id)).length / Math.max(1, truth.length);
}

const sameHits = (a: readonly VectorHit[], b: readonly VectorHit[]): boolean =>
  a.length === b.length && a.every((h, i) => h.id === b[i]!.id && h.score === b[i]!.score);

/** JS top-k selection alone over n random scores (what a search adds to the kernel). */
function selectionMs(): number {
  const rand = prng(SEED + 7);
  const scores = new Float32Array(N).map(() => rand() * 2 - 1);
  const ids = new Float64Array(N).map((_, i) => i);
  const runs: number[] = [];
  for (let r = 0; r < 7; r++) runs.push(timeSync(() => new TopK(K).offerAll(scores, N, ids, undefined)).ms);
  return summarize(runs.slice(2)).p50;
}

function main(): void {
  const env = environment();
  console.log(`vector scan: ${N} × ${DIM}, k ${K}, ${QUERIES} queries (+${WARMUP} warm-up), seed ${SEED}; load ${env.loadAvg1m.toFixed(2)}, SIMD ${simdSupported() ? 'yes' : 'no'}`);

  const rand = prng(SEED);
  const data = new Float32Array(N * DIM);
  const generateMs = timeSync(() => {
    for (let r = 0; r < N; r++) gaussianUnit(rand, data.subarray(r * DIM, (r + 1) * DIM));
  }).ms;

  // Quantize + encode every vector into one buffer of blobs, as the vectors table would hold them.
  const blobBuf = new Uint8Array(N * STRIDE);
  const scales = new Float32Array(N);
  const encodeMs = timeSync(() => {
    for (let r = 0; r < N; r++) {
      const q = quantize(data.subarray(r * DIM, (r + 1) * DIM));
      scales[r] = q.scale;
      blobBuf.set(encodeInt8Blob(q), r * STRIDE);
    }
  }).ms;
  const blobAt = function* (): Generator<{ id: number; blob: Uint8Array }> {
    for (let r = 0; r < N; r++) yield { id: r, blob: blobBuf.subarray(r * STRIDE, (r + 1) * STRIDE) };
  };

  settle();
  const before = process.memoryUsage();
  const simd = new FlatVectorIndex({ dimensions: DIM });
  const loadMs = timeSync(() => simd.addBlobs(blobAt())).ms;
  settle();
  const after = process.memoryUsage();
  const report = simd.memoryReport();
  const memory = {
    index: report,
    rssDeltaBytes: after.rss - before.rss,
    arrayBuffersDeltaBytes: after.arrayBuffers - before.arrayBuffers,
    externalDeltaBytes: after.external - before.external,
    heapUsedDeltaBytes: after.heapUsed - before.heapUsed,
    mapBytesPerEntryMeasured: round2((after.heapUsed - before.heapUsed) / N),
  };
  console.log(`generate ${fmtMs(generateMs)}, quantize+encode ${fmtMs(encodeMs)}, load ${fmtMs(loadMs)} (${Math.round(N / (loadMs / 1000))} rows/s)`);
  console.log(`memory: index ${fmtMB(report.totalBytes)} (wasm ${fmtMB(report.wasmBytes)}, ids ${fmtMB(report.idTableBytes)}, map ≈${fmtMB(report.idMapBytesEstimate)}), RSS +${fmtMB(memory.rssDeltaBytes)}, heap +${fmtMB(memory.heapUsedDeltaBytes)} (${memory.mapBytesPerEntryMeasured} B/row)`);

  const jsKernel = new FlatVectorIndex({ dimensions: DIM, kernel: 'js' });
  jsKernel.addBlobs(blobAt());
  const f32 = new FlatVectorIndex({ dimensions: DIM, storage: 'float32' });
  const float32BuildMs = timeSync(() => {
    for (let r = 0; r < N; r++) f32.add(r, data.subarray(r * DIM, (r + 1) * DIM));
  }).ms;
  settle();

  const blobs = new Int8Array(blobBuf.buffer);
  const queries = makeQueries(data);
  const times = { simd: [] as number[], naive: [] as number[], jsKernel: [] as number[], float32: [] as number[] };
  const recalls = { random: [] as number[], near: [] as number[] };
  let simdEqualsJs = true;
  let naiveSameIds = true;
  queries.forEach(({ query, kind }, i) => {
    const a = timeSync(() => simd.search(query, K));
    const q = quantize(query);
    const b = timeSync(() => naiveSearch(blobs, scales, q.values, q.scale, K));
    const c = timeSync(() => jsKernel.search(query, K));
    const d = timeSync(() => f32.search(query, K));
    simdEqualsJs &&= sameHits(a.value, c.value);
    naiveSameIds &&= recall(a.value, b.value) === 1;
    if (i < WARMUP) return;
    times.simd.push(a.ms);
    times.naive.push(b.ms);
    times.jsKernel.push(c.ms);
    times.float32.push(d.ms);
    recalls[kind].push(recall(a.value, d.value));
  });

  const latency = {
    simd: summarize(times.simd),
    naive: summarize(times.naive),
    jsKernel: summarize(times.jsKernel),
    float32: summarize(times.float32),
  };
  const mean = (xs: readonly number[]): number => round2(xs.reduce((s, x) => s + x, 0) / Math.max(1, xs.length));
  const perQueryRatio = times.naive.map((t, i) => t / times.simd[i]!).sort((x, y) => x - y);
  const ratios = {
    naiveOverSimdP50: round2(latency.naive.p50 / latency.simd.p50),
    naiveOverSimdMedianPerQuery: round2(perQueryRatio[Math.floor(perQueryRatio.length / 2)] ?? Number.NaN),
    jsKernelOverSimdP50: round2(latency.jsKernel.p50 / latency.simd.p50),
    float32OverSimdP50: round2(latency.float32.p50 / latency.simd.p50),
  };
  const recallAtK = { random: mean(recalls.random), near: mean(recalls.near), all: mean([...recalls.random, ...recalls.near]) };
  const selection = round2(selectionMs());
  const targets = {
    scanP50Under40ms: latency.simd.p50 < 40,
    indexBytesUnder250MB: report.totalBytes < 250 * MB,
    rssDeltaUnder250MB: memory.rssDeltaBytes < 250 * MB,
  };

  console.log(`search (scan + top-${K}), ms p50 / p95:`);
  for (const [name, s] of Object.entries(latency)) console.log(`  ${name.padEnd(9)} ${s.p50.toFixed(2)} / ${s.p95.toFixed(2)}`);
  console.log(`naive / SIMD ${ratios.naiveOverSimdP50}× (per-query median ${ratios.naiveOverSimdMedianPerQuery}×), JS kernel / SIMD ${ratios.jsKernelOverSimdP50}×, float32 / int8 ${ratios.float32OverSimdP50}×`);
  console.log(`top-${K} selection over ${N} scores: ${selection} ms; SIMD = JS kernel (ids and scores) ${simdEqualsJs}, naive finds the same ids ${naiveSameIds}`);
  console.log(`recall@${K} int8 vs float32: random queries ${recallAtK.random}, near queries ${recallAtK.near}, all ${recallAtK.all}`);
  console.log(`targets: p50 < 40 ms ${targets.scanP50Under40ms}, index < 250 MB ${targets.indexBytesUnder250MB}, RSS delta < 250 MB ${targets.rssDeltaUnder250MB}`);

  const file = writeResult('vector-scan', {
    env,
    params: { n: N, dim: DIM, k: K, queries: QUERIES, warmup: WARMUP, seed: SEED, gcExposed: gc !== undefined },
    kernel: simd.kernelName,
    simdSupported: simdSupported(),
    build: { generateMs: round2(generateMs), quantizeEncodeMs: round2(encodeMs), loadMs: round2(loadMs), float32BuildMs: round2(float32BuildMs) },
    latency,
    ratios,
    selectionMs: selection,
    agreement: { simdEqualsJsKernel: simdEqualsJs, naiveSameIds },
    recallAtK,
    memory,
    float32Bytes: f32.memoryReport().totalBytes,
    targets,
  });
  console.log(`wrote ${file}`);
}

main();
