import type { ChunkKind } from '../core/chunk.js';
import type { Db } from './database.js';
import { BUMP_VECTORS_STAMP_SQL } from './meta-repo.js';

/** The text fields a chunk is indexed under; see docs/DESIGN.md "Lexical fields". */
export interface FtsFields {
  readonly stem: string;
  readonly path: string;
  readonly symbol: string;
  readonly signature: string;
  readonly body: string;
  readonly parts: string;
  /** Comments and docstrings of the chunk (schema 10), taken out of `body`. */
  readonly doc: string;
}

export interface ChunkRecord {
  readonly ordinal: number;
  readonly kind: ChunkKind;
  readonly startLine: number;
  readonly endLine: number;
  readonly startByte: number;
  readonly endByte: number;
  readonly hash: string;
  readonly symbol: string | null;
  readonly container: string | null;
  readonly signature: string | null;
  /**
   * The names the chunk defines when they are other than its symbol (encoded by the indexer);
   * '' when they are just the symbol, or none. Null only in rows written before schema 5 (unknown).
   */
  readonly defines: string | null;
  /** Content timestamp, ms since the epoch (schema 8); null when unknown. */
  readonly tsMs: number | null;
  /** Where its comments and docstrings are (`storedDocSpans` in indexer/fts-fields.ts; schema 10); '' when none. */
  readonly docSpans: string;
}

/**
 * Chunk rows and their FTS entries, always written and deleted together. The FTS table is
 * contentless: its fields are recomputed from the row (`symbol`, `container`, `signature`,
 * `defines`), the file's text and its path when a file's rows are copied.
 */
export class ChunkRepo {
  private readonly insertStmt;
  private readonly insertFtsStmt;
  private readonly deleteFtsStmt;
  private readonly deleteStmt;
  private readonly bumpStmt;
  private readonly countStmt;
  private readonly ofFileStmt;

  constructor(db: Db) {
    // positional parameters: binding by name costs a lookup per column per row in bulk inserts
    this.insertStmt = db.prepare<[number, number, string, number, number, number, number, string, string | null, string | null, string | null, string | null, number | null, string]>(
      `INSERT INTO chunks(file_id, ordinal, kind, start_line, end_line, start_byte, end_byte, hash, symbol, container, signature, defines, ts_ms, doc_spans)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.insertFtsStmt = db.prepare<[number, string, string, string, string, string, string, string]>(
      'INSERT INTO chunks_fts(rowid, stem, path, symbol, signature, body, parts, doc) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    );
    this.deleteFtsStmt = db.prepare<[number]>('DELETE FROM chunks_fts WHERE rowid IN (SELECT id FROM chunks WHERE file_id = ?)');
    this.deleteStmt = db.prepare<[number]>('DELETE FROM chunks WHERE file_id = ?');
    // a chunk gone: a vector snapshot holding it is stale (meta-repo.ts)
    this.bumpStmt = db.prepare<[]>(BUMP_VECTORS_STAMP_SQL);
    this.countStmt = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM chunks');
    this.ofFileStmt = db.prepare<[number], ChunkRecord>(
      `SELECT ordinal, kind, start_line AS startLine, end_line AS endLine, start_byte AS startByte, end_byte AS endByte, hash, symbol, container,
         signature, defines, ts_ms AS tsMs, doc_spans AS docSpans FROM chunks WHERE file_id = ? ORDER BY ordinal`,
    );
  }

  insert(fileId: number, chunk: ChunkRecord, fields: FtsFields): number {
    const c = chunk;
    const rowid = Number(this.insertStmt.run(fileId, c.ordinal, c.kind, c.startLine, c.endLine, c.startByte, c.endByte, c.hash, c.symbol, c.container, c.signature, c.defines, c.tsMs, c.docSpans).lastInsertRowid);
    this.insertFtsStmt.run(rowid, fields.stem, fields.path, fields.symbol, fields.signature, fields.body, fields.parts, fields.doc);
    return rowid;
  }

  /** A file's chunks in order. */
  ofFile(fileId: number): ChunkRecord[] {
    return this.ofFileStmt.all(fileId);
  }

  /** Removes a file's chunks and their FTS entries. */
  deleteForFile(fileId: number): void {
    this.deleteFtsStmt.run(fileId);
    this.deleteStmt.run(fileId);
    this.bumpStmt.run();
  }

  count(): number {
    return this.countStmt.get()!.n;
  }
}
