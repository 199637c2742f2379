import { createHash, timingSafeEqual } from 'node:crypto';
import { EngineError } from '../core/errors.js';
import type { ServeConfig } from '../config/serve.js';
import { REPO_NAME } from './push-payload.js';

/** What one request may do, from its bearer token (or the anonymous scope). */
export interface Principal {
  /** `token:<first 4 characters>…` or `anonymous`: for logs, never the token. */
  readonly label: string;
  readonly read: readonly string[];
  readonly push: readonly string[];
}

export type Action = 'read' | 'push';

const digest = (token: string): Buffer => createHash('sha256').update(token, 'utf8').digest();

/**
 * The token table of `scry serve`. A presented token is compared with every configured one in
 * constant time (sha-256 of both, `timingSafeEqual`), so response times say nothing about how much
 * of a token was right. Built once from the frozen ServeConfig; no state changes after.
 */
export class AccessControl {
  private readonly entries: readonly { digest: Buffer; principal: Principal }[];
  private readonly anonymous: Principal | undefined;

  constructor(config: Pick<ServeConfig, 'tokens' | 'anonymousRead'>) {
    this.entries = Object.entries(config.tokens).map(([token, scope]) => ({
      digest: digest(token),
      principal: { label: `token:${token.slice(0, 4)}…`, read: scope.read, push: scope.push },
    }));
    this.anonymous = config.anonymousRead.length > 0 ? { label: 'anonymous', read: config.anonymousRead, push: [] } : undefined;
  }

  /** The principal of an `Authorization` header: AUTH_REQUIRED when it is missing (and anonymous reads are off) or names no configured token. */
  authenticate(header: string | undefined): Principal {
    if (header === undefined || header.trim() === '') {
      if (this.anonymous) return this.anonymous;
      throw new EngineError('AUTH_REQUIRED', { reason: 'the request has no Authorization header' });
    }
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match) throw new EngineError('AUTH_REQUIRED', { reason: 'the Authorization header is not "Bearer TOKEN"' });
    const presented = digest(match[1]!);
    let found: Principal | undefined;
    for (const entry of this.entries) if (timingSafeEqual(entry.digest, presented)) found = entry.principal;
    if (!found) throw new EngineError('AUTH_REQUIRED', { reason: 'the token is not one this server knows' });
    return found;
  }

  /** Throws ACCESS_DENIED unless `principal` may do `action` on `repo`. */
  check(principal: Principal, action: Action, repo: string): void {
    if (!allows(principal[action], repo)) throw new EngineError('ACCESS_DENIED', { action, repo: `repository ${repo}` });
  }

  /**
   * The repositories a search covers: `requested` (one name or several) when the principal may read
   * every one, else ACCESS_DENIED naming the first it may not; with none requested, every repository
   * of `known` the principal may read (possibly none).
   */
  readable(principal: Principal, requested: readonly string[] | undefined, known: readonly string[]): string[] {
    if (requested === undefined || requested.length === 0) return known.filter((r) => allows(principal.read, r));
    for (const repo of requested) this.check(principal, 'read', repo);
    return [...new Set(requested)];
  }
}

function allows(scope: readonly string[], repo: string): boolean {
  return scope.includes('*') || scope.includes(repo);
}

/** Splits `?repo=a,b` (or repeated `repo=`) into names, refusing malformed ones with INVALID_ARGUMENT. */
export function parseRepoList(values: readonly string[]): string[] | undefined {
  const names = values.flatMap((v) => v.split(',')).map((v) => v.trim()).filter((v) => v !== '');
  if (names.length === 0) return undefined;
  for (const name of names) checkRepoName(name);
  return names;
}

export function checkRepoName(name: string): void {
  if (!REPO_NAME.test(name)) throw new EngineError('INVALID_ARGUMENT', { name: 'repo', reason: `"${name.slice(0, 80)}" is not a repository name (1-200 of letters, digits, . _ / @ -; not starting with . or /)` });
}
