/**
 * Issue 19: a CLI search that blends reads the vectors from the snapshot beside the database
 * (`<db>.vec`) instead of every vector from SQLite. Real SQLite, real tree-sitter, the real
 * built-in model (the default provider). Loads are counted by the source the cache reports
 * (`snapshot`: the file whole; `delta`: the file plus what changed; `sqlite`: the database), never
 * timed. Whatever the source, the vectors and the scores are those of a fresh load from SQLite,
 * bit for bit; a damaged file is never served.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, readdirSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../src/index.js';
import { createBuiltinProvider } from '../../src/embed/builtin-provider.js';
import { decodeVectorFile, readVectorFile, vectorFilePath, writeVectorFile } from '../../src/embed/vector-file.js';
import { fingerprintKey } from '../../src/embed/provider.js';
import { readEmbedState } from '../../src/indexer/embed-pass.js';
import { VectorIndexCache, type VectorLoadSource } from '../../src/search/vector-search.js';
import { IndexStore } from '../../src/store/index-store.js';
import { SNAPSHOT_REWRITE_SHARE } from '../../src/engine/semantic.js';
import { backdate } from '../helpers/fixture-repo.js';
import { isolatedEnv, tempDir, writeTree } from '../helpers/temp.js';

const FILES = 24;
const file = (i: number): string => `src/mod${i}.ts`;
const source = (i: number, salt = ''): string =>
  `/** Parses the configuration of module ${i}. */\nexport function parseConfig${i}(text: string): Record<string, string> {\n  return Object.fromEntries(text.split('\\n').map((l) => l.split('=')));${salt}\n}\n\nexport function describe${i}(): string {\n  return 'module ${i} reads json';\n}\n`;
const QUERIES = ['parse json configuration file', 'describe the module', 'split lines into key value pairs'];

interface Loaded {
  source: VectorLoadSource | undefined;
  written: number | undefined;
  ids: number[];
  rows: Buffer;
  hits: string[];
}

/** Loads the vectors of `db` with a new cache (as a new CLI process does) and scores the queries. */
function loadVectors(db: string, queryVectors: Float32Array[], options: { snapshotFile?: boolean } = {}): Loaded {
  const store = IndexStore.open(db, { create: false });
  try {
    const { model } = readEmbedState(store);
    let source: VectorLoadSource | undefined;
    let written: number | undefined;
    const cache = new VectorIndexCache({ ...options, onLoad: (e) => ((source = e.source), (written = e.written)) });
    const snap = cache.sync(store, fingerprintKey(model!))!;
    const exported = snap.index.exportRows();
    const order = [...exported.ids.keys()].sort((a, b) => exported.ids[a]! - exported.ids[b]!);
    const d = snap.index.dimensions;
    const rows = Buffer.concat(order.map((i) => Buffer.from(exported.rows.buffer, exported.rows.byteOffset + i * d, d)));
    const scales = Buffer.from(new Float32Array(order.map((i) => exported.scales![i]!)).buffer);
    const hits = queryVectors.map((q) => JSON.stringify(snap.index.search(q, 10).map((h) => [h.id, h.score])));
    return { source, written, ids: order.map((i) => exported.ids[i]!), rows: Buffer.concat([rows, scales]), hits };
  } finally {
    store.close();
  }
}

describe('the vector snapshot beside the database', () => {
  let t: ReturnType<typeof tempDir>;
  let root: string;
  let db: string;
  let engine: Engine;
  let queryVectors: Float32Array[];

  const load = (options: { snapshotFile?: boolean } = {}): Loaded => loadVectors(db, queryVectors, options);
  const expectSameAsSqlite = (got: Loaded): void => {
    const fresh = load({ snapshotFile: false });
    expect(fresh.source).toBe('sqlite');
    expect(got.ids).toEqual(fresh.ids);
    expect(got.rows.equals(fresh.rows)).toBe(true);
    expect(got.hits).toEqual(fresh.hits);
  };
  const snapshotPath = (): string => vectorFilePath(db);

  beforeAll(async () => {
    t = tempDir('scry-vecsnap-');
    root = join(t.dir, 'repo');
    db = join(t.dir, 'index.db');
    writeTree(root, Object.fromEntries(Array.from({ length: FILES }, (_, i) => [file(i), source(i)])));
    backdate(root, Array.from({ length: FILES }, (_, i) => file(i)));
    engine = await createEngine({ root, db, env: isolatedEnv(t.dir) });
    await engine.index();
    const provider = createBuiltinProvider({ batchSize: 16 });
    queryVectors = await provider.embed(QUERIES, { purpose: 'query' });
    await provider.close();
  }, 60_000);

  afterAll(() => {
    engine?.close();
    t?.cleanup();
  });

  it('is written by the index pass, beside the database, and served whole: the same vectors and scores as SQLite', () => {
    expect(existsSync(snapshotPath())).toBe(true);
    const got = load();
    expect(got.source).toBe('snapshot');
    expect(got.written).toBeUndefined();
    expect(got.ids.length).toBeGreaterThanOrEqual(FILES);
    expectSameAsSqlite(got);
  });

  it('a pass that changes nothing leaves the file as it is (not rewritten: same inode)', async () => {
    const before = statSync(snapshotPath()).ino;
    const report = await engine.index();
    expect(report.filesIndexed).toBe(0);
    expect(statSync(snapshotPath()).ino).toBe(before);
    expect(load().source).toBe('snapshot');
  });

  it('after an edit, a delete and a new file, the pass rewrites it; a stale one is brought up to date by a delta', async () => {
    const stale = join(t.dir, 'stale.vec');
    copyFileSync(snapshotPath(), stale);
    writeFileSync(join(root, file(3)), source(3, ' // edited'));
    unlinkSync(join(root, file(5)));
    writeFileSync(join(root, 'src/added.ts'), source(99));
    backdate(root, [file(3), 'src/added.ts'], 60);
    await engine.index();
    const current = load();
    expect(current.source).toBe('snapshot');
    expectSameAsSqlite(current);
    // the snapshot of before the edit: never served as is
    copyFileSync(stale, snapshotPath());
    const delta = load();
    expect(delta.source).toBe('delta');
    expect(delta.written).toBeGreaterThan(0);
    expectSameAsSqlite(delta);
    expect(load().source).toBe('snapshot');
  }, 60_000);

  it('a deletion alone replaces the stamp: the file after the pass holds no vector of the deleted chunks', async () => {
    const before = load();
    unlinkSync(join(root, file(7)));
    await engine.index();
    const after = load();
    expect(after.source).toBe('snapshot');
    expect(after.ids.length).toBeLessThan(before.ids.length);
    expectSameAsSqlite(after);
  }, 60_000);

  it('in a long-lived engine, a search after a change brings its vectors up to date and rewrites the file after answering', async () => {
    await engine.search(QUERIES[0]!, { limit: 3 }); // the engine's own cache, loaded from the file
    writeFileSync(join(root, file(9)), source(9, ' // edited again'));
    backdate(root, [file(9)], 60);
    await engine.index();
    rmSync(snapshotPath()); // what the pass wrote: only the engine's cache can put it back now
    const response = await engine.search(QUERIES[0]!, { limit: 3 });
    expect(response.meta.mode).toBe('hybrid');
    expect(existsSync(snapshotPath())).toBe(false); // not in the search's way
    await new Promise((r) => setImmediate(r));
    expect(existsSync(snapshotPath())).toBe(true);
    const got = load();
    expect(got.source).toBe('snapshot');
    expectSameAsSqlite(got);
  }, 60_000);

  it('a long-lived cache that trusted the file by its memo (hashes left in the file) and saw it replaced starts over from the new file at the next change', async () => {
    const store = IndexStore.open(db, { create: false });
    try {
      const model = fingerprintKey(readEmbedState(store).model!);
      const later = { now: () => Date.now() + 60_000 };
      new VectorIndexCache({ clock: later }).sync(store, model); // the crc checked, the memo recorded
      const events: Array<{ source: VectorLoadSource; checked?: string }> = [];
      const cache = new VectorIndexCache({ onLoad: (e) => events.push(e) });
      cache.sync(store, model);
      expect(events.at(-1)).toMatchObject({ source: 'snapshot', checked: 'memo' });
      // another process writes the file anew (another inode), then the index changes
      writeVectorFile(snapshotPath(), decodeVectorFile(readFileSync(snapshotPath()), model)!);
      writeFileSync(join(root, file(11)), source(11, ' // edited for the memo'));
      backdate(root, [file(11)], 60);
      await engine.index();
      const snap = cache.sync(store, model)!;
      expect(events.at(-1)!.source).not.toBe('sqlite');
      const fresh = load({ snapshotFile: false });
      expect(queryVectors.map((q) => JSON.stringify(snap.index.search(q, 10).map((h) => [h.id, h.score])))).toEqual(fresh.hits);
      expect(snap.size).toBe(fresh.ids.length);
    } finally {
      store.close();
    }
  }, 60_000);

  it('a missing, truncated or foreign file is ignored, replaced by a load from SQLite, and rewritten', () => {
    rmSync(snapshotPath());
    expect(load().source).toBe('sqlite');
    expect(load().source).toBe('snapshot');
    const whole = readFileSync(snapshotPath());
    writeFileSync(snapshotPath(), whole.subarray(0, whole.length - 7));
    const truncated = load();
    expect(truncated.source).toBe('sqlite');
    expectSameAsSqlite(truncated);
    expect(readFileSync(snapshotPath()).equals(whole)).toBe(true);
    const store = IndexStore.open(db, { create: false });
    const model = fingerprintKey(readEmbedState(store).model!);
    store.close();
    expect(decodeVectorFile(whole, `${model}x`)).toBeUndefined();
  });

  it('two writer processes renaming over each other: a reader meanwhile sees a whole file every time, never a torn one', async () => {
    // the built library (dist/, `npm run build`): two real processes write the file 40 times each
    const store = IndexStore.open(db, { create: false });
    const model = fingerprintKey(readEmbedState(store).model!);
    store.close();
    const base = decodeVectorFile(readFileSync(snapshotPath()), model)!;
    const path = join(t.dir, 'race.vec');
    writeVectorFile(path, { ...base, stamp: 'start' });
    const dist = pathToFileURL(join(import.meta.dirname, '../../dist/embed/vector-file.js')).href;
    const script = `const m = await import(${JSON.stringify(dist)}); const { readFileSync } = await import('node:fs');
      const f = m.decodeVectorFile(readFileSync(process.argv[1]), process.argv[2]);
      for (let i = 0; i < 40; i++) m.writeVectorFile(process.argv[1], { ...f, stamp: process.argv[3] + i });`;
    const writers = ['a', 'b'].map((w) => spawn(process.execPath, ['--input-type=module', '-e', script, path, model, w], { stdio: ['ignore', 'ignore', 'pipe'] }));
    const exits = writers.map((c) => new Promise<number | null>((resolve) => c.on('exit', resolve)));
    let done = false;
    void Promise.all(exits).then(() => (done = true));
    const seen = new Set<string>();
    let reads = 0;
    while (!done || reads === 0) {
      const got = readVectorFile(path, model);
      expect(got).toBeDefined();
      expect(Buffer.from(got!.rows.buffer, got!.rows.byteOffset, got!.rows.byteLength).equals(Buffer.from(base.rows.buffer, base.rows.byteOffset, base.rows.byteLength))).toBe(true);
      seen.add(got!.stamp.slice(0, 1));
      reads++;
      await new Promise((r) => setImmediate(r));
    }
    expect(await Promise.all(exits)).toEqual([0, 0]);
    expect(readVectorFile(path, model)!.stamp).toMatch(/^[ab]39$/);
    expect(readdirSync(t.dir).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  }, 60_000);

  it('any byte flip or truncation makes the file rejected (property), and such a file in place is never served', () => {
    const whole = readFileSync(snapshotPath());
    const store = IndexStore.open(db, { create: false });
    const model = fingerprintKey(readEmbedState(store).model!);
    store.close();
    expect(decodeVectorFile(whole, model)).toBeDefined();
    fc.assert(
      fc.property(fc.nat(whole.length - 1), fc.integer({ min: 1, max: 255 }), (at, xor) => {
        const bad = Buffer.from(whole);
        bad[at] = bad[at]! ^ xor;
        expect(decodeVectorFile(bad, model)).toBeUndefined();
      }),
      { numRuns: 300 },
    );
    fc.assert(
      fc.property(fc.nat(whole.length - 1), (length) => {
        expect(decodeVectorFile(whole.subarray(0, length), model)).toBeUndefined();
      }),
      { numRuns: 200 },
    );
    const flipped = Buffer.from(whole);
    flipped[whole.length - 40] = flipped[whole.length - 40]! ^ 0x10;
    writeFileSync(snapshotPath(), flipped);
    const got = load();
    expect(got.source).toBe('sqlite');
    expectSameAsSqlite(got);
  });
});

describe('a pass that changes a small share of a larger index', () => {
  it('leaves the snapshot as it is (same inode, deferred); the next load applies the delta and equals SQLite', async () => {
    const files = Math.ceil(1 / SNAPSHOT_REWRITE_SHARE) + 20; // one edited file is under the share
    const t = tempDir('scry-vecsnap-small-');
    const root = join(t.dir, 'repo');
    const db = join(t.dir, 'index.db');
    writeTree(root, Object.fromEntries(Array.from({ length: files }, (_, i) => [file(i), source(i)])));
    backdate(root, Array.from({ length: files }, (_, i) => file(i)));
    const engine = await createEngine({ root, db, env: isolatedEnv(t.dir) });
    try {
      await engine.index();
      const before = statSync(vectorFilePath(db)).ino;
      writeFileSync(join(root, file(1)), source(1, ' // edited'));
      backdate(root, [file(1)], 60);
      const report = await engine.index();
      expect(report.filesIndexed).toBe(1);
      expect(statSync(vectorFilePath(db)).ino).toBe(before);
      const provider = createBuiltinProvider({ batchSize: 16 });
      const queryVectors = await provider.embed(QUERIES, { purpose: 'query' });
      await provider.close();
      const delta = loadVectors(db, queryVectors);
      expect(delta.source).toBe('delta');
      expect(delta.written).toBeGreaterThan(0);
      const fresh = loadVectors(db, queryVectors, { snapshotFile: false });
      expect(fresh.source).toBe('sqlite');
      expect(delta.ids).toEqual(fresh.ids);
      expect(delta.rows.equals(fresh.rows)).toBe(true);
      expect(delta.hits).toEqual(fresh.hits);
      expect(loadVectors(db, queryVectors).source).toBe('snapshot');
    } finally {
      engine.close();
      t.cleanup();
    }
  }, 120_000);
});
