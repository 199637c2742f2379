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

interface Row { readonly op: string; readonly arg: string; readonly coldMs: number; readonly p50Ms: number; readonly p95Ms: number; readonly ratioP50: number }

async function time(fn: () => Promise<unknown>, runs: number): Promise<{ cold: number; warm: number[] }> {
  let t = performance.now();
  await fn();
  const cold = performance.now() - t;
  const warm: number[] = [];
  for (let i = 0; i < runs; i++) {
    t = performance.now();
    await fn();
    warm.push(performance.now() - t);
  }
  return { cold, warm };
}

async function measure(engine: Engine, runs: number): Promise<Row[]> {
  const rows: Row[] = [];
  // `ref`: the p50 of the reference (a search) the ratio is taken against; none for the reference itself
  const add = async (op: string, arg: string, fn: () => Promise<unknown>, ref?: number): Promise<number> => {
    const { cold, warm } = await time(fn, runs);
    const p50 = percentile(warm, 50);
    rows.push({ op, arg, coldMs: Math.round(cold), p50Ms: Math.round(p50 * 10) / 10, p95Ms: Math.round(percentile(warm, 95) * 10) / 10, ratioP50: ref ? Math.round((p50 / ref) * 100) / 100 : 1 });
    process.stderr.write(`${op} ${arg}: cold ${cold.toFixed(0)} ms, p50 ${p50.toFixed(1)} ms\n`);
    return p50;
  };
  for (const name of NAMES) {
    const ref = await add('search', name, () => engine.search(name, { limit: 10 }));
    await add('references', name, () => engine.references(name, { limit: 50 }), ref);
  }
  for (const path of RELATED) {
    const name = path.slice(path.lastIndexOf('/') + 1, path.lastIndexOf('.'));
    const ref = await add('search', name, () => engine.search(name, { limit: 10 }));
    await add('related', path, () => engine.related(path, { limit: 20 }), ref);
  }
  return rows;
}

async function main(): Promise<void> {
  const { values } = parseArgs(process.argv.slice(2));
  const runs = Number(values.get('runs') ?? 15);
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
    const rows = await measure(engine, runs);
    engine.close();
    const file = writeResult('structure-latency', { env: environment(), runs, files: status.files, dbBytes: status.dbBytes, rows });
    process.stdout.write(`${rows.map((r) => `${r.op.padEnd(10)} ${r.arg.padEnd(45)} cold ${String(r.coldMs).padStart(6)} ms  p50 ${String(r.p50Ms).padStart(7)} ms  p95 ${String(r.p95Ms).padStart(7)} ms  ×search ${r.ratioP50}`).join('\n')}\nwrote ${file}\n`);
  } finally {
    if (!keep) rmSync(dir, { recursive: true, force: true });
  }
}

await main();
