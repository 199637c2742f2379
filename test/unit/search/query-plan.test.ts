import { describe, expect, it } from 'vitest';
import { parseQuery } from '../../../src/search/query-parse.js';
import { planQuery } from '../../../src/search/query-plan.js';

// one parse per term, so that no joined-pair groups are added
const planned = (q: string, dfs: number[]) =>
  q.match(/"[^"]+"|\S+/g)!.map((term, i) => ({ group: parseQuery(term).groups[0]!, df: dfs[i]! }));

describe('planQuery', () => {
  it('scores the plain OR when the terms fit the budget', () => {
    expect(planQuery(planned('alpha beta', [10, 20]), 100)).toEqual([{ expression: '"alpha" OR "beta"', mode: 'any' }]);
  });

  it('cascades to AND, then the rarest terms that fit, when the terms are common', () => {
    expect(planQuery(planned('alpha beta gamma', [50, 500, 80]), 200)).toEqual([
      { expression: '"alpha" AND "beta" AND "gamma"', mode: 'all' },
      { expression: '"alpha" OR "gamma"', mode: 'rare' },
    ]);
  });

  it('keeps at least the rarest term, and required terms in every level', () => {
    const levels = planQuery(planned('"must have" alpha beta', [300, 900, 700]), 100);
    expect(levels.map((l) => l.mode)).toEqual(['all', 'rare']);
    expect(levels[1]!.expression).toBe('"must have" AND ("must have" OR "beta")');
  });

  it('bounds the AND level by its rarest group, so a caller needing more candidates can skip it', () => {
    const groups = planned('alpha beta gamma', [50, 500, 80]).map((g, i) => ({ ...g, matches: [50, 500, 30][i] }));
    expect(planQuery(groups, 200)[0]).toEqual({ expression: '"alpha" AND "beta" AND "gamma"', mode: 'all', most: 30 });
    // one group of unknown bound does not hide the others'; all unknown: no bound
    expect(planQuery(groups.map((g, i) => (i === 2 ? { ...g, matches: undefined } : g)), 200)[0]!.most).toBe(50);
    expect(planQuery(planned('alpha beta gamma', [50, 500, 80]), 200)[0]).not.toHaveProperty('most');
  });

  it('a single common term is scored as it is', () => {
    expect(planQuery(planned('alpha', [1_000_000]), 100)).toEqual([{ expression: '"alpha"', mode: 'any' }]);
  });
});
