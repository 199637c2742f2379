import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Logger } from '../../src/index.js';
import { resolveConfig } from '../../src/config/resolve.js';
import { walk } from '../../src/discover/walk.js';
import { openConnection } from '../../src/store/driver.js';
import { unpackBody } from '../../src/store/content-codec.js';
import { createBuiltinProvider } from '../../src/embed/builtin-provider.js';
import { fingerprintKey } from '../../src/embed/provider.js';
import { encodeVector } from '../../src/embed/quantize.js';
import { embeddingText } from '../../src/indexer/embed-pass.js';
import type { FileCandidate } from '../../src/core/file.js';
import { workerPreparer } from '../../src/indexer/prepare-pool.js';
import { prepareBatch, type PreparedBatch } from '../../src/indexer/prepare.js';
import { isolatedEnv, tempDir, writeTree } from '../helpers/temp.js';

/** Enough bytes (> 4 MB, several batches) for the indexer to prepare files on its worker thread. */
function bigTree(): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < 700; i++) {
    const lines = Array.from({ length: 160 }, (_, l) => `export function handler_${i}_${l}(input: string) { return input.trim() + "${'é'.repeat(l % 5)}"; }`);
    files[`pkg${i % 7}/file_${i}.ts`] = `// unique marker token zq${i}x\n${lines.join('\n')}\n`;
  }
  return files;
}

const quietLogger = (warnings: string[]): Logger => ({ debug: () => {}, info: () => {}, warn: (m) => warnings.push(m) });

describe('indexing through the worker thread', () => {
  let t: ReturnType<typeof tempDir>;
  let root: string;
  beforeAll(() => {
    t = tempDir();
    root = join(t.dir, 'repo');
    writeTree(root, bigTree());
  });
  afterAll(() => t.cleanup());

  it('a large pass prepares files on the worker, with no fallback to the main thread', async () => {
    const warnings: string[] = [];
    const engine = await createEngine({ root, db: join(t.dir, 'worker.db'), env: isolatedEnv(t.dir), logger: quietLogger(warnings) });
    const report = await engine.index();
    expect(warnings).toEqual([]);
    expect(report.filesIndexed).toBe(700);
    expect((await engine.search('zq699x')).results[0]!.path).toBe('pkg6/file_699.ts');
    expect((await engine.search('handler_12_33')).results[0]).toMatchObject({ path: 'pkg5/file_12.ts', symbol: expect.stringMatching(/^handler_12_/) });
    // the built-in model (the default) embedded every chunk on the workers: nothing was left for the pass after
    expect(report.embedding).toMatchObject({ embedded: 0, pending: 0 });
    expect(report.embedding && 'covered' in report.embedding && report.embedding.covered).toBe(report.chunksWritten);
    engine.close();
    // ~14 MB through tree-sitter: 50 s under load on 2 cores (vitest's 60 s default was too close);
    // a bound on the wait, not an assertion on time
  }, 180_000);

  it('vectors embedded on the workers are byte-identical to what the embedding pass computes', async () => {
    const db = join(t.dir, 'vectors.db');
    const warnings: string[] = [];
    const engine = await createEngine({ root, db, env: isolatedEnv(t.dir), logger: quietLogger(warnings) });
    await engine.index();
    engine.close();
    expect(warnings).toEqual([]);
    type Row = { hash: string; path: string; symbol: string | null; container: string | null; text: Uint8Array; model: string | null; vector: Uint8Array | null };
    type Stored = Omit<Row, 'text'> & { body: Uint8Array; codec: number; startByte: number; endByte: number };
    const conn = openConnection(db, { readonly: true });
    const rows: Row[] = conn
      .prepare<[], Stored>(
        `SELECT c.hash AS hash, f.path AS path, c.symbol AS symbol, c.container AS container, ct.body AS body, ct.codec AS codec,
           c.start_byte AS startByte, c.end_byte AS endByte, e.model AS model, e.vector AS vector
         FROM chunks c JOIN files f ON f.id = c.file_id JOIN content ct ON ct.hash = f.hash LEFT JOIN embeddings e ON e.chunk_hash = c.hash ORDER BY c.id`,
      )
      .all()
      .map(({ body, codec, startByte, endByte, ...r }) => ({ ...r, text: unpackBody(Buffer.from(body), codec).subarray(startByte, endByte) }));
    conn.close();
    expect(rows.length).toBeGreaterThan(700);
    // every chunk has one; the first chunk with a text gives it its vector, as in the embedding pass
    const { embed } = await resolveConfig({ root, db, env: isolatedEnv(t.dir) });
    const provider = createBuiltinProvider({ batchSize: 32 });
    const fingerprint = await provider.fingerprint();
    const first = new Map<string, Row>();
    for (const r of rows) if (!first.has(r.hash)) first.set(r.hash, r);
    const texts = [...first.values()].map((r) => embeddingText(r, Buffer.from(r.text).toString('utf8'), embed.maxChars));
    const expected = (await provider.embed(texts, { purpose: 'document' })).map((v) => Buffer.from(encodeVector(v, embed.storage)).toString('hex'));
    expect(rows.every((r) => r.model === fingerprintKey(fingerprint))).toBe(true);
    expect([...first.values()].map((r) => Buffer.from(r.vector!).toString('hex'))).toEqual(expected);
  }, 180_000);

  it('the worker prepares exactly what inline preparation does', async () => {
    const config = await resolveConfig({ root, db: join(t.dir, 'x.db'), env: isolatedEnv(t.dir) });
    const batch: FileCandidate[] = [];
    walk({ root: config.root!, maxFileBytes: config.maxFileBytes, ignore: [], denylist: { add: [], remove: [] } }, { file: (c) => batch.push(c), skip: () => {} });
    const prepareConfig = { root: config.root!, maxFileBytes: config.maxFileBytes, chunk: config.chunk, syntax: true };
    const warnings: string[] = [];
    const pool = workerPreparer(prepareConfig, quietLogger(warnings));
    const viaWorker = await pool.prepare(batch.slice(0, 50));
    await pool.close();
    expect(warnings).toEqual([]);
    const normalise = (prepared: PreparedBatch) => prepared.files.map((f) => (f.ok ? { ...f, bytes: Buffer.from(f.bytes).toString('utf8') } : f));
    const inline = await prepareBatch(prepareConfig, batch.slice(0, 50));
    expect(inline.files.some((f) => f.ok && f.parser === 'tree-sitter' && f.symbols.length > 0)).toBe(true);
    expect(normalise(viaWorker)).toEqual(normalise(inline));
  });
});
