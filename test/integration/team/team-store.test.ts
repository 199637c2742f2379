/**
 * The team store (issue 23) over a real PostgreSQL cluster: a local SQLite index pushed into it
 * and searched; the same searches through the SQLite engine give the same results.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../../src/index.js';
import { openPgTeamStore } from '../../../src/team/pg-team-store.js';
import { pushToStore } from '../../../src/team/push-local.js';
import { readPushSource } from '../../../src/team/push-source.js';
import type { TeamStore } from '../../../src/team/team-store.js';
import { writeSmallRepo } from '../../helpers/fixture-repo.js';
import { pgTestsEnabled, startPgCluster, type PgCluster } from '../../helpers/pg-cluster.js';
import { tempDir } from '../../helpers/temp.js';

describe.runIf(pgTestsEnabled())('team store on PostgreSQL', () => {
  let cluster: PgCluster;
  let store: TeamStore;
  let engine: Engine;
  let db: string;
  const tmp = tempDir('scry-team-');

  beforeAll(async () => {
    cluster = await startPgCluster();
    store = openPgTeamStore(cluster.url);
    await store.migrate();
    const root = join(tmp.dir, 'repo');
    writeSmallRepo(root);
    db = join(tmp.dir, 'index.db');
    engine = await createEngine({ root, db, env: {} });
    await engine.index();
  });
  afterAll(async () => {
    engine?.close();
    await store?.close();
    await cluster?.stop();
    tmp.cleanup();
  });

  it('pushes an index and ranks exactly as the SQLite store does', async () => {
    const source = readPushSource(db);
    try {
      const pushed = await pushToStore(store, 'small', source);
      expect(pushed.files).toBe(source.manifest.files.length);
      expect(pushed.chunks).toBeGreaterThan(0);
    } finally {
      source.close();
    }
    for (const q of ['open database wal', 'retry backoff', 'parse config loader', 'busy_timeout', 'exponential']) {
      const local = await engine.search(q, { limit: 10, mode: 'lexical' });
      const team = await store.search(q, { repos: ['small'], k: 10 });
      expect(team.results.map((r) => [r.path, r.startLine, r.score]), q).toEqual(local.results.map((r) => [r.path, r.startLine, r.score]));
      expect(team.meta.terms).toEqual(local.meta.terms);
      expect(team.results.every((r) => r.repo === 'small')).toBe(true);
    }
  });
});
