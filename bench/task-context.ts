/**
 * Task-aware retrieval against the plain query pack (issue 20). Cases are mined from real
 * repositories' history (the git mirrors under /work/.mirror; none of the held-out projects):
 * commits that change one source file S and its test file T together, both still present at HEAD,
 * which is what is indexed. Per commit, with its subject as the query and the same token budget:
 *
 * - **fix**: a failure log naming the failing test (a test function of T the commit changed, at its
 *   HEAD line, in the runner's format for the language) and only it → gold: S and the functions of
 *   S the commit changed. Task pack: `{task: 'fix', log}`; plain: the subject, and the subject plus
 *   the log as query text (the same information, as words).
 * - **test**: current file S at the first changed function → gold: T and its changed test functions.
 * - **refactor**: current file S → gold: the other files of the commit (the code that had to change with S).
 * - **explain**: current file S at a changed function → gold: the repository definitions outside
 *   that function that it calls (by name, from its body), in other files.
 * Plain packs get the same query and current file, without a task. Reported: the share of gold
 * files with a piece in the pack (window included), the share of gold functions a piece overlaps,
 * and the latency of `engine.context` per task (p50/p95, ms, this machine, shared cores).
 *
 *   npx tsx bench/task-context.ts [--mirrors=/work/.mirror] [--per-repo=6] [--tokens=4000] [--only=owner/name,...]
 *
 * Writes bench/results/task-context.json (checkouts and indexes cached in $TMPDIR/scry-task-context, or --cache=DIR).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngine, type ContextOptions, type ContextTask, type Engine, type TaskContext } from '../src/index.js';
import { isTestPath } from '../src/search/rank.js';
import { environment, parseArgs, writeResult } from './results.js';
import { percentile } from './stats.js';
import { mineCases, type TaskCase } from './task-cases.js';

const { values } = parseArgs(process.argv.slice(2));
const MIRRORS = values.get('mirrors') ?? '/work/.mirror';
const PER_REPO = Number(values.get('per-repo') ?? 6);
const TOKENS = Number(values.get('tokens') ?? 4000);
const ONLY = values.get('only');
/** Repositories mined (mirrors present here), none of the held-out projects. */
const REPOS = ['pallets/click', 'more-itertools/more-itertools', 'pallets/jinja', 'go-chi/chi', 'sirupsen/logrus', 'spf13/cobra', 'expressjs/express', 'square/javapoet', 'tokio-rs/bytes', 'google/gson', 'mochajs/mocha', 'axios/axios'];
/** Checkouts and their indexes, outside the repository (tsc and eslint would read a checkout under bench/). */
const CACHE = values.get('cache') ?? join(tmpdir(), 'scry-task-context');

interface Score {
  readonly files: number;
  readonly functions: number | null;
  readonly ms: number;
}

function checkout(repo: string): string {
  const dir = join(CACHE, repo.replace('/', '+'));
  if (existsSync(join(dir, '.done'))) return dir;
  mkdirSync(dir, { recursive: true });
  const gitDir = join(MIRRORS, repo.replace('/', '+'), 'repo');
  execFileSync('sh', ['-c', `git --git-dir="${gitDir}" archive HEAD | tar -x -C "${dir}" && touch "${dir}/.done"`]);
  return dir;
}

/** Share of gold files with a piece (or the current-file window) in the pack; share of gold spans a piece overlaps. */
function score(pack: TaskContext, c: TaskCase, ms: number): Score {
  const shown = [...pack.sections.evidence.flatMap((g) => g.pieces.filter((p) => p.kind !== 'summary').map((p) => ({ path: p.path, startLine: p.startLine, endLine: p.endLine })))];
  const w = pack.sections.workspace.currentFile;
  if (w !== undefined) shown.push({ path: w.path, startLine: w.startLine, endLine: w.endLine });
  const files = c.goldFiles.filter((f) => shown.some((s) => s.path === f)).length / c.goldFiles.length;
  const fns = c.goldSpans.length === 0 ? null : c.goldSpans.filter((g) => shown.some((s) => s.path === g.path && s.startLine <= g.endLine && g.startLine <= s.endLine)).length / c.goldSpans.length;
  return { files, functions: fns, ms };
}

async function timed(engine: Engine, query: string, options: ContextOptions): Promise<{ pack: TaskContext; ms: number }> {
  const t0 = performance.now();
  const pack = await engine.context(query, options);
  return { pack, ms: performance.now() - t0 };
}

