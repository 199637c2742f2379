import type { Db } from './database.js';

/**
 * Meta key of the vectors stamp: a random token replaced in the same transaction as every change
 * to which vector a chunk has (a chunk written or deleted, a vector stored). The vector snapshot
 * beside the database (src/embed/vector-file.ts) records the stamp it was written at and is served
 * only while the stamp is unchanged.
 */
export const VECTORS_STAMP_KEY = 'vectors_stamp';

/** Replaces the vectors stamp; repos that change chunks or vectors run it in their write. */
export const BUMP_VECTORS_STAMP_SQL = `INSERT INTO meta(key, value) VALUES ('${VECTORS_STAMP_KEY}', lower(hex(randomblob(8)))) ON CONFLICT(key) DO UPDATE SET value = excluded.value`;

/** Key/value facts about an index: root, feature version, last pass, counts. */
export class MetaRepo {
  private readonly getStmt;
  private readonly setStmt;
  private readonly bumpStmt;

  constructor(db: Db) {
    this.bumpStmt = db.prepare<[]>(BUMP_VECTORS_STAMP_SQL);
    this.getStmt = db.prepare<[string], { value: string }>('SELECT value FROM meta WHERE key = ?');
    this.setStmt = db.prepare<[string, string]>('INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value');
  }

  get(key: string): string | undefined {
    return this.getStmt.get(key)?.value;
  }

  set(key: string, value: string | number): void {
    this.setStmt.run(key, String(value));
  }

  /** Replaces the vectors stamp (see VECTORS_STAMP_KEY); returns the new one. Call in a write transaction. */
  bumpVectorsStamp(): string {
    this.bumpStmt.run();
    return this.get(VECTORS_STAMP_KEY)!;
  }

  getJson<T>(key: string): T | undefined {
    const raw = this.get(key);
    if (raw === undefined) return undefined;
    try {
      return JSON.parse(raw) as T;
    } catch {
      return undefined;
    }
  }

  setJson(key: string, value: unknown): void {
    this.set(key, JSON.stringify(value));
  }
}
