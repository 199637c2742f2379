/**
 * StatementCache (issue 19, natlat): SearchRepo's statements whose SQL varies with the call are
 * prepared once per text, on a real SQLite connection, and still read current data.
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openConnection, type Connection } from '../../../src/store/driver.js';
import { StatementCache } from '../../../src/store/statement-cache.js';
import { tempDir } from '../../helpers/temp.js';

describe('StatementCache', () => {
  let t: ReturnType<typeof tempDir>;
  let db: Connection;

  beforeEach(() => {
    t = tempDir();
    db = openConnection(join(t.dir, 'c.db'));
    db.exec('CREATE TABLE x(v INTEGER)');
  });

  afterEach(() => {
    db.close();
    t.cleanup();
  });

  it('hands back the same statement for the same text, and it reads rows written after it was prepared', () => {
    const cache = new StatementCache(db);
    const a = cache.get<[], { n: number }>('SELECT count(*) AS n FROM x');
    expect(a.get()!.n).toBe(0);
    db.prepare('INSERT INTO x(v) VALUES (1), (2)').run();
    const b = cache.get<[], { n: number }>('SELECT count(*) AS n FROM x');
    expect(b).toBe(a);
    expect(b.get()!.n).toBe(2);
    expect(cache.size).toBe(1);
  });

  it('holds at most `max` texts, the oldest going first', () => {
    const cache = new StatementCache(db, 2);
    const first = cache.get('SELECT 1');
    cache.get('SELECT 2');
    cache.get('SELECT 3');
    expect(cache.size).toBe(2);
    expect(cache.get('SELECT 3')).toBe(cache.get('SELECT 3'));
    expect(cache.get('SELECT 1')).not.toBe(first);
  });
});
