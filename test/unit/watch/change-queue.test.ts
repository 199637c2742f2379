import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ChangeQueue, STORM_WAIT_FACTOR, type ChangeBatch, type ChangeQueueOptions } from '../../../src/watch/change-queue.js';
import { FakeScheduler } from './fake-scheduler.js';

const DEBOUNCE = 500;
const MAX_WAIT = 2000;

function setup(overrides: Partial<ChangeQueueOptions> = {}) {
  const scheduler = new FakeScheduler();
  const state = { dues: 0, warnings: [] as string[] };
  const queue = new ChangeQueue({
    debounceMs: DEBOUNCE,
    maxBatchWaitMs: MAX_WAIT,
    stormPaths: 10,
    onDue: () => state.dues++,
    onWarning: (message) => state.warnings.push(message),
    scheduler,
    ...overrides,
  });
  return { scheduler, queue, state };
}

const paths = (...list: string[]): ChangeBatch => ({ kind: 'paths', paths: list });

describe('debounce and batching', () => {
  it('makes a single save due debounceMs after its last event, not before', () => {
    const { scheduler, queue, state } = setup();
    queue.add('src/a.ts');
    scheduler.advance(DEBOUNCE - 1);
    expect(state.dues).toBe(0);
    expect(queue.take()).toBeUndefined();
    scheduler.advance(1);
    expect(state.dues).toBe(1);
    expect(queue.take()).toEqual(paths('src/a.ts'));
    expect(queue.pending()).toEqual({ paths: 0, rescan: false });
  });

  it('restarts the quiet period on every event of a path', () => {
    const { scheduler, queue, state } = setup();
    queue.add('a.ts');
    scheduler.advance(300);
    queue.add('a.ts');
    scheduler.advance(300);
    queue.add('a.ts');
    scheduler.advance(DEBOUNCE - 1);
    expect(state.dues).toBe(0);
    scheduler.advance(1);
    expect(state.dues).toBe(1);
    expect(queue.take()).toEqual(paths('a.ts'));
  });

  it('waits until every pending path is quiet, then returns them sorted and unique', () => {
    const { scheduler, queue, state } = setup();
    queue.add('b.ts');
    queue.add('a.ts');
    scheduler.advance(400);
    queue.add('c.ts');
    queue.add('b.ts');
    scheduler.advance(400);
    expect(state.dues).toBe(0); // c.ts and b.ts are not quiet yet
    scheduler.advance(100);
    expect(state.dues).toBe(1);
    expect(queue.take()).toEqual(paths('a.ts', 'b.ts', 'c.ts'));
  });

  it('flushes a steady trickle at least every maxBatchWaitMs, taking only ready or overdue paths', () => {
    const { scheduler, queue, state } = setup({ stormPaths: 1000 });
    const batches: ChangeBatch[] = [];
    for (let i = 0; i < 50; i++) {
      queue.add(`f${String(i).padStart(2, '0')}.ts`);
      scheduler.advance(100);
      if (state.dues > batches.length) batches.push(queue.take()!);
    }
    // first event at 0: overdue at 2000; at that time f00..f15 are quiet ≥ 500 ms, f16..f19 are not
    expect(batches[0]).toEqual(paths(...Array.from({ length: 16 }, (_, i) => `f${String(i).padStart(2, '0')}.ts`)));
    // the next oldest, f16 (first event at 1600), is overdue at 3600
    expect(batches[1]).toMatchObject({ kind: 'paths', paths: expect.arrayContaining(['f16.ts']) });
    expect(batches).toHaveLength(2);
    expect(queue.pending().paths).toBeGreaterThan(0);
  });

  it('does not starve a file that is written continuously', () => {
    const { scheduler, queue, state } = setup();
    const taken: number[] = [];
    for (let t = 0; t < 10_000; t += 100) {
      queue.add('log.txt');
      scheduler.advance(100);
      if (state.dues > taken.length) {
        expect(queue.take()).toEqual(paths('log.txt'));
        taken.push(scheduler.now());
      }
    }
    expect(taken.length).toBeGreaterThanOrEqual(4);
    expect(taken[0]).toBe(MAX_WAIT);
  });

  it('fires onDue at most once until the next take(), then re-arms for what is left', () => {
    const { scheduler, queue, state } = setup();
    queue.add('a.ts');
    scheduler.advance(DEBOUNCE);
    queue.add('b.ts');
    scheduler.advance(10 * MAX_WAIT);
    expect(state.dues).toBe(1);
    expect(queue.take()).toEqual(paths('a.ts', 'b.ts'));
    queue.add('c.ts');
    scheduler.advance(DEBOUNCE);
    expect(state.dues).toBe(2);
  });

  it('after onDue, take() returns the batch that was due even if its paths changed again since', () => {
    const { scheduler, queue, state } = setup();
    queue.add('a.ts');
    scheduler.advance(DEBOUNCE);
    expect(state.dues).toBe(1);
    queue.add('a.ts'); // the consumer was busy; a.ts is not quiet any more
    queue.add('b.ts');
    expect(queue.take()).toEqual(paths('a.ts'));
    expect(queue.pending().paths).toBe(1);
  });

  it('after onDue, take() returns a rescan even if events arrived since', () => {
    const { scheduler, queue, state } = setup();
    queue.requestRescan('ignore-rules');
    scheduler.advance(DEBOUNCE);
    expect(state.dues).toBe(1);
    queue.add('a.ts');
    expect(queue.take()).toEqual({ kind: 'rescan', reason: 'ignore-rules' });
  });

  it('lets a free consumer take ready paths before the whole batch is due', () => {
    const { scheduler, queue, state } = setup();
    queue.add('a.ts');
    scheduler.advance(DEBOUNCE);
    queue.take();
    queue.add('b.ts');
    scheduler.advance(DEBOUNCE - 100);
    queue.add('c.ts');
    scheduler.advance(100);
    expect(state.dues).toBe(1);
    expect(queue.take()).toEqual(paths('b.ts'));
    expect(queue.pending().paths).toBe(1);
  });

  it('is due at once with a zero debounce and a zero batch wait', () => {
    const { scheduler, queue, state } = setup({ debounceMs: 0, maxBatchWaitMs: 0 });
    queue.add('a.ts');
    scheduler.advance(0);
    expect(state.dues).toBe(1);
    expect(queue.take()).toEqual(paths('a.ts'));
  });
});

