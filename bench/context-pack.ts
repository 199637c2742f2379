/**
 * Does the context pack carry the answer? On the golden set (test/quality/queries.json, file-level
 * gold) and the development benchmark (bench/devset/, function-span gold where mined), per token
 * budget: how often `engine.context()` puts the expected code in the pack, against the plain top-k
 * list cut to the same budget.
 *
 *   npx tsx bench/context-pack.ts [--budgets 2000,4000,8000] [--per-file 2] [--golden-only] [--devset-only] [--mirrors DIR] [--only owner/name] [--split tune|held-out|all]
 *
 * Both sides start from the same search (`limit` = the pack's 30 candidates, default ranking):
 * - **pack**: `engine.context(query, { tokens })` — whole chunks capped at 30% of the budget,
 *   merged, at most 2 per file, signatures of named symbols, all o200k-counted with its YAML
 *   framing. Only its `chunk` pieces count as carrying a chunk (a one-line signature does not).
 * - **top-k**: the results in rank order, each rendered as `path:start-end` plus the chunk's lines,
 *   taken while the running o200k count stays within the budget (the list is cut at the first
 *   result that does not fit: a prefix, as an agent reading a result list gets it).
 * A query hits at file level when an expected file has a piece in the context, and at chunk level
 * (devset queries with spans) when a piece's lines overlap a gold function span.
 * Writes bench/results/context-pack.json.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngine, loadTokenCounter, type Engine, type TokenCounter } from '../src/index.js';
import { CommitTrees, groupByCommit } from '../src/eval/from-git.js';
import { parseQueriesFile } from '../src/eval/queries-file.js';
import { buildCorpus } from '../test/quality/corpus.js';
import { cacheOf, DEV_REPOS, fileOf, isLong, mirrorOf, splitOfRepo } from './mine-devset.js';
import { environment, writeResult } from './results.js';

const CANDIDATES = 30;
/** The pack's chunks per file in the first round (`--per-file`; the shipped default is 2). */
const PER_FILE = Number(arg('--per-file') ?? 2);

interface Gold {
  readonly path: string;
  readonly startLine?: number | undefined;
  readonly endLine?: number | undefined;
}

interface Span {
  readonly path: string;
  readonly startLine: number;
  readonly endLine: number;
}

/** What one context (pack or cut list) of one query at one budget carried. */
interface Outcome {
  readonly file: boolean;
  /** Null when the gold has no spans. */
  readonly chunk: boolean | null;
  readonly tokens: number;
  readonly pieces: number;
  readonly files: number;
}

interface Row {
  readonly set: 'golden' | 'devset';
  readonly id: string;
  readonly kind: string;
  readonly budgets: Record<number, { pack: Outcome; topk: Outcome }>;
}

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

function outcome(spans: readonly Span[], gold: readonly Gold[], tokens: number): Outcome {
  const goldSpans = gold.filter((g) => g.startLine !== undefined);
  const overlaps = (s: Span, g: Gold): boolean => s.path === g.path && s.startLine <= (g.endLine ?? g.startLine!) && g.startLine! <= s.endLine;
  return {
    file: spans.some((s) => gold.some((g) => g.path === s.path)),
    chunk: goldSpans.length === 0 ? null : spans.some((s) => goldSpans.some((g) => overlaps(s, g))),
    tokens,
    pieces: spans.length,
    files: new Set(spans.map((s) => s.path)).size,
  };
}

/** The text of a file in the tree that was indexed. */
type ReadText = (path: string) => string;

async function measure(engine: Engine, read: ReadText, counter: TokenCounter, query: string, gold: readonly Gold[], budgets: readonly number[]): Promise<Row['budgets']> {
  const response = await engine.search(query, { limit: CANDIDATES });
  const files = new Map<string, string[]>();
  const linesOf = (path: string, start: number, end: number): string => {
    if (!files.has(path)) files.set(path, read(path).split('\n'));
    return files.get(path)!.slice(start - 1, end).join('\n');
  };
  const rendered = response.results.map((r) => ({ span: { path: r.path, startLine: r.startLine, endLine: r.endLine }, tokens: counter.count(`${r.path}:${r.startLine}-${r.endLine}\n${linesOf(r.path, r.startLine, r.endLine)}\n\n`) }));
  const out: Row['budgets'] = {};
  for (const budget of budgets) {
    const taken: Span[] = [];
    let used = 0;
    for (const r of rendered) {
      if (used + r.tokens > budget) break;
      used += r.tokens;
      taken.push(r.span);
    }
    const pack = await engine.context(query, { tokens: budget, candidates: CANDIDATES, maxPiecesPerFile: PER_FILE });
    const pieces = pack.sections.evidence.flatMap((g) => g.pieces).filter((p) => p.kind === 'chunk');
    out[budget] = { pack: outcome(pieces, gold, pack.tokens.total), topk: outcome(taken, gold, used) };
  }
  return out;
}

