import { existsSync } from 'node:fs';
import { IndexStore } from '../store/index-store.js';
import { fileId } from './db-file.js';

/**
 * The engine's read-only use of the index: its own SQLite connection, never the one this
 * process's indexer writes through. A search holds a read transaction across its awaits (text
 * search yields, grammars load); on the writer's connection a pass committing meanwhile would
 * nest its writes inside that read transaction, so readers get a connection of their own
 * (docs/DESIGN.md, "Read snapshots").
 */
export class ReadConnection {
  private store_: IndexStore | undefined;
  private file: string | undefined;

  constructor(
    private readonly dbPath: string,
    private readonly checkOpen: () => void,
  ) {}

  /**
   * The open store, opened on first use (INDEX_NOT_FOUND without an index); reopened when another
   * process or a rebuild replaced the file, unless a snapshot is still open on the old one.
   */
  store(): IndexStore {
    this.checkOpen();
    if (this.store_ && !this.store_.busy && existsSync(this.dbPath) && fileId(this.dbPath) !== this.file) this.close();
    if (!this.store_) {
      this.store_ = IndexStore.open(this.dbPath, { create: false });
      this.file = fileId(this.dbPath);
    }
    return this.store_;
  }

  /** `fn`, awaits included, in one snapshot of the index (`IndexStore.snapshot`). */
  snapshot<T>(fn: (store: IndexStore) => T | Promise<T>): Promise<T> {
    const store = this.store();
    return store.snapshot(() => fn(store));
  }

  close(): void {
    this.store_?.close();
    this.store_ = undefined;
  }
}
