/**
 * Issue 19: the embedding pass after an edit reads the edited files' chunks only (the queue of
 * migration 009), not every chunk of the index, so that an edit is searchable in milliseconds on a
 * 10^5-chunk index. Real SQLite and tree-sitter; the Ollama provider talks HTTP to
 * test/helpers/embed-server.ts, which records every text it is asked to embed.
 *
 * The guard cannot time anything, so it plants a gap: vectors of an unedited file are deleted
 * behind the engine's back. A pass that scans every chunk (what the pass did before) embeds that
 * file again; a pass that reads the queue embeds the edited file only. A model change (or a lost
 * `embed_ready`) queues every file, and then the gap is filled.
 */
import { unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../src/index.js';
import { openConnection } from '../../src/store/driver.js';
import { startEmbedServer, type EmbedServer } from '../helpers/embed-server.js';
import { backdate } from '../helpers/fixture-repo.js';
import { waitFor } from '../helpers/wait.js';
import { isolatedEnv, tempDir, writeTree } from '../helpers/temp.js';

const FILES = 30;
const DIMS = 16;
const file = (i: number): string => `src/mod${i}.ts`;
const source = (i: number, salt = ''): string =>
  `export function compute${i}(value: number): number {\n  return value * ${i} + 1;${salt}\n}\n\nexport function describe${i}(): string {\n  return 'module ${i}';\n}\n`;

describe('the embedding pass reads only the files written since it last completed', () => {
  let t: ReturnType<typeof tempDir>;
  let server: EmbedServer;
  let root: string;
  let db: string;
  let engine: Engine;
  const open = (model = 'queue-embed'): Promise<Engine> =>
    createEngine({ root, db, env: isolatedEnv(t.dir), config: { embed: { provider: 'ollama', ollama: { baseUrl: server.url, model }, batchSize: 8, retries: 0, timeoutMs: 2000 } } });
  /** Texts the provider was asked to embed since the last reset, by the path each starts with. */
  const embeddedPaths = (): string[] => [...new Set(server.requests.flatMap((r) => r.input ?? []).filter((text) => text.startsWith('src/')).map((text) => text.split(/[ \n]/)[0]!))].sort();
  const sql = <T>(query: string, ...params: unknown[]): T[] => {
    const conn = openConnection(db);
    try {
      return conn.prepare<unknown[], T>(query).all(...params);
    } finally {
      conn.close();
    }
  };
  const staleVectors = (): number => sql<{ n: number }>('SELECT count(*) AS n FROM embeddings WHERE chunk_hash NOT IN (SELECT hash FROM chunks)')[0]!.n;
  const edit = (i: number, salt: string): void => {
    writeFileSync(join(root, file(i)), source(i, salt));
    backdate(root, [file(i)], 60);
  };

  beforeAll(async () => {
    t = tempDir('scry-embed-queue-');
    server = await startEmbedServer();
    server.respond = () => ({ ok: true, dimensions: DIMS });
    root = join(t.dir, 'repo');
    db = join(t.dir, 'index.db');
    writeTree(root, Object.fromEntries(Array.from({ length: FILES }, (_, i) => [file(i), source(i)])));
    backdate(root, Array.from({ length: FILES }, (_, i) => file(i)));
    engine = await open();
    const first = await engine.index();
    expect(first.embedding).toMatchObject({ pending: 0, covered: engine.status().chunks });
  });
  afterAll(async () => {
    engine.close();
    await server.close();
    t.cleanup();
  });
  /** Forgets the requests so far; answers every later one. */
  const resetServer = (): void => {
    server.reset();
    server.respond = () => ({ ok: true, dimensions: DIMS });
  };
  beforeEach(resetServer);

  it('after a one-file edit, embeds that file only, even when other chunks lack vectors', async () => {
    // the planted gap: mod3's vectors gone, mod3 not queued
    const gap = sql<{ hash: string }>("SELECT c.hash FROM chunks c JOIN files f ON f.id = c.file_id WHERE f.path = ?", file(3)).map((r) => r.hash);
    expect(gap.length).toBeGreaterThan(0);
    sql(`DELETE FROM embeddings WHERE chunk_hash IN (${gap.map(() => '?').join(', ')}) RETURNING 1`, ...gap);

    edit(7, ' // changed');
    const scoped = await engine.index({ paths: [file(7)] });
    expect(scoped.filesIndexed).toBe(1);
    expect(embeddedPaths()).toEqual([file(7)]);
    expect(scoped.embedding).toMatchObject({ embedded: 1, pending: 0 });

    resetServer();
    edit(8, ' // changed');
    const full = await engine.index();
    expect(full.filesIndexed).toBe(1);
    expect(embeddedPaths()).toEqual([file(8)]);
    expect(full.embedding).toMatchObject({ embedded: 1, pending: 0 });

    // without `embed_ready` the pass cannot trust the queue: every file is queued, the gap filled
    sql("DELETE FROM meta WHERE key = 'embed_ready' RETURNING 1");
    resetServer();
    const refilled = await engine.embed();
    expect(embeddedPaths()).toEqual([file(3)]);
    expect(refilled.embedding).toMatchObject({ embedded: gap.length, pending: 0 });
  });

  it('a no-change pass asks the provider for nothing and writes no embedding state', async () => {
    const state = (): string[] => sql<{ key: string; value: string }>("SELECT key, value FROM meta WHERE key LIKE 'embed%' ORDER BY key").map((r) => `${r.key}=${r.value}`);
    const before = state();
    const again = await engine.index();
    expect(again.filesIndexed).toBe(0);
    expect(again.embedding).toMatchObject({ embedded: 0, pending: 0 });
    expect(embeddedPaths()).toEqual([]);
    expect(state()).toEqual(before); // not even the state's time: the pass had nothing to do
  });

  it('keeps the queue across a failed pass and resumes with the queued files only', async () => {
    edit(11, ' // failed once');
    server.respond = () => ({ status: 500, body: JSON.stringify({ error: 'model crashed' }) });
    const failed = await engine.index({ paths: [file(11)] });
    expect(failed.embedding).toMatchObject({ error: { code: expect.stringMatching(/^EMBEDDING_/) } });
    expect(sql('SELECT q.file_id FROM embed_queue q JOIN files f ON f.id = q.file_id WHERE f.path = ?', file(11))).toHaveLength(1);

    resetServer();
    const resumed = await engine.embed();
    expect(embeddedPaths()).toEqual([file(11)]);
    expect(resumed.embedding).toMatchObject({ embedded: 1, pending: 0 });
    expect(sql('SELECT file_id FROM embed_queue')).toHaveLength(0);
  });

  it('a pass stopped halfway unqueues the files it got through: the next one embeds the rest only', async () => {
    const edited = Array.from({ length: 12 }, (_, k) => 14 + k);
    for (const i of edited) edit(i, ' // halfway');
    let batches = 0;
    server.respond = (r) => ((r.input ?? []).some((x) => x.startsWith('src/')) && batches++ >= 1 ? { status: 500, body: JSON.stringify({ error: 'model crashed' }) } : { ok: true, dimensions: DIMS });
    const failed = await engine.index();
    expect(failed.filesIndexed).toBe(edited.length);
    expect(failed.embedding).toMatchObject({ error: { code: expect.stringMatching(/^EMBEDDING_/) } });
    const done = embeddedPaths();
    const queued = sql<{ path: string }>('SELECT f.path FROM embed_queue q JOIN files f ON f.id = q.file_id ORDER BY f.path').map((r) => r.path);
    expect(done.length).toBeGreaterThan(0);
    expect(queued.length).toBeGreaterThan(0);
    expect(queued.length).toBeLessThan(edited.length);

    resetServer();
    const resumed = await engine.embed();
    expect(resumed.embedding).toMatchObject({ pending: 0 });
    const rest = embeddedPaths();
    expect(rest.every((p) => queued.includes(p))).toBe(true);
    expect(edited.map(file).filter((p) => !done.includes(p) && !rest.includes(p))).toEqual([]);
  });

  it('leaves stale vectors to a sweep that runs once the vectors added pass a share of the index', async () => {
    edit(12, ' // stale');
    await engine.index({ paths: [file(12)] });
    expect(staleVectors()).toBeGreaterThan(0); // the old text of compute12: no scan of every vector for one edit

    for (let i = 0; i < FILES; i++) edit(i, ' // rewritten');
    const rewritten = await engine.index();
    expect(rewritten.filesIndexed).toBe(FILES);
    expect(rewritten.embedding).toMatchObject({ pending: 0 });
    expect(staleVectors()).toBe(0);
  });

  it('a deleted file leaves the queue with its rows', async () => {
    edit(20, ' // queued');
    await engine.index({ paths: [file(20)], embed: false });
    unlinkSync(join(root, file(20)));
    const report = await engine.index({ embed: false });
    expect(report.filesRemoved).toBe(1);
    expect(sql("SELECT q.file_id FROM embed_queue q LEFT JOIN files f ON f.id = q.file_id WHERE f.id IS NULL")).toHaveLength(0);
    writeFileSync(join(root, file(20)), source(20));
    backdate(root, [file(20)], 60);
  });

  it('a model change queues every file and, once its vectors are complete, drops the old model', async () => {
    engine.close();
    engine = await open('other-embed');
    const report = await engine.index();
    expect(report.embedding).toMatchObject({ pending: 0, covered: engine.status().chunks });
    expect(embeddedPaths()).toEqual(Array.from({ length: FILES }, (_, i) => file(i)).sort());
    expect(sql<{ model: string }>('SELECT DISTINCT model FROM embeddings').map((r) => r.model)).toEqual([expect.stringMatching(/other-embed/)]);
    expect(engine.status().embeddings).toMatchObject({ covered: engine.status().chunks, pending: 0 });
  });
});

describe('under watch(), with the built-in model (the default provider)', () => {
  it('an edit is searchable after its pass, and an idle slice embeds the edited file, emptying the queue', async () => {
    const t = tempDir('scry-embed-queue-watch-');
    const root = join(t.dir, 'repo');
    const db = join(t.dir, 'index.db');
    writeTree(root, Object.fromEntries(Array.from({ length: 12 }, (_, i) => [file(i), source(i)])));
    backdate(root, Array.from({ length: 12 }, (_, i) => file(i)));
    const engine = await createEngine({ root, db, env: isolatedEnv(t.dir) });
    const passes: number[] = [];
    const watch = await engine.watch({ watch: { debounceMs: 50 }, onEvent: (e) => (e.type === 'pass-end' ? passes.push(e.report.filesIndexed) : undefined) });
    const queueSize = (): number => {
      const conn = openConnection(db, { readonly: true });
      try {
        return conn.prepare<[], { n: number }>('SELECT count(*) AS n FROM embed_queue').get()!.n;
      } finally {
        conn.close();
      }
    };
    try {
      await watch.ready();
      await watch.idle();
      await waitFor('the startup embedding to complete', () => queueSize() === 0 && engine.status().embeddings?.pending === 0);
      writeFileSync(join(root, file(5)), `${source(5)}// scryqueuedtoken\n`);
      await waitFor('the edit to be searchable', async () => (await engine.search('scryqueuedtoken', { limit: 3 })).results[0]?.path === file(5));
      expect(passes.at(-1)).toBe(1);
      await waitFor('the idle slice to embed the edit', () => queueSize() === 0 && engine.status().embeddings?.pending === 0);
      const status = engine.status();
      expect(status.embeddings).toMatchObject({ provider: 'builtin', covered: status.chunks, pending: 0 });
    } finally {
      await watch.close();
      engine.close();
      t.cleanup();
    }
  });
});
