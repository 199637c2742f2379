/**
 * Freshness end to end, in one process: real temp directories, real fs watchers, real SQLite.
 * Edits become searchable by themselves; a second watcher on the same index is a reader that takes
 * over when the writer exits; `index()` from another engine is handed to the writer.
 */
import { mkdirSync, readFileSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine, type IndexWatch, type WatchEvent } from '../../src/index.js';
import { writeSmallRepo } from '../helpers/fixture-repo.js';
import { isolatedEnv, tempDir } from '../helpers/temp.js';
import { waitFor } from '../helpers/wait.js';

const FAST = { debounceMs: 50, maxBatchWaitMs: 300 };

async function paths(engine: Engine, query: string): Promise<string[]> {
  const r = await engine.search(query, { limit: 20, rerank: false });
  return [...new Set(r.results.map((x) => x.path))].sort();
}

describe('a watched index follows edits on disk', () => {
  let t: ReturnType<typeof tempDir>;
  let root: string;
  let engine: Engine;
  let watch: IndexWatch;
  const events: WatchEvent[] = [];

  beforeAll(async () => {
    t = tempDir('scry-fresh-');
    root = join(t.dir, 'repo');
    writeSmallRepo(root);
    engine = await createEngine({ root, env: isolatedEnv(t.dir) });
    watch = await engine.watch({ watch: FAST, onEvent: (e) => events.push(e) });
    await watch.ready();
    await watch.idle();
  });

  afterAll(async () => {
    await watch.close();
    engine.close();
    t.cleanup();
  });

  it('indexed the tree on start as the writer, watching directories', () => {
    expect(watch.role).toBe('writer');
    expect(events.find((e) => e.type === 'pass-end')).toMatchObject({ type: 'pass-end', reason: 'startup' });
    const f = watch.freshness();
    expect(f).toMatchObject({ state: 'fresh', role: 'writer', pendingChanges: 0, rescanPending: false, lastError: null });
    expect(f.watcher?.backend).toBe('directories');
    expect(engine.freshness()).toEqual(f);
  });

  it('makes a created file searchable, then its edit, its rename and its deletion', async () => {
    mkdirSync(join(root, 'src', 'extra'), { recursive: true });
    writeFileSync(join(root, 'src', 'extra', 'zebra.ts'), 'export function stripedZebraCounter(n: number) { return n + 1; }\n');
    expect(await waitFor('the new file', async () => (await paths(engine, 'stripedZebraCounter')).length > 0 && paths(engine, 'stripedZebraCounter'))).toEqual(['src/extra/zebra.ts']);

    writeFileSync(join(root, 'src', 'extra', 'zebra.ts'), 'export function spottedGiraffeCounter(n: number) { return n + 2; }\n');
    await waitFor('the edit', async () => (await paths(engine, 'spottedGiraffeCounter')).length > 0);
    expect(await paths(engine, 'stripedZebraCounter')).toEqual([]);

    mkdirSync(join(root, 'lib'), { recursive: true });
    renameSync(join(root, 'src', 'extra', 'zebra.ts'), join(root, 'lib', 'giraffe.ts'));
    await waitFor('the rename', async () => (await paths(engine, 'spottedGiraffeCounter')).join() === 'lib/giraffe.ts');

    rmSync(join(root, 'lib', 'giraffe.ts'));
    await waitFor('the deletion', async () => (await paths(engine, 'spottedGiraffeCounter')).length === 0);
  });

  it('drops a deleted directory and picks up a directory moved in with its files', async () => {
    mkdirSync(join(root, 'pkg', 'deep'), { recursive: true });
    writeFileSync(join(root, 'pkg', 'deep', 'a.ts'), 'export const marmotAlpha = 1;\n');
    writeFileSync(join(root, 'pkg', 'deep', 'b.ts'), 'export const marmotBeta = 2;\n');
    await waitFor('the new directory', async () => (await paths(engine, 'marmotAlpha marmotBeta')).length === 2);
    renameSync(join(root, 'pkg'), join(root, 'moved'));
    await waitFor('the moved directory', async () => (await paths(engine, 'marmotAlpha marmotBeta')).join() === 'moved/deep/a.ts,moved/deep/b.ts');
    rmSync(join(root, 'moved'), { recursive: true });
    await waitFor('the deleted directory', async () => (await paths(engine, 'marmotAlpha marmotBeta')).length === 0);
  });

  it('never indexes what the walk leaves out: node_modules, secrets, ignored files', async () => {
    mkdirSync(join(root, 'node_modules', 'dep'), { recursive: true });
    writeFileSync(join(root, 'node_modules', 'dep', 'index.js'), 'export const hiddenOtter = 1;\n');
    writeFileSync(join(root, '.env'), 'API_KEY=hiddenOtter\n');
    writeFileSync(join(root, '.gitignore'), 'scratch/\n');
    mkdirSync(join(root, 'scratch'), { recursive: true });
    writeFileSync(join(root, 'scratch', 'notes.ts'), 'export const hiddenOtter = 2;\n');
    // a visible file written last: once it is searchable, the others had their chance
    writeFileSync(join(root, 'visible.ts'), 'export const visibleOtter = 3;\n');
    await waitFor('the visible file', async () => (await paths(engine, 'visibleOtter')).length > 0);
    await watch.idle();
    expect(await paths(engine, 'hiddenOtter')).toEqual([]);
    const listed = (await engine.listFiles({ includeHidden: true, limit: 10_000 })).files.map((f) => f.path);
    expect(listed.filter((p) => p.includes('node_modules') || p.includes('.env') || p.startsWith('scratch/'))).toEqual([]);
  });

  it('finds, in the writing engine itself, a word an edit adds without changing the chunk count', async () => {
    // regression: document frequencies were cached by (data_version, chunk_count); data_version
    // does not move on the connection's own commits, so a word searched before the edit stayed
    // at df 0 and was dropped from the query after it
    expect(await paths(engine, 'quokkaAddedLater')).toEqual([]);
    const before = engine.status().chunks;
    writeFileSync(join(root, 'README.md'), `${readFileSync(join(root, 'README.md'), 'utf8')}\nquokkaAddedLater\n`);
    await waitFor('the appended word', async () => (await paths(engine, 'quokkaAddedLater')).length > 0);
    expect(engine.status().chunks).toBe(before);
  });

  it('re-hashes a touched file without re-indexing it', async () => {
    await watch.idle();
    const before = events.length;
    const later = new Date(Date.now() + 5000);
    utimesSync(join(root, 'README.md'), later, later);
    const end = await waitFor('the touch pass', () => events.slice(before).find((e) => e.type === 'pass-end'));
    expect(end).toMatchObject({ reason: 'changes', report: { filesIndexed: 0, filesTouched: 1, filesRemoved: 0 } });
  });
});

