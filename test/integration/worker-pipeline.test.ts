import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Logger } from '../../src/index.js';
import { resolveConfig } from '../../src/config/resolve.js';
import { walk } from '../../src/discover/walk.js';
import { openConnection } from '../../src/store/driver.js';
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

  it('vectors embedded on the workers are byte-identical to the embedding pass\'s', async () => {
    const db = join(t.dir, 'vectors.db');
    const warnings: string[] = [];
    const engine = await createEngine({ root, db, env: isolatedEnv(t.dir), logger: quietLogger(warnings) });
    await engine.index();
    engine.close();
    const vectors = (): Map<string, string> => {
      const conn = openConnection(db, { readonly: true });
      try {
        return new Map(conn.prepare<[], { k: string; v: Uint8Array }>('SELECT model || chunk_hash AS k, vector AS v FROM embeddings').all().map((r) => [r.k, Buffer.from(r.v).toString('hex')]));
      } finally {
        conn.close();
      }
    };
    const fromWorkers = vectors();
    expect(fromWorkers.size).toBeGreaterThan(700);
    const conn = openConnection(db);
    conn.exec('DELETE FROM embeddings');
    conn.close();
    const again = await createEngine({ root, db, env: isolatedEnv(t.dir), logger: quietLogger(warnings) });
    const report = await again.index();
    again.close();
    expect(report.filesIndexed).toBe(0);
    expect(report.embedding).toMatchObject({ embedded: fromWorkers.size, pending: 0 });
    expect(vectors()).toEqual(fromWorkers);
    expect(warnings).toEqual([]);
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
