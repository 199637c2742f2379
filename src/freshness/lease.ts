import { hostname } from 'node:os';
import type { Logger } from '../core/logger.js';
import type { IndexProgress } from '../indexer/progress.js';
import type { LockOwner, WriterLock } from '../store/writer-lock.js';
import { serveHandoff, type HandoffServer, type ServedRequest } from './handoff.js';

/**
 * The right to write one index: the writer lock plus the handoff endpoint that goes with it.
 * Whoever holds the lease listens for index requests from other processes (see handoff.ts), so a
 * second `scry index` never fails and never waits blind: its request runs in the owner, after the
 * owner's current pass, with progress streamed back. Requests queue here until the holder takes
 * them; requesters waiting meanwhile see the owner's own progress.
 */
export class WriterLease {
  private server: HandoffServer | undefined;
  private holder: 'index' | 'watch' | undefined;
  private readonly queue: ServedRequest[] = [];
  /** Called when a request arrives (the holder schedules it); requests wait in the queue until taken. */
  onRequest: (() => void) | undefined;

  constructor(
    private readonly lock: WriterLock,
    private readonly endpoint: string,
    private readonly logger: Logger,
  ) {}

  get held(): boolean {
    return this.lock.held;
  }

  /** The lock file's path. */
  get path(): string {
    return this.lock.path;
  }

  /** The lock file's owner (this process or another), if any. */
  owner(): LockOwner | undefined {
    return this.lock.peek();
  }

  /**
   * One attempt, never waiting: takes the lock (a dead owner's is recovered) and starts listening;
   * returns undefined when it did, or the live owner. If the endpoint cannot be opened the lease
   * is still held: other processes then wait for the lock instead of handing over.
   */
  async tryAcquire(role: 'index' | 'watch'): Promise<LockOwner | undefined> {
    // held by this process for the other role (a one-off pass while a reader waits to take over):
    // busy, like any other owner
    if (this.lock.held) return this.holder === role ? undefined : (this.lock.peek() ?? { pid: process.pid, host: hostname(), token: '', acquiredAt: 0, heartbeatAt: Date.now() });
    const other = this.lock.tryAcquire({ owner: { endpoint: this.endpoint, role } });
    if (other) return other;
    this.holder = role;
    try {
      this.server = await serveHandoff(this.endpoint, { role }, (served) => {
        this.queue.push(served);
        this.onRequest?.();
      });
    } catch (err) {
      this.logger.warn('cannot take index requests from other processes; they will wait for the lock instead', { endpoint: this.endpoint, reason: (err as Error).message });
    }
    return undefined;
  }

  /** The oldest request still wanted, if any. */
  takeRequest(): ServedRequest | undefined {
    for (;;) {
      const next = this.queue.shift();
      if (next === undefined || !next.abandoned) return next;
    }
  }

  /** Requests waiting. */
  get queued(): number {
    return this.queue.filter((r) => !r.abandoned).length;
  }

  /** Shows waiting requesters the progress of the pass they are queued behind. */
  broadcast(progress: IndexProgress): void {
    for (const r of this.queue) r.send({ type: 'waiting', progress });
  }

  /** Stops listening (waiting requesters are hung up on and retry), then releases the lock. */
  async release(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    this.holder = undefined;
    this.queue.length = 0;
    try {
      await server?.close();
    } finally {
      this.lock.release();
    }
  }
}
