import { EngineError } from '../core/errors.js';
import { compileFilters } from '../search/filters.js';
import { parseQuery } from '../search/query-parse.js';
import { parseSubQueries } from '../search/sub-queries.js';
import type { SearchOptions } from './engine-api.js';

/**
 * Argument checks a caller runs before it opens or builds an index (issue 24: `scry search ""` in
 * an unindexed directory walked and indexed 23,481 files for 7 minutes, then failed with
 * QUERY_EMPTY). Each throws the EngineError the Engine method itself would throw for the same
 * arguments, from the same validators, so the two cannot drift apart. Nothing here touches disk.
 * The checks of `symbols` and `references` are in structure-checks.ts, of `context` in
 * context-builder.ts: `scry search` loads none of their validators (issue 19: start-up).
 */
export function checkSearchRequest(query: unknown, options: Pick<SearchOptions, 'limit' | 'mode' | 'path' | 'language' | 'type' | 'where'> = {}): void {
  if (typeof query !== 'string') throw new EngineError('INVALID_ARGUMENT', { name: 'query', reason: 'must be a string' });
  const { limit, mode } = options;
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 1 || limit > 1000)) throw new EngineError('INVALID_ARGUMENT', { name: 'limit', reason: 'must be an integer from 1 to 1000' });
  if (mode !== undefined && !['auto', 'lexical', 'vector', 'hybrid'].includes(mode)) throw new EngineError('INVALID_ARGUMENT', { name: 'mode', reason: 'must be auto, lexical, vector or hybrid' });
  compileFilters({ path: options.path, language: options.language, type: options.type, where: options.where });
  const subs = parseSubQueries(query);
  // a query without typed lines goes to the lexical list whole: it must have a term in it
  if (!subs.typed) parseQuery(query);
}
