/** Issue 16, defect 5, in-process: a rebuild that fails or is aborted leaves the live index as it was. */
import { openConnection } from '../../src/store/driver.js';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../src/index.js';
import { backdate, writeSmallRepo } from '../helpers/fixture-repo.js';
import { isolatedEnv, tempDir, writeTree } from '../helpers/temp.js';

describe('engine.index({ rebuild: true })', () => {
  let t: ReturnType<typeof tempDir>;
  let root: string;
  let db: string;
  let engine: Engine;
  const files = (): string => {
    const conn = openConnection(db, { readonly: true });
    try {
      return JSON.stringify(conn.prepare('SELECT * FROM files ORDER BY path').all());
    } finally {
      conn.close();
    }
  };
  const leftovers = (): string[] => readdirSync(t.dir).filter((n) => n.includes('.rebuild-'));

  beforeEach(async () => {
    t = tempDir();
    root = join(t.dir, 'repo');
    db = join(t.dir, 'index.db');
    writeSmallRepo(root);
    engine = await createEngine({ root, db, env: isolatedEnv(t.dir) });
    await engine.index();
  });
  afterEach(() => {
    engine.close();
    t.cleanup();
  });

  it('aborted mid-pass: rejects, the old index is untouched and still answers, nothing is left beside it', async () => {
    const before = files();
    const inode = statSync(db).ino;
    writeTree(root, { 'src/late.ts': 'export const arrivedDuringRebuild = 1;\n' });
    backdate(root, ['src/late.ts']);
    const controller = new AbortController();
    const seen: string[] = [];
    const rebuild = engine.index({
      rebuild: true,
      signal: controller.signal,
      onProgress: (e) => {
        seen.push(e.phase);
        if (e.phase === 'index') controller.abort(new Error('stop')); // after the walk, before the first batch is written
      },
    });
    await expect(rebuild).rejects.toThrow();
    expect(seen).toContain('index');
    expect(statSync(db).ino).toBe(inode);
    expect(files()).toBe(before);
    expect(leftovers()).toEqual([]);
    expect((await engine.search('openDatabase')).results[0]?.path).toBe('src/db/open-database.ts');
    expect((await engine.search('arrivedDuringRebuild')).results).toHaveLength(0);

    // the next rebuild completes and swaps in a new file
    expect(await engine.index({ rebuild: true })).toMatchObject({ filesIndexed: 7, filesRemoved: 0 });
    expect(statSync(db).ino).not.toBe(inode);
    expect(leftovers()).toEqual([]);
    expect((await engine.search('arrivedDuringRebuild')).results[0]?.path).toBe('src/late.ts');
  });

  it('reads in the writing process during a rebuild see the old index; after the swap it reads and writes the new file', async () => {
    // this process keeps the writer lease throughout, as `scry watch` and `scry mcp` do
    const watch = await engine.watch({ files: false });
    await watch.idle();
    writeTree(root, { 'src/late.ts': 'export const arrivedDuringRebuild = 1;\n' });
    backdate(root, ['src/late.ts']);
    let during: Promise<number> | undefined;
    const report = await engine.index({
      rebuild: true,
      onProgress: (e) => {
        // a search of the same engine while the new file is being built
        if (e.phase === 'index' && !during) during = engine.search('arrivedDuringRebuild').then((r) => r.results.length);
      },
    });
    expect(report.filesIndexed).toBe(7);
    expect(await during).toBe(0); // the old index, which does not have it yet
    expect((await engine.search('arrivedDuringRebuild')).results[0]?.path).toBe('src/late.ts');
    // a later pass of this engine lands in the live file, where a new reader finds it
    writeTree(root, { 'src/later.ts': 'export const writtenAfterSwap = 1;\n' });
    backdate(root, ['src/later.ts']);
    expect((await engine.index()).filesIndexed).toBe(1);
    const reader = await createEngine({ db, env: isolatedEnv(t.dir) });
    expect((await reader.search('writtenAfterSwap')).results[0]?.path).toBe('src/later.ts');
    reader.close();
    await watch.close();
  });
});
