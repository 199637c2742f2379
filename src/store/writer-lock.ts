import { closeSync, mkdirSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import { randomUUID } from 'node:crypto';
import { EngineError } from '../core/errors.js';

/** What a lock file says about its owner. */
export interface LockOwner {
  readonly pid: number;
  readonly host: string;
  readonly token: string;
  readonly acquiredAt: number;
  readonly heartbeatAt: number;
  /** Where the owner takes index requests from other processes (a local socket), if it does. */
  readonly endpoint?: string | undefined;
  /** What kind of process owns the index: a one-off pass (`index`) or a long-running watcher (`watch`). */
  readonly role?: 'index' | 'watch' | undefined;
}

/** What the owner writes into the lock file besides its identity. */
export interface OwnerInfo {
  readonly endpoint?: string | undefined;
  readonly role?: 'index' | 'watch' | undefined;
}

export interface LockOptions {
  /** Give up with INDEX_LOCKED after waiting this long for a live owner. */
  readonly timeoutMs: number;
  /** A lock whose heartbeat is older than this is stale even if its pid looks alive. Default 30 s. */
  readonly staleMs?: number;
  /** How often the owner refreshes its heartbeat. Default 10 s (a third of the default staleMs; on the same host a dead owner is detected by its pid at once). */
  readonly heartbeatMs?: number;
  /** Called while waiting, at most once per poll. */
  readonly onWait?: (owner: LockOwner) => void;
  /** Stops waiting (rejects with the signal's reason). */
  readonly signal?: AbortSignal | undefined;
  /** Written into the lock file for other processes to read. */
  readonly owner?: OwnerInfo | undefined;
}

function readOwner(path: string): LockOwner | undefined {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as LockOwner;
  } catch {
    return undefined;
  }
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A lock file that cannot be parsed yet but was created a moment ago: its owner is still writing it. */
function justCreated(path: string): boolean {
  try {
    return Date.now() - statSync(path).mtimeMs < 1000;
  } catch {
    return false;
  }
}

/** Stale: the owner's process is gone (same host), or it stopped heartbeating. */
export function isStale(owner: LockOwner | undefined, now: number, staleMs: number): boolean {
  if (owner === undefined) return true;
  if (owner.host === hostname() && !pidAlive(owner.pid)) return true;
  return now - owner.heartbeatAt > staleMs;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * The single-writer lock of an index: a file beside the database holding the owner's pid, host,
 * a random token and a heartbeat. Created with O_EXCL; a stale lock (dead pid or silent
 * heartbeat) is moved aside atomically and taken over. Readers never take it.
 */
export class WriterLock {
  private timer: NodeJS.Timeout | undefined;
  private owner: LockOwner | undefined;

  constructor(readonly path: string) {}

  get held(): boolean {
    return this.owner !== undefined;
  }

  /** The current owner according to the lock file, if any. */
  peek(): LockOwner | undefined {
    return readOwner(this.path);
  }

  async acquire(options: LockOptions): Promise<void> {
    const deadline = Date.now() + options.timeoutMs;
    for (;;) {
      options.signal?.throwIfAborted();
      const current = this.tryAcquire(options);
      if (current === undefined) return;
      if (Date.now() >= deadline) throw new EngineError('INDEX_LOCKED', { pid: current.pid, lock: this.path });
      options.onWait?.(current);
      await sleep(Math.min(200, Math.max(10, deadline - Date.now())));
    }
  }

  /**
   * One attempt, never waiting: takes the lock (recovering a stale one) and returns undefined, or
   * returns the live owner that holds it.
   */
  tryAcquire(options: Omit<LockOptions, 'timeoutMs' | 'onWait' | 'signal'> = {}): LockOwner | undefined {
    if (this.owner) return undefined;
    const staleMs = options.staleMs ?? 30_000;
    mkdirSync(dirname(this.path), { recursive: true });
    for (let attempt = 0; attempt < 5; attempt++) {
      if (this.tryCreate(options.owner)) {
        const every = options.heartbeatMs ?? 10_000;
        this.timer = setInterval(() => this.beat(), every);
        this.timer.unref();
        return undefined;
      }
      const current = readOwner(this.path);
      if (current === undefined && justCreated(this.path)) return { pid: 0, host: hostname(), token: '', acquiredAt: 0, heartbeatAt: Date.now() };
      if (!isStale(current, Date.now(), staleMs)) return current;
      this.breakStale(current);
    }
    // the file kept changing hands: someone else is taking it
    return readOwner(this.path) ?? { pid: 0, host: hostname(), token: '', acquiredAt: 0, heartbeatAt: 0 };
  }

  release(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    if (this.owner && readOwner(this.path)?.token === this.owner.token) {
      try {
        unlinkSync(this.path);
      } catch {
        // already gone
      }
    }
    this.owner = undefined;
  }

  private tryCreate(info: OwnerInfo = {}): boolean {
    const now = Date.now();
    const owner: LockOwner = { pid: process.pid, host: hostname(), token: randomUUID(), acquiredAt: now, heartbeatAt: now, ...info };
    let fd: number;
    try {
      fd = openSync(this.path, 'wx');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw err;
    }
    try {
      writeSync(fd, JSON.stringify(owner));
    } finally {
      closeSync(fd);
    }
    this.owner = owner;
    return true;
  }

  /** Moves a stale lock aside; if someone else replaced it meanwhile, puts theirs back. */
  private breakStale(seen: LockOwner | undefined): void {
    const aside = `${this.path}.${process.pid}.${randomUUID()}.stale`;
    try {
      renameSync(this.path, aside);
    } catch {
      return; // someone else moved it first
    }
    const moved = readOwner(aside);
    if (moved && seen && moved.token !== seen.token && !isStale(moved, Date.now(), Number.MAX_SAFE_INTEGER)) {
      try {
        renameSync(aside, this.path);
      } catch {
        // the path was taken again; the fresh owner keeps it
      }
      return;
    }
    try {
      unlinkSync(aside);
    } catch {
      // ignore
    }
  }

  private beat(): void {
    if (!this.owner) return;
    const current = readOwner(this.path);
    if (current?.token !== this.owner.token) return;
    this.owner = { ...this.owner, heartbeatAt: Date.now() };
    // written aside, then renamed over the lock: a reader never sees it empty or half written
    // (writing in place truncates first, and `scry status` read "not watched" in that instant)
    const next = `${this.path}.${process.pid}.beat`;
    try {
      writeFileSync(next, JSON.stringify(this.owner));
      renameSync(next, this.path);
    } catch {
      // a failed heartbeat only risks being considered stale later
    }
  }
}
