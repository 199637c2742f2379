import { checkSearchRequest, EngineError } from '../index.js';
import type { TeamSearchOptions, TeamSearchResponse, TeamStore } from '../team/team-store.js';
import { parseRepoList, type AccessControl, type Principal } from './access.js';

/** Most results one API search returns (`k`). */
export const MAX_API_RESULTS = 100;
/** Results when `k` is not given. */
export const DEFAULT_API_RESULTS = 10;

export interface SearchRequest {
  readonly query: string;
  /** Repository names asked for; undefined = every repository the token may read. */
  readonly repos: readonly string[] | undefined;
  readonly limit: number;
  /** Content type, language and path filters (the MCP tools set them; the JSON API does not). */
  readonly filters?: TeamSearchOptions['filters'];
}

/** `?q=...&repo=a,b&k=5` → a checked request (INVALID_ARGUMENT, QUERY_EMPTY or QUERY_TOO_LONG otherwise). */
export function parseSearchParams(params: URLSearchParams): SearchRequest {
  const query = params.get('q') ?? '';
  const k = params.get('k');
  const limit = k === null ? DEFAULT_API_RESULTS : Number(k);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_API_RESULTS) throw new EngineError('INVALID_ARGUMENT', { name: 'k', reason: `must be an integer from 1 to ${MAX_API_RESULTS}` });
  checkSearchRequest(query, { limit });
  return { query, repos: parseRepoList(params.getAll('repo')), limit };
}

/** Names of the repositories searches can read: those with a committed revision. */
export async function servedRepos(store: TeamStore): Promise<string[]> {
  return (await store.listRepos()).filter((r) => r.head !== null).map((r) => r.name);
}

/**
 * One search for one principal: the repositories it asked for when it may read them all
 * (ACCESS_DENIED otherwise, before the store is touched), else every served repository it may
 * read. A principal that may read nothing gets ACCESS_DENIED, not an empty answer that would look
 * like "no match"; one whose repositories are not pushed yet gets no results.
 */
export async function searchFor(store: TeamStore, access: AccessControl, principal: Principal, request: SearchRequest): Promise<TeamSearchResponse> {
  const repos = await readableServed(store, access, principal, request.repos);
  // the store reads "no repositories" as "all of them": answer an empty search here
  if (repos.length === 0) return emptyResponse(request.query);
  return store.search(request.query, { repos, k: request.limit, filters: request.filters });
}

/**
 * The repositories a request of `principal` covers: those it asked for when it may read every one
 * (ACCESS_DENIED otherwise; REPO_NOT_FOUND for a readable one never pushed), else every pushed
 * repository it may read. ACCESS_DENIED for a principal that may read nothing at all.
 */
export async function readableServed(store: TeamStore, access: AccessControl, principal: Principal, requested: readonly string[] | undefined): Promise<string[]> {
  if (principal.read.length === 0) throw new EngineError('ACCESS_DENIED', { action: 'read', repo: 'any repository' });
  const repos = access.readable(principal, requested, requested === undefined ? await servedRepos(store) : []);
  if (requested !== undefined) {
    const served = new Set(await servedRepos(store));
    const absent = repos.find((r) => !served.has(r));
    if (absent !== undefined) throw new EngineError('REPO_NOT_FOUND', { repo: absent });
  }
  return repos;
}

function emptyResponse(query: string): TeamSearchResponse {
  return {
    query,
    results: [],
    meta: { mode: 'lexical', semantic: 'none', terms: [], droppedTerms: [], longQuery: false, plan: 'any', filesAggregated: false, tookMs: 0, indexedFiles: 0, root: '', repos: [] },
  };
}
