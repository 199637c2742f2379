/**
 * Index throughput on the pinned corpus (bench/corpus.ts), against a same-run reference.
 *
 *   npx tsx bench/index-throughput.ts              everything below, writes bench/results/index-throughput.json
 *   npx tsx bench/index-throughput.ts --skip-incremental
 *                                                  without the no-change pass and the edit → search runs
 *   npx tsx bench/index-throughput.ts --skip-syntax-off
 *                                                  without the second full index (config `syntax: false`)
 *   npx tsx bench/index-throughput.ts --full-only  only the full index, no JSON, db deleted after
 *                                                  (for `node --cpu-prof --import tsx bench/index-throughput.ts --full-only`);
 *                                                  add --no-syntax to profile the `syntax: false` index instead
 *   npx tsx bench/index-throughput.ts --root DIR   index DIR instead of the corpus (a subset of it, say)
 *   npx tsx bench/index-throughput.ts --no-model   every index without the built-in model's vectors
 *                                                  (config `embed: { provider: 'none' }`): the lexical pass alone
 *   npx tsx bench/index-throughput.ts --threads    also CPU by thread, main-thread idle share, workers' busy time
 *                                                  and main-thread GC of each full pass (bench/thread-usage.ts; Linux)
 *
 * Measures: a full index into a fresh db with the default config, structure on (wall, MB/s,
 * files/s, peak RSS); a second full index into another fresh db with `syntax: false` (code chunked
 * by line windows, no symbols), reported as the ratio with/without structure; a reference that
 * reads the same files and inserts path+text into a plain FTS5 table (500 files per transaction,
 * WAL); a no-change re-index; single-file change → searchable (median of 5); index size vs source.
 * The structure-on pass runs first, so the process's maxRSS high-water mark read right after it
 * is that pass's peak (worker threads included: they are threads of this process).
 * The db is kept (its path is in the JSON) so that query-latency.ts can reuse it; the previous
 * run's work directory is deleted at start.
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { openConnection } from '../src/store/driver.js';
import { createEngine, type ConfigInput, type Engine, type IndexReport } from '../src/index.js';
import { corpusAt, ensureCorpus } from './corpus.js';
import { environment, parseArgs, readResult, writeResult } from './results.js';
import { cpuMs, fmtMB, fmtMs, MB, median, round2, RssSampler, timeAsync, timeSync } from './stats.js';
import { formatThreadUsage, installWorkerTracker, ThreadSampler, type ThreadUsage } from './thread-usage.js';

/** Candidates for the single-file edit, first existing wins: realistic mid-size source files. */
const EDIT_CANDIDATES = ['rxjs/src/internal/Observable.ts', 'webpack/lib/Compiler.js', 'typescript/lib/lib.es5.d.ts'];
const EDIT_RUNS = 5;
const REFERENCE_BATCH = 500;

const TARGETS = { noChangeMs: 2000, singleFileMs: 100, sizeRatio: 2 } as const;

interface PreviousRun {
  readonly workDir?: string;
}

function removePreviousWorkDir(): void {
  const prev = readResult<PreviousRun>('index-throughput');
  // Only ever delete a directory this script created.
  if (prev?.workDir && basename(prev.workDir).startsWith('scry-bench-') && prev.workDir.startsWith(tmpdir())) {
    rmSync(prev.workDir, { recursive: true, force: true });
  }
}

function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

function diskSize(db: string): { db: number; wal: number; shm: number; total: number } {
  const size = { db: fileSize(db), wal: fileSize(`${db}-wal`), shm: fileSize(`${db}-shm`) };
  return { ...size, total: size.db + size.wal };
}

/** Bytes per table/index, from SQLite's dbstat (read-only connection, after the engine closed). */
function tableSizes(db: string): Record<string, number> {
  const conn = openConnection(db, { readonly: true });
  try {
    const rows = conn.prepare<[], { name: string; bytes: number }>('SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name ORDER BY bytes DESC').all();
    return Object.fromEntries(rows.map((r) => [r.name, r.bytes]));
  } catch {
    return {};
  } finally {
    conn.close();
  }
}

