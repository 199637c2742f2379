import { checkReferenceQuery } from '../search/references.js';
import { checkSymbolQuery, validateKinds } from '../search/symbol-search.js';
import type { ReferenceOptions, SymbolOptions } from './engine-api.js';

// Argument checks of the structure queries, run before an index is opened or built (issue 24);
// see request-checks.ts.

/** What `Engine.symbols` would reject: an empty or over-long name, an unknown kind, a limit out of range. */
export function checkSymbolRequest(name: unknown, options: SymbolOptions = {}): void {
  validateKinds(typeof options.kind === 'string' ? options.kind.split(',') : options.kind);
  checkSymbolQuery(name, options.limit);
}

/** What `Engine.references` would reject: an empty name, one that is not an identifier, a limit out of range. */
export function checkReferenceRequest(name: unknown, options: ReferenceOptions = {}): void {
  checkReferenceQuery(name, options.limit ?? 50);
}
