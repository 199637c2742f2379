/**
 * Warm latency of `related` and `references` (the structure queries) on a ~2,000-file repository,
 * as ratios against a plain lexical `search` of the same name measured in the same run.
 *
 * The repository: copies of this repository's own installed packages (eslint, @eslint, zod,
 * @modelcontextprotocol, dependency-cruiser, @typescript-eslint, ajv, vitest, diff, typescript, @types;
 * ~2,000 files indexed after the denylist) under one temporary
 * root (`pkgs/<name>`: a root named node_modules would be skipped by the denylist; copies, because
 * an index never follows a symlink out of its root). Each query runs once cold, then `--runs`
 * times (default 15); p50/p95 of the warm runs are reported.
 *
 *   npx tsx bench/structure-latency.ts [--runs=15] [--keep=DIR]   # --keep reuses (or keeps) the copied repository and its index
 *
 * With `--db`, an existing index instead (no copy, no index pass; e.g. the npm corpus index that
 * index-throughput.ts keeps): `references` of each `--names` (comma-separated) at each `--limits`
 * (default 50), with the files it parsed, against a search of the same name; each name and limit
 * in a fresh engine: its first call (nothing kept from an earlier call), then repeats.
 *
 *   npx tsx bench/structure-latency.ts --db=PATH --root=DIR --names=minimatch,forEach,require [--limits=50,200] [--runs=5]
 *
 * Each row gives the warm calls' wall p50/p95 and CPU p50 (this process, all threads): on a shared
 * machine, read the CPU.
 *
 * Writes bench/results/structure-latency.json.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngine, type Engine } from '../src/index.js';
import { environment, parseArgs, REPO_ROOT, writeResult } from './results.js';
import { percentile } from './stats.js';

const PACKAGES = ['eslint', '@eslint', 'zod', '@modelcontextprotocol', 'dependency-cruiser', '@typescript-eslint', 'ajv', 'vitest', 'diff', 'typescript', '@types'];
const RELATED = ['pkgs/eslint/lib/linter/linter.js', 'pkgs/eslint/lib/languages/js/source-code/source-code.js', 'pkgs/eslint/lib/rules/no-unused-vars.js'];
const NAMES = ['Linter', 'SourceCode', 'getStaticValue', 'isCommentToken'];

interface Row { readonly op: string; readonly arg: string; readonly coldMs: number; readonly coldCpuMs?: number; readonly p50Ms: number; readonly p95Ms: number; readonly ratioP50: number; readonly cpuP50Ms: number }

/** CPU of this process (all threads), ms. */
const cpuMs = (): number => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
};

/** One cold call, then `runs` warm ones: wall times and the warm calls' CPU. */
async function time(fn: () => Promise<unknown>, runs: number): Promise<{ cold: number; coldCpu: number; warm: number[]; cpu: number[] }> {
  const c0 = cpuMs();
  let t = performance.now();
  await fn();
  const cold = performance.now() - t;
  const coldCpu = cpuMs() - c0;
  const warm: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < runs; i++) {
    const c = cpuMs();
    t = performance.now();
    await fn();
    warm.push(performance.now() - t);
    cpu.push(cpuMs() - c);
  }
  return { cold, coldCpu, warm, cpu };
}

const round1 = (x: number): number => Math.round(x * 10) / 10;

/** `engine` for the references rows; `fresh()` gives each `related` row an engine of its own, so that its cold call keeps nothing from an earlier one. */
async function measure(engine: Engine, fresh: () => Promise<Engine>, runs: number): Promise<Row[]> {
  const rows: Row[] = [];
  // `ref`: the p50 of the reference (a search) the ratio is taken against; none for the reference itself
  const add = async (op: string, arg: string, fn: () => Promise<unknown>, ref?: number): Promise<number> => {
    const { cold, coldCpu, warm, cpu } = await time(fn, runs);
    const p50 = percentile(warm, 50);
    rows.push({ op, arg, coldMs: Math.round(cold), coldCpuMs: round1(coldCpu), p50Ms: round1(p50), p95Ms: round1(percentile(warm, 95)), ratioP50: ref ? Math.round((p50 / ref) * 100) / 100 : 1, cpuP50Ms: round1(percentile(cpu, 50)) });
    process.stderr.write(`${op} ${arg}: cold ${cold.toFixed(0)} ms, p50 ${p50.toFixed(1)} ms, CPU p50 ${percentile(cpu, 50).toFixed(1)} ms\n`);
    return p50;
  };
  for (const name of NAMES) {
    const ref = await add('search', name, () => engine.search(name, { limit: 10 }));
    await add('references', name, () => engine.references(name, { limit: 50 }), ref);
  }
  for (const path of RELATED) {
    const name = path.slice(path.lastIndexOf('/') + 1, path.lastIndexOf('.'));
    const own = await fresh();
    try {
      const ref = await add('search', name, () => own.search(name, { limit: 10 }));
      await add('related', path, () => own.related(path, { limit: 20 }), ref);
    } finally {
      own.close();
    }
  }
  return rows;
}

