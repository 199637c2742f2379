import { EngineError } from '../core/errors.js';
import type { Clock } from '../core/logger.js';
import { systemClock } from '../core/logger.js';

/**
 * A bounded, time-limited memory of model scores, so that a repeated query does not pay for the
 * same judgement twice. Entries expire `ttlMs` after they were written (by the injected clock);
 * past `maxEntries`, the oldest written entry goes first. Only valid scores are ever stored:
 * the caller decides what is valid.
 */
export interface ScoreCache {
  /** The score stored under `key`, or undefined when absent or expired. */
  get(key: string): number | undefined;
  set(key: string, score: number): void;
  clear(): void;
  /** Entries held, expired ones included until they are looked up or evicted. */
  readonly size: number;
}

export interface ScoreCacheOptions {
  /** How long a score stays valid. 0 disables the cache (nothing is stored). */
  readonly ttlMs: number;
  /** Upper bound on entries held. Default {@link DEFAULT_SCORE_CACHE_ENTRIES}. */
  readonly maxEntries?: number;
  /** Time source for expiry. Default: the system clock. */
  readonly clock?: Clock;
}

/** Enough for hundreds of recent queries × the default 10 candidates, at roughly 200 bytes each. */
export const DEFAULT_SCORE_CACHE_ENTRIES = 5000;

interface Entry {
  readonly score: number;
  readonly storedAt: number;
}

export function createScoreCache(options: ScoreCacheOptions): ScoreCache {
  const { ttlMs } = options;
  const maxEntries = options.maxEntries ?? DEFAULT_SCORE_CACHE_ENTRIES;
  const clock = options.clock ?? systemClock;
  if (!Number.isFinite(ttlMs) || ttlMs < 0) {
    throw new EngineError('INVALID_ARGUMENT', { name: 'ttlMs', reason: `must be a number ≥ 0, got ${ttlMs}` });
  }
  if (!Number.isInteger(maxEntries) || maxEntries < 1) {
    throw new EngineError('INVALID_ARGUMENT', { name: 'maxEntries', reason: `must be a positive integer, got ${maxEntries}` });
  }
  // A Map iterates in insertion order, and `set` re-inserts, so its first key is the oldest write.
  const entries = new Map<string, Entry>();

  return {
    get(key) {
      const entry = entries.get(key);
      if (entry === undefined) return undefined;
      if (clock.now() - entry.storedAt >= ttlMs) {
        entries.delete(key);
        return undefined;
      }
      return entry.score;
    },
    set(key, score) {
      if (ttlMs === 0) return;
      entries.delete(key);
      entries.set(key, { score, storedAt: clock.now() });
      while (entries.size > maxEntries) {
        const oldest = entries.keys().next();
        if (oldest.done === true) break;
        entries.delete(oldest.value);
      }
    },
    clear() {
      entries.clear();
    },
    get size() {
      return entries.size;
    },
  };
}
