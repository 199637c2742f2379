import { describe, expect, it } from 'vitest';
import { RELATED_WEIGHTS, rankRelated, type RelatedEvidence } from '../../../src/search/related.js';

const names = (entries: Array<[string, boolean]>): Map<string, boolean> => new Map(entries);

const base: RelatedEvidence = { importers: [], imported: [], tests: [], testedFiles: [], callers: new Map(), callees: new Map() };

describe('rankRelated', () => {
  it('weighs tests, imports both ways and distinct names; ties go by path', () => {
    const ranked = rankRelated('src/db.ts', {
      importers: ['src/app.ts', 'test/db.test.ts', 'src/z.ts'],
      imported: ['src/retry.ts'],
      tests: ['test/db.test.ts'],
      testedFiles: [],
      callers: new Map([
        ['src/app.ts', names([['openDb', true], ['DbOptions', false]])],
        ['test/db.test.ts', names([['openDb', true]])],
        ['src/legacy.ts', names([['openDb', true]])],
      ]),
      callees: new Map([['src/retry.ts', names([['retry', true]])]]),
    });
    expect(ranked.map((f) => [f.path, f.score, f.reasons])).toEqual([
      ['test/db.test.ts', 6, ['its test', 'imports it', 'calls openDb()']],
      ['src/app.ts', 4, ['imports it', 'calls openDb()', 'uses DbOptions']],
      ['src/retry.ts', 3, ['imported by it', 'called by it: retry()']],
      ['src/z.ts', 2, ['imports it']],
      ['src/legacy.ts', 1, ['calls openDb()']],
    ]);
    expect(ranked[0]!.relations).toEqual({ test: true, imports: true, callers: ['openDb'] });
    expect(ranked[1]!.relations).toEqual({ imports: true, callers: ['DbOptions', 'openDb'] });
    expect(ranked[2]!.relations).toEqual({ importedBy: true, callees: ['retry'] });
  });

  it('marks the files a test file tests, never lists the subject, and caps the names counted', () => {
    const many = names(Array.from({ length: 9 }, (_, i) => [`fn${i}`, true] as [string, boolean]));
    const ranked = rankRelated('test/db.test.ts', { ...base, testedFiles: ['src/db.ts'], imported: ['src/db.ts'], callees: new Map([['src/db.ts', many], ['test/db.test.ts', many]]) });
    expect(ranked).toHaveLength(1);
    expect(ranked[0]!.score).toBe(RELATED_WEIGHTS.test + RELATED_WEIGHTS.importedBy + RELATED_WEIGHTS.maxNames);
    expect(ranked[0]!.reasons.slice(0, 2)).toEqual(['tested by it', 'imported by it']);
    expect(ranked[0]!.relations.callees).toHaveLength(9);
  });

  it('orders equal scores by path and returns nothing without evidence', () => {
    expect(rankRelated('a.ts', { ...base, importers: ['c.ts', 'b.ts'], imported: ['d.ts'] }).map((f) => f.path)).toEqual(['b.ts', 'c.ts', 'd.ts']);
    expect(rankRelated('a.ts', base)).toEqual([]);
  });
});
