/**
 * The commands themselves (issue 23): `scry serve` as a child process (migrations, the `--json`
 * ready line, /healthz, SIGTERM), refusing to start without tokens or on a too-new database, and
 * `scry push` as a child process with its exit codes.
 */
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { spawnCli, startCli } from '../../helpers/cli.js';
import { BIN, ensureFreshDist } from '../../helpers/fresh-dist.js';
import { pgTestsEnabled, startPgCluster, type PgCluster } from '../../helpers/pg-cluster.js';
import { isolatedEnv, tempDir } from '../../helpers/temp.js';
import { ALPHA_FILES, call, search, TOKEN_SCOPES, TOKENS, writeRepo } from './serve-helpers.js';

describe.runIf(pgTestsEnabled())('scry serve and scry push from the command line', () => {
  let cluster: PgCluster;
  let t: ReturnType<typeof tempDir>;
  let env: Record<string, string>;
  let serve: ChildProcess;
  let url: string;

  beforeAll(async () => {
    t = tempDir('scry-serve-cli-');
    env = isolatedEnv(t.dir);
    cluster = await startPgCluster();
    writeRepo(join(t.dir, 'alpha'), ALPHA_FILES);
    serve = startCli(['serve', '--db', cluster.url, '--port', '0', '--json'], { cwd: t.dir, env: { ...env, SCRY_SERVE_TOKENS: JSON.stringify(TOKEN_SCOPES) } });
    let stderr = '';
    serve.stderr?.on('data', (d: Buffer) => void (stderr += d.toString()));
    const ready = await new Promise<{ url: string; mcp: string; schema: number; migratedFrom: number; tokens: number }>((resolve, reject) => {
      let out = '';
      serve.stdout?.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('\n')) resolve(JSON.parse(out.split('\n')[0]!));
      });
      serve.once('exit', (code) => reject(new Error(`scry serve exited ${code}: ${stderr}`)));
    });
    expect(ready).toMatchObject({ migratedFrom: 0, tokens: 4 });
    expect(ready.schema).toBeGreaterThan(0);
    expect(ready.mcp).toBe(`${ready.url}/mcp`);
    url = ready.url;
  }, 120_000);

  afterAll(async () => {
    if (serve && serve.exitCode === null) {
      serve.kill('SIGKILL');
      await once(serve, 'exit');
    }
    await cluster?.stop();
    t?.cleanup();
  });

  const push = (token: string | undefined, server = url, repo = 'alpha') =>
    spawnCli(['push', join(t.dir, 'alpha'), '--db', join(t.dir, 'alpha.db'), '--server', server, '--repo', repo, '--json'], { cwd: t.dir, env: { ...env, ...(token ? { SCRY_TOKEN: token } : {}) } });

  it('answers /healthz, and a push with SCRY_TOKEN commits a revision', async () => {
    expect((await call(`${url}/healthz`, undefined)).body).toMatchObject({ ok: true });
    const r = push(TOKENS.A);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report).toMatchObject({ repo: 'alpha', files: 3, previous: null, skipped: { chunks: 0, contents: 0 } });
    expect((await search(url, TOKENS.A, { repo: 'alpha', q: 'retryWithBackoff' })).body.results[0].path).toBe('src/retry.ts');
  });

  it('push exits 6 without a token or without push access, 1 when the server is unreachable, 2 on a bad repository name', () => {
    const none = push(undefined);
    expect(none.code).toBe(6);
    expect(JSON.parse(none.stderr).error.code).toBe('AUTH_REQUIRED');
    const denied = push(TOKENS.B);
    expect(denied.code).toBe(6);
    expect(JSON.parse(denied.stderr).error.code).toBe('ACCESS_DENIED');
    const gone = push(TOKENS.A, 'http://127.0.0.1:9');
    expect(gone.code).toBe(1);
    expect(JSON.parse(gone.stderr).error.code).toBe('SERVER_FAILED');
    const bad = push(TOKENS.A, url, '../etc');
    expect(bad.code).toBe(2);
    expect(JSON.parse(bad.stderr).error.code).toBe('INVALID_ARGUMENT');
  });

  it('serve refuses to start without any token (CONFIG_INVALID, exit 2) and on a database a newer scry migrated (TEAM_DB_TOO_NEW, exit 5)', async () => {
    const noTokens = spawnCli(['serve', '--db', cluster.url, '--port', '0'], { cwd: t.dir, env });
    expect(noTokens.code).toBe(2);
    expect(noTokens.stderr).toContain('CONFIG_INVALID');
    const newer = cluster.createDatabase('newer');
    const client = new pg.Client({ connectionString: newer });
    await client.connect();
    await client.query("CREATE TABLE scry_team_meta (key text PRIMARY KEY, value text NOT NULL); INSERT INTO scry_team_meta VALUES ('schema_version', '999')");
    await client.end();
    const config = join(t.dir, 'serve.json');
    writeFileSync(config, JSON.stringify({ serve: { tokens: TOKEN_SCOPES } }));
    const tooNew = spawnCli(['serve', '--db', newer, '--port', '0', '--config', config], { cwd: t.dir, env });
    expect(tooNew.code).toBe(5);
    expect(tooNew.stderr).toContain('TEAM_DB_TOO_NEW');
  });

  it('the bundled CLI (bin/scry.js) loads serve and reports an unreachable database as TEAM_DB_FAILED (exit 5)', () => {
    ensureFreshDist();
    const r = spawnSync(process.execPath, [BIN, 'serve', '--db', `postgres://scry@localhost/scry?host=${encodeURIComponent(join(t.dir, 'no-socket-here'))}`, '--port', '0', '--json'], {
      cwd: t.dir,
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', ...env, SCRY_SERVE_TOKENS: JSON.stringify(TOKEN_SCOPES) },
      timeout: 60_000,
    });
    expect(r.status, r.stderr).toBe(5);
    expect(JSON.parse(r.stderr).error.code).toBe('TEAM_DB_FAILED');
  }, 300_000);

  it('stops on SIGTERM with exit code 0', async () => {
    serve.kill('SIGTERM');
    const [code] = (await once(serve, 'exit')) as [number | null];
    expect(code).toBe(0);
  });
});
