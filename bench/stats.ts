/**
 * Small statistics and measurement helpers shared by the bench scripts. Pure except `RssSampler`
 * and `timeSync`/`timeAsync`, which read the process clock and memory.
 */

/** Nearest-rank percentile (p in 0..100) of unsorted samples; NaN for an empty list. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1]!;
}

export const median = (samples: readonly number[]): number => percentile(samples, 50);

export interface Summary {
  readonly n: number;
  readonly min: number;
  readonly p50: number;
  readonly p95: number;
  readonly p99: number;
  readonly max: number;
  readonly mean: number;
}

/** Rounds to 2 decimals: enough for milliseconds, readable in JSON. */
export const round2 = (x: number): number => Math.round(x * 100) / 100;

export function summarize(samples: readonly number[]): Summary {
  const mean = samples.reduce((a, b) => a + b, 0) / Math.max(1, samples.length);
  return {
    n: samples.length,
    min: round2(percentile(samples, 0)),
    p50: round2(percentile(samples, 50)),
    p95: round2(percentile(samples, 95)),
    p99: round2(percentile(samples, 99)),
    max: round2(percentile(samples, 100)),
    mean: round2(mean),
  };
}

export const MB = 1024 * 1024;

export const fmtMs = (ms: number): string => (ms >= 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${ms.toFixed(1)} ms`);
export const fmtMB = (bytes: number): string => `${(bytes / MB).toFixed(1)} MB`;

/** user + system CPU of this process, in ms: steadier than wall time on a shared machine. */
export const cpuMs = (usage: NodeJS.CpuUsage): number => (usage.user + usage.system) / 1000;

export async function timeAsync<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t0 = performance.now();
  const value = await fn();
  return { ms: performance.now() - t0, value };
}

export function timeSync<T>(fn: () => T): { ms: number; value: T } {
  const t0 = performance.now();
  const value = fn();
  return { ms: performance.now() - t0, value };
}

/**
 * Samples RSS on a timer and whenever `sample()` is called (e.g. from a progress callback: a
 * synchronous index batch starves timers). `maxRssBytes` is the kernel's high-water mark for the
 * whole process, which also catches peaks between samples.
 */
export class RssSampler {
  private peak = 0;
  private timer: NodeJS.Timeout | undefined;

  start(everyMs = 25): void {
    this.sample();
    this.timer = setInterval(() => this.sample(), everyMs);
    this.timer.unref();
  }

  sample(): void {
    const rss = process.memoryUsage.rss();
    if (rss > this.peak) this.peak = rss;
  }

  stop(): { sampledPeakBytes: number; maxRssBytes: number } {
    if (this.timer) clearInterval(this.timer);
    this.sample();
    return { sampledPeakBytes: this.peak, maxRssBytes: process.resourceUsage().maxRSS * 1024 };
  }
}

/** mulberry32: a small seeded PRNG, uniform in [0, 1): the same sequence in every run. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
