/**
 * A throwaway PostgreSQL 15 cluster for the team-index tests and benchmarks (issue 23): initdb in
 * a temp dir, `postgres` listening on a unix socket in that dir only (no TCP port to collide on),
 * one database, everything removed by `stop()`. PostgreSQL refuses to run as root, so when this
 * process is root (CI, containers) the cluster runs as the unprivileged system user `scrypg`,
 * created on first use.
 *
 * Tests decide with `pgExpectation()`: `SCRY_TEST_PG=1` (set by .ci/run) means PostgreSQL must be
 * there and a missing binary fails the run; unset, the PG tests run when the binaries exist and
 * are skipped (visibly) when they do not; `SCRY_TEST_PG=0` skips them.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Where Debian's postgresql-15 puts its server binaries; `SCRY_PG_BIN` overrides. */
const DEFAULT_BIN_DIRS = ['/usr/lib/postgresql/15/bin', '/usr/lib/postgresql/16/bin', '/usr/lib/postgresql/17/bin'];
const PG_USER = 'scrypg';
const DB_NAME = 'scry';

export interface PgCluster {
  /** A `postgres://` URL for the cluster's database (unix socket in `host`). */
  readonly url: string;
  /** The socket directory (also the cluster's temp dir root). */
  readonly socketDir: string;
  /** Creates another empty database in the cluster and returns its URL. */
  createDatabase(name: string): string;
  /** Stops the server (fast shutdown) and removes every file of the cluster. */
  stop(): Promise<void>;
}

/** The directory holding initdb/postgres, or undefined when PostgreSQL is not installed. */
export function pgBinDir(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const dirs = env['SCRY_PG_BIN'] ? [env['SCRY_PG_BIN']] : DEFAULT_BIN_DIRS;
  return dirs.find((d) => existsSync(join(d, 'initdb')) && existsSync(join(d, 'postgres')));
}

/** 'required' (CI: fail when absent), 'auto' (run when installed) or 'off'. */
export function pgExpectation(env: NodeJS.ProcessEnv = process.env): 'required' | 'auto' | 'off' {
  const v = env['SCRY_TEST_PG'];
  if (v === '1') return 'required';
  if (v === '0') return 'off';
  return 'auto';
}

/**
 * Whether the PG tests of this file run: true when PostgreSQL is installed (and not switched off);
 * throws when `SCRY_TEST_PG=1` and it is absent, so CI can never skip them silently.
 */
export function pgTestsEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  const want = pgExpectation(env);
  if (want === 'off') return false;
  const bin = pgBinDir(env);
  if (bin) return true;
  if (want === 'required') throw new Error(`SCRY_TEST_PG=1 but no PostgreSQL server binaries in ${DEFAULT_BIN_DIRS.join(', ')} (set SCRY_PG_BIN, or apt-get install postgresql)`);
  return false;
}

const isRoot = (): boolean => typeof process.getuid === 'function' && process.getuid() === 0;

/** The uid/gid the cluster runs as: ours, or `scrypg`'s when we are root (created if missing). */
function clusterUser(): { uid: number; gid: number } | undefined {
  if (!isRoot()) return undefined;
  const lookup = (): string | undefined => {
    try {
      return execFileSync('id', ['-u', PG_USER], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    } catch {
      return undefined;
    }
  };
  if (lookup() === undefined) execFileSync('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', PG_USER], { stdio: 'ignore' });
  const uid = Number(execFileSync('id', ['-u', PG_USER], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', PG_USER], { encoding: 'utf8' }).trim());
  return { uid, gid };
}

/** Runs a PostgreSQL binary as the cluster user, synchronously. */
function runAs(user: { uid: number; gid: number } | undefined, bin: string, args: string[]): void {
  execFileSync(bin, args, { stdio: ['ignore', 'ignore', 'pipe'], ...(user ? { uid: user.uid, gid: user.gid } : {}), env: { ...process.env, LC_ALL: 'C', LANG: 'C' } });
}

/** Starts a fresh cluster; resolves once it accepts connections. */
export async function startPgCluster(env: NodeJS.ProcessEnv = process.env): Promise<PgCluster> {
  const bin = pgBinDir(env);
  if (!bin) throw new Error('PostgreSQL server binaries not found (set SCRY_PG_BIN)');
  const user = clusterUser();
  // short path: a unix socket path must fit in 107 bytes
  const root = mkdtempSync(join(tmpdir(), 'scrypg-'));
  const data = join(root, 'data');
  if (user) chownSync(root, user.uid, user.gid);
  chmodSync(root, 0o700);
  let server: ChildProcess | undefined;
  try {
    runAs(user, join(bin, 'initdb'), ['-D', data, '-U', DB_NAME, '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-sync', '--no-instructions']);
    writeFileSync(join(data, 'postgresql.auto.conf'), ["listen_addresses = ''", `unix_socket_directories = '${root}'`, 'fsync = off', 'synchronous_commit = off', 'full_page_writes = off', 'max_connections = 100', 'shared_buffers = 64MB', "log_min_messages = 'warning'"].join('\n') + '\n');
    if (user) chownSync(join(data, 'postgresql.auto.conf'), user.uid, user.gid);
    server = spawn(join(bin, 'postgres'), ['-D', data], { stdio: ['ignore', 'ignore', 'pipe'], ...(user ? { uid: user.uid, gid: user.gid } : {}), env: { ...process.env, LC_ALL: 'C', LANG: 'C' } });
    let log = '';
    server.stderr?.on('data', (d: Buffer) => (log = (log + d.toString()).slice(-4000)));
    await waitForServer(join(bin, 'pg_isready'), root, server, () => log);
    const url = (db: string): string => `postgres://${DB_NAME}@localhost/${db}?host=${encodeURIComponent(root)}`;
    const psql = join(bin, 'psql');
    const sql = (statement: string): void => runAs(user, psql, ['-h', root, '-U', DB_NAME, '-d', 'postgres', '-v', 'ON_ERROR_STOP=1', '-c', statement]);
    sql(`CREATE DATABASE ${DB_NAME}`);
    const proc = server;
    return {
      url: url(DB_NAME),
      socketDir: root,
      createDatabase(name: string): string {
        if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`bad database name ${name}`);
        sql(`CREATE DATABASE ${name}`);
        return url(name);
      },
      async stop(): Promise<void> {
        await stopServer(proc);
        rmSync(root, { recursive: true, force: true });
      },
    };
  } catch (err) {
    if (server) await stopServer(server);
    rmSync(root, { recursive: true, force: true });
    throw err;
  }
}

/** Polls `pg_isready` until the server accepts connections, or fails when it exits first. */
async function waitForServer(isReady: string, dir: string, server: ChildProcess, log: () => string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (server.exitCode !== null) throw new Error(`postgres exited (${server.exitCode}): ${log()}`);
    if (readdirSync(dir).some((f) => f === '.s.PGSQL.5432')) {
      try {
        execFileSync(isReady, ['-q', '-h', dir, '-U', DB_NAME, '-d', 'postgres'], { stdio: 'ignore' });
        return;
      } catch {
        // starting up
      }
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`postgres did not start within 30 s: ${log()}`);
}

/** SIGINT is PostgreSQL's "fast shutdown": clients are disconnected, then the server exits. */
async function stopServer(server: ChildProcess): Promise<void> {
  if (server.exitCode !== null || server.signalCode !== null) return;
  const exited = new Promise<void>((r) => server.once('exit', () => r()));
  server.kill('SIGINT');
  const timer = setTimeout(() => server.kill('SIGKILL'), 20_000);
  await exited;
  clearTimeout(timer);
}
