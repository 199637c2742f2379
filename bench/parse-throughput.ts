/**
 * Code-structure throughput on the pinned corpus (bench/corpus.ts), in one thread, against two
 * same-run references: scry's line-window chunker (config `syntax: false`) and universal-ctags.
 *
 *   npx tsx bench/parse-throughput.ts                 every code file with a grammar (~25K files)
 *   npx tsx bench/parse-throughput.ts --files 2000    an evenly spaced sample of 2000 of them
 *                                                     (or SCRY_BENCH_FILES=2000)
 *   npx tsx bench/parse-throughput.ts --skip-ctags    no ctags run
 *   npx tsx bench/parse-throughput.ts --progress-callback
 *                                                     also time a bare parse with the work-meter
 *                                                     callback that scry passes (callback cost)
 *
 * The file list is what the indexer would index: walk() with the default config, then
 * readCandidate() (decode, binary/minified/secret refusal, shebang languages), keeping the files
 * whose language has a tree-sitter grammar. For each file, in the main thread and interleaved so
 * that load changes hit every measure alike:
 *   - read: readCandidate() (disk/page cache, decode, hash), timed apart;
 *   - structure: createFileParser(chunk, grammars).parse() — tree-sitter parse, definition and
 *     import queries, AST chunking, symbols: what prepareBatch() does per file minus FTS fields;
 *   - parse alone: grammar.parser.parse(text) on the same text (tree deleted); "rest" is
 *     structure − parse alone: queries, chunking, symbols, and the work-meter callback overhead;
 *   - window: createFileParser(chunk, undefined).parse(), the `syntax: false` path.
 * Then ctags (`--output-format=u-ctags --fields=+n`, default languages plus the extensions scry
 * calls TypeScript/JavaScript that ctags does not map by default) over exactly the same list,
 * counting tag lines; its wall time includes reading the files and writing the tags file.
 * Writes bench/results/parse-throughput.json.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import type { FileCandidate } from '../src/core/file.js';
import type { FallbackReason } from '../src/core/chunk.js';
import { resolveConfig } from '../src/config/resolve.js';
import { readCandidate } from '../src/discover/read.js';
import { walk } from '../src/discover/walk.js';
import { createFileParser } from '../src/parse/chunker.js';
import { grammarFailures, loadGrammars } from '../src/parse/grammars.js';
import { languageSpec, parsedLanguages } from '../src/parse/languages/registry.js';
import { monotonicClock, PARSE_LIMITS, PARSE_TIMEOUT_MS, workMeter } from '../src/parse/parse-budget.js';
import { ensureCorpus } from './corpus.js';
import { environment, parseArgs, writeResult } from './results.js';
import { fmtMB, fmtMs, MB, round2, RssSampler, timeSync } from './stats.js';

const CTAGS = '/usr/bin/ctags';
const GNU_TIME = '/usr/bin/time';
/** Extensions scry parses as TypeScript/JavaScript that ctags 5.9 does not map by default. */
const CTAGS_MAPS = ['--map-TypeScript=+.mts', '--map-TypeScript=+.cts', '--map-TypeScript=+.tsx', '--map-JavaScript=+.cjs'];
const CTAGS_ARGS = ['--output-format=u-ctags', '--fields=+n', ...CTAGS_MAPS];
const SLOWEST = 10;

/** `--files N`, `--files=N` or `$SCRY_BENCH_FILES`; 0 = all. */
function fileLimit(argv: readonly string[], values: Map<string, string>): number {
  const i = argv.indexOf('--files');
  const raw = values.get('files') ?? (i !== -1 ? argv[i + 1] : undefined) ?? process.env.SCRY_BENCH_FILES;
  if (raw === undefined) return 0;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new Error(`--files: expected a whole number, got ${raw}`);
  return n;
}

/** `n` items spread evenly over the list (the walk is sorted: a prefix would be one package). */
function spread<T>(items: readonly T[], n: number): T[] {
  if (n === 0 || n >= items.length) return [...items];
  const step = items.length / n;
  return Array.from({ length: n }, (_, i) => items[Math.floor(i * step)]!);
}

