/**
 * Pure scoring of the quality run: gold ranks, recall@k and MRR, and the stats.txt table that is
 * committed and compared on every run. No I/O here; quality.test.ts does the reading and writing.
 */

export const QUERY_KINDS = ['identifier', 'natural', 'docs', 'long', 'path'] as const;
export type QueryKind = (typeof QUERY_KINDS)[number];

/** One entry of queries.json. */
export interface QualityQuery {
  readonly id: string;
  readonly query: string;
  /** Corpus-relative paths; finding any one of them counts as a hit. */
  readonly expected: readonly string[];
  /** Why these files should win, in one line. */
  readonly why: string;
  readonly kind: QueryKind;
}

/** The two ways every query is run: one result per chunk, or one per file (`files: true`). */
export const MODES = ['files', 'chunks'] as const;
export type Mode = (typeof MODES)[number];

/** How many results each query asks for, and the deepest rank that still counts for MRR. */
export const TOP_K = 10;

/** The largest drop of recall@5 or MRR@10 (overall, per mode) tolerated before the test fails. */
export const MAX_DROP = 0.02;

/**
 * The largest drop of recall@5 or MRR@10 tolerated in one kind of `n` queries: MAX_DROP, or one
 * query's worth when that is more (one query of a small kind may move; two may not).
 */
export function maxKindDrop(n: number): number {
  return n > 0 ? Math.max(MAX_DROP, 1 / n) : MAX_DROP;
}

export interface FileHit {
  readonly path: string;
  /** Score of the file's best result. */
  readonly score: number;
}

/** Distinct files in result order; a file is represented by its first (best) result. */
export function distinctFiles(results: readonly FileHit[]): FileHit[] {
  const seen = new Set<string>();
  const out: FileHit[] = [];
  for (const r of results) {
    if (seen.has(r.path)) continue;
    seen.add(r.path);
    out.push({ path: r.path, score: r.score });
  }
  return out;
}

/** 1-based rank of the first expected file among distinct result files, or null when absent. */
export function goldRank(files: readonly FileHit[], expected: readonly string[]): number | null {
  const i = files.findIndex((f) => expected.includes(f.path));
  return i < 0 ? null : i + 1;
}

export interface Metrics {
  readonly n: number;
  readonly recall1: number;
  readonly recall5: number;
  readonly recall10: number;
  /** Mean reciprocal rank, counting only ranks ≤ TOP_K. */
  readonly mrr: number;
}

const round3 = (x: number): number => Math.round(x * 1000) / 1000;

/** recall@1/5/10 and MRR@10 over a list of gold ranks (null = not found). */
export function computeMetrics(ranks: readonly (number | null)[]): Metrics {
  const n = ranks.length;
  if (n === 0) return { n, recall1: 0, recall5: 0, recall10: 0, mrr: 0 };
  const within = (k: number): number => ranks.filter((r) => r !== null && r <= k).length / n;
  const mrr = ranks.reduce<number>((s, r) => s + (r !== null && r <= TOP_K ? 1 / r : 0), 0) / n;
  return { n, recall1: round3(within(1)), recall5: round3(within(5)), recall10: round3(within(10)), mrr: round3(mrr) };
}

/** One row of the stats table: a mode and a slice of the queries (`overall` or a kind). */
export interface StatsRow extends Metrics {
  readonly mode: Mode;
  readonly slice: string;
}

export interface QueryOutcome {
  readonly query: QualityQuery;
  readonly ranks: Readonly<Record<Mode, number | null>>;
}

/** Rows for every mode: overall first, then each kind present, in QUERY_KINDS order. */
export function statsRows(outcomes: readonly QueryOutcome[]): StatsRow[] {
  const rows: StatsRow[] = [];
  for (const mode of MODES) {
    rows.push({ mode, slice: 'overall', ...computeMetrics(outcomes.map((o) => o.ranks[mode])) });
    for (const kind of QUERY_KINDS) {
      const of = outcomes.filter((o) => o.query.kind === kind);
      if (of.length > 0) rows.push({ mode, slice: kind, ...computeMetrics(of.map((o) => o.ranks[mode])) });
    }
  }
  return rows;
}

const fmt = (x: number): string => x.toFixed(3);
const ROW_RE = /^(files|chunks)\s+(\S+)\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s*$/;

/** The stats table as text, one aligned line per row; `parseStatsTable` reads it back. */
export function formatStatsTable(rows: readonly StatsRow[]): string {
  const head = 'mode    slice        n  recall@1  recall@5  recall@10  MRR@10';
  const lines = rows.map(
    (r) => `${r.mode.padEnd(7)} ${r.slice.padEnd(10)} ${String(r.n).padStart(3)}  ${fmt(r.recall1).padStart(8)}  ${fmt(r.recall5).padStart(8)}  ${fmt(r.recall10).padStart(9)}  ${fmt(r.mrr).padStart(6)}`,
  );
  return [head, ...lines].join('\n');
}

/** Reads the rows back out of a stats.txt (other lines are ignored). */
export function parseStatsTable(text: string): StatsRow[] {
  const rows: StatsRow[] = [];
  for (const line of text.split('\n')) {
    const m = ROW_RE.exec(line);
    if (!m) continue;
    rows.push({ mode: m[1] as Mode, slice: m[2]!, n: Number(m[3]), recall1: Number(m[4]), recall5: Number(m[5]), recall10: Number(m[6]), mrr: Number(m[7]) });
  }
  return rows;
}

export interface StatsComparison {
  /** Rows whose recall@5 or MRR fell by more than MAX_DROP (overall) or maxKindDrop (a kind). */
  readonly regressions: string[];
  /** Any row that got better: the committed files are stale. */
  readonly improvements: string[];
}

/**
 * Compares a fresh run with the committed table. Overall rows fail on a drop of more than
 * MAX_DROP; each kind fails on a drop of more than maxKindDrop(n), so a ranking change cannot buy
 * an overall gain with one kind's loss.
 */
export function compareStats(committed: readonly StatsRow[], current: readonly StatsRow[]): StatsComparison {
  const regressions: string[] = [];
  const improvements: string[] = [];
  for (const now of current) {
    const before = committed.find((r) => r.mode === now.mode && r.slice === now.slice);
    if (!before) continue;
    const label = `${now.mode}/${now.slice}`;
    for (const key of ['recall1', 'recall5', 'recall10', 'mrr'] as const) {
      const delta = round3(now[key] - before[key]);
      const line = `${label} ${key}: ${fmt(before[key])} → ${fmt(now[key])} (${delta > 0 ? '+' : ''}${fmt(delta)})`;
      const tolerated = now.slice === 'overall' ? MAX_DROP : maxKindDrop(now.n);
      if ((key === 'recall5' || key === 'mrr') && delta < -tolerated - 1e-9) regressions.push(line);
      else if (delta > 0) improvements.push(line);
    }
  }
  return { regressions, improvements };
}
