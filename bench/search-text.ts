/**
 * search_text against ripgrep on exactly the same files.
 *
 *   npx tsx bench/search-text.ts [DIR] [--rounds 10] [--db PATH]
 *
 * DIR is the first positional argument, else `$SCRY_BENCH_REPO`, else this repository. It is
 * indexed into a fresh database in a temp directory (deleted afterwards); `--db PATH` reuses an
 * existing index instead (its root is read from it). Per query: 2 warm-up rounds, then `rounds`
 * timed rounds of `engine.searchText(q, { limit: 1000 })` and of `rg` over the indexed file list
 * (the paths as arguments, cwd = root, in as few processes as the argument limit allows), with
 * rg's case mode set to the one scry resolved (`-s`/`-i`) and `-F` for literals. rg's time
 * includes its process start, which is what an agent shelling out to it pays. Then both are run
 * once more to compare what they found: scry's lines must equal rg's first 1000 (`--sort path`, then sorted by path bytes and line).
 * The timed scry rounds run on a warm engine (it has learned which bodies are NUL-free, so SQLite
 * prefilters); the first full scan of a fresh engine is reported apart (`coldFullScanMs`).
 * Writes bench/results/search-text-<dir name>.json.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { openConnection } from '../src/store/driver.js';
import { createEngine, type Engine, type TextSearchResult } from '../src/index.js';
import { environment, parseArgs, REPO_ROOT, writeResult } from './results.js';
import { fmtMs, round2, summarize, timeAsync, type Summary } from './stats.js';

interface BenchTextQuery {
  readonly query: string;
  readonly regex?: boolean;
  /** Why it is in the set. */
  readonly kind: string;
  /** A known difference between the two regex engines that can make the lines found differ. */
  readonly note?: string;
}

// joined at run time, so that this file (when it is in the corpus) does not match it
const NO_MATCH = ['zqxj', 'no', 'such', 'string'].join('_');

/** Queries that mean something in any code base; regexes use syntax JavaScript and Rust's regex crate read alike. */
const QUERIES: readonly BenchTextQuery[] = [
  { query: 'TODO', kind: 'literal, uppercase (case-sensitive by smart case)' },
  { query: 'return', kind: 'literal, very common (stops at the limit)' },
  { query: 'new Error(', kind: 'literal with punctuation' },
  { query: 'todo', kind: 'literal, case-insensitive' },
  { query: 'http', kind: 'literal, case-insensitive, common' },
  { query: 'function\\s+\\w+\\(', regex: true, kind: 'regex with a required literal', note: "rg's \\w is Unicode (it matches ɵ), JavaScript's is ASCII: rg can find more" },
  { query: '^\\s*import .* from', regex: true, kind: 'regex, anchored' },
  { query: '[0-9]{4}-[0-9]{2}-[0-9]{2}', regex: true, kind: 'regex without a literal' },
  { query: NO_MATCH, kind: 'literal, no match' },
  { query: 'qqq[a-z]+zzz', regex: true, kind: 'regex, no match' },
];

const LIMIT = 1000;
/** Bytes of path arguments per rg process (Linux allows about 2 MB of argv + env). */
const ARG_BYTES = 1_000_000;

function indexedPaths(dbPath: string): string[] {
  const db = openConnection(dbPath, { readonly: true });
  try {
    return db.prepare<[], { path: string }>('SELECT path FROM files ORDER BY path').all().map((r) => r.path);
  } finally {
    db.close();
  }
}

function chunkArgs(paths: readonly string[]): string[][] {
  const out: string[][] = [];
  let cur: string[] = [];
  let bytes = 0;
  for (const p of paths) {
    if (bytes + p.length + 1 > ARG_BYTES && cur.length > 0) {
      out.push(cur);
      cur = [];
      bytes = 0;
    }
    cur.push(p);
    bytes += Buffer.byteLength(p) + 1;
  }
  if (cur.length > 0) out.push(cur);
  return out;
}

