import { lstatSync, watch, type FSWatcher, type Stats, type WatchOptions } from 'node:fs';
import { join, sep } from 'node:path';
import type { NameFilter, WalkOptions } from '../discover/walk.js';
import type { ChangeQueue } from './change-queue.js';

/** The shape of `fs.watch` the backends use (a seam: tests replace it to simulate ENOSPC). */
export type WatchFunction = (path: string, options: WatchOptions, listener: (eventType: string, filename: string | null) => void) => FSWatcher;

export const nodeWatch: WatchFunction = (path, options, listener) => watch(path, { ...options, encoding: 'utf8' }, listener);

/** What a backend needs from the file watcher that owns it. */
export interface BackendContext {
  readonly walk: WalkOptions;
  readonly filter: NameFilter;
  readonly queue: ChangeQueue;
  readonly persistent: boolean;
  readonly watchFn: WatchFunction;
  readonly warn: (message: string, data?: Record<string, unknown>) => void;
  /** The OS refused a watch for lack of resources at run time: the owner falls back to polling. */
  readonly fail: (error: WatchLimitError) => void;
}

/** A watch backend: holds OS watches and feeds the queue. */
export interface Backend {
  /** OS watches held. */
  readonly watches: number;
  /** Places the watches; throws WatchLimitError when the OS refuses them. */
  start(): void;
  close(): void;
}

/** Errors of `fs.watch` that mean "no more watches", as opposed to a path that vanished or is unreadable. */
const LIMIT_CODES = new Set(['ENOSPC', 'EMFILE', 'ENFILE']);

/** The OS refused a watch for lack of resources (the inotify watch or instance limit, file descriptors). */
export class WatchLimitError extends Error {
  constructor(
    readonly code: string,
    readonly path: string,
  ) {
    super(`${code}: cannot watch ${path}`);
  }

  /** A sentence for logs and status: what ran out and how to raise it. */
  get hint(): string {
    if (this.code === 'ENOSPC') return 'the inotify watch limit is reached; raise it, e.g. `sudo sysctl fs.inotify.max_user_watches=524288`';
    if (this.code === 'EMFILE') return 'too many open files or inotify instances; raise `ulimit -n` or fs.inotify.max_user_instances';
    return 'the system file table is full';
  }
}

export function errorCode(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string' ? err.code : undefined;
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * Opens a watch. Returns undefined when the path cannot be watched but the walk would skip it
 * anyway (gone, not a directory, unreadable); throws WatchLimitError when resources ran out.
 */
export function openWatch(ctx: BackendContext, abs: string, recursive: boolean, listener: (eventType: string, filename: string | null) => void): FSWatcher | undefined {
  try {
    return ctx.watchFn(abs, { persistent: ctx.persistent, recursive }, listener);
  } catch (err) {
    const code = errorCode(err);
    if (code !== undefined && LIMIT_CODES.has(code)) throw new WatchLimitError(code, abs);
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EACCES' || code === 'EPERM') return undefined;
    throw err;
  }
}

/**
 * Runs an event handler's work. Handlers must never throw (it would crash the process): running
 * out of watches falls back to polling, anything else is reported and becomes a rescan.
 */
export function guarded(ctx: BackendContext, work: () => void): void {
  try {
    work();
  } catch (err) {
    if (err instanceof WatchLimitError) return ctx.fail(err);
    ctx.warn('watch: event handling failed; rescanning', { error: errorMessage(err) });
    ctx.queue.requestRescan('watcher-error');
  }
}

/** A path reported by `fs.watch`, made root-relative and `/`-separated. */
export function toRel(filename: string): string {
  return sep === '/' ? filename : filename.split(sep).join('/');
}

export function lstatQuiet(abs: string): Stats | undefined {
  try {
    return lstatSync(abs);
  } catch {
    return undefined;
  }
}

/** `dir/name` for root-relative paths ('' is the root). */
export function childRel(dirRel: string, name: string): string {
  return dirRel === '' ? name : `${dirRel}/${name}`;
}

export function parentRel(rel: string): string {
  const slash = rel.lastIndexOf('/');
  return slash < 0 ? '' : rel.slice(0, slash);
}

export function absOf(root: string, rel: string): string {
  return rel === '' ? root : join(root, ...rel.split('/'));
}

/** Is `rel` the directory `dirRel` or inside it? */
export function isUnder(rel: string, dirRel: string): boolean {
  return dirRel === '' || rel === dirRel || rel.startsWith(`${dirRel}/`);
}

/** Ignore files change which directories are walked: their events resync the watches and rescan. */
export function isIgnoreFile(rel: string): boolean {
  const base = rel.slice(rel.lastIndexOf('/') + 1);
  return base === '.gitignore' || base === '.scryignore';
}
