import type { FileMatchCount } from './chunk-files.js';

/** Rows kept over all expressions: about 10 MB of row objects (their paths are the index's own strings). */
export const MAX_KEPT_ROWS = 200_000;

/**
 * The per-file match counts of FTS5 group expressions (SearchRepo.fileMatchCountsMany), by
 * expression, for one data version of the index: long texts asked of one index (an agent loop, the
 * MCP server, a benchmark) share many groups (`"typeerror" OR "type error"`, `node_modules`, a
 * project's own names), and walking a common group's position lists is most of a long query's
 * CPU (bench/README.md "Long queries: group counts kept"). A count depends on the expression and
 * the index only, so a kept one is the walk's answer; a new data version empties the cache. Bounded
 * by rows, least recently used out first.
 */
export class FileCountsCache {
  private version = '';
  private readonly entries = new Map<string, readonly FileMatchCount[]>();
  private rows = 0;

  /** The counts kept for `match` at `version` (undefined: not kept); a different version empties the cache. */
  get(version: string, match: string): readonly FileMatchCount[] | undefined {
    if (version !== this.version) {
      this.entries.clear();
      this.rows = 0;
      this.version = version;
      return undefined;
    }
    const hit = this.entries.get(match);
    if (hit !== undefined) {
      // most recently used last
      this.entries.delete(match);
      this.entries.set(match, hit);
    }
    return hit;
  }

  /** Keeps `counts` for `match` at `version` (the version of the last `get`), evicting the least recently used past the bound. */
  set(version: string, match: string, counts: readonly FileMatchCount[]): void {
    if (version !== this.version || counts.length > MAX_KEPT_ROWS || this.entries.has(match)) return;
    this.entries.set(match, counts);
    this.rows += counts.length;
    for (const [key, old] of this.entries) {
      if (this.rows <= MAX_KEPT_ROWS) break;
      this.entries.delete(key);
      this.rows -= old.length;
    }
  }

  /** Expressions kept (tests). */
  get size(): number {
    return this.entries.size;
  }
}
