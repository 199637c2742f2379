import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EngineError } from '../../../src/core/errors.js';
import { MANIFEST_FILE, modelDirOf } from '../../../src/embed/model-layout.js';
import type { OnnxEmbedderConfig, OnnxEmbedderDeps } from '../../../src/embed/onnx-embedder.js';
import { createOnnxEmbedder } from '../../../src/embed/onnx-embedder.js';
import type { EmbeddingProvider } from '../../../src/embed/provider.js';
import { tempDir } from '../../helpers/temp.js';
import type { TinyEmbedderOptions } from '../../helpers/tiny-onnx.js';
import { writeTinyEmbedder } from '../../helpers/tiny-onnx.js';

// The tiny model (test/helpers/tiny-onnx.ts) is only an embedding layer: a token's hidden state is
// its row of TINY_EMBEDDINGS, [PAD]'s row is huge, and nothing zeroes padding in the output. So
// every expected vector below is the rows of the tokens summed by hand, then scaled to unit length:
//   [CLS] [1,0,0]  [SEP] [0,1,0]  zebra [0,0,3]  giraffe [3,0,0]  parse [0,2,0]
//   config [1,1,1]  file [0,0,1]  the [1,0,1]  [UNK] [0,0,-1]

/** `v` scaled to unit length. Mean pooling divides by the token count, which unit length cancels. */
function unit(v: readonly number[]): number[] {
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

function expectVector(actual: Float32Array | undefined, expected: readonly number[]): void {
  expect(actual).toBeInstanceOf(Float32Array);
  expect(actual).toHaveLength(expected.length);
  expected.forEach((x, d) => expect(actual![d]).toBeCloseTo(x, 6));
}

const ZEBRA = unit([1, 1, 3]); // [CLS] zebra [SEP]
const LONG = 'zebra giraffe the file';
const LONG_VECTOR = unit([5, 1, 5]); // [CLS] zebra giraffe the file [SEP]

let root: string;
let cleanup: () => void;
const providers: EmbeddingProvider[] = [];

beforeAll(() => {
  ({ dir: root, cleanup } = tempDir('scry-onnx-embed-'));
});
afterAll(async () => {
  await Promise.all(providers.map((p) => p.close()));
  cleanup();
});

let dirs = 0;
function modelDir(options: TinyEmbedderOptions = {}): string {
  return writeTinyEmbedder(join(root, `model-${(dirs += 1)}`), options);
}

const DEFAULTS = { modelsDir: '/nonexistent-models', maxLength: 256, pooling: 'mean', queryPrefix: '', documentPrefix: '', batchSize: 32 } as const;

function embedder(config: Partial<OnnxEmbedderConfig>, deps?: OnnxEmbedderDeps): EmbeddingProvider {
  const provider = createOnnxEmbedder({ ...DEFAULTS, ...config }, deps);
  providers.push(provider);
  return provider;
}

async function engineError(work: Promise<unknown>): Promise<EngineError> {
  const err = await work.then(
    () => new Error('expected a rejection'),
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(EngineError);
  return err as EngineError;
}

describe('ONNX embedder pipeline', () => {
  it('tokenizes, runs, mean-pools and normalises', async () => {
    const provider = embedder({ modelDir: modelDir() });
    const [zebra, long, unknown] = await provider.embed(['zebra', LONG, 'Xylophone']);
    expectVector(zebra, ZEBRA);
    expectVector(long, LONG_VECTOR);
    expectVector(unknown, unit([1, 1, -1])); // [CLS] [UNK] [SEP]
  });

  it('gives the same vector to a text alone and padded in a batch with longer ones', async () => {
    const provider = embedder({ modelDir: modelDir() });
    const [alone] = await provider.embed(['zebra']);
    const [padded, long] = await provider.embed(['zebra', `${LONG} giraffe giraffe parse config`]);
    expect(Array.from(padded!)).toEqual(Array.from(alone!));
    expectVector(long, unit([12, 4, 6]));
  });

  it('keeps input order across batches of batchSize', async () => {
    const provider = embedder({ modelDir: modelDir(), batchSize: 2 });
    expect(provider.maxBatch).toBe(2);
    const texts = [LONG, 'zebra', 'giraffe', 'parse parse', 'config'];
    const vectors = await provider.embed(texts);
    const expected = [LONG_VECTOR, ZEBRA, unit([4, 1, 0]), unit([1, 5, 0]), unit([2, 2, 1])];
    expected.forEach((v, i) => expectVector(vectors[i], v));
  });

  it('pools the first token with `cls`', async () => {
    const provider = embedder({ modelDir: modelDir(), pooling: 'cls' });
    for (const v of await provider.embed(['zebra', LONG])) expectVector(v, [1, 0, 0]);
  });

  it('prepends the query prefix to queries and the document prefix to documents (the default purpose)', async () => {
    const provider = embedder({ modelDir: modelDir(), queryPrefix: 'zebra ', documentPrefix: 'giraffe ' });
    expectVector((await provider.embed(['file'], { purpose: 'query' }))[0], unit([1, 1, 4])); // [CLS] zebra file [SEP]
    expectVector((await provider.embed(['file'], { purpose: 'document' }))[0], unit([4, 1, 1])); // [CLS] giraffe file [SEP]
    expectVector((await provider.embed(['file']))[0], unit([4, 1, 1]));
  });

  it('truncates to maxLength, lowered to the tokenizer\'s model_max_length, keeping the closing special token', async () => {
    const text = 'zebra giraffe parse config';
    const expected = unit([4, 1, 3]); // [CLS] zebra giraffe [SEP]
    expectVector((await embedder({ modelDir: modelDir(), maxLength: 4 }).embed([text]))[0], expected);
    const lowered = embedder({ modelDir: modelDir({ modelMaxLength: 4 }), maxLength: 256 });
    expectVector((await lowered.embed([text]))[0], expected);
    expect((await lowered.fingerprint()).version).toMatch(/-mean4$/);
  });

  it('feeds int32 ids and token_type_ids (segment 0) when the model declares them', async () => {
    const provider = embedder({ modelDir: modelDir({ idType: 'int32', tokenTypeIds: true }) });
    const [zebra, long] = await provider.embed(['zebra', LONG]);
    // Segment 1 would add [50, 50, 50] per token.
    expectVector(zebra, ZEBRA);
    expectVector(long, LONG_VECTOR);
  });

  it('takes a 2-D [batch, dim] output as the sentence embedding, normalised', async () => {
    const provider = embedder({ modelDir: modelDir({ output: 'sentence_embedding' }), pooling: 'cls' });
    const [zebra, long] = await provider.embed(['zebra', LONG]);
    // The model sums over the mask itself; `cls` pooling does not apply to a pooled output.
    expectVector(zebra, ZEBRA);
    expectVector(long, LONG_VECTOR);
  });

  it('reads last_hidden_state even when another output comes first, else the first output', async () => {
    expectVector((await embedder({ modelDir: modelDir({ poolerFirst: true }) }).embed(['zebra']))[0], ZEBRA);
    expectVector((await embedder({ modelDir: modelDir({ output: 'token_embeddings' }) }).embed(['zebra']))[0], ZEBRA);
  });

  it('loads onnx/model.onnx', async () => {
    expectVector((await embedder({ modelDir: modelDir({ inOnnxSubdir: true }) }).embed(['zebra']))[0], ZEBRA);
  });

  it('answers no texts with no vectors', async () => {
    expect(await embedder({ modelDir: modelDir() }).embed([])).toEqual([]);
  });
});

describe('ONNX embedder fingerprint', () => {
  it('is the model file\'s sha256 (12 hex), the pooling and the token budget, with the dimensions from a probe', async () => {
    const dir = modelDir();
    const sha = createHash('sha256').update(readFileSync(join(dir, 'model.onnx'))).digest('hex');
    expect(await embedder({ modelDir: dir }).fingerprint()).toEqual({ provider: 'onnx', model: basename(dir), dimensions: 3, version: `${sha.slice(0, 12)}-mean256` });
    expect((await embedder({ modelDir: dir, pooling: 'cls', maxLength: 64 }).fingerprint()).version).toBe(`${sha.slice(0, 12)}-cls64`);
    // A document prefix changes every stored vector, so it changes the version too; a query prefix does not.
    const prefixed = (await embedder({ modelDir: dir, documentPrefix: 'passage: ' }).fingerprint()).version;
    expect(prefixed).toMatch(new RegExp(`^${sha.slice(0, 12)}-mean256-[0-9a-f]{8}$`));
    expect((await embedder({ modelDir: dir, queryPrefix: 'query: ' }).fingerprint()).version).toBe(`${sha.slice(0, 12)}-mean256`);
  });
});

describe('ONNX embedder errors', () => {
  it('MODEL_NOT_FOUND for a modelDir that does not exist, at first use (construction never throws)', async () => {
    const provider = embedder({ modelDir: join(root, 'nowhere') });
    const err = await engineError(provider.fingerprint());
    expect(err.code).toBe('MODEL_NOT_FOUND');
    expect(err.data).toMatchObject({ model: 'nowhere', dir: root });
    expect((await engineError(provider.embed(['a']))).code).toBe('MODEL_NOT_FOUND');
  });

  it('MODEL_INVALID for a directory without tokenizer.json or without model.onnx', async () => {
    const noTokenizer = modelDir();
    rmSync(join(noTokenizer, 'tokenizer.json'));
    const noTokenizerError = await engineError(embedder({ modelDir: noTokenizer }).embed(['a']));
    expect(noTokenizerError.code).toBe('MODEL_INVALID');
    expect(noTokenizerError.message).toContain('no tokenizer.json');
    const noModel = modelDir();
    rmSync(join(noModel, 'model.onnx'));
    const err = await engineError(embedder({ modelDir: noModel }).embed(['a']));
    expect(err.code).toBe('MODEL_INVALID');
    expect(err.message).toContain('no model.onnx or onnx/model.onnx');
  });

  it('MODEL_INVALID for a file onnxruntime cannot load, and for an input it cannot feed', async () => {
    const broken = modelDir();
    writeFileSync(join(broken, 'model.onnx'), 'not a model');
    const err = await engineError(embedder({ modelDir: broken }).fingerprint());
    expect(err.code).toBe('MODEL_INVALID');
    expect(err.message).toContain('onnxruntime cannot load model.onnx');
    const extra = await engineError(embedder({ modelDir: modelDir({ extraInput: 'position_ids' }) }).fingerprint());
    expect(extra.code).toBe('MODEL_INVALID');
    expect(extra.message).toContain('"position_ids"');
  });

  it('EMBEDDING_UNAVAILABLE with the install command when onnxruntime-node is missing', async () => {
    const missing = (): Promise<never> => Promise.reject(Object.assign(new Error("Cannot find package 'onnxruntime-node'"), { code: 'ERR_MODULE_NOT_FOUND' }));
    const err = await engineError(embedder({ modelDir: modelDir() }, { importOrt: missing }).embed(['a']));
    expect(err.code).toBe('EMBEDDING_UNAVAILABLE');
    expect(err.message).toContain('onnxruntime-node is not installed');
    expect(err.hint).toContain('npm install -g onnxruntime-node@');
  });

  it('rejects with the abort reason, and after close with EMBEDDING_UNAVAILABLE; close is idempotent', async () => {
    const provider = embedder({ modelDir: modelDir() });
    const controller = new AbortController();
    controller.abort('stop');
    await expect(provider.embed(['a'], { signal: controller.signal })).rejects.toBe('stop');
    await provider.embed(['zebra']);
    await provider.close();
    await provider.close();
    expect((await engineError(provider.embed(['zebra']))).code).toBe('EMBEDDING_UNAVAILABLE');
  });
});

describe('ONNX embedder with a pulled model', () => {
  const NAME = 'test-org/tiny-embed';
  let modelsDir: string;

  /** Lays out a pulled model: files under models/owner--name plus a manifest listing them. */
  function pull(options: { corruptAfter?: boolean; into?: string } = {}): string {
    modelsDir = options.into ?? join(root, `models-${(dirs += 1)}`);
    const dir = modelDirOf(modelsDir, NAME);
    writeTinyEmbedder(dir, { inOnnxSubdir: true });
    const files = ['tokenizer.json', 'onnx/model.onnx'].map((path) => {
      const bytes = readFileSync(join(dir, path));
      return { path, size: statSync(join(dir, path)).size, sha256: createHash('sha256').update(bytes).digest('hex') };
    });
    const manifest = { format: 1, name: NAME, revision: 'main', commit: 'a'.repeat(40), hubUrl: 'http://127.0.0.1:1', pulledAt: '2024-06-01T12:00:00.000Z', model: 'onnx/model.onnx', files };
    writeFileSync(join(dir, MANIFEST_FILE), JSON.stringify(manifest));
    if (options.corruptAfter) {
      // Same size, other bytes: only the sha256 tells.
      const path = join(dir, 'onnx/model.onnx');
      const bytes = readFileSync(path);
      bytes[bytes.length - 1]! ^= 0xff;
      writeFileSync(path, bytes);
    }
    return dir;
  }

  it('loads the graph the manifest names, under the hub id', async () => {
    pull();
    const provider = embedder({ model: NAME, modelsDir });
    expectVector((await provider.embed(['zebra']))[0], ZEBRA);
    expect(provider.model).toBe(NAME);
    expect((await provider.fingerprint()).model).toBe(NAME);
  });

  it('MODEL_NOT_FOUND when it was never pulled, MODEL_INVALID without a manifest or with a changed file', async () => {
    modelsDir = join(root, 'empty-models');
    mkdirSync(modelsDir, { recursive: true });
    const early = embedder({ model: NAME, modelsDir });
    const notFound = await engineError(early.fingerprint());
    expect(notFound.code).toBe('MODEL_NOT_FOUND');
    expect(notFound.hint).toContain('scry models pull');
    // Pulled while the provider lives: the next call finds it.
    pull({ into: modelsDir });
    expectVector((await early.embed(['zebra']))[0], ZEBRA);

    const dir = pull();
    renameSync(join(dir, MANIFEST_FILE), join(dir, 'manifest.bak'));
    const noManifest = await engineError(embedder({ model: NAME, modelsDir }).fingerprint());
    expect(noManifest.code).toBe('MODEL_INVALID');
    expect(noManifest.message).toContain(MANIFEST_FILE);

    pull({ corruptAfter: true });
    const corrupt = await engineError(embedder({ model: NAME, modelsDir }).fingerprint());
    expect(corrupt.code).toBe('MODEL_INVALID');
    expect(corrupt.message).toContain('the manifest says');
  });
});

// A real sentence-embedding model, when one is on disk: SCRY_TEST_ONNX_MODEL=/path/to/model-dir
// (tokenizer.json + model.onnx or onnx/model.onnx, e.g. a `scry models pull` of
// Xenova/all-MiniLM-L6-v2). Nothing can be downloaded here, so it is skipped otherwise.
const realModel = process.env['SCRY_TEST_ONNX_MODEL'];
describe.skipIf(realModel === undefined)('ONNX embedder with a real model (SCRY_TEST_ONNX_MODEL; skipped: no model directory given)', () => {
  it('embeds related sentences closer than unrelated ones, as unit vectors', async () => {
    const provider = embedder({ modelDir: realModel! });
    const { dimensions } = await provider.fingerprint();
    const [a, b, c] = await provider.embed(['How do I read a configuration file?', 'Load settings from a config file on disk.', 'The cat is sleeping on the sofa.']);
    for (const v of [a!, b!, c!]) {
      expect(v).toHaveLength(dimensions);
      expect(Math.hypot(...v)).toBeCloseTo(1, 4);
    }
    const cos = (x: Float32Array, y: Float32Array) => x.reduce((sum, xi, i) => sum + xi * y[i]!, 0);
    expect(cos(a!, b!)).toBeGreaterThan(cos(a!, c!));
  });
});
