import { openConnection } from '../../src/store/driver.js';
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEngine, type Engine, type IndexProgress } from '../../src/index.js';
import { backdate, writeSmallRepo } from '../helpers/fixture-repo.js';
import { isolatedEnv, tempDir } from '../helpers/temp.js';

describe('engine: index, search, status', () => {
  let t: ReturnType<typeof tempDir>;
  let root: string;
  let engine: Engine;

  beforeEach(async () => {
    t = tempDir();
    root = join(t.dir, 'repo with spaces é');
    mkdirSync(root);
    writeSmallRepo(root);
    engine = await createEngine({ root, env: isolatedEnv(t.dir) });
  });
  afterEach(() => {
    engine.close();
    t.cleanup();
  });

  it('keeps the database outside the repository by default', () => {
    expect(engine.dbPath.startsWith(join(t.dir, 'cache'))).toBe(true);
    expect(engine.dbPath.startsWith(root)).toBe(false);
  });

  it('indexes, reports progress, and finds code by identifier and by words', async () => {
    const events: IndexProgress[] = [];
    const report = await engine.index({ onProgress: (e) => events.push(e) });
    expect(report.filesIndexed).toBe(6);
    expect(events[0]!.phase).toBe('scan');
    expect(events.at(-1)!.phase).toBe('done');

    const byId = await engine.search('openDatabase');
    expect(byId.results[0]).toMatchObject({ path: 'src/db/open-database.ts', language: 'typescript', contentType: 'code', symbol: 'openDatabase', kind: 'function' });
    expect(byId.results[0]!.snippet).toContain('«openDatabase»');
    // the default: hybrid with the built-in model, which an identifier query does not use
    expect(byId.meta.mode).toBe('lexical');
    expect(byId.meta.semantic).toBe('lexical: identifier query (the vector blend is for natural queries)');

    // "retry backoff" must find retry_with_backoff through its split identifier
    const byWords = await engine.search('retry with exponential backoff');
    expect(byWords.results[0]!.path).toBe('src/http/retry_policy.py');

    // camelCase file stem: "config loader" finds configLoader.ts
    const byPath = await engine.search('config loader', { files: true });
    expect(byPath.results[0]!.path).toBe('src/parse/configLoader.ts');
  });

  it('filters by path glob, language and content type', async () => {
    await engine.index();
    const docs = await engine.search('configuration port', { type: 'docs' });
    expect(docs.results.map((r) => r.path)).toEqual(['docs/guide.md']);
    expect(docs.results[0]!.symbol).toBe('Configuration');
    expect(docs.results[0]!.container).toBe('Guide');
    const py = await engine.search('retry', { language: 'py' });
    expect(py.results.every((r) => r.language === 'python')).toBe(true);
    const glob = await engine.search('port', { path: ['*.yaml'] });
    expect(glob.results.map((r) => r.path)).toEqual(['config/app.yaml']);
    const prefix = await engine.search('port', { path: 'src/parse' });
    expect(prefix.results.map((r) => r.path)).toEqual(['src/parse/configLoader.ts']);
    await expect(engine.search('port', { type: 'binary' })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(engine.search('port', { language: 'klingon' })).rejects.toThrow(/unknown language "klingon"; use one of .*typescript/);
  });

  it('is incremental: unchanged, touched, changed, deleted and renamed files', async () => {
    await engine.index();
    const again = await engine.index();
    expect(again).toMatchObject({ filesIndexed: 0, filesTouched: 0, filesUnchanged: 6, filesRemoved: 0 });

    // same content, new mtime: only the stat is updated
    backdate(root, ['README.md'], 1800);
    expect(await engine.index()).toMatchObject({ filesIndexed: 0, filesTouched: 1 });

    writeFileSync(join(root, 'src/parse/configLoader.ts'), 'export function loadSettingsFromEnvironment() { return zebraQuokka; }\n');
    backdate(root, ['src/parse/configLoader.ts'], 600);
    expect(await engine.index()).toMatchObject({ filesIndexed: 1 });
    expect((await engine.search('zebraQuokka')).results[0]!.path).toBe('src/parse/configLoader.ts');
    expect((await engine.search('parseConfigFile')).results).toHaveLength(0);

    rmSync(join(root, 'config/app.yaml'));
    expect(await engine.index()).toMatchObject({ filesRemoved: 1 });
    expect((await engine.search('retries', { type: 'config' })).results).toHaveLength(0);

    renameSync(join(root, 'src/http/retry_policy.py'), join(root, 'src/http/backoff.py'));
    const renamed = await engine.index();
    expect(renamed).toMatchObject({ filesRemoved: 1, filesIndexed: 1 });
    expect((await engine.search('retry_with_backoff')).results[0]!.path).toBe('src/http/backoff.py');
    const status = engine.status();
    expect(status.files).toBe(5);
  });

  it('re-chunks every file when the stored feature version differs', async () => {
    await engine.index();
    engine.close();
    const raw = openConnection(engine.dbPath);
    raw.exec('UPDATE files SET feature_version = 0');
    raw.close();
    const again = await createEngine({ root, env: isolatedEnv(t.dir) });
    expect(await again.index()).toMatchObject({ filesIndexed: 6 });
    again.close();
    engine = await createEngine({ root, env: isolatedEnv(t.dir) });
  });

  it('opens an index from --db alone, using the root recorded in it', async () => {
    await engine.index();
    const fromDb = await createEngine({ db: engine.dbPath, env: isolatedEnv(t.dir) });
    expect(fromDb.root).toBe(engine.root);
    expect((await fromDb.search('openDatabase')).results[0]!.path).toBe('src/db/open-database.ts');
    fromDb.close();
  });

  it('handles a 50 KB stack-trace-like query by keeping its most informative terms', async () => {
    await engine.index();
    const frames = Array.from({ length: 400 }, (_, i) => `    at Object.handler${i} (node:internal/process/task_queues:${i}:5)`).join('\n');
    const query = `Error: SQLITE_BUSY when calling openDatabase\n${frames}`.slice(0, 50 * 1024);
    const r = await engine.search(query);
    expect(r.meta.longQuery).toBe(true);
    expect(r.meta.terms.length).toBeLessThanOrEqual(40);
    expect(r.results[0]!.path).toBe('src/db/open-database.ts');
  });

  it('status reports counts, capabilities and the default hybrid mode (the built-in model embeds in the pass)', async () => {
    expect(engine.status().indexed).toBe(false);
    await engine.index();
    const s = engine.status();
    expect(s).toMatchObject({ indexed: true, files: 6, featureVersionCurrent: true, capabilities: { lexical: true, semantic: true }, writer: null });
    expect(s.embeddings).toMatchObject({ provider: 'builtin', model: 'scry-code-nbow', pending: 0 });
    expect(s.languages).toMatchObject({ typescript: 2, python: 1, markdown: 2, yaml: 1 });
    expect(s.dbBytes).toBeGreaterThan(0);
  });
});

describe('engine: files refused for their content', () => {
  it('are remembered by size and mtime, and re-read only when they change', async () => {
    const t = tempDir();
    try {
      const root = join(t.dir, 'repo');
      const minified = `var a=${'1+'.repeat(15_000)}1;`; // one 30 KB line: minified
      writeSmallRepo(root, { 'vendor/blob.js': minified });
      const engine = await createEngine({ root, env: isolatedEnv(t.dir) });
      expect((await engine.index()).skipped.minified).toBe(1);
      // same size and mtime, different bytes: trusted like any unchanged file, so not read again
      const same = `var b=${'2+'.repeat(15_000)}2;`;
      writeFileSync(join(root, 'vendor/blob.js'), same);
      backdate(root, ['vendor/blob.js']);
      const second = await engine.index();
      expect(second.skipped.minified).toBe(1);
      expect(second.filesIndexed).toBe(0);
      // a real change (new mtime) is read again, and now indexed
      writeFileSync(join(root, 'vendor/blob.js'), 'export const readable = true;\n');
      backdate(root, ['vendor/blob.js'], 600);
      const third = await engine.index();
      expect(third.skipped.minified).toBeUndefined();
      expect(third.filesIndexed).toBe(1);
      expect((await engine.search('readable')).results[0]!.path).toBe('vendor/blob.js');
      engine.close();
    } finally {
      t.cleanup();
    }
  });
});
