import { distance } from 'fastest-levenshtein';
import { EngineError } from '../core/errors.js';
import { SYMBOL_KINDS, type SymbolKind } from '../core/symbol.js';
import type { IndexStore } from '../store/index-store.js';
import type { SymbolRow } from '../store/structure-repo.js';
import { isTestPath } from './rank.js';

/** How a symbol matched the query: name equal (`exact`), name starts with it (`prefix`), or within a few typos (`fuzzy`). */
export type SymbolMatch = 'exact' | 'prefix' | 'fuzzy';

export interface SymbolHit extends SymbolRow {
  readonly match: SymbolMatch;
  /** Edit distance between the query and the name (0 for exact, case aside). */
  readonly distance: number;
}

export interface SymbolSearchOptions {
  readonly kinds?: readonly SymbolKind[] | undefined;
  /** Range 1–1000; default 20. */
  readonly limit?: number | undefined;
}

/** Distinct symbol names, kept per index state so typo matching does not re-read them on every query. */
export interface NameCache {
  key: string;
  names: string[];
}

/** Typos tolerated for a name of this length: none under 4 characters, then 1, 2, at most 3. */
export function maxTypos(length: number): number {
  return length < 4 ? 0 : length <= 5 ? 1 : length <= 10 ? 2 : 3;
}

/** Kinds that usually answer "where is X defined" best, first. */
const KIND_ORDER: Record<SymbolKind, number> = { class: 0, interface: 0, struct: 0, enum: 0, type: 1, function: 1, method: 2, module: 3, constant: 4, variable: 5 };
const MATCH_ORDER: Record<SymbolMatch, number> = { exact: 0, prefix: 1, fuzzy: 2 };

/** `Foo.bar`, `Foo::bar`, `Foo#bar` → container `Foo`, name `bar`. */
export function splitQualified(query: string): { name: string; container?: string } {
  const m = /^(.*?)(?:\.|::|#|->)([^.:#>-]+)$/.exec(query);
  return m && m[1] ? { name: m[2]!, container: m[1] } : { name: query };
}

export function validateKinds(kinds: readonly string[] | undefined): SymbolKind[] | undefined {
  if (!kinds || kinds.length === 0 || kinds.includes('any')) return undefined;
  for (const k of kinds) {
    if (!(SYMBOL_KINDS as readonly string[]).includes(k)) {
      throw new EngineError('INVALID_ARGUMENT', { name: 'kind', reason: `unknown kind "${k}"; one of: any, ${SYMBOL_KINDS.join(', ')}` });
    }
  }
  return kinds as SymbolKind[];
}

/** The trimmed name and the limit of a symbol lookup, or QUERY_EMPTY / INVALID_ARGUMENT (checked before any index is opened). */
export function checkSymbolQuery(query: unknown, limit: number | undefined): { raw: string; limit: number } {
  const raw = typeof query === 'string' ? query.trim() : '';
  if (raw === '') throw new EngineError('QUERY_EMPTY');
  if (raw.length > 200) throw new EngineError('INVALID_ARGUMENT', { name: 'name', reason: 'a symbol name is at most 200 characters' });
  const n = limit ?? 20;
  if (!Number.isInteger(n) || n < 1 || n > 1000) throw new EngineError('INVALID_ARGUMENT', { name: 'limit', reason: 'must be an integer from 1 to 1000' });
  return { raw, limit: n };
}

/**
 * Symbol lookup: exact name matches first (same case before other case), then names starting
 * with the query (shortest first), then names within `maxTypos` edits. Within a tier: exported
 * before private, types and functions before variables, source before tests, then path.
 */
export function searchSymbols(store: IndexStore, query: string, options: SymbolSearchOptions, cache: NameCache): SymbolHit[] {
  const { raw, limit } = checkSymbolQuery(query, options.limit);
  const { name, container } = splitQualified(raw);
  const kinds = options.kinds;
  const fetch = limit * 4 + 50;
  const hits = new Map<number, SymbolHit>();
  const add = (rows: readonly SymbolRow[], match: SymbolMatch): void => {
    for (const r of rows) {
      if (hits.has(r.id)) continue;
      if (container && !containerMatches(r.container, container)) continue;
      hits.set(r.id, { ...r, match, distance: r.name === name ? 0 : distance(r.name.toLowerCase(), name.toLowerCase()) });
    }
  };
  store.read(() => {
    add(store.structure.byName(name, kinds, fetch), 'exact');
    if (hits.size < limit) add(store.structure.byPrefix(name, kinds, fetch), 'prefix');
    if (hits.size < limit) {
      for (const n of fuzzyNames(store, name, cache, limit)) add(store.structure.byName(n, kinds, fetch), 'fuzzy');
    }
  });
  return [...hits.values()].sort(compareHits(name)).slice(0, limit);
}

/** `Subject` matches container `Subject` and `rx.Subject`, not `AsyncSubject`. */
export function containerMatches(actual: string | null, wanted: string): boolean {
  const a = (actual ?? '').toLowerCase();
  const w = wanted.toLowerCase().replace(/::|#|->/g, '.');
  return a === w || a.endsWith(`.${w}`);
}

/** What `compareHits` orders by: a `SymbolHit`, or a definition of the team index (which does not know `exported`). */
export type RankedSymbol = Pick<SymbolHit, 'match' | 'name' | 'distance' | 'kind' | 'path' | 'startLine'> & { readonly exported?: boolean };

export function compareHits(name: string): (a: RankedSymbol, b: RankedSymbol) => number {
  return (a, b) =>
    MATCH_ORDER[a.match] - MATCH_ORDER[b.match] ||
    Number(b.name === name) - Number(a.name === name) ||
    (a.match === 'prefix' ? a.name.length - b.name.length : a.distance - b.distance) ||
    Number(b.exported === true) - Number(a.exported === true) ||
    KIND_ORDER[a.kind] - KIND_ORDER[b.kind] ||
    Number(isTestPath(a.path)) - Number(isTestPath(b.path)) ||
    a.path.localeCompare(b.path) ||
    a.startLine - b.startLine;
}

/** Names within the typo budget of `name`, closest first (case-insensitive). */
function fuzzyNames(store: IndexStore, name: string, cache: NameCache, limit: number): string[] {
  const budget = maxTypos(name.length);
  if (budget === 0) return [];
  const key = store.structure.version();
  if (cache.key !== key) {
    cache.names = store.structure.names();
    cache.key = key;
  }
  const target = name.toLowerCase();
  const found: Array<{ n: string; d: number }> = [];
  for (const n of cache.names) {
    if (Math.abs(n.length - target.length) > budget) continue;
    const d = distance(n.toLowerCase(), target);
    if (d > 0 && d <= budget) found.push({ n, d });
  }
  found.sort((a, b) => a.d - b.d || a.n.localeCompare(b.n));
  return found.slice(0, limit).map((f) => f.n);
}
