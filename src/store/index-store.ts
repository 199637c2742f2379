import { AsyncLocalStorage } from 'node:async_hooks';
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

  /**
   * One meta value, read on a connection of its own without building the store (its repositories
   * prepare their statements): what the CLI reads of an index before it opens it (the stored root).
   * Throws what opening throws, and the read's own failure as is.
   */
  static peekMeta(path: string, key: string): string | undefined {
    const db = openDatabase(path, { create: false });
    try {
      return db.prepare<[string], { value: string }>('SELECT value FROM meta WHERE key = ?').get(key)?.value;
    } finally {
      db.close();
    }
  }

  /** Write transactions run on this connection (caches key on it with `data_version`, which only moves on other connections' commits). */
  private writes = 0;

  /** Runs `fn` in one IMMEDIATE transaction: all of it lands, or none. */
  transaction<T>(fn: () => T): T {
    try {
      return this.db.transaction(fn, 'immediate');
    } catch (err) {
      throw translateSqliteError(err, this.path);
    } finally {
      this.writes++;
    }
  }

  /** The calls running inside this connection's open snapshot (a nested call joins it). */
  private readonly inSnapshot = new AsyncLocalStorage<true>();
  /** Resolves when the snapshot before the newest queued one has ended: snapshots on one connection take turns. */
  private snapshotTail: Promise<void> = Promise.resolve();

  /**
   * Runs `fn`, awaits included, in one read transaction: every read sees the database as of the
   * first one, whatever other connections commit meanwhile (WAL keeps that version for us). A
   * call made inside `fn` joins the open snapshot; any other waits for it to end, since a
   * connection has one transaction at a time. Use a connection no writer in this process uses:
   * a write transaction started on it while the snapshot is open would nest inside it.
   */
  async snapshot<T>(fn: () => T | Promise<T>): Promise<T> {
    if (this.inSnapshot.getStore()) return fn();
    const before = this.snapshotTail;
    let release!: () => void;
    this.snapshotTail = new Promise<void>((r) => (release = r));
    this.snapshots++;
    try {
      await before;
      return await this.inSnapshot.run(true, () => this.inReadTransaction(fn));
    } finally {
      this.snapshots--;
      release();
    }
  }

  private snapshots = 0;

  /** True while a snapshot is open or waiting on this connection (it must not be closed then). */
  get busy(): boolean {
    return this.snapshots > 0;
  }

  /** `snapshot` for synchronous reads: joins an open snapshot, else one read transaction around `fn`. */
  snapshotSync<T>(fn: () => T): T {
    if (this.db.inTransaction) return this.read(fn);
    return this.inReadTransaction(fn) as T;
  }

  /** BEGIN (deferred: it stays a reader), `fn`, COMMIT; ROLLBACK when `fn` fails. */
  private inReadTransaction<T>(fn: () => T | Promise<T>): T | Promise<T> {
    const end = (sql: 'COMMIT' | 'ROLLBACK'): void => {
      if (this.db.isOpen && this.db.inTransaction) this.db.exec(sql);
    };
    const fail = (err: unknown): never => {
      end('ROLLBACK');
      throw translateSqliteError(err, this.path);
    };
    try {
      this.db.exec('BEGIN');
      const out = fn();
      if (!(out instanceof Promise)) {
        end('COMMIT');
        return out;
      }
      return out.then((value) => {
        end('COMMIT');
        return value;
      }, fail);
    } catch (err) {
      return fail(err);
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

  /** Bytes on disk: the database plus its WAL and its vector snapshot (`<db>.vec`). */
  sizeOnDisk(): number {
    let total = 0;
    for (const suffix of ['', '-wal', '.vec']) {
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
    return this.db.pragma('user_version') as number;
  }

  integrityCheck(): string {
    return this.db.pragma('integrity_check') as string;
  }

  close(): void {
    if (this.db.isOpen) this.db.close();
  }

  /**
   * Closes a database built to replace another (see db-swap.ts): the WAL is folded in and the file
   * switched to a rollback journal, so it is one self-contained file with no -wal or -shm that
   * could be mistaken for another database's. The next `open` switches it back to WAL.
   */
  seal(): void {
    this.db.pragma('wal_checkpoint(TRUNCATE)');
    const mode = this.db.pragma('journal_mode = DELETE');
    if (mode !== 'delete') throw new EngineError('DB_OPEN_FAILED', { db: this.path, reason: `cannot leave WAL mode (${String(mode)})` });
    this.db.close();
  }
}
