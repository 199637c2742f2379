import { buildFtsExpression, groupExpression } from './fts-expression.js';
import type { TermGroup } from './query-parse.js';

/**
 * How many matching chunks FTS5 may score for one query. bm25() costs about a microsecond per
 * matching row (a docsize lookup, position lists, the formula), far more than finding the rows,
 * so a query of common words on a large index is slow because of scoring, not matching.
 * Default 8 000 (a few milliseconds).
 */
export const SCORE_BUDGET = 8_000;

export interface PlannedGroup {
  readonly group: TermGroup;
  /** Cost of matching the group: rows FTS5 must visit (for a phrase, its most frequent word). */
  readonly df: number;
  /** At most this many chunks match the group (a phrase no more than its rarest word); absent: unknown. */
  readonly matches?: number | undefined;
}

/** One FTS5 expression to run, and what it asks of a match. */
export interface PlanLevel {
  readonly expression: string;
  /** `all`: every group; `any`: any group; `rare`: any of the rarest groups that fit the budget. */
  readonly mode: 'all' | 'any' | 'rare';
  /** At most this many chunks match the expression (an `all` level: its rarest group's bound); absent: unknown. */
  readonly most?: number;
}

/**
 * Plans a query as a short cascade (see docs/DESIGN.md "Query plan"); the caller runs the levels
 * in order and keeps the first that yields enough candidates (a level whose `most` is below that
 * need not run: the next one would replace its candidates).
 * - When the groups' document frequencies add up to no more than the budget: one OR expression,
 *   exactly BM25 over the OR.
 * - Otherwise: first chunks matching every group (an AND is cheap to evaluate and small to
 *   score); if too few, an OR over the rarest groups whose frequencies fit the budget (at least
 *   one group). The common groups left out carry little idf; they only cost scoring time.
 * Required groups are always part of every level.
 */
export function planQuery(groups: readonly PlannedGroup[], budget = SCORE_BUDGET): PlanLevel[] {
  const totalDf = groups.reduce((n, g) => n + g.df, 0);
  const any: PlanLevel = { expression: buildFtsExpression(groups.map((g) => g.group)), mode: 'any' };
  if (totalDf <= budget || groups.length < 2) return [any];
  const required = groups.filter((g) => g.group.required);
  const optional = groups.filter((g) => !g.group.required);
  const levels: PlanLevel[] = [];
  if (optional.length >= 2) {
    const most = Math.min(...groups.map((g) => g.matches ?? Infinity));
    levels.push({ expression: groups.map((g) => groupExpression(g.group)).join(' AND '), mode: 'all', ...(Number.isFinite(most) ? { most } : {}) });
  }
  const byRarity = [...optional].sort((a, b) => a.df - b.df);
  const rare: PlannedGroup[] = [];
  let used = required.reduce((n, g) => n + g.df, 0);
  for (const g of byRarity) {
    if (rare.length > 0 && used + g.df > budget) break;
    rare.push(g);
    used += g.df;
  }
  if (rare.length < optional.length) levels.push({ expression: buildFtsExpression([...required, ...rare].map((g) => g.group)), mode: 'rare' });
  else levels.push(any);
  return levels;
}

/** What running a plan needs of the index: a level's scored candidates, and a count of its matches up to a bound. */
export interface PlanRunner<T> {
  score(expression: string): T[];
  count(expression: string, upTo: number): number;
}

/**
 * Runs the levels in order and keeps the first that yields `fetch` candidates, else the last one
 * run. A level before the last is not scored when fewer than `fetch` chunks can match it: by its
 * `most` bound, else by counting its matches (issue 19, natlat: counting an AND of common words
 * costs a fraction of scoring it, since bm25() first walks each phrase's whole list for its idf;
 * the candidates of such a level were always replaced by the next level's). `level`: the one kept.
 */
export function runPlan<T>(levels: readonly PlanLevel[], fetch: number, run: PlanRunner<T>): { candidates: T[]; level: PlanLevel | undefined } {
  let candidates: T[] = [];
  let kept: PlanLevel | undefined;
  for (const [i, level] of levels.entries()) {
    const last = i === levels.length - 1;
    // a level that cannot yield `fetch` candidates would be replaced by the next: not scored
    if (!last && level.most !== undefined && level.most < fetch) continue;
    // filters only drop matches, so fewer than `fetch` matches means fewer than `fetch` candidates
    if (!last && run.count(level.expression, fetch) < fetch) continue;
    candidates = run.score(level.expression);
    kept = level;
    if (candidates.length >= fetch) break;
  }
  return { candidates, level: kept };
}
