/**
 * Migrations 11 (drop `name_uses`) and 12 (`content.codec`, `content.grams`) upgrade an index in
 * place, each in its own transaction: a migration that fails half-way leaves the index at the
 * last version that completed, readable, and the next open finishes the upgrade.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EngineError } from '../../../src/core/errors.js';
import { openConnection } from '../../../src/store/driver.js';
import { IndexStore } from '../../../src/store/index-store.js';
import { MIGRATIONS, SCHEMA_VERSION } from '../../../src/store/migrations/index.js';
import { tempDir } from '../../helpers/temp.js';

const TEXT = 'export function widget(a, b) {\n  return a + b;\n}\n'.repeat(20);

/** An index as schema 10 left it: one stored body, not compressed, and a `name_uses` row. */
function schema10(path: string): void {
  const raw = openConnection(path);
  for (const m of MIGRATIONS.filter((m) => m.version <= 10)) raw.exec(m.sql);
  raw.pragma('user_version = 10');
  raw.prepare("INSERT INTO content(hash, body) VALUES ('h1', ?)").run(Buffer.from(TEXT));
  raw.prepare("INSERT INTO files(path, language, content_type, size, mtime_ms, hash, encoding, line_count, feature_version, indexed_at_ms) VALUES ('a.ts', 'typescript', 'code', 1, 1, 'h1', 'utf-8', 60, 8, 1)").run();
  raw.prepare("INSERT INTO name_uses(file_id, name, uses) VALUES (1, '', ''), (1, 'widget', '9d')").run();
  raw.close();
}

describe('migrations 11 and 12', () => {
  it('upgrade a schema 10 index in place: uses dropped, old bodies read as they are, new ones compressed', () => {
    const t = tempDir();
    try {
      const path = join(t.dir, 'index.db');
      schema10(path);
      const store = IndexStore.open(path, { create: false });
      expect(store.schemaVersion()).toBe(SCHEMA_VERSION);
      expect(store.content.text('h1')).toBe(TEXT);
      expect(store.content.slice('h1', 7, 22)).toBe('function widget');
      store.content.putBytes('h2', Buffer.from(TEXT.toUpperCase()));
      expect(store.content.text('h2')).toBe(TEXT.toUpperCase());
      store.close();
      const raw = openConnection(path, { readonly: true });
      expect(raw.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'name_uses'").get()).toEqual({ n: 0 });
      expect(raw.prepare('SELECT hash, codec, grams IS NOT NULL AS filtered FROM content ORDER BY hash').all()).toEqual([
        { hash: 'h1', codec: 0, filtered: 0 },
        { hash: 'h2', codec: 1, filtered: 1 },
      ]);
      raw.close();
    } finally {
      t.cleanup();
    }
  });

  it('a migration that fails half-way leaves the last completed version, readable; the next open finishes', () => {
    const t = tempDir();
    try {
      const path = join(t.dir, 'index.db');
      schema10(path);
      // migration 12's second statement fails: its first (codec) must be rolled back with it
      const raw = openConnection(path);
      raw.exec('ALTER TABLE content ADD COLUMN grams BLOB');
      raw.close();
      let error: unknown;
      try {
        IndexStore.open(path, { create: false }).close();
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(EngineError);
      const check = openConnection(path, { readonly: true });
      expect(check.pragma('user_version')).toBe(11);
      expect(check.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'name_uses'").get()).toEqual({ n: 0 });
      expect(check.prepare("SELECT count(*) AS n FROM pragma_table_info('content') WHERE name = 'codec'").get()).toEqual({ n: 0 });
      expect(Buffer.from((check.prepare("SELECT body FROM content WHERE hash = 'h1'").get() as { body: Uint8Array }).body).toString()).toBe(TEXT);
      check.close();
      const fix = openConnection(path);
      fix.exec('ALTER TABLE content DROP COLUMN grams');
      fix.close();
      const store = IndexStore.open(path, { create: false });
      expect(store.schemaVersion()).toBe(12);
      expect(store.content.text('h1')).toBe(TEXT);
      store.close();
    } finally {
      t.cleanup();
    }
  });
});