/** Paths the engine indexed. Reads scry's `files` table: the bench knows the schema, the engine API does not expose it. */
function indexedPaths(db: string): string[] {
  const conn = openConnection(db, { readonly: true });
  try {
    return conn.prepare<[], { path: string }>('SELECT path FROM files ORDER BY id').all().map((r) => r.path);
  } finally {
    conn.close();
  }
}

/** The floor: read each file and insert path+text into a plain FTS5 table, as scry's batches do. */
function referenceInsert(root: string, paths: readonly string[], db: string): { ms: number; cpuMs: number; optimizeMs: number; bytes: number; size: number } {
  const conn = openConnection(db);
  conn.pragma('journal_mode = WAL');
  conn.pragma('synchronous = NORMAL');
  conn.exec('CREATE VIRTUAL TABLE docs USING fts5(path, body)');
  const insert = conn.prepare<[string, string]>('INSERT INTO docs(path, body) VALUES (?, ?)');
  let bytes = 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < paths.length; i += REFERENCE_BATCH) {
    const batch = paths.slice(i, i + REFERENCE_BATCH).map((p) => {
      const buf = readFileSync(join(root, p));
      bytes += buf.length;
      return [p, buf.toString('utf8')] as const;
    });
    conn.transaction(() => {
      for (const [p, text] of batch) insert.run(p, text);
    });
  }
  const ms = performance.now() - t0;
  const cpu = cpuMs(process.cpuUsage(cpu0));
  const optimizeMs = timeSync(() => conn.exec("INSERT INTO docs(docs) VALUES ('optimize')")).ms;
  conn.pragma('wal_checkpoint(TRUNCATE)');
  conn.close();
  return { ms, cpuMs: cpu, optimizeMs, bytes, size: diskSize(db).total };
}

function randomWord(n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += String.fromCharCode(97 + Math.floor(Math.random() * 26));
  return s;
}

interface EditRun {
  readonly token: string;
  readonly totalMs: number;
  readonly indexMs: number;
  readonly searchMs: number;
  readonly found: boolean;
  readonly filesIndexed: number;
}

/**
 * Appends a unique token to one file, re-indexes, searches for it; restores the file afterwards.
 * `scoped`: re-index with `index({ paths: [rel] })` (what an editor hook or watcher does) instead
 * of a full pass that walks the tree.
 */
async function singleFileChange(engine: Engine, root: string, rel: string, scoped: boolean): Promise<{ runs: EditRun[]; restoreMs: number }> {
  const abs = join(root, rel);
  const original = readFileSync(abs);
  const runs: EditRun[] = [];
  try {
    for (let i = 0; i < EDIT_RUNS; i++) {
      const token = `scrybench${randomWord(12)}`;
      writeFileSync(abs, Buffer.concat([original, Buffer.from(`\n// ${token}\n`)]));
      const t0 = performance.now();
      const report = await engine.index(scoped ? { paths: [rel] } : {});
      const t1 = performance.now();
      const response = await engine.search(token, { limit: 10 });
      const t2 = performance.now();
      runs.push({ token, totalMs: round2(t2 - t0), indexMs: round2(t1 - t0), searchMs: round2(t2 - t1), found: response.results[0]?.path === rel, filesIndexed: report.filesIndexed });
    }
  } finally {
    writeFileSync(abs, original);
  }
  // Bring the index back in line with the restored file so the db matches the corpus.
  const restore = await timeAsync(() => engine.index());
  return { runs, restoreMs: round2(restore.ms) };
}

function pickEditFile(root: string): string {
  for (const rel of EDIT_CANDIDATES) if (fileSize(join(root, rel)) > 0) return rel;
  throw new Error(`none of ${EDIT_CANDIDATES.join(', ')} exists under ${root}`);
}

const ratio = (a: number, b: number): number => Math.round((a / b) * 100) / 100;

