import { describe, expect, it } from 'vitest';
import { fileCoverage } from '../../../src/search/file-score.js';
import { FILE_FEATURES, fileFeatures, parseFileRankModel, rankPoolFiles, scoreFile, type FileRankChunk, type FileRankContext, type FileRankModel, type FileWeights } from '../../../src/search/file-rank.js';
import { isTestPath } from '../../../src/search/rank.js';

const chunk = (path: string, score: number, startLine = 1, contentType = 'code'): FileRankChunk => ({ path, score, startLine, endLine: startLine + 9, bm25: -score, contentType });

const weights = (w: Partial<FileWeights>): FileWeights => Object.fromEntries(FILE_FEATURES.map((f) => [f, w[f] ?? 0])) as FileWeights;
const model = (hybrid: Partial<FileWeights>, temperature = 1, lexical: Partial<FileWeights> = hybrid): FileRankModel => ({ version: 1, hybrid: weights(hybrid), lexical: weights(lexical), temperature });
const ctx = (over: Partial<FileRankContext> = {}): FileRankContext => ({ text: 'The cache is not invalidated', words: ['cache', 'invalidated'], wantsTests: false, isTest: isTestPath, ...over });

describe('fileFeatures: what the file ranker knows of each pool file', () => {
  it('reads the chunks, the file evidence, mentions, path mentions and the prior, each in 0–1', () => {
    const pool = [chunk('dvc/output.py', 10), chunk('dvc/cache/base.py', 8), chunk('dvc/output.py', 6, 40), chunk('tests/test_cache.py', 5)];
    const f = fileFeatures(
      pool,
      ctx({
        text: 'Fix dvc/output.py: `Cache.save` breaks in base when the cache is full',
        fileScores: new Map([['dvc/cache/base.py', 4], ['dvc/output.py', 2], ['other.py', 8]]),
        coverage: new Map([['dvc/cache/base.py', 0.75]]),
        mentions: new Map([['dvc/cache/base.py', { strength: 0.5, names: ['Cache'] }]]),
        prior: new Map([['dvc/output.py', 1], ['dvc/cache/base.py', 0.25]]),
      }),
    );
    const out = f.get('dvc/output.py')!;
    const base = f.get('dvc/cache/base.py')!;
    const test = f.get('tests/test_cache.py')!;
    expect(out.best).toBe(1);
    expect(out.bestRank).toBe(1);
    expect(base.best).toBeCloseTo(1 + Math.log(0.8) / 4);
    expect(out.chunks).toBeGreaterThan(base.chunks);
    expect(out.top3).toBeCloseTo(16 / 30);
    // evidence over the best file it scored (other.py, not in the pool), ranked among all of them
    expect(base.evidence).toBe(0.5);
    expect(base.evidenceRank).toBeCloseTo(1 / Math.log2(3));
    expect(base.coverage).toBe(0.75);
    expect(base.mention).toBe(0.5);
    expect(out.pathNamed).toBe(1);
    expect(base.pathNamed).toBe(0);
    // `base` (4 characters) is a word of the text
    expect(base.stemNamed).toBe(1);
    expect(base.pathCoverage).toBe(0.5);
    expect(test.test).toBe(1);
    expect(out.prior).toBe(1);
    expect(base.priorRank).toBeCloseTo(1 / Math.log2(3));
    expect(test.prior).toBe(0);
    for (const v of f.values()) for (const x of Object.values(v)) expect(x >= 0 && x <= 1).toBe(true);
  });

  it('ranks files by evidence among every scored file, ties in path order', () => {
    const scores = new Map([['z.py', 5], ['a.py', 5], ['m.py', 9], ...Array.from({ length: 50 }, (_, i) => [`f${i}.py`, 1] as const)]);
    const f = fileFeatures([chunk('z.py', 3), chunk('a.py', 2)], ctx({ fileScores: scores }));
    expect(f.get('a.py')!.evidenceRank).toBeCloseTo(1 / Math.log2(3));
    expect(f.get('z.py')!.evidenceRank).toBeCloseTo(1 / Math.log2(4));
  });

  it('finds a stem written as a word and a dotted module path, not a stem inside a longer word', () => {
    const f = fileFeatures([chunk('monai/transforms/utility/array.py', 3), chunk('dvc/repo/experiments/show.py', 2), chunk('src/runner.py', 1), chunk('src/io.py', 1)], ctx({ text: 'monai.transforms.utility.array fails; the runners crash in io' }));
    expect(f.get('src/io.py')!.stemNamed).toBe(0);
    expect(f.get('monai/transforms/utility/array.py')!.pathNamed).toBe(1);
    expect(f.get('src/runner.py')!.stemNamed).toBe(0);
    expect(f.get('dvc/repo/experiments/show.py')!.stemNamed).toBe(0);
  });
});

