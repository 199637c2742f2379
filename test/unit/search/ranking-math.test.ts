import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildFtsExpression, ftsString } from '../../../src/search/fts-expression.js';
import { parseQuery } from '../../../src/search/query-parse.js';
import { aggregateFiles, applyPriors, dedupeOverlaps, displayScore, isTestPath, queryWantsTests, scoreFromBm25 } from '../../../src/search/rank.js';
import { DEFAULT_SELECT_PARAMS, groupDf, idf, LONG_QUERY_SELECT_PARAMS, selectGroups, selectParamsFor } from '../../../src/search/term-select.js';

describe('buildFtsExpression', () => {
  it('ORs optional groups and keeps identifier alternatives together', () => {
    expect(buildFtsExpression(parseQuery('parse getUserName').groups)).toBe('"parse" OR ("getusername" OR "get user name")');
  });
  it('ANDs required phrases and keeps optional terms scoring', () => {
    expect(buildFtsExpression(parseQuery('"open db" retry').groups)).toBe('"open db" AND ("open db" OR "retry")');
    expect(buildFtsExpression(parseQuery('"open db"').groups)).toBe('"open db"');
  });
  it('escapes quotes inside FTS strings', () => {
    expect(ftsString(['a"b'])).toBe('"a""b"');
  });
});

describe('selectGroups', () => {
  const df: Record<string, number> = { parse: 50, config: 10, the: 900, zzz: 0, getusername: 2, get: 800, user: 100, name: 300 };
  const dfOf = (w: string): number => df[w] ?? 0;

  it('uses the rarest word of a group as its document frequency', () => {
    const [g] = parseQuery('getUserName').groups;
    expect(groupDf(g!, dfOf)).toBe(2);
  });

  it('drops groups absent from the index and groups too common to help', () => {
    const sel = selectGroups(parseQuery('parse config zzz nothing').groups, dfOf, 1000);
    expect(sel.kept.map((g) => g.raw)).toEqual(['config', 'parse']);
    expect(sel.dropped).toEqual([
      { raw: 'zzz', reason: 'not_in_index' },
      { raw: 'nothing', reason: 'not_in_index' },
    ]);
    const common = selectGroups(parseQuery('name parse').groups, dfOf, 1000, { maxGroups: 24, maxDfRatio: 0.2 });
    expect(common.dropped).toEqual([{ raw: 'name', reason: 'too_common' }]);
  });

  it('keeps a common group when it is all there is', () => {
    expect(selectGroups(parseQuery('name').groups, dfOf, 1000).kept).toHaveLength(1);
  });

  it('keeps the highest-weight groups when over the limit, always keeping required ones', () => {
    const sel = selectGroups(parseQuery('"name" parse config user').groups, dfOf, 1000, { maxGroups: 2, maxDfRatio: 1 });
    expect(sel.kept.map((g) => g.raw)).toEqual(['name', 'config']);
    expect(sel.dropped.map((d) => d.reason)).toEqual(['over_limit', 'over_limit']);
  });

  it('ranks by the groups\' query weights too with byWeight (a long text\'s title and code words)', () => {
    // config (df 10) outranks parse (df 50) by idf; weighing parse ×3 keeps it instead
    const groups = parseQuery('parse config').groups.map((g) => ({ ...g, weight: g.raw === 'parse' ? 3 : 1 }));
    expect(selectGroups(groups, dfOf, 1000, { maxGroups: 1, maxDfRatio: 1 }).kept.map((g) => g.raw)).toEqual(['config']);
    expect(selectGroups(groups, dfOf, 1000, { maxGroups: 1, maxDfRatio: 1, byWeight: true }).kept.map((g) => g.raw)).toEqual(['parse']);
  });

  it('weighs the kept groups rarer than rareRatio one more (none when 0)', () => {
    const groups = parseQuery('parse config').groups;
    const w = (rareRatio: number): Record<string, number> =>
      Object.fromEntries(selectGroups(groups, dfOf, 1000, { maxGroups: 24, maxDfRatio: 1, rareRatio }).kept.map((g) => [g.raw, g.weight]));
    expect(w(0)).toEqual({ config: 1, parse: 1 });
    expect(w(0.01)).toEqual({ config: 2, parse: 1 }); // config: df 10 of 1000
    expect(w(0.05)).toEqual({ config: 2, parse: 2 });
    // the parsed groups are not changed
    expect(groups.every((g) => g.weight === 1)).toBe(true);
  });

  it('selectParamsFor: the defaults for short queries, longTerms for long ones', () => {
    const lt = { maxGroups: 12, maxDfRatio: 0.05, selectByWeight: true };
    expect(selectParamsFor(false, lt)).toEqual(DEFAULT_SELECT_PARAMS);
    expect(selectParamsFor(true, lt)).toEqual({ maxGroups: 12, maxDfRatio: 0.05, byWeight: true });
    expect(selectParamsFor(true)).toEqual(LONG_QUERY_SELECT_PARAMS);
  });

  it('idf decreases with document frequency', () => {
    expect(idf(1, 1000)).toBeGreaterThan(idf(10, 1000));
    expect(idf(1000, 1000)).toBeGreaterThan(0);
  });
});

