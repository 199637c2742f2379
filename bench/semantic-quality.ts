/**
 * Lexical vs hybrid vs vector-only on the golden set (test/quality/queries.json over the quality
 * corpus), with the one real pretrained encoder available offline: Universal Sentence Encoder
 * lite (`embed.provider: use-lite`). Also measures the embedding pipeline against the raw
 * provider in the same run, and search latency without the query embedding.
 *
 *   npx tsx bench/semantic-quality.ts [--provider use-lite] [--fresh] [--vector-weight W] [--symbol-weight W]
 *
 * The corpus index with its vectors is kept in bench/.semantic-cache/ (git-ignored; embedding the
 * ~4K chunks with USE-lite takes 10–20 minutes on 2 cores), so later runs only search; --fresh
 * embeds again.
 * - Quality: per mode, recall@1/5/10 and MRR@10 of the first expected file among the distinct
 *   files of the top results (files: true), as test/quality does; per query kind too.
 * - Pipeline overhead: the embedding pass's wall time against the time inside provider.embed
 *   (reported by the pass), and the raw provider alone on a sample of the same texts.
 * - Latency: `meta.tookMs - meta.embedMs` per query in hybrid mode (p50/p95), against lexical.
 * Writes bench/results/semantic-quality.json.
 */
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createEmbeddingProvider, createEngine, type ConfigInput, type EmbedReport, type Engine } from '../src/index.js';
import { buildCorpus } from '../test/quality/corpus.js';
import { distinctFiles, goldRank } from '../test/quality/metrics.js';
import { environment, writeResult } from './results.js';
import { percentile } from './stats.js';

interface Query {
  readonly id: string;
  readonly query: string;
  readonly expected: string[];
  readonly kind: string;
}

const MODES = ['lexical', 'hybrid', 'vector'] as const;
type Mode = (typeof MODES)[number];
const CACHE = join(import.meta.dirname, '.semantic-cache');

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

function summary(ranks: ReadonlyArray<number | null>): { n: number; r1: number; r5: number; r10: number; mrr: number } {
  const n = ranks.length;
  const at = (k: number): number => ranks.filter((r) => r !== null && r <= k).length / Math.max(n, 1);
  const mrr = ranks.reduce<number>((s, r) => s + (r !== null && r <= 10 ? 1 / r : 0), 0) / Math.max(n, 1);
  return { n, r1: at(1), r5: at(5), r10: at(10), mrr };
}

