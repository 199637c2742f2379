/**
 * A push killed mid-way (issue 23): `scry push` runs as a real child process and is killed with
 * SIGKILL when the server sees its k-th request of a given step (the kill happens while that
 * request is in flight). Whatever the moment, searches keep answering from a whole revision: the
 * previous one when the kill came before the commit, and the revision left open is removed by the
 * stale-revision sweep.
 */
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPgTeamStore } from '../../../src/team/pg-team-store.js';
import type { RunningServer } from '../../../src/serve/serve-main.js';
import { pushLocalIndex } from '../../../src/serve/serve-main.js';
import { startCli } from '../../helpers/cli.js';
import { pgTestsEnabled, startPgCluster, type PgCluster } from '../../helpers/pg-cluster.js';
import { isolatedEnv, tempDir } from '../../helpers/temp.js';
import { ALPHA_FILES, indexRepo, search, startTestServer, TOKENS, writeRepo } from './serve-helpers.js';

/** Kill points: the step whose k-th request triggers the SIGKILL. */
const KILL_POINTS: readonly (readonly [step: string, nth: number])[] = [
  ['begin', 1],
  ['missing', 1],
  ['contents', 1],
  ['contents', 4],
  ['chunks', 2],
  ['chunks', 6],
  ['files', 2],
];

describe.runIf(pgTestsEnabled())('a push killed with SIGKILL leaves the previous revision served', () => {
  let cluster: PgCluster;
  let server: RunningServer;
  let t: ReturnType<typeof tempDir>;
  let env: Record<string, string>;
  let child: ChildProcess | undefined;
  let trigger: { step: string; nth: number; seen: number } | undefined;

  beforeAll(async () => {
    t = tempDir('scry-push-kill-');
    env = isolatedEnv(t.dir);
    cluster = await startPgCluster();
    server = await startTestServer(t.dir, cluster.url, {}, ({ path }) => {
      if (!trigger || !path.endsWith(`/api/push/${trigger.step}`)) return;
      if (++trigger.seen === trigger.nth) child?.kill('SIGKILL');
    });
    writeRepo(join(t.dir, 'alpha'), ALPHA_FILES);
    await indexRepo(join(t.dir, 'alpha'), join(t.dir, 'alpha.db'), env);
    await pushLocalIndex({ dbPath: join(t.dir, 'alpha.db'), server: server.url, repo: 'alpha', token: TOKENS.A });
  }, 120_000);

  afterAll(async () => {
    child?.kill('SIGKILL');
    await server?.close();
    await cluster?.stop();
    t?.cleanup();
  });

  it.each(KILL_POINTS.map((p, i) => [...p, i] as const))('killed at %s request #%i', async (step, nth, round) => {
    const before = await search(server.url, TOKENS.A, { repo: 'alpha', q: 'retryWithBackoff parseConfigFile' });
    // ten new files, so that a push with 1 KiB batches makes many requests of each step
    const word = `killround${round}word`;
    writeRepo(join(t.dir, 'alpha'), Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`src/new/file${round}_${i}.ts`, `export function ${word}${i}() {\n  return ${i}; // ${'padding '.repeat(40)}\n}\n`])));
    trigger = { step, nth, seen: 0 };
    child = startCli(['push', join(t.dir, 'alpha'), '--db', join(t.dir, 'alpha.db'), '--server', server.url, '--repo', 'alpha', '--batch-kb', '1', '--json'], { cwd: t.dir, env: { ...env, SCRY_TOKEN: TOKENS.A } });
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => void (stderr += d.toString()));
    const [code, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
    expect(signal, `the push finished before the kill point (exit ${code}): ${stderr}`).toBe('SIGKILL');
    expect(trigger.seen).toBeGreaterThanOrEqual(nth);
    trigger = undefined;

    const after = await search(server.url, TOKENS.A, { repo: 'alpha', q: 'retryWithBackoff parseConfigFile' });
    expect(after.status).toBe(200);
    expect(after.body.meta.repos).toEqual(before.body.meta.repos);
    expect(after.body.results).toEqual(before.body.results);
    expect((await search(server.url, TOKENS.A, { repo: 'alpha', q: `${word}0` })).body.results).toEqual([]);

    const store = openPgTeamStore(cluster.url);
    try {
      // the revision the dead push opened (a kill as `begin` arrives may come before its body did)
      const swept = await store.gc({ olderThanMs: 0 });
      if (step === 'begin') expect(swept.revisions).toBeLessThanOrEqual(1);
      else expect(swept.revisions).toBe(1);
    } finally {
      await store.close();
    }
    expect((await search(server.url, TOKENS.A, { repo: 'alpha', q: 'retryWithBackoff parseConfigFile' })).body.results).toEqual(before.body.results);
  }, 120_000);

  it('a push that is not killed then commits the whole tree', async () => {
    const done = await pushLocalIndex({ dbPath: join(t.dir, 'alpha.db'), server: server.url, repo: 'alpha', token: TOKENS.A });
    expect(done.files).toBe(3 + 10 * KILL_POINTS.length);
    for (let round = 0; round < KILL_POINTS.length; round++) {
      const r = await search(server.url, TOKENS.A, { repo: 'alpha', q: `killround${round}word9` });
      expect(r.body.results.map((h: { path: string }) => h.path)).toContain(`src/new/file${round}_9.ts`);
    }
  });
});
