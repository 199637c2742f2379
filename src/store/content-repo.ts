import type { Db } from './database.js';
import { asBuffer } from './driver.js';
import { holdsBytes, packBody, unpackBody } from './content-codec.js';
import { gramFilter, mayHold } from './content-grams.js';

type BodyRow = { hash: string; body: Uint8Array; codec: number };

/** Compressed bodies whose text `slice` keeps at hand: a page of results often holds several chunks of one file. */
const INFLATED_KEPT = 8;
/** A body that matched in SQLite (`body`), or a compressed one to filter (`body` null). */
type FilteredRow = { hash: string; body: Uint8Array | null; codec: number; grams: Uint8Array | null };

/**
 * File text stored once per content hash (identical files share one row), compressed when that
 * pays (content-codec.ts). Uncompressed bodies are searched inside SQLite; compressed ones are
 * inflated and searched here.
 */
export class ContentRepo {
  private readonly putStmt;
  private readonly deleteStmt;
  private readonly sliceStmt;
  private readonly textStmt;
  private readonly bodiesStmt;
  private readonly bodiesLikeStmt;
  private readonly bodiesGlobStmt;
  /** The texts of the last bodies `slice` inflated, by hash, with the compressed bytes they came from. */
  private readonly inflated = new Map<string, { packed: Buffer; text: Buffer }>();

  constructor(db: Db) {
    this.putStmt = db.prepare<[string, Buffer, number, Buffer | null]>(
      'INSERT INTO content(hash, body, codec, grams) VALUES (?, ?, ?, ?) ON CONFLICT(hash) DO UPDATE SET body = excluded.body, codec = excluded.codec, grams = excluded.grams WHERE body IS NOT excluded.body',
    );
    this.deleteStmt = db.prepare<[string]>('DELETE FROM content WHERE hash = ?');
    this.textStmt = db.prepare<[string], { body: Uint8Array; codec: number }>('SELECT body, codec FROM content WHERE hash = ?');
    const rows = 'SELECT c.hash, c.body, c.codec FROM json_each(?) AS j JOIN content AS c ON c.hash = j.value';
    this.bodiesStmt = db.prepare<[string], BodyRow>(rows);
    // a compressed body comes back as its trigram filter only: inflated and searched when the filter lets it through
    const containing = `SELECT c.hash, CASE WHEN c.codec = 0 THEN c.body END AS body, c.codec, c.grams FROM json_each(?) AS j JOIN content AS c ON c.hash = j.value
      WHERE c.codec <> 0 OR CAST(c.body AS TEXT)`;
    this.bodiesLikeStmt = db.prepare<[string, string], FilteredRow>(`${containing} LIKE ? ESCAPE '\\'`);
    this.bodiesGlobStmt = db.prepare<[string, string], FilteredRow>(`${containing} GLOB ?`);
    this.sliceStmt = db.prepare<[number, number, string], { text: Uint8Array | null; codec: number }>(
      'SELECT CASE WHEN codec = 0 THEN substr(body, ?, ?) ELSE body END AS text, codec FROM content WHERE hash = ?',
    );
  }

  /**
   * Stores already UTF-8-encoded text under the hash of the file's bytes on disk. A body stored by
   * an older feature version (say, before token literals were redacted) is replaced.
   */
  putBytes(hash: string, utf8: Buffer): void {
    const { body, codec } = packBody(utf8);
    this.putStmt.run(hash, body, codec, codec === 0 ? null : gramFilter(utf8));
  }

  delete(hash: string): void {
    this.deleteStmt.run(hash);
  }

  /** The whole stored text of a file. */
  text(hash: string): string | undefined {
    const row = this.textStmt.get(hash);
    return row ? unpackBody(asBuffer(row.body), row.codec).toString('utf8') : undefined;
  }

  /** UTF-8 text of bytes [startByte, endByte) of a stored file (an uncompressed body is sliced in SQLite). */
  slice(hash: string, startByte: number, endByte: number): string | undefined {
    const row = this.sliceStmt.get(startByte + 1, endByte - startByte, hash);
    if (!row) return undefined;
    // SQLite's substr of an empty body is NULL
    const bytes = asBuffer(row.text ?? new Uint8Array());
    return (row.codec === 0 ? bytes : this.inflate(hash, bytes, row.codec).subarray(startByte, endByte)).toString('utf8');
  }

  /**
   * A compressed body's text, inflated once for the next few slices of it. A kept text serves only
   * the same compressed bytes (a body can be replaced under its hash), so it is never stale.
   */
  private inflate(hash: string, packed: Buffer, codec: number): Buffer {
    const kept = this.inflated.get(hash);
    if (kept?.packed.equals(packed)) {
      // most recently used last: the first entry is the one to drop
      this.inflated.delete(hash);
      this.inflated.set(hash, kept);
      return kept.text;
    }
    const text = unpackBody(packed, codec);
    this.inflated.delete(hash);
    this.inflated.set(hash, { packed, text });
    if (this.inflated.size > INFLATED_KEPT) this.inflated.delete(this.inflated.keys().next().value!);
    return text;
  }

  /** Raw UTF-8 bodies of many files in one statement (for scanning); hashes not stored are absent. */
  bodies(hashes: readonly string[]): Map<string, Buffer> {
    const out = new Map<string, Buffer>();
    for (const row of this.bodiesStmt.all(JSON.stringify(hashes))) out.set(row.hash, unpackBody(asBuffer(row.body), row.codec));
    return out;
  }

  /**
   * Bodies among `hashes` that contain `text` (exactly, or ignoring the case of ASCII letters only:
   * SQL GLOB or LIKE), without copying the other uncompressed ones out of SQLite; a compressed body
   * is inflated only when its trigram filter (content-grams.ts) says it may hold `text`. GLOB and
   * LIKE read a body only up to its first NUL byte: a body with a NUL may be missed, so pass only
   * hashes known to be NUL-free.
   */
  bodiesContaining(hashes: readonly string[], text: string, ignoreAsciiCase: boolean): Map<string, Buffer> {
    const out = new Map<string, Buffer>();
    const rows = ignoreAsciiCase
      ? this.bodiesLikeStmt.all(JSON.stringify(hashes), `%${text.replace(/[\\%_]/g, '\\$&')}%`)
      : this.bodiesGlobStmt.all(JSON.stringify(hashes), `*${text.replace(/[*?[]/g, '[$&]')}*`);
    const needle = Buffer.from(text, 'utf8');
    const packed: string[] = [];
    for (const row of rows) {
      if (row.body !== null) out.set(row.hash, asBuffer(row.body));
      else if (!row.grams || mayHold(row.grams, needle)) packed.push(row.hash);
    }
    for (const [hash, body] of this.bodies(packed)) if (holdsBytes(body, needle, ignoreAsciiCase)) out.set(hash, body);
    return out;
  }
}
