import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { IndexProgress } from '../indexer/progress.js';

/** Why a pass ran. */
export type PassReason = 'startup' | 'changes' | 'rescan' | 'request';

/** What the last pass did, in short. */
export interface LastPass {
  readonly reason: PassReason;
  /** When it ended (ISO time). */
  readonly at: string;
  readonly durationMs: number;
  readonly filesIndexed: number;
  readonly filesRemoved: number;
  readonly filesTouched: number;
}

/** The watcher of the writing process. */
export interface WatcherInfo {
  /** `directories`, `recursive` or `poll`. */
  readonly backend: string;
  /** OS watches held. */
  readonly watches: number;
  /** Why it fell back to polling, if it did. */
  readonly fallbackReason: string | null;
}

/**
 * How fresh the index is, and who keeps it so. `fresh`: a watcher follows the files and nothing is
 * waiting; `pending`: changes were seen and wait for their pass (debounce); `indexing`: a pass is
 * running; `unwatched`: no process follows changes, so the index is as fresh as its last pass.
 */
export interface Freshness {
  readonly state: 'fresh' | 'pending' | 'indexing' | 'unwatched';
  /** This process: the one writing the index, a reader of an index another process writes, or neither (no watch here). */
  readonly role: 'writer' | 'reader' | 'none';
  /** The process that holds the writer lock, if any. */
  readonly writer: { readonly pid: number; readonly role: 'index' | 'watch' } | null;
  readonly watcher: WatcherInfo | null;
  /** Changed paths seen and not yet indexed. */
  readonly pendingChanges: number;
  /** A full rescan is due (a storm of changes, changed ignore rules, a watcher error). */
  readonly rescanPending: boolean;
  /** The running pass, if one is. */
  readonly progress: IndexProgress | null;
  readonly lastPass: LastPass | null;
  /** The last failed pass's message; cleared by the next pass that succeeds. */
  readonly lastError: string | null;
}

/** What the writer publishes for readers in `<db>.state.json`. */
export interface PublishedState {
  readonly pid: number;
  readonly updatedAt: number;
  readonly freshness: Freshness;
}

export function statePathFor(dbPath: string): string {
  return `${dbPath}.state.json`;
}

/** Replaces the state file atomically (write aside, rename): a reader never sees half of it. */
export function publishState(path: string, state: PublishedState): void {
  const aside = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(aside, JSON.stringify(state));
    renameSync(aside, path);
  } catch {
    // freshness reporting must never break indexing
  }
}

export function readState(path: string): PublishedState | undefined {
  try {
    const value = JSON.parse(readFileSync(path, 'utf8')) as PublishedState;
    return typeof value?.pid === 'number' && typeof value.freshness === 'object' ? value : undefined;
  } catch {
    return undefined;
  }
}

/** The freshness of an index nobody here follows: from the lock owner and what it published. */
export function observedFreshness(owner: { pid: number; role?: 'index' | 'watch' | undefined } | undefined, published: PublishedState | undefined): Freshness {
  const writer = owner ? { pid: owner.pid, role: owner.role ?? 'index' } : null;
  const theirs = owner && published?.pid === owner.pid ? published.freshness : undefined;
  if (theirs) return { ...theirs, role: 'none', writer };
  return {
    state: owner ? 'indexing' : 'unwatched',
    role: 'none',
    writer,
    watcher: null,
    pendingChanges: 0,
    rescanPending: false,
    progress: null,
    lastPass: null,
    lastError: null,
  };
}
