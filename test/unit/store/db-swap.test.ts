/** Issue 16, defect 5: a rebuilt database is sealed and renamed over the live one; SQLite's side files never cross over. */
import { openConnection, type Connection } from '../../../src/store/driver.js';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { rebuildPathFor, removeDatabaseFiles, removeStaleRebuilds, swapDatabase } from '../../../src/store/db-swap.js';
import { IndexStore } from '../../../src/store/index-store.js';
import { tempDir } from '../../helpers/temp.js';

describe('db-swap', () => {
  let t: ReturnType<typeof tempDir>;
  let db: string;
  beforeEach(() => {
    t = tempDir();
    db = join(t.dir, 'index.db');
  });
  afterEach(() => t.cleanup());

  const writeStore = (path: string, value: string): IndexStore => {
    const store = IndexStore.open(path, { create: true });
    store.transaction(() => store.meta.set('generation', value));
    return store;
  };

  it('seal leaves one self-contained file: no -wal, no -shm, rollback journal', () => {
    const next = rebuildPathFor(db, 4242);
    expect(next).toBe(`${db}.rebuild-4242`);
    writeStore(next, 'new').seal();
    expect(['-wal', '-shm', '-journal'].map((s) => existsSync(next + s))).toEqual([false, false, false]);
    const check = openConnection(next, { readonly: true });
    expect(check.pragma('journal_mode')).toBe('delete');
    check.close();
  });

  it('a reader of the old file keeps reading it across the swap, and closing it never removes the new file\'s WAL', () => {
    writeStore(db, 'old').close();
    // read-write, as the engine's readers open it (a read-only handle could never take the lock to checkpoint-and-delete)
    const oldReader = IndexStore.open(db, { create: false });
    const read = (conn: Connection | IndexStore): string => (conn instanceof IndexStore ? conn.meta.get('generation')! : (conn.prepare("SELECT value FROM meta WHERE key = 'generation'").get() as { value: string }).value);
    expect(read(oldReader)).toBe('old');
    expect(existsSync(`${db}-shm`)).toBe(true);

    const next = rebuildPathFor(db, process.pid);
    writeStore(next, 'new').seal();
    swapDatabase(next, db);
    expect(existsSync(next)).toBe(false);
    expect(read(oldReader)).toBe('old'); // its descriptors still point at the old file

    // the writer reopens the new file in WAL mode and commits into a fresh WAL
    const writer = IndexStore.open(db, { create: false });
    writer.transaction(() => writer.meta.set('after', 'swap'));
    expect(existsSync(`${db}-wal`)).toBe(true);
    oldReader.close(); // the last connection to the old (moved) file: no checkpoint-and-delete by name
    expect(existsSync(`${db}-wal`)).toBe(true);
    const fresh = openConnection(db, { readonly: true });
    expect(read(fresh)).toBe('new');
    expect((fresh.prepare("SELECT value FROM meta WHERE key = 'after'").get() as { value: string }).value).toBe('swap');
    expect(fresh.pragma('integrity_check')).toBe('ok');
    fresh.close();
    writer.close();
  });

  it('a stale -wal of the old file is removed before the rename, never replayed over the new file', () => {
    writeStore(db, 'old').close();
    // a WAL full of old-file frames left behind (a killed writer): copy one into place
    const donor = join(t.dir, 'donor.db');
    const d = openConnection(donor);
    d.pragma('journal_mode = WAL');
    d.pragma('wal_autocheckpoint = 0');
    d.exec('CREATE TABLE junk (x); INSERT INTO junk VALUES (1);');
    expect(existsSync(`${donor}-wal`)).toBe(true);
    writeFileSync(`${db}-wal`, readFileSync(`${donor}-wal`));
    d.close();
    const next = rebuildPathFor(db, process.pid);
    writeStore(next, 'new').seal();
    swapDatabase(next, db);
    expect(existsSync(`${db}-wal`)).toBe(false);
    const store = IndexStore.open(db, { create: false });
    expect(store.meta.get('generation')).toBe('new');
    expect(store.integrityCheck()).toBe('ok');
    store.close();
  });

  it('removeStaleRebuilds takes only rebuild files of this database and their side files', () => {
    const names = ['index.db.rebuild-12', 'index.db.rebuild-12-wal', 'index.db.rebuild-12-shm', 'index.db.rebuild-7-journal', 'index.db', 'index.db.lock', 'other.db.rebuild-12', 'index.db.rebuild-x', 'index.db.rebuild-12.bak'];
    for (const n of names) writeFileSync(join(t.dir, n), '');
    expect(removeStaleRebuilds(db).sort()).toEqual(['index.db.rebuild-12', 'index.db.rebuild-12-shm', 'index.db.rebuild-12-wal', 'index.db.rebuild-7-journal']);
    expect(readdirSync(t.dir).sort()).toEqual(['index.db', 'index.db.lock', 'index.db.rebuild-12.bak', 'index.db.rebuild-x', 'other.db.rebuild-12']);
    expect(removeStaleRebuilds(join(t.dir, 'missing', 'index.db'))).toEqual([]);
  });

  it('removeDatabaseFiles takes the database, its side files, its vector snapshot and the snapshot\'s memo', () => {
    const names = ['gone.db', 'gone.db-wal', 'gone.db-shm', 'gone.db.vec', 'gone.db.vec.ok', 'gone.db.lock', 'kept.db.vec.ok'];
    for (const n of names) writeFileSync(join(t.dir, n), '');
    removeDatabaseFiles(join(t.dir, 'gone.db'));
    expect(readdirSync(t.dir).filter((n) => names.includes(n)).sort()).toEqual(['gone.db.lock', 'kept.db.vec.ok']);
  });
});
