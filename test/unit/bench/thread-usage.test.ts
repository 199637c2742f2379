import { existsSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { installWorkerTracker, ThreadSampler } from '../../../bench/thread-usage.js';

// index-throughput.ts --threads: CPU by thread, the workers' busy time read from the main thread.
// A worker that spins a fixed amount of work inside its event loop must show up as a new thread
// with CPU, and as a tracked worker whose event loop was active; the numbers are outcomes, not times.

const SPIN = `
const { parentPort } = require('node:worker_threads');
parentPort.on('message', (n) => {
  let x = 0;
  for (let i = 0; i < n; i++) x = (x + Math.sqrt(i)) % 1e9;
  parentPort.postMessage(x);
});`;

describe.runIf(existsSync('/proc/self/task'))('bench thread usage (issue 19)', () => {
  it('splits CPU by thread and reads a tracked worker’s event-loop activity, also after it exits', async () => {
    installWorkerTracker();
    const sampler = new ThreadSampler();
    sampler.start(10);
    // `Worker` here is the ESM binding: installWorkerTracker() must have replaced it too
    const worker = new Worker(SPIN, { eval: true });
    const done = new Promise((resolve) => worker.once('message', resolve));
    worker.postMessage(50_000_000);
    await done;
    sampler.sample();
    await worker.terminate();
    const usage = sampler.stop();
    expect(usage.newThreadsMs.length).toBeGreaterThanOrEqual(1);
    expect(usage.newThreadsMs[0]).toBeGreaterThan(0);
    expect(usage.workers).toHaveLength(1);
    expect(usage.workers[0]!.activeMs).toBeGreaterThan(0);
    expect(usage.mainIdleShare).toBeGreaterThan(0);
    expect(usage.mainIdleShare).toBeLessThanOrEqual(1);
  });
});
