import type { Db } from './database.js';

/** File text stored once per content hash (identical files share one row). */
export class ContentRepo {
  private readonly putStmt;
  private readonly deleteStmt;
  private readonly sliceStmt;
  private readonly textStmt;
  private readonly bodiesStmt;

  constructor(db: Db) {
    this.putStmt = db.prepare<[string, Buffer]>('INSERT INTO content(hash, body) VALUES (?, ?) ON CONFLICT(hash) DO NOTHING');
    this.deleteStmt = db.prepare<[string]>('DELETE FROM content WHERE hash = ?');
    this.textStmt = db.prepare<[string], { body: Buffer }>('SELECT body FROM content WHERE hash = ?');
    this.bodiesStmt = db.prepare<[string], { hash: string; body: Buffer }>('SELECT c.hash, c.body FROM json_each(?) AS j JOIN content AS c ON c.hash = j.value');
    this.sliceStmt = db.prepare<[number, number, string], { text: Buffer }>('SELECT substr(body, ?, ?) AS text FROM content WHERE hash = ?');
  }

  /** Stores already UTF-8-encoded text. */
  putBytes(hash: string, utf8: Buffer): void {
    this.putStmt.run(hash, utf8);
  }

  delete(hash: string): void {
    this.deleteStmt.run(hash);
  }

  /** The whole stored text of a file. */
  text(hash: string): string | undefined {
    const row = this.textStmt.get(hash);
    return row ? Buffer.from(row.body).toString('utf8') : undefined;
  }

  /** UTF-8 text of bytes [startByte, endByte) of a stored file, read without loading the whole body. */
  slice(hash: string, startByte: number, endByte: number): string | undefined {
    const row = this.sliceStmt.get(startByte + 1, endByte - startByte, hash);
    return row ? Buffer.from(row.text).toString('utf8') : undefined;
  }

  /** Raw UTF-8 bodies of many files in one statement (for scanning); hashes not stored are absent. */
  bodies(hashes: readonly string[]): Map<string, Buffer> {
    const out = new Map<string, Buffer>();
    for (const row of this.bodiesStmt.all(JSON.stringify(hashes))) out.set(row.hash, row.body);
    return out;
  }
}