interface Totals {
  files: number;
  bytes: number;
  readMs: number;
  structureMs: number;
  parseMs: number;
  parseCallbackMs: number;
  windowMs: number;
  /** CPU time (user+sys of the process: this thread plus V8's helper threads) of the same calls. */
  readCpuMs: number;
  structureCpuMs: number;
  parseCpuMs: number;
  windowCpuMs: number;
  symbols: number;
  imports: number;
  chunks: number;
  windowChunks: number;
  fallbacks: number;
}

const emptyTotals = (): Totals => ({ files: 0, bytes: 0, readMs: 0, structureMs: 0, parseMs: 0, parseCallbackMs: 0, windowMs: 0, readCpuMs: 0, structureCpuMs: 0, parseCpuMs: 0, windowCpuMs: 0, symbols: 0, imports: 0, chunks: 0, windowChunks: 0, fallbacks: 0 });

interface FileTiming {
  readonly path: string;
  readonly language: string;
  readonly bytes: number;
  readonly structureMs: number;
  readonly parseMs: number;
  readonly windowMs: number;
  readonly symbols: number;
  readonly chunks: number;
  readonly fallback: FallbackReason | null;
}

/** Keeps the `k` largest by `key`. */
class TopK<T> {
  readonly items: T[] = [];
  constructor(
    private readonly k: number,
    private readonly key: (t: T) => number,
  ) {}
  add(item: T): void {
    if (this.items.length === this.k && this.key(item) <= this.key(this.items[this.items.length - 1]!)) return;
    this.items.push(item);
    this.items.sort((a, b) => this.key(b) - this.key(a));
    if (this.items.length > this.k) this.items.pop();
  }
}

/** Wall and CPU time of one call. */
function measure<T>(fn: () => T): { ms: number; cpuMs: number; value: T } {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const value = fn();
  const ms = performance.now() - t0;
  const c = process.cpuUsage(c0);
  return { ms, cpuMs: (c.user + c.system) / 1000, value };
}

const mbps = (bytes: number, ms: number): number => round2(bytes / MB / (ms / 1000));
const perSec = (n: number, ms: number): number => Math.round(n / (ms / 1000));
const ratio = (a: number, b: number): number => Math.round((a / b) * 100) / 100;
const pad = (s: string | number, n: number): string => String(s).padStart(n);
const padEnd = (s: string | number, n: number): string => String(s).padEnd(n);

interface CtagsRun {
  readonly command: string;
  readonly wallMs: number;
  readonly userMs: number | null;
  readonly sysMs: number | null;
  readonly maxRssBytes: number | null;
  readonly tags: number;
  readonly pseudoTags: number;
  readonly tagsFileBytes: number;
  readonly unmappedFiles: number;
  readonly unmappedExamples: string[];
  readonly exitCode: number | null;
  readonly stderr: string;
}

/** Counts lines of a (possibly large) file without holding it, and the `!_` pseudo-tag lines. */
function countTagLines(file: string): { tags: number; pseudo: number; bytes: number } {
  const fd = openSync(file, 'r');
  const buf = Buffer.allocUnsafe(1 << 20);
  let lines = 0;
  let pseudo = 0;
  let bytes = 0;
  let col = 0; // position in the current line, counted up to 2
  let first = 0;
  try {
    for (;;) {
      const n = readSync(fd, buf, 0, buf.length, null);
      if (n === 0) break;
      bytes += n;
      for (let i = 0; i < n; i++) {
        const b = buf[i]!;
        if (b === 10) {
          lines++;
          col = 0;
        } else if (col < 2) {
          if (col === 0) first = b;
          else if (first === 0x21 && b === 0x5f) pseudo++; // "!_"
          col++;
        }
      }
    }
  } finally {
    closeSync(fd);
  }
  return { tags: lines - pseudo, pseudo, bytes };
}

