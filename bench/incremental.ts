/**
 * The incremental paths on an existing corpus index: a no-change rescan, and edit → searchable by
 * a full pass, by `index({ paths })` and by a watcher. No full index is built: the index given is
 * copied (SQLite backup API) into a temporary directory and every run works on the copy.
 *
 *   npx tsx bench/incremental.ts --db PATH             PATH: an index of the corpus (index-throughput.ts keeps one)
 *   npx tsx bench/incremental.ts --db PATH --runs 7    runs per measure (default 5)
 *   npx tsx bench/incremental.ts --db PATH --only rescan,scoped   a comma list of: rescan, full, scoped, watch
 *   npx tsx bench/incremental.ts --db PATH --root DIR  the indexed tree (default: the corpus)
 *
 * Measures, each a median of `--runs` with CPU time beside wall time (steadier on a shared machine):
 * - rescan: `engine.index()` with nothing changed; its steps timed alone as a same-run reference:
 *   the walk (discover/walk.ts), and one `SELECT` of every stored file's stat;
 * - full: append a unique token to one file, `engine.index()`, `engine.search(token)`;
 * - scoped: the same with `engine.index({ paths: [file] })` (an editor hook, `scry index --paths`);
 * - watch: `engine.watch({ debounceMs: 100 })`, write, poll `search(token)` every 2 ms through the
 *   watching engine until the file is the top hit; the watcher's own pass time beside it.
 * The edited file is restored (and re-indexed) at the end. Writes bench/results/incremental.json.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { openConnection } from '../src/store/driver.js';
import { walk } from '../src/discover/walk.js';
import { resolveConfig } from '../src/config/resolve.js';
import { createEngine, type Engine, type IndexReport, type WatchEvent } from '../src/index.js';
import { corpusAt, ensureCorpus } from './corpus.js';
import { environment, parseArgs, writeResult } from './results.js';
import { cpuMs, fmtMs, median, round2 } from './stats.js';

const EDIT_CANDIDATES = ['rxjs/src/internal/Observable.ts', 'webpack/lib/Compiler.js', 'typescript/lib/lib.es5.d.ts'];
const TARGETS = { rescanMs: 1000, editMs: 100 } as const;
const WATCH_DEBOUNCE_MS = 100;
const WATCH_TIMEOUT_MS = 10_000;
const POLL_MS = 2;
const PARTS = ['rescan', 'full', 'scoped', 'watch'] as const;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const fmtLoad = (): string => loadavg().map((x) => x.toFixed(2)).join(' ');

function randomWord(n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += String.fromCharCode(97 + Math.floor(Math.random() * 26));
  return s;
}

/** Wall and CPU time of one call. */
async function measure<T>(fn: () => Promise<T> | T): Promise<{ ms: number; cpuMs: number; value: T }> {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const value = await fn();
  return { ms: performance.now() - t0, cpuMs: cpuMs(process.cpuUsage(cpu0)), value };
}

const summary = (runs: ReadonlyArray<{ ms: number; cpuMs: number }>) => ({
  medianMs: round2(median(runs.map((r) => r.ms))),
  medianCpuMs: round2(median(runs.map((r) => r.cpuMs))),
  runsMs: runs.map((r) => round2(r.ms)),
});

/** A consistent copy of `src` (WAL included) at `dest`, through SQLite's backup API. */
async function copyIndex(src: string, dest: string): Promise<void> {
  const conn = openConnection(src, { readonly: true });
  try {
    await conn.backup(dest);
  } finally {
    conn.close();
  }
}

async function rescanPart(engine: Engine, root: string, runs: number) {
  const passes: Array<{ ms: number; cpuMs: number; value: IndexReport }> = [];
  for (let i = 0; i < runs; i++) passes.push(await measure(() => engine.index()));
  const config = await resolveConfig({ root });
  const walkOptions = { root, maxFileBytes: config.maxFileBytes, maxDocumentBytes: config.documents.maxBytes, ignore: config.ignore, denylist: config.denylist };
  const walks = [];
  for (let i = 0; i < runs; i++) walks.push(await measure(() => walk(walkOptions, { file: () => {}, skip: () => {} })));
  const loads = [];
  const conn = openConnection(engine.dbPath, { readonly: true });
  const stmt = conn.prepare<[], [string, number, number]>('SELECT path, size, mtime_ms FROM files').raw();
  for (let i = 0; i < runs; i++) loads.push(await measure(() => new Map(stmt.all().map((r) => [r[0], r] as const))));
  conn.close();
  const last = passes[passes.length - 1]!.value;
  const lexicalPassMs = round2(median(passes.map((p) => p.value.durationMs)));
  const out = { pass: summary(passes), lexicalPassMs, walk: summary(walks), storedLoad: summary(loads), filesUnchanged: last.filesUnchanged, filesIndexed: last.filesIndexed };
  console.log(`no-change pass  median ${fmtMs(out.pass.medianMs)} (cpu ${fmtMs(out.pass.medianCpuMs)}; target < ${TARGETS.rescanMs} ms), lexical pass ${fmtMs(lexicalPassMs)}; unchanged=${last.filesUnchanged} indexed=${last.filesIndexed}`);
  console.log(`  reference     walk alone ${fmtMs(out.walk.medianMs)} (cpu ${fmtMs(out.walk.medianCpuMs)}), stored stat load ${fmtMs(out.storedLoad.medianMs)}; pass/walk ${round2(out.pass.medianMs / out.walk.medianMs)}x`);
  return out;
}

/** Appends a fresh token to `rel`; returns the token. */
function edit(root: string, rel: string, original: Buffer): string {
  const token = `scrybench${randomWord(12)}`;
  writeFileSync(join(root, rel), Buffer.concat([original, Buffer.from(`\n// ${token}\n`)]));
  return token;
}

