import { describe, expect, it } from 'vitest';
import { EngineError, type IndexOptions, type IndexProgress, type IndexReport } from '../../../src/index.js';
import { IndexRefresher, REFRESHING_WARNING, type IndexingEngine } from '../../../src/mcp/refresh.js';

const REPORT = {} as IndexReport;
const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

/** An engine whose passes run until the test ends them. */
function fakeEngine(indexed: boolean) {
  const passes: Array<{ options: IndexOptions; finish: (err?: unknown) => void }> = [];
  const engine: IndexingEngine = {
    isIndexed: () => indexed,
    index: (options: IndexOptions = {}) =>
      new Promise<IndexReport>((resolve, reject) => {
        passes.push({
          options,
          finish: (err) => {
            if (err === undefined) indexed = true;
            return err === undefined ? resolve(REPORT) : reject(err);
          },
        });
      }),
  };
  return { engine, passes, last: () => passes.at(-1)! };
}

function clock() {
  let now = 1_000_000;
  return { now: () => now, advance: (ms: number) => void (now += ms) };
}

describe('IndexRefresher', () => {
  it('makes calls wait for the first pass when there is no index, forwarding its progress', async () => {
    const { engine, last } = fakeEngine(false);
    const r = new IndexRefresher(engine);
    r.start();
    const events: IndexProgress[] = [];
    let done = false;
    const waiting = r.ready({ onProgress: (e) => events.push(e) }).then(() => (done = true));
    await tick();
    expect(done).toBe(false);
    last().options.onProgress?.({ phase: 'scan', filesDone: 0, filesTotal: 0, bytesDone: 0, bytesTotal: 0 });
    last().finish();
    await waiting;
    expect(events.map((e) => e.phase)).toEqual(['scan']);
    expect(r.warnings()).toEqual([]);
    // a later pass never makes a call wait
    last().options.onProgress?.({ phase: 'done', filesDone: 0, filesTotal: 0, bytesDone: 0, bytesTotal: 0 });
    expect(events).toHaveLength(1);
  });

  it('answers at once from an existing index, with a warning while the pass runs', async () => {
    const { engine, last } = fakeEngine(true);
    const r = new IndexRefresher(engine);
    r.start();
    await r.ready();
    expect(r.refreshing).toBe(true);
    expect(r.warnings()).toEqual([REFRESHING_WARNING]);
    last().finish();
    await tick();
    expect(r.refreshing).toBe(false);
    expect(r.warnings()).toEqual([]);
  });

  it('refreshes lazily, at most once per interval, one pass at a time', async () => {
    const c = clock();
    const { engine, passes, last } = fakeEngine(true);
    const r = new IndexRefresher(engine, { intervalMs: 30_000, clock: c });
    expect(r.freshness()).toMatchObject({ indexing: false, lastRefreshAt: null, lastError: null });
    r.start();
    r.touch(); // a pass is running
    expect(passes).toHaveLength(1);
    expect(r.freshness().indexing).toBe(true);
    last().finish();
    await tick();
    c.advance(29_999);
    r.touch();
    expect(passes).toHaveLength(1);
    c.advance(1);
    r.touch();
    expect(passes).toHaveLength(2);
  });

  it('with interval 0 refreshes on every call that finds no pass running', async () => {
    const { engine, passes, last } = fakeEngine(true);
    const r = new IndexRefresher(engine, { intervalMs: 0, clock: clock() });
    r.start();
    r.touch();
    expect(passes).toHaveLength(1);
    last().finish();
    await tick();
    r.touch();
    expect(passes).toHaveLength(2);
  });

  it('serves reads while another process holds the writer lock', async () => {
    const { engine, last } = fakeEngine(true);
    const r = new IndexRefresher(engine);
    r.start();
    last().options.onLockWait?.({ pid: 4242 });
    expect(r.warnings()).toEqual([`${REFRESHING_WARNING} (waiting for pid 4242, which is writing this index)`]);
    last().finish(new EngineError('INDEX_LOCKED', { pid: 4242 }));
    await tick();
    expect(r.warnings()).toEqual([]); // the other process keeps the index fresh
  });

  it('reports a failed pass until one succeeds, and logs it', async () => {
    const c = clock();
    const logged: string[] = [];
    const { engine, last } = fakeEngine(false);
    const r = new IndexRefresher(engine, { intervalMs: 10, clock: c, logger: { debug: () => {}, info: () => {}, warn: (m) => void logged.push(m) } });
    r.start();
    last().finish(new EngineError('INDEX_LOCKED', { pid: 7 }));
    await r.ready();
    expect(r.warnings()).toEqual(['index refresh failed: another scry process (pid 7) is writing this index']);
    expect(r.freshness()).toMatchObject({ indexing: false, lastError: 'another scry process (pid 7) is writing this index', lastRefreshAt: new Date(c.now()).toISOString() });
    expect(logged).toHaveLength(1);
    c.advance(10);
    r.touch();
    last().finish();
    await tick();
    expect(r.warnings()).toEqual([]);
  });

  it('stops waiting when the call is cancelled, and aborts the pass on close', async () => {
    const { engine, last } = fakeEngine(false);
    const r = new IndexRefresher(engine);
    r.start();
    const ac = new AbortController();
    const waiting = r.ready({ signal: ac.signal });
    ac.abort(new Error('cancelled'));
    await expect(waiting).rejects.toThrow('cancelled');
    const closing = r.close();
    expect(last().options.signal?.aborted).toBe(true);
    last().finish(new Error('aborted'));
    await closing;
    expect(r.warnings()).toEqual([]);
    r.touch();
    expect(r.refreshing).toBe(false);
  });
});
