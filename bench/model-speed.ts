/**
 * Speed and memory of an embedding model in scry's pipeline (issue 17 targets: ≥ 2,000 chunks/s
 * embedded on 2 cores, indexing with the model within 1.3× of lexical-only, queries embedded in
 * < 2 ms), on the quality corpus (the golden set's, about 4K chunks), all in one run:
 *
 *   npx tsx bench/model-speed.ts [--provider builtin] [--rounds 2] [--query-rounds 3]
 *
 * - Index time: `engine.index()` into a fresh database without a provider (lexical) and with it
 *   (the lexical pass, then the embedding pass), alternating lexical/model/model/lexical... for
 *   `--rounds` pairs, so machine load hits both alike; ratio of the medians, and per model pass the
 *   embedding pass's chunks/s (its wall time, and the part spent inside provider.embed).
 * - Raw provider: the same chunk texts in batches of 64, texts/s, outside the pipeline.
 * - Query embedding: every query of the golden set, the paraphrase set and the NL slice, one
 *   `embed([q], { purpose: 'query' })` each, after a warm-up round; p50/p95/max.
 * - Memory: RSS before the provider is created, after it loaded and embedded (the model's cost),
 *   and the process high-water mark.
 * Writes bench/results/model-speed.json.
 */
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngine, type ConfigInput } from '../src/index.js';
import { buildCorpus } from '../test/quality/corpus.js';
import { providerFor } from './embed-cache.js';
import { NL_DIR } from './nl-slice.js';
import { environment, writeResult } from './results.js';
import { MB, median, percentile } from './stats.js';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

interface Pass {
  readonly kind: 'lexical' | 'model';
  readonly wallMs: number;
  readonly chunks: number;
  readonly embedded?: number | undefined;
  readonly embedMs?: number | undefined;
  readonly providerMs?: number | undefined;
}

