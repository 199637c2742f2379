/**
 * Prepared statements by SQL text, for read statements whose text varies with the call (the bm25
 * weights, a filter's placeholders): SQLite parses and plans a statement once instead of on every
 * search (issue 19, natlat: a blended question prepared three to four statements per search).
 * Bounded: the oldest text goes when `max` are held. Statements belong to one connection.
 */
import type { Db } from './database.js';
import type { Statement } from './driver.js';

export class StatementCache {
  private readonly held = new Map<string, Statement<never[], unknown>>();

  constructor(
    private readonly db: Db,
    private readonly max = 32,
  ) {}

  /** The statement of `sql`, prepared on its first use. */
  get<P extends unknown[] = unknown[], R = unknown>(sql: string): Statement<P, R> {
    const kept = this.held.get(sql);
    if (kept) return kept as unknown as Statement<P, R>;
    const stmt = this.db.prepare<P, R>(sql);
    this.held.set(sql, stmt as unknown as Statement<never[], unknown>);
    if (this.held.size > this.max) this.held.delete(this.held.keys().next().value!);
    return stmt;
  }

  /** Statements held (for tests). */
  get size(): number {
    return this.held.size;
  }
}
