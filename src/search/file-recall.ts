/**
 * The model's own file candidates for long queries (issue 18, `search.fusion.filePriorRecall`):
 * the file prior (file-vectors.ts) reorders the files of the lexical pool only, so a file the
 * lexical pool never reaches cannot rise. The files of the model's top chunks (each query vector's
 * flat scan) join the pool: each new file's best chunk by cosine becomes a candidate, placed at a
 * quantile of the pool's lexical scores (`at`: 0 its floor, 0.5 its median), and the prior then
 * ranks everything. Pure; docs/DESIGN.md "Ranking II", "The model's file candidates".
 */
import type { RankedChunk } from './rank.js';

/** One chunk of a query vector's top list. */
export interface RecallHit {
  readonly id: number;
  readonly path: string;
  readonly cosine: number;
}

/** The best chunk by cosine of each file of `hits` that `pool` does not hold, best first (ties by id). */
export function recalledFiles(hits: Iterable<RecallHit>, pool: ReadonlySet<string>): RecallHit[] {
  const best = new Map<string, RecallHit>();
  for (const h of hits) {
    if (pool.has(h.path)) continue;
    const seen = best.get(h.path);
    if (!seen || h.cosine > seen.cosine || (h.cosine === seen.cosine && h.id < seen.id)) best.set(h.path, h);
  }
  return [...best.values()].sort((a, b) => b.cosine - a.cosine || a.id - b.id);
}

/** The score at quantile `at` (0–1) of `scores` (0 when empty): 0 the lowest, 1 the highest. */
export function scoreQuantile(scores: readonly number[], at: number): number {
  if (scores.length === 0) return 0;
  const sorted = [...scores].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.round(at * (sorted.length - 1))))]!;
}

/**
 * The pool ∪ the recalled candidates: `rows` as they are, then each recalled row (a file the pool
 * does not hold; its path must not be in `rows`) at the pool's score quantile `at`, saying so in `why`.
 */
export function unionPool<T extends RankedChunk>(rows: readonly T[], recalled: readonly T[], at: number): Array<T & { readonly why?: readonly string[] | undefined }> {
  const paths = new Set(rows.map((r) => r.path));
  const score = scoreQuantile(rows.map((r) => r.score), at);
  const added = recalled
    .filter((r) => !paths.has(r.path))
    .map((r) => ({ ...r, score, why: [...(r.why ?? []), 'from the model\'s file candidates'] }));
  return [...rows, ...added];
}
