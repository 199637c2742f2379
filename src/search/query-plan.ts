import { buildFtsExpression, groupExpression } from './fts-expression.js';
import type { TermGroup } from './query-parse.js';

/**
 * How many matching chunks FTS5 may score for one query. bm25() costs about a microsecond per
 * matching row (a docsize lookup plus the formula), far more than finding the rows, so a query
 * of common words on a large index is slow because of scoring, not matching. Default 20 000.
 */
export const SCORE_BUDGET = 20_000;
/** Largest number of AND-clauses a quorum level may have before falling back to plain OR. */
const MAX_QUORUM_CLAUSES = 64;

export interface PlannedGroup {
  readonly group: TermGroup;
  /** Chunks containing the group (an upper bound for a phrase). */
  readonly df: number;
}

/** One FTS5 expression to run; `quorum` is how many of the optional groups a match must have. */
export interface PlanLevel {
  readonly expression: string;
  readonly quorum: number;
}

function* combinations<T>(items: readonly T[], k: number, start = 0, prefix: T[] = []): Generator<T[]> {
  if (prefix.length === k) {
    yield prefix;
    return;
  }
  for (let i = start; i <= items.length - (k - prefix.length); i++) yield* combinations(items, k, i + 1, [...prefix, items[i]!]);
}

function binomial(n: number, k: number): number {
  let r = 1;
  for (let i = 1; i <= k; i++) r = (r * (n - k + i)) / i;
  return Math.round(r);
}

/**
 * Plans a query as a cascade of nested match sets (see docs/DESIGN.md "Query plan"). When the
 * groups' document frequencies add up to less than the budget, one OR expression scores every
 * match, exactly as BM25 over the OR would. Otherwise the plan first asks for chunks matching all
 * optional groups, then all but one, and so on, ending with plain OR; the caller takes the first
 * level that yields enough candidates. Every group appears equally often in a level's expression,
 * so bm25() weighs the groups exactly as in the plain OR, only over a smaller candidate set.
 */
export function planQuery(groups: readonly PlannedGroup[], budget = SCORE_BUDGET): PlanLevel[] {
  const all = groups.map((g) => g.group);
  const plain: PlanLevel = { expression: buildFtsExpression(all), quorum: 1 };
  const optional = all.filter((g) => !g.required);
  const totalDf = groups.reduce((n, g) => n + g.df, 0);
  if (optional.length < 2 || optional.length !== all.length || totalDf <= budget) return [plain];
  const levels: PlanLevel[] = [];
  const exprs = optional.map(groupExpression);
  for (let m = optional.length; m >= 2; m--) {
    if (binomial(optional.length, m) > MAX_QUORUM_CLAUSES) break;
    const clauses = [...combinations(exprs, m)].map((c) => `(${c.join(' AND ')})`);
    levels.push({ expression: clauses.join(' OR '), quorum: m });
  }
  levels.push(plain);
  return levels;
}
