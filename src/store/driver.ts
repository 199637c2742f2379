import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import type * as Binding from '@photostructure/sqlite';
import type { DatabaseSyncInstance, StatementSyncInstance } from '@photostructure/sqlite';

/*
 * The SQLite driver seam: the small, typed surface the store uses, and its one implementation
 * over `@photostructure/sqlite` (the `node:sqlite` API as a Node-API addon whose prebuilt binaries
 * ship inside its npm package: no compiler at install, one binary for Node 20 and 22). No other
 * module imports a SQLite binding (dependency-cruiser rule `sqlite-driver-in-store`): the store
 * uses `Connection`, and tests and benches that open a database directly use `openConnection`.
 *
 * Semantics callers can rely on (they differ from better-sqlite3, the driver before):
 * - rows are null-prototype objects (or arrays after `raw()`); integers are numbers, and one beyond
 *   2^53 throws ERR_OUT_OF_RANGE instead of losing precision (open with `bigInts` to read BigInts);
 * - BLOBs come back as Uint8Array: `asBuffer` views one as a Buffer without copying;
 * - parameters bind positionally (`?`) or by name from one object, with or without the prefix
 *   (`{ path }` or `{ '@path': ... }` for `@path`); a named parameter missing from the object binds
 *   NULL, keys the statement lacks are ignored (one record binds to several statements), and
 *   `undefined` does not bind (pass null);
 * - `close` does not finalize the connection's statements (the binding cannot): SQLite frees the
 *   connection when the garbage collector has freed them, so `close` first folds the WAL into the
 *   database file (a PASSIVE checkpoint: it never waits) to leave the file complete on its own;
 * - errors are `Error`s with `code` 'ERR_SQLITE_ERROR' and the SQLite result code in `errcode`:
 *   `sqliteFailure` classifies them.
 */

/*
 * The binding is loaded with `require`, not `import`: its ES module build imports the CommonJS
 * `node-gyp-build` through the ESM loader, which costs a CLI process 3 ms of CPU on Node 20 and
 * 16 ms on Node 22 (bench/README.md "Blended search, fourth pass"); the CommonJS build is the same
 * addon behind the same API.
 */
const { backup, DatabaseSync } = createRequire(import.meta.url)('@photostructure/sqlite') as typeof Binding;

/** What `Statement.run` reports. */
export interface RunResult {
  /** Rows inserted, updated or deleted by the statement. */
  readonly changes: number;
  readonly lastInsertRowid: number | bigint;
}

/** A prepared statement. `P` types the parameters, `R` one row. */
export interface Statement<P extends unknown[] = unknown[], R = unknown> {
  run(...params: P): RunResult;
  get(...params: P): R | undefined;
  all(...params: P): R[];
  iterate(...params: P): IterableIterator<R>;
  /** Switches this statement to rows as arrays of column values (no per-row object): cheap for many rows. */
  raw(): Statement<P, unknown[]>;
}

export interface ConnectionOptions {
  /** Opens read-only; the file must exist. */
  readonly readonly?: boolean;
  /** How long a statement waits on another connection's lock before SQLITE_BUSY (default 5000 ms). */
  readonly busyTimeoutMs?: number;
  /** Reads every integer as a BigInt: for tables whose integers may pass 2^53 (FTS5's shadow tables). */
  readonly bigInts?: boolean;
}

export interface UserFunctionOptions {
  /** Same arguments, same result (lets SQLite use it in indexes and factor calls out). */
  readonly deterministic?: boolean;
}

/** One open SQLite connection. */
export interface Connection {
  readonly isOpen: boolean;
  /** True while a transaction is open on this connection. */
  readonly inTransaction: boolean;
  exec(sql: string): void;
  prepare<P extends unknown[] = unknown[], R = unknown>(sql: string): Statement<P, R>;
  /** Runs `PRAGMA <source>` and returns the first column of its first row (undefined when none). */
  pragma(source: string): unknown;
  /**
   * Runs `fn` in a transaction: BEGIN (or BEGIN IMMEDIATE), COMMIT; ROLLBACK and rethrow when it
   * throws. Inside an open transaction it runs in a savepoint instead (`mode` is then moot).
   */
  transaction<T>(fn: () => T, mode?: 'deferred' | 'immediate'): T;
  /** Registers a scalar SQL function on this connection. */
  function(name: string, options: UserFunctionOptions, fn: (...args: unknown[]) => unknown): void;
  /** Copies the database, consistently, to a new file at `destination` while it stays usable. */
  backup(destination: string): Promise<void>;
  close(): void;
}

