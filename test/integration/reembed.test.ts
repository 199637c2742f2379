/**
 * Issue 18, the model lever: bench/reembed-db.ts replaces every vector of a copied index with a
 * candidate built-in model's, from the chunk texts stored in the database (the tree is gone), and
 * records the candidate as the index's model. Real SQLite, real tree-sitter, the real shipped
 * model and a real second model (the shipped one with its rows shifted, so every text embeds
 * differently, under its own sha256).
 */
import { createHash } from 'node:crypto';
import { copyFileSync, cpSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareVectors, peekIndex, reembedDatabase } from '../../bench/reembed-db.js';
import { defaultBuiltinModelDir, loadBuiltinModel } from '../../src/embed/builtin/model.js';
import { fingerprintKey } from '../../src/embed/provider.js';
import { readVectorFileHeader, vectorFilePath } from '../../src/embed/vector-file.js';
import { createEngine } from '../../src/index.js';
import { loadChunkEmbedder } from '../../src/indexer/chunk-vectors.js';
import { openConnection } from '../../src/store/driver.js';
import { IndexStore } from '../../src/store/index-store.js';
import { DEFAULT_CONFIG } from '../../src/config/defaults.js';
import { isolatedEnv, tempDir, writeTree } from '../helpers/temp.js';

const t = tempDir('scry-reembed-');
const root = join(t.dir, 'project');
const original = join(t.dir, 'original.db');
const candidateDir = join(t.dir, 'candidate');

const sha = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex');

/** A valid second model: the shipped one with row r's int8 vector moved to row r+1, its manifest re-hashed. */
function writeCandidate(): void {
  cpSync(defaultBuiltinModelDir(), candidateDir, { recursive: true });
  const manifest = JSON.parse(readFileSync(join(candidateDir, 'manifest.json'), 'utf8')) as { dimensions: number; vocabSize: number; hashBuckets: number; files: Record<string, string> };
  const w = readFileSync(join(candidateDir, 'weights.bin'));
  const span = (manifest.vocabSize + manifest.hashBuckets) * manifest.dimensions;
  const vectors = Buffer.from(w.subarray(0, span));
  vectors.copy(w, manifest.dimensions, 0, span - manifest.dimensions);
  writeFileSync(join(candidateDir, 'weights.bin'), w);
  manifest.files['weights.bin'] = sha(join(candidateDir, 'weights.bin'));
  writeFileSync(join(candidateDir, 'manifest.json'), JSON.stringify(manifest, null, 2));
}

async function keyOf(dir: string): Promise<string> {
  const m = await loadBuiltinModel(dir);
  return fingerprintKey({ provider: 'builtin', model: m.name, dimensions: m.dimensions, version: m.version });
}

/** Every chunk's stored vector (under the index's model) and the head and text it was embedded from. */
function storedChunks(db: string): Array<{ path: string; symbol: string | null; container: string | null; text: string; vector: Buffer | undefined }> {
  const model = peekIndex(db).model!;
  const conn = openConnection(db, { readonly: true });
  const rows = conn
    .prepare<[], { hash: string; path: string; symbol: string | null; container: string | null; fileHash: string; startByte: number; endByte: number }>(
      'SELECT c.hash AS hash, f.path AS path, c.symbol AS symbol, c.container AS container, f.hash AS fileHash, c.start_byte AS startByte, c.end_byte AS endByte FROM chunks c JOIN files f ON f.id = c.file_id ORDER BY c.id',
    )
    .all();
  conn.close();
  const store = IndexStore.open(db, { create: false });
  try {
    return rows.map((r) => ({ ...r, text: store.read(() => store.content.slice(r.fileHash, r.startByte, r.endByte)) ?? '', vector: store.read(() => store.embeddings.get(model, r.hash)) }));
  } finally {
    store.close();
  }
}

