import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EngineError } from '../../src/core/errors.js';
import { createBuiltinProvider } from '../../src/embed/builtin-provider.js';
import { BUILTIN_MODEL_NAME, defaultBuiltinModelDir, loadBuiltinModel } from '../../src/embed/builtin/model.js';
import type { EmbeddingProvider } from '../../src/embed/provider.js';
import { createEngine } from '../../src/index.js';
import { isolatedEnv, tempDir } from '../helpers/temp.js';

// The real model shipped in models/builtin/ (no stand-in): a few MB, loads in well under a second.

const cosine = (a: Float32Array, b: Float32Array): number => a.reduce((s, x, i) => s + x * b[i]!, 0);
const manifest = JSON.parse(readFileSync(join(defaultBuiltinModelDir(), 'manifest.json'), 'utf8')) as { dimensions: number; tokenizer: string; files: Record<string, string> };

let provider: EmbeddingProvider;
beforeAll(() => {
  provider = createBuiltinProvider({ batchSize: 4 });
});
afterAll(async () => {
  await provider.close();
});

async function codeOf(err: Promise<unknown>): Promise<string | undefined> {
  return err.then(
    () => undefined,
    (e: unknown) => (e instanceof EngineError ? e.code : String(e)),
  );
}

describe('builtin provider (the shipped model)', () => {
  it('fingerprints as the shipped weights, with the manifest dimensions', async () => {
    expect(await provider.fingerprint()).toEqual({ provider: 'builtin', model: BUILTIN_MODEL_NAME, dimensions: manifest.dimensions, version: manifest.files['weights.bin']!.slice(0, 16) });
  });

  it('embeds unit vectors, the same text to the same bytes, across batches and calls', async () => {
    const texts = ['parse a config file', 'export function parseConfig(path) { return JSON.parse(readFileSync(path)) }', '', 'retry failed uploads', 'x'];
    const a = await provider.embed(texts);
    const b = await provider.embed([...texts].reverse());
    expect(a).toHaveLength(texts.length);
    a.forEach((v, i) => {
      expect(v).toHaveLength(manifest.dimensions);
      if (i !== 2 && i !== 4) expect(Math.hypot(...v)).toBeCloseTo(1, 5);
      expect(Buffer.from(v.buffer)).toEqual(Buffer.from(b[texts.length - 1 - i]!.buffer));
    });
    // nothing to embed in an empty text: a zero vector, never NaN
    expect([...a[2]!].every((x) => x === 0)).toBe(true);
  });

  it('ranks a described function above unrelated code (query side vs code side)', async () => {
    const [query] = await provider.embed(['read the settings from a configuration file'], { purpose: 'query' });
    const code = await provider.embed([
      'src/config.ts loadConfig\nexport function loadConfig(path: string) {\n  const text = readFileSync(path, "utf8");\n  return JSON.parse(text) as Settings;\n}',
      'src/math.ts matrixMultiply\nexport function matrixMultiply(a: number[][], b: number[][]) {\n  return a.map((row) => b[0].map((_, j) => row.reduce((s, x, k) => s + x * b[k][j], 0)));\n}',
    ]);
    expect(cosine(query!, code[0]!)).toBeGreaterThan(cosine(query!, code[1]!));
  });

  it('rejects with the abort reason', async () => {
    const controller = new AbortController();
    controller.abort('stop');
    await expect(provider.embed(['a'], { signal: controller.signal })).rejects.toBe('stop');
  });
});

describe('builtin model files', () => {
  it('refuses a corrupted weights file with MODEL_INVALID, a missing one with MODEL_NOT_FOUND', async () => {
    const t = tempDir('scry-builtin-');
    try {
      const dir = join(t.dir, 'model');
      cpSync(defaultBuiltinModelDir(), dir, { recursive: true });
      const weights = readFileSync(join(dir, 'weights.bin'));
      weights[100] = weights[100]! ^ 0x40;
      writeFileSync(join(dir, 'weights.bin'), weights);
      expect(await codeOf(loadBuiltinModel(dir))).toBe('MODEL_INVALID');
      const broken = createBuiltinProvider({ batchSize: 4 }, { builtinModelDir: dir });
      expect(await codeOf(broken.embed(['a']))).toBe('MODEL_INVALID');
      expect(await codeOf(broken.fingerprint())).toBe('MODEL_INVALID');
      writeFileSync(join(dir, 'weights.bin'), weights.subarray(0, 1000));
      expect(await codeOf(loadBuiltinModel(dir))).toBe('MODEL_INVALID');
      rmSync(join(dir, 'weights.bin'));
      expect(await codeOf(loadBuiltinModel(dir))).toBe('MODEL_NOT_FOUND');
      for (const manifestText of ['null', '{"format":', JSON.stringify({ ...manifest, tokenizer: 'other-1' })]) {
        writeFileSync(join(dir, 'manifest.json'), manifestText);
        expect(await codeOf(loadBuiltinModel(dir)), manifestText.slice(0, 20)).toBe('MODEL_INVALID');
      }
    } finally {
      t.cleanup();
    }
  });
});

