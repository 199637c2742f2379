/**
 * Latency of long queries with the shipped model's file prior (issue 18, `search.fusion.filePrior`)
 * and without it (`--fusion`, default `{"filePrior":{}}`, over the shipped configuration), in process, on one cached index of the large-repository group: the
 * issue-like texts of that repository (bench/largeset/issue/), each searched `--rounds` times per
 * configuration in alternating halves (A B A B, so load drift hits both), warmed first (model and
 * vectors loaded). Reports per-query medians' p50/p95 in wall time and in process CPU time, and the
 * ratios. The index is opened read-only in spirit (searches only); pass a copy of a cached db.
 *
 *   npx tsx bench/file-prior-latency.ts --db=COPY.db --queries=bench/largeset/issue/Project-MONAI__MONAI.jsonl [--rounds=6] [--fusion=JSON]
 *   npx tsx bench/file-prior-latency.ts --db=COPY.db --queries=... --candidate=JSON   # the shipped configuration vs a candidate config (e.g. the file ranker)
 *
 * With `--candidate` (a ConfigInput as JSON), the reference is the shipped configuration and the
 * other side that configuration over it (issue 18, filerank: `{"search":{"ranking":{"byKind":{"long":{...,"fileRanker":true}}}}}`).
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createEngine, type ConfigInput, type Engine } from '../src/index.js';
import { parseQueriesFile } from '../src/eval/queries-file.js';
import { parseArgs, writeResult } from './results.js';
import { fmtMs, median, round2, summarize, type Summary } from './stats.js';

async function timeAll(engine: Engine, queries: readonly string[], rounds: number, into: Map<string, { wall: number[]; cpu: number[] }>): Promise<void> {
  for (let r = 0; r < rounds; r++) {
    for (const q of queries) {
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      await engine.search(q, { limit: 50 });
      const wall = performance.now() - t0;
      const c = process.cpuUsage(c0);
      const s = into.get(q) ?? { wall: [], cpu: [] };
      s.wall.push(wall);
      s.cpu.push((c.user + c.system) / 1000);
      into.set(q, s);
    }
  }
}

const perQuery = (m: Map<string, { wall: number[]; cpu: number[] }>, key: 'wall' | 'cpu'): Summary => summarize([...m.values()].map((s) => median(s[key])));

async function main(): Promise<void> {
  const { values } = parseArgs(process.argv.slice(2));
  const given = values.get('db');
  const db = given ? resolve(given) : undefined;
  const file = values.get('queries');
  if (!db || !file) throw new Error('usage: --db=COPY.db --queries=FILE.jsonl [--rounds=6] [--fusion=JSON]');
  const rounds = Number(values.get('rounds') ?? 6);
  // the reference: the shipped configuration without the file prior (long queries lexical)
  const fusion = JSON.parse(values.get('fusion') ?? '{"filePrior":{}}') as Record<string, unknown>;
  const queries = parseQueriesFile(readFileSync(file, 'utf8'), file).map((q) => q.query);
  // a cached index's root was a temporary worktree: searches read the stored contents, so any directory will do
  const root = mkdtempSync(join(tmpdir(), 'scry-prior-latency-'));
  const candidate = values.get('candidate');
  const shipped = await createEngine({ root, db, env: {}, reroot: true, config: candidate ? undefined : ({ search: { fusion } } as ConfigInput) });
  const prior = await createEngine({ root, db, env: {}, reroot: true, ...(candidate ? { config: JSON.parse(candidate) as ConfigInput } : {}) });
  const runs = { shipped: new Map<string, { wall: number[]; cpu: number[] }>(), prior: new Map<string, { wall: number[]; cpu: number[] }>() };
  try {
    for (const e of [shipped, prior]) for (const q of queries.slice(0, 3)) await e.search(q, { limit: 50 });
    const half = Math.max(1, Math.floor(rounds / 2));
    for (let i = 0; i < 2; i++) {
      await timeAll(shipped, queries, half, runs.shipped);
      await timeAll(prior, queries, half, runs.prior);
    }
  } finally {
    shipped.close();
    prior.close();
  }
  const out: Record<string, unknown> = { db, queries: queries.length, rounds, ...(candidate ? { candidate } : { fusion }) };
  const [aName, bName] = candidate ? ['shipped', 'candidate'] : ['without', 'shipped (file prior)'];
  for (const key of ['wall', 'cpu'] as const) {
    const a = perQuery(runs.shipped, key);
    const b = perQuery(runs.prior, key);
    console.log(`${key}: ${bName} p50 ${fmtMs(b.p50)} vs ${aName} ${fmtMs(a.p50)} (×${(b.p50 / a.p50).toFixed(2)}), p95 ${fmtMs(b.p95)} vs ${fmtMs(a.p95)} (×${(b.p95 / a.p95).toFixed(2)})`);
    out[key] = { shipped: a, prior: b, p50Ratio: round2(b.p50 / a.p50), p95Ratio: round2(b.p95 / a.p95) };
  }
  console.log(`wrote ${writeResult('file-prior-latency', out)}`);
}

await main();
