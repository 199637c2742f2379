import { openConnection } from '../../src/store/driver.js';
import { mkdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Logger } from '../../src/index.js';
import type { FileCandidate } from '../../src/core/file.js';
import { contentHash } from '../../src/core/hash.js';
import { walk } from '../../src/discover/walk.js';
import { workerPreparer } from '../../src/indexer/prepare-pool.js';
import { contentKey } from '../../src/indexer/prepare.js';
import { backdate } from '../helpers/fixture-repo.js';
import { isolatedEnv, tempDir, writeTree } from '../helpers/temp.js';

const quietLogger = (warnings: string[]): Logger => ({ debug: () => {}, info: () => {}, warn: (m) => warnings.push(m) });

function source(i: number): string {
  return `export function unit${i}(value: number): number {\n  return value * ${i} + markerQx${i};\n}\n`;
}

describe('hints through the worker threads', () => {
  it('a worker leaves unparsed the files whose content the index holds: at their own path, or reusable from another', async () => {
    const t = tempDir();
    try {
      const root = join(t.dir, 'repo');
      const files: Record<string, string> = {};
      for (let i = 0; i < 6; i++) files[`src/f${i}.ts`] = source(i);
      writeTree(root, files);
      const batch: FileCandidate[] = [];
      walk({ root, maxFileBytes: 1 << 20, ignore: [], denylist: { add: [], remove: [] } }, { file: (c) => batch.push(c), skip: () => {} });
      batch.sort((a, b) => a.path.localeCompare(b.path));
      const hash = (i: number): string => contentHash(source(i));
      const config = { root, maxFileBytes: 1 << 20, chunk: { windowLines: 60, overlapLines: 8, maxBytes: 4096 }, syntax: true };
      const warnings: string[] = [];
      // f0 and f1 are stored as they are; f2's content is stored under another path
      const pool = workerPreparer(config, quietLogger(warnings), 1, [contentKey(hash(2), 'typescript'), contentKey(hash(3), 'python')]);
      try {
        const stored = new Map([
          ['src/f0.ts', hash(0)],
          ['src/f1.ts', hash(1)],
          ['src/f4.ts', hash(5)],
        ]);
        const hinted = await pool.prepare(batch, { stored, reuse: true });
        expect(hinted.known.map((k) => [k.candidate.path, k.known, k.hash])).toEqual([
          ['src/f0.ts', 'unchanged', hash(0)],
          ['src/f1.ts', 'unchanged', hash(1)],
          ['src/f2.ts', 'reusable', hash(2)],
        ]);
        expect(hinted.files.map((f) => (f.ok ? f.candidate.path : f.reason))).toEqual(['src/f3.ts', 'src/f4.ts', 'src/f5.ts']);
        expect((await pool.prepare(batch, { stored, reuse: false })).known.map((k) => k.known)).toEqual(['unchanged', 'unchanged']);
        expect((await pool.prepare(batch)).known).toEqual([]);
      } finally {
        await pool.close();
      }
      expect(warnings).toEqual([]);
    } finally {
      t.cleanup();
    }
  });
});

describe('a rename pass interrupted after its first batch', () => {
  let t: ReturnType<typeof tempDir>;
  let root: string;
  const COUNT = 520; // two batches

  beforeAll(() => {
    t = tempDir();
    root = join(t.dir, 'repo');
    const files: Record<string, string> = {};
    for (let i = 0; i < COUNT; i++) files[`pkg/m${String(i).padStart(3, '0')}.ts`] = source(i);
    writeTree(root, files);
    backdate(root, Object.keys(files));
  });
  afterAll(() => t.cleanup());

  it('leaves a consistent index with both paths; the next pass drops the old ones and copies the rest', async () => {
    const db = join(t.dir, 'index.db');
    const engine = await createEngine({ root, db, env: isolatedEnv(t.dir) });
    try {
      expect(await engine.index()).toMatchObject({ filesIndexed: COUNT });
      mkdirSync(join(root, 'lib'));
      renameSync(join(root, 'pkg'), join(root, 'lib/pkg'));
      const abort = new AbortController();
      // progress is per file (issue 24): stop once the second batch is being prepared, i.e. after the first batch of 500 is written
      const interrupted = engine.index({ signal: abort.signal, onProgress: (p) => p.phase === 'index' && p.filesDone > 500 && abort.abort() });
      await expect(interrupted).rejects.toThrow();

      const raw = openConnection(db, { readonly: true });
      try {
        expect(raw.pragma('integrity_check')).toBe('ok');
        const count = (sql: string): number => (raw.prepare(sql).get() as { n: number }).n;
        expect(count("SELECT count(*) AS n FROM files WHERE path LIKE 'pkg/%'")).toBe(COUNT);
        expect(count("SELECT count(*) AS n FROM files WHERE path LIKE 'lib/pkg/%'")).toBe(500);
        expect(count('SELECT count(*) AS n FROM chunks WHERE file_id NOT IN (SELECT id FROM files)')).toBe(0);
        expect(count('SELECT count(*) AS n FROM files WHERE hash NOT IN (SELECT hash FROM content)')).toBe(0);
      } finally {
        raw.close();
      }
      expect((await engine.search('markerQx7')).results.map((r) => r.path).sort()).toEqual(['lib/pkg/m007.ts', 'pkg/m007.ts']);

      const resumed = await engine.index();
      expect(resumed).toMatchObject({ filesRemoved: COUNT, filesIndexed: COUNT - 500, filesReused: COUNT - 500, filesUnchanged: 500 });
      expect((await engine.search('markerQx519')).results.map((r) => r.path)).toEqual(['lib/pkg/m519.ts']);
      expect(engine.status().files).toBe(COUNT);
    } finally {
      engine.close();
    }
  });
});
