import { EngineError } from '../core/errors.js';
import type { PgDb } from './pg-db.js';
import { PG_MIGRATIONS, PG_SCHEMA_VERSION } from './pg-schema.js';

/** Advisory lock key serialising migrations of one database (two servers starting together). */
const MIGRATE_LOCK = 0x5c7e_a23;

/**
 * Applies pending migrations, each in the same transaction as the version it records; refuses
 * (TEAM_DB_TOO_NEW) a database migrated by a newer build, before changing anything.
 */
export async function migrateTeamDb(db: PgDb): Promise<{ from: number; to: number }> {
  return db.write(async (sql) => {
    await sql('SELECT pg_advisory_xact_lock($1)', [MIGRATE_LOCK]);
    await sql('CREATE TABLE IF NOT EXISTS scry_team_meta (key text PRIMARY KEY, value text NOT NULL)');
    const row = (await sql("SELECT value FROM scry_team_meta WHERE key = 'schema_version'")).rows[0];
    const from = row ? Number(row['value']) : 0;
    if (from > PG_SCHEMA_VERSION) throw new EngineError('TEAM_DB_TOO_NEW', { found: from, supported: PG_SCHEMA_VERSION });
    for (const m of PG_MIGRATIONS) {
      if (m.version <= from) continue;
      await sql(m.sql);
    }
    await sql("INSERT INTO scry_team_meta(key, value) VALUES ('schema_version', $1) ON CONFLICT (key) DO UPDATE SET value = excluded.value", [String(Math.max(from, PG_SCHEMA_VERSION))]);
    return { from, to: Math.max(from, PG_SCHEMA_VERSION) };
  });
}
