/** Issue 16, defect 1, library side: an index keeps the root it was built for. */
import { existsSync, mkdirSync, readFileSync, statSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEngine, type EngineError } from '../../src/index.js';
import { IndexStore } from '../../src/store/index-store.js';
import { backdate, writeSmallRepo } from '../helpers/fixture-repo.js';
import { isolatedEnv, tempDir, writeTree } from '../helpers/temp.js';

describe('createEngine({ root, db }) against the root stored in db', () => {
  let t: ReturnType<typeof tempDir>;
  let root: string;
  let other: string;
  let db: string;
  const env = (): Record<string, string> => isolatedEnv(t.dir);
  /** The database file as bytes plus its inode: equal means nothing was written or replaced. */
  const snapshot = (): { bytes: string; ino: number; sideFiles: boolean[] } => ({
    bytes: readFileSync(db).toString('base64'),
    ino: statSync(db).ino,
    sideFiles: ['-wal', '-shm'].map((s) => existsSync(db + s)),
  });

  beforeEach(async () => {
    t = tempDir();
    root = join(t.dir, 'repo');
    other = join(t.dir, 'other');
    db = join(t.dir, 'index.db');
    writeSmallRepo(root);
    writeTree(other, { 'lib/elsewhere.ts': 'export const elsewhereOnly = 1;\n' });
    backdate(other, ['lib/elsewhere.ts']);
    const engine = await createEngine({ root, db, env: env() });
    await engine.index();
    engine.close();
  });
  afterEach(() => t.cleanup());

  it('another root: ROOT_MISMATCH at creation, naming both roots, and the database is untouched', async () => {
    const before = snapshot();
    const err = (await createEngine({ root: other, db, env: env() }).catch((e: unknown) => e)) as EngineError;
    expect(err).toMatchObject({ code: 'ROOT_MISMATCH', data: { db, stored: root, root: other } });
    expect(err.message).toContain(root);
    expect(err.hint).toContain(root);
    expect(err.hint).toContain(other);
    expect(err.hint).toContain('--rebuild');
    expect(snapshot()).toEqual(before);
  });

  it('a subdirectory of the stored root is another root', async () => {
    await expect(createEngine({ root: join(root, 'src'), db, env: env() })).rejects.toMatchObject({ code: 'ROOT_MISMATCH' });
  });

  it('no root: the stored one; the same root by a symlinked path: accepted', async () => {
    const fromDb = await createEngine({ db, env: env() });
    expect(fromDb.root).toBe(root);
    fromDb.close();
    const link = join(t.dir, 'link-to-repo');
    symlinkSync(root, link);
    const viaLink = await createEngine({ root: link, db, env: env() });
    expect(viaLink.root).toBe(root);
    expect((await viaLink.index()).filesRemoved).toBe(0);
    viaLink.close();
  });

  it('a database with no completed pass has no root yet: any root is taken, and { db } alone is INDEX_NOT_FOUND', async () => {
    const fresh = join(t.dir, 'fresh', 'index.db');
    mkdirSync(join(t.dir, 'fresh'));
    IndexStore.open(fresh, { create: true }).close();
    await expect(createEngine({ db: fresh, env: env() })).rejects.toMatchObject({ code: 'INDEX_NOT_FOUND' });
    const engine = await createEngine({ root: other, db: fresh, env: env() });
    expect(await engine.index()).toMatchObject({ filesIndexed: 1 });
    engine.close();
  });

  it('reroot: only a rebuild may run, and it moves the index to the new root', async () => {
    const engine = await createEngine({ root: other, db, env: env(), reroot: true });
    const before = snapshot();
    await expect(engine.index()).rejects.toMatchObject({ code: 'ROOT_MISMATCH' });
    expect(snapshot()).toEqual(before);
    expect(await engine.index({ rebuild: true })).toMatchObject({ filesIndexed: 1, filesRemoved: 0 });
    expect((await engine.listFiles()).files.map((f) => f.path)).toEqual(['lib/elsewhere.ts']);
    expect((await engine.index()).filesIndexed).toBe(0); // re-rooted: an ordinary pass runs again
    engine.close();
    const reopened = await createEngine({ db, env: env() });
    expect(reopened.root).toBe(other);
    reopened.close();
    await expect(createEngine({ root, db, env: env() })).rejects.toMatchObject({ code: 'ROOT_MISMATCH', data: { stored: other } });
  });
});
