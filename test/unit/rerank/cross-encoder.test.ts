import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadOnnxRuntime } from '../../../src/embed/runtimes.js';
import { isEngineError } from '../../../src/core/errors.js';
import type { Clock, Logger } from '../../../src/core/logger.js';
import type { CrossEncoderConfig } from '../../../src/rerank/cross-encoder.js';
import { createCrossEncoderReranker, locateCrossEncoderFiles } from '../../../src/rerank/cross-encoder.js';
import { batchInputs } from '../../../src/rerank/onnx-pair-scorer.js';
import { loadPairTokenizer, truncateLongestFirst } from '../../../src/rerank/pair-tokenizer.js';
import type { RerankCandidate, Reranker } from '../../../src/rerank/reranker.js';
import type { TinyModelOptions } from '../../helpers/tiny-onnx.js';
import { TINY_VOCAB, writeTinyCrossEncoder } from '../../helpers/tiny-onnx.js';
import { tempDir } from '../../helpers/temp.js';

// The tiny model scores a pair as the sum of its token weights (zebra 10, giraffe 3, others 0),
// over the unmasked tokens; see test/helpers/tiny-onnx.ts. So every expected score below is exact.

const temp = tempDir('scry-cross-encoder-');
let modelCount = 0;
const modelDir = (options: TinyModelOptions = {}) => writeTinyCrossEncoder(join(temp.dir, `m${modelCount++}`), options);

const open: Reranker[] = [];
function reranker(dir: string, overrides: Partial<CrossEncoderConfig> = {}): Reranker {
  const r = createCrossEncoderReranker({ modelDir: dir, maxLength: 64, maxCandidates: 50, timeoutMs: 60_000, loadRuntime: () => loadOnnxRuntime(), ...overrides });
  open.push(r);
  return r;
}

const candidate = (id: string, text: string): RerankCandidate => ({ id, path: `src/${id}.ts`, startLine: 1, endLine: 9, text });
const ids = (list: readonly RerankCandidate[]) => list.map((c) => c.id);

let plainDir: string;
beforeAll(() => {
  plainDir = modelDir();
});
afterAll(async () => {
  await Promise.all(open.map((r) => r.close()));
  temp.cleanup();
});

describe('createCrossEncoderReranker: ranking', () => {
  it('moves the chunk the model likes to the top and reports each logit', async () => {
    const r = reranker(plainDir);
    const list = [candidate('a', 'parse the config file'), candidate('b', 'the giraffe file'), candidate('c', 'a zebra config')];
    const out = await r.rerank('parse config', list);
    // c holds the marker (10), b a lesser word (3), a nothing the model weighs (0).
    expect(out.order).toEqual(['c', 'b', 'a']);
    expect(Object.fromEntries(out.scores)).toEqual({ a: 0, b: 3, c: 10 });
    expect(out.skipped).toBeUndefined();
    expect(out.cached).toBe(0);
    expect(r.name).toBe('cross-encoder');
    expect(r.model).toBe('m0');
  });

  it('scores more candidates than one batch holds, padding each batch without counting the padding', async () => {
    const r = reranker(plainDir, { batchSize: 4 });
    // Different lengths in one batch: [PAD] weighs 100, so an unmasked pad would show.
    const list = Array.from({ length: 11 }, (_, i) => candidate(`c${i}`, `${'the '.repeat(i)}${i === 9 ? 'zebra' : 'file'}`));
    const out = await r.rerank('config', list);
    expect(out.scores.size).toBe(11);
    expect(out.order[0]).toBe('c9');
    expect(out.order.slice(1)).toEqual(ids(list).filter((id) => id !== 'c9'));
    expect([...out.scores.values()].filter((s) => s !== 0)).toEqual([10]);
  });

  it('scores only the first maxCandidates; the rest keep their places and are not counted as skipped', async () => {
    const r = reranker(plainDir, { maxCandidates: 3 });
    const list = [candidate('a', 'file'), candidate('b', 'giraffe'), candidate('c', 'the'), candidate('d', 'zebra'), candidate('e', 'zebra')];
    const out = await r.rerank('q', list);
    expect(out.order).toEqual(['b', 'a', 'c', 'd', 'e']);
    expect([...out.scores.keys()]).toEqual(['a', 'b', 'c']);
    expect(out.skipped).toBeUndefined();
  });

  it('returns an empty outcome for no candidates', async () => {
    const out = await reranker(plainDir).rerank('q', []);
    expect(out).toMatchObject({ order: [], cached: 0 });
    expect(out.skipped).toBeUndefined();
  });
});

