import type { ChunkKind } from '../core/chunk.js';
import type { Db } from './database.js';

/** The text fields a chunk is indexed under; see docs/DESIGN.md "Lexical fields". */
export interface FtsFields {
  readonly stem: string;
  readonly path: string;
  readonly symbol: string;
  readonly body: string;
  readonly parts: string;
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
}

/** Chunk rows and their FTS entries, always written and deleted together. */
export class ChunkRepo {
  private readonly insertStmt;
  private readonly insertFtsStmt;
  private readonly deleteFtsStmt;
  private readonly deleteStmt;
  private readonly countStmt;

  constructor(db: Db) {
    this.insertStmt = db.prepare(
      `INSERT INTO chunks(file_id, ordinal, kind, start_line, end_line, start_byte, end_byte, hash, symbol, container)
       VALUES (@fileId, @ordinal, @kind, @startLine, @endLine, @startByte, @endByte, @hash, @symbol, @container)`,
    );
    this.insertFtsStmt = db.prepare('INSERT INTO chunks_fts(rowid, stem, path, symbol, body, parts) VALUES (@rowid, @stem, @path, @symbol, @body, @parts)');
    this.deleteFtsStmt = db.prepare<[number]>('DELETE FROM chunks_fts WHERE rowid IN (SELECT id FROM chunks WHERE file_id = ?)');
    this.deleteStmt = db.prepare<[number]>('DELETE FROM chunks WHERE file_id = ?');
    this.countStmt = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM chunks');
  }

  insert(fileId: number, chunk: ChunkRecord, fields: FtsFields): number {
    const rowid = Number(this.insertStmt.run({ fileId, ...chunk }).lastInsertRowid);
    this.insertFtsStmt.run({ rowid, ...fields });
    return rowid;
  }

  /** Removes a file's chunks and their FTS entries. */
  deleteForFile(fileId: number): void {
    this.deleteFtsStmt.run(fileId);
    this.deleteStmt.run(fileId);
  }

  count(): number {
    return this.countStmt.get()!.n;
  }
}
