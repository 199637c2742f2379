import { openConnection } from '../../../src/store/driver.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EngineError } from '../../../src/core/errors.js';
import { IndexStore } from '../../../src/store/index-store.js';
import { SCHEMA_VERSION } from '../../../src/store/migrations/index.js';
import { tempDir } from '../../helpers/temp.js';

const codeOf = (fn: () => unknown): string => {
  try {
    fn();
  } catch (err) {
    if (err instanceof EngineError) return err.code;
    throw err;
  }
  throw new Error('expected an EngineError');
};

describe('IndexStore.open', () => {
  let t: ReturnType<typeof tempDir>;
  beforeEach(() => {
    t = tempDir();
  });
  afterEach(() => t.cleanup());

  it('creates the schema, WAL mode and user_version', () => {
    const path = join(t.dir, 'nested', 'dir', 'index.db');
    const store = IndexStore.open(path, { create: true });
    expect(store.schemaVersion()).toBe(SCHEMA_VERSION);
    store.close();
    const raw = openConnection(path, { readonly: true });
    expect(raw.pragma('journal_mode')).toBe('wal');
    expect(raw.prepare("SELECT name FROM sqlite_master WHERE name = 'chunks_fts'").get()).toBeTruthy();
    raw.close();
  });

  it('reopening does not re-run migrations', () => {
    const path = join(t.dir, 'a.db');
    const s1 = IndexStore.open(path, { create: true });
    s1.meta.set('root', '/x');
    s1.close();
    const s2 = IndexStore.open(path, { create: false });
    expect(s2.meta.get('root')).toBe('/x');
    s2.close();
  });

  it('INDEX_NOT_FOUND when the file is missing and create is false', () => {
    expect(codeOf(() => IndexStore.open(join(t.dir, 'missing.db'), { create: false }))).toBe('INDEX_NOT_FOUND');
  });

  it('DB_CORRUPT for a file that is not a database', () => {
    const path = join(t.dir, 'garbage.db');
    writeFileSync(path, Buffer.alloc(8192, 0x5a));
    expect(codeOf(() => IndexStore.open(path, { create: false }))).toBe('DB_CORRUPT');
  });

  it('DB_TOO_NEW for an index written by a newer schema', () => {
    const path = join(t.dir, 'new.db');
    IndexStore.open(path, { create: true }).close();
    const raw = openConnection(path);
    raw.pragma(`user_version = ${SCHEMA_VERSION + 5}`);
    raw.close();
    expect(codeOf(() => IndexStore.open(path, { create: false }))).toBe('DB_TOO_NEW');
  });

  it('DB_LOCKED when another connection holds a write transaction past the busy timeout', () => {
    const path = join(t.dir, 'locked.db');
    const store = IndexStore.open(path, { create: true, busyTimeoutMs: 50 });
    const other = openConnection(path);
    other.pragma('busy_timeout = 0');
    other.exec('BEGIN IMMEDIATE');
    expect(codeOf(() => store.transaction(() => store.meta.set('k', 'v')))).toBe('DB_LOCKED');
    other.exec('ROLLBACK');
    store.transaction(() => store.meta.set('k', 'v'));
    expect(store.meta.get('k')).toBe('v');
    other.close();
    store.close();
  });

  it('stores identical content once and slices it by UTF-8 bytes', () => {
    const store = IndexStore.open(join(t.dir, 'c.db'), { create: true });
    store.content.putBytes('h1', Buffer.from('héllo wörld'));
    store.content.putBytes('h1', Buffer.from('héllo wörld'));
    expect(store.content.slice('h1', 0, 6)).toBe('héllo');
    expect(store.content.slice('h1', 7, 13)).toBe('wörld');
    store.close();
  });
});