async function main(): Promise<void> {
  const provider = (arg('--provider') ?? 'use-lite') as 'use-lite';
  const env = environment();
  const queries = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'test', 'quality', 'queries.json'), 'utf8')) as Query[];
  if (process.argv.includes('--fresh')) rmSync(CACHE, { recursive: true, force: true });
  mkdirSync(CACHE, { recursive: true });
  const root = join(CACHE, 'corpus');
  if (!existsSync(root)) buildCorpus(root);
  const fusion = { ...(arg('--vector-weight') ? { vector: Number(arg('--vector-weight')) } : {}), ...(arg('--symbol-weight') ? { symbol: Number(arg('--symbol-weight')) } : {}) };
  const config: ConfigInput = { embed: { provider, batchSize: 32 }, search: { fusion } };
  const engine: Engine = await createEngine({ root, db: join(CACHE, `${provider}.db`), env: {}, config });
  let embedding: EmbedReport | undefined;
  let rawRate: number | undefined;
  try {
    let lastPct = -1;
    const report = await engine.index({
      onEmbedProgress: (p) => {
        const pct = p.total === 0 ? 100 : Math.floor((100 * p.done) / p.total);
        if (pct !== lastPct && pct % 5 === 0) process.stderr.write(`embedding ${p.done}/${p.total}\n`);
        lastPct = pct;
      },
    });
    if (report.embedding && 'error' in report.embedding) throw new Error(report.embedding.error.message);
    embedding = report.embedding;
    // the raw provider on a sample of chunk-sized texts from the corpus, same run
    const sample = (await engine.search('function return value', { limit: 64, mode: 'lexical' })).results.map((r) => r.snippet.repeat(3).slice(0, 600));
    const raw = createEmbeddingProvider(engine.config.embed, { modelsDir: engine.config.models.dir });
    if (raw && sample.length > 0) {
      await raw.embed(sample.slice(0, 4)); // load the model outside the timing
      const t0 = performance.now();
      for (let i = 0; i < sample.length; i += 32) await raw.embed(sample.slice(i, i + 32));
      rawRate = sample.length / ((performance.now() - t0) / 1000);
      await raw.close();
    }
    const ranks: Record<Mode, Array<number | null>> = { lexical: [], hybrid: [], vector: [] };
    const kinds: Record<Mode, Record<string, Array<number | null>>> = { lexical: {}, hybrid: {}, vector: {} };
    const latency: Record<Mode, number[]> = { lexical: [], hybrid: [], vector: [] };
    const embedMs: number[] = [];
    for (const q of queries) {
      for (const mode of MODES) {
        const r = await engine.search(q.query, { limit: 10, files: true, mode, rerank: false });
        if (r.meta.mode !== mode) throw new Error(`${q.id}: asked for ${mode}, got ${r.meta.mode}: ${r.meta.semantic}`);
        const rank = goldRank(distinctFiles(r.results.map((x) => ({ path: x.path, score: x.score }))), q.expected);
        ranks[mode].push(rank);
        (kinds[mode][q.kind] ??= []).push(rank);
        latency[mode].push(r.meta.tookMs - (r.meta.embedMs ?? 0));
        if (r.meta.embedMs !== undefined && mode === 'hybrid') embedMs.push(r.meta.embedMs);
      }
    }
    const f3 = (x: number): string => x.toFixed(3);
    const lines = [`load ${env.loadAvg1m.toFixed(2)}, commit ${env.commit ?? '?'}${env.dirty ? ' (dirty)' : ''}, provider ${provider}, ${engine.status().chunks} chunks, fusion ${JSON.stringify(engine.config.search.fusion)}`];
    lines.push('', `mode      slice         n  recall@1  recall@5  recall@10  MRR@10`);
    for (const mode of MODES) {
      const all = summary(ranks[mode]);
      lines.push(`${mode.padEnd(9)} ${'overall'.padEnd(11)} ${String(all.n).padStart(3)}  ${f3(all.r1).padStart(8)}  ${f3(all.r5).padStart(8)}  ${f3(all.r10).padStart(9)}  ${f3(all.mrr).padStart(6)}`);
      for (const [kind, rs] of Object.entries(kinds[mode]).sort()) {
        const s = summary(rs);
        lines.push(`${mode.padEnd(9)} ${kind.padEnd(11)} ${String(s.n).padStart(3)}  ${f3(s.r1).padStart(8)}  ${f3(s.r5).padStart(8)}  ${f3(s.r10).padStart(9)}  ${f3(s.mrr).padStart(6)}`);
      }
    }
    lines.push('', 'latency without the query embedding (ms): p50 / p95');
    for (const mode of MODES) lines.push(`  ${mode.padEnd(8)} ${percentile(latency[mode], 50).toFixed(1)} / ${percentile(latency[mode], 95).toFixed(1)}`);
    lines.push(`  query embedding (hybrid): ${percentile(embedMs, 50).toFixed(1)} / ${percentile(embedMs, 95).toFixed(1)}`);
    if (embedding && embedding.embedded > 0) {
      const pipeRate = embedding.embedded / (embedding.durationMs / 1000);
      const overhead = (embedding.durationMs - embedding.providerMs) / embedding.durationMs;
      lines.push('', `embedding pass: ${embedding.embedded} texts in ${(embedding.durationMs / 1000).toFixed(1)} s = ${pipeRate.toFixed(2)} texts/s; ${(100 * overhead).toFixed(1)}% of it outside provider.embed`);
      if (rawRate !== undefined) lines.push(`raw provider on ${64} sample texts: ${rawRate.toFixed(2)} texts/s (pipeline / raw = ${(pipeRate / rawRate).toFixed(3)}; texts differ in length, so read the in-pass share above first)`);
    } else lines.push('', 'embedding pass: nothing to embed (cached in bench/.semantic-cache; --fresh to measure it)');
    process.stdout.write(`${lines.join('\n')}\n`);
    writeResult('semantic-quality', { provider, ranks, latency, embedMs, embedding, rawRate });
  } finally {
    engine.close();
  }
}

await main();