function runCtags(root: string, paths: readonly string[]): CtagsRun {
  const dir = mkdtempSync(join(tmpdir(), 'scry-bench-ctags-'));
  try {
    const list = join(dir, 'files.txt');
    const tags = join(dir, 'tags');
    writeFileSync(list, `${paths.join('\n')}\n`);
    // which files ctags maps to no language (their tags would be missing from the count)
    const langs = spawnSync(CTAGS, [...CTAGS_MAPS, '--print-language', '-L', list], { cwd: root, encoding: 'utf8', maxBuffer: 256 * MB });
    const unmapped = (langs.stdout ?? '').split('\n').filter((l) => l.endsWith(': NONE')).map((l) => l.slice(0, -': NONE'.length));
    const args = [...CTAGS_ARGS, '-f', tags, '-L', list];
    const timed = existsSync(GNU_TIME);
    const t0 = performance.now();
    const run = timed
      ? spawnSync(GNU_TIME, ['-f', 'SCRYTIME %e %U %S %M', CTAGS, ...args], { cwd: root, encoding: 'utf8', maxBuffer: 64 * MB })
      : spawnSync(CTAGS, args, { cwd: root, encoding: 'utf8', maxBuffer: 64 * MB });
    const wallMs = performance.now() - t0;
    const stderrLines = (run.stderr ?? '').split('\n');
    const time = stderrLines.find((l) => l.startsWith('SCRYTIME '))?.split(' ');
    const counted = existsSync(tags) ? countTagLines(tags) : { tags: 0, pseudo: 0, bytes: 0 };
    return {
      command: `cd ${root} && ctags ${CTAGS_ARGS.join(' ')} -f <tmp>/tags -L <tmp>/files.txt`,
      wallMs,
      userMs: time ? Number(time[2]) * 1000 : null,
      sysMs: time ? Number(time[3]) * 1000 : null,
      maxRssBytes: time ? Number(time[4]) * 1024 : null,
      tags: counted.tags,
      pseudoTags: counted.pseudo,
      tagsFileBytes: counted.bytes,
      unmappedFiles: unmapped.length,
      unmappedExamples: unmapped.slice(0, 5),
      exitCode: run.status,
      stderr: stderrLines.filter((l) => l && !l.startsWith('SCRYTIME ')).slice(0, 20).join('\n'),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const { flags, values } = parseArgs(argv);
  const limit = fileLimit(argv, values);
  const withCallback = flags.has('progress-callback');
  const env = environment();
  const loadStart = loadavg();
  const corpus = ensureCorpus();
  // the db is never opened; resolveConfig only needs one so as not to derive a cache path
  const config = await resolveConfig({ root: corpus.root, db: join(corpus.dir, 'preview-unused.db') });
  const root = config.root!;

  // 1. the indexer's file list
  const candidates: FileCandidate[] = [];
  const walked = timeSync(() => walk({ root, maxFileBytes: config.maxFileBytes, ignore: config.ignore, denylist: config.denylist }, { file: (c) => candidates.push(c), skip: () => {} }));
  // languages are refined from a shebang only for 'text' files: those are read to find out
  const eligible = candidates.filter((c) => {
    if (languageSpec(c.language)) return true;
    if (c.language !== 'text') return false;
    const r = readCandidate(root, c, config.maxFileBytes);
    return r.ok && languageSpec(r.language) !== undefined;
  });
  const selected = spread(eligible, limit);
  console.log(`corpus ${root}: ${candidates.length} files walked in ${fmtMs(walked.ms)}; ${eligible.length} have a grammar'd language${limit ? `, ${selected.length} sampled evenly` : ''}`);
  console.log(`load average ${loadStart.map((x) => x.toFixed(2)).join(' ')} (1/5/15 min) at start, ${env.cpus} cpus`);

  // 2. grammars: loaded once per thread, like a worker does on its first batch
  const languages = [...new Set(selected.map((c) => c.language).filter((l) => languageSpec(l)))];
  const grammarLoad = await (async () => {
    const t0 = performance.now();
    const grammars = await loadGrammars(parsedLanguages());
    return { ms: performance.now() - t0, grammars };
  })();
  const grammars = grammarLoad.grammars;
  const failures = [...grammarFailures()];
  console.log(`grammars     ${grammars.size}/${parsedLanguages().length} loaded in ${fmtMs(grammarLoad.ms)}${failures.length ? `; FAILED: ${JSON.stringify(failures)}` : ''}`);

  const fallbackNotes: Array<{ language: string; reason: FallbackReason; path: string; detail?: string | undefined }> = [];
  const structure = createFileParser(config.chunk, grammars, (language, reason, path, detail) => fallbackNotes.push({ language, reason, path, detail }));
  const window = createFileParser(config.chunk, undefined);

  let gcMs = 0;
  let gcCount = 0;
  const gc = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      gcMs += e.duration;
      gcCount++;
    }
  });
  gc.observe({ entryTypes: ['gc'] });
  const rss = new RssSampler();
  rss.start();

  // 3. the measured loop
  const total = emptyTotals();
  const byLanguage = new Map<string, Totals>();
  const skippedOnRead: Record<string, number> = {};
  const slowestStructure = new TopK<FileTiming>(SLOWEST, (f) => f.structureMs);
  const slowestRest = new TopK<FileTiming>(SLOWEST, (f) => f.structureMs - f.parseMs);
  const fallbackByReason: Record<string, number> = {};
  const listed: string[] = [];
  const loopStart = performance.now();
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < selected.length; i++) {
    const c = selected[i]!;
    const r = measure(() => readCandidate(root, c, config.maxFileBytes));
    const read = r.value;
    if (!read.ok) {
      skippedOnRead[read.reason] = (skippedOnRead[read.reason] ?? 0) + 1;
      continue;
    }
    const grammar = grammars.get(read.language);
    if (!grammar) {
      skippedOnRead[`no_grammar:${read.language}`] = (skippedOnRead[`no_grammar:${read.language}`] ?? 0) + 1;
      continue;
    }
    listed.push(c.path);
    const input = { path: c.path, language: read.language, contentType: read.contentType, text: read.text };
    const timeStructure = () => measure(() => structure.parse(input));
    const timeParse = () =>
      measure(() => {
        const tree = grammar.parser.parse(read.text);
        tree?.delete();
      });
    // alternate which runs first, so that neither always finds the text warm in cache
    let s: ReturnType<typeof timeStructure>;
    let p: ReturnType<typeof timeParse>;
    if (i % 2 === 0) {
      s = timeStructure();
      p = timeParse();
    } else {
      p = timeParse();
      s = timeStructure();
    }
    const parseMs = p.ms;
    let parseCallbackMs = 0;
    if (withCallback) {
      parseCallbackMs = timeSync(() => {
        const meter = workMeter(PARSE_LIMITS.parseWork, monotonicClock, monotonicClock.now() + PARSE_TIMEOUT_MS);
        const tree = grammar.parser.parse(read.text, null, { progressCallback: meter.tick });
        tree?.delete();
      }).ms;
    }
    const w = measure(() => window.parse(input));
    const parsed = s.value;
    const t: Totals = byLanguage.get(read.language) ?? emptyTotals();
    byLanguage.set(read.language, t);
    for (const agg of [total, t]) {
      agg.files++;
      agg.bytes += read.size;
      agg.readMs += r.ms;
      agg.readCpuMs += r.cpuMs;
      agg.structureCpuMs += s.cpuMs;
      agg.parseCpuMs += p.cpuMs;
      agg.windowCpuMs += w.cpuMs;
      agg.structureMs += s.ms;
      agg.parseMs += parseMs;
      agg.parseCallbackMs += parseCallbackMs;
      agg.windowMs += w.ms;
      agg.symbols += parsed.symbols.length;
      agg.imports += parsed.imports.length;
      agg.chunks += parsed.chunks.length;
      agg.windowChunks += w.value.chunks.length;
      if (parsed.fallback) agg.fallbacks++;
    }
    if (parsed.fallback) fallbackByReason[parsed.fallback] = (fallbackByReason[parsed.fallback] ?? 0) + 1;
    const timing: FileTiming = {
      path: c.path,
      language: read.language,
      bytes: read.size,
      structureMs: round2(s.ms),
      parseMs: round2(parseMs),
      windowMs: round2(w.ms),
      symbols: parsed.symbols.length,
      chunks: parsed.chunks.length,
      fallback: parsed.fallback ?? null,
    };
    slowestStructure.add(timing);
    slowestRest.add(timing);
    if (i % 250 === 0) {
      rss.sample();
      await new Promise((r) => setImmediate(r)); // lets the gc observer and the rss timer run
    }
    if (i > 0 && i % 5000 === 0) process.stderr.write(`  ${i}/${selected.length} files, ${fmtMs(performance.now() - loopStart)}\n`);
  }
  const loopMs = performance.now() - loopStart;
  const loopCpu = process.cpuUsage(cpu0);
  const loopCpuMs = (loopCpu.user + loopCpu.system) / 1000;
  await new Promise((r) => setImmediate(r));
  gc.disconnect();
  const memory = rss.stop();
  const loadAfterScry = loadavg();

  // 4. ctags on exactly the same files
  const ctags = flags.has('skip-ctags') || !existsSync(CTAGS) ? undefined : runCtags(root, listed);
  const loadEnd = loadavg();

  // 5. report
  const restMs = total.structureMs - total.parseMs;
  const row = (name: string, t: Totals): string =>
    [
      padEnd(name, 11),
      pad(t.files, 6),
      pad((t.bytes / MB).toFixed(1), 7),
      pad(mbps(t.bytes, t.structureMs).toFixed(2), 7),
      pad(mbps(t.bytes, t.parseMs).toFixed(2), 7),
      pad(`${Math.round(((t.structureMs - t.parseMs) / t.structureMs) * 100)}%`, 6),
      pad(perSec(t.files, t.structureMs), 7),
      pad(t.symbols, 8),
      pad(perSec(t.symbols, t.structureMs), 8),
      pad(t.chunks, 8),
      pad(t.windowChunks, 8),
      pad(mbps(t.bytes, t.windowMs).toFixed(1), 7),
      pad(`${ratio(t.structureMs, t.windowMs)}x`, 7),
      pad(t.fallbacks, 5),
    ].join(' ');
  console.log('');
  console.log('tree-sitter structure (parse + queries + chunks + symbols) vs line windows, one thread; time excludes reading');
  console.log([padEnd('language', 11), pad('files', 6), pad('MB', 7), pad('MB/s', 7), pad('parse', 7), pad('rest', 6), pad('files/s', 7), pad('symbols', 8), pad('sym/s', 8), pad('chunks', 8), pad('windows', 8), pad('win MB/s', 7), pad('struct/win', 7), pad('fallb', 5)].join(' '));
  const langs = [...byLanguage.entries()].sort((a, b) => b[1].bytes - a[1].bytes);
  for (const [lang, t] of langs) console.log(row(lang, t));
  console.log(row('ALL', total));
  console.log('  MB/s = structure throughput; parse = MB/s of grammar.parser.parse() alone; rest = share of structure time outside the bare parse');
  console.log('');
  console.log(`structure     ${fmtMs(total.structureMs)} for ${total.files} files, ${fmtMB(total.bytes)}: ${mbps(total.bytes, total.structureMs)} MB/s, ${perSec(total.files, total.structureMs)} files/s, ${perSec(total.symbols, total.structureMs)} symbols/s, ${total.symbols} symbols, ${total.imports} imports, ${total.chunks} chunks`);
  console.log(`  parse alone ${fmtMs(total.parseMs)} (${mbps(total.bytes, total.parseMs)} MB/s, ${Math.round((total.parseMs / total.structureMs) * 100)}%); rest ${fmtMs(restMs)} (${Math.round((restMs / total.structureMs) * 100)}%)`);
  if (withCallback) console.log(`  parse with work-meter callback ${fmtMs(total.parseCallbackMs)} (${ratio(total.parseCallbackMs, total.parseMs)}x the bare parse)`);
  console.log(`window        ${fmtMs(total.windowMs)}: ${mbps(total.bytes, total.windowMs)} MB/s, ${total.windowChunks} chunks  →  structure/window time = ${ratio(total.structureMs, total.windowMs)}x`);
  console.log(
    `cpu time      structure ${fmtMs(total.structureCpuMs)} (${mbps(total.bytes, total.structureCpuMs)} MB/s), parse alone ${fmtMs(total.parseCpuMs)} (${mbps(total.bytes, total.parseCpuMs)} MB/s), window ${fmtMs(total.windowCpuMs)}; wall/cpu ${ratio(total.structureMs + total.parseMs + total.windowMs, total.structureCpuMs + total.parseCpuMs + total.windowCpuMs)} (> 1: waiting for a core)`,
  );
  console.log(`read          ${fmtMs(total.readMs)} (readCandidate: read, hash, decode, secret check): ${mbps(total.bytes, total.readMs)} MB/s`);
  console.log(`loop          ${fmtMs(loopMs)} wall, ${fmtMs(loopCpuMs)} cpu (all measures, ${gcCount} GCs, ${fmtMs(gcMs)} in GC)`);
  console.log(`fallbacks     ${total.fallbacks} ${JSON.stringify(fallbackByReason)}`);
  for (const f of fallbackNotes.slice(0, 10)) console.log(`  ${f.reason} ${f.language} ${f.path}${f.detail ? ` (${f.detail.slice(0, 120)})` : ''}`);
  if (Object.keys(skippedOnRead).length) console.log(`not parsed    ${JSON.stringify(skippedOnRead)}`);
  console.log(`peak RSS      process max ${fmtMB(memory.maxRssBytes)}, sampled ${fmtMB(memory.sampledPeakBytes)}`);
  console.log('slowest files (structure ms / bare parse ms / window ms):');
  for (const f of slowestStructure.items) console.log(`  ${pad(f.structureMs.toFixed(1), 8)} ${pad(f.parseMs.toFixed(1), 8)} ${pad(f.windowMs.toFixed(1), 6)}  ${pad((f.bytes / 1024).toFixed(0), 5)} KB  ${f.symbols} sym ${f.chunks} chunks${f.fallback ? ` FALLBACK ${f.fallback}` : ''}  ${f.path}`);
  console.log('largest rest (structure − bare parse):');
  for (const f of slowestRest.items.slice(0, 5)) console.log(`  ${pad((f.structureMs - f.parseMs).toFixed(1), 8)} ms  ${pad((f.bytes / 1024).toFixed(0), 5)} KB  ${f.symbols} sym ${f.chunks} chunks  ${f.path}`);

  let vsCtags: Record<string, number> | undefined;
  if (ctags) {
    const cpu = ctags.userMs !== null && ctags.sysMs !== null ? ctags.userMs + ctags.sysMs : null;
    console.log('');
    console.log(`ctags         ${ctags.command}`);
    console.log(
      `  ${fmtMs(ctags.wallMs)} wall${cpu !== null ? ` (${fmtMs(cpu)} cpu)` : ''}, ${ctags.tags} tags (+${ctags.pseudoTags} pseudo), ${perSec(ctags.tags, ctags.wallMs)} tags/s, ${mbps(total.bytes, ctags.wallMs)} MB/s, peak RSS ${ctags.maxRssBytes !== null ? fmtMB(ctags.maxRssBytes) : '?'}, tags file ${fmtMB(ctags.tagsFileBytes)}, exit ${ctags.exitCode}`,
    );
    if (ctags.unmappedFiles) console.log(`  ${ctags.unmappedFiles} files mapped to no ctags language, e.g. ${ctags.unmappedExamples.join(', ')}`);
    if (ctags.stderr) console.log(`  stderr: ${ctags.stderr.split('\n').slice(0, 5).join(' | ')}`);
    vsCtags = {
      mbPerSec: ratio(mbps(total.bytes, total.structureMs), mbps(total.bytes, ctags.wallMs)),
      mbPerSecInclRead: ratio(mbps(total.bytes, total.structureMs + total.readMs), mbps(total.bytes, ctags.wallMs)),
      symbolsPerSec: ratio(perSec(total.symbols, total.structureMs), perSec(ctags.tags, ctags.wallMs)),
      symbols: ratio(total.symbols, ctags.tags),
      ...(cpu !== null ? { cpuMbPerSec: ratio(mbps(total.bytes, total.structureCpuMs), mbps(total.bytes, cpu)), cpuSymbolsPerSec: ratio(perSec(total.symbols, total.structureCpuMs), perSec(ctags.tags, cpu)) } : {}),
    };
    console.log(
      `  scry/ctags  wall: MB/s ${vsCtags.mbPerSec}x (scry incl. read: ${vsCtags.mbPerSecInclRead}x), symbols/s ${vsCtags.symbolsPerSec}x${vsCtags.cpuMbPerSec !== undefined ? `; cpu: MB/s ${vsCtags.cpuMbPerSec}x, symbols/s ${vsCtags.cpuSymbolsPerSec}x` : ''}; symbols found ${vsCtags.symbols}x`,
    );
  }
  console.log(`load average ${loadEnd.map((x) => x.toFixed(2)).join(' ')} at end (after scry: ${loadAfterScry.map((x) => x.toFixed(2)).join(' ')})`);

  const summary = (t: Totals) => ({
    files: t.files,
    bytes: t.bytes,
    structureMs: Math.round(t.structureMs),
    parseMs: Math.round(t.parseMs),
    restMs: Math.round(t.structureMs - t.parseMs),
    windowMs: Math.round(t.windowMs),
    readMs: Math.round(t.readMs),
    structureCpuMs: Math.round(t.structureCpuMs),
    parseCpuMs: Math.round(t.parseCpuMs),
    windowCpuMs: Math.round(t.windowCpuMs),
    readCpuMs: Math.round(t.readCpuMs),
    cpuMbPerSec: mbps(t.bytes, t.structureCpuMs),
    ...(withCallback ? { parseWithCallbackMs: Math.round(t.parseCallbackMs) } : {}),
    mbPerSec: mbps(t.bytes, t.structureMs),
    parseMbPerSec: mbps(t.bytes, t.parseMs),
    windowMbPerSec: mbps(t.bytes, t.windowMs),
    filesPerSec: perSec(t.files, t.structureMs),
    symbols: t.symbols,
    symbolsPerSec: perSec(t.symbols, t.structureMs),
    imports: t.imports,
    chunks: t.chunks,
    windowChunks: t.windowChunks,
    fallbacks: t.fallbacks,
    structureToWindow: ratio(t.structureMs, t.windowMs),
  });
  const file = writeResult('parse-throughput', {
    env,
    loadAvg: { start: loadStart, afterScry: loadAfterScry, end: loadEnd },
    corpus: { root, treeHash: corpus.treeHash, installedPackages: corpus.installedPackages },
    selection: { walkedFiles: candidates.length, walkMs: Math.round(walked.ms), eligibleFiles: eligible.length, limit, selectedFiles: selected.length, parsedFiles: total.files, skippedOnRead, extensions: countExtensions(listed) },
    grammars: { loaded: [...grammars.keys()], languagesInSample: languages, loadMs: Math.round(grammarLoad.ms), failures: Object.fromEntries(failures) },
    parseLimits: PARSE_LIMITS,
    parseTimeoutMs: PARSE_TIMEOUT_MS,
    structure: summary(total),
    byLanguage: Object.fromEntries(langs.map(([l, t]) => [l, summary(t)])),
    fallbacks: { byReason: fallbackByReason, notes: fallbackNotes.slice(0, 50) },
    loop: { wallMs: Math.round(loopMs), cpuMs: Math.round(loopCpuMs), gcMs: Math.round(gcMs), gcCount },
    memory,
    slowestStructure: slowestStructure.items,
    largestRest: slowestRest.items.map((f) => ({ ...f, restMs: round2(f.structureMs - f.parseMs) })),
    ctags: ctags ? { ...ctags, tagsPerSec: perSec(ctags.tags, ctags.wallMs), mbPerSec: mbps(total.bytes, ctags.wallMs) } : null,
    scryVsCtags: vsCtags ?? null,
  });
  console.log(`wrote ${file}`);
}

function countExtensions(paths: readonly string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const p of paths) {
    const ext = p.endsWith('.d.ts') ? '.d.ts' : extname(p) || '(none)';
    out[ext] = (out[ext] ?? 0) + 1;
  }
  return Object.fromEntries(Object.entries(out).sort((a, b) => b[1] - a[1]));
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
