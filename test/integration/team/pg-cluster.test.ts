/**
 * The throwaway PostgreSQL cluster the team-index tests use (test/helpers/pg-cluster.ts): it runs
 * as a non-root user, accepts connections through its socket, and leaves nothing behind.
 */
import { existsSync, statSync } from 'node:fs';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgExpectation, pgTestsEnabled, startPgCluster, type PgCluster } from '../../helpers/pg-cluster.js';

describe.runIf(pgTestsEnabled())('PostgreSQL test cluster', () => {
  let cluster: PgCluster;
  beforeAll(async () => {
    cluster = await startPgCluster();
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  it('serves a database with pg_trgm, run by a non-root user, and is removed by stop()', async () => {
    const client = new pg.Client({ connectionString: cluster.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ v: number }>("SELECT current_setting('server_version_num')::int AS v");
      expect(rows[0]!.v).toBeGreaterThanOrEqual(150000);
      await client.query('CREATE EXTENSION IF NOT EXISTS pg_trgm');
      const sim = await client.query<{ s: number }>("SELECT similarity('parseConfig', 'parseConfigFile') AS s");
      expect(sim.rows[0]!.s).toBeGreaterThan(0.5);
    } finally {
      await client.end();
    }
    // the data directory belongs to the cluster user, never root
    const owner = statSync(cluster.socketDir).uid;
    expect(owner).not.toBe(0);
    const other = cluster.createDatabase('second_db');
    const c2 = new pg.Client({ connectionString: other });
    await c2.connect();
    expect((await c2.query<{ d: string }>('SELECT current_database() AS d')).rows[0]!.d).toBe('second_db');
    await c2.end();
    const dir = cluster.socketDir;
    await cluster.stop();
    expect(existsSync(dir)).toBe(false);
    cluster = undefined as unknown as PgCluster;
  });
});

describe('PostgreSQL test switch', () => {
  it('fails rather than skips when SCRY_TEST_PG=1 and PostgreSQL is absent', () => {
    expect(pgExpectation({ SCRY_TEST_PG: '1' })).toBe('required');
    expect(() => pgTestsEnabled({ SCRY_TEST_PG: '1', SCRY_PG_BIN: '/nonexistent' })).toThrow(/SCRY_TEST_PG=1/);
    expect(pgTestsEnabled({ SCRY_TEST_PG: '0' })).toBe(false);
    expect(pgTestsEnabled({ SCRY_PG_BIN: '/nonexistent' })).toBe(false);
  });
});
