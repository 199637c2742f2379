import type { IndexReport } from '../indexer/index-report.js';
import { rebuildPathFor, removeDatabaseFiles, swapDatabase } from '../store/db-swap.js';
import { IndexStore } from '../store/index-store.js';

/**
 * Runs a full pass into a new database beside `dbPath` and swaps it in when complete. The caller
 * holds the writer lease across the whole call (build and swap), so no other writer touches
 * either file. On failure (an error, an abort) the new file is removed and the live index is
 * untouched; a process killed midway leaves its file for the next pass to remove.
 */
export async function rebuildBeside(dbPath: string, pass: (store: IndexStore) => Promise<IndexReport>): Promise<IndexReport> {
  const next = rebuildPathFor(dbPath, process.pid);
  removeDatabaseFiles(next);
  const store = IndexStore.open(next, { create: true });
  let report: IndexReport;
  try {
    report = await pass(store);
    store.seal();
  } catch (err) {
    store.close();
    removeDatabaseFiles(next);
    throw err;
  }
  swapDatabase(next, dbPath);
  return report;
}
