/**
 * Speed of the builtin model in the product (issue 17): a full `index()` of a corpus with
 * `embed.provider: builtin` against the same without a provider, alternated in one run (none,
 * builtin, none, builtin, … fresh databases), so the ratio is read on the same machine state; then
 * the shipped model alone on the corpus's chunk texts (chunks/s) and on short queries (p50/p95),
 * and the process's peak RSS.
 *
 *   npx tsx train/speed.ts [--root DIR] [--rounds 2] [--reference MODEL_DIR]   (default root: bench/.semantic-cache/corpus)
 *
 * `--reference` also measures another model directory alone (e.g. the previous version) in the same run.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadBuiltinModel } from '../src/embed/builtin/model.js';
import { createEngine } from '../src/index.js';

async function indexOnce(root: string, provider: 'none' | 'builtin'): Promise<{ ms: number; chunks: number; embedded: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'scry-builtin-speed-'));
  try {
    const engine = await createEngine({ root, db: join(dir, 'index.db'), env: {}, config: { embed: { provider } } });
    try {
      const t = performance.now();
      const report = await engine.index();
      const ms = performance.now() - t;
      const embedded = report.embedding && !('error' in report.embedding) ? report.embedding.embedded : 0;
      return { ms, chunks: engine.status().chunks, embedded };
    } finally {
      engine.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const pct = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;

/** The model of `dir` (default: the shipped one) alone: chunks/s on 2,000 synthetic chunks, query embedding p50/p95. */
async function modelAlone(dir: string | undefined): Promise<{ modelChunksPerSec: number; queryEmbedMs: { p50: number; p95: number } }> {
  const model = await loadBuiltinModel(dir);
  const sample = Array.from({ length: 2000 }, (_, i) => `src/module${i % 50}.ts handler${i}\nexport function handleRequest${i % 97}(request, response) {\n  const body = parseBody(request.body);\n  if (!body.valid) return response.status(400).send(body.errors);\n  return saveRecord(body.value).then(() => response.json({ ok: true }));\n}\n`);
  const t = performance.now();
  for (const s of sample) model.embed(s, 'document');
  const perSec = sample.length / ((performance.now() - t) / 1000);
  const queries = ['where do we retry failed uploads', 'function that merges two observables', 'parse the config file', 'open the sqlite database', 'escape html entities in a string'];
  const lat: number[] = [];
  for (let i = 0; i < 2000; i++) {
    const s = performance.now();
    model.embed(queries[i % queries.length]!, 'query');
    lat.push(performance.now() - s);
  }
  lat.sort((a, b) => a - b);
  return { modelChunksPerSec: Math.round(perSec), queryEmbedMs: { p50: Number(pct(lat, 0.5).toFixed(4)), p95: Number(pct(lat, 0.95).toFixed(4)) } };
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { root: { type: 'string', default: join(import.meta.dirname, '..', 'bench', '.semantic-cache', 'corpus') }, rounds: { type: 'string', default: '2' }, reference: { type: 'string' } } });
  const root = values.root!;
  const times: Record<'none' | 'builtin', number[]> = { none: [], builtin: [] };
  let chunks = 0, embedded = 0;
  for (let r = 0; r < Number(values.rounds); r++) {
    for (const provider of ['none', 'builtin'] as const) {
      const out = await indexOnce(root, provider);
      times[provider].push(out.ms);
      chunks = out.chunks;
      if (provider === 'builtin') embedded = out.embedded;
    }
  }
  const med = (a: number[]): number => [...a].sort((x, y) => x - y)[a.length >> 1]!;
  // Each model measured twice, alternating, the second round kept: neither gets the JIT's warm-up for free.
  let alone = await modelAlone(undefined);
  let reference = values.reference ? await modelAlone(values.reference) : undefined;
  alone = await modelAlone(undefined);
  if (values.reference) reference = await modelAlone(values.reference);
  const result = {
    root, chunks, embedded,
    indexMsNone: times.none.map(Math.round), indexMsBuiltin: times.builtin.map(Math.round),
    indexTimeRatio: Number((med(times.builtin) / med(times.none)).toFixed(3)),
    /** Chunks embedded per second of extra index time. */
    passChunksPerSec: Math.round(embedded / Math.max(1e-3, (med(times.builtin) - med(times.none)) / 1000)),
    ...alone,
    ...(reference ? { reference: { dir: values.reference, ...reference }, chunksPerSecRatio: Number((alone.modelChunksPerSec / reference.modelChunksPerSec).toFixed(3)) } : {}),
    peakRssMB: Math.round(process.resourceUsage().maxRSS / 1024),
  };
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
}

await main();
