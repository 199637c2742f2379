/**
 * The SQLite driver seam (src/store/driver.ts) against the real binding: what the store relies on,
 * pinned so that a driver change (or a second implementation) must keep it.
 */
import { copyFileSync, existsSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EngineError } from '../../../src/core/errors.js';
import { translateSqliteError } from '../../../src/store/database.js';
import { asBuffer, openConnection, sqliteFailure, type Connection } from '../../../src/store/driver.js';
import { tempDir } from '../../helpers/temp.js';

let t: ReturnType<typeof tempDir>;
let db: Connection;
beforeEach(() => {
  t = tempDir();
  db = openConnection(join(t.dir, 'a.db'));
  db.exec('CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, body BLOB)');
});
afterEach(() => {
  if (db.isOpen) db.close();
  t.cleanup();
});

const names = (): string[] => db.prepare<[], { name: string }>('SELECT name FROM t ORDER BY id').all().map((r) => r.name);
const thrown = (fn: () => unknown): unknown => {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected a throw');
};

describe('statements', () => {
  it('binds positionally and by name (prefixed in SQL, bare in the object), and reports changes and rowid', () => {
    const a = db.prepare<[string]>('INSERT INTO t(name) VALUES (?)').run('a');
    expect(a).toEqual({ changes: 1, lastInsertRowid: 1 });
    const b = db.prepare<[{ name: string }]>('INSERT INTO t(name) VALUES (@name)').run({ name: 'b' });
    expect(Number(b.lastInsertRowid)).toBe(2);
    db.prepare('INSERT INTO t(name) VALUES ($name)').run({ name: 'c' });
    expect(db.prepare('UPDATE t SET name = upper(name)').run().changes).toBe(3);
    expect(names()).toEqual(['A', 'B', 'C']);
  });

  it('binds null, not undefined; a missing named parameter binds NULL, an unknown one is ignored', () => {
    db.prepare('INSERT INTO t(name) VALUES (?)').run(null);
    expect(() => db.prepare('INSERT INTO t(name) VALUES (?)').run(undefined)).toThrow();
    db.prepare('INSERT INTO t(id, name) VALUES (@id, @name)').run({ id: 7 });
    expect(db.prepare('SELECT name FROM t WHERE id = 7').get()).toEqual({ name: null });
    db.prepare('UPDATE t SET name = @name WHERE id = @id').run({ id: 7, name: 'seven', path: 'not in the statement' });
    expect(db.prepare('SELECT name FROM t WHERE id = 7').get()).toEqual({ name: 'seven' });
  });

  it('get returns undefined for no row; all, iterate and raw return rows as objects or arrays', () => {
    const insert = db.prepare<[number, string]>('INSERT INTO t(id, name) VALUES (?, ?)');
    insert.run(1, 'one');
    insert.run(2, 'two');
    expect(db.prepare('SELECT name FROM t WHERE id = 9').get()).toBeUndefined();
    expect(db.prepare('SELECT id, name FROM t ORDER BY id').all()).toEqual([{ id: 1, name: 'one' }, { id: 2, name: 'two' }]);
    expect([...db.prepare<[], { id: number }>('SELECT id FROM t ORDER BY id').iterate()].map((r) => r.id)).toEqual([1, 2]);
    expect(db.prepare('SELECT id, name FROM t ORDER BY id').raw().all()).toEqual([[1, 'one'], [2, 'two']]);
    expect(db.prepare<[number]>('SELECT name, id FROM t WHERE id = ?').raw().get(2)).toEqual(['two', 2]);
  });

  it('reads BLOBs as bytes that asBuffer views as a Buffer without copying', () => {
    db.prepare('INSERT INTO t(id, body) VALUES (1, ?)').run(Buffer.from('héllo', 'utf8'));
    const body = db.prepare<[], { body: Uint8Array }>('SELECT body FROM t').get()!.body;
    expect(body).toBeInstanceOf(Uint8Array);
    const buf = asBuffer(body);
    expect(buf.toString('utf8')).toBe('héllo');
    expect(buf.buffer).toBe(body.buffer);
    expect(asBuffer(buf)).toBe(buf);
  });

  it('integers beyond 2^53 throw rather than lose precision', () => {
    expect(db.prepare('SELECT 9007199254740991 AS n').get()).toEqual({ n: Number.MAX_SAFE_INTEGER });
    expect(() => db.prepare('SELECT 9007199254740993 AS n').get()).toThrow();
    const big = openConnection(join(t.dir, 'a.db'), { bigInts: true });
    expect(big.prepare('SELECT 9007199254740993 AS n').get()).toEqual({ n: 9007199254740993n });
    big.close();
  });

  it('a statement prepared before a schema change still runs after it', () => {
    const count = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM t');
    db.exec('ALTER TABLE t ADD COLUMN extra TEXT; CREATE INDEX t_name ON t(name)');
    db.exec("INSERT INTO t(name, extra) VALUES ('x', 'y')");
    expect(count.get()).toEqual({ n: 1 });
  });
});

