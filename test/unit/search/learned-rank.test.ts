import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadRankerModel } from '../../../src/engine/ranker-model.js';
import { blendWeights, codeWordsOf, extractFeatures, FEATURES, parseRankerModel, queryStems, scoreLinear, TEXT_FEATURES, weighsText, type RankerCandidate, type RankerQuery } from '../../../src/search/learned-rank.js';
import { isTestPath } from '../../../src/search/rank.js';

const cand = (over: Partial<RankerCandidate> & Pick<RankerCandidate, 'path'>): RankerCandidate => ({
  startLine: 1,
  endLine: 20,
  kind: 'function',
  contentType: 'code',
  symbol: null,
  container: null,
  signature: null,
  text: '',
  ...over,
});

const query = (words: string[], names: string[] = [], long = false): RankerQuery => ({ words, names: new Set(names), wantsTests: false, wantsDocs: false, long, codeWords: [], isTest: isTestPath });
const zero = (): Record<string, number> => Object.fromEntries(FEATURES.map((f) => [f, 0]));

describe('extractFeatures', () => {
  const cands = [
    cand({ path: 'src/upload/retry.ts', symbol: 'retryUpload', signature: 'function retryUpload(file: File)', text: 'export function retryUpload(file) { upload again after a failure }', lexical: { score: 10, rank: 1, bm25: 8 }, vector: { cosine: 0.4, rank: 2 } }),
    cand({ path: 'src/upload/retry.test.ts', kind: 'window', text: 'test retry upload', lexical: { score: 5, rank: 2, bm25: 4 } }),
    cand({ path: 'docs/guide.md', contentType: 'docs', kind: 'section', text: 'nothing relevant here', vector: { cosine: 0.8, rank: 1 } }),
  ];
  const f = extractFeatures(cands, query(['retry', 'uploads'], ['retryupload']));

  it('normalises lexical and vector scores over the candidates, 0 where a list did not rank the chunk', () => {
    expect(f.map((x) => x.lexical)).toEqual([1, 0.5, 0]);
    expect(f.map((x) => x.bm25)).toEqual([1, 0.5, 0]);
    expect(f.map((x) => x.lexicalRank)).toEqual([1, 1 / Math.log2(3), 0]);
    expect(f.map((x) => x.cosineNorm)).toEqual([0.5, 0, 1]);
    expect(f.map((x) => x.cosine)).toEqual([0.4, 0, 0.8]);
    expect(f[2]!.cosineRank).toBe(1);
  });

  it('scores the file of each chunk by its lexical chunks, over the best file', () => {
    expect(f[0]!.file).toBe(1);
    expect(f[1]!.file).toBe(0.5);
    expect(f[2]!.file).toBe(0);
  });

  it('reads coverage, names, path and structure', () => {
    // `uploads` matches `upload` through its prefix; docs/guide.md holds neither word
    expect(f[0]!.coverage).toBe(1);
    expect(f[2]!.coverage).toBe(0);
    expect(f[0]!.nameCoverage).toBe(1);
    expect(f[0]!.pathCoverage).toBe(1);
    expect(f[0]!.definesName).toBe(1);
    expect(f[0]!.definition).toBe(1);
    expect(f[1]!.definition).toBe(0);
    expect(f[1]!.test).toBe(1);
    expect(f[2]!.nonCode).toBe(1);
    expect(f[0]!.test + f[0]!.nonCode).toBe(0);
  });

  it('keeps every feature within 0–1 on any candidates (property)', () => {
    const arbCand = fc.record({
      path: fc.constantFrom('a.ts', 'b/test_x.py', 'README.md', 'src/c.go'),
      startLine: fc.integer({ min: 1, max: 500 }),
      len: fc.integer({ min: -10, max: 5000 }),
      kind: fc.constantFrom('function', 'window', 'imports', 'section'),
      contentType: fc.constantFrom('code', 'docs', 'config'),
      symbol: fc.option(fc.string(), { nil: null }),
      text: fc.string(),
      lex: fc.option(fc.record({ score: fc.double({ min: -5, max: 50, noNaN: true }), rank: fc.integer({ min: 1, max: 100 }), bm25: fc.double({ min: -5, max: 50, noNaN: true }) }), { nil: undefined }),
      vec: fc.option(fc.record({ cosine: fc.double({ min: -1, max: 1, noNaN: true }), rank: fc.integer({ min: 1, max: 100 }) }), { nil: undefined }),
    });
    fc.assert(
      fc.property(fc.array(arbCand, { maxLength: 12 }), fc.array(fc.string(), { maxLength: 6 }), (raw, words) => {
        const cs = raw.map((r) => cand({ path: r.path, startLine: r.startLine, endLine: r.startLine + r.len, kind: r.kind, contentType: r.contentType, symbol: r.symbol, text: r.text, lexical: r.lex, vector: r.vec }));
        for (const x of extractFeatures(cs, query(words))) for (const name of FEATURES) expect(x[name] >= 0 && x[name] <= 1, `${name} = ${x[name]}`).toBe(true);
      }),
    );
  });
});

