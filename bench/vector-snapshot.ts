/**
 * The vector snapshot (issue 19): what it costs to load a hybrid index's vectors from SQLite, from
 * the snapshot file beside the database (`<db>.vec`), and from a stale snapshot plus the delta of
 * a one-file change; and what writing the file costs. Measured in one process on a copy of the
 * index (the original is never written):
 *
 *   npx tsx bench/vector-snapshot.ts --db /tmp/scry-bench-XXXX/index.db [--runs 5]
 *
 * Each load is a new VectorIndexCache (what a new CLI process does), timed in wall and CPU ms;
 * the source it reports (`sqlite`, `snapshot`, `delta`) is checked. The one-file change is a file
 * deleted in SQLite (its chunks go, the stamp is replaced): a delta's cost is the scan of every
 * chunk id and hash plus a lookup per changed chunk, so an edit costs the same to within the few
 * lookups of its new chunks. Writes bench/results/vector-snapshot.json.
 */
import { copyFileSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { vectorFilePath } from '../src/embed/vector-file.js';
import { fingerprintKey } from '../src/embed/provider.js';
import { readEmbedState } from '../src/indexer/embed-pass.js';
import { VectorIndexCache, type VectorLoadSource } from '../src/search/vector-search.js';
import { IndexStore } from '../src/store/index-store.js';
import { VECTORS_STAMP_KEY } from '../src/store/meta-repo.js';
import { environment, parseArgs, writeResult } from './results.js';
import { cpuMs, fmtMB, median, round2 } from './stats.js';

interface Load {
  source: VectorLoadSource | undefined;
  rows: number;
  written: number | undefined;
  wallMs: number;
  cpuMs: number;
}

function loadOnce(db: string, model: string, snapshotFile: boolean): Load {
  const store = IndexStore.open(db, { create: false });
  try {
    let event: { source: VectorLoadSource; rows: number; written?: number } | undefined;
    const cache = new VectorIndexCache({ snapshotFile, onLoad: (e) => (event = e) });
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    cache.sync(store, model);
    const wallMs = performance.now() - t0;
    return { source: event?.source, rows: event?.rows ?? 0, written: event?.written, wallMs, cpuMs: cpuMs(process.cpuUsage(c0)) };
  } finally {
    store.close();
  }
}

function expectSource(load: Load, source: VectorLoadSource, what: string): Load {
  if (load.source !== source) throw new Error(`${what}: loaded from ${String(load.source)}, expected ${source}`);
  return load;
}

const fmt = (loads: readonly Load[]): string => `${median(loads.map((l) => l.wallMs)).toFixed(1)} ms wall, ${median(loads.map((l) => l.cpuMs)).toFixed(1)} ms CPU (median of ${loads.length})`;

function main(): void {
  const { values } = parseArgs(process.argv.slice(2));
  const original = values.get('db');
  if (!original) throw new Error('--db PATH is required (a hybrid index, e.g. the corpus index of bench/index-throughput.ts)');
  const runs = Number(values.get('runs') ?? 5);
  const dir = mkdtempSync(join(tmpdir(), 'scry-vecsnap-'));
  const db = join(dir, 'index.db');
  try {
    copyFileSync(original, db);
    const store = IndexStore.open(db, { create: true });
    const { model } = readEmbedState(store);
    if (!model) throw new Error(`${original} has no vectors`);
    const key = fingerprintKey(model);
    if (store.read(() => store.meta.get(VECTORS_STAMP_KEY)) === undefined) store.transaction(() => store.meta.bumpVectorsStamp());
    store.close();
    console.log(`load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}; ${original} (copied)`);

    const sqlite = Array.from({ length: runs }, () => expectSource(loadOnce(db, key, false), 'sqlite', 'no snapshot file'));
    const writes = [expectSource(loadOnce(db, key, true), 'sqlite', 'first load')];
    const bytes = statSync(vectorFilePath(db)).size;
    const snapshot = Array.from({ length: runs }, () => expectSource(loadOnce(db, key, true), 'snapshot', 'current file'));
    // a one-file change: the next load applies it to the stale file and writes the file anew
    const deltas: Load[] = [];
    for (let r = 0; r < runs; r++) {
      const w = IndexStore.open(db, { create: false });
      const file = w.read(() => w.files.all()).values().next().value!;
      w.transaction(() => {
        w.chunks.deleteForFile(file.id);
        w.files.delete(file.id);
      });
      w.close();
      deltas.push(expectSource(loadOnce(db, key, true), 'delta', 'after a one-file change'));
    }
    const rows = snapshot[0]!.rows;
    const writeMs = median(writes.map((l) => l.wallMs)) - median(sqlite.map((l) => l.wallMs));
    console.log(`${rows} vectors, ${fmtMB(bytes)} snapshot`);
    console.log(`SQLite load (no file):         ${fmt(sqlite)}`);
    console.log(`SQLite load + write the file:  ${fmt(writes)} (the write ≈ ${writeMs.toFixed(1)} ms)`);
    console.log(`snapshot load (current file):  ${fmt(snapshot)}  ratio to SQLite ${(median(snapshot.map((l) => l.cpuMs)) / median(sqlite.map((l) => l.cpuMs))).toFixed(3)} CPU`);
    console.log(`one-file change: delta + write: ${fmt(deltas)}`);
    const summary = (loads: readonly Load[]) => ({ wallMs: round2(median(loads.map((l) => l.wallMs))), cpuMs: round2(median(loads.map((l) => l.cpuMs))), runs: loads.length });
    const out = writeResult('vector-snapshot', { environment: environment(), db: original, rows, snapshotBytes: bytes, sqlite: summary(sqlite), sqlitePlusWrite: summary(writes), snapshot: summary(snapshot), deltaPlusWrite: summary(deltas) });
    console.log(`wrote ${out}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main();
