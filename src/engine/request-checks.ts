import { EngineError } from '../core/errors.js';
import { compileFilters } from '../search/filters.js';
import { parseQuery } from '../search/query-parse.js';
import { checkReferenceQuery } from '../search/references.js';
import { parseSubQueries } from '../search/sub-queries.js';
import { checkSymbolQuery, validateKinds } from '../search/symbol-search.js';
import type { ReferenceOptions, SearchOptions, SymbolOptions } from './engine-api.js';

/**
 * Argument checks a caller runs before it opens or builds an index (issue 24: `scry search ""` in
 * an unindexed directory walked and indexed 23,481 files for 7 minutes, then failed with
 * QUERY_EMPTY). Each throws the EngineError the Engine method itself would throw for the same
 * arguments, from the same validators, so the two cannot drift apart. Nothing here touches disk.
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

/** What `Engine.symbols` would reject: an empty or over-long name, an unknown kind, a limit out of range. */
export function checkSymbolRequest(name: unknown, options: SymbolOptions = {}): void {
  validateKinds(typeof options.kind === 'string' ? options.kind.split(',') : options.kind);
  checkSymbolQuery(name, options.limit);
}

/** What `Engine.references` would reject: an empty name, one that is not an identifier, a limit out of range. */
export function checkReferenceRequest(name: unknown, options: ReferenceOptions = {}): void {
  checkReferenceQuery(name, options.limit ?? 50);
}

export { checkContextRequest } from './context-builder.js';