describe('rank', () => {
  const hit = (path: string, startLine: number, endLine: number, score: number) => ({ path, startLine, endLine, score });

  it('reports -bm25 so that higher is better, rounded for display only', () => {
    expect(scoreFromBm25(-12.345678)).toBe(12.345678);
    expect(displayScore(12.345678)).toBe(12.3457);
  });

  it('recognises test files across languages', () => {
    for (const p of ['tests/a.py', 'src/__tests__/x.ts', 'a/b.test.ts', 'x.spec.js', 'pkg/test_io.py', 'io_test.go', 'src/FooTest.java', 'spec/models/user_spec.rb']) {
      expect(isTestPath(p), p).toBe(true);
    }
    for (const p of ['src/testing-library.ts', 'src/contest.py', 'lib/attestation.go', 'src/latest.ts']) expect(isTestPath(p), p).toBe(false);
    expect(queryWantsTests(['where', 'tests'])).toBe(true);
    expect(queryWantsTests(['contest'])).toBe(false);
  });

  it('demotes test files, and docs for long queries, then re-sorts', () => {
    const hits = [
      { ...hit('tests/test_api.py', 1, 9, 10), contentType: 'code' },
      { ...hit('README.md', 1, 9, 9), contentType: 'docs' },
      { ...hit('src/api.py', 1, 9, 7), contentType: 'code' },
    ];
    expect(applyPriors(hits, { longQuery: false, wantsTests: false }).map((h) => [h.path, h.score])).toEqual([
      ['README.md', 9],
      ['src/api.py', 7],
      ['tests/test_api.py', 6],
    ]);
    expect(applyPriors(hits, { longQuery: true, wantsTests: false }).map((h) => h.path)).toEqual(['src/api.py', 'tests/test_api.py', 'README.md']);
    expect(applyPriors(hits, { longQuery: false, wantsTests: true })[0]!.path).toBe('tests/test_api.py');
  });

  it('drops overlapping windows of the same file, keeping the better one', () => {
    const hits = [hit('a.ts', 10, 70, 9), hit('a.ts', 60, 120, 8), hit('b.ts', 60, 120, 7), hit('a.ts', 121, 180, 6)];
    expect(dedupeOverlaps(hits)).toEqual([hits[0], hits[2], hits[3]]);
  });

  it('aggregates to files: best + 0.2 × (2nd + 3rd)', () => {
    const files = aggregateFiles([hit('a.ts', 1, 5, 10), hit('b.ts', 1, 5, 11), hit('a.ts', 9, 12, 5), hit('a.ts', 20, 30, 5), hit('a.ts', 40, 50, 5)]);
    expect(files.map((f) => [f.best.path, f.score, f.chunks])).toEqual([
      ['a.ts', 12, 4],
      ['b.ts', 11, 1],
    ]);
  });

  it('file aggregation does not depend on input order (property)', () => {
    const arb = fc.array(fc.record({ path: fc.constantFrom('a', 'b', 'c', 'd'), startLine: fc.nat(100), endLine: fc.nat(100), score: fc.integer({ min: 0, max: 1000 }) }), { maxLength: 30 });
    fc.assert(
      fc.property(arb, fc.nat(), (hits, seed) => {
        const shuffled = [...hits].sort((x, y) => ((x.score * 31 + seed) % 97) - ((y.score * 31 + seed) % 97));
        const a = aggregateFiles(hits).map((f) => [f.best.path, f.score]);
        const b = aggregateFiles(shuffled).map((f) => [f.best.path, f.score]);
        expect(b).toEqual(a);
      }),
    );
  });
});