/** A BLOB as a Buffer over the same memory (no copy). */
export function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** SQLite primary result codes the store maps to catalogue errors (https://sqlite.org/rescode.html). */
const BUSY = 5;
const LOCKED = 6;
const CORRUPT = 11;
const NOTADB = 26;

/** What kind of SQLite failure `err` is, if it is one the store handles: a lock, or a damaged file. */
export function sqliteFailure(err: unknown): 'busy' | 'corrupt' | undefined {
  const code = (err as { errcode?: unknown } | null)?.errcode;
  if (typeof code !== 'number') return undefined;
  const primary = code & 0xff;
  if (primary === BUSY || primary === LOCKED) return 'busy';
  if (primary === CORRUPT || primary === NOTADB) return 'corrupt';
  return undefined;
}

class DriverStatement<P extends unknown[], R> implements Statement<P, R> {
  constructor(private readonly stmt: StatementSyncInstance) {}

  run(...params: P): RunResult {
    return this.stmt.run(...params);
  }

  get(...params: P): R | undefined {
    return this.stmt.get(...params) as R | undefined;
  }

  all(...params: P): R[] {
    return this.stmt.all(...params) as R[];
  }

  iterate(...params: P): IterableIterator<R> {
    return this.stmt.iterate(...params) as IterableIterator<R>;
  }

  raw(): Statement<P, unknown[]> {
    this.stmt.setReturnArrays(true);
    return this as unknown as Statement<P, unknown[]>;
  }
}

class DriverConnection implements Connection {
  constructor(
    private readonly db: DatabaseSyncInstance,
    private readonly readOnly: boolean,
  ) {}

  get isOpen(): boolean {
    return this.db.isOpen;
  }

  get inTransaction(): boolean {
    return this.db.isOpen && this.db.isTransaction;
  }

  exec(sql: string): void {
    this.db.exec(sql);
  }

  prepare<P extends unknown[] = unknown[], R = unknown>(sql: string): Statement<P, R> {
    return new DriverStatement<P, R>(this.db.prepare(sql));
  }

  pragma(source: string): unknown {
    const stmt = this.db.prepare(`PRAGMA ${source}`);
    stmt.setReturnArrays(true);
    return (stmt.get() as unknown[] | undefined)?.[0];
  }

  transaction<T>(fn: () => T, mode: 'deferred' | 'immediate' = 'deferred'): T {
    const nested = this.db.isTransaction;
    this.db.exec(nested ? 'SAVEPOINT scry_nested' : mode === 'immediate' ? 'BEGIN IMMEDIATE' : 'BEGIN');
    try {
      const out = fn();
      this.db.exec(nested ? 'RELEASE scry_nested' : 'COMMIT');
      return out;
    } catch (err) {
      if (this.db.isOpen && this.db.isTransaction) this.db.exec(nested ? 'ROLLBACK TO scry_nested; RELEASE scry_nested' : 'ROLLBACK');
      throw err;
    }
  }

  function(name: string, options: UserFunctionOptions, fn: (...args: unknown[]) => unknown): void {
    this.db.function(name, { deterministic: options.deterministic ?? false }, fn);
  }

  async backup(destination: string): Promise<void> {
    await backup(this.db, destination);
  }

  close(): void {
    // The binding does not finalize this connection's statements on close: SQLite keeps the
    // connection (file open, WAL not folded in) until the garbage collector frees the last of them.
    // Fold what it can of the WAL into the database now, without waiting on anyone, as SQLite's own
    // close does, so a closed database file is complete by itself.
    if (this.db.isOpen && !this.readOnly && !this.db.isTransaction) {
      try {
        this.db.exec('PRAGMA wal_checkpoint(PASSIVE)');
      } catch {
        // best effort: a busy or damaged database still closes
      }
    }
    this.db.close();
  }
}

/**
 * Opens (creating when missing, unless read-only) the SQLite database at `path`, or an in-memory
 * one for ':memory:'. Foreign keys are on; double-quoted string literals are identifiers only.
 */
export function openConnection(path: string, options: ConnectionOptions = {}): Connection {
  const readOnly = options.readonly ?? false;
  // SQLite would report a missing read-only file as "unable to open": say which file
  if (readOnly && path !== ':memory:' && !existsSync(path)) throw new Error(`cannot open ${path} read-only: no such file`);
  const db = new DatabaseSync(path, {
    readOnly,
    timeout: options.busyTimeoutMs ?? 5000,
    enableForeignKeyConstraints: true,
    allowBareNamedParameters: true,
    allowUnknownNamedParameters: true,
    readBigInts: options.bigInts ?? false,
  });
  return new DriverConnection(db, readOnly);
}
