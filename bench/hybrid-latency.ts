/**
 * Hybrid search latency without the query embedding, on the large npm corpus (bench/corpus.ts,
 * ~34K files): the corpus is indexed (lexically) into a temporary database, every chunk text gets
 * a random unit vector of `--dim` components (384 by default; quality is not measured here, only
 * cost), stored int8 like real ones, and then each query of bench/queries.ts runs lexically and in
 * hybrid mode (`hybridSearch` given a precomputed query vector, as the engine embeds before it reads, so
 * the time measured excludes the model by construction). Also reported: loading the vectors into
 * memory (first search) and the memory they take.
 *
 *   npx tsx bench/hybrid-latency.ts [--dim 384] [--db PATH]   # --db reuses an indexed corpus database
 *
 * Writes bench/results/hybrid-latency.json.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngine } from '../src/index.js';
import { resolveConfig } from '../src/config/resolve.js';
import { encodeVector } from '../src/embed/quantize.js';
import { normalize } from '../src/embed/provider.js';
import { hybridSearch, vectorTexts } from '../src/search/hybrid-search.js';
import { lexicalSearch, type LexicalParams } from '../src/search/lexical-search.js';
import { VectorIndexCache } from '../src/search/vector-search.js';
import { IndexStore } from '../src/store/index-store.js';
import { ensureCorpus } from './corpus.js';
import { benchQueries } from './queries.js';
import { environment, writeResult } from './results.js';
import { percentile, prng } from './stats.js';

const MODEL = 'bench:random:384:1';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}


function unitVector(dim: number, next: () => number): Float32Array {
  const v = new Float32Array(dim);
  for (let i = 0; i < dim; i++) v[i] = next() * 2 - 1;
  return normalize(v);
}

async function main(): Promise<void> {
  const dim = Number(arg('--dim') ?? 384);
  const env = environment();
  const tmp = mkdtempSync(join(tmpdir(), 'scry-bench-hybrid-'));
  const dbPath = arg('--db') ?? join(tmp, 'index.db');
  try {
    const root = ensureCorpus().root;
    if (!arg('--db')) {
      process.stderr.write(`indexing ${root} ...\n`);
      const engine = await createEngine({ root, db: dbPath, env: {} });
      const report = await engine.index();
      engine.close();
      process.stderr.write(`indexed ${report.filesIndexed} files in ${(report.durationMs / 1000).toFixed(1)} s\n`);
    }
    const store = IndexStore.open(dbPath, { create: false });
    const next = prng(42);
    const hashes = new Set<string>();
    for (const row of store.embeddings.chunkIds()) hashes.add(row.hash);
    const t0 = performance.now();
    const list = [...hashes];
    for (let i = 0; i < list.length; i += 5000) {
      store.transaction(() => {
        for (const h of list.slice(i, i + 5000)) store.embeddings.put(MODEL, h, Buffer.from(encodeVector(unitVector(dim, next), 'int8')));
      });
    }
    process.stderr.write(`stored ${list.length} vectors in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
    const config = await resolveConfig({ db: dbPath, env: {} });
    const cache = new VectorIndexCache();
    const rss0 = process.memoryUsage().rss;
    const l0 = performance.now();
    const snapshot = cache.sync(store, MODEL)!;
    const loadMs = performance.now() - l0;
    const rssGrowth = process.memoryUsage().rss - rss0;
    const f = config.search.fusion;
    const fusion = { k: f.k, weights: { lexical: f.lexical, vector: f.vector, symbol: f.symbol }, depth: f.depth, fileCap: f.fileCap };
    const queries = benchQueries();
    const lexMs: number[] = [];
    const hybMs: number[] = [];
    const vecMs: number[] = [];
    for (let round = 0; round < 3; round++) {
      for (const q of queries) {
        const params: LexicalParams = { query: q.text, limit: 10, files: false, filters: {}, weights: config.search.weights, ranking: config.search.ranking, snippetLines: 4 };
        const qv = unitVector(dim, next);
        const queryVectors = vectorTexts(params.query).map(() => qv);
        let s = performance.now();
        lexicalSearch(store, params);
        const lex = performance.now() - s;
        s = performance.now();
        hybridSearch(store, { ...params, mode: 'hybrid', fusion, vectors: cache.sync(store, MODEL)!, queryVectors });
        const hyb = performance.now() - s;
        s = performance.now();
        hybridSearch(store, { ...params, mode: 'vector', fusion, vectors: cache.sync(store, MODEL)!, queryVectors });
        const vec = performance.now() - s;
        if (round > 0) {
          lexMs.push(lex);
          hybMs.push(hyb);
          vecMs.push(vec);
        }
      }
    }
    store.close();
    const row = (name: string, xs: number[]): string => `${name.padEnd(8)} p50 ${percentile(xs, 50).toFixed(1).padStart(6)} ms   p95 ${percentile(xs, 95).toFixed(1).padStart(6)} ms   max ${Math.max(...xs).toFixed(1).padStart(6)} ms`;
    process.stdout.write(
      [
        `load ${env.loadAvg1m.toFixed(2)}, commit ${env.commit ?? '?'}${env.dirty ? ' (dirty)' : ''}`,
        `${snapshot.size} chunks with ${dim}-d int8 vectors (${hashes.size} distinct texts); kernel ${snapshot.index.kernelName}`,
        `vectors loaded on first search in ${(loadMs / 1000).toFixed(2)} s; index memory ${(snapshot.index.bytes / 1048576).toFixed(1)} MB (RSS +${(rssGrowth / 1048576).toFixed(1)} MB)`,
        `${lexMs.length} searches per mode (${queries.length} queries × 2 warm rounds), query embedding excluded:`,
        row('lexical', lexMs),
        row('hybrid', hybMs),
        row('vector', vecMs),
        `hybrid p95 / lexical p95 = ${(percentile(hybMs, 95) / percentile(lexMs, 95)).toFixed(2)}`,
      ].join('\n') + '\n',
    );
    writeResult('hybrid-latency', { dim, chunks: snapshot.size, distinctTexts: hashes.size, loadMs, indexBytes: snapshot.index.bytes, rssGrowth, lexMs, hybMs, vecMs });
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

await main();
