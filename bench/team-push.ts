/**
 * The team index (issue 23): ~300 packages of a large npm install pushed as 300 repositories to
 * `scry serve` on a throwaway PostgreSQL 15 cluster, then searched by 1, 8 and 32 concurrent
 * clients. Not a timed test: prints a summary and writes bench/results/team-push.json.
 *
 *   npx tsx bench/team-push.ts [--packages 300] [--root DIR] [--kills 20] [--queries 40] [--max-kb 2048]
 *
 * DIR (default $SCRY_BENCH_NPM, else /work/train-data/npm/node_modules) is an installed
 * node_modules; packages of at most --max-kb are sampled with a fixed seed. In order:
 * - index each package into its own SQLite file (createEngine + index), then push it with the
 *   push client (`pushLocalIndex`, what `scry push` runs) to a server running as a child process
 *   (`scry serve`): push MB/s = request bytes / push wall time, sequential;
 * - server database size (`sizeOnDisk`: tables, indexes, TOAST) vs the sum of the SQLite files;
 * - search latency p50/p95 over HTTP for 1, 8 and 32 concurrent clients, over all repositories and
 *   over one (the largest pushed), against `engine.search` on that repository's SQLite file in the
 *   same run, plus how often both give the same top 10;
 * - a push killed with SIGKILL at a random moment, --kills times: after each, the previous revision
 *   must still be the one served, with the same results.
 */
import { cpSync, existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createEngine } from '../src/index.js';
import { openPgTeamStore } from '../src/team/pg-team-store.js';
import { pushLocalIndex } from '../src/serve/serve-main.js';
import { startPgCluster } from '../test/helpers/pg-cluster.js';
import { CLI_ARGS } from '../test/helpers/cli.js';
import { environment, writeResult } from './results.js';
import { fmtMB, MB, prng, summarize, type Summary } from './stats.js';
import { tempDir } from '../test/helpers/temp.js';
import { killedPushes } from './team-push-kill.js';
import { startServeChild, type ServeChild } from './team-serve-child.js';

const arg = (name: string, fallback: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1]! : fallback;
};
const ROOT = arg('root', process.env.SCRY_BENCH_NPM ?? '/work/train-data/npm/node_modules');
const PACKAGES = Number(arg('packages', '300'));
const KILLS = Number(arg('kills', '20'));
const QUERY_ROUNDS = Number(arg('queries', '40'));
const MAX_KB = Number(arg('max-kb', '2048'));
export const TOKEN = 'bench-token-0123456789abcdef';

const QUERIES = [
  'parse command line options', 'read file sync', 'event emitter listener', 'promise retry', 'deep merge objects', 'http request headers',
  'stream transform', 'resolve path', 'buffer encoding utf8', 'error stack trace', 'semver compare versions', 'glob pattern match',
  'json schema validate', 'debounce function', 'color terminal output', 'escape regular expression', 'url query string', 'typescript declaration',
  'license MIT', 'isPlainObject', 'createHash sha256', 'callback is not a function', 'default export module', 'iterate array async',
];

function dirBytes(dir: string): number {
  let n = 0;
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) if (e.isFile()) n += statSync(join(e.parentPath, e.name)).size;
  return n;
}

/** Package directories under ROOT (scoped ones one level down), at most MAX_KB each, sampled with a fixed seed. */
function samplePackages(): { name: string; dir: string; bytes: number }[] {
  const all: { name: string; dir: string }[] = [];
  for (const e of readdirSync(ROOT, { withFileTypes: true })) {
    if (!e.isDirectory() || e.name.startsWith('.')) continue;
    if (e.name.startsWith('@')) for (const s of readdirSync(join(ROOT, e.name))) all.push({ name: `${e.name}/${s}`, dir: join(ROOT, e.name, s) });
    else all.push({ name: e.name, dir: join(ROOT, e.name) });
  }
  all.sort((a, b) => a.name.localeCompare(b.name));
  const random = prng(23);
  const shuffled = all.map((p) => ({ p, k: random() })).sort((a, b) => a.k - b.k).map((x) => x.p);
  const out: { name: string; dir: string; bytes: number }[] = [];
  for (const p of shuffled) {
    if (out.length >= PACKAGES) break;
    const bytes = dirBytes(p.dir);
    if (bytes > 0 && bytes <= MAX_KB * 1024) out.push({ ...p, bytes });
  }
  return out;
}