/** Runs rg over the file list; returns the output lines (`path:line:text`). */
function runRg(root: string, chunks: readonly string[][], q: BenchTextQuery, caseSensitive: boolean, sorted: boolean): string[] {
  // -a: scry indexed these files as text (binary detection differs: a NUL after 8 KB), so rg reads them as text too
  const flags = ['--no-config', '-a', '-n', '--no-heading', '--with-filename', '--color', 'never', caseSensitive ? '-s' : '-i', ...(q.regex ? [] : ['-F']), ...(sorted ? ['--sort', 'path'] : [])];
  const lines: string[] = [];
  for (const chunk of chunks) {
    const r = spawnSync('rg', [...flags, '-e', q.query, '--', ...chunk], { cwd: root, encoding: 'utf8', maxBuffer: 1 << 30 });
    if (r.error) throw r.error;
    if (r.status !== 0 && r.status !== 1) throw new Error(`rg failed (${r.status}): ${r.stderr.slice(0, 500)}`);
    for (const line of r.stdout.split('\n')) if (line !== '') lines.push(line);
  }
  return lines;
}

/** `path:line` of rg's output lines (the path may contain `:`, the line number is the first all-digit field after it). */
const rgKey = (line: string): string => /^(.*?):(\d+):/.exec(line)?.slice(1, 3).join(':') ?? line;

/** scry's order: path (byte order, as SQLite sorts), then line. */
function byPathLine(a: string, b: string): number {
  const [pa, la] = splitKey(a);
  const [pb, lb] = splitKey(b);
  return pa === pb ? la - lb : Buffer.compare(Buffer.from(pa), Buffer.from(pb));
}
const splitKey = (k: string): [string, number] => {
  const i = k.lastIndexOf(':');
  return [k.slice(0, i), Number(k.slice(i + 1))];
};

interface QueryReport {
  readonly query: string;
  readonly regex: boolean;
  readonly kind: string;
  readonly caseSensitive: boolean;
  readonly scry: Summary;
  readonly rg: Summary;
  /** scry p50 / rg p50: below 1 means scry is faster. */
  readonly ratioP50: number;
  readonly ratioP95: number;
  readonly scryMatches: number;
  readonly scryTruncated: boolean;
  readonly filesScanned: number;
  readonly rgMatches: number;
  /** True when scry's lines equal rg's first `limit` lines in path order. */
  readonly agree: boolean;
  readonly onlyScry: readonly string[];
  readonly onlyRg: readonly string[];
  readonly note: string | null;
}

async function benchQuery(engine: Engine, root: string, chunks: readonly string[][], q: BenchTextQuery, rounds: number): Promise<QueryReport> {
  const opts = { regex: q.regex ?? false, limit: LIMIT };
  const probe: TextSearchResult = await engine.searchText(q.query, opts);
  const cs = probe.caseSensitive;
  for (let i = 0; i < 2; i++) {
    await engine.searchText(q.query, opts);
    runRg(root, chunks, q, cs, false);
  }
  const scryMs: number[] = [];
  const rgMs: number[] = [];
  for (let i = 0; i < rounds; i++) {
    // interleaved, so that a change of machine load hits both alike
    scryMs.push((await timeAsync(() => engine.searchText(q.query, opts))).ms);
    const t0 = performance.now();
    runRg(root, chunks, q, cs, false);
    rgMs.push(performance.now() - t0);
  }
  const rgLines = runRg(root, chunks, q, cs, true).map(rgKey).sort(byPathLine);
  const scryKeys = probe.matches.map((m) => `${m.path}:${m.line}`);
  const expected = rgLines.slice(0, LIMIT);
  const scrySet = new Set(scryKeys);
  const rgSet = new Set(expected);
  const onlyScry = scryKeys.filter((k) => !rgSet.has(k));
  const onlyRg = expected.filter((k) => !scrySet.has(k));
  const scry = summarize(scryMs);
  const rg = summarize(rgMs);
  return {
    query: q.query,
    regex: q.regex ?? false,
    kind: q.kind,
    caseSensitive: cs,
    scry,
    rg,
    ratioP50: round2(scry.p50 / rg.p50),
    ratioP95: round2(scry.p95 / rg.p95),
    scryMatches: probe.matches.length,
    scryTruncated: probe.truncated,
    filesScanned: probe.filesScanned,
    rgMatches: rgLines.length,
    agree: onlyScry.length === 0 && onlyRg.length === 0,
    onlyScry: onlyScry.slice(0, 10),
    onlyRg: onlyRg.slice(0, 10),
    note: q.note ?? null,
  };
}