const fmtLoad = (load: readonly number[]): string => load.map((x) => x.toFixed(2)).join(' ');

interface FullRun {
  readonly label: string;
  readonly ms: number;
  readonly cpuMs: number;
  readonly mbps: number;
  readonly report: IndexReport;
  /** `rssBeforeBytes`: RSS when the pass started, what the previous pass left behind in this process included. */
  readonly memory: { sampledPeakBytes: number; maxRssBytes: number; rssBeforeBytes: number };
  readonly loadAvgBefore: number[];
  readonly threads?: ThreadUsage | undefined;
}

/** One full index pass into the engine's (fresh) db, with RSS sampling and CPU time of all threads (`threads`: by thread too). */
async function fullIndex(engine: Engine, label: string, threads = false): Promise<FullRun> {
  const loadAvgBefore = loadavg();
  const rssBeforeBytes = process.memoryUsage.rss();
  const rss = new RssSampler();
  const byThread = threads ? new ThreadSampler() : undefined;
  rss.start();
  byThread?.start();
  const cpu0 = process.cpuUsage();
  const full = await timeAsync(() =>
    engine.index({
      onProgress: () => {
        rss.sample();
        byThread?.sample();
      },
    }),
  );
  const fullCpuMs = cpuMs(process.cpuUsage(cpu0));
  const usage = byThread?.stop();
  const memory = { ...rss.stop(), rssBeforeBytes };
  const report = full.value;
  const mbps = report.bytesIndexed / MB / (full.ms / 1000);
  console.log(`${label.padEnd(15)} ${fmtMs(full.ms)}  ${report.filesIndexed} files  ${report.chunksWritten} chunks  ${mbps.toFixed(2)} MB/s  ${Math.round(report.filesIndexed / (full.ms / 1000))} files/s  (load ${fmtLoad(loadAvgBefore)} before)`);
  console.log(`  cpu time      ${fmtMs(fullCpuMs)} user+sys, all threads (${Math.round((fullCpuMs / full.ms) * 100)}% of wall on ${availableParallelism()} cores)`);
  const embed = report.embedding && 'durationMs' in report.embedding ? report.embedding : undefined;
  if (embed) console.log(`  passes        lexical ${fmtMs(report.durationMs)}, then embedding ${fmtMs(embed.durationMs)} (${embed.embedded} texts embedded after the lexical pass; ${embed.covered} of ${embed.chunks} chunks with a vector)`);
  console.log(`  peak RSS      sampled ${fmtMB(memory.sampledPeakBytes)} (${fmtMB(rssBeforeBytes)} before the pass), process max ${fmtMB(memory.maxRssBytes)}`);
  if (usage) console.log(formatThreadUsage(usage));
  return { label, ms: full.ms, cpuMs: fullCpuMs, mbps, report, memory, loadAvgBefore, threads: usage };
}

const runJson = (run: FullRun) => ({
  wallMs: Math.round(run.ms),
  cpuMs: Math.round(run.cpuMs),
  mbPerSec: round2(run.mbps),
  filesPerSec: Math.round(run.report.filesIndexed / (run.ms / 1000)),
  loadAvgBefore: run.loadAvgBefore,
  report: run.report,
  memory: run.memory,
  threads: run.threads ?? null,
});