describe('transactions', () => {
  const insert = (name: string): void => void db.prepare('INSERT INTO t(name) VALUES (?)').run(name);

  it('commits what fn wrote and returns its value; rolls all of it back when fn throws', () => {
    expect(db.transaction(() => (insert('a'), insert('b'), 42), 'immediate')).toBe(42);
    expect(() =>
      db.transaction(() => {
        insert('c');
        return JSON.parse('{') as unknown;
      }),
    ).toThrow(SyntaxError);
    expect(names()).toEqual(['a', 'b']);
    expect(db.inTransaction).toBe(false);
  });

  it('nests as a savepoint: an inner failure undoes the inner writes only', () => {
    db.transaction(() => {
      insert('outer');
      expect(db.inTransaction).toBe(true);
      expect(() =>
        db.transaction(() => {
          insert('inner');
          throw new Error('inner fails');
        }),
      ).toThrow('inner fails');
      db.transaction(() => insert('inner ok'), 'immediate');
    });
    expect(names()).toEqual(['outer', 'inner ok']);
  });

  it('an IMMEDIATE transaction takes the write lock at BEGIN: another writer gets SQLITE_BUSY, mapped to DB_LOCKED', () => {
    const other = openConnection(join(t.dir, 'a.db'), { busyTimeoutMs: 0 });
    try {
      db.transaction(() => {
        const err = thrown(() => other.transaction(() => undefined, 'immediate'));
        expect(sqliteFailure(err)).toBe('busy');
        const mapped = translateSqliteError(err, 'a.db');
        expect(mapped).toBeInstanceOf(EngineError);
        expect((mapped as EngineError).code).toBe('DB_LOCKED');
      }, 'immediate');
      expect(other.inTransaction).toBe(false);
    } finally {
      other.close();
    }
  });
});

