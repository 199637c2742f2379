import type { FSWatcher } from 'node:fs';
import type { IgnoreRules } from '../discover/ignore-rules.js';
import { visitTree } from './tree-visit.js';
import {
  absOf,
  childRel,
  errorMessage,
  guarded,
  isIgnoreFile,
  isUnder,
  lstatQuiet,
  openWatch,
  parentRel,
  toRel,
  type Backend,
  type BackendContext,
} from './watch-context.js';

interface WatchedDir {
  readonly handle: FSWatcher;
  /** Inode when the watch was placed: an inotify watch follows its inode when the directory moves. */
  readonly ino: number;
  /** The rules this directory was entered with (its entries are judged by them); set once it is listed. */
  rules: IgnoreRules | undefined;
}

/**
 * The `directories` backend: one non-recursive watch per directory the index walk enters. Ignored
 * directories (node_modules, .git, gitignored ones) never get a watch, and files need none:
 * inotify on a directory reports creation, change, deletion and moves of its entries.
 */
export class DirectoryBackend implements Backend {
  /** Watched directories by root-relative path ('' is the root). */
  private readonly dirs = new Map<string, WatchedDir>();
  /** Directories whose ignore files changed, resynced together once the current events are handled. */
  private readonly resyncDue = new Set<string>();
  private resyncTimer: NodeJS.Immediate | undefined;
  private closed = false;

  constructor(private readonly ctx: BackendContext) {}

  get watches(): number {
    return this.dirs.size;
  }

  start(): void {
    this.syncTree('', undefined);
    if (!this.dirs.has('')) throw new Error(`cannot watch ${this.ctx.walk.root}`);
  }

  close(): void {
    this.closed = true;
    if (this.resyncTimer) clearImmediate(this.resyncTimer);
    for (const dir of this.dirs.values()) dir.handle.close();
    this.dirs.clear();
  }

  /**
   * Makes the watches at and below `rel` match what the walk would enter now: places missing
   * ones, refreshes rules, closes those no longer entered. `onFile` receives the files found.
   */
  private syncTree(rel: string, parentRules: IgnoreRules | undefined, onFile?: (fileRel: string) => void): void {
    const seen = new Set<string>();
    visitTree(this.ctx.walk, this.ctx.filter, rel, parentRules, {
      enter: (dirRel, abs) => {
        if (!this.ensureWatch(dirRel, abs)) return false;
        seen.add(dirRel);
        return true;
      },
      entered: (dirRel, rules) => {
        const dir = this.dirs.get(dirRel);
        if (dir) dir.rules = rules;
      },
      ...(onFile && { file: onFile }),
    });
    // what was not entered now is not watched now (nothing below an unentered directory is entered)
    for (const [dirRel, dir] of [...this.dirs]) {
      if (!isUnder(dirRel, rel) || seen.has(dirRel)) continue;
      dir.handle.close();
      this.dirs.delete(dirRel);
    }
  }

  /** Resyncs `rel` from its parent's rules (nothing to do if the parent is no longer watched). */
  private resync(rel: string): void {
    const parentRules = rel === '' ? undefined : this.dirs.get(parentRel(rel))?.rules;
    if (rel === '' || parentRules !== undefined) this.syncTree(rel, parentRules);
  }

  /** A save is several events: resync once for all of them (a resync lists the whole subtree). */
  private scheduleResync(dirRel: string): void {
    this.resyncDue.add(dirRel);
    this.resyncTimer ??= setImmediate(() => {
      this.resyncTimer = undefined;
      const due = [...this.resyncDue];
      this.resyncDue.clear();
      if (this.closed) return;
      guarded(this.ctx, () => {
        for (const rel of due) if (!due.some((other) => other !== rel && isUnder(rel, other))) this.resync(rel);
      });
    });
  }

  private ensureWatch(rel: string, abs: string): boolean {
    const stats = lstatQuiet(abs);
    if (!stats?.isDirectory()) return false;
    const existing = this.dirs.get(rel);
    if (existing?.ino === stats.ino) return true;
    if (existing) this.unwatchTree(rel);
    const handle = openWatch(this.ctx, abs, false, (_event, filename) => this.onEvent(rel, filename));
    if (!handle) return false;
    const dir: WatchedDir = { handle, ino: stats.ino, rules: undefined };
    handle.on('error', (err) => this.onWatchError(rel, dir, err));
    this.dirs.set(rel, dir);
    return true;
  }

  private unwatchTree(rel: string): void {
    for (const [dirRel, dir] of [...this.dirs]) {
      if (!isUnder(dirRel, rel)) continue;
      dir.handle.close();
      this.dirs.delete(dirRel);
    }
  }

  private onEvent(dirRel: string, filename: string | null): void {
    if (!this.closed) guarded(this.ctx, () => this.handleEvent(dirRel, filename));
  }

  private handleEvent(dirRel: string, filename: string | null): void {
    const dir = this.dirs.get(dirRel);
    if (dir?.rules === undefined) return; // a watch closed since the event was queued
    const { queue, filter } = this.ctx;
    if (!filename) return queue.requestRescan('unknown-path');
    const rel = childRel(dirRel, toRel(filename));
    if (isIgnoreFile(rel)) {
      queue.requestRescan('ignore-rules');
      this.scheduleResync(dirRel);
      return;
    }
    const fileReason = filter.file(dir.rules, rel);
    const dirReason = filter.dir(dir.rules, rel);
    if (fileReason && dirReason) return;
    const stats = lstatQuiet(absOf(this.ctx.walk.root, rel));
    const watched = this.dirs.get(rel);
    if (watched && !(stats?.isDirectory() && stats.ino === watched.ino)) {
      // a watched directory gone, moved away or replaced: the consumer drops what it held
      this.unwatchTree(rel);
      queue.add(rel);
    }
    if (!stats) {
      // inotify reports a watched directory's own events (moved, deleted, attributes changed)
      // under the directory's name, as if it were a child. A watch whose directory moved or went
      // away is left to the parent's watch; a self-event of a directory still in place queues a
      // path that does not exist, which costs the consumer nothing (a real child of the same
      // name cannot be told apart, and must not be missed).
      if (!watched && !fileReason && this.isCurrent(dirRel, dir)) queue.add(rel);
    } else if (stats.isDirectory()) {
      // watch it and everything below, and queue the files already there: they may have been
      // written before the watch was placed (`mkdir -p a/b && echo x > a/b/c.ts`)
      if (!dirReason && !this.dirs.has(rel)) this.syncTree(rel, dir.rules, (fileRel) => queue.add(fileRel));
    } else if (!fileReason) {
      queue.add(rel);
    }
  }

  /** Is the watched directory still at its path? */
  private isCurrent(dirRel: string, dir: WatchedDir): boolean {
    return lstatQuiet(absOf(this.ctx.walk.root, dirRel))?.ino === dir.ino;
  }

  private onWatchError(rel: string, dir: WatchedDir, err: unknown): void {
    if (this.closed) return;
    guarded(this.ctx, () => {
      dir.handle.close();
      if (this.dirs.get(rel) !== dir) return;
      this.dirs.delete(rel);
      if (!lstatQuiet(absOf(this.ctx.walk.root, rel))?.isDirectory()) return; // gone: its parent reports it
      this.ctx.warn('watch: a directory watch failed; re-watching it and rescanning', { path: rel === '' ? '.' : rel, error: errorMessage(err) });
      this.ctx.queue.requestRescan('watcher-error');
      this.resync(rel);
    });
  }
}