async function main(): Promise<void> {
  const { flags, values } = parseArgs(process.argv.slice(2));
  const threads = flags.has('threads');
  if (threads) installWorkerTracker();
  const env = environment();
  const rootArg = values.get('root');
  const corpus = rootArg ? corpusAt(rootArg) : ensureCorpus();
  const fullOnly = flags.has('full-only');
  if (!fullOnly) removePreviousWorkDir();
  const workDir = mkdtempSync(join(tmpdir(), 'scry-bench-'));
  const dbPath = join(workDir, 'index.db');
  const noSyntax = fullOnly && flags.has('no-syntax');
  // the default config embeds with the built-in model; --no-model measures the lexical pass alone
  const model: ConfigInput = flags.has('no-model') ? { embed: { provider: 'none' } } : {};
  const engine = await createEngine({ root: corpus.root, db: dbPath, config: { ...model, ...(noSyntax ? { syntax: false } : {}) } });

  // Dry run first: warms the page cache for both contenders and says what the pass should take.
  const preview = await timeAsync(() => engine.preview());
  console.log(`corpus ${corpus.root}: ${preview.value.files} files, ${fmtMB(preview.value.bytes)} (dry run ${fmtMs(preview.ms)})${flags.has('no-model') ? ', without the model' : ''}`);

  // Structure on (the default) first: maxRSS right after it is its own peak.
  const on = await fullIndex(engine, noSyntax ? 'full, no syntax' : 'full index', threads);
  const full = { ms: on.ms };
  const fullCpuMs = on.cpuMs;
  const report: IndexReport = on.report;
  if (fullOnly) {
    engine.close();
    rmSync(workDir, { recursive: true, force: true });
    return;
  }

  // Structure off: same files, fresh db, `syntax: false`. maxRSS is the process's high-water mark
  // (at least the structure-on peak), and the sampled RSS starts from what the first pass left
  // (V8 heap, malloc arenas, the first engine's SQLite cache): only peak − before is this pass's own.
  let off: (FullRun & { size: ReturnType<typeof diskSize>; tables: Record<string, number> }) | undefined;
  if (!flags.has('skip-syntax-off')) {
    const offDb = join(workDir, 'no-syntax.db');
    const offConfig: ConfigInput = { ...model, syntax: false };
    const offEngine = await createEngine({ root: corpus.root, db: offDb, config: offConfig });
    const run = await fullIndex(offEngine, 'full, no syntax', threads);
    offEngine.close();
    off = { ...run, size: diskSize(offDb), tables: tableSizes(offDb) };
    rmSync(offDb, { force: true });
    rmSync(`${offDb}-wal`, { force: true });
    rmSync(`${offDb}-shm`, { force: true });
    console.log(
      `structure       with/without: MB/s ${ratio(on.mbps, off.mbps)}x, wall ${ratio(on.ms, off.ms)}x, cpu ${ratio(on.cpuMs, off.cpuMs)}x, RSS growth during the pass ${fmtMB(on.memory.sampledPeakBytes - on.memory.rssBeforeBytes)} vs ${fmtMB(off.memory.sampledPeakBytes - off.memory.rssBeforeBytes)}, chunks ${ratio(on.report.chunksWritten, off.report.chunksWritten)}x`,
    );
  }

  const skipIncremental = flags.has('skip-incremental');
  let incremental: { noChange: { wallMs: number; report: IndexReport }; singleFileChange: object; singleFileChangeScoped: object } | undefined;
  if (!skipIncremental) {
    const noChange = await timeAsync(() => engine.index());
    console.log(`no-change pass  ${fmtMs(noChange.ms)}  (target < ${TARGETS.noChangeMs} ms)  indexed=${noChange.value.filesIndexed} unchanged=${noChange.value.filesUnchanged}`);

    const editFile = pickEditFile(corpus.root);
    const edit = await singleFileChange(engine, corpus.root, editFile, false);
    const editMedian = median(edit.runs.map((r) => r.totalMs));
    console.log(
      `edit→search     full pass: median ${fmtMs(editMedian)} of ${edit.runs.length}: index ${fmtMs(median(edit.runs.map((r) => r.indexMs)))}, search ${fmtMs(median(edit.runs.map((r) => r.searchMs)))}; all found: ${edit.runs.every((r) => r.found)}`,
    );
    const scopedEdit = await singleFileChange(engine, corpus.root, editFile, true);
    const scopedMedian = median(scopedEdit.runs.map((r) => r.totalMs));
    console.log(
      `edit→search     index({paths}): median ${fmtMs(scopedMedian)} (target < ${TARGETS.singleFileMs} ms) of ${scopedEdit.runs.length}: index ${fmtMs(median(scopedEdit.runs.map((r) => r.indexMs)))}, search ${fmtMs(median(scopedEdit.runs.map((r) => r.searchMs)))}; all found: ${scopedEdit.runs.every((r) => r.found)}`,
    );
    incremental = {
      noChange: { wallMs: Math.round(noChange.ms), report: noChange.value },
      singleFileChange: { file: editFile, medianMs: editMedian, runs: edit.runs, restorePassMs: edit.restoreMs },
      singleFileChangeScoped: { file: editFile, medianMs: scopedMedian, runs: scopedEdit.runs },
    };
  }

  engine.close();
  const size = diskSize(dbPath);
  const tables = tableSizes(dbPath);
  console.log(`index size      ${fmtMB(size.total)} for ${fmtMB(report.bytesIndexed)} of source = ${ratio(size.total, report.bytesIndexed)}x (target <= ${TARGETS.sizeRatio}x)`);
  if (off) console.log(`  syntax off    ${fmtMB(off.size.total)} = ${ratio(off.size.total, off.report.bytesIndexed)}x; structure adds ${fmtMB(size.total - off.size.total)}`);

  const paths = indexedPaths(dbPath);
  const reference = referenceInsert(corpus.root, paths, join(workDir, 'reference.db'));
  const refMbps = reference.bytes / MB / (reference.ms / 1000);
  console.log(`reference FTS5  ${fmtMs(reference.ms)} (+ optimize ${fmtMs(reference.optimizeMs)})  ${refMbps.toFixed(2)} MB/s  size ${fmtMB(reference.size)}`);
  console.log(`ratio           scry/reference wall = ${ratio(full.ms, reference.ms)}x (incl. reference optimize: ${ratio(full.ms, reference.ms + reference.optimizeMs)}x), cpu = ${ratio(fullCpuMs, reference.cpuMs)}x`);

  const loadAtEnd = loadavg();
  console.log(`load average    ${fmtLoad(loadAtEnd)} at end (${env.loadAvg1m.toFixed(2)} 1-min at start)`);
  const file = writeResult('index-throughput', {
    env,
    loadAvg1mAtEnd: loadAtEnd[0],
    loadAvgAtEnd: loadAtEnd,
    corpus: { root: corpus.root, packages: corpus.packages, installedPackages: corpus.installedPackages, treeHash: corpus.treeHash, previewFiles: preview.value.files, previewBytes: preview.value.bytes },
    db: dbPath,
    embedModel: flags.has('no-model') ? 'none' : 'builtin',
    workDir,
    targets: TARGETS,
    full: runJson(on),
    fullNoSyntax: off ? { ...runJson(off), size: off.size, tables: off.tables } : null,
    structureRatio: off
      ? { mbPerSec: ratio(on.mbps, off.mbps), wall: ratio(on.ms, off.ms), cpu: ratio(on.cpuMs, off.cpuMs), rssGrowth: ratio(on.memory.sampledPeakBytes - on.memory.rssBeforeBytes, off.memory.sampledPeakBytes - off.memory.rssBeforeBytes), chunks: ratio(on.report.chunksWritten, off.report.chunksWritten), size: ratio(size.total, off.size.total) }
      : null,
    reference: { wallMs: Math.round(reference.ms), cpuMs: Math.round(reference.cpuMs), optimizeMs: Math.round(reference.optimizeMs), files: paths.length, bytes: reference.bytes, mbPerSec: round2(refMbps), sizeBytes: reference.size },
    ratioToReference: ratio(full.ms, reference.ms),
    cpuRatioToReference: ratio(fullCpuMs, reference.cpuMs),
    ...(incremental ?? { noChange: null, singleFileChange: null, singleFileChangeScoped: null }),
    size: { ...size, sourceBytes: report.bytesIndexed, ratio: ratio(size.total, report.bytesIndexed), tables },
  });
  console.log(`wrote ${file}\ndb kept at ${dbPath} (query-latency.ts reuses it)`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
