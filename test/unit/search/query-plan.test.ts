import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseQuery } from '../../../src/search/query-parse.js';
import { planQuery, runPlan, type PlanLevel } from '../../../src/search/query-plan.js';

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

describe('runPlan', () => {
  const levels: PlanLevel[] = [
    { expression: 'A AND B', mode: 'all' },
    { expression: 'A OR B', mode: 'rare' },
  ];
  /** An index where each expression matches `hits[e]` chunks; records what was scored and counted. */
  const index = (hits: Record<string, number>) => {
    const scored: string[] = [];
    const counted: string[] = [];
    return {
      scored,
      counted,
      run: {
        score: (e: string) => (scored.push(e), Array.from({ length: Math.min(hits[e]!, 10) }, (_, i) => `${e}#${i}`)),
        count: (e: string, upTo: number) => (counted.push(e), Math.min(hits[e]!, upTo)),
      },
    };
  };

  it('does not score a level before the last when fewer than `fetch` chunks match it: the next level is kept', () => {
    const ix = index({ 'A AND B': 7, 'A OR B': 40 });
    const out = runPlan(levels, 10, ix.run);
    expect(ix.scored).toEqual(['A OR B']);
    expect(out.level?.mode).toBe('rare');
    expect(out.candidates).toHaveLength(10);
  });

  it('scores a level that has enough matches and stops there; the last level is scored without counting', () => {
    const ix = index({ 'A AND B': 12, 'A OR B': 40 });
    const out = runPlan(levels, 10, ix.run);
    expect(ix.scored).toEqual(['A AND B']);
    expect(out.level?.expression).toBe('A AND B');
    const last = index({ 'A AND B': 0, 'A OR B': 3 });
    expect(runPlan(levels, 10, last.run).candidates).toHaveLength(3);
    expect(last.counted).toEqual(['A AND B']);
  });

  it('skips by the `most` bound without counting, and keeps nothing when there is no level', () => {
    const ix = index({ 'A AND B': 50, 'A OR B': 40 });
    runPlan([{ ...levels[0]!, most: 5 }, levels[1]!], 10, ix.run);
    expect(ix.counted).toEqual([]);
    expect(ix.scored).toEqual(['A OR B']);
    expect(runPlan([], 10, ix.run)).toEqual({ candidates: [], level: undefined });
  });

  it('keeps what running every level in order keeps (the rule before counting), for any match counts', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(30), { minLength: 1, maxLength: 4 }), fc.integer({ min: 1, max: 20 }), (counts, fetch) => {
        const ls = counts.map((_, i): PlanLevel => ({ expression: `L${i}`, mode: i === counts.length - 1 ? 'any' : 'all' }));
        const hits = Object.fromEntries(counts.map((c, i) => [`L${i}`, c]));
        const score = (e: string) => Array.from({ length: Math.min(hits[e]!, fetch) }, (_, i) => `${e}#${i}`);
        // the reference: score each level in order, keep the first with `fetch` candidates, else the last
        let ref: string[] = [];
        let refLevel: PlanLevel | undefined;
        for (const l of ls) {
          ref = score(l.expression);
          refLevel = l;
          if (ref.length >= fetch) break;
        }
        const out = runPlan(ls, fetch, { score, count: (e, upTo) => Math.min(hits[e]!, upTo) });
        expect(out).toEqual({ candidates: ref, level: refLevel });
      }),
    );
  });
});
