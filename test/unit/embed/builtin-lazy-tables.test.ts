/**
 * The builtin model decodes its tables as they are used (issue 19): the vectors must be the ones a
 * whole-table decode gives, bit for bit, for queries and code, before and after the vocabulary
 * turns into a Map.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeWeights } from '../../../src/embed/builtin/format.js';
import { lazyWeightRows, VocabLookup } from '../../../src/embed/builtin/lazy-tables.js';
import { defaultBuiltinModelDir, loadBuiltinModel, type BuiltinModel } from '../../../src/embed/builtin/model.js';
import { featurize, usesSubwords } from '../../../src/embed/builtin/tokenize.js';

const dir = defaultBuiltinModelDir();
const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as { dimensions: number; vocabSize: number; hashBuckets: number; tokenizer: string };
const tokens = readFileSync(join(dir, 'vocab.txt'), 'utf8').split('\n').filter((t, i, all) => i < all.length - 1 || t !== '');
const weightBytes = readFileSync(join(dir, 'weights.bin'));
const rows = manifest.vocabSize + manifest.hashBuckets;
const dims = manifest.dimensions;

/** The model as it was before: every row dequantised up front, a Map of the vocabulary. */
function eagerEmbed(): (text: string, purpose: 'query' | 'document') => Float32Array {
  const w = decodeWeights(weightBytes, rows, dims)!;
  const table = new Float32Array(rows * dims);
  for (let r = 0; r < rows; r++) for (let j = 0; j < dims; j++) table[r * dims + j] = w.vectors[r * dims + j]! * w.scales[r]!;
  const vocab = new Map<string, number>();
  tokens.forEach((t, i) => vocab.set(t, i));
  return (text, purpose) => {
    const f = featurize(text, vocab, manifest.hashBuckets, { subwords: usesSubwords(manifest.tokenizer) });
    const weights = purpose === 'query' ? w.queryWeights : w.codeWeights;
    const out = new Float32Array(dims);
    for (let k = 0; k < f.ids.length; k++) {
      const a = weights[f.ids[k]!]! * f.tf[k]!;
      for (let j = 0; j < dims; j++) out[j]! += a * table[f.ids[k]! * dims + j]!;
    }
    let n = 0;
    for (let j = 0; j < dims; j++) n += out[j]! * out[j]!;
    if (n > 0) for (let j = 0; j < dims; j++) out[j]! /= Math.sqrt(n);
    return out;
  };
}

const bytesOf = (v: Float32Array): string => Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('hex');

/** Texts of vocabulary tokens, unseen words and identifiers, joined by code punctuation. */
const text = fc
  .array(fc.oneof(fc.constantFrom(...tokens.slice(0, 3000)), fc.stringMatching(/^[a-zA-Z_][a-zA-Z0-9_]{0,14}$/), fc.constantFrom('getUserName', 'parse_json', 'HTTPServer', 'x')), { minLength: 0, maxLength: 12 })
  .chain((parts) => fc.constantFrom(' ', '.', '(', ', ', '\n').map((sep) => parts.join(sep)));

describe('the builtin model decodes its rows on first use', () => {
  let model: BuiltinModel;
  let eager: ReturnType<typeof eagerEmbed>;
  beforeAll(async () => {
    model = await loadBuiltinModel();
    eager = eagerEmbed();
  });

  it('embeds every text, query and code side, to the bytes a whole-table decode gives (property, across the switch to a Map)', () => {
    fc.assert(
      fc.property(text, fc.constantFrom('query' as const, 'document' as const), (t, purpose) => {
        expect(bytesOf(model.embed(t, purpose))).toBe(bytesOf(eager(t, purpose)));
      }),
      { numRuns: 400 },
    );
  });

  it('decodes each row as decodeWeights and a full dequantisation do', () => {
    const w = decodeWeights(weightBytes, rows, dims)!;
    const lazy = lazyWeightRows(weightBytes, rows, dims)!;
    for (const r of [0, 1, 777, manifest.vocabSize - 1, manifest.vocabSize, rows - 1]) {
      lazy.ensure(r);
      lazy.ensure(r);
      expect(lazy.queryWeights[r]).toBe(w.queryWeights[r]);
      expect(lazy.codeWeights[r]).toBe(w.codeWeights[r]);
      for (let j = 0; j < dims; j++) expect(lazy.table[r * dims + j]).toBe(Math.fround(w.vectors[r * dims + j]! * w.scales[r]!));
    }
    expect(lazy.table[2 * dims]).toBe(0); // a row never asked for is never decoded
    expect(lazyWeightRows(weightBytes.subarray(1), rows, dims)).toBeUndefined();
  });
});

describe('VocabLookup', () => {
  it('answers as a Map filled in order (a token listed twice: its last row), before and after it builds one', () => {
    const list = ['a', 'b', 'dup', 'c', 'dup', '', 'z'];
    const map = new Map<string, number>();
    list.forEach((t, i) => map.set(t, i));
    const lookup = new VocabLookup(list);
    expect(lookup.size).toBe(list.length);
    const asks = ['dup', 'a', 'z', 'nope', '', 'c', 'DUP'];
    for (let round = 0; round < 40; round++) for (const t of asks) expect(lookup.get(t)).toBe(map.get(t));
  });
});