beforeAll(async () => {
  writeTree(root, {
    'src/config.ts': '/** Reads the settings file. */\nexport function loadConfig(path: string): Settings {\n  return JSON.parse(readFileSync(path, "utf8")) as Settings;\n}\n\nexport interface Settings {\n  retries: number;\n}\n',
    'src/upload.ts': 'export class Uploader {\n  /** Sends a file again after a failure. */\n  retry(file: string, times: number): Promise<void> {\n    return send(file).catch(() => (times > 0 ? this.retry(file, times - 1) : undefined));\n  }\n}\n',
    'lib/math.py': 'def matrix_multiply(a, b):\n    """Multiplies two matrices."""\n    return [[sum(x * y for x, y in zip(row, col)) for col in zip(*b)] for row in a]\n',
    'README.md': '# demo\n\nUploads files and reads settings.\n',
  });
  const engine = await createEngine({ root, db: original, env: isolatedEnv(t.dir) });
  await engine.index();
  engine.close();
  writeCandidate();
});
afterAll(() => t.cleanup());

describe('reembedDatabase', () => {
  it('replaces every vector with the candidate model’s, embedded as the indexer embeds each chunk, and records the candidate as the model', async () => {
    const shipped = await keyOf(defaultBuiltinModelDir());
    const candidate = await keyOf(candidateDir);
    expect(candidate).not.toBe(shipped);
    const copy = join(t.dir, 'candidate.db');
    copyFileSync(original, copy);
    const before = sha(original);
    const report = await reembedDatabase(copy, candidateDir);
    expect(report.model).toBe(candidate);
    expect(peekIndex(copy).model).toBe(candidate);
    expect(peekIndex(original).model).toBe(shipped);
    expect(sha(original)).toBe(before);
    const chunks = storedChunks(copy);
    expect(chunks.length).toBeGreaterThan(3);
    expect(report.chunks).toBe(chunks.length);
    // each vector is the one the indexer's in-pass embedder computes with the candidate for that chunk
    const embedder = (await loadChunkEmbedder({ maxChars: DEFAULT_CONFIG.embed.maxChars, storage: DEFAULT_CONFIG.embed.storage }, candidateDir))!;
    for (const c of chunks) expect(c.vector && Buffer.from(embedder.vectorOf(c, c.text)).equals(c.vector)).toBe(true);
    // no vector of the old model is left, and none is the same as before
    const diff = compareVectors(original, copy);
    expect(diff.models).toEqual([shipped, candidate]);
    expect(diff.same).toBe(0);
    expect(diff.missing).toBe(0);
    const conn = openConnection(copy, { readonly: true });
    expect(conn.prepare<[], { models: string }>('SELECT group_concat(DISTINCT model) AS models FROM embeddings').get()!.models).toBe(candidate);
    conn.close();
    // the snapshot beside it is written again for the candidate
    expect(readVectorFileHeader(vectorFilePath(copy))?.model).toBe(candidate);
  });

  it('with the index’s own model gives the very same bytes (the identity check)', async () => {
    const copy = join(t.dir, 'same.db');
    copyFileSync(original, copy);
    const report = await reembedDatabase(copy, defaultBuiltinModelDir());
    expect(report.embedded).toBeGreaterThan(0);
    const diff = compareVectors(original, copy);
    expect(diff.chunks).toBeGreaterThan(3);
    expect(diff.same).toBe(diff.chunks);
  });

  it('searches with the model only when the checkout’s model is the index’s (the run-devset guard reads this sentence)', async () => {
    const copy = join(t.dir, 'searched.db');
    copyFileSync(original, copy);
    await reembedDatabase(copy, candidateDir);
    rmSync(vectorFilePath(copy), { force: true });
    const search = async (db: string): Promise<string> => {
      const engine = await createEngine({ root, db, env: isolatedEnv(t.dir) });
      try {
        return (await engine.search('read the settings from a configuration file', { limit: 5, rerank: false })).meta.semantic;
      } finally {
        engine.close();
      }
    };
    expect(await search(original)).toMatch(/^hybrid/);
    expect(await search(copy)).toMatch(/^lexical only: the index's vectors were made by builtin:scry-code-nbow:\d+:\w+, the model is now/);
    expect(existsSync(copy)).toBe(true);
  });

  it('refuses a model directory that does not load, before the index is touched', async () => {
    const copy = join(t.dir, 'refused.db');
    copyFileSync(original, copy);
    const before = sha(copy);
    await expect(reembedDatabase(copy, join(t.dir, 'no-model'))).rejects.toMatchObject({ code: 'MODEL_NOT_FOUND' });
    expect(sha(copy)).toBe(before);
  });
});
