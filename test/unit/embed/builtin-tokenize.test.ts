import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeWeights, encodeWeights, fromHalf, toHalf, weightsByteLength } from '../../../src/embed/builtin/format.js';
import type { RowCache } from '../../../src/embed/builtin/tokenize.js';
import {
  featureScratch,
  featurize,
  foldWord,
  identifierTokens,
  MAX_TOKENIZE_CHARS,
  subwordGrams,
  tokenCounts,
  tokenHash,
  TOKENIZER_VERSION,
  TOKENIZER_VERSIONS,
  usesSubwords,
} from '../../../src/embed/builtin/tokenize.js';
import { IDENTIFIER_RE } from '../../../src/core/code-tokens.js';

describe('builtin model tokens', () => {
  it('splits identifiers into folded parts and keeps compound identifiers whole (golden)', () => {
    expect([...tokenCounts('function retryFailedUploads(uploads) { return uploads.map(retry_upload) }')]).toEqual([
      ['function', 1], ['retry', 2], ['fail', 1], ['upload', 4], ['retry_fail_upload', 1], ['return', 1], ['map', 1], ['retry_upload', 1],
    ]);
    // A query in words meets the code's identifier parts; snake and camel case meet as one whole token.
    expect(tokenCounts('where do we retry failed uploads').get('upload')).toBe(1);
    expect([...tokenCounts('get_user_name getUserName').keys()]).toEqual(['get', 'user', 'name', 'get_user_name']);
  });

  it('drops single letters, pure numbers and over-long parts', () => {
    expect([...tokenCounts('x = a1 + 42; abcdefghijklmnopqrstuvwxyz0123 ok').keys()]).toEqual(['ok']);
  });

  it('folds plural and verb endings the same way for every form', () => {
    expect(['retries', 'retried', 'retry'].map(foldWord)).toEqual(['retry', 'retry', 'retry']);
    expect(['stopping', 'stopped', 'stop'].map(foldWord)).toEqual(['stop', 'stop', 'stop']);
    expect(['matches', 'match', 'class', 'status', 'analysis'].map(foldWord)).toEqual(['match', 'match', 'class', 'status', 'analysis']);
  });

  it('featurizes known tokens to their rows and unknown ones to stable hash buckets', () => {
    const vocab = new Map([['parse', 0], ['config', 1]]);
    const f = featurize('parseConfig parse zyxwv', vocab, 16);
    const bucket = (t: string) => 2 + (tokenHash(t) % 16);
    expect([...f.ids]).toEqual([0, 1, bucket('parse_config'), bucket('zyxwv')]);
    expect(f.tf[0]).toBeCloseTo(1 + Math.log(2), 6);
    expect(featurize('zyxwv', new Map(), 0).ids).toHaveLength(0);
  });

  it('gives an unseen single part its character trigrams too, sharing one occurrence (tokenizer v2, golden)', () => {
    expect(subwordGrams('zyxw')).toEqual(['#<zy', '#zyx', '#yxw', '#xw>']);
    const vocab = new Map([['parse', 0], ['config', 1]]);
    const bucket = (t: string) => 2 + (tokenHash(t) % 4096);
    const f = featurize('parseZyxw parse', vocab, 4096, { subwords: true });
    // known part, then the unseen part's own bucket and its 4 trigrams (a quarter each), then the compound's bucket only
    expect([...f.ids]).toEqual([0, bucket('zyxw'), ...subwordGrams('zyxw').map(bucket), bucket('parse_zyxw')]);
    expect([...f.tf].map((x) => Number(x.toFixed(4)))).toEqual([Number((1 + Math.log(2)).toFixed(4)), 1, 0.25, 0.25, 0.25, 0.25, 1]);
    // a known word gives no trigrams; without subwords (v1) an unseen part is one bucket
    expect(featurize('parse config', vocab, 4096, { subwords: true }).ids).toHaveLength(2);
    expect([...featurize('zyxw', vocab, 4096).ids]).toEqual([bucket('zyxw')]);
  });

  it('featurizes the same with and without the row cache, for any text', () => {
    const vocab = new Map([['get', 0], ['user', 1], ['name', 2]]);
    const cache: RowCache = new Map();
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (text) => {
        const a = featurize(text, vocab, 64, { subwords: true });
        const b = featurize(text, vocab, 64, { subwords: true, cache });
        expect([...b.ids]).toEqual([...a.ids]);
        expect([...b.tf]).toEqual([...a.tf]);
        expect([...a.tf].every((x) => x > 0 && Number.isFinite(x))).toBe(true);
      }),
    );
  });

  it('featurizes exactly as a plain Map-counting reference, with a reused scratch, for any text', () => {
    const vocab = new Map([['get', 0], ['user', 1], ['name', 2], ['parse', 3]]);
    const buckets = 64;
    // the straightforward definition: each identifier's rows (vocabulary, else its bucket and trigram buckets), counts summed in a Map
    const reference = (text: string, subwords: boolean): { ids: number[]; tf: number[] } => {
      const counts = new Map<number, number>();
      const add = (row: number, w: number): void => void counts.set(row, (counts.get(row) ?? 0) + w);
      const bucket = (t: string): number => vocab.size + (tokenHash(t) % buckets);
      for (const m of text.slice(0, MAX_TOKENIZE_CHARS).matchAll(IDENTIFIER_RE)) {
        for (const token of identifierTokens(m[0])) {
          const row = vocab.get(token);
          if (row !== undefined) add(row, 1);
          else {
            add(bucket(token), 1);
            // a trigram's share of the occurrence is stored as a float32, as the row cache keeps it
            if (subwords && !token.includes('_')) for (const g of subwordGrams(token)) add(bucket(g), Math.fround(1 / subwordGrams(token).length));
          }
        }
      }
      return { ids: [...counts.keys()], tf: [...counts.values()].map((c) => Math.fround(c < 1 ? c : 1 + Math.log(c))) };
    };
    const scratch = featureScratch(vocab.size + buckets);
    const cache: RowCache = new Map();
    const words = fc.constantFrom('get', 'User', 'name', 'parse', 'zyx', 'Qwerty', '_', '$', ' ', '.', '(', '\n', '42', 'é', 'getUserName', 'parse_config');
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 120 }), fc.array(words, { maxLength: 60 }).map((w) => w.join(''))), fc.boolean(), (text, subwords) => {
        const f = featurize(text, vocab, buckets, { subwords, cache: subwords ? cache : undefined, scratch });
        const r = reference(text, subwords);
        expect([...f.ids]).toEqual(r.ids);
        expect([...f.tf]).toEqual(r.tf);
        expect(scratch.counts.every((c) => c === 0)).toBe(true);
      }),
    );
  });

  it('reads models of tokenizer v1 (one bucket per unseen token) and v2 (with trigrams)', () => {
    expect(TOKENIZER_VERSIONS).toEqual(['scry-code-tokens-1', TOKENIZER_VERSION]);
    expect(usesSubwords('scry-code-tokens-1')).toBe(false);
    expect(usesSubwords(TOKENIZER_VERSION)).toBe(true);
  });
});