describe('one writer per index', () => {
  let t: ReturnType<typeof tempDir>;
  const open: Array<{ close: () => unknown }> = [];
  afterEach(async () => {
    for (const o of open.splice(0).reverse()) await o.close();
    t.cleanup();
  });

  it('makes a second watcher a reader, which takes over writing when the first exits', async () => {
    t = tempDir('scry-fresh-two-');
    const root = join(t.dir, 'repo');
    writeSmallRepo(root);
    const env = isolatedEnv(t.dir);
    const a = await createEngine({ root, env });
    const b = await createEngine({ root, env });
    open.push(a, b);
    const wa = await a.watch({ watch: FAST });
    await wa.ready();
    await wa.idle();
    const bEvents: WatchEvent[] = [];
    const wb = await b.watch({ watch: FAST, takeoverPollMs: 50, onEvent: (e) => bEvents.push(e) });
    open.push(wb);
    expect(wb.role).toBe('reader');
    expect(wb.freshness()).toMatchObject({ role: 'reader', writer: { pid: process.pid, role: 'watch' }, state: 'fresh' });
    await wb.ready(); // the index exists: a reader answers at once

    await wa.close();
    await waitFor('the takeover', () => wb.role === 'writer');
    expect(bEvents.map((e) => e.type)).toContain('role');
    writeFileSync(join(root, 'after-takeover.ts'), 'export const lemurAfterTakeover = 1;\n');
    await waitFor('an edit indexed by the new writer', async () => (await paths(b, 'lemurAfterTakeover')).length > 0);
  });

  it('hands index() from another engine to the writer, which runs it and reports back', async () => {
    t = tempDir('scry-fresh-handoff-');
    const root = join(t.dir, 'repo');
    writeSmallRepo(root);
    const env = isolatedEnv(t.dir);
    const owner = await createEngine({ root, env });
    const other = await createEngine({ root, env, config: { lockTimeoutMs: 0 } });
    open.push(owner, other);
    const ownerEvents: WatchEvent[] = [];
    const w = await owner.watch({ files: false, onEvent: (e) => ownerEvents.push(e) });
    open.push(w);
    await w.idle();
    writeFileSync(join(root, 'handed.ts'), 'export const handedOverPangolin = 1;\n');
    let handedTo: { pid: number; role: string } | undefined;
    const report = await other.index({ paths: ['handed.ts'], onHandoff: (o) => (handedTo = o) });
    expect(handedTo).toEqual({ pid: process.pid, role: 'watch' });
    expect(report.filesIndexed).toBe(1);
    expect(ownerEvents.some((e) => e.type === 'pass-end' && e.reason === 'request')).toBe(true);
    expect(await paths(other, 'handedOverPangolin')).toEqual(['handed.ts']);
    // the owner's errors travel back with their codes
    await expect(other.index({ paths: ['../outside.ts'] })).rejects.toMatchObject({ code: 'PATH_OUTSIDE_ROOT' });
  });

  it('waits for an owner it cannot reach, then fails with INDEX_LOCKED, never SQLITE_BUSY', async () => {
    t = tempDir('scry-fresh-unreachable-');
    const root = join(t.dir, 'repo');
    writeSmallRepo(root);
    const db = join(t.dir, 'index.db');
    const now = Date.now();
    // a live owner (this very process) advertising a socket nobody listens on
    writeFileSync(`${db}.lock`, JSON.stringify({ pid: process.pid, host: hostname(), token: 'other', acquiredAt: now, heartbeatAt: now, endpoint: join(t.dir, 'nobody.sock'), role: 'watch' }));
    const engine = await createEngine({ root, db, env: isolatedEnv(t.dir), config: { lockTimeoutMs: 300 } });
    open.push(engine);
    const waits: number[] = [];
    await expect(engine.index({ onLockWait: (o) => waits.push(o.pid) })).rejects.toMatchObject({ code: 'INDEX_LOCKED', data: { pid: process.pid } });
    expect(waits.length).toBeGreaterThan(0);
  });
});
