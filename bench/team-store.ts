/**
 * The team store (issue 23) against the SQLite store on the same index, in one run:
 *
 *   npx tsx bench/team-store.ts [--db PATH] [--copies=30] [--rounds 3]
 *
 * `--db` (else `$SCRY_BENCH_DB`) is a local index; without one the golden set's corpus
 * (test/quality) is indexed into a temp dir first. A throwaway PostgreSQL cluster
 * (test/helpers/pg-cluster.ts) receives the index as repository `main` plus `copies` more copies
 * (an in-process push, `pushToStore`); then sequential searches of bench/queries.ts over one
 * repository and over all, and the same queries on the SQLite store: p50/p95 and their ratios.
 * Also: push time of the first copy, the database size against the SQLite file. Writes
 * bench/results/team-store.json. Benchmarks are scripts, never timed tests.
 */
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_CONFIG } from '../src/config/defaults.js';
import { createEngine } from '../src/index.js';
import { lexicalSearch } from '../src/search/lexical-search.js';
import { IndexStore } from '../src/store/index-store.js';
import { openPgTeamStore } from '../src/team/pg-team-store.js';
import { pushToStore } from '../src/team/push-local.js';
import { readPushSource } from '../src/team/push-source.js';
import { startPgCluster } from '../test/helpers/pg-cluster.js';
import { buildCorpus } from '../test/quality/corpus.js';
import { benchQueries } from './queries.js';
import { environment, parseArgs, writeResult } from './results.js';

const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.floor(p * s.length))]! * 10) / 10;
};

async function localIndex(db: string | undefined): Promise<{ db: string; cleanup: () => void }> {
  if (db) return { db, cleanup: () => undefined };
  const dir = mkdtempSync(join(tmpdir(), 'scry-bench-team-'));
  mkdirSync(join(dir, 'corpus'));
  buildCorpus(join(dir, 'corpus'));
  const engine = await createEngine({ root: join(dir, 'corpus'), db: join(dir, 'index.db'), env: {} });
  await engine.index();
  engine.close();
  return { db: join(dir, 'index.db'), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

async function main(): Promise<void> {
  const { values } = parseArgs(process.argv.slice(2));
  const copies = Number(values.get('copies') ?? 30);
  const rounds = Number(values.get('rounds') ?? 3);
  const local = await localIndex(values.get('db') ?? process.env['SCRY_BENCH_DB']);
  const cluster = await startPgCluster();
  const store = openPgTeamStore(cluster.url);
  try {
    await store.migrate();
    const source = readPushSource(local.db);
    let t = performance.now();
    const first = await pushToStore(store, 'main', source);
    const pushMs = performance.now() - t;
    for (let i = 0; i < copies; i++) await pushToStore(store, `copy${i}`, source);
    source.close();
    const queries = benchQueries().map((q) => q.text);
    const sqlite = IndexStore.open(local.db, { create: false });
    const c = DEFAULT_CONFIG.search;
    const runs = { sqlite: [] as number[], teamOne: [] as number[], teamAll: [] as number[] };
    for (const q of queries) await store.search(q, { repos: ['main'] }); // warm-up
    for (let r = 0; r < rounds; r++) {
      for (const q of queries) {
        t = performance.now();
        lexicalSearch(sqlite, { query: q, limit: 10, files: false, filters: {}, weights: c.weights, ranking: c.ranking, snippetLines: 4 });
        runs.sqlite.push(performance.now() - t);
        t = performance.now();
        await store.search(q, { repos: ['main'] });
        runs.teamOne.push(performance.now() - t);
      }
    }
    for (const q of queries) {
      t = performance.now();
      await store.search(q);
      runs.teamAll.push(performance.now() - t);
    }
    sqlite.close();
    const summary = (xs: number[]) => ({ p50: pct(xs, 0.5), p95: pct(xs, 0.95) });
    const result = {
      environment: environment(),
      index: { db: local.db, bytes: statSync(local.db).size, chunks: first.chunks, files: first.files },
      push: { firstMs: Math.round(pushMs), repositories: copies + 1 },
      databaseBytes: await store.sizeOnDisk(),
      sizeRatioPerRepository: Math.round((await store.sizeOnDisk()) / (copies + 1) / statSync(local.db).size * 100) / 100,
      latencyMs: { sqlite: summary(runs.sqlite), teamOneRepository: summary(runs.teamOne), teamAllRepositories: summary(runs.teamAll) },
      ratioP50: { oneRepository: Math.round((pct(runs.teamOne, 0.5) / pct(runs.sqlite, 0.5)) * 10) / 10, allRepositories: Math.round((pct(runs.teamAll, 0.5) / pct(runs.sqlite, 0.5)) * 10) / 10 },
    };
    console.log(JSON.stringify(result, null, 2));
    writeResult('team-store', result);
  } finally {
    await store.close();
    await cluster.stop();
    local.cleanup();
  }
}

await main();