/**
 * `references` per name and limit on an existing index, against a search of the name: each in a
 * fresh engine, so that the first call (`first`) finds nothing kept from an earlier one (the
 * engine's UsesCache); the warm runs after it are repeats. Grammars load once per process: a
 * throwaway engine looks every name up once before the first row.
 */
async function measureExisting(db: string, root: string, names: readonly string[], limits: readonly number[], runs: number): Promise<void> {
  const warmup = await createEngine({ root, db, env: {} });
  try {
    for (const name of names) await warmup.references(name, { limit: 1 });
  } finally {
    warmup.close();
  }
  const rows: Array<Row & { limit: number; firstMs: number; firstCpuMs: number; parsed: number; total: number; files: number; truncated: boolean }> = [];
  for (const name of names) {
    for (const limit of limits) {
      const engine = await createEngine({ root, db, env: {} });
      try {
        const { warm: sw } = await time(() => engine.search(name, { limit: 10 }), runs);
        const ref = percentile(sw, 50);
        const [c, t] = [cpuMs(), performance.now()];
        const r = await engine.references(name, { limit });
        const [firstMs, firstCpuMs] = [performance.now() - t, cpuMs() - c];
        const { cold, warm, cpu } = await time(() => engine.references(name, { limit }), runs);
        const p50 = percentile(warm, 50);
        rows.push({ op: 'references', arg: name, limit, firstMs: round1(firstMs), firstCpuMs: round1(firstCpuMs), coldMs: Math.round(cold), p50Ms: round1(p50), p95Ms: round1(percentile(warm, 95)), ratioP50: Math.round((p50 / ref) * 100) / 100, cpuP50Ms: round1(percentile(cpu, 50)), parsed: r.parsed, total: r.total, files: r.files.length, truncated: r.truncated });
        process.stderr.write(`references ${name} limit ${limit}: first ${firstMs.toFixed(1)} ms (CPU ${firstCpuMs.toFixed(1)}), repeat p50 ${p50.toFixed(1)} ms (CPU ${percentile(cpu, 50).toFixed(1)}), search ${ref.toFixed(1)} ms; ${r.total} refs in ${r.files.length} files, parsed ${r.parsed}${r.truncated ? ', truncated' : ''}\n`);
      } finally {
        engine.close();
      }
    }
  }
  const file = writeResult('structure-latency-existing', { env: environment(), runs, db, rows });
  const line = (r: (typeof rows)[number]): string =>
    `${r.arg.padEnd(16)} limit ${String(r.limit).padStart(4)}  first CPU ${String(r.firstCpuMs).padStart(7)} ms (wall ${String(r.firstMs).padStart(7)})  repeat CPU p50 ${String(r.cpuP50Ms).padStart(7)} ms (wall p50 ${String(r.p50Ms).padStart(7)})  ×search ${String(r.ratioP50).padStart(6)}  refs ${r.total} in ${r.files} files, parsed ${r.parsed}${r.truncated ? ' (truncated)' : ''}`;
  process.stdout.write(`${rows.map(line).join('\n')}\nwrote ${file}\n`);
}

async function main(): Promise<void> {
  const { values } = parseArgs(process.argv.slice(2));
  const runs = Number(values.get('runs') ?? 15);
  const existing = values.get('db');
  if (existing) {
    const names = (values.get('names') ?? NAMES.join(',')).split(',').filter(Boolean);
    const limits = (values.get('limits') ?? '50').split(',').map(Number);
    return measureExisting(existing, values.get('root') ?? process.cwd(), names, limits, Number(values.get('runs') ?? 5));
  }
  const keep = values.get('keep');
  const dir = keep ?? mkdtempSync(join(tmpdir(), 'scry-bench-structure-'));
  const root = join(dir, 'repo');
  try {
    if (!existsSync(root)) {
      for (const p of PACKAGES) {
        mkdirSync(join(root, 'pkgs', p, '..'), { recursive: true });
        cpSync(join(REPO_ROOT, 'node_modules', p), join(root, 'pkgs', p), { recursive: true, dereference: true, filter: (src) => !src.slice(join(REPO_ROOT, 'node_modules', p).length).includes('node_modules') });
      }
    }
    const engine = await createEngine({ root, db: join(dir, 'index.db'), env: {} });
    const report = await engine.index();
    process.stderr.write(`indexed ${report.filesIndexed} files (${report.durationMs} ms)\n`);
    const status = await engine.status();
    const rows = await measure(engine, () => createEngine({ root, db: join(dir, 'index.db'), env: {} }), runs);
    engine.close();
    const file = writeResult('structure-latency', { env: environment(), runs, files: status.files, dbBytes: status.dbBytes, rows });
    process.stdout.write(`${rows.map((r) => `${r.op.padEnd(10)} ${r.arg.padEnd(45)} cold ${String(r.coldMs).padStart(6)} ms (CPU ${String(r.coldCpuMs).padStart(6)})  CPU p50 ${String(r.cpuP50Ms).padStart(7)} ms  p50 ${String(r.p50Ms).padStart(7)} ms  p95 ${String(r.p95Ms).padStart(7)} ms  ×search ${r.ratioP50}`).join('\n')}\nwrote ${file}\n`);
  } finally {
    if (!keep) rmSync(dir, { recursive: true, force: true });
  }
}

await main();
