import type { Db } from './database.js';

/** A file refused for its content, as it was when refused. */
export interface SkipRecord {
  readonly path: string;
  readonly size: number;
  readonly mtimeMs: number;
  readonly reason: string;
  readonly featureVersion: number;
  readonly recordedAtMs: number;
}

/** Remembers content-refused files so that unchanged ones are not re-read every pass. */
export class SkipRepo {
  private readonly allStmt;
  private readonly putStmt;
  private readonly deleteStmt;

  constructor(db: Db) {
    this.allStmt = db.prepare<[], SkipRecord>(
      'SELECT path, size, mtime_ms AS mtimeMs, reason, feature_version AS featureVersion, recorded_at_ms AS recordedAtMs FROM skipped',
    );
    this.putStmt = db.prepare(
      `INSERT INTO skipped(path, size, mtime_ms, reason, feature_version, recorded_at_ms) VALUES (@path, @size, @mtimeMs, @reason, @featureVersion, @recordedAtMs)
       ON CONFLICT(path) DO UPDATE SET size = excluded.size, mtime_ms = excluded.mtime_ms, reason = excluded.reason,
         feature_version = excluded.feature_version, recorded_at_ms = excluded.recorded_at_ms`,
    );
    this.deleteStmt = db.prepare<[string]>('DELETE FROM skipped WHERE path = ?');
  }

  all(): Map<string, SkipRecord> {
    const out = new Map<string, SkipRecord>();
    for (const row of this.allStmt.iterate()) out.set(row.path, row);
    return out;
  }

  put(record: SkipRecord): void {
    this.putStmt.run(record);
  }

  delete(path: string): void {
    this.deleteStmt.run(path);
  }
}
