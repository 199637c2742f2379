import { readdirSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/*
 * A rebuild writes a new database beside the live one and renames it over the live one when
 * complete: readers keep the old file (open descriptors survive the rename) until they notice the
 * new inode, and a rebuild killed midway leaves the live index exactly as it was.
 *
 * SQLite finds a database's WAL and shared-memory index by name (`<db>-wal`, `<db>-shm`). A stale
 * pair left beside the new file would be read as the new file's (old pages replayed over new
 * ones), so the new file is sealed first (WAL folded in, rollback-journal mode: no side files), then
 * the old side files are unlinked, then the rename. Readers of the old file keep their descriptors
 * and mappings of the unlinked side files; SQLite skips the checkpoint-and-delete on close of a
 * database that was moved (SQLITE_FCNTL_HAS_MOVED), so they never remove the new file's WAL.
 */

/** Side files SQLite may keep next to a database. */
const SIDE_FILES = ['-wal', '-shm', '-journal'] as const;

/** Where a rebuild by process `pid` builds the replacement of `dbPath`. */
export function rebuildPathFor(dbPath: string, pid: number): string {
  return `${dbPath}.rebuild-${pid}`;
}

/** Removes a database file and its side files, if present, and its vector snapshot (src/embed/vector-file.ts) with its memo (vector-file-memo.ts). */
export function removeDatabaseFiles(path: string): void {
  for (const suffix of ['', ...SIDE_FILES, '.vec', '.vec.ok']) rmSync(path + suffix, { force: true });
}

/**
 * Removes what killed rebuilds of `dbPath` left behind. Only the writer of the index may call it
 * (the writer lease makes every other rebuild of it a dead one). Returns the files removed.
 */
export function removeStaleRebuilds(dbPath: string): string[] {
  const prefix = `${basename(dbPath)}.rebuild-`;
  let names: string[];
  try {
    names = readdirSync(dirname(dbPath));
  } catch {
    return [];
  }
  const stale = names.filter((n) => n.startsWith(prefix) && /^\d+(-wal|-shm|-journal)?$/.test(n.slice(prefix.length)));
  for (const n of stale) rmSync(join(dirname(dbPath), n), { force: true });
  return stale;
}

/** Swaps a sealed replacement (`IndexStore.seal`) in for `dbPath`, atomically as seen by openers of the path. */
export function swapDatabase(replacement: string, dbPath: string): void {
  for (const suffix of SIDE_FILES) rmSync(dbPath + suffix, { force: true });
  renameSync(replacement, dbPath);
}