async function golden(counter: TokenCounter, budgets: readonly number[]): Promise<Row[]> {
  const queries = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'test', 'quality', 'queries.json'), 'utf8')) as Array<{ id: string; query: string; expected: string[]; kind: string }>;
  const tmp = mkdtempSync(join(tmpdir(), 'scry-bench-pack-'));
  const root = join(tmp, 'corpus');
  try {
    buildCorpus(root);
    const engine = await createEngine({ root, db: join(tmp, 'index.db'), env: {} });
    try {
      await engine.index();
      const rows: Row[] = [];
      for (const q of queries) rows.push({ set: 'golden', id: q.id, kind: q.kind, budgets: await measure(engine, (path) => readFileSync(join(root, path), 'utf8'), counter, q.query, q.expected.map((path) => ({ path })), budgets) });
      process.stderr.write(`golden set: ${rows.length} queries\n`);
      return rows;
    } finally {
      engine.close();
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

async function devset(counter: TokenCounter, budgets: readonly number[]): Promise<Row[]> {
  const mirrors = arg('--mirrors') ?? '/work/.mirror';
  const only = arg('--only');
  const split = arg('--split') ?? 'all';
  const rows: Row[] = [];
  for (const r of DEV_REPOS) {
    if ((only && r.repo !== only) || !existsSync(fileOf(r.repo)) || !existsSync(mirrorOf(mirrors, r.repo))) continue;
    const queries = parseQueriesFile(readFileSync(fileOf(r.repo), 'utf8'), fileOf(r.repo)).filter(() => split === 'all' || splitOfRepo(r.repo) === split);
    const mirror = mirrorOf(mirrors, r.repo);
    const trees = new CommitTrees(mirror, cacheOf(r.repo));
    try {
      for (const [commit, group] of groupByCommit(queries)) {
        const engine = await trees.at(commit);
        // a cached index's engine is rooted at the mirror, not at a checkout of `commit`
        const read: ReadText = (path) => execFileSync('git', ['show', `${commit}:${path}`], { cwd: mirror, encoding: 'utf8', maxBuffer: 64 << 20 });
        for (const q of group) rows.push({ set: 'devset', id: `${r.repo}#${q.id}`, kind: isLong(q.query) ? 'long' : 'short', budgets: await measure(engine, read, counter, q.query, q.expected, budgets) });
      }
    } finally {
      await trees.close();
    }
    process.stderr.write(`${r.repo}: ${queries.length} queries\n`);
  }
  return rows;
}

const pct = (n: number, d: number): string => (d === 0 ? '-' : `${((100 * n) / d).toFixed(1)}%`);
const mean = (xs: readonly number[]): number => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);

function table(title: string, rows: readonly Row[], budgets: readonly number[]): string {
  const out = [`\n== ${title} (${rows.length} queries)`, `${'budget'.padEnd(8)}${'level'.padEnd(7)}${'n'.padStart(5)}${'pack'.padStart(9)}${'top-k'.padStart(9)}${'both'.padStart(7)}${'pack only'.padStart(11)}${'top-k only'.padStart(12)}${'pack tok'.padStart(10)}${'top-k tok'.padStart(11)}${'pack files'.padStart(12)}${'top-k files'.padStart(13)}`];
  for (const b of budgets) {
    for (const level of ['file', 'chunk'] as const) {
      const sel = rows.filter((r) => r.budgets[b]!.pack[level] !== null);
      if (sel.length === 0) continue;
      const p = sel.filter((r) => r.budgets[b]!.pack[level]).length;
      const t = sel.filter((r) => r.budgets[b]!.topk[level]).length;
      const both = sel.filter((r) => r.budgets[b]!.pack[level] && r.budgets[b]!.topk[level]).length;
      out.push(
        `${String(b).padEnd(8)}${level.padEnd(7)}${String(sel.length).padStart(5)}${pct(p, sel.length).padStart(9)}${pct(t, sel.length).padStart(9)}${String(both).padStart(7)}${String(p - both).padStart(11)}${String(t - both).padStart(12)}` +
          `${mean(sel.map((r) => r.budgets[b]!.pack.tokens)).toFixed(0).padStart(10)}${mean(sel.map((r) => r.budgets[b]!.topk.tokens)).toFixed(0).padStart(11)}${mean(sel.map((r) => r.budgets[b]!.pack.files)).toFixed(1).padStart(12)}${mean(sel.map((r) => r.budgets[b]!.topk.files)).toFixed(1).padStart(13)}`,
      );
    }
  }
  return out.join('\n');
}

async function main(): Promise<void> {
  const budgets = (arg('--budgets') ?? '2000,4000,8000').split(',').map(Number);
  if (budgets.some((b) => !Number.isInteger(b) || b < 256 || b > 100_000)) throw new Error('--budgets: integers from 256 to 100000');
  if (!Number.isInteger(PER_FILE) || PER_FILE < 1 || PER_FILE > 20) throw new Error('--per-file: an integer from 1 to 20');
  const env = environment();
  const counter = await loadTokenCounter();
  const rows: Row[] = [];
  if (!process.argv.includes('--devset-only')) rows.push(...(await golden(counter, budgets)));
  if (!process.argv.includes('--golden-only')) rows.push(...(await devset(counter, budgets)));
  const parts = [`load ${env.loadAvg1m.toFixed(2)}, commit ${env.commit ?? '?'}${env.dirty ? ' (dirty)' : ''}, pack chunks per file ${PER_FILE}`];
  const goldenRows = rows.filter((r) => r.set === 'golden');
  if (goldenRows.length > 0) {
    parts.push(table('golden set: all', goldenRows, budgets));
    for (const kind of [...new Set(goldenRows.map((r) => r.kind))].sort()) parts.push(table(`golden set: ${kind}`, goldenRows.filter((r) => r.kind === kind), budgets));
  }
  const devRows = rows.filter((r) => r.set === 'devset');
  if (devRows.length > 0) {
    parts.push(table('devset: all', devRows, budgets));
    parts.push(table('devset: long (issue-like)', devRows.filter((r) => r.kind === 'long'), budgets));
    parts.push(table('devset: short', devRows.filter((r) => r.kind === 'short'), budgets));
  }
  process.stdout.write(`${parts.join('\n')}\n`);
  writeResult('context-pack', { budgets, candidates: CANDIDATES, perFile: PER_FILE, rows });
}

await main();
