import { realpathSync, statSync } from 'node:fs';
import { EngineError, isEngineError } from '../core/errors.js';
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

/**
 * The project root recorded in an index database by its last completed pass; undefined when
 * there is no database, no completed pass yet, or a database that cannot be read (corrupt, too
 * new: `index --rebuild` must still be able to recover it).
 */
export function storedRoot(dbPath: string): string | undefined {
  try {
    return IndexStore.peekMeta(dbPath, 'root') || undefined;
  } catch (err) {
    if (isEngineError(err) && err.code !== 'DB_LOCKED') return undefined;
    throw err;
  }
}

/** The project root recorded in an index database by its last completed pass. */
export function rootFromDb(dbPath: string): string {
  const root = storedRoot(dbPath);
  if (root === undefined) {
    // reopened for the precise error: missing, corrupt or too new, else no completed pass
    IndexStore.open(dbPath, { create: false }).close();
    throw new EngineError('INDEX_NOT_FOUND', { db: dbPath }, { hint: 'the database has no completed index pass; run `scry index DIR --db PATH`' });
  }
  return root;
}

/** The real path of a stored root (it was real when stored; a symlink may have been put in its place since). */
function realOf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/**
 * Refuses a root that differs from the one the index was built for: indexing it would walk the
 * other tree and drop every file of the stored root. Returns the stored root when it differs and
 * `reroot` allows it (the caller then rebuilds on purpose), else undefined.
 */
export function checkRoot(dbPath: string, root: string, reroot: boolean): string | undefined {
  const stored = storedRoot(dbPath);
  if (stored === undefined || stored === root || realOf(stored) === root) return undefined;
  if (reroot) return stored;
  throw rootMismatch(dbPath, stored, root);
}

/** ROOT_MISMATCH, with a hint naming both roots. */
export function rootMismatch(dbPath: string, stored: string, root: string): EngineError {
  return new EngineError('ROOT_MISMATCH', { db: dbPath, stored, root }, {
    hint: `the index was built for ${stored}; omit DIR (or --root) to use it, or run \`scry index ${root} --db ${dbPath} --rebuild\` to re-root it to ${root} on purpose`,
  });
}
