import { openDatabase, translateSqliteError, type Db } from './database.js';
import { asBuffer } from './driver.js';
import { unpackBody } from './content-codec.js';

/** A file row as a push reads it. */
export interface PushFileRow {
  readonly id: number;
  readonly path: string;
  readonly language: string;
  readonly contentType: string;
  readonly size: number;
  readonly hash: string;
  readonly lineCount: number;
}

/** A chunk row as a push reads it, in chunk id order. */
export interface PushChunkRow {
  readonly id: number;
  readonly fileId: number;
  readonly ordinal: number;
  readonly kind: string;
  readonly startLine: number;
  readonly endLine: number;
  readonly startByte: number;
  readonly endByte: number;
  readonly hash: string;
  readonly symbol: string | null;
  readonly container: string | null;
  readonly signature: string | null;
  readonly tsMs: number | null;
}

/** One token instance of the FTS index (`fts5vocab` 'instance'): what the tokenizer stored, where. */
export interface PushInstance {
  readonly term: string;
  readonly doc: number;
  readonly col: string;
  readonly offset: number;
}

/**
 * Read-only access to a local index for `scry push` (issue 23): its files, chunks, bodies, vectors
 * and, through a temporary `fts5vocab` 'instance' table, the FTS5 postings exactly as scry's
 * tokenizer stored them, so the team server needs no tokenizer of its own.
 */
export class PushRepo {
  private closed = false;

  private constructor(
    private readonly db: Db,
    private readonly path: string,
  ) {}

  static open(path: string): PushRepo {
    return new PushRepo(openDatabase(path, { create: false }), path);
  }

  private read<T>(fn: () => T): T {
    try {
      return fn();
    } catch (err) {
      throw translateSqliteError(err, this.path);
    }
  }

  files(): PushFileRow[] {
    return this.read(() =>
      this.db
        .prepare<[], PushFileRow>('SELECT id, path, language, content_type AS contentType, size, hash, line_count AS lineCount FROM files ORDER BY id')
        .all(),
    );
  }

  chunks(): PushChunkRow[] {
    return this.read(() =>
      this.db
        .prepare<[], PushChunkRow>(
          `SELECT id, file_id AS fileId, ordinal, kind, start_line AS startLine, end_line AS endLine, start_byte AS startByte, end_byte AS endByte,
            hash, symbol, container, signature, ts_ms AS tsMs FROM chunks ORDER BY id`,
        )
        .all(),
    );
  }

  /** Every token instance of the FTS index, by term (rows of deleted chunks included: filter by chunk id). */
  *instances(): Generator<PushInstance> {
    this.read(() => this.db.exec("CREATE VIRTUAL TABLE IF NOT EXISTS temp.scry_push_vocab USING fts5vocab(main, chunks_fts, 'instance')"));
    yield* this.db.prepare<[], PushInstance>('SELECT term, doc, col, offset FROM temp.scry_push_vocab').iterate();
  }

  /** Stored bodies (UTF-8) by file hash. */
  bodies(hashes: readonly string[]): Map<string, Buffer> {
    const out = new Map<string, Buffer>();
    const stmt = this.db.prepare<[string], { hash: string; body: Buffer; codec: number }>('SELECT c.hash, c.body, c.codec FROM json_each(?) AS j JOIN content AS c ON c.hash = j.value');
    this.read(() => {
      for (const row of stmt.all(JSON.stringify(hashes))) out.set(row.hash, Buffer.from(unpackBody(asBuffer(row.body), row.codec)));
    });
    return out;
  }

  /** The model with the most chunk vectors, or undefined. */
  vectorModel(): string | undefined {
    return this.read(() => this.db.prepare<[], { model: string }>('SELECT model FROM embeddings GROUP BY model ORDER BY count(*) DESC LIMIT 1').get()?.model);
  }

  /** Vector blobs of `model` for the chunk texts the index has. */
  vectors(model: string): Array<[string, Buffer]> {
    return this.read(() =>
      this.db
        .prepare<[string], { hash: string; vector: Buffer }>('SELECT e.chunk_hash AS hash, e.vector AS vector FROM embeddings e WHERE e.model = ? AND e.chunk_hash IN (SELECT hash FROM chunks)')
        .all(model)
        .map((r) => [r.hash, Buffer.from(r.vector)] as [string, Buffer]),
    );
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.db.close();
  }
}
