import { EngineError } from '../core/errors.js';
import type { TeamTextResult, TeamStore } from '../team/team-store.js';
import { parseRepoList, type AccessControl, type Principal } from './access.js';
import { readableServed } from './search-route.js';

/** Most matching lines one text search returns. */
export const MAX_TEXT_MATCHES = 500;
/** Longest pattern, bytes. */
const MAX_PATTERN_BYTES = 1024;

export interface TextRequest {
  readonly pattern: string;
  readonly repos: readonly string[] | undefined;
  readonly regex: boolean;
  readonly caseSensitive?: boolean | undefined;
  readonly paths?: readonly string[] | undefined;
  readonly limit: number;
}

/** `?q=PATTERN&repo=a,b&regex=1&case=1&path=src/**&k=50` → a checked request (INVALID_ARGUMENT otherwise). */
export function parseTextParams(params: URLSearchParams): TextRequest {
  const pattern = params.get('q') ?? '';
  if (pattern === '' || Buffer.byteLength(pattern) > MAX_PATTERN_BYTES) throw new EngineError('INVALID_ARGUMENT', { name: 'q', reason: `must be 1 to ${MAX_PATTERN_BYTES} bytes` });
  const k = params.get('k');
  const limit = k === null ? 30 : Number(k);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_TEXT_MATCHES) throw new EngineError('INVALID_ARGUMENT', { name: 'k', reason: `must be an integer from 1 to ${MAX_TEXT_MATCHES}` });
  const flag = (name: string): boolean | undefined => (params.has(name) ? ['1', 'true', 'yes'].includes(params.get(name)!.toLowerCase()) : undefined);
  const paths = params.getAll('path').flatMap((p) => p.split(',')).filter((p) => p !== '');
  return { pattern, repos: parseRepoList(params.getAll('repo')), regex: flag('regex') ?? false, caseSensitive: flag('case'), paths: paths.length > 0 ? paths : undefined, limit };
}

/**
 * A literal or regex search for one principal over the repositories it may read (the access rules
 * of `searchFor`: ACCESS_DENIED before the store is touched for a repository outside its list).
 */
export async function searchTextFor(store: TeamStore, access: AccessControl, principal: Principal, request: TextRequest, signal?: AbortSignal): Promise<TeamTextResult> {
  const repos = await readableServed(store, access, principal, request.repos);
  if (repos.length === 0) return { query: request.pattern, matches: [], caseSensitive: request.caseSensitive ?? false, filesWithMatches: 0, filesScanned: 0, filesSkipped: 0, truncated: false, timedOut: false, tookMs: 0 };
  return store.searchText(request.pattern, { repos, regex: request.regex, caseSensitive: request.caseSensitive, paths: request.paths, limit: request.limit, signal });
}
