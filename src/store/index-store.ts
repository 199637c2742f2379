import { statSync } from 'node:fs';
import { EngineError } from '../core/errors.js';
import { ChunkRepo } from './chunk-repo.js';
import { ContentRepo } from './content-repo.js';
import { EmbeddingRepo } from './embedding-repo.js';
import { openDatabase, translateSqliteError, type Db } from './database.js';
import { FileRepo } from './file-repo.js';
import { MetaRepo } from './meta-repo.js';
import { SearchRepo } from './search-repo.js';
import { SkipRepo } from './skip-repo.js';
import { StructureRepo } from './structure-repo.js';

export interface StoreOptions {
  readonly create: boolean;
  readonly busyTimeoutMs?: number;
}

/** One open index database and its repositories. Not shared between processes. */
export class IndexStore {
  readonly meta: MetaRepo;
  readonly files: FileRepo;
  readonly content: ContentRepo;
  readonly chunks: ChunkRepo;
  readonly search: SearchRepo;
  readonly skips: SkipRepo;
  readonly structure: StructureRepo;
  readonly embeddings: EmbeddingRepo;

  private constructor(
    readonly path: string,
    private readonly db: Db,
  ) {
    this.meta = new MetaRepo(db);
    this.files = new FileRepo(db);
    this.content = new ContentRepo(db);
    this.chunks = new ChunkRepo(db);
    this.search = new SearchRepo(db, () => this.writes);
    this.skips = new SkipRepo(db);
    this.structure = new StructureRepo(db);
    this.embeddings = new EmbeddingRepo(db);
  }

  static open(path: string, options: StoreOptions): IndexStore {
    const db = openDatabase(path, options);
    try {
      return new IndexStore(path, db);
    } catch (err) {
      db.close();
      throw translateSqliteError(err, path);
    }
  }

  /** Write transactions run on this connection (caches key on it with `data_version`, which only moves on other connections' commits). */
  private writes = 0;

  /** Runs `fn` in one IMMEDIATE transaction: all of it lands, or none. */
  transaction<T>(fn: () => T): T {
    try {
      return this.db.transaction(fn).immediate();
    } catch (err) {
      throw translateSqliteError(err, this.path);
    } finally {
      this.writes++;
    }
  }

  /** Runs a read, translating SQLite failures to catalogue errors. */
  read<T>(fn: () => T): T {
    try {
      return fn();
    } catch (err) {
      throw translateSqliteError(err, this.path);
    }
  }

  /** Bytes on disk: the database plus its WAL. */
  sizeOnDisk(): number {
    let total = 0;
    for (const suffix of ['', '-wal']) {
      try {
        total += statSync(this.path + suffix).size;
      } catch {
        // no wal yet
      }
    }
    return total;
  }

  /** Folds the WAL back into the database file (after a large pass). */
  checkpoint(): void {
    this.db.pragma('wal_checkpoint(TRUNCATE)');
  }

  /** Merges FTS5 segments; worth it after a full build. */
  optimize(): void {
    this.db.exec("INSERT INTO chunks_fts(chunks_fts) VALUES ('optimize')");
  }

  /** `PRAGMA user_version`: the last migration applied. */
  schemaVersion(): number {
    return this.db.pragma('user_version', { simple: true }) as number;
  }

  integrityCheck(): string {
    return this.db.pragma('integrity_check', { simple: true }) as string;
  }

  close(): void {
    if (this.db.open) this.db.close();
  }

  /**
   * Closes a database built to replace another (see db-swap.ts): the WAL is folded in and the file
   * switched to a rollback journal, so it is one self-contained file with no -wal or -shm that
   * could be mistaken for another database's. The next `open` switches it back to WAL.
   */
  seal(): void {
    this.db.pragma('wal_checkpoint(TRUNCATE)');
    const mode = this.db.pragma('journal_mode = DELETE', { simple: true });
    if (mode !== 'delete') throw new EngineError('DB_OPEN_FAILED', { db: this.path, reason: `cannot leave WAL mode (${String(mode)})` });
    this.db.close();
  }
}
