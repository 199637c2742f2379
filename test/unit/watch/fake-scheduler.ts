import type { Scheduler } from '../../../src/watch/change-queue.js';

interface Timer {
  readonly at: number;
  readonly seq: number;
  readonly run: () => void;
}

/** Virtual time: timers run only inside `advance()`, in due order. */
export class FakeScheduler implements Scheduler {
  private time = 0;
  private seq = 0;
  private readonly timers = new Set<Timer>();
  /** Timers scheduled so far (to show the queue does not busy-loop). */
  scheduled = 0;

  now(): number {
    return this.time;
  }

  schedule(delayMs: number, run: () => void): () => void {
    const timer = { at: this.time + delayMs, seq: this.seq++, run };
    this.timers.add(timer);
    this.scheduled++;
    return () => this.timers.delete(timer);
  }

  /** Timers armed right now. */
  get armed(): number {
    return this.timers.size;
  }

  /** Moves time forward by `ms`, running every timer that falls due on the way. */
  advance(ms: number): void {
    const end = this.time + ms;
    for (;;) {
      let next: Timer | undefined;
      for (const t of this.timers) if (t.at <= end && (!next || t.at < next.at || (t.at === next.at && t.seq < next.seq))) next = t;
      if (!next) break;
      this.timers.delete(next);
      this.time = Math.max(this.time, next.at);
      next.run();
    }
    this.time = end;
  }
}
