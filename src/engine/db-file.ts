import { statSync } from 'node:fs';
import { EngineError } from '../core/errors.js';
import { IndexStore } from '../store/index-store.js';

/** Device and inode of a file: a different value means the file was replaced. */
export function fileId(path: string): string | undefined {
  try {
    const st = statSync(path);
    return `${st.dev}:${st.ino}`;
  } catch {
    return undefined;
  }
}

/** The project root recorded in an index database by its last completed pass. */
export function rootFromDb(dbPath: string): string {
  const store = IndexStore.open(dbPath, { create: false });
  try {
    const root = store.meta.get('root');
    if (!root) throw new EngineError('INDEX_NOT_FOUND', { db: dbPath }, { hint: 'the database has no completed index pass; run `scry index DIR --db PATH`' });
    return root;
  } finally {
    store.close();
  }
}
