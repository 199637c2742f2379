/**
 * The handoff protocol between a process that wants a pass and the writer of the index: real
 * Unix sockets in a temp dir, a real WriterLease. Malformed requests must never reach the owner.
 */
import { statSync } from 'node:fs';
import { createConnection } from 'node:net';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { waitFor } from '../../helpers/wait.js';
import type { IndexReport } from '../../../src/index.js';
import { silentLogger } from '../../../src/core/logger.js';
import { endpointFor, HandoffUnavailable, parseRequest, requestIndex, serveHandoff, type ServedRequest } from '../../../src/freshness/handoff.js';
import { WriterLease } from '../../../src/freshness/lease.js';
import { WriterLock } from '../../../src/store/writer-lock.js';
import { tempDir } from '../../helpers/temp.js';

const REPORT = { filesSeen: 3, filesIndexed: 1 } as IndexReport;

/** Sends raw bytes and collects every line the server answers until it hangs up. */
function rawExchange(endpoint: string, payload: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const socket = createConnection(endpoint, () => socket.end(payload));
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (c: string) => (text += c));
    socket.on('error', reject);
    socket.on('close', () => resolve(text.split('\n').filter(Boolean)));
  });
}

describe('handoff', () => {
  let t: ReturnType<typeof tempDir>;
  beforeEach(() => {
    t = tempDir('scry-handoff-');
  });
  afterEach(() => t.cleanup());

  it('puts the endpoint beside the database, or under tmpdir when that path is too long for a socket', () => {
    expect(endpointFor('/tmp/x/index.db')).toBe('/tmp/x/index.db.sock');
    const long = `/tmp/${'d'.repeat(120)}/index.db`;
    expect(endpointFor(long)).toMatch(/scry-[0-9a-f]{16}\.sock$/);
    expect(endpointFor(long)).toBe(endpointFor(long));
  });

  it('runs a request in the owner and streams accepted, progress and done back', async () => {
    const endpoint = join(t.dir, 'db.sock');
    const seen: ServedRequest[] = [];
    const server = await serveHandoff(endpoint, { role: 'watch' }, (served) => {
      seen.push(served);
      served.send({ type: 'progress', progress: { phase: 'index', filesDone: 1, filesTotal: 2, bytesDone: 0, bytesTotal: 0 } });
      served.send({ type: 'done', report: REPORT });
    });
    try {
      expect(statSync(endpoint).mode & 0o777).toBe(0o600);
      const progress: number[] = [];
      let owner: { pid: number; role: string } | undefined;
      const report = await requestIndex(endpoint, { paths: ['a.ts'] }, { onAccepted: (o) => (owner = o), onProgress: (p) => progress.push(p.filesDone) });
      expect(report).toEqual(REPORT);
      expect(owner).toEqual({ pid: process.pid, role: 'watch' });
      expect(progress).toEqual([1]);
      expect(seen[0]!.request).toEqual({ paths: ['a.ts'], rebuild: undefined });
    } finally {
      await server.close();
    }
  });

  it('rethrows the owner\'s engine error with its code and data', async () => {
    const endpoint = join(t.dir, 'db.sock');
    const server = await serveHandoff(endpoint, { role: 'index' }, (served) => served.send({ type: 'error', code: 'PATH_OUTSIDE_ROOT', message: 'x', data: { path: '../x' } }));
    try {
      await expect(requestIndex(endpoint, { paths: ['../x'] })).rejects.toMatchObject({ code: 'PATH_OUTSIDE_ROOT', data: { path: '../x' } });
    } finally {
      await server.close();
    }
  });

  it('reports an unreachable or vanished owner as HandoffUnavailable, so the requester takes the lock', async () => {
    await expect(requestIndex(join(t.dir, 'nobody.sock'), {})).rejects.toBeInstanceOf(HandoffUnavailable);
    const endpoint = join(t.dir, 'db.sock');
    let served: ServedRequest | undefined;
    const server = await serveHandoff(endpoint, { role: 'watch' }, (s) => (served = s));
    const pending = requestIndex(endpoint, {});
    while (!served) await new Promise((r) => setTimeout(r, 5));
    await server.close(); // the owner exits before answering
    await expect(pending).rejects.toBeInstanceOf(HandoffUnavailable);
  });

  it('answers malformed requests with INVALID_ARGUMENT and never hands them to the owner', async () => {
    const endpoint = join(t.dir, 'db.sock');
    let handed = 0;
    const server = await serveHandoff(endpoint, { role: 'watch' }, (s) => {
      handed++;
      s.send({ type: 'done', report: REPORT });
    });
    try {
      for (const payload of ['not json\n', '{"op":"delete"}\n', '{"op":"index","paths":"a"}\n', '{"op":"index","rebuild":"yes"}\n', '[1,2]\n', 'null\n']) {
        const lines = await rawExchange(endpoint, payload);
        expect(lines).toHaveLength(1);
        expect(JSON.parse(lines[0]!)).toMatchObject({ type: 'error', code: 'INVALID_ARGUMENT' });
      }
      expect(handed).toBe(0);
    } finally {
      await server.close();
    }
  });

  it('parseRequest accepts exactly {op:"index", paths?: string[], rebuild?: boolean} (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const line = JSON.stringify(value);
        let parsed: unknown;
        try {
          parsed = parseRequest(line);
        } catch (err) {
          expect((err as { code?: string }).code).toBe('INVALID_ARGUMENT');
          return;
        }
        const v = value as { op?: unknown; paths?: unknown; rebuild?: unknown };
        expect(v.op).toBe('index');
        expect(parsed).toEqual({ paths: v.paths, rebuild: v.rebuild });
        if (v.paths !== undefined) expect((v.paths as unknown[]).every((p) => typeof p === 'string')).toBe(true);
      }),
      { numRuns: 500 },
    );
  });
});

