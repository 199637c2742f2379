import { spawnSync } from 'node:child_process';
import { readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WriterLock, isStale } from '../../src/store/writer-lock.js';
import { fileURLToPath } from 'node:url';
import { startScript } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';

const BEATER = fileURLToPath(new URL('../helpers/lock-beater.ts', import.meta.url));

/** A pid that certainly belongs to no live process: a child that has already exited. */
function deadPid(): number {
  return spawnSync(process.execPath, ['-e', '0']).pid!;
}

describe('WriterLock', () => {
  let t: ReturnType<typeof tempDir>;
  beforeEach(() => {
    t = tempDir();
  });
  afterEach(() => t.cleanup());

  it('is exclusive: a second acquirer times out with INDEX_LOCKED naming the owner', async () => {
    const path = join(t.dir, 'db.lock');
    const a = new WriterLock(path);
    await a.acquire({ timeoutMs: 0 });
    const b = new WriterLock(path);
    const waits: number[] = [];
    await expect(b.acquire({ timeoutMs: 150, onWait: (o) => waits.push(o.pid) })).rejects.toMatchObject({ code: 'INDEX_LOCKED', data: { pid: process.pid } });
    expect(waits.length).toBeGreaterThan(0);
    a.release();
    await b.acquire({ timeoutMs: 0 });
    expect(b.held).toBe(true);
    b.release();
  });

  it('takes over a lock whose owner process is dead', async () => {
    const path = join(t.dir, 'db.lock');
    const now = Date.now();
    writeFileSync(path, JSON.stringify({ pid: deadPid(), host: hostname(), token: 'old', acquiredAt: now, heartbeatAt: now }));
    const lock = new WriterLock(path);
    await lock.acquire({ timeoutMs: 0 });
    expect(JSON.parse(readFileSync(path, 'utf8')).pid).toBe(process.pid);
    lock.release();
  });

  it('takes over a lock whose heartbeat stopped, even if the pid is alive', async () => {
    const path = join(t.dir, 'db.lock');
    writeFileSync(path, JSON.stringify({ pid: process.pid, host: hostname(), token: 'old', acquiredAt: 0, heartbeatAt: Date.now() - 60_000 }));
    const lock = new WriterLock(path);
    await lock.acquire({ timeoutMs: 0, staleMs: 30_000 });
    expect(lock.held).toBe(true);
    lock.release();
  });

  it('treats an unreadable lock file as stale', () => {
    expect(isStale(undefined, Date.now(), 1000)).toBe(true);
  });

  it('release only removes its own lock', async () => {
    const path = join(t.dir, 'db.lock');
    const lock = new WriterLock(path);
    await lock.acquire({ timeoutMs: 0 });
    writeFileSync(path, JSON.stringify({ pid: 1, host: 'elsewhere', token: 'theirs', acquiredAt: Date.now(), heartbeatAt: Date.now() }));
    lock.release();
    expect(JSON.parse(readFileSync(path, 'utf8')).token).toBe('theirs');
  });

  it('tryAcquire never waits: it takes the lock with the owner info, or returns the live owner', () => {
    const path = join(t.dir, 'db.lock');
    const a = new WriterLock(path);
    expect(a.tryAcquire({ owner: { endpoint: '/tmp/x.sock', role: 'watch' } })).toBeUndefined();
    expect(JSON.parse(readFileSync(path, 'utf8'))).toMatchObject({ pid: process.pid, endpoint: '/tmp/x.sock', role: 'watch' });
    const b = new WriterLock(path);
    expect(b.tryAcquire()).toMatchObject({ pid: process.pid, role: 'watch' });
    expect(b.held).toBe(false);
    a.release();
    expect(b.tryAcquire()).toBeUndefined();
    b.release();
  });

  it('does not break a lock file that is still being written (empty, but only just created)', () => {
    const path = join(t.dir, 'db.lock');
    writeFileSync(path, '');
    const lock = new WriterLock(path);
    expect(lock.tryAcquire()).toMatchObject({ pid: 0 });
    expect(lock.held).toBe(false);
    const old = new Date(Date.now() - 5000);
    utimesSync(path, old, old);
    expect(lock.tryAcquire()).toBeUndefined(); // an old unreadable file is stale
    lock.release();
  });

  it('stops waiting when its signal aborts', async () => {
    const path = join(t.dir, 'db.lock');
    const a = new WriterLock(path);
    await a.acquire({ timeoutMs: 0 });
    const controller = new AbortController();
    const waiting = new WriterLock(path).acquire({ timeoutMs: 60_000, signal: controller.signal });
    setTimeout(() => controller.abort(new Error('stop')), 50);
    await expect(waiting).rejects.toThrow('stop');
    a.release();
  });

  it('never shows a reader a torn lock file while its owner heartbeats (the heartbeat replaces the file whole)', async () => {
    const path = join(t.dir, 'beat.lock');
    const child = startScript(BEATER, [path], { cwd: t.dir, env: {} });
    try {
      await new Promise<void>((resolve, reject) => {
        child.stdout!.on('data', (c: Buffer) => c.toString().includes('ready') && resolve());
        child.once('exit', (code) => reject(new Error(`the beater exited (${code})`)));
      });
      const reader = new WriterLock(path);
      let torn = 0;
      // bounded by count: ~20 000 reads span many heartbeats of 1 ms
      for (let i = 0; i < 20_000; i++) {
        if (reader.peek() === undefined) torn++;
        if (i % 500 === 0) await new Promise((r) => setImmediate(r));
      }
      expect(torn).toBe(0);
    } finally {
      child.kill('SIGKILL');
    }
  });
});

