import { EngineError } from '../core/errors.js';
import { continuationWarnings, fileSliceData, type FileSliceData } from '../core/file-slice.js';
import type { TeamFileListing, TeamFileSlice, TeamStore } from '../team/team-store.js';
import { checkRepoName, type AccessControl, type Principal } from './access.js';
import { readableServed } from './search-route.js';

/** Byte budget of one read when none is given, and the most one read returns (the local read_file's). */
export const DEFAULT_READ_BYTES = 50_000;
export const MAX_READ_BYTES = 200_000;
/** Files one list returns when none is asked for, and at most (the local list_files tool's). */
export const DEFAULT_LIST_FILES = 200;
export const MAX_LIST_FILES = 500;

export interface ReadRequest {
  readonly repo: string;
  readonly path: string;
  readonly startLine?: number | undefined;
  readonly endLine?: number | undefined;
  readonly maxBytes?: number | undefined;
}

export interface ListRequest {
  readonly repo: string;
  readonly glob?: readonly string[] | undefined;
  readonly limit?: number | undefined;
  readonly offset?: number | undefined;
  readonly includeHidden?: boolean | undefined;
}

/** The local read_file tool's data, with the repository and the revision read. */
export interface ReadAnswer extends FileSliceData {
  readonly repo: string;
  readonly revision: number;
  /** Set when the slice stopped before the lines asked for: where to continue. */
  readonly warnings: readonly string[];
}

/** The local list_files tool's data, with the repository, the revision and the page. */
export interface ListAnswer {
  readonly repo: string;
  readonly revision: number;
  readonly total: number;
  readonly offset: number;
  readonly files: ReadonlyArray<{ readonly path: string; readonly language: string; readonly lines: number; readonly bytes: number }>;
  readonly warnings: readonly string[];
}

const intParam = (params: URLSearchParams, name: string, min: number, max: number): number | undefined => {
  const raw = params.get(name);
  if (raw === null || raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw new EngineError('INVALID_ARGUMENT', { name, reason: `must be an integer from ${min} to ${max}` });
  return n;
};

const oneRepo = (params: URLSearchParams): string => {
  const repos = params.getAll('repo');
  if (repos.length !== 1 || repos[0] === '' || repos[0]!.includes(',')) throw new EngineError('INVALID_ARGUMENT', { name: 'repo', reason: 'name exactly one repository' });
  checkRepoName(repos[0]!);
  return repos[0]!;
};

/** `?repo=R&path=P[&start=N][&end=M][&max_bytes=B]` → a checked request (INVALID_ARGUMENT otherwise). */
export function parseReadParams(params: URLSearchParams): ReadRequest {
  const repo = oneRepo(params);
  const path = params.get('path') ?? '';
  if (path === '') throw new EngineError('INVALID_ARGUMENT', { name: 'path', reason: 'is required' });
  const big = Number.MAX_SAFE_INTEGER;
  return { repo, path, startLine: intParam(params, 'start', 1, big), endLine: intParam(params, 'end', 1, big), maxBytes: intParam(params, 'max_bytes', 1024, MAX_READ_BYTES) };
}

/** `?repo=R[&glob=G][&limit=N][&offset=M][&hidden=1]` → a checked request. */
export function parseListParams(params: URLSearchParams): ListRequest {
  const repo = oneRepo(params);
  const glob = params.getAll('glob').filter((g) => g !== '');
  const hidden = params.get('hidden');
  return {
    repo,
    glob: glob.length > 0 ? glob : undefined,
    limit: intParam(params, 'limit', 1, MAX_LIST_FILES),
    offset: intParam(params, 'offset', 0, Number.MAX_SAFE_INTEGER),
    includeHidden: hidden !== null && ['1', 'true', 'yes'].includes(hidden.toLowerCase()),
  };
}

/**
 * One file read for one principal: ACCESS_DENIED before the store is touched when the token may
 * not read the repository, REPO_NOT_FOUND when it was never pushed; then the head revision's body.
 */
export async function readFileFor(store: TeamStore, access: AccessControl, principal: Principal, request: ReadRequest): Promise<ReadAnswer> {
  await readableServed(store, access, principal, [request.repo]);
  const slice: TeamFileSlice = await store.readFile(request.repo, request.path, { startLine: request.startLine, endLine: request.endLine, maxBytes: request.maxBytes ?? DEFAULT_READ_BYTES });
  return { repo: slice.repo, revision: slice.revision, ...fileSliceData(slice), warnings: continuationWarnings(slice, request.endLine) };
}

/** One file listing for one principal, with the access rules of `readFileFor`. */
export async function listFilesFor(store: TeamStore, access: AccessControl, principal: Principal, request: ListRequest): Promise<ListAnswer> {
  await readableServed(store, access, principal, [request.repo]);
  const listing: TeamFileListing = await store.listFiles(request.repo, { glob: request.glob, limit: request.limit ?? DEFAULT_LIST_FILES, offset: request.offset, includeHidden: request.includeHidden });
  const files = listing.files.map((f) => ({ path: f.path, language: f.language, lines: f.lineCount, bytes: f.size }));
  const next = listing.offset + files.length;
  return {
    repo: listing.repo,
    revision: listing.revision,
    total: listing.total,
    offset: listing.offset,
    files,
    warnings: next < listing.total ? [`${listing.total} files match; showing ${listing.offset + 1}-${next}: narrow the glob, or call again with offset ${next}`] : [],
  };
}
