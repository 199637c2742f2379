import { openConnection } from '../../src/store/driver.js';
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../src/index.js';
import { backdate } from '../helpers/fixture-repo.js';
import { isolatedEnv, tempDir, writeTree } from '../helpers/temp.js';

/** `src/sub/` and neighbours whose names share its prefix (or would match it as a LIKE or GLOB pattern). */
const TREE: Record<string, string | Buffer> = {
  'src/sub/a.ts': 'export const alphaInSub = 1;\n',
  'src/sub/deep/b.ts': 'export const betaDeepInSub = 2;\n',
  'src/sub/blob.txt': Buffer.from([0, 0, 0, 1, 2, 3, 0, 0]),
  'src/sub-x/c.ts': 'export const gammaSibling = 3;\n',
  'src/sub0.ts': 'export const deltaSibling = 4;\n',
  'src/subway/d.ts': 'export const epsilonSibling = 5;\n',
  'src/su_/e.ts': 'export const zetaSibling = 6;\n',
  'src/s%b/f.ts': 'export const etaSibling = 7;\n',
  'top.ts': 'export const top = 0;\n',
};

describe('scoped passes and directories', () => {
  let t: ReturnType<typeof tempDir>;
  let root: string;
  let engine: Engine;

  beforeEach(async () => {
    t = tempDir();
    root = join(t.dir, 'repo');
    mkdirSync(root);
    writeTree(root, TREE);
    backdate(root, Object.keys(TREE));
    engine = await createEngine({ root, db: join(t.dir, 'index.db'), env: isolatedEnv(t.dir) });
    expect(await engine.index()).toMatchObject({ filesIndexed: 8, skipped: { binary: 1 } });
  });
  afterEach(() => {
    engine.close();
    t.cleanup();
  });

  const paths = async (): Promise<string[]> => (await engine.listFiles()).files.map((f) => f.path);
  const skipRecords = (): string[] => {
    const db = openConnection(engine.dbPath, { readonly: true });
    try {
      return db.prepare<[], { path: string }>('SELECT path FROM skipped ORDER BY path').all().map((r) => r.path);
    } finally {
      db.close();
    }
  };

  it('a deleted directory, reported as one path, takes every file under it (and its skip records) along', async () => {
    expect(skipRecords()).toEqual(['src/sub/blob.txt']);
    rmSync(join(root, 'src/sub'), { recursive: true });
    const report = await engine.index({ paths: ['src/sub'] });
    expect(report).toMatchObject({ filesSeen: 0, filesIndexed: 0, filesRemoved: 2 });
    expect(await paths()).toEqual(['src/s%b/f.ts', 'src/su_/e.ts', 'src/sub-x/c.ts', 'src/sub0.ts', 'src/subway/d.ts', 'top.ts']);
    expect(skipRecords()).toEqual([]);
    expect((await engine.search('alphaInSub')).results).toEqual([]);
    expect((await engine.search('gammaSibling')).results[0]!.path).toBe('src/sub-x/c.ts');
  });

  it('a directory renamed away, reported as its old path and its new files: moved, not parsed again', async () => {
    renameSync(join(root, 'src/sub'), join(root, 'src/moved'));
    const report = await engine.index({ paths: ['src/sub', 'src/moved/a.ts', 'src/moved/deep/b.ts', 'src/moved/blob.txt'] });
    expect(report).toMatchObject({ filesSeen: 3, filesIndexed: 2, filesReused: 2, filesRemoved: 2, skipped: { binary: 1 } });
    expect((await paths()).filter((p) => p.startsWith('src/moved') || p.startsWith('src/sub/'))).toEqual(['src/moved/a.ts', 'src/moved/deep/b.ts']);
    expect(skipRecords()).toEqual(['src/moved/blob.txt']);
    expect((await engine.search('betaDeepInSub')).results.map((r) => r.path)).toEqual(['src/moved/deep/b.ts']);
  });

  it('a directory replaced by a file of the same name: the files under the old directory go', async () => {
    rmSync(join(root, 'src/sub'), { recursive: true });
    writeFileSync(join(root, 'src/sub'), 'plain text now\n');
    const report = await engine.index({ paths: ['src/sub'] });
    expect(report).toMatchObject({ filesSeen: 1, filesIndexed: 1, filesRemoved: 2 });
    expect((await paths()).filter((p) => p.startsWith('src/sub'))).toEqual(['src/sub', 'src/sub-x/c.ts', 'src/sub0.ts', 'src/subway/d.ts']);
    expect(skipRecords()).toEqual([]);
  });

  it('a missing file path leaves neighbours sharing its prefix alone', async () => {
    rmSync(join(root, 'src/sub0.ts'));
    expect(await engine.index({ paths: ['src/sub0.ts', 'src/su'] })).toMatchObject({ filesRemoved: 1 });
    expect(await paths()).toHaveLength(7);
  });
});
