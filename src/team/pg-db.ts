/**
 * The connection pool of the team index and its two transaction shapes: a read snapshot (REPEATABLE
 * READ, read only: a search's queries all see one state of the database, whatever commits
 * meanwhile) and a write transaction. Driver failures become TEAM_DB_FAILED; catalogue errors pass.
 */
import pg from 'pg';
import { EngineError } from '../core/errors.js';

export type Sql = (text: string, values?: readonly unknown[]) => Promise<pg.QueryResult<Record<string, unknown>>>;

export interface PgDbOptions {
  /** Most connections the pool opens; default 10. */
  readonly maxConnections?: number | undefined;
  /** Per-statement timeout, ms; default 60 000 (0: none). */
  readonly statementTimeoutMs?: number | undefined;
}

const translate = (err: unknown): unknown => {
  if (err instanceof EngineError) return err;
  return new EngineError('TEAM_DB_FAILED', { reason: (err as Error)?.message ?? String(err) }, { cause: err });
};

export class PgDb {
  private readonly pool: pg.Pool;

  constructor(url: string, options: PgDbOptions = {}) {
    this.pool = new pg.Pool({
      connectionString: url,
      max: options.maxConnections ?? 10,
      statement_timeout: options.statementTimeoutMs ?? 60_000,
      application_name: 'scry',
    });
    // an idle client's error (server restart) must not crash the process; the next query reconnects
    this.pool.on('error', () => undefined);
  }

  private async with<T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (err) {
      throw translate(err);
    }
    let broken = false;
    try {
      return await fn(client);
    } catch (err) {
      broken = !(err instanceof EngineError);
      throw translate(err);
    } finally {
      client.release(broken);
    }
  }

  private static sql(client: pg.PoolClient): Sql {
    return (text, values) => client.query(text, values as unknown[] | undefined);
  }

  /** One statement outside a transaction. */
  query(text: string, values?: readonly unknown[]): Promise<pg.QueryResult<Record<string, unknown>>> {
    return this.with((c) => c.query(text, values as unknown[] | undefined));
  }

  /** `fn` in one read-only REPEATABLE READ transaction: every query sees the same snapshot. */
  read<T>(fn: (sql: Sql) => Promise<T>): Promise<T> {
    return this.transaction('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY', fn);
  }

  /** `fn` in one READ COMMITTED write transaction: all of it commits, or none. */
  write<T>(fn: (sql: Sql) => Promise<T>): Promise<T> {
    return this.transaction('BEGIN', fn);
  }

  private transaction<T>(begin: string, fn: (sql: Sql) => Promise<T>): Promise<T> {
    return this.with(async (client) => {
      await client.query(begin);
      try {
        const out = await fn(PgDb.sql(client));
        await client.query('COMMIT');
        return out;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      }
    });
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
