import Database from 'better-sqlite3';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEngine, ERROR_CODES, type Engine } from '../../src/index.js';
import { WriterLock } from '../../src/store/writer-lock.js';
import { writeSmallRepo } from '../helpers/fixture-repo.js';
import { isolatedEnv, tempDir } from '../helpers/temp.js';

describe('bad input: clear errors with stable codes, nothing lost', () => {
  let t: ReturnType<typeof tempDir>;
  let root: string;
  let engine: Engine;

  beforeEach(async () => {
    t = tempDir();
    root = join(t.dir, 'repo');
    mkdirSync(root);
    writeSmallRepo(root);
    engine = await createEngine({ root, env: isolatedEnv(t.dir), config: { lockTimeoutMs: 0 } });
  });
  afterEach(() => {
    engine.close();
    t.cleanup();
  });

  it('a root that does not exist, or is a file', async () => {
    await expect(createEngine({ root: join(t.dir, 'nope'), env: isolatedEnv(t.dir) })).rejects.toMatchObject({ code: 'ROOT_NOT_FOUND' });
    await expect(createEngine({ root: join(root, 'README.md'), env: isolatedEnv(t.dir) })).rejects.toMatchObject({ code: 'ROOT_NOT_DIRECTORY' });
  });

  it('searching before any index exists', async () => {
    await expect(engine.search('x')).rejects.toMatchObject({ code: 'INDEX_NOT_FOUND' });
    await expect(createEngine({ db: join(t.dir, 'missing.db'), env: isolatedEnv(t.dir) })).rejects.toMatchObject({ code: 'INDEX_NOT_FOUND' });
  });

  it('empty queries and queries made only of FTS syntax', async () => {
    await engine.index();
    for (const q of ['', '   ', '"" * ( ) ^ : + -', '"', '\u0000']) {
      await expect(engine.search(q)).rejects.toMatchObject({ code: 'QUERY_EMPTY' });
    }
    // FTS keywords are words, never operators
    expect((await engine.search('NEAR( title:foo')).results).toEqual([]);
    const r = await engine.search('AND OR NOT openDatabase');
    expect(r.results[0]!.path).toBe('src/db/open-database.ts');
  });

  it('invalid limits', async () => {
    await engine.index();
    for (const limit of [0, -1, 1.5, 5000]) await expect(engine.search('port', { limit })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });

  it('an index another process is writing: INDEX_LOCKED after the wait, index intact', async () => {
    await engine.index();
    const other = new WriterLock(`${engine.dbPath}.lock`);
    await other.acquire({ timeoutMs: 0 });
    await expect(engine.index()).rejects.toMatchObject({ code: 'INDEX_LOCKED' });
    // readers never block on the writer lock
    expect((await engine.search('openDatabase')).results).not.toHaveLength(0);
    other.release();
    expect(await engine.index()).toMatchObject({ filesUnchanged: 6 });
  });

  it('a database locked by another SQLite connection: DB_LOCKED, then recovers', async () => {
    await engine.index();
    engine.close();
    engine = await createEngine({ root, env: isolatedEnv(t.dir), config: { lockTimeoutMs: 0 } });
    writeFileSync(join(root, 'new.ts'), 'export const fresh = 1;\n');
    const holder = new Database(engine.dbPath);
    holder.exec('BEGIN EXCLUSIVE');
    const store = (await import('../../src/store/index-store.js')).IndexStore;
    const s = store.open(engine.dbPath, { create: false, busyTimeoutMs: 20 });
    expect(() => s.transaction(() => s.meta.set('x', 1))).toThrow(expect.objectContaining({ code: 'DB_LOCKED' }));
    s.close();
    holder.exec('ROLLBACK');
    holder.close();
    expect(await engine.index()).toMatchObject({ filesIndexed: 1 });
  });

  it('a corrupt database: DB_CORRUPT with a hint, and --rebuild recovers', async () => {
    mkdirSync(join(engine.dbPath, '..'), { recursive: true });
    writeFileSync(engine.dbPath, 'this is not a database'.repeat(500));
    const err = await engine.search('port').catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'DB_CORRUPT' });
    expect((err as { hint: string }).hint).toMatch(/--rebuild/);
    engine.close();
    engine = await createEngine({ root, env: isolatedEnv(t.dir) });
    expect(await engine.index({ rebuild: true })).toMatchObject({ filesIndexed: 6 });
    expect((await engine.search('openDatabase')).results).not.toHaveLength(0);
  });

  it('a database from a newer scry: DB_TOO_NEW, file untouched', async () => {
    await engine.index();
    engine.close();
    const raw = new Database(engine.dbPath);
    raw.pragma('user_version = 999');
    raw.close();
    engine = await createEngine({ root, env: isolatedEnv(t.dir) });
    await expect(engine.search('port')).rejects.toMatchObject({ code: 'DB_TOO_NEW' });
    expect(existsSync(engine.dbPath)).toBe(true);
  });

  it('an invalid config file: CONFIG_INVALID naming the key', async () => {
    writeFileSync(join(root, 'scry.config.json'), JSON.stringify({ maxFileBytes: 'big', unknownKey: 1 }));
    const err = await createEngine({ root, env: isolatedEnv(t.dir) }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'CONFIG_INVALID' });
    expect(String((err as Error).message)).toMatch(/maxFileBytes/);
    writeFileSync(join(root, 'scry.config.json'), '{ not json');
    await expect(createEngine({ root, env: isolatedEnv(t.dir) })).rejects.toMatchObject({ code: 'CONFIG_INVALID' });
  });

  it('every code in the catalogue is pinned', () => {
    expect(ERROR_CODES).toEqual([
      'ROOT_NOT_FOUND', 'ROOT_NOT_DIRECTORY', 'INDEX_NOT_FOUND', 'INDEX_LOCKED', 'DB_LOCKED', 'DB_CORRUPT', 'DB_TOO_NEW',
      'DB_OPEN_FAILED', 'QUERY_EMPTY', 'QUERY_TOO_LONG', 'INVALID_ARGUMENT', 'CONFIG_INVALID', 'PATH_OUTSIDE_ROOT', 'IO_ERROR',
      'CLOSED', 'INTERNAL',
    ]);
  });
});