describe('the connection', () => {
  it('pragma returns the first column of the first row, or undefined', () => {
    expect(db.pragma('journal_mode = WAL')).toBe('wal');
    expect(db.pragma('user_version')).toBe(0);
    db.pragma('user_version = 7');
    expect(db.pragma('user_version')).toBe(7);
    expect(db.pragma('synchronous = NORMAL')).toBeUndefined();
    expect(db.pragma('foreign_keys')).toBe(1);
    expect(db.pragma('busy_timeout')).toBe(5000);
  });

  it('user functions are called from SQL', () => {
    const seen: unknown[] = [];
    db.function('twice', { deterministic: true }, (x) => (seen.push(x), Number(x) * 2));
    expect(db.prepare('SELECT twice(21) AS v').get()).toEqual({ v: 42 });
    expect(seen).toEqual([21]);
  });

  it('FTS5 with the index tokenizer (porter, unicode61) and fts5vocab are compiled in', () => {
    db.exec(`CREATE VIRTUAL TABLE f USING fts5(body, tokenize = "porter unicode61 remove_diacritics 2 tokenchars '_'");
      CREATE VIRTUAL TABLE fv USING fts5vocab(f, 'row');
      INSERT INTO f(rowid, body) VALUES (1, 'Running parse_config quickly'), (2, 'café runs');`);
    expect(db.prepare('SELECT rowid AS id FROM f WHERE f MATCH ? ORDER BY rowid').all('run')).toEqual([{ id: 1 }, { id: 2 }]);
    expect(db.prepare('SELECT rowid AS id FROM f WHERE f MATCH ?').all('cafe')).toEqual([{ id: 2 }]);
    expect(db.prepare("SELECT doc FROM fv WHERE term = 'parse_config'").get()).toEqual({ doc: 1 });
  });

  it('read-only connections read and refuse writes; a missing file is an error, not a new database', () => {
    db.exec("INSERT INTO t(name) VALUES ('a')");
    const ro = openConnection(join(t.dir, 'a.db'), { readonly: true });
    expect(ro.prepare('SELECT count(*) AS n FROM t').get()).toEqual({ n: 1 });
    expect(() => ro.exec("INSERT INTO t(name) VALUES ('b')")).toThrow(/readonly/);
    ro.close();
    expect(() => openConnection(join(t.dir, 'missing.db'), { readonly: true })).toThrow(/no such file/);
    expect(existsSync(join(t.dir, 'missing.db'))).toBe(false);
  });

  it('a file that is not a database fails as corrupt (DB_CORRUPT); other failures are not classified', () => {
    const path = join(t.dir, 'garbage.db');
    writeFileSync(path, Buffer.alloc(8192, 0x5a));
    const bad = openConnection(path);
    const err = thrown(() => bad.prepare('SELECT count(*) FROM sqlite_master').get());
    bad.close();
    expect(sqliteFailure(err)).toBe('corrupt');
    expect((translateSqliteError(err, path) as EngineError).code).toBe('DB_CORRUPT');
    const syntax = thrown(() => db.exec('SELEC 1'));
    expect(sqliteFailure(syntax)).toBeUndefined();
    expect(translateSqliteError(syntax, 'a.db')).toBe(syntax);
    expect(sqliteFailure(new DOMException('aborted', 'AbortError'))).toBeUndefined();
  });

  it('backup copies a consistent database to a new file', async () => {
    db.exec("INSERT INTO t(name) VALUES ('kept')");
    const copy = join(t.dir, 'copy.db');
    await db.backup(copy);
    const c = openConnection(copy, { readonly: true });
    expect(c.prepare('SELECT name FROM t').all()).toEqual([{ name: 'kept' }]);
    c.close();
  });

  it('close leaves the database file complete by itself, though statements prepared on the connection are still alive', () => {
    db.pragma('journal_mode = WAL');
    const insert = db.prepare('INSERT INTO t(name) VALUES (?)');
    db.transaction(() => ['a', 'b', 'c'].forEach((n) => insert.run(n)));
    expect(statSync(join(t.dir, 'a.db-wal')).size).toBeGreaterThan(0);
    db.close();
    // the file alone, as a copy or a backup tool would take it, without its -wal
    copyFileSync(join(t.dir, 'a.db'), join(t.dir, 'alone.db'));
    const alone = openConnection(join(t.dir, 'alone.db'), { readonly: true });
    expect(alone.prepare('SELECT name FROM t ORDER BY id').raw().all()).toEqual([['a'], ['b'], ['c']]);
    alone.close();
    expect(insert).toBeDefined(); // still referenced here: the binding has not finalized it
  });

  it('close ends the connection: isOpen is false and statements cannot be prepared', () => {
    db.close();
    expect(db.isOpen).toBe(false);
    expect(db.inTransaction).toBe(false);
    expect(() => db.prepare('SELECT 1')).toThrow();
  });
});
