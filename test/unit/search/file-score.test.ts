import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyFileEvidence, fileBm25, fileCoverage, fileEvidenceScores, filePrior, mentionedNames, mentionStrengths } from '../../../src/search/file-score.js';
import type { RankedChunk } from '../../../src/search/rank.js';

const hit = (path: string, score: number, startLine = 1): RankedChunk => ({ path, score, startLine, endLine: startLine + 9 });

describe('fileBm25: files as documents', () => {
  const stats = { files: 100, meanLines: 200 };

  it('ranks a file matching many of the terms above a file matching one term often', () => {
    // a long text's many weak terms: spread over one file's chunks beats one term repeated in another
    const groups = ['cache', 'index', 'cloud', 'version'].map((w, i) => ({
      weight: 1,
      files: [{ path: 'dvc/data_cloud.py', chunks: 1, lines: 200 }, ...(i === 0 ? [{ path: 'dvc/cache.py', chunks: 9, lines: 200 }] : [])],
    }));
    const s = fileBm25(groups, stats);
    expect(s.get('dvc/data_cloud.py')!).toBeGreaterThan(s.get('dvc/cache.py')!);
  });

  it('weighs a rare term over a common one, and a long file below a short one with the same matches', () => {
    const s = fileBm25(
      [
        { weight: 1, files: [{ path: 'rare.py', chunks: 1, lines: 200 }] },
        { weight: 1, files: Array.from({ length: 60 }, (_, i) => ({ path: i === 0 ? 'common.py' : `f${i}.py`, chunks: 1, lines: 200 })) },
        { weight: 1, files: [{ path: 'short.py', chunks: 2, lines: 100 }, { path: 'long.py', chunks: 2, lines: 2000 }] },
      ],
      stats,
    );
    expect(s.get('rare.py')!).toBeGreaterThan(s.get('common.py')!);
    expect(s.get('short.py')!).toBeGreaterThan(s.get('long.py')!);
  });

  it('multiplies by the query weight of the group and leaves unmatched files out', () => {
    const one = fileBm25([{ weight: 1, files: [{ path: 'a.py', chunks: 1, lines: 200 }] }], stats).get('a.py')!;
    const three = fileBm25([{ weight: 3, files: [{ path: 'a.py', chunks: 1, lines: 200 }] }], stats).get('a.py')!;
    expect(three).toBeCloseTo(3 * one, 10);
    expect(fileBm25([{ weight: 1, files: [] }], stats).size).toBe(0);
  });
});

describe('mentionedNames', () => {
  it('takes compound identifiers in their case and capitalised backticked names, each once', () => {
    const text = 'Make MetaTensor optional in DataStats and DataStatsd\nthe `Inferer` and `logger` of get_running_exps; DataStats again; `a.b` x_y';
    // `logger` is a plain lowercase word: a name of too many things
    expect(mentionedNames(text)).toEqual(['Inferer', 'MetaTensor', 'DataStats', 'DataStatsd', 'get_running_exps']);
  });

  it('ignores plain words, short names and all-caps constants', () => {
    expect(mentionedNames('Fix the cosine noise scheduler, see README and HTTP_PROXY a_b')).toEqual([]);
  });
});

describe('mentionStrengths', () => {
  it('shares a name among the files defining it and skips names defined too widely', () => {
    const m = mentionStrengths(
      [
        { name: 'DataStats', paths: ['array.py'] },
        { name: 'Resize', paths: ['array.py', 'dictionary.py'] },
        { name: 'forward', paths: ['a.py', 'b.py', 'c.py', 'd.py'] },
      ],
      3,
    );
    expect(m.get('array.py')).toEqual({ strength: 1, names: ['DataStats', 'Resize'] });
    expect(m.get('dictionary.py')).toEqual({ strength: 0.5, names: ['Resize'] });
    expect(m.has('a.py')).toBe(false);
  });
});

