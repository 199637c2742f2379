/**
 * Query latency on the corpus index built by bench/index-throughput.ts.
 *
 *   npm run build                       # the CLI part runs dist/; a stale dist/ is refused
 *   npx tsx bench/query-latency.ts [--db PATH] [--rounds 10] [--cli-runs 10] [--skip-cli] [--no-model] [--compare-learned] [--compare-ranking=JSON] [--compare-fusion=JSON]
 *
 * The db is `--db`, else `$SCRY_BENCH_DB`, else the one recorded in
 * bench/results/index-throughput.json. In-process: ~50 queries (bench/queries.ts), warmed up,
 * then `rounds` timed passes of `engine.search(q, { limit: 10 })` → p50/p95/max overall and per
 * kind, in wall time and in process CPU time (steadier when other processes share the cores); the
 * first search of each query is reported apart (`firstSeen`: per-process caches cold). CLI: `node bin/scry.js search Q --db DB -k 10`, `cli-runs` warm runs per query, against
 * `node -e 0` and a bare import of dist/cli/main.js measured in the same run. `--compare-learned`:
 * the in-process part again with `search.ranking.learned` (the learned ranker), in alternating
 * halves with the shipped configuration, reported as learned/shipped ratios of p50 and p95;
 * `--compare-ranking='{"fileDecay":1}'` does the same for any `search.ranking` over the shipped one,
 * `--compare-fusion='{"filePrior":{"long":0.3}}'` for any `search.fusion`. `--no-model`: the in-process part with
 * `embed: { provider: 'none' }` (pure BM25 on a hybrid index: no query embedding, no vectors loaded).
 * Writes bench/results/query-latency.json.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createEngine, type ConfigInput, type Engine } from '../src/index.js';
import { benchQueries, CLI_QUERIES, type BenchQuery } from './queries.js';
import { environment, parseArgs, readResult, REPO_ROOT, writeResult } from './results.js';
import { fmtMs, median, round2, summarize, timeAsync, timeSync, type Summary } from './stats.js';

const TARGETS = { inProcessP50Ms: 5, inProcessP95Ms: 20, cliP50Ms: 200 } as const;
const WARMUP_ROUNDS = 3;

function resolveDb(values: Map<string, string>): string {
  const db = values.get('db') ?? process.env.SCRY_BENCH_DB ?? readResult<{ db?: string }>('index-throughput')?.db;
  if (!db || !existsSync(db)) {
    throw new Error(`no index database${db ? ` at ${db}` : ''}: run \`npx tsx bench/index-throughput.ts\` first, or pass --db PATH`);
  }
  return db;
}

interface QueryStat {
  readonly kind: string;
  readonly query: string;
  readonly bytes: number;
  readonly medianMs: number;
  readonly maxMs: number;
  readonly results: number;
  readonly terms: number;
  readonly dropped: number;
}

interface InProcess {
  /** First search of each query in this process: per-process caches (document frequencies, statements) still cold. */
  readonly firstSeen: Summary;
  readonly all: Summary;
  readonly byKind: Record<string, Summary>;
  /** Process CPU time (user + system) of each timed search: what a search costs when other processes share the cores, where wall time also counts waiting for one. */
  readonly cpu: { readonly all: Summary; readonly byKind: Record<string, Summary> };
  readonly perQuery: QueryStat[];
}

async function inProcess(engine: Engine, queries: readonly BenchQuery[], rounds: number): Promise<InProcess> {
  const first: number[] = [];
  for (const q of queries) first.push((await timeAsync(() => engine.search(q.text, { limit: 10 }))).ms);
  for (let r = 1; r < WARMUP_ROUNDS; r++) for (const q of queries) await engine.search(q.text, { limit: 10 });
  const samples = queries.map(() => [] as number[]);
  const cpuSamples = queries.map(() => [] as number[]);
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < queries.length; i++) {
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      await engine.search(queries[i]!.text, { limit: 10 });
      samples[i]!.push(performance.now() - t0);
      const c = process.cpuUsage(c0);
      cpuSamples[i]!.push((c.user + c.system) / 1000);
    }
  }
  const byKind: Record<string, number[]> = {};
  const cpuByKind: Record<string, number[]> = {};
  const perQuery: QueryStat[] = [];
  for (let i = 0; i < queries.length; i++) {
    const q = queries[i]!;
    (byKind[q.kind] ??= []).push(...samples[i]!);
    (cpuByKind[q.kind] ??= []).push(...cpuSamples[i]!);
    const response = await engine.search(q.text, { limit: 10 });
    perQuery.push({
      kind: q.kind,
      query: q.text.length > 80 ? `${q.text.slice(0, 77).replace(/\n/g, ' ')}...` : q.text,
      bytes: Buffer.byteLength(q.text),
      medianMs: round2(median(samples[i]!)),
      maxMs: round2(Math.max(...samples[i]!)),
      results: response.results.length,
      terms: response.meta.terms.length,
      dropped: response.meta.droppedTerms.length,
    });
  }
  return {
    firstSeen: summarize(first),
    all: summarize(samples.flat()),
    byKind: Object.fromEntries(Object.entries(byKind).map(([k, s]) => [k, summarize(s)])),
    cpu: { all: summarize(cpuSamples.flat()), byKind: Object.fromEntries(Object.entries(cpuByKind).map(([k, s]) => [k, summarize(s)])) },
    perQuery,
  };
}