async function indexOnce(root: string, kind: Pass['kind'], provider: string): Promise<Pass> {
  const dir = mkdtempSync(join(tmpdir(), 'scry-model-speed-'));
  try {
    const config = { embed: { provider: kind === 'model' ? provider : 'none' } } as ConfigInput;
    const engine = await createEngine({ root, db: join(dir, 'index.db'), env: {}, config });
    const t0 = performance.now();
    const report = await engine.index();
    const wallMs = performance.now() - t0;
    const chunks = engine.status().chunks;
    engine.close();
    const e = report.embedding;
    if (e && 'error' in e) throw new Error(e.error.message);
    return { kind, wallMs, chunks, ...(e ? { embedded: e.embedded, embedMs: e.durationMs, providerMs: e.providerMs } : {}) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function allQueries(): string[] {
  const here = import.meta.dirname;
  const golden = (JSON.parse(readFileSync(join(here, '..', 'test', 'quality', 'queries.json'), 'utf8')) as Array<{ query: string }>).map((q) => q.query);
  const para = (JSON.parse(readFileSync(join(here, '..', 'test', 'paraphrase', 'queries.json'), 'utf8')) as Array<{ query: string }>).map((q) => q.query);
  const nl = readdirSync(NL_DIR)
    .filter((f) => f.endsWith('.jsonl'))
    .flatMap((f) => readFileSync(join(NL_DIR, f), 'utf8').split('\n').filter((l) => l.trim() !== ''))
    .map((l) => (JSON.parse(l) as { query: string }).query);
  return [...golden, ...para, ...nl];
}

async function main(): Promise<void> {
  const env = environment();
  const provider = arg('--provider') ?? 'builtin';
  const rounds = Number(arg('--rounds') ?? 2);
  const queryRounds = Number(arg('--query-rounds') ?? 3);
  const root = join(import.meta.dirname, '.semantic-cache', 'corpus');
  mkdirSync(root, { recursive: true });
  if (readdirSync(root).length === 0) buildCorpus(root);

  const passes: Pass[] = [];
  for (let r = 0; r < rounds; r++) {
    const order: Array<Pass['kind']> = r % 2 === 0 ? ['lexical', 'model'] : ['model', 'lexical'];
    for (const kind of order) {
      passes.push(await indexOnce(root, kind, provider));
      process.stderr.write(`${kind} pass ${(passes.at(-1)!.wallMs / 1000).toFixed(1)} s\n`);
    }
  }
  const lex = passes.filter((p) => p.kind === 'lexical');
  const mod = passes.filter((p) => p.kind === 'model');
  const ratio = median(mod.map((p) => p.wallMs)) / median(lex.map((p) => p.wallMs));
  const embedRate = median(mod.map((p) => p.embedded! / (p.embedMs! / 1000)));
  const providerRate = median(mod.map((p) => p.embedded! / (p.providerMs! / 1000)));

  // raw provider and query embedding, with the memory the model costs
  const rssBefore = process.memoryUsage.rss();
  const e = await providerFor({ embed: { provider } } as ConfigInput, root);
  const sample = await (async () => {
    const dir = mkdtempSync(join(tmpdir(), 'scry-model-speed-'));
    const engine = await createEngine({ root, db: join(dir, 'index.db'), env: {} });
    await engine.index();
    const texts = (await engine.search('function return value error options', { limit: 1000, mode: 'lexical' })).results.map((x) => x.snippet);
    engine.close();
    rmSync(dir, { recursive: true, force: true });
    return texts;
  })();
  await e.provider.embed(sample.slice(0, 8));
  const t0 = performance.now();
  for (let i = 0; i < sample.length; i += 64) await e.provider.embed(sample.slice(i, i + 64));
  const rawRate = sample.length / ((performance.now() - t0) / 1000);
  const queries = allQueries();
  // the first round sees each query once (a model may cache per token: later rounds hit it)
  const first: number[] = [];
  const times: number[] = [];
  for (let r = 0; r <= queryRounds; r++) {
    for (const q of queries) {
      const s = performance.now();
      await e.provider.embed([q], { purpose: 'query' });
      (r === 0 ? first : times).push(performance.now() - s);
    }
  }
  const rssAfter = process.memoryUsage.rss();
  await e.provider.close();

  const lines = [
    `load ${env.loadAvg1m.toFixed(2)}, commit ${env.commit ?? '?'}${env.dirty ? ' (dirty)' : ''}, provider ${provider}, corpus ${lex[0]?.chunks ?? 0} chunks`,
    `index wall, median (nearest rank) of ${rounds}: lexical ${(median(lex.map((p) => p.wallMs)) / 1000).toFixed(1)} s, with ${provider} ${(median(mod.map((p) => p.wallMs)) / 1000).toFixed(1)} s: ratio ${ratio.toFixed(2)} (target ≤ 1.3)`,
    `embedding pass: ${embedRate.toFixed(0)} chunks/s (wall of the pass), ${providerRate.toFixed(0)} chunks/s inside provider.embed (target ≥ 2000)`,
    `raw provider, ${sample.length} snippets in batches of 64: ${rawRate.toFixed(0)} texts/s`,
    `query embedding, first time each (after ${sample.length} chunk texts): p50 ${percentile(first, 50).toFixed(3)} ms, p95 ${percentile(first, 95).toFixed(3)} ms, max ${Math.max(...first).toFixed(2)} ms`,
    `query embedding, ${queries.length} queries × ${queryRounds} more rounds: p50 ${percentile(times, 50).toFixed(3)} ms, p95 ${percentile(times, 95).toFixed(3)} ms, max ${Math.max(...times).toFixed(2)} ms (target < 2 ms)`,
    `memory: RSS ${(rssBefore / MB).toFixed(0)} MB before the provider, ${(rssAfter / MB).toFixed(0)} MB after loading and embedding (+${((rssAfter - rssBefore) / MB).toFixed(0)} MB); process max RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  writeResult('model-speed', { provider, passes, ratio, embedRate, providerRate, rawRate, queryEmbedFirstMs: { p50: percentile(first, 50), p95: percentile(first, 95), max: Math.max(...first), n: first.length }, queryEmbedMs: { p50: percentile(times, 50), p95: percentile(times, 95), max: Math.max(...times), n: times.length }, rssBefore, rssAfter, maxRssBytes: process.resourceUsage().maxRSS * 1024 });
}

await main();
