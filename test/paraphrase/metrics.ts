/**
 * Function-level metrics of the paraphrase set: pure functions from a ranked chunk list and the
 * gold functions' spans to ranks and summaries.
 */

export interface Span {
  readonly path: string;
  readonly startLine: number;
  readonly endLine: number;
}

export interface Summary {
  readonly n: number;
  readonly r1: number;
  readonly r5: number;
  readonly r10: number;
  /** Mean of 1/rank over ranks ≤ 10. */
  readonly mrr: number;
}

/** Rank (1-based) of the first result overlapping a gold span, or null. */
export function functionRank(results: readonly Span[], gold: readonly Span[]): number | null {
  const i = results.findIndex((r) => gold.some((g) => g.path === r.path && r.startLine <= g.endLine && g.startLine <= r.endLine));
  return i < 0 ? null : i + 1;
}

export function summarize(ranks: ReadonlyArray<number | null>): Summary {
  const n = ranks.length;
  const at = (k: number): number => (n === 0 ? 0 : ranks.filter((r) => r !== null && r <= k).length / n);
  const mrr = n === 0 ? 0 : ranks.reduce<number>((s, r) => s + (r !== null && r <= 10 ? 1 / r : 0), 0) / n;
  return { n, r1: at(1), r5: at(5), r10: at(10), mrr };
}

export function formatRow(label: string, s: Summary): string {
  const f = (x: number): string => x.toFixed(3).padStart(9);
  return `${label.padEnd(22)}${String(s.n).padStart(4)}${f(s.r1)}${f(s.r5)}${f(s.r10)}${f(s.mrr)}`;
}

export const HEADER = `${'mode'.padEnd(22)}${'n'.padStart(4)}${'fn@1'.padStart(9)}${'fn@5'.padStart(9)}${'fn@10'.padStart(9)}${'MRR@10'.padStart(9)}`;
