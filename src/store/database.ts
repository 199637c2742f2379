import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { EngineError } from '../core/errors.js';
import { openConnection, sqliteFailure, type Connection } from './driver.js';
import { MIGRATIONS, SCHEMA_VERSION } from './migrations/index.js';

export type Db = Connection;

export interface OpenOptions {
  /** Create the file (and its directory) when missing. */
  readonly create: boolean;
  /** How long a statement waits on another connection's lock before SQLITE_BUSY. */
  readonly busyTimeoutMs?: number;
}

/** Maps SQLite failures to catalogue errors (a damaged file, a lock); anything else is returned as is. */
export function translateSqliteError(err: unknown, db: string): unknown {
  const failure = sqliteFailure(err);
  if (failure === 'corrupt') return new EngineError('DB_CORRUPT', { db }, { cause: err });
  if (failure === 'busy') return new EngineError('DB_LOCKED', { db }, { cause: err });
  return err;
}

function migrate(db: Db, path: string): void {
  const current = db.pragma('user_version') as number;
  if (current > SCHEMA_VERSION) throw new EngineError('DB_TOO_NEW', { db: path, found: current, supported: SCHEMA_VERSION });
  for (const m of MIGRATIONS) {
    if (m.version <= current) continue;
    db.transaction(() => {
      db.exec(m.sql);
      db.pragma(`user_version = ${m.version}`);
    }, 'immediate');
  }
}

/**
 * Opens an index database: WAL (readers never block the writer), a busy timeout, NORMAL sync
 * (durable at checkpoints, never corrupt), foreign keys, then numbered migrations.
 */
export function openDatabase(path: string, options: OpenOptions): Db {
  if (!options.create && !existsSync(path)) throw new EngineError('INDEX_NOT_FOUND', { db: path });
  if (options.create) mkdirSync(dirname(path), { recursive: true });
  let db: Db | undefined;
  try {
    db = openConnection(path, { busyTimeoutMs: options.busyTimeoutMs ?? 5000 });
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    db.pragma('temp_store = MEMORY');
    db.pragma('cache_size = -32000');
    // checkpoint every ~64 MB of WAL instead of 4 MB: bulk indexing copies pages far less often;
    // large passes end with an explicit TRUNCATE checkpoint
    db.pragma('wal_autocheckpoint = 16000');
    // Probe the header before migrating: a non-database file fails here with SQLITE_NOTADB.
    db.prepare('SELECT count(*) FROM sqlite_master').get();
    migrate(db, path);
    return db;
  } catch (err) {
    db?.close();
    if (err instanceof EngineError) throw err;
    const translated = translateSqliteError(err, path);
    if (translated instanceof EngineError) throw translated;
    throw new EngineError('DB_OPEN_FAILED', { db: path, reason: (err as Error).message }, { cause: err });
  }
}