describe('timers', () => {
  it('holds no timer while nothing is pending', () => {
    const { scheduler, queue } = setup();
    expect(scheduler.armed).toBe(0);
    queue.add('a.ts');
    expect(scheduler.armed).toBe(1);
    scheduler.advance(DEBOUNCE);
    queue.take();
    expect(scheduler.armed).toBe(0);
  });

  it('keeps one timer through a burst of events instead of one per event', () => {
    const { scheduler, queue } = setup({ stormPaths: 10_000 });
    for (let i = 0; i < 1000; i++) queue.add(`f${i}.ts`);
    expect(scheduler.armed).toBe(1);
    expect(scheduler.scheduled).toBe(1);
  });

  it('fires nothing after close()', () => {
    const { scheduler, queue, state } = setup();
    queue.add('a.ts');
    queue.requestRescan('poll', true);
    queue.close();
    queue.add('b.ts');
    scheduler.advance(10 * MAX_WAIT);
    expect(state.dues).toBe(0);
    expect(scheduler.armed).toBe(0);
    expect(queue.take()).toBeUndefined();
  });

  it('reports an onDue that throws and keeps working', () => {
    let calls = 0;
    const { scheduler, queue, state } = setup({
      onDue: () => {
        calls++;
        throw new Error('consumer bug');
      },
    });
    queue.add('a.ts');
    scheduler.advance(DEBOUNCE);
    expect(state.warnings).toHaveLength(1);
    expect(queue.take()).toEqual(paths('a.ts'));
    queue.add('b.ts');
    scheduler.advance(DEBOUNCE);
    expect(calls).toBe(2);
  });
});