describe('filePrior', () => {
  const ctx = { longQuery: true, wantsTests: false, wantsDocs: false, nonCode: 0.5 };
  it('weighs a file as its chunks are weighed', () => {
    expect(filePrior('dvc/output.py', 'code', ctx)).toBe(1);
    expect(filePrior('tests/test_output.py', 'code', ctx)).toBe(0.6);
    expect(filePrior('CHANGELOG.md', 'docs', ctx)).toBeCloseTo(0.3, 10);
    expect(filePrior('CHANGELOG.md', 'docs', { ...ctx, wantsDocs: true })).toBeCloseTo(0.6, 10);
  });
});

describe('applyFileEvidence', () => {
  it('blends each chunk with its file score and says so', () => {
    const out = applyFileEvidence([hit('a.py', 10), hit('b.py', 9)], { fileScores: new Map([['a.py', 1], ['b.py', 4]]), share: 0.5, boost: 0 });
    // a.py: 10 × (0.5 + 0.5 × 0.25) = 6.25; b.py: 9 × 1 = 9
    expect(out.map((h) => [h.path, h.score])).toEqual([
      ['b.py', 9],
      ['a.py', 6.25],
    ]);
    expect(out[1]!.why).toEqual(['file as a document 0.25 of the best ×0.63']);
  });

  it('boosts the chunks of a mentioned file by its strength', () => {
    const out = applyFileEvidence([hit('a.py', 10), hit('b.py', 8)], { share: 0, mentions: new Map([['b.py', { strength: 0.5, names: ['DataStats'] }]]), boost: 1 });
    expect(out.map((h) => [h.path, h.score])).toEqual([
      ['b.py', 12],
      ['a.py', 10],
    ]);
    expect(out[0]!.why).toEqual(['file defines DataStats (named in the query) ×1.5']);
  });

  it('changes nothing when both are off', () => {
    const hits = [hit('a.py', 10), hit('b.py', 8)];
    expect(applyFileEvidence(hits, { fileScores: new Map([['b.py', 1]]), share: 0, boost: 0 })).toEqual(hits);
  });
});

describe('fileEvidenceScores: fileBm25, fileCoverage and lines in one pass', () => {
  const file = fc.record({
    path: fc.constantFrom('a.py', 'b/c.ts', 'tests/test_a.py', 'docs/x.md', 'd.go', 'e.rs'),
    chunks: fc.integer({ min: 1, max: 40 }),
    lines: fc.integer({ min: 0, max: 5000 }),
    contentType: fc.option(fc.constantFrom('code', 'docs', 'config'), { nil: undefined }),
  });
  // a file appears at most once per group, as in the counts of one expression
  const group = fc.record({ weight: fc.double({ min: 0.1, max: 3, noNaN: true }), files: fc.uniqueArray(file, { selector: (f) => f.path, maxLength: 6 }) });
  const stats = fc.record({ files: fc.integer({ min: 0, max: 50_000 }), meanLines: fc.oneof(fc.constant(0), fc.double({ min: 0.5, max: 3000, noNaN: true })) });
  const entries = (m: Map<string, number>): Array<[string, number]> => [...m.entries()];
  // the same keys in the same order and the same numbers to the last bit (Object.is)
  const same = (a: Map<string, number>, b: Map<string, number>): boolean => a.size === b.size && entries(a).every(([k, v], i) => entries(b)[i]![0] === k && Object.is(entries(b)[i]![1], v));

  it('gives the reference functions\' maps exactly, with and without a prior', () => {
    const prior = (path: string, type: string | undefined): number => (path.startsWith('tests/') ? 0.5 : type === 'docs' ? 0.7 : 1);
    fc.assert(
      fc.property(fc.array(group, { maxLength: 8 }), stats, fc.boolean(), (groups, st, withPrior) => {
        const got = fileEvidenceScores(groups, st, withPrior ? prior : undefined);
        const lines = new Map<string, number>();
        for (const g of groups) for (const f of g.files) lines.set(f.path, f.lines);
        return same(got.scores, fileBm25(groups, st, withPrior ? prior : undefined)) && same(got.coverage, fileCoverage(groups, st)) && same(got.lines, lines);
      }),
      { numRuns: 500 },
    );
  });
});