describe('createCrossEncoderReranker: model inputs and outputs', () => {
  const list = [candidate('a', 'parse file'), candidate('b', 'giraffe file')];

  it('feeds token_type_ids when the model declares it: only the passage segment counts', async () => {
    const out = await reranker(modelDir({ tokenTypeIds: true })).rerank('zebra', list);
    expect(Object.fromEntries(out.scores)).toEqual({ a: 0, b: 3 });
  });

  it('runs a model that does not declare token_type_ids: the query counts too', async () => {
    const out = await reranker(plainDir).rerank('zebra', list);
    expect(out.skipped).toBeUndefined();
    expect(Object.fromEntries(out.scores)).toEqual({ a: 10, b: 13 });
  });

  it('builds exactly the declared inputs, padded to the longest pair and masked there', () => {
    // onnxruntime ignores a feed the model does not declare, so only this pure step can show it is left out.
    const encoded = [
      { ids: [2, 6, 3, 4, 3], typeIds: [0, 0, 0, 1, 1] },
      { ids: [2, 3, 5, 3], typeIds: [0, 0, 1, 1] },
    ];
    const plain = batchInputs(new Map([['input_ids', 'int64'], ['attention_mask', 'int64']] as const), encoded, 0);
    expect([...plain.keys()]).toEqual(['input_ids', 'attention_mask']);
    expect(plain.get('input_ids')).toEqual({ type: 'int64', dims: [2, 5], data: BigInt64Array.from([2n, 6n, 3n, 4n, 3n, 2n, 3n, 5n, 3n, 0n]) });
    expect([...plain.get('attention_mask')!.data].map(Number)).toEqual([1, 1, 1, 1, 1, 1, 1, 1, 1, 0]);
    const typed = batchInputs(new Map([['input_ids', 'int32'], ['token_type_ids', 'int32']] as const), encoded, 7);
    expect([...typed.keys()]).toEqual(['input_ids', 'token_type_ids']);
    expect(typed.get('input_ids')!.data).toEqual(Int32Array.from([2, 6, 3, 4, 3, 2, 3, 5, 3, 7]));
    expect(typed.get('token_type_ids')!.data).toEqual(Int32Array.from([0, 0, 0, 1, 1, 0, 0, 1, 1, 0]));
  });

  it('takes the last column of [batch, 2] logits, and feeds int32 ids to a model that wants them', async () => {
    const out = await reranker(modelDir({ logitsColumns: 2, idType: 'int32' })).rerank('q', list);
    expect(out.skipped).toBeUndefined();
    expect(Object.fromEntries(out.scores)).toEqual({ a: 0, b: 3 });
  });

  it('finds the model at onnx/model.onnx', async () => {
    const dir = modelDir({ inOnnxSubdir: true });
    expect(locateCrossEncoderFiles(dir).modelPath).toBe(join(dir, 'onnx', 'model.onnx'));
    expect((await reranker(dir).rerank('q', list)).scores.size).toBe(2);
  });
});

describe('createCrossEncoderReranker: truncation', () => {
  it('cuts a very long chunk to maxLength instead of failing; what lies past the cut is not read', async () => {
    const r = reranker(plainDir, { maxLength: 32 });
    const long = candidate('long', `${'filler '.repeat(20_000)}zebra`);
    const short = candidate('short', 'giraffe');
    const out = await r.rerank('parse config', [long, short]);
    expect(out.skipped).toBeUndefined();
    expect(Object.fromEntries(out.scores)).toEqual({ long: 0, short: 3 });
  });

  it('encodes [CLS] query [SEP] passage [SEP] within the budget, the longer side cut first', async () => {
    const tokenizer = await loadPairTokenizer(plainDir, 32);
    const id = (w: (typeof TINY_VOCAB)[number]) => TINY_VOCAB.indexOf(w);
    const short = tokenizer.encodePair('Parse', 'zebra file');
    expect(short.ids).toEqual([id('[CLS]'), id('parse'), id('[SEP]'), id('zebra'), id('file'), id('[SEP]')]);
    expect(short.typeIds).toEqual([0, 0, 0, 1, 1, 1]);
    const long = tokenizer.encodePair('parse config', 'file '.repeat(500));
    expect(long.ids).toHaveLength(32);
    expect(long.ids.slice(0, 4)).toEqual([id('[CLS]'), id('parse'), id('config'), id('[SEP]')]);
    expect(long.ids.at(-1)).toBe(id('[SEP]'));
    expect(tokenizer.padId).toBe(id('[PAD]'));
  });

  it('lowers the budget to the model_max_length of tokenizer_config.json', async () => {
    const tokenizer = await loadPairTokenizer(modelDir({ modelMaxLength: 40 }), 512);
    expect(tokenizer.maxLength).toBe(40);
    expect(tokenizer.encodePair('q', 'the '.repeat(100)).ids).toHaveLength(40);
  });

  it('truncateLongestFirst matches one-at-a-time removal from the longer side (the second on a tie)', () => {
    const naive = (a: number, b: number, budget: number): [number, number] => {
      while (a + b > budget) {
        if (a > b) a--;
        else b--;
      }
      return [a, b];
    };
    const cases: string[] = [];
    for (let a = 0; a <= 12; a++) {
      for (let b = 0; b <= 12; b++) {
        for (let budget = 0; budget <= 14; budget++) cases.push(`${a}+${b}→${budget}`);
      }
    }
    const run = (f: (a: number, b: number, budget: number) => [number, number]) =>
      cases.map((c) => {
        const [a, b, budget] = c.split(/[+→]/).map(Number) as [number, number, number];
        return `${c} = ${f(a, b, budget).join('+')}`;
      });
    expect(run(truncateLongestFirst)).toEqual(run(naive));
  });
});

