import { resolve } from 'node:path';
import { createEngine, isEngineError, type ConfigInput, type Engine, type Logger } from '../index.js';
import type { CliIO } from './io.js';

/** Which index a command works on: its [DIR] or --root, its --db, and what it may do to them. */
export interface EngineTarget {
  /** DIR or --root as typed (relative to the current directory). */
  readonly dir?: string | undefined;
  readonly db?: string | undefined;
  /** Without DIR, a --db with no completed pass yet is the current directory's (commands that build the index); else INDEX_NOT_FOUND. */
  readonly orCwd?: boolean | undefined;
  /** `index --rebuild` with a DIR: the index may change roots (rebuilt beside the old one, then swapped in). */
  readonly rebuild?: boolean | undefined;
  readonly config?: ConfigInput | undefined;
  readonly logger?: Logger | undefined;
}

/**
 * The engine of a command. A DIR must be the root stored in the database (else ROOT_MISMATCH,
 * nothing touched), unless `rebuild` re-roots on purpose. Without a DIR, the database named by
 * --db (or SCRY_DB) is enough: the root stored in it. The current directory is the root when no
 * database is named, or (`orCwd`) when it has no completed pass yet, or (a rebuild) cannot be read.
 */
export async function openEngine(io: CliIO, target: EngineTarget): Promise<Engine> {
  const base = { db: target.db, config: target.config, logger: target.logger };
  if (target.dir !== undefined) return createEngine({ ...base, root: resolve(io.cwd, target.dir), reroot: target.rebuild === true });
  try {
    return await createEngine(base);
  } catch (err) {
    if (!rootIsCwd(err, target)) throw err;
    return createEngine({ ...base, root: io.cwd });
  }
}

/** Whether a failure to open the database named without a DIR makes the current directory the root. */
function rootIsCwd(err: unknown, target: EngineTarget): boolean {
  if (isEngineError(err, 'INVALID_ARGUMENT')) return err.data.name === 'root'; // no database named at all
  if (isEngineError(err, 'INDEX_NOT_FOUND')) return target.orCwd === true;
  return target.rebuild === true && (isEngineError(err, 'DB_CORRUPT') || isEngineError(err, 'DB_TOO_NEW'));
}
