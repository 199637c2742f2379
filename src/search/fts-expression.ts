import { MAX_LONG_GROUP_WEIGHT, type TermGroup } from './query-parse.js';

/** An FTS5 string literal: the only way user-derived words enter an FTS expression. */
export function ftsString(words: readonly string[]): string {
  return `"${words.join(' ').replace(/"/g, '""')}"`;
}

/** One group as an FTS5 expression: its alternatives OR'ed. */
export function groupExpression(group: TermGroup): string {
  const alts = group.alternatives.map(ftsString);
  return alts.length === 1 ? alts[0]! : `(${alts.join(' OR ')})`;
}

/**
 * An optional group, repeated `weight` times: FTS5's bm25() sums over every phrase of the
 * expression, so a phrase written twice counts twice. This is how a query term is weighted.
 */
function weighted(group: TermGroup): string {
  const one = groupExpression(group);
  const n = Math.max(1, Math.min(MAX_LONG_GROUP_WEIGHT, Math.round(group.weight ?? 1)));
  return n === 1 ? one : Array.from({ length: n }, () => one).join(' OR ');
}

/**
 * Builds the FTS5 MATCH expression: optional groups are OR'ed (BM25 rewards chunks matching
 * more of them), each repeated by its weight; required groups are AND'ed, and the optional ones
 * are kept in an OR with the first required group so that they still add to the score without
 * being required.
 */
export function buildFtsExpression(groups: readonly TermGroup[]): string {
  const required = groups.filter((g) => g.required).map(groupExpression);
  const optional = groups.filter((g) => !g.required).map(weighted);
  if (required.length === 0) return optional.join(' OR ');
  const must = required.join(' AND ');
  return optional.length === 0 ? must : `${must} AND (${[required[0]!, ...optional].join(' OR ')})`;
}