describe('builtin model weight format', () => {
  it('round-trips half precision within its precision, and exactly for halves', () => {
    fc.assert(
      fc.property(fc.float({ min: Math.fround(-60000), max: Math.fround(60000), noNaN: true }), (x) => {
        const back = fromHalf(toHalf(x));
        expect(Math.abs(back - x)).toBeLessThanOrEqual(Math.max(Math.abs(x) * 2 ** -10, 2 ** -24));
        expect(toHalf(back)).toBe(toHalf(x));
      }),
    );
    expect(fromHalf(toHalf(1e6))).toBe(Infinity);
  });

  it('decodes what it encodes and refuses a file of the wrong length', () => {
    const rows = 3, dims = 4;
    const w = { rows, dims, vectors: Int8Array.from([1, -2, 3, -127, 0, 5, 6, 7, 127, 9, 10, -11]), scales: Float32Array.from([0.5, 0.25, 2]), queryWeights: Float32Array.from([1, 2, 3]), codeWeights: Float32Array.from([0.125, 4, 8]) };
    const bytes = encodeWeights(w);
    expect(bytes.byteLength).toBe(weightsByteLength(rows, dims));
    expect(decodeWeights(bytes, rows, dims)).toEqual(w);
    expect(decodeWeights(bytes.subarray(1), rows, dims)).toBeUndefined();
  });
});
