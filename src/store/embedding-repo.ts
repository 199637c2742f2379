import type { Db } from './database.js';
import { asBuffer } from './driver.js';

/** A chunk text that has no vector for a model yet: what the embedding pass reads and embeds. */
export interface PendingChunk {
  readonly chunkId: number;
  readonly chunkHash: string;
  readonly path: string;
  readonly fileHash: string;
  readonly startByte: number;
  readonly endByte: number;
  readonly symbol: string | null;
  readonly container: string | null;
}

/** Chunk embeddings keyed by (model fingerprint, chunk content hash); see migration 006. */
export class EmbeddingRepo {
  private readonly pendingStmt;
  private readonly pendingCountStmt;
  private readonly putStmt;
  private readonly putNewStmt;
  private readonly getStmt;
  private readonly orphansStmt;
  private readonly otherModelsStmt;
  private readonly chunkVectorsStmt;
  private readonly chunkIdsStmt;
  private readonly coveredStmt;

  constructor(db: Db) {
    const missing = `FROM chunks c JOIN files f ON f.id = c.file_id
      WHERE NOT EXISTS (SELECT 1 FROM embeddings e WHERE e.model = ? AND e.chunk_hash = c.hash)`;
    this.pendingStmt = db.prepare<[string, number, number], PendingChunk>(
      `SELECT c.id AS chunkId, c.hash AS chunkHash, f.path AS path, f.hash AS fileHash, c.start_byte AS startByte, c.end_byte AS endByte,
        c.symbol AS symbol, c.container AS container ${missing} AND c.id > ? ORDER BY c.id LIMIT ?`,
    );
    this.pendingCountStmt = db.prepare<[string], { n: number }>(`SELECT count(DISTINCT c.hash) AS n ${missing}`);
    this.putStmt = db.prepare<[string, string, Buffer]>('INSERT OR REPLACE INTO embeddings(model, chunk_hash, vector) VALUES (?, ?, ?)');
    this.putNewStmt = db.prepare<[string, string, Buffer]>('INSERT OR IGNORE INTO embeddings(model, chunk_hash, vector) VALUES (?, ?, ?)');
    this.getStmt = db.prepare<[string, string], { vector: Uint8Array }>('SELECT vector FROM embeddings WHERE model = ? AND chunk_hash = ?');
    this.orphansStmt = db.prepare<[]>('DELETE FROM embeddings WHERE chunk_hash NOT IN (SELECT hash FROM chunks)');
    this.otherModelsStmt = db.prepare<[string]>('DELETE FROM embeddings WHERE model <> ?');
    this.chunkVectorsStmt = db.prepare<[string, number], { id: number; hash: string; vector: Uint8Array }>(
      'SELECT c.id AS id, c.hash AS hash, e.vector AS vector FROM chunks c JOIN embeddings e ON e.model = ? AND e.chunk_hash = c.hash WHERE c.id > ? ORDER BY c.id',
    );
    this.chunkIdsStmt = db.prepare<[], { id: number; hash: string }>('SELECT id, hash FROM chunks');
    this.coveredStmt = db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM chunks c WHERE EXISTS (SELECT 1 FROM embeddings e WHERE e.model = ? AND e.chunk_hash = c.hash)');
  }

  /**
   * Up to `limit` chunks with an id above `afterId` whose text has no vector for `model`, by id (a
   * cursor: a pass walks the chunks once). Chunks sharing a text both appear; the caller embeds it once.
   */
  pending(model: string, afterId: number, limit: number): PendingChunk[] {
    return this.pendingStmt.all(model, afterId, limit);
  }

  /** Distinct chunk texts without a vector for `model`. */
  pendingCount(model: string): number {
    return this.pendingCountStmt.get(model)!.n;
  }

  put(model: string, chunkHash: string, vector: Buffer): void {
    this.putStmt.run(model, chunkHash, vector);
  }

  /** Stores a vector unless the text already has one for `model` (the first chunk with a text gives its vector, as in the embedding pass). */
  putNew(model: string, chunkHash: string, vector: Buffer): void {
    this.putNewStmt.run(model, chunkHash, vector);
  }

  get(model: string, chunkHash: string): Buffer | undefined {
    const row = this.getStmt.get(model, chunkHash);
    return row ? asBuffer(row.vector) : undefined;
  }

  /** Chunks of the index that have a vector for `model`. */
  coveredChunks(model: string): number {
    return this.coveredStmt.get(model)!.n;
  }

  /** Removes vectors whose text no chunk has any more. */
  removeOrphans(): number {
    return this.orphansStmt.run().changes;
  }

  /** Removes every other model's vectors. */
  keepOnly(model: string): number {
    return this.otherModelsStmt.run(model).changes;
  }

  /** (chunk id, hash, vector) of every chunk with a vector for `model` and an id above `afterId`, by id. */
  *chunkVectors(model: string, afterId = 0): IterableIterator<{ id: number; hash: string; vector: Buffer }> {
    for (const row of this.chunkVectorsStmt.iterate(model, afterId)) yield { id: row.id, hash: row.hash, vector: asBuffer(row.vector) };
  }

  /** Every chunk's id and content hash. */
  chunkIds(): IterableIterator<{ id: number; hash: string }> {
    return this.chunkIdsStmt.iterate();
  }
}
