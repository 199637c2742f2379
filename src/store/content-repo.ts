import type { Db } from './database.js';
import { asBuffer } from './driver.js';

/** File text stored once per content hash (identical files share one row). */
export class ContentRepo {
  private readonly putStmt;
  private readonly deleteStmt;
  private readonly sliceStmt;
  private readonly textStmt;
  private readonly bodiesStmt;
  private readonly bodiesLikeStmt;
  private readonly bodiesGlobStmt;
  private readonly withBytesStmt;

  constructor(db: Db) {
    this.putStmt = db.prepare<[string, Buffer]>('INSERT INTO content(hash, body) VALUES (?, ?) ON CONFLICT(hash) DO UPDATE SET body = excluded.body WHERE body IS NOT excluded.body');
    this.deleteStmt = db.prepare<[string]>('DELETE FROM content WHERE hash = ?');
    this.textStmt = db.prepare<[string], { body: Uint8Array }>('SELECT body FROM content WHERE hash = ?');
    this.bodiesStmt = db.prepare<[string], { hash: string; body: Uint8Array }>('SELECT c.hash, c.body FROM json_each(?) AS j JOIN content AS c ON c.hash = j.value');
    const containing = 'SELECT c.hash, c.body FROM json_each(?) AS j JOIN content AS c ON c.hash = j.value WHERE CAST(c.body AS TEXT)';
    this.bodiesLikeStmt = db.prepare<[string, string], { hash: string; body: Uint8Array }>(`${containing} LIKE ? ESCAPE '\\'`);
    this.bodiesGlobStmt = db.prepare<[string, string], { hash: string; body: Uint8Array }>(`${containing} GLOB ?`);
    this.withBytesStmt = db.prepare<[string, Buffer], { hash: string }>('SELECT c.hash FROM json_each(?) AS j JOIN content AS c ON c.hash = j.value WHERE instr(c.body, ?) > 0');
    this.sliceStmt = db.prepare<[number, number, string], { text: Uint8Array }>('SELECT substr(body, ?, ?) AS text FROM content WHERE hash = ?');
  }

  /**
   * Stores already UTF-8-encoded text under the hash of the file's bytes on disk. A body stored by
   * an older feature version (say, before token literals were redacted) is replaced.
   */
  putBytes(hash: string, utf8: Buffer): void {
    this.putStmt.run(hash, utf8);
  }

  delete(hash: string): void {
    this.deleteStmt.run(hash);
  }

  /** The whole stored text of a file. */
  text(hash: string): string | undefined {
    const row = this.textStmt.get(hash);
    return row ? asBuffer(row.body).toString('utf8') : undefined;
  }

  /** UTF-8 text of bytes [startByte, endByte) of a stored file, read without loading the whole body. */
  slice(hash: string, startByte: number, endByte: number): string | undefined {
    const row = this.sliceStmt.get(startByte + 1, endByte - startByte, hash);
    return row ? asBuffer(row.text).toString('utf8') : undefined;
  }

  /** Raw UTF-8 bodies of many files in one statement (for scanning); hashes not stored are absent. */
  bodies(hashes: readonly string[]): Map<string, Buffer> {
    const out = new Map<string, Buffer>();
    for (const row of this.bodiesStmt.all(JSON.stringify(hashes))) out.set(row.hash, asBuffer(row.body));
    return out;
  }

  /** Hashes among `hashes` whose body contains the UTF-8 bytes of `text`, compared in SQLite (no body is copied out). */
  hashesContaining(hashes: readonly string[], text: string): Set<string> {
    return new Set(this.withBytesStmt.all(JSON.stringify(hashes), Buffer.from(text, 'utf8')).map((r) => r.hash));
  }

  /**
   * Bodies among `hashes` that contain `text` (exactly, or ignoring the case of ASCII letters only:
   * SQL GLOB or LIKE), without copying the others out of SQLite. Both read a body only up to its
   * first NUL byte: a body with a NUL may be missed, so pass only hashes known to be NUL-free.
   */
  bodiesContaining(hashes: readonly string[], text: string, ignoreAsciiCase: boolean): Map<string, Buffer> {
    const out = new Map<string, Buffer>();
    const rows = ignoreAsciiCase
      ? this.bodiesLikeStmt.all(JSON.stringify(hashes), `%${text.replace(/[\\%_]/g, '\\$&')}%`)
      : this.bodiesGlobStmt.all(JSON.stringify(hashes), `*${text.replace(/[*?[]/g, '[$&]')}*`);
    for (const row of rows) out.set(row.hash, asBuffer(row.body));
    return out;
  }
}