function rgVersion(): string {
  const r = spawnSync('rg', ['--version'], { encoding: 'utf8' });
  if (r.error) throw new Error('rg is not installed (apt-get install ripgrep)');
  return r.stdout.split('\n')[0] ?? 'unknown';
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const { values } = parseArgs(argv);
  const positional = argv.filter((a, i) => !a.startsWith('--') && !(i > 0 && ['--rounds', '--db'].includes(argv[i - 1]!)));
  const rounds = Number(values.get('rounds') ?? 10);
  const env = environment();
  const rg = rgVersion();
  const work = values.has('db') ? undefined : mkdtempSync(join(tmpdir(), 'scry-bench-text-'));
  const dbPath = values.get('db') ?? join(work!, 'index.db');
  const dir = values.has('db') ? undefined : resolve(positional[0] ?? process.env.SCRY_BENCH_REPO ?? REPO_ROOT);
  const engine = await createEngine({ root: dir, db: dbPath });
  try {
    let indexMs: number | null = null;
    if (work) {
      process.stderr.write(`indexing ${engine.root}...\n`);
      indexMs = Math.round((await timeAsync(() => engine.index())).ms);
    }
    const root = engine.root;
    const paths = indexedPaths(dbPath);
    const status = engine.status();
    const chunks = chunkArgs(paths);
    console.log(`corpus ${root}: ${paths.length} files, ${(status.bytes / 1e6).toFixed(1)} MB; ${rg}, ${chunks.length} rg process(es) per search; load ${env.loadAvg1m.toFixed(2)}`);
    // a fresh engine's first full scan: every body is copied out of SQLite and the engine learns
    // which are NUL-free; later calls (all the rounds below) let SQLite skip non-matching files
    const fresh = await createEngine({ db: dbPath });
    const coldFullScanMs = round2((await timeAsync(() => fresh.searchText(NO_MATCH, { limit: LIMIT }))).ms);
    fresh.close();
    console.log(`first full scan of a fresh engine (no match, cold scan cache): ${fmtMs(coldFullScanMs)}`);
    console.log(`${'query'.padEnd(28)} ${'case'.padEnd(5)} ${'scry p50'.padStart(9)} ${'p95'.padStart(9)} ${'rg p50'.padStart(9)} ${'p95'.padStart(9)} ${'ratio'.padStart(6)}  matches (scry/rg)  agree`);
    const reports: QueryReport[] = [];
    for (const q of QUERIES) {
      const r = await benchQuery(engine, root, chunks, q, rounds);
      reports.push(r);
      const label = (q.regex ? `/${q.query}/` : q.query).slice(0, 28);
      const agree = r.agree ? 'yes' : `NO (${r.onlyScry.length} only scry, ${r.onlyRg.length} only rg, e.g. ${[...r.onlyScry, ...r.onlyRg][0]})${r.note ? `: ${r.note}` : ''}`;
      console.log(
        `${label.padEnd(28)} ${(r.caseSensitive ? 'exact' : 'icase').padEnd(5)} ${fmtMs(r.scry.p50).padStart(9)} ${fmtMs(r.scry.p95).padStart(9)} ${fmtMs(r.rg.p50).padStart(9)} ${fmtMs(r.rg.p95).padStart(9)} ${r.ratioP50.toFixed(2).padStart(6)}  ${`${r.scryMatches}${r.scryTruncated ? '+' : ''}/${r.rgMatches}`.padEnd(17)}  ${agree}`,
      );
    }
    const ratios = reports.map((r) => r.ratioP50).sort((a, b) => a - b);
    const geo = Math.exp(ratios.reduce((s, x) => s + Math.log(x), 0) / ratios.length);
    console.log(`ratio scry/rg (p50): geometric mean ${geo.toFixed(2)}, best ${ratios[0]}, worst ${ratios.at(-1)}`);
    const file = writeResult(`search-text-${basename(root).replace(/[^\w.-]+/g, '_')}`, {
      env, rg, root, files: paths.length, bytes: status.bytes, indexMs, rounds, limit: LIMIT, rgProcesses: chunks.length, coldFullScanMs, geoMeanRatioP50: round2(geo), queries: reports,
    });
    console.log(`wrote ${file}`);
  } finally {
    engine.close();
    if (work) rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
