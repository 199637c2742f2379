import type { Db } from './database.js';
import { asBuffer } from './driver.js';
import { BUMP_VECTORS_STAMP_SQL } from './meta-repo.js';

/** A chunk text that has no vector for a model yet: what the embedding pass reads and embeds. */
export interface PendingChunk {
  readonly chunkId: number;
  readonly fileId: number;
  readonly ordinal: number;
  readonly chunkHash: string;
  readonly path: string;
  readonly fileHash: string;
  readonly startByte: number;
  readonly endByte: number;
  readonly symbol: string | null;
  readonly container: string | null;
}

/** Where a walk over the queued files' chunks resumes: after this chunk of this file. */
export interface PendingCursor {
  readonly fileId: number;
  readonly ordinal: number;
}

/** Before the first chunk of the first queued file. */
export const PENDING_START: PendingCursor = { fileId: 0, ordinal: -1 };

/**
 * Chunk embeddings keyed by (model fingerprint, chunk content hash), see migration 006, and the
 * queue of files whose chunks the embedding pass has still to look at, see migration 009.
 */
export class EmbeddingRepo {
  private readonly pendingStmt;
  private readonly pendingCountStmt;
  private readonly missingChunksStmt;
  private readonly queueStmt;
  private readonly queueAllStmt;
  private readonly clearQueueStmt;
  private readonly dequeueBeforeStmt;
  private readonly queuedAnyStmt;
  private readonly putStmt;
  private readonly putNewStmt;
  private readonly getStmt;
  private readonly orphansStmt;
  private readonly otherModelsStmt;
  private readonly chunkVectorsStmt;
  private readonly chunkIdsStmt;
  private readonly coveredStmt;
  private readonly bumpStmt;

  constructor(db: Db) {
    // CROSS JOIN keeps the queue the outer loop (a few rows after an edit), each file's chunks read
    // through chunks_file in ordinal order: no scan of every chunk, no sort
    const missing = `FROM embed_queue q CROSS JOIN chunks c ON c.file_id = q.file_id
      WHERE NOT EXISTS (SELECT 1 FROM embeddings e WHERE e.model = ? AND e.chunk_hash = c.hash)`;
    this.pendingStmt = db.prepare<[number, number, number, string, number], PendingChunk>(
      `SELECT c.id AS chunkId, c.file_id AS fileId, c.ordinal AS ordinal, c.hash AS chunkHash, f.path AS path, f.hash AS fileHash,
         c.start_byte AS startByte, c.end_byte AS endByte, c.symbol AS symbol, c.container AS container
       FROM embed_queue q CROSS JOIN chunks c ON c.file_id = q.file_id JOIN files f ON f.id = q.file_id
       WHERE q.file_id >= ? AND (c.file_id, c.ordinal) > (?, ?) AND NOT EXISTS (SELECT 1 FROM embeddings e WHERE e.model = ? AND e.chunk_hash = c.hash)
       ORDER BY q.file_id, c.ordinal LIMIT ?`,
    );
    this.pendingCountStmt = db.prepare<[string], { n: number }>(`SELECT count(DISTINCT c.hash) AS n ${missing}`);
    this.missingChunksStmt = db.prepare<[string], { n: number }>(`SELECT count(*) AS n ${missing}`);
    this.queueStmt = db.prepare<[number]>('INSERT OR IGNORE INTO embed_queue(file_id) VALUES (?)');
    this.queueAllStmt = db.prepare<[]>('INSERT OR IGNORE INTO embed_queue(file_id) SELECT id FROM files');
    this.clearQueueStmt = db.prepare<[]>('DELETE FROM embed_queue');
    this.dequeueBeforeStmt = db.prepare<[number]>('DELETE FROM embed_queue WHERE file_id < ?');
    this.queuedAnyStmt = db.prepare<[], { one: number }>('SELECT 1 AS one FROM embed_queue LIMIT 1');
    this.putStmt = db.prepare<[string, string, Buffer]>('INSERT OR REPLACE INTO embeddings(model, chunk_hash, vector) VALUES (?, ?, ?)');
    this.putNewStmt = db.prepare<[string, string, Buffer]>('INSERT OR IGNORE INTO embeddings(model, chunk_hash, vector) VALUES (?, ?, ?)');
    this.getStmt = db.prepare<[string, string], { vector: Uint8Array }>('SELECT vector FROM embeddings WHERE model = ? AND chunk_hash = ?');
    this.orphansStmt = db.prepare<[]>('DELETE FROM embeddings WHERE chunk_hash NOT IN (SELECT hash FROM chunks)');
    this.otherModelsStmt = db.prepare<[string]>('DELETE FROM embeddings WHERE model <> ?');
    this.chunkVectorsStmt = db.prepare<[string, number], { id: number; hash: string; vector: Uint8Array }>(
      'SELECT c.id AS id, c.hash AS hash, e.vector AS vector FROM chunks c JOIN embeddings e ON e.model = ? AND e.chunk_hash = c.hash WHERE c.id > ? ORDER BY c.id',
    );
    this.chunkIdsStmt = db.prepare<[], { id: number; hash: string }>('SELECT id, hash FROM chunks');
    this.bumpStmt = db.prepare<[]>(BUMP_VECTORS_STAMP_SQL);
    this.coveredStmt = db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM chunks c WHERE EXISTS (SELECT 1 FROM embeddings e WHERE e.model = ? AND e.chunk_hash = c.hash)');
  }

  /**
   * Up to `limit` chunks of queued files after `after` whose text has no vector for `model`, by
   * file and ordinal (a cursor: a pass walks the queue once). Chunks sharing a text all appear; the
   * caller embeds it once.
   */
  pending(model: string, after: PendingCursor, limit: number): PendingChunk[] {
    return this.pendingStmt.all(after.fileId, after.fileId, after.ordinal, model, limit);
  }

  /** Distinct texts of queued files' chunks without a vector for `model`. */
  pendingCount(model: string): number {
    return this.pendingCountStmt.get(model)!.n;
  }

  /** Chunks of queued files without a vector for `model` (every other chunk has one: migration 009). */
  missingChunks(model: string): number {
    return this.missingChunksStmt.get(model)!.n;
  }

  /** Queues a file whose chunks were (re)written, and replaces the vectors stamp. Call in the transaction that writes them. */
  queue(fileId: number): void {
    this.queueStmt.run(fileId);
    this.bumpStmt.run();
  }

  /** Queues every file (a model the queue was not kept for). */
  queueAll(): void {
    this.queueAllStmt.run();
  }

  clearQueue(): void {
    this.clearQueueStmt.run();
  }

  /** Unqueues the files before `fileId`: a pass's cursor has passed them, every chunk with its vector. */
  dequeueBefore(fileId: number): void {
    this.dequeueBeforeStmt.run(fileId);
  }

  /** Whether any file is queued. */
  queued(): boolean {
    return this.queuedAnyStmt.get() !== undefined;
  }

  /** Stores a vector and replaces the vectors stamp (a vector snapshot without it is stale). */
  put(model: string, chunkHash: string, vector: Buffer): void {
    this.putStmt.run(model, chunkHash, vector);
    this.bumpStmt.run();
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