function newestMtime(dir: string, ext: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && entry.name.endsWith(ext)) newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

/** dist/ must be at least as new as every src/ file, or the CLI timing measures old code. */
function distIsFresh(): boolean {
  const dist = join(REPO_ROOT, 'dist');
  return existsSync(join(dist, 'cli', 'main.js')) && newestMtime(dist, '.js') >= newestMtime(join(REPO_ROOT, 'src'), '.ts');
}

function spawnMs(args: readonly string[]): number {
  const t0 = performance.now();
  const run = spawnSync(process.execPath, args, { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  const ms = performance.now() - t0;
  if (run.status !== 0) throw new Error(`node ${args.join(' ')} exited ${run.status ?? run.signal}: ${run.stderr}`);
  return ms;
}

function timedRuns(args: readonly string[], runs: number): Summary {
  for (let i = 0; i < 2; i++) spawnMs(args); // warm: page cache, compile cache
  return summarize(Array.from({ length: runs }, () => spawnMs(args)));
}

function cli(db: string, runs: number): Record<string, unknown> {
  const nodeBaseline = timedRuns(['-e', '0'], runs);
  const mainUrl = pathToFileURL(join(REPO_ROOT, 'dist', 'cli', 'main.js')).href;
  const importOnly = timedRuns(['--input-type=module', '-e', `await import(${JSON.stringify(mainUrl)})`], runs);
  console.log(`node -e 0                 p50 ${fmtMs(nodeBaseline.p50)}`);
  console.log(`import dist/cli/main.js   p50 ${fmtMs(importOnly.p50)}`);
  const queries: Record<string, Summary> = {};
  for (const q of CLI_QUERIES) {
    queries[q] = timedRuns([join(REPO_ROOT, 'bin', 'scry.js'), 'search', q, '--db', db, '-k', '10'], runs);
    console.log(`scry search ${JSON.stringify(q).padEnd(32)} p50 ${fmtMs(queries[q].p50)} (−node ${fmtMs(queries[q].p50 - nodeBaseline.p50)})`);
  }
  const p50 = median(Object.values(queries).map((s) => s.p50));
  return { runsPerCommand: runs, nodeBaseline, importOnly, queries, p50OfQueryP50s: p50, overNodeBaselineMs: round2(p50 - nodeBaseline.p50) };
}

/**
 * The shipped ranking and another (`ranking` over it: the learned ranker, or a previous default) on
 * one db, in alternating halves of the rounds (A B A B), so load drift hits both.
 */
async function compareRanking(db: string, queries: readonly BenchQuery[], rounds: number, label: string, ranking: Record<string, unknown>, section: 'ranking' | 'fusion' = 'ranking'): Promise<Record<string, unknown>> {
  const shipped = await createEngine({ db });
  const other = await createEngine({ db, config: { search: { [section]: ranking } } as ConfigInput });
  const half = Math.max(1, Math.floor(rounds / 2));
  const runs = { shipped: [] as InProcess[], other: [] as InProcess[] };
  try {
    for (let i = 0; i < 2; i++) {
      runs.shipped.push(await inProcess(shipped, queries, half));
      runs.other.push(await inProcess(other, queries, half));
    }
  } finally {
    shipped.close();
    other.close();
  }
  const pooled = (xs: InProcess[]): Summary => summarize(xs.flatMap((x) => x.perQuery.map((q) => q.medianMs)));
  const a = pooled(runs.shipped);
  const b = pooled(runs.other);
  console.log(`${label} vs shipped (per-query medians, ${queries.length} queries): p50 ${fmtMs(b.p50)} vs ${fmtMs(a.p50)} (×${(b.p50 / a.p50).toFixed(2)}), p95 ${fmtMs(b.p95)} vs ${fmtMs(a.p95)} (×${(b.p95 / a.p95).toFixed(2)})`);
  return { ranking, shipped: a, [label]: b, p50Ratio: round2(b.p50 / a.p50), p95Ratio: round2(b.p95 / a.p95) };
}

async function main(): Promise<void> {
  const { flags, values } = parseArgs(process.argv.slice(2));
  const rounds = Number(values.get('rounds') ?? 10);
  const cliRuns = Number(values.get('cli-runs') ?? 10);
  const env = environment();
  const db = resolveDb(values);
  const queries = benchQueries();

  // --no-model: the lexical ranking alone (no query embedding, no blend), on the same index
  const config: ConfigInput | undefined = flags.has('no-model') ? { embed: { provider: 'none' } } : undefined;
  const open = await timeAsync(async () => {
    const engine = await createEngine({ db, ...(config ? { config } : {}) });
    await engine.search(queries[0]!.text, { limit: 10 });
    return engine;
  });
  const engine = open.value;
  const status = summarize(Array.from({ length: 5 }, () => timeSync(() => engine.status()).ms));
  console.log(`db ${db}: ${engine.status().files} files, ${engine.status().chunks} chunks`);
  console.log(`open + first search ${fmtMs(open.ms)}; engine.status() p50 ${fmtMs(status.p50)} (scry status; scry search only checks isIndexed())`);

  const local = await inProcess(engine, queries, rounds);
  engine.close();
  console.log(`in-process ${local.all.n} searches of ${queries.length} queries: p50 ${fmtMs(local.all.p50)} (target < ${TARGETS.inProcessP50Ms}), p95 ${fmtMs(local.all.p95)} (target < ${TARGETS.inProcessP95Ms}), max ${fmtMs(local.all.max)}`);
  console.log(`  first search of each query (cold per-process caches): p50 ${fmtMs(local.firstSeen.p50)}, p95 ${fmtMs(local.firstSeen.p95)}, max ${fmtMs(local.firstSeen.max)}`);
  console.log(`  cpu time per search: p50 ${fmtMs(local.cpu.all.p50)}, p95 ${fmtMs(local.cpu.all.p95)} (wall minus waiting for a core; compare these on a loaded machine)`);
  for (const [kind, s] of Object.entries(local.byKind)) {
    const c = local.cpu.byKind[kind]!;
    console.log(`  ${kind.padEnd(11)} p50 ${fmtMs(s.p50).padStart(9)}  p95 ${fmtMs(s.p95).padStart(9)}  max ${fmtMs(s.max).padStart(9)}   cpu p50 ${fmtMs(c.p50).padStart(9)}  p95 ${fmtMs(c.p95).padStart(9)}`);
  }
  const slowest = [...local.perQuery].sort((a, b) => b.medianMs - a.medianMs).slice(0, 8);
  console.log('slowest (median):');
  for (const q of slowest) console.log(`  ${fmtMs(q.medianMs).padStart(9)}  ${q.kind.padEnd(10)} terms=${q.terms} results=${q.results}  ${JSON.stringify(q.query)}`);

  const learned = flags.has('compare-learned') ? await compareRanking(db, queries, rounds, 'learned', { learned: true }) : undefined;
  const otherRanking = values.get('compare-ranking');
  const otherFusion = values.get('compare-fusion');
  const compared = otherRanking
    ? await compareRanking(db, queries, rounds, 'other', JSON.parse(otherRanking) as Record<string, unknown>)
    : otherFusion
      ? await compareRanking(db, queries, rounds, 'other', JSON.parse(otherFusion) as Record<string, unknown>, 'fusion')
      : undefined;

  let cliResult: Record<string, unknown> = { skipped: 'flag --skip-cli' };
  if (!flags.has('skip-cli')) {
    if (distIsFresh()) cliResult = cli(db, cliRuns);
    else {
      cliResult = { skipped: 'dist/ is older than src/ (run `npm run build`)' };
      console.error('CLI timing skipped: dist/ is older than src/; run `npm run build` first');
      process.exitCode = 1;
    }
  }

  const file = writeResult('query-latency', {
    env,
    db,
    embedModel: config ? 'none' : 'configured',
    targets: TARGETS,
    openAndFirstSearchMs: round2(open.ms),
    statusMs: status,
    inProcess: { rounds, queries: queries.length, ...local },
    ...(learned ? { learned } : {}),
    ...(compared ? { compared } : {}),
    cli: cliResult,
  });
  console.log(`wrote ${file}`);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exitCode = 1;
});