describe('createCrossEncoderReranker: failures', () => {
  const list = [candidate('a', 'file'), candidate('b', 'zebra'), candidate('c', 'giraffe')];

  it('throws CONFIG_INVALID at creation for a missing directory, tokenizer or model', () => {
    const empty = join(temp.dir, 'empty');
    mkdirSync(empty);
    const noModel = join(temp.dir, 'no-model');
    mkdirSync(noModel);
    writeFileSync(join(noModel, 'tokenizer.json'), '{}');
    const cases: [string, RegExp][] = [
      [join(temp.dir, 'absent'), /no such directory/],
      [empty, /no tokenizer\.json/],
      [noModel, /no model\.onnx or onnx\/model\.onnx/],
    ];
    for (const [dir, reason] of cases) {
      let caught: unknown;
      try {
        createCrossEncoderReranker({ modelDir: dir, maxLength: 64, maxCandidates: 10, timeoutMs: 1000, loadRuntime: () => loadOnnxRuntime() });
      } catch (err) {
        caught = err;
      }
      expect(isEngineError(caught, 'CONFIG_INVALID'), dir).toBe(true);
      expect((caught as Error).message).toMatch(reason);
      expect((caught as Error).message).toContain('rerank.crossEncoder.modelDir');
    }
  });

  it('a corrupt model.onnx leaves the input order, skipped "unavailable", warns once and never throws', async () => {
    const dir = modelDir();
    writeFileSync(join(dir, 'model.onnx'), 'not an onnx model');
    const warnings: string[] = [];
    const logger: Logger = { debug: () => {}, info: () => {}, warn: (m) => warnings.push(m) };
    const r = reranker(dir, { logger });
    for (let i = 0; i < 2; i++) {
      const out = await r.rerank('q', list);
      expect(out.order).toEqual(['a', 'b', 'c']);
      expect(out.scores.size).toBe(0);
      expect(out.skipped).toMatchObject({ reason: 'unavailable', candidates: 3 });
      expect(out.skipped?.detail).toBeTruthy();
    }
    expect(warnings).toHaveLength(1);
  });

  it('an inference error skips its batch as "error" and the other batches are still scored', async () => {
    // The weight table lacks the last word (boom), so a batch holding it fails in Gather.
    const r = reranker(modelDir({ rows: TINY_VOCAB.length - 1 }), { batchSize: 2 });
    const out = await r.rerank('q', [candidate('a', 'file'), candidate('b', 'boom'), candidate('c', 'the'), candidate('d', 'zebra')]);
    expect(Object.fromEntries(out.scores)).toEqual({ c: 0, d: 10 });
    expect(out.skipped).toMatchObject({ reason: 'error', candidates: 2 });
    expect(out.order).toEqual(['a', 'b', 'd', 'c']);
  });

  it('stops at the time budget between batches: the rest keep their places, skipped "timeout"', async () => {
    // Each look at the clock moves it 60 % of the budget on: batch 1 starts in time, batch 2 does not.
    let t = 0;
    const clock: Clock = { now: () => (t += 600) - 600 };
    const r = reranker(plainDir, { batchSize: 2, timeoutMs: 1000, clock });
    await r.rerank('q', [candidate('warm', 'file')]); // the model load is not what this test times
    t = 0;
    const list = [candidate('a', 'file'), candidate('b', 'giraffe'), candidate('c', 'zebra'), candidate('d', 'zebra'), candidate('e', 'the')];
    const out = await r.rerank('q', list);
    expect(Object.fromEntries(out.scores)).toEqual({ a: 0, b: 3 });
    expect(out.skipped).toMatchObject({ reason: 'timeout', candidates: 3 });
    expect(out.order).toEqual(['b', 'a', 'c', 'd', 'e']);
  });

  it('an aborted signal scores nothing: skipped "aborted"', async () => {
    const controller = new AbortController();
    controller.abort();
    const out = await reranker(plainDir).rerank('q', list, { signal: controller.signal });
    expect(out.order).toEqual(['a', 'b', 'c']);
    expect(out.skipped).toMatchObject({ reason: 'aborted', candidates: 3 });
  });

  it('after close, reranks are skipped "unavailable"; close is idempotent', async () => {
    const r = reranker(plainDir);
    expect((await r.rerank('q', list)).scores.size).toBe(3);
    await Promise.all([r.close(), r.close()]);
    await r.close();
    const out = await r.rerank('q', list);
    expect(out.order).toEqual(['a', 'b', 'c']);
    expect(out.skipped).toMatchObject({ reason: 'unavailable', candidates: 3 });
  });

  it('close while a rerank is running lets it end cleanly', async () => {
    const r = reranker(plainDir, { batchSize: 1 });
    await r.rerank('q', [candidate('warm', 'file')]);
    const running = r.rerank('q', list);
    await r.close();
    const out = await running;
    expect(out.order.slice().sort()).toEqual(['a', 'b', 'c']);
    expect((out.skipped?.candidates ?? 0) + out.scores.size).toBe(3);
  });
});