/** The task pack and the plain packs of one case. */
async function runCase(engine: Engine, c: TaskCase): Promise<Record<string, Score>> {
  const current = c.current !== undefined ? { current: c.current } : {};
  const task = await timed(engine, c.query, { tokens: TOKENS, task: c.task, log: c.log, ...current });
  const plain = await timed(engine, c.query, { tokens: TOKENS, ...current });
  const out: Record<string, Score> = { task: score(task.pack, c, task.ms), plain: score(plain.pack, c, plain.ms) };
  if (c.log !== undefined) {
    const words = await timed(engine, `${c.query}\n${c.log}`, { tokens: TOKENS });
    out.plainWithLog = score(words.pack, c, words.ms);
  }
  return out;
}

const mean = (xs: readonly number[]): number => (xs.length === 0 ? NaN : xs.reduce((a, b) => a + b, 0) / xs.length);
const pct = (x: number): string => (Number.isNaN(x) ? '   -' : `${(100 * x).toFixed(0).padStart(3)}%`);

async function main(): Promise<void> {
  const rows: { repo: string; case: TaskCase; scores: Record<string, Score> }[] = [];
  for (const repo of REPOS.filter((r) => ONLY === undefined || ONLY.split(',').includes(r))) {
    if (!existsSync(join(MIRRORS, repo.replace('/', '+'), 'repo'))) continue;
    const root = checkout(repo);
    const engine = await createEngine({ root, db: join(CACHE, `${repo.replace('/', '+')}.db`), env: { HOME: CACHE, XDG_CACHE_HOME: CACHE } });
    try {
      await engine.index();
      const cases = await mineCases(engine, join(MIRRORS, repo.replace('/', '+'), 'repo'), PER_REPO);
      for (const c of cases) rows.push({ repo, case: c, scores: await runCase(engine, c) });
      process.stderr.write(`${repo}: ${cases.length} cases (${['fix', 'test', 'refactor', 'explain'].map((t) => `${t} ${cases.filter((c) => c.task === t).length}`).join(', ')})\n`);
    } finally {
      engine.close();
    }
  }
  const tasks: ContextTask[] = ['fix', 'test', 'refactor', 'explain'];
  const table = tasks.map((t) => {
    const rs = rows.filter((r) => r.case.task === t);
    const col = (k: string, f: 'files' | 'functions'): number => mean(rs.flatMap((r) => (r.scores[k] && r.scores[k]![f] !== null ? [r.scores[k]![f]!] : [])));
    const ms = rs.map((r) => r.scores.task!.ms);
    return {
      task: t,
      cases: rs.length,
      repos: new Set(rs.map((r) => r.repo)).size,
      files: { task: col('task', 'files'), plain: col('plain', 'files'), plainWithLog: t === 'fix' ? col('plainWithLog', 'files') : null },
      functions: { task: col('task', 'functions'), plain: col('plain', 'functions'), plainWithLog: t === 'fix' ? col('plainWithLog', 'functions') : null },
      latencyMs: { p50: percentile(ms, 50), p95: percentile(ms, 95), plainP50: percentile(rs.map((r) => r.scores.plain!.ms), 50) },
    };
  });
  console.log(`budget ${TOKENS} tokens; share of gold files / gold functions in the pack; latency of engine.context with the task`);
  console.log('task      cases repos | files: task  plain  plain+log | functions: task  plain  plain+log | ms p50   p95  (plain p50)');
  for (const r of table) {
    console.log(
      `${r.task.padEnd(9)} ${String(r.cases).padStart(5)} ${String(r.repos).padStart(5)} |       ${pct(r.files.task)}  ${pct(r.files.plain)}  ${r.files.plainWithLog === null ? '     -' : `  ${pct(r.files.plainWithLog)}`}   |            ${pct(r.functions.task)}  ${pct(r.functions.plain)}  ${r.functions.plainWithLog === null ? '     -' : `  ${pct(r.functions.plainWithLog)}`}   | ${r.latencyMs.p50.toFixed(0).padStart(6)} ${r.latencyMs.p95.toFixed(0).padStart(5)}  (${r.latencyMs.plainP50.toFixed(0)})`,
    );
  }
  const path = writeResult('task-context', { environment: environment(), tokens: TOKENS, perRepo: PER_REPO, table, cases: rows.map((r) => ({ repo: r.repo, ...r.case, log: r.case.log?.slice(0, 400), scores: r.scores })) });
  console.log(`wrote ${path}; test paths counted as tests by: ${isTestPath.name}`);
}

await main();