describe('storms and rescans', () => {
  it('turns more than stormPaths pending paths into one rescan and drops them', () => {
    const { scheduler, queue, state } = setup();
    for (let i = 0; i < 10; i++) queue.add(`f${i}.ts`);
    expect(queue.pending()).toEqual({ paths: 10, rescan: false });
    queue.add('f10.ts');
    expect(queue.pending()).toEqual({ paths: 0, rescan: true });
    for (let i = 0; i < 5000; i++) queue.add(`g${i}.ts`);
    expect(queue.pending()).toEqual({ paths: 0, rescan: true });
    scheduler.advance(DEBOUNCE);
    expect(state.dues).toBe(1);
    expect(queue.take()).toEqual({ kind: 'rescan', reason: 'storm' });
    expect(queue.pending()).toEqual({ paths: 0, rescan: false });
  });

  it('makes a storm due once events pause for debounceMs', () => {
    const { scheduler, queue, state } = setup();
    for (let i = 0; i < 11; i++) queue.add(`f${i}.ts`);
    for (let i = 0; i < 5; i++) {
      scheduler.advance(DEBOUNCE - 1);
      queue.add(`late${i}.ts`);
    }
    expect(state.dues).toBe(0);
    scheduler.advance(DEBOUNCE);
    expect(state.dues).toBe(1);
  });

  it('makes a storm due at the latest STORM_WAIT_FACTOR × maxBatchWaitMs after it began', () => {
    const { scheduler, queue, state } = setup();
    for (let i = 0; i < 11; i++) queue.add(`f${i}.ts`);
    let dueAt: number | undefined;
    for (let t = 0; t < 20 * MAX_WAIT && dueAt === undefined; t += 100) {
      scheduler.advance(100);
      queue.add('busy.ts');
      if (state.dues > 0) dueAt = scheduler.now();
    }
    expect(dueAt).toBe(STORM_WAIT_FACTOR * MAX_WAIT);
    expect(queue.take()).toEqual({ kind: 'rescan', reason: 'storm' });
  });

  it('replaces pending paths by a requested rescan and keeps the first reason', () => {
    const { scheduler, queue, state } = setup();
    queue.add('a.ts');
    queue.requestRescan('ignore-rules');
    queue.requestRescan('watcher-error');
    expect(queue.pending()).toEqual({ paths: 0, rescan: true });
    scheduler.advance(DEBOUNCE - 1);
    expect(queue.take()).toBeUndefined();
    scheduler.advance(1);
    expect(state.dues).toBe(1);
    expect(queue.take()).toEqual({ kind: 'rescan', reason: 'ignore-rules' });
  });

  it('makes an immediate rescan due at once, even during a storm', () => {
    const { scheduler, queue, state } = setup();
    for (let i = 0; i < 11; i++) queue.add(`f${i}.ts`);
    queue.requestRescan('poll', true);
    scheduler.advance(0);
    expect(state.dues).toBe(1);
    expect(queue.take()).toEqual({ kind: 'rescan', reason: 'storm' });
  });

  it('collects paths again after a rescan is taken', () => {
    const { scheduler, queue } = setup();
    queue.requestRescan('unknown-path');
    scheduler.advance(DEBOUNCE);
    expect(queue.take()).toEqual({ kind: 'rescan', reason: 'unknown-path' });
    queue.add('a.ts');
    scheduler.advance(DEBOUNCE);
    expect(queue.take()).toEqual(paths('a.ts'));
  });
});

describe('invariants under random event sequences', () => {
  const op = fc.record({ path: fc.nat(14), gap: fc.nat(900), rescan: fc.integer({ min: 0, max: 19 }).map((n) => n === 0) });

  it('covers every event by a later batch, stays bounded, and never signals an empty batch', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 200 }), fc.boolean(), (ops, slowConsumer) => {
        const stormPaths = 10;
        const { scheduler, queue, state } = setup({ stormPaths });
        // `seq` orders events and takes that happen at the same virtual time
        let seq = 0;
        const events: { path: string; seq: number }[] = [];
        const batches: { batch: ChangeBatch; seq: number }[] = [];
        let busyUntil = 0;
        const consume = (): void => {
          if (state.dues === 0 || scheduler.now() < busyUntil) return;
          const due = state.dues;
          const batch = queue.take();
          expect(batch, 'onDue promised a batch').toBeDefined();
          batches.push({ batch: batch!, seq: seq++ });
          state.dues = due - 1;
          if (slowConsumer) busyUntil = scheduler.now() + 1500;
        };
        for (const { path, gap, rescan } of ops) {
          if (rescan) queue.requestRescan('watcher-error');
          queue.add(`p${path}`);
          events.push({ path: `p${path}`, seq: seq++ });
          expect(queue.pending().paths).toBeLessThanOrEqual(stormPaths);
          scheduler.advance(gap);
          consume();
        }
        for (let i = 0; i < 10; i++) {
          scheduler.advance(STORM_WAIT_FACTOR * MAX_WAIT);
          consume();
        }
        expect(queue.pending()).toEqual({ paths: 0, rescan: false });
        for (const event of events) {
          const covered = batches.some((taken) => taken.seq > event.seq && (taken.batch.kind === 'rescan' || taken.batch.paths.includes(event.path)));
          expect(covered, `${event.path}#${event.seq}`).toBe(true);
        }
      }),
      { numRuns: 200 },
    );
  });
});
