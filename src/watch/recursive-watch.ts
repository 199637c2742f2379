import type { FSWatcher } from 'node:fs';
import { IgnoreRules } from '../discover/ignore-rules.js';
import { visitTree } from './tree-visit.js';
import {
  absOf,
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

/**
 * The `recursive` backend: one `fs.watch(root, { recursive: true })`, native on macOS (FSEvents)
 * and Windows (ReadDirectoryChangesW). The OS reports everything, ignored places included, so
 * every event is judged by the walk's rules before any work: an event below a directory the walk
 * would not enter is dropped without a stat. A directory reported as a whole (moved in) has its
 * files queued. (On Linux, Node 20 emulates it in JavaScript with a watch on every file and
 * directory, node_modules included, and loses events below a renamed directory: usable, and
 * tested, but `directories` is the Linux backend.)
 */
export class RecursiveBackend implements Backend {
  private handle: FSWatcher | undefined;
  /**
   * Rules of the directories events came from, `null` for those the walk would not enter. Cleared
   * when an ignore file changes; entries below a vanished directory are forgotten.
   */
  private readonly rules = new Map<string, IgnoreRules | null>();
  private closed = false;

  constructor(private readonly ctx: BackendContext) {}

  get watches(): number {
    return this.handle ? 1 : 0;
  }

  start(): void {
    const root = this.ctx.walk.root;
    const handle = openWatch(this.ctx, root, true, (_event, filename) => this.onEvent(filename));
    if (!handle) throw new Error(`cannot watch ${root}`);
    handle.on('error', (err) => this.onWatchError(handle, err));
    this.handle = handle;
  }

  close(): void {
    this.closed = true;
    this.handle?.close();
    this.handle = undefined;
    this.rules.clear();
  }

  /** The rules entries of `dirRel` are judged by, or null when the walk would not enter it (no stat: names decide). */
  private rulesOf(dirRel: string): IgnoreRules | null {
    const cached = this.rules.get(dirRel);
    if (cached !== undefined) return cached;
    let rules: IgnoreRules | null;
    if (dirRel === '') {
      rules = IgnoreRules.forRoot(this.ctx.walk.root, this.ctx.walk.ignore);
    } else {
      const parent = this.rulesOf(parentRel(dirRel));
      rules = parent === null || this.ctx.filter.dir(parent, dirRel) ? null : parent.enter(absOf(this.ctx.walk.root, dirRel), dirRel);
    }
    this.rules.set(dirRel, rules);
    return rules;
  }

  private forget(rel: string): void {
    for (const dirRel of [...this.rules.keys()]) if (isUnder(dirRel, rel)) this.rules.delete(dirRel);
  }

  private onEvent(filename: string | null): void {
    if (!this.closed) guarded(this.ctx, () => this.handleEvent(filename));
  }

  private handleEvent(filename: string | null): void {
    const { queue, filter } = this.ctx;
    if (filename === null) return queue.requestRescan('unknown-path');
    const rel = toRel(filename).replace(/\/+$/, '');
    if (rel === '' || rel === '.') return; // the root itself
    const rules = this.rulesOf(parentRel(rel));
    if (rules === null) return;
    if (isIgnoreFile(rel)) {
      this.rules.clear();
      queue.requestRescan('ignore-rules');
      return;
    }
    const fileReason = filter.file(rules, rel);
    const dirReason = filter.dir(rules, rel);
    if (fileReason && dirReason) return;
    const stats = lstatQuiet(absOf(this.ctx.walk.root, rel));
    if (!stats) {
      if (!fileReason || this.rules.get(rel)) queue.add(rel);
      this.forget(rel);
    } else if (stats.isDirectory()) {
      // a directory moved in is reported once, not per file: queue what it holds
      if (!dirReason) visitTree(this.ctx.walk, filter, rel, rules, { enter: () => true, entered: (dirRel, dirRules) => this.rules.set(dirRel, dirRules), file: (fileRel) => queue.add(fileRel) });
    } else if (!fileReason) {
      queue.add(rel);
    }
  }

  private onWatchError(handle: FSWatcher, err: unknown): void {
    if (this.closed) return;
    guarded(this.ctx, () => {
      handle.close();
      if (this.handle !== handle) return;
      this.handle = undefined;
      this.rules.clear();
      if (!lstatQuiet(this.ctx.walk.root)?.isDirectory()) {
        this.ctx.warn('watch: the root is gone; no longer watching', { root: this.ctx.walk.root, error: errorMessage(err) });
        return;
      }
      this.ctx.warn('watch: the recursive watch failed; re-watching and rescanning', { error: errorMessage(err) });
      this.ctx.queue.requestRescan('watcher-error');
      this.start();
    });
  }
}