describe('rankPoolFiles: files in the ranker order, each file keeping its chunk order', () => {
  const pool = [chunk('a.py', 10, 1), chunk('a.py', 9, 20), chunk('b.py', 8, 1), chunk('a.py', 7, 40), chunk('b.py', 4, 30), chunk('c.py', 3, 1)];

  it('puts the file the model prefers first and keeps each file’s chunks in their order', () => {
    const ranked = rankPoolFiles(pool, ctx({ mentions: new Map([['b.py', { strength: 1, names: ['B'] }]]) }), model({ best: 1, mention: 5 }));
    expect(ranked.map((h) => h.path)[0]).toBe('b.py');
    for (const path of ['a.py', 'b.py']) {
      const lines = ranked.filter((h) => h.path === path).map((h) => h.startLine);
      expect(lines).toEqual(pool.filter((h) => h.path === path).map((h) => h.startLine));
    }
    expect(ranked).toHaveLength(pool.length);
  });

  it('interleaves files by temperature: a hot ranker lists a file’s second chunk only after close files', () => {
    const cold = rankPoolFiles(pool, ctx(), model({ best: 1 }, 0.01)).map((h) => h.path);
    expect(cold).toEqual(['a.py', 'a.py', 'a.py', 'b.py', 'b.py', 'c.py']);
    const warm = rankPoolFiles(pool, ctx(), model({ best: 1 }, 100)).map((h) => h.path);
    // at a high temperature the chunks' own shares of their file's best decide: b.py's best (share 1) before a.py's second (0.9)
    expect(warm.slice(0, 3)).toEqual(['a.py', 'b.py', 'c.py']);
  });

  it('uses the lexical weights without the model, the hybrid ones with it, and explains each file', () => {
    const m = model({ prior: 10 }, 1, { best: 1 });
    const withPrior = rankPoolFiles(pool, ctx({ prior: new Map([['c.py', 1], ['a.py', 0]]) }), m, true);
    expect(withPrior[0]!.path).toBe('c.py');
    expect(withPrior[0]!.ranker!.model).toBe('file-hybrid');
    const trace = withPrior[0]!.ranker!;
    expect(Object.values(trace.contributions).reduce((a, c) => a + c, 0)).toBeCloseTo(trace.score);
    expect(withPrior[0]!.why!.at(-1)).toMatch(/^file ranker: file 1 \(score 10: prior \+10\)/);
    const lexical = rankPoolFiles(pool, ctx(), m, true);
    expect(lexical[0]!.path).toBe('a.py');
    expect(lexical[0]!.ranker!.model).toBe('file-lexical');
  });

  it('scores a file as the sum of weight × feature', () => {
    const x = Object.fromEntries(FILE_FEATURES.map((f, i) => [f, i / FILE_FEATURES.length])) as Parameters<typeof scoreFile>[0];
    const w = weights({ best: 2, test: -1, prior: 0.5 });
    expect(scoreFile(x, w).score).toBeCloseTo(2 * x.best - x.test + 0.5 * x.prior);
  });
});

describe('fileCoverage', () => {
  it('is the IDF-weighted share of the groups a file matches', () => {
    const c = fileCoverage(
      [
        { weight: 1, files: [{ path: 'a.py', chunks: 1, lines: 10 }] },
        { weight: 1, files: Array.from({ length: 50 }, (_, i) => ({ path: i === 0 ? 'b.py' : `f${i}.py`, chunks: 1, lines: 10 })) },
      ],
      { files: 100 },
    );
    expect(c.get('a.py')!).toBeGreaterThan(c.get('b.py')!);
    expect(c.get('a.py')! + c.get('b.py')!).toBeCloseTo(1);
  });
});

describe('parseFileRankModel', () => {
  it('reads a weights file, a missing weight counting 0', () => {
    const m = parseFileRankModel({ version: 2, temperature: 3, lexical: { best: 1 }, hybrid: { best: 2, prior: 1 } });
    expect(m.temperature).toBe(3);
    expect(m.hybrid.prior).toBe(1);
    expect(m.lexical.prior).toBe(0);
  });

  it('refuses a malformed one', () => {
    expect(() => parseFileRankModel(null)).toThrow('not an object');
    expect(() => parseFileRankModel({ lexical: {} })).toThrow('no "hybrid" weights');
    expect(() => parseFileRankModel({ lexical: { best: 'x' }, hybrid: {} })).toThrow('"lexical.best" is not a finite number');
    expect(() => parseFileRankModel({ lexical: {}, hybrid: {}, temperature: 0 })).toThrow('temperature');
  });
});
