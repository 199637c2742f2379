import { EngineError } from '../core/errors.js';
import type { TeamStore, TeamSymbolHit } from '../team/team-store.js';
import { parseRepoList, type AccessControl, type Principal } from './access.js';
import { readableServed } from './search-route.js';

/** Most definitions one symbol search returns, and the default (the local search_symbols tool's). */
export const MAX_SYMBOLS = 100;
export const DEFAULT_SYMBOLS = 20;
/** The kinds a search may ask for (`any`: every one); the local tool's names. */
export const SYMBOL_KIND_NAMES = ['any', 'function', 'method', 'class', 'interface', 'struct', 'enum', 'type', 'variable', 'constant', 'module'] as const;

export interface SymbolRequest {
  readonly name: string;
  readonly repos: readonly string[] | undefined;
  readonly kind: (typeof SYMBOL_KIND_NAMES)[number];
  readonly limit: number;
}

/** The local search_symbols tool's data: each definition naming its repository; `resolution` is always `name` (no language server). */
export interface SymbolAnswer {
  readonly symbols: ReadonlyArray<{ repo: string; id: string; name: string; kind: string; container?: string; signature: string | null; path: string; start_line: number; end_line: number; match: string }>;
  readonly resolution: 'name';
}

/** `?name=N[&repo=a,b][&kind=K][&k=N]` → a checked request (INVALID_ARGUMENT otherwise; an empty name is QUERY_EMPTY later). */
export function parseSymbolParams(params: URLSearchParams): SymbolRequest {
  const name = params.get('name') ?? '';
  const kind = params.get('kind') ?? 'any';
  if (!(SYMBOL_KIND_NAMES as readonly string[]).includes(kind)) throw new EngineError('INVALID_ARGUMENT', { name: 'kind', reason: `one of ${SYMBOL_KIND_NAMES.join(', ')}` });
  const k = params.get('k');
  const limit = k === null ? DEFAULT_SYMBOLS : Number(k);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_SYMBOLS) throw new EngineError('INVALID_ARGUMENT', { name: 'k', reason: `must be an integer from 1 to ${MAX_SYMBOLS}` });
  return { name, repos: parseRepoList(params.getAll('repo')), kind: kind as SymbolRequest['kind'], limit };
}

const toSymbol = (s: TeamSymbolHit): SymbolAnswer['symbols'][number] => ({
  repo: s.repo,
  id: s.id,
  name: s.name,
  kind: s.kind,
  ...(s.container ? { container: s.container } : {}),
  signature: s.signature,
  path: s.path,
  start_line: s.startLine,
  end_line: s.endLine,
  match: s.match,
});

/** Definitions by name for one principal, over the repositories it may read (the access rules of `searchFor`). */
export async function searchSymbolsFor(store: TeamStore, access: AccessControl, principal: Principal, request: SymbolRequest): Promise<SymbolAnswer> {
  const repos = await readableServed(store, access, principal, request.repos);
  if (repos.length === 0) return { symbols: [], resolution: 'name' };
  const hits = await store.searchSymbols(request.name, { repos, kinds: request.kind === 'any' ? undefined : [request.kind], limit: request.limit });
  return { symbols: hits.map(toSymbol), resolution: 'name' };
}
