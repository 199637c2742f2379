/**
 * Pure ranking steps after FTS5: score sign, overlap dedupe, file aggregation.
 * No I/O, no clock; see docs/DESIGN.md "Ranking".
 */

export interface RankedChunk {
  readonly path: string;
  readonly startLine: number;
  readonly endLine: number;
  /** Higher is better. */
  readonly score: number;
}

/** FTS5's bm25() is "lower is better" and negative; scry's score is `-bm25`, so higher is better. */
export function scoreFromBm25(bm25: number): number {
  return -bm25;
}

/** Scores are rounded for display only; ordering always uses the unrounded value. */
export function displayScore(score: number): number {
  return Math.round(score * 1e4) / 1e4;
}

/**
 * Structural priors, as score multipliers (documented in docs/DESIGN.md "Ranking"):
 * - a test file is usually not what a question is about: ×0.6, unless the query asks for tests;
 * - a long query (issue body, stack trace) asks for code to change, so docs count ×0.6;
 * - a chunk of import statements names what a file uses, not what it does: ×0.5 (its words
 *   are short and dense, so BM25 alone would often put it above the code that uses them).
 */
export const TEST_FILE_FACTOR = 0.6;
export const DOCS_IN_LONG_QUERY_FACTOR = 0.6;
export const IMPORTS_FACTOR = 0.5;

const TEST_DIR_RE = /(?:^|\/)(?:tests?|__tests__|spec|specs|testing)\//i;
const TEST_FILE_RE = /(?:\.(?:test|spec)\.[^/]+$|(?:^|\/)test_[^/]+\.py$|_test\.(?:py|go|rb|exs?|cc|cpp|c)$|(?:Tests?|Spec)\.(?:java|kt|cs|scala|swift|php)$)/;

export function isTestPath(path: string): boolean {
  return TEST_DIR_RE.test(path) || TEST_FILE_RE.test(path);
}

/** True when the user asks for tests themselves (then test files are not demoted). */
export function queryWantsTests(terms: readonly string[]): boolean {
  return terms.some((t) => /^(?:tests?|testing|spec|specs|unittest|pytest|fixtures?)$/i.test(t));
}

export interface PriorContext {
  readonly longQuery: boolean;
  readonly wantsTests: boolean;
}

export interface PriorInput extends RankedChunk {
  readonly contentType: string;
  readonly kind?: string;
}

/** Multiplies each score by its priors and re-sorts best first (ties: path, then line). */
export function applyPriors<T extends PriorInput>(hits: readonly T[], ctx: PriorContext): T[] {
  return hits
    .map((h) => {
      let factor = 1;
      if (!ctx.wantsTests && isTestPath(h.path)) factor *= TEST_FILE_FACTOR;
      if (ctx.longQuery && h.contentType === 'docs') factor *= DOCS_IN_LONG_QUERY_FACTOR;
      if (h.kind === 'imports') factor *= IMPORTS_FACTOR;
      return factor === 1 ? h : { ...h, score: h.score * factor };
    })
    .sort((a, b) => b.score - a.score || a.path.localeCompare(b.path) || a.startLine - b.startLine);
}

/**
 * Drops a hit whose line range overlaps a better-scored hit of the same file (overlapping
 * windows would otherwise show the same lines twice). Input order must be best first; kept order
 * is preserved.
 */
export function dedupeOverlaps<T extends RankedChunk>(hits: readonly T[]): T[] {
  const kept: T[] = [];
  const byPath = new Map<string, T[]>();
  for (const h of hits) {
    const same = byPath.get(h.path) ?? [];
    if (same.some((k) => h.startLine <= k.endLine && k.startLine <= h.endLine)) continue;
    same.push(h);
    byPath.set(h.path, same);
    kept.push(h);
  }
  return kept;
}

/** Weight of the 2nd and 3rd best chunks of a file in its file score. */
export const FILE_SUPPORT_WEIGHT = 0.2;

/**
 * One entry per file: the best chunk represents the file; file score =
 * best + FILE_SUPPORT_WEIGHT × (2nd + 3rd best). Sorted by that score, ties by path.
 */
export function aggregateFiles<T extends RankedChunk>(hits: readonly T[]): Array<{ best: T; score: number; chunks: number }> {
  const groups = new Map<string, T[]>();
  for (const h of hits) {
    const g = groups.get(h.path);
    if (g) g.push(h);
    else groups.set(h.path, [h]);
  }
  const out = [...groups.values()].map((g) => {
    const sorted = [...g].sort((a, b) => b.score - a.score);
    const support = (sorted[1]?.score ?? 0) + (sorted[2]?.score ?? 0);
    return { best: sorted[0]!, score: sorted[0]!.score + FILE_SUPPORT_WEIGHT * support, chunks: g.length };
  });
  return out.sort((a, b) => b.score - a.score || a.best.path.localeCompare(b.best.path));
}
