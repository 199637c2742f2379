/**
 * Retrieval metrics for `scry eval`: pure functions from a ranked result list and a query's gold
 * to numbers (STYLE.md habit 3). Files are compared by path; a result "hits a function" when its
 * line range overlaps a gold span.
 */

/** One expected answer: a file, optionally narrowed to a line span (a function). */
export interface GoldTarget {
  readonly path: string;
  /** 1-based, inclusive; with endLine, marks a function to hit. */
  readonly startLine?: number | undefined;
  readonly endLine?: number | undefined;
}

/** One ranked result, as search returns it. */
export interface RankedHit {
  readonly path: string;
  readonly startLine: number;
  readonly endLine: number;
}

/** Cut-offs reported: Acc@k and function hit@k. */
export const CUTOFFS = [1, 5, 10] as const;
/** Ranks beyond this count as a miss for MRR. */
export const MRR_DEPTH = 10;

export interface QueryScore {
  /** Rank (1-based) of the first gold file among the distinct result files, or null. */
  readonly firstFileRank: number | null;
  /** Per cut-off k: were *all* gold files among the first k distinct files? */
  readonly accAt: Record<number, boolean>;
  /** 1 / firstFileRank when within MRR_DEPTH, else 0. */
  readonly reciprocalRank: number;
  /** Per cut-off k: did one of the first k results overlap a gold function span? Null without spans. */
  readonly functionHitAt: Record<number, boolean> | null;
}

/** Distinct result files, in the order they first appear. */
export function distinctFiles(hits: readonly RankedHit[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const h of hits) {
    if (seen.has(h.path)) continue;
    seen.add(h.path);
    out.push(h.path);
  }
  return out;
}

const overlaps = (h: RankedHit, g: GoldTarget): boolean => h.path === g.path && g.startLine !== undefined && h.startLine <= (g.endLine ?? g.startLine) && g.startLine <= h.endLine;

export function scoreQuery(hits: readonly RankedHit[], gold: readonly GoldTarget[]): QueryScore {
  const files = distinctFiles(hits);
  const goldFiles = [...new Set(gold.map((g) => g.path))];
  const ranks = goldFiles.map((p) => files.indexOf(p) + 1).filter((r) => r > 0);
  const firstFileRank = ranks.length > 0 ? Math.min(...ranks) : null;
  const accAt: Record<number, boolean> = {};
  for (const k of CUTOFFS) accAt[k] = goldFiles.length > 0 && goldFiles.every((p) => { const r = files.indexOf(p); return r !== -1 && r < k; });
  const spans = gold.filter((g) => g.startLine !== undefined);
  let functionHitAt: Record<number, boolean> | null = null;
  if (spans.length > 0) {
    functionHitAt = {};
    for (const k of CUTOFFS) functionHitAt[k] = hits.slice(0, k).some((h) => spans.some((g) => overlaps(h, g)));
  }
  const reciprocalRank = firstFileRank !== null && firstFileRank <= MRR_DEPTH ? 1 / firstFileRank : 0;
  return { firstFileRank, accAt, reciprocalRank, functionHitAt };
}

/** Chunks of a result list an agent reads for the chunk-list file metric (`cfile@k`). */
export const CHUNK_LIST_DEPTH = 20;
/** Cut-offs of `cfile@k`. */
export const CHUNK_LIST_CUTOFFS = [5, 10] as const;

/**
 * The chunk-list file metric (issue 18): per cut-off k, are all gold files among the first k
 * distinct files in the order of the first `depth` chunks of a list? This is the list as an agent
 * reads it: five chunks of one file show one file, so a list that repeats a wrong file hides the
 * right one even when Acc@k (over a longer list) finds it. Files are compared by path, as Acc@k.
 */
export function chunkListFileHits(hits: readonly RankedHit[], gold: readonly GoldTarget[], depth = CHUNK_LIST_DEPTH): Record<number, boolean> {
  const files = distinctFiles(hits.slice(0, depth));
  const goldFiles = [...new Set(gold.map((g) => g.path))];
  const out: Record<number, boolean> = {};
  for (const k of CHUNK_LIST_CUTOFFS) out[k] = goldFiles.length > 0 && goldFiles.every((p) => { const r = files.indexOf(p); return r !== -1 && r < k; });
  return out;
}

export interface EvalSummary {
  readonly queries: number;
  readonly accAt: Record<number, number>;
  readonly mrr: number;
  /** Over the queries that have function spans; null when none has. */
  readonly functionHitAt: Record<number, number> | null;
  readonly functionQueries: number;
  readonly latencyMs: { readonly p50: number; readonly p90: number };
}

/** Nearest-rank percentile of a list of numbers (p in 0–100); 0 for an empty list. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1]!;
}

const round = (x: number): number => Math.round(x * 1000) / 1000;

export function summarize(scores: readonly QueryScore[], latenciesMs: readonly number[]): EvalSummary {
  const n = scores.length;
  const accAt: Record<number, number> = {};
  for (const k of CUTOFFS) accAt[k] = n === 0 ? 0 : round(scores.filter((s) => s.accAt[k]).length / n);
  const withSpans = scores.filter((s) => s.functionHitAt !== null);
  let functionHitAt: Record<number, number> | null = null;
  if (withSpans.length > 0) {
    functionHitAt = {};
    for (const k of CUTOFFS) functionHitAt[k] = round(withSpans.filter((s) => s.functionHitAt![k]).length / withSpans.length);
  }
  return {
    queries: n,
    accAt,
    mrr: n === 0 ? 0 : round(scores.reduce((a, s) => a + s.reciprocalRank, 0) / n),
    functionHitAt,
    functionQueries: withSpans.length,
    latencyMs: { p50: round(percentile(latenciesMs, 50)), p90: round(percentile(latenciesMs, 90)) },
  };
}