describe('text features', () => {
  it('only TEXT_FEATURES read the chunk text: without it every other feature is the same (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom('src/a.ts', 'b/test_x.py', 'README.md'), fc.string(), fc.double({ min: 0, max: 9, noNaN: true })), { minLength: 1, maxLength: 8 }), fc.array(fc.constantFrom('parse', 'Config', 'max_retries', 'upload', 'zz'), { maxLength: 4 }), fc.boolean(), (raw, words, long) => {
        const cs = raw.map(([path, text, score], i) => cand({ path, startLine: i + 1, text: `${text} parse config max_retries`, lexical: { score, rank: i + 1, bm25: score }, vector: { cosine: score / 10, rank: i + 1 } }));
        const q = { ...query(words, [], long), codeWords: codeWordsOf(words.join(' ')) };
        const withText = extractFeatures(cs, q);
        const without = extractFeatures(cs.map((c) => ({ ...c, text: '' })), q);
        for (const [i, x] of withText.entries()) for (const f of FEATURES) if (!TEXT_FEATURES.includes(f)) expect(without[i]![f], f).toBe(x[f]);
      }),
    );
  });

  it('the blend weighs no text feature (it reads no candidate text); the shipped learned weights do', () => {
    expect(weighsText(blendWeights(0.3))).toBe(false);
    expect(weighsText(loadRankerModel().hybrid)).toBe(true);
    expect(weighsText({ ...blendWeights(0.3), codeWords: 0.1 })).toBe(true);
  });
});

describe('long queries and code words', () => {
  const cs = [
    cand({ path: 'src/a.ts', text: 'function parseConfig() { return max_retries }', lexical: { score: 4, rank: 1, bm25: 4 }, vector: { cosine: 0.5, rank: 1 } }),
    cand({ path: 'src/b.ts', text: 'nothing', lexical: { score: 2, rank: 2, bm25: 2 } }),
  ];

  it('repeats lexical, file, coverage and cosine in the long-query features only for a long query', () => {
    const short = extractFeatures(cs, query(['parse']));
    const long = extractFeatures(cs, query(['parse'], [], true));
    expect(short.map((x) => x.lexicalLong + x.fileLong + x.coverageLong + x.cosineLong)).toEqual([0, 0]);
    expect(long.map((x) => [x.lexicalLong, x.fileLong, x.coverageLong, x.cosineLong])).toEqual(long.map((x) => [x.lexical, x.file, x.coverage, x.cosineNorm]));
    expect(long[0]!.lexicalLong).toBe(1);
  });

  it('counts the words the query writes as code that the chunk holds', () => {
    const q = { ...query(['x']), codeWords: codeWordsOf('crash in parseConfig when max_retries is unset, see Foo.bar') };
    expect(q.codeWords).toEqual(['parseconfig', 'max_retries', 'foo.bar']);
    expect(extractFeatures(cs, q).map((x) => x.codeWords)).toEqual([2 / 3, 0]);
    expect(codeWordsOf('plain words only here')).toEqual([]);
  });
});

describe('queryStems', () => {
  it('lowercases, splits and cuts long words to a prefix', () => {
    expect(queryStems(['Retries', 'uploadFile', 'a', 'x.y', 'get_user'])).toEqual(['retri', 'uploadf', 'get_u']);
  });
});