describe('engine with the builtin model end to end', () => {
  it('indexes and embeds in one pass, searches hybrid and vector, and finds similar code', async () => {
    const t = tempDir('scry-builtin-engine-');
    try {
      const root = join(t.dir, 'repo');
      mkdirSync(join(root, 'src'), { recursive: true });
      writeFileSync(join(root, 'src/upload.ts'), 'export async function sendWithBackoff(file: Blob, attempts = 5) {\n  for (let i = 0; i < attempts; i++) {\n    try { return await put(file); } catch { await sleep(2 ** i * 100); }\n  }\n  throw new Error("upload failed");\n}\n');
      writeFileSync(join(root, 'src/colors.ts'), 'export function hexToRgb(hex: string) {\n  const n = parseInt(hex.slice(1), 16);\n  return { r: (n >> 16) & 255, g: (n >> 8) & 255, b: n & 255 };\n}\n');
      writeFileSync(join(root, 'src/colors-copy.ts'), 'export function hexToRgba(hex: string, alpha: number) {\n  const n = parseInt(hex.slice(1), 16);\n  return { r: (n >> 16) & 255, g: (n >> 8) & 255, b: n & 255, a: alpha };\n}\n');
      const engine = await createEngine({ root, db: join(t.dir, 'index.db'), env: isolatedEnv(t.dir), config: { embed: { provider: 'builtin' } } });
      try {
        const report = await engine.index();
        expect(report.embedding).toMatchObject({ pending: 0, model: { provider: 'builtin', dimensions: manifest.dimensions } });
        const vector = await engine.search('convert a hex color string to red green blue', { mode: 'vector' });
        expect(vector.meta.mode).toBe('vector');
        expect(vector.results[0]!.path).toMatch(/^src\/colors/);
        const hybrid = await engine.search('retry an upload with exponential backoff');
        expect(hybrid.meta.mode).toBe('hybrid');
        expect(hybrid.results[0]!.path).toBe('src/upload.ts');
        const similar = await engine.similar('export function hexToRgb(hex: string) {\n  const n = parseInt(hex.slice(1), 16);\n  return { r: (n >> 16) & 255 };\n}', { excludeFile: 'src/colors.ts', limit: 2 });
        expect(similar.results[0]!.path).toBe('src/colors-copy.ts');
      } finally {
        engine.close();
      }
    } finally {
      t.cleanup();
    }
  }, 60_000);
});

describe('the in-memory vectors of one engine follow the index', () => {
  it('a chunk added, changed or removed since the first load is scored, rescored or gone at the next search', async () => {
    const t = tempDir('scry-builtin-cache-');
    try {
      const root = join(t.dir, 'repo');
      mkdirSync(join(root, 'src'), { recursive: true });
      writeFileSync(join(root, 'src/colors.ts'), 'export function hexToRgb(hex: string) {\n  const n = parseInt(hex.slice(1), 16);\n  return { r: (n >> 16) & 255, g: (n >> 8) & 255, b: n & 255 };\n}\n');
      writeFileSync(join(root, 'src/math.ts'), 'export function clamp(x: number, lo: number, hi: number) {\n  return Math.min(hi, Math.max(lo, x));\n}\n');
      const engine = await createEngine({ root, db: join(t.dir, 'index.db'), env: isolatedEnv(t.dir), config: { embed: { provider: 'builtin' } } });
      const paths = async (q: string): Promise<string[]> => (await engine.search(q, { mode: 'vector', limit: 10 })).results.map((r) => r.path);
      try {
        await engine.index();
        expect((await paths('retry an upload with exponential backoff')).sort()).toEqual(['src/colors.ts', 'src/math.ts']);
        writeFileSync(join(root, 'src/upload.ts'), 'export async function sendWithBackoff(file: Blob, attempts = 5) {\n  for (let i = 0; i < attempts; i++) {\n    try { return await put(file); } catch { await sleep(2 ** i * 100); }\n  }\n}\n');
        await engine.index();
        expect((await paths('retry an upload with exponential backoff'))[0]).toBe('src/upload.ts');
        writeFileSync(join(root, 'src/upload.ts'), 'export function sumOfSquares(values: number[]) {\n  return values.reduce((s, v) => s + v * v, 0);\n}\n');
        await engine.index();
        const changed = await engine.search('add up the squares of numbers', { mode: 'vector', limit: 10, explain: true });
        expect(changed.results[0]!.path).toBe('src/upload.ts');
        expect(changed.results[0]!.snippet).toContain('sumOfSquares');
        rmSync(join(root, 'src/upload.ts'));
        await engine.index();
        expect(await paths('add up the squares of numbers')).not.toContain('src/upload.ts');
      } finally {
        engine.close();
      }
    } finally {
      t.cleanup();
    }
  }, 60_000);
});