const fileSize = (path: string): number => (existsSync(path) ? statSync(path).size : 0);

async function timedSearch(url: string): Promise<number> {
  const t0 = performance.now();
  const res = await fetch(url, { headers: { authorization: `Bearer ${TOKEN}` } });
  if (!res.ok) throw new Error(`search ${url}: HTTP ${res.status} ${await res.text()}`);
  await res.json();
  return performance.now() - t0;
}

/** `clients` concurrent loops, each running every query `rounds / clients` times (at least once). */
async function loadTest(base: string, clients: number, repo: string | undefined): Promise<Summary & { qps: number }> {
  const samples: number[] = [];
  const perClient = Math.max(1, Math.round(QUERY_ROUNDS / clients));
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      for (let r = 0; r < perClient; r++) {
        const q = QUERIES[(c * 7 + r) % QUERIES.length]!;
        samples.push(await timedSearch(`${base}/api/search?${new URLSearchParams({ q, k: '10', ...(repo ? { repo } : {}) }).toString()}`));
      }
    }),
  );
  return { ...summarize(samples), qps: Math.round((samples.length / (performance.now() - t0)) * 1000 * 10) / 10 };
}

async function main(): Promise<void> {
  const env0 = environment();
  const t = tempDir('scry-bench-team-');
  const env = { SCRY_CACHE_DIR: join(t.dir, 'cache') };
  const cluster = await startPgCluster();
  let serve: ServeChild | undefined;
  try {
    const packages = samplePackages();
    console.log(`${packages.length} packages, ${fmtMB(packages.reduce((n, p) => n + p.bytes, 0))} on disk, from ${ROOT}`);
    const configFile = join(t.dir, 'serve.json');
    writeFileSync(configFile, JSON.stringify({ serve: { tokens: { [TOKEN]: { read: ['*'], push: ['*'] } } } }));
    serve = await startServeChild(CLI_ARGS, cluster.url, configFile, t.dir);

    let indexMs = 0;
    let pushMs = 0;
    let sentBytes = 0;
    let sqliteBytes = 0;
    const pushed: { name: string; repo: string; db: string; files: number; chunks: number }[] = [];
    const failures: { name: string; error: string }[] = [];
    for (const [i, p] of packages.entries()) {
      const db = join(t.dir, 'dbs', `${i}.db`);
      const t0 = performance.now();
      const engine = await createEngine({ root: p.dir, db, env });
      try {
        await engine.index({});
      } finally {
        engine.close();
      }
      const t1 = performance.now();
      const repo = p.name.replace(/^@/, '');
      let report: Awaited<ReturnType<typeof pushLocalIndex>>;
      try {
        report = await pushLocalIndex({ dbPath: db, server: serve.url, repo, token: TOKEN });
      } catch (err) {
        failures.push({ name: p.name, error: (err as Error).message });
        console.log(`  push of ${p.name} failed: ${(err as Error).message}\n  server log: ${serve.log().slice(-600)}`);
        continue;
      }
      const t2 = performance.now();
      indexMs += t1 - t0;
      pushMs += t2 - t1;
      sentBytes += report.sent.bytes;
      sqliteBytes += fileSize(db) + fileSize(`${db}-wal`);
      pushed.push({ name: p.name, repo, db, files: report.files, chunks: report.chunks });
      if ((i + 1) % 25 === 0) console.log(`  ${i + 1}/${packages.length}: pushed ${fmtMB(sentBytes)} in ${(pushMs / 1000).toFixed(1)} s (${(sentBytes / MB / (pushMs / 1000)).toFixed(2)} MB/s); indexing took ${(indexMs / 1000).toFixed(1)} s`);
    }
    const store = openPgTeamStore(cluster.url);
    const pgBytes = await store.sizeOnDisk();
    await store.close();
    const biggest = [...pushed].sort((a, b) => b.chunks - a.chunks)[0]!;
    console.log(`push: ${fmtMB(sentBytes)} in ${(pushMs / 1000).toFixed(1)} s = ${(sentBytes / MB / (pushMs / 1000)).toFixed(2)} MB/s; PostgreSQL ${fmtMB(pgBytes)} vs SQLite files ${fmtMB(sqliteBytes)} (ratio ${(pgBytes / sqliteBytes).toFixed(2)})`);

    const latency: Record<string, unknown> = {};
    for (const clients of [1, 8, 32]) {
      latency[`all-${clients}`] = await loadTest(serve.url, clients, undefined);
      latency[`one-${clients}`] = await loadTest(serve.url, clients, biggest.repo);
      console.log(`  ${clients} clients: all repos p50 ${(latency[`all-${clients}`] as Summary).p50} ms p95 ${(latency[`all-${clients}`] as Summary).p95} ms; one repo p50 ${(latency[`one-${clients}`] as Summary).p50} ms p95 ${(latency[`one-${clients}`] as Summary).p95} ms`);
    }
    const reference = await sqliteReference(biggest.db, serve.url, biggest.repo, env);
    const one1 = latency['one-1'] as Summary;
    console.log(`  SQLite on ${biggest.name} (1 client, in process): p50 ${reference.latency.p50} ms p95 ${reference.latency.p95} ms; PG/SQLite p50 ratio ${(one1.p50 / reference.latency.p50).toFixed(2)}; same top 10 in ${reference.sameTop10}/${QUERIES.length} queries`);

    const killDir = join(t.dir, 'kill-repo');
    cpSync(packages.find((p) => p.name === biggest.name)!.dir, killDir, { recursive: true });
    const kills = await killedPushes({ cliArgs: CLI_ARGS, server: serve.url, token: TOKEN, dir: killDir, db: join(t.dir, 'kill.db'), rounds: KILLS, env, seed: 7 });
    console.log(`killed pushes: ${kills.previousServed} killed before their commit, each leaving the previous revision served with the same results; ${kills.broken} broken; ${kills.completed} more finished before their kill moment (the network phase of an incremental push takes ${kills.incrementalPushMs} ms)`);

    const file = writeResult('team-push', {
      env: env0,
      root: ROOT,
      packages: packages.length,
      pushed: pushed.length,
      failures,
      sourceBytes: packages.reduce((n, p) => n + p.bytes, 0),
      push: { sentBytes, pushMs: Math.round(pushMs), mbPerSec: sentBytes / MB / (pushMs / 1000), indexMs: Math.round(indexMs) },
      size: { postgresBytes: pgBytes, sqliteBytes, ratio: pgBytes / sqliteBytes },
      latency,
      oneRepo: biggest.name,
      sqliteReference: reference,
      kills,
    });
    console.log(`wrote ${file}`);
  } finally {
    await serve?.stop();
    await cluster.stop();
    t.cleanup();
  }
}

/** `engine.search` on one repository's SQLite file (the local store), with how many queries give the same top 10 as the server. */
async function sqliteReference(db: string, base: string, repo: string, env: Record<string, string>): Promise<{ latency: Summary; sameTop10: number }> {
  const engine = await createEngine({ db, env });
  const samples: number[] = [];
  let same = 0;
  try {
    for (let r = 0; r < QUERY_ROUNDS; r++) {
      const t0 = performance.now();
      await engine.search(QUERIES[r % QUERIES.length]!, { limit: 10 });
      samples.push(performance.now() - t0);
    }
    for (const q of QUERIES) {
      const local = (await engine.search(q, { limit: 10 })).results.map((h) => `${h.path}:${h.startLine}`);
      const res = await fetch(`${base}/api/search?${new URLSearchParams({ q, k: '10', repo }).toString()}`, { headers: { authorization: `Bearer ${TOKEN}` } });
      const remote = ((await res.json()) as { results?: { path: string; startLine: number }[] }).results?.map((h) => `${h.path}:${h.startLine}`) ?? [];
      if (JSON.stringify(local) === JSON.stringify(remote)) same++;
    }
  } finally {
    engine.close();
  }
  return { latency: summarize(samples), sameTop10: same };
}

await main();