async function editPart(engine: Engine, root: string, rel: string, original: Buffer, runs: number, scoped: boolean) {
  const samples = [];
  for (let i = 0; i < runs; i++) {
    const token = edit(root, rel, original);
    const indexed = await measure(() => engine.index(scoped ? { paths: [rel] } : {}));
    const searched = await measure(() => engine.search(token, { limit: 10 }));
    const embedding = indexed.value.embedding && 'durationMs' in indexed.value.embedding ? round2(indexed.value.embedding.durationMs) : null;
    samples.push({ ms: indexed.ms + searched.ms, cpuMs: indexed.cpuMs + searched.cpuMs, indexMs: round2(indexed.ms), lexicalPassMs: round2(indexed.value.durationMs), embedMs: embedding, searchMs: round2(searched.ms), found: searched.value.results[0]?.path === rel });
  }
  const out = { ...summary(samples), medianIndexMs: median(samples.map((s) => s.indexMs)), medianLexicalPassMs: median(samples.map((s) => s.lexicalPassMs)), medianEmbedMs: median(samples.map((s) => s.embedMs ?? 0)), allFound: samples.every((s) => s.found), samples };
  console.log(
    `edit→search     ${scoped ? 'index({paths})' : 'full pass     '}: median ${fmtMs(out.medianMs)} (cpu ${fmtMs(out.medianCpuMs)}): lexical pass ${fmtMs(out.medianLexicalPassMs)}, embed ${fmtMs(out.medianEmbedMs)}; all found: ${out.allFound}`,
  );
  return out;
}

async function watchPart(engine: Engine, root: string, rel: string, original: Buffer, runs: number) {
  const passes: Array<{ at: number; ms: number }> = [];
  const onEvent = (e: WatchEvent): void => {
    if (e.type === 'pass-end') passes.push({ at: performance.now(), ms: e.report.durationMs });
  };
  const started = await measure(async () => {
    const w = await engine.watch({ watch: { debounceMs: WATCH_DEBOUNCE_MS }, onEvent });
    await w.ready();
    await w.idle();
    return w;
  });
  const watch = started.value;
  const samples = [];
  try {
    for (let i = 0; i < runs; i++) {
      const token = edit(root, rel, original);
      const t0 = performance.now();
      const cpu0 = process.cpuUsage();
      let found = false;
      while (!found && performance.now() - t0 < WATCH_TIMEOUT_MS) {
        found = (await engine.search(token, { limit: 10, rerank: false })).results[0]?.path === rel;
        if (!found) await sleep(POLL_MS);
      }
      const ms = performance.now() - t0;
      const cpu = cpuMs(process.cpuUsage(cpu0));
      await watch.idle();
      const pass = passes.find((p) => p.at >= t0);
      samples.push({ ms, cpuMs: cpu, found, passMs: pass ? round2(pass.ms) : null });
      await sleep(WATCH_DEBOUNCE_MS * 3); // let idle embedding slices run between edits, as between keystrokes
    }
  } finally {
    await watch.close();
  }
  const out = { debounceMs: WATCH_DEBOUNCE_MS, startupMs: round2(started.ms), ...summary(samples), medianPassMs: median(samples.map((s) => s.passMs ?? Number.NaN)), allFound: samples.every((s) => s.found), samples };
  console.log(`edit→search     watch (debounce ${WATCH_DEBOUNCE_MS} ms): median ${fmtMs(out.medianMs)} write→found, watcher pass ${fmtMs(out.medianPassMs)}; startup ${fmtMs(out.startupMs)}; all found: ${out.allFound}`);
  return out;
}

async function main(): Promise<void> {
  const { values } = parseArgs(process.argv.slice(2));
  const source = values.get('db');
  if (!source) throw new Error('--db PATH: an existing index of the corpus (bench/index-throughput.ts keeps one)');
  const runs = Number(values.get('runs') ?? 5);
  const only = new Set((values.get('only') ?? PARTS.join(',')).split(','));
  const root = values.get('root') ? corpusAt(values.get('root')!).root : ensureCorpus().root;
  const env = environment();
  const workDir = mkdtempSync(join(tmpdir(), 'scry-bench-incr-'));
  const db = join(workDir, 'index.db');
  await copyIndex(source, db);
  console.log(`index ${source} copied to ${db}; root ${root}; load ${fmtLoad()}`);
  const engine = await createEngine({ root, db });
  const rel = EDIT_CANDIDATES.find((p) => {
    try {
      return readFileSync(join(root, p)).length > 0;
    } catch {
      return false;
    }
  });
  if (!rel) throw new Error(`none of ${EDIT_CANDIDATES.join(', ')} exists under ${root}`);
  const original = readFileSync(join(root, rel));
  const result: Record<string, unknown> = { env, source, root, file: rel, runs, targets: TARGETS };
  try {
    await engine.index(); // settles what differs between the index and the tree (and loads the code)
    if (only.has('rescan')) result.rescan = await rescanPart(engine, root, runs);
    if (only.has('full')) result.full = await editPart(engine, root, rel, original, runs, false);
    if (only.has('scoped')) result.scoped = await editPart(engine, root, rel, original, runs, true);
    if (only.has('watch')) result.watch = await watchPart(engine, root, rel, original, runs);
  } finally {
    writeFileSync(join(root, rel), original);
    await engine.index({ paths: [rel] }).catch(() => undefined);
    engine.close();
    rmSync(workDir, { recursive: true, force: true });
  }
  console.log(`load average    ${fmtLoad()} at end (${env.loadAvg1m.toFixed(2)} 1-min at start)`);
  console.log(`wrote ${writeResult('incremental', { ...result, loadAvgAtEnd: loadavg() })}`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