describe('WriterLease', () => {
  let t: ReturnType<typeof tempDir>;
  beforeEach(() => {
    t = tempDir('scry-lease-');
  });
  afterEach(() => t.cleanup());

  it('is held by one lease at a time; the other sees the owner and its endpoint', async () => {
    const lockPath = join(t.dir, 'db.lock');
    const a = new WriterLease(new WriterLock(lockPath), join(t.dir, 'a.sock'), silentLogger);
    const b = new WriterLease(new WriterLock(lockPath), join(t.dir, 'b.sock'), silentLogger);
    expect(await a.tryAcquire('watch')).toBeUndefined();
    const owner = await b.tryAcquire('index');
    expect(owner).toMatchObject({ pid: process.pid, role: 'watch', endpoint: join(t.dir, 'a.sock') });
    expect(b.held).toBe(false);
    await a.release();
    expect(await b.tryAcquire('index')).toBeUndefined();
    await b.release();
  });

  it('queues requests for the holder, skips abandoned ones, and hangs up on the rest when released', async () => {
    const lockPath = join(t.dir, 'db.lock');
    const endpoint = join(t.dir, 'a.sock');
    const lease = new WriterLease(new WriterLock(lockPath), endpoint, silentLogger);
    let arrived = 0;
    lease.onRequest = () => arrived++;
    await lease.tryAcquire('index');
    const abandon = new AbortController();
    const first = requestIndex(endpoint, { paths: ['gone.ts'] }, { signal: abandon.signal });
    const second = requestIndex(endpoint, { paths: ['kept.ts'] });
    const third = requestIndex(endpoint, { paths: ['late.ts'] });
    while (arrived < 3) await new Promise((r) => setTimeout(r, 5));
    abandon.abort();
    await expect(first).rejects.toThrow();
    await waitFor('the hang-up to reach the server', () => lease.queued === 2);
    // requests arrive in any order; the abandoned one is never handed out
    const taken = [lease.takeRequest(), lease.takeRequest()];
    expect(taken.map((s) => s?.request.paths?.[0]).sort()).toEqual(['kept.ts', 'late.ts']);
    expect(lease.takeRequest()).toBeUndefined();
    taken[0]!.send({ type: 'done', report: REPORT });
    await lease.release();
    const outcomes = await Promise.allSettled([second, third]);
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    expect(outcomes.filter((o) => o.status === 'rejected').map((o) => (o as PromiseRejectedResult).reason)).toEqual([expect.any(HandoffUnavailable)]);
  });
});