describe('scoreLinear', () => {
  it('sums weight × feature and lists the non-zero contributions', () => {
    const x = { ...zero(), lexical: 0.5, file: 1, test: 1 } as never;
    const w = { ...zero(), lexical: 2, file: 3, test: -1, coverage: 5 } as never;
    const s = scoreLinear(x, w);
    expect(s.score).toBe(1 + 3 - 1);
    expect(s.contributions).toEqual({ lexical: 1, file: 3, test: -1 });
  });
});

describe('parseRankerModel', () => {
  const good = { version: 1, lexical: { ...zero(), lexical: 1 }, hybrid: { ...zero(), cosine: 1 }, diversity: { cap: 3, within: 0.7 } };

  it('accepts a complete file and fills absent features with 0', () => {
    const { lexical, ...rest } = good;
    const m = parseRankerModel({ ...rest, lexical: { lexical: 2 } });
    expect(m.lexical.lexical).toBe(2);
    expect(m.lexical.cosine).toBe(0);
    expect(m.diversity).toEqual({ cap: 3, within: 0.7 });
    expect(lexical.lexical).toBe(1);
  });

  it.each([
    ['not an object', null],
    ['a weight set missing', { ...good, hybrid: undefined }],
    ['a weight that is not a number', { ...good, lexical: { ...good.lexical, file: 'x' } }],
    ['a weight that is not finite', { ...good, lexical: { ...good.lexical, file: Infinity } }],
    ['a fractional cap', { ...good, diversity: { cap: 1.5, within: 0.7 } }],
    ['within above 1', { ...good, diversity: { cap: 3, within: 2 } }],
  ])('refuses %s', (_name, json) => {
    expect(() => parseRankerModel(json)).toThrow();
  });

  it('the shipped weights parse', () => {
    const m = loadRankerModel();
    expect(m.version).toBeGreaterThanOrEqual(1);
    expect(Object.keys(m.lexical)).toEqual([...FEATURES]);
  });
});

describe('the shipped weights (ranking set)', () => {
  const model = loadRankerModel();
  const order = (cs: readonly RankerCandidate[], q: RankerQuery, w = model.lexical): string[] =>
    extractFeatures(cs, q)
      .map((x, i) => ({ path: `${cs[i]!.path}:${cs[i]!.startLine}`, s: scoreLinear(x, w).score }))
      .sort((a, b) => b.s - a.s)
      .map((x) => x.path);

  it('puts the definition of the function the query describes above its test and a README mentioning it', () => {
    // lexically the test file scores highest (it repeats the words); the learned weights still prefer the definition
    const cs = [
      cand({ path: 'src/upload.test.ts', kind: 'window', text: 'retry failed uploads retry failed uploads test', lexical: { score: 10, rank: 1, bm25: 10 } }),
      cand({ path: 'src/upload.ts', symbol: 'retryFailedUploads', signature: 'export function retryFailedUploads(queue)', text: 'export function retryFailedUploads(queue) { for (const item of queue) send(item) } // failed', lexical: { score: 8, rank: 2, bm25: 8 } }),
      cand({ path: 'README.md', kind: 'section', contentType: 'docs', text: 'Uploads that failed are retried', lexical: { score: 7, rank: 3, bm25: 7 } }),
    ];
    expect(order(cs, query(['retry', 'failed', 'uploads']))[0]).toBe('src/upload.ts:1');
  });

  it('lets a strong cosine lift a chunk the lexical list ranked low, in hybrid weights only', () => {
    const cs = [
      cand({ path: 'src/a.ts', startLine: 1, text: 'queue items', lexical: { score: 5, rank: 1, bm25: 5 }, vector: { cosine: 0.1, rank: 40 } }),
      cand({ path: 'src/a.ts', startLine: 40, endLine: 59, text: 'queue items send again', lexical: { score: 4.5, rank: 2, bm25: 4.5 }, vector: { cosine: 0.6, rank: 1 } }),
    ];
    const q = query(['queue', 'items']);
    expect(order(cs, q, model.hybrid)).toEqual(['src/a.ts:40', 'src/a.ts:1']);
    expect(order(cs, q, model.lexical)).toEqual(['src/a.ts:1', 'src/a.ts:40']);
  });
});
