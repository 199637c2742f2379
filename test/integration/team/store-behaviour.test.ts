/**
 * Search behaviour both stores share (issue 23), one table of cases run against the SQLite store
 * (the engine, lexical mode) and the PostgreSQL team store holding a push of the same index.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EngineError } from '../../../src/core/errors.js';
import { createEngine, type Engine, type SearchResult } from '../../../src/index.js';
import { openPgTeamStore } from '../../../src/team/pg-team-store.js';
import { pushToStore } from '../../../src/team/push-local.js';
import { readPushSource } from '../../../src/team/push-source.js';
import type { TeamStore } from '../../../src/team/team-store.js';
import { writeSmallRepo } from '../../helpers/fixture-repo.js';
import { pgTestsEnabled, startPgCluster, type PgCluster } from '../../helpers/pg-cluster.js';
import { tempDir } from '../../helpers/temp.js';

interface Options {
  readonly k?: number;
  readonly files?: boolean;
  readonly explain?: boolean;
  readonly path?: string;
  readonly language?: string;
  readonly type?: string;
}
interface Outcome {
  readonly results: readonly SearchResult[];
  readonly dropped: readonly { readonly raw: string; readonly reason: string }[];
}
type Backend = (q: string, o: Options) => Promise<Outcome>;

const backends: Record<string, { search?: Backend }> = { sqlite: {}, postgres: {} };

async function failure(fn: () => Promise<unknown>): Promise<string> {
  try {
    await fn();
  } catch (err) {
    return err instanceof EngineError ? err.code : String(err);
  }
  return 'none';
}

describe.runIf(pgTestsEnabled())('search behaviour shared by both stores', () => {
  const tmp = tempDir('scry-team-both-');
  let cluster: PgCluster;
  let engine: Engine;
  let store: TeamStore;

  beforeAll(async () => {
    const root = join(tmp.dir, 'repo');
    writeSmallRepo(root);
    const db = join(tmp.dir, 'index.db');
    engine = await createEngine({ root, db, env: {} });
    await engine.index();
    cluster = await startPgCluster();
    store = openPgTeamStore(cluster.url);
    await store.migrate();
    const source = readPushSource(db);
    await pushToStore(store, 'small', source).finally(() => source.close());
    backends['sqlite']!.search = async (q, o) => {
      const r = await engine.search(q, { mode: 'lexical', limit: o.k ?? 10, files: o.files, explain: o.explain, path: o.path, language: o.language, type: o.type });
      return { results: r.results, dropped: r.meta.droppedTerms };
    };
    backends['postgres']!.search = async (q, o) => {
      const r = await store.search(q, { repos: ['small'], k: o.k ?? 10, files: o.files, explain: o.explain, filters: { path: o.path, language: o.language, type: o.type } });
      return { results: r.results, dropped: r.meta.droppedTerms };
    };
  });
  afterAll(async () => {
    engine?.close();
    await store?.close();
    await cluster?.stop();
    tmp.cleanup();
  });

  describe.each(Object.keys(backends))('%s store', (name) => {
    const search = (q: string, o: Options = {}): Promise<Outcome> => backends[name]!.search!(q, o);

    it('a path filter keeps only files under it', async () => {
      const { results } = await search('port config', { path: 'config' });
      expect(results.length).toBeGreaterThan(0);
      expect(results.every((r) => r.path.startsWith('config/'))).toBe(true);
    });

    it('a language filter (alias accepted) and a content-type filter', async () => {
      const py = await search('retry', { language: 'py' });
      expect([...new Set(py.results.map((r) => r.path))]).toEqual(['src/http/retry_policy.py']);
      const docs = await search('installation', { type: 'docs' });
      expect(docs.results.length).toBeGreaterThan(0);
      expect(docs.results.every((r) => r.contentType === 'docs')).toBe(true);
    });

    it('files mode gives one result per file, with its matching chunks counted', async () => {
      const { results } = await search('port', { files: true });
      expect(new Set(results.map((r) => r.path)).size).toBe(results.length);
      expect(results.every((r) => (r.matches ?? 0) >= 1)).toBe(true);
    });

    it('k caps the results; explain starts every trace with the BM25 score', async () => {
      expect((await search('port config database', { k: 2 })).results.length).toBe(2);
      const { results } = await search('database', { explain: true });
      expect(results.length).toBeGreaterThan(0);
      expect(results.every((r) => r.why?.[0]?.startsWith('bm25 '))).toBe(true);
    });

    it('a word the index lacks is dropped as not_in_index; an unknown language is refused', async () => {
      const { results, dropped } = await search('qwertyuiopzz');
      expect(results).toEqual([]);
      expect(dropped).toEqual([{ raw: 'qwertyuiopzz', reason: 'not_in_index' }]);
      expect(await failure(() => search('port', { language: 'klingon' }))).toBe('INVALID_ARGUMENT');
    });
  });
});
