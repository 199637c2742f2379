/**
 * Where a pass's CPU goes by thread, for index-throughput.ts `--threads` (bench only, Linux).
 *
 * - CPU per thread, and the time it was runnable but waited for a core (the run queue: other
 *   processes' load), from /proc/self/task/<tid>/schedstat, sampled on a
 *   timer and from the progress callback, so that threads that end during the pass (the prepare
 *   workers are terminated when it closes) keep their last reading. Threads are grouped as the
 *   main thread (tid = pid), threads that existed before the pass (V8's platform pool: concurrent
 *   GC and compilation; libuv's pool; the tsx loader) and threads started during it (the prepare
 *   workers, each with its own loader thread when running from TypeScript sources).
 * - The main thread's event-loop utilisation (the writer is idle while it waits for workers).
 * - Each prepare worker's event-loop utilisation, read from the main thread through
 *   `worker.performance`: `installWorkerTracker()` replaces `worker_threads.Worker` with a
 *   subclass that remembers its instances; call it before the engine's modules are imported.
 * - Main-thread GC pauses (PerformanceObserver 'gc'). Workers' GC: run node with `--trace-gc`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { PerformanceObserver, performance, type EventLoopUtilization } from 'node:perf_hooks';
import type { Worker as WorkerType, WorkerOptions } from 'node:worker_threads';

const tracked: WorkerType[] = [];

/** Replaces `Worker` (CommonJS and ESM views of node:worker_threads) by a subclass that records its instances. */
export function installWorkerTracker(): void {
  const wt = createRequire(import.meta.url)('node:worker_threads') as { Worker: typeof WorkerType };
  const Base = wt.Worker;
  wt.Worker = class TrackedWorker extends Base {
    constructor(filename: string | URL, options?: WorkerOptions) {
      super(filename, options);
      tracked.push(this);
    }
  };
  syncBuiltinESMExports();
}

/** CPU and run-queue wait (runnable, no core free: the machine's load) per thread, ms, from schedstat. */
function readThreads(): Map<number, Sched> {
  const out = new Map<number, Sched>();
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const [cpuNs, waitNs] = readFileSync(`/proc/self/task/${tid}/schedstat`, 'utf8').split(' ');
      out.set(Number(tid), { cpu: Number(cpuNs) / 1e6, wait: Number(waitNs) / 1e6 });
    } catch {
      // the thread ended between readdir and read
    }
  }
  return out;
}

interface Sched {
  readonly cpu: number;
  readonly wait: number;
}

export interface ThreadUsage {
  readonly mainMs: number;
  /** Run-queue wait: the main thread's, and the sum over the prepare workers' threads. */
  readonly mainWaitMs: number;
  readonly newThreadsWaitMs: number;
  /** Threads that existed before the pass: V8 platform pool, libuv pool, loader. */
  readonly preexistingMs: number;
  /** Threads started during the pass, largest first (prepare workers and their loader threads). */
  readonly newThreadsMs: number[];
  readonly mainIdleShare: number;
  /** Per prepare worker: active ms and idle ms of its event loop. */
  readonly workers: Array<{ activeMs: number; idleMs: number }>;
  readonly mainGc: { count: number; ms: number };
}

export class ThreadSampler {
  private readonly before = readThreads();
  private readonly last = new Map<number, Sched>();
  private readonly elu0: EventLoopUtilization = performance.eventLoopUtilization();
  private readonly firstWorker = tracked.length;
  private readonly workerElu = new Map<WorkerType, EventLoopUtilization>();
  private readonly gc = { count: 0, ms: 0 };
  private readonly observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      this.gc.count++;
      this.gc.ms += e.duration;
    }
  });
  private timer: NodeJS.Timeout | undefined;
  private lastSample = 0;

  start(everyMs = 100): void {
    this.observer.observe({ entryTypes: ['gc'] });
    this.timer = setInterval(() => this.sample(), everyMs);
    this.timer.unref();
  }

  /** Cheap enough for a progress callback: reads /proc at most every 50 ms. */
  sample(): void {
    const now = performance.now();
    if (now - this.lastSample < 50) return;
    this.lastSample = now;
    for (const [tid, sched] of readThreads()) this.last.set(tid, sched);
    for (const w of tracked.slice(this.firstWorker)) {
      try {
        const elu = w.performance.eventLoopUtilization();
        const prev = this.workerElu.get(w);
        // an exited worker reads as zeros: keep its last reading
        if (!prev || elu.active + elu.idle > prev.active + prev.idle) this.workerElu.set(w, elu);
      } catch {
        // the worker has exited; keep its last reading
      }
    }
  }

  stop(): ThreadUsage {
    this.lastSample = 0;
    this.sample();
    if (this.timer) clearInterval(this.timer);
    this.observer.disconnect();
    const elu = performance.eventLoopUtilization(this.elu0);
    let mainMs = 0;
    let mainWaitMs = 0;
    let preexistingMs = 0;
    let newThreadsWaitMs = 0;
    const newThreadsMs: number[] = [];
    for (const [tid, sched] of this.last) {
      const was = this.before.get(tid);
      const cpu = Math.round(sched.cpu - (was?.cpu ?? 0));
      const wait = Math.round(sched.wait - (was?.wait ?? 0));
      if (tid === process.pid) {
        mainMs = cpu;
        mainWaitMs = wait;
      } else if (was) {
        preexistingMs += cpu;
      } else {
        newThreadsMs.push(cpu);
        newThreadsWaitMs += wait;
      }
    }
    newThreadsMs.sort((a, b) => b - a);
    const workers = [...this.workerElu.values()].map((e) => ({ activeMs: Math.round(e.active), idleMs: Math.round(e.idle) }));
    return { mainMs, mainWaitMs, newThreadsWaitMs, preexistingMs: Math.round(preexistingMs), newThreadsMs, mainIdleShare: Math.round((elu.idle / (elu.idle + elu.active)) * 100) / 100, workers, mainGc: { count: this.gc.count, ms: Math.round(this.gc.ms) } };
  }
}

export function formatThreadUsage(u: ThreadUsage): string {
  const workers = u.workers.map((w) => `${w.activeMs}/${w.activeMs + w.idleMs}`).join(', ');
  return [
    `  threads       main ${u.mainMs} ms CPU, ${u.mainWaitMs} ms waiting for a core (event loop idle ${Math.round(u.mainIdleShare * 100)}%, GC ${u.mainGc.count}× ${u.mainGc.ms} ms), pre-existing threads ${u.preexistingMs} ms CPU`,
    `                new threads ${u.newThreadsMs.join(' + ')} ms CPU, ${u.newThreadsWaitMs} ms waiting for a core; workers' event loop active/total ms: ${workers || '(none)'}`,
  ].join('\n');
}
