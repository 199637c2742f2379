import { createServer as createHttpServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EngineError } from '../core/errors.js';
import type { ServeConfig } from '../config/serve.js';
import { serveStatelessMcp } from '../mcp/http.js';
import { AccessControl, type Principal } from './access.js';
import { readJson, sendError, sendJson } from './http-io.js';
import type { TeamStore } from '../team/team-store.js';
import { PUSH_STEPS, type PushStep } from './push-payload.js';
import { PushBudget, runPushStep } from './push-routes.js';
import { listFilesFor, parseListParams, parseReadParams, readFileFor } from './file-routes.js';
import { parseSearchParams, searchFor, servedRepos } from './search-route.js';
import { parseSymbolParams, searchSymbolsFor } from './symbol-route.js';
import { createTeamMcpServer } from './team-mcp.js';
import { parseTextParams, searchTextFor } from './text-route.js';

export const DEFAULT_SERVE_HOST = '127.0.0.1';
export const DEFAULT_SERVE_PORT = 7334;
/** The endpoints (docs/DESIGN.md, "Team index"). */
export const ROUTES = { health: ['/healthz', '/api/health'], repos: '/api/repos', search: '/api/search', searchText: '/api/search_text', readFile: '/api/read_file', files: '/api/files', symbols: '/api/symbols', push: '/api/push/', mcp: '/mcp' } as const;
/** How often the stale-revision sweep runs (a fraction of serve.staleRevisionMs, at least a minute apart). */
const SWEEP_DIVISOR = 4;
/** Idle keep-alive connections stay open this long (Node's default of 5 s races with clients reusing them). */
const KEEP_ALIVE_MS = 65_000;

export interface TeamServerOptions {
  readonly store: TeamStore;
  readonly config: ServeConfig;
  /** Interface to bind; default 127.0.0.1 (put a TLS reverse proxy in front to serve a network). */
  readonly host?: string | undefined;
  /** TCP port; 0 picks a free one. Default 7334. */
  readonly port?: number | undefined;
  /** Reported as the MCP server version. */
  readonly version: string;
  /** The team database's schema version (what `migrate()` left), for the health endpoint. */
  readonly schema: number;
  /** Told about requests that failed with a 5xx, and sweep results. */
  readonly log?: ((line: string) => void) | undefined;
  /** An access log: called as each request arrives, before it is handled (method and path, never the token or query). */
  readonly onRequest?: ((request: { readonly method: string; readonly path: string }) => void) | undefined;
}

export interface TeamServerHandle {
  /** `http://127.0.0.1:7334`: the base URL (the API under /api, MCP at /mcp). */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

interface Ctx {
  readonly store: TeamStore;
  readonly access: AccessControl;
  readonly budget: PushBudget;
  readonly config: ServeConfig;
  readonly version: string;
  readonly schema: number;
}

async function route(req: IncomingMessage, res: ServerResponse, ctx: Ctx): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://scry.invalid');
  const path = url.pathname;
  if ((ROUTES.health as readonly string[]).includes(path)) {
    // no token needed, and nothing about the repositories
    await ctx.store.listRepos(); // the database answers
    return sendJson(res, 200, { ok: true, schema: ctx.schema, version: ctx.version });
  }
  const principal = ctx.access.authenticate(req.headers.authorization);
  if (path === ROUTES.search) {
    if (req.method !== 'GET') return methodNotAllowed(res, 'GET');
    const request = parseSearchParams(url.searchParams);
    return sendJson(res, 200, await searchFor(ctx.store, ctx.access, principal, request));
  }
  if (path === ROUTES.searchText) {
    if (req.method !== 'GET') return methodNotAllowed(res, 'GET');
    return sendJson(res, 200, await searchTextFor(ctx.store, ctx.access, principal, parseTextParams(url.searchParams)));
  }
  if (path === ROUTES.readFile) {
    if (req.method !== 'GET') return methodNotAllowed(res, 'GET');
    return sendJson(res, 200, await readFileFor(ctx.store, ctx.access, principal, parseReadParams(url.searchParams)));
  }
  if (path === ROUTES.files) {
    if (req.method !== 'GET') return methodNotAllowed(res, 'GET');
    return sendJson(res, 200, await listFilesFor(ctx.store, ctx.access, principal, parseListParams(url.searchParams)));
  }
  if (path === ROUTES.symbols) {
    if (req.method !== 'GET') return methodNotAllowed(res, 'GET');
    return sendJson(res, 200, await searchSymbolsFor(ctx.store, ctx.access, principal, parseSymbolParams(url.searchParams)));
  }
  if (path === ROUTES.repos) {
    if (req.method !== 'GET') return methodNotAllowed(res, 'GET');
    return sendJson(res, 200, { repositories: ctx.access.readable(principal, undefined, await servedRepos(ctx.store)) });
  }
  if (path.startsWith(ROUTES.push)) return pushRoute(req, res, ctx, principal, path.slice(ROUTES.push.length));
  if (path === ROUTES.mcp) return serveStatelessMcp(req, res, () => createTeamMcpServer({ store: ctx.store, access: ctx.access, principal, version: ctx.version }));
  return sendJson(res, 404, { error: { code: 'INVALID_ARGUMENT', message: `no endpoint ${path}`, hint: 'GET /api/search, GET /api/search_text, GET /api/read_file, GET /api/files, GET /api/symbols, GET /api/repos, POST /api/push/*, POST /mcp, GET /healthz' } });
}

async function pushRoute(req: IncomingMessage, res: ServerResponse, ctx: Ctx, principal: Principal, step: string): Promise<void> {
  if (!(PUSH_STEPS as readonly string[]).includes(step)) return sendJson(res, 404, { error: { code: 'INVALID_ARGUMENT', message: `no push step ${step}`, hint: `one of ${PUSH_STEPS.join(', ')}` } });
  if (req.method !== 'POST') return methodNotAllowed(res, 'POST');
  // a token that may push nowhere is refused before its body is read
  if (principal.push.length === 0) throw new EngineError('ACCESS_DENIED', { action: 'push', repo: 'any repository' });
  // the manifest comes whole with the commit: its own, larger cap
  const body = await readJson(req, step === 'commit' ? ctx.config.maxManifestBytes : ctx.config.maxBodyBytes);
  const { maxBodyBytes, maxManifestBytes, maxPushBytes } = ctx.config;
  const result = await runPushStep(step as PushStep, body, { store: ctx.store, access: ctx.access, principal, budget: ctx.budget, limits: { maxBodyBytes, maxManifestBytes, maxPushBytes } });
  return sendJson(res, 200, result);
}

function methodNotAllowed(res: ServerResponse, allow: string): void {
  sendJson(res, 405, { error: { code: 'INVALID_ARGUMENT', message: `method not allowed; use ${allow}`, hint: null } }, { allow });
}

/**
 * `scry serve`: the JSON API, push endpoints and MCP over one ServeStore. Every request but the
 * health check authenticates first (AUTH_REQUIRED → 401), then checks the repository scope of the
 * token (ACCESS_DENIED → 403) before the store is touched. Errors answer with the CLI's JSON error
 * shape and a status from http-io. A background sweep deletes revisions left by dead pushes.
 */
export async function startTeamServer(options: TeamServerOptions): Promise<TeamServerHandle> {
  const ctx: Ctx = { store: options.store, access: new AccessControl(options.config), budget: new PushBudget(options.config.maxPushBytes), config: options.config, version: options.version, schema: options.schema };
  const log = options.log ?? (() => undefined);
  const http: HttpServer = createHttpServer((req, res) => {
    options.onRequest?.({ method: req.method ?? 'GET', path: (req.url ?? '/').split('?')[0]! });
    route(req, res, ctx).catch((err: unknown) => {
      if (res.headersSent) return void res.end();
      if (!(err instanceof EngineError)) log(`scry serve: ${req.method} ${req.url?.split('?')[0]}: ${err instanceof Error ? err.message : String(err)}`);
      // the rest of an oversized or refused body is not read: close the connection after answering
      res.setHeader('connection', 'close');
      sendError(res, err);
      req.resume();
    });
  });
  http.requestTimeout = 300_000;
  // longer than clients' idle reuse, so a kept-alive connection is not closed under a request just sent
  http.keepAliveTimeout = KEEP_ALIVE_MS;
  http.headersTimeout = KEEP_ALIVE_MS + 1000;
  const host = options.host ?? DEFAULT_SERVE_HOST;
  await new Promise<void>((resolve, reject) => {
    http.once('error', (err) => reject(new EngineError('IO_ERROR', { path: `${host}:${options.port ?? DEFAULT_SERVE_PORT}`, reason: err.message }, { cause: err, hint: 'pick another --port, or stop the process using it' })));
    http.listen(options.port ?? DEFAULT_SERVE_PORT, host, resolve);
  });
  const sweep = async (): Promise<void> => {
    const gone = await options.store.gc({ olderThanMs: options.config.staleRevisionMs }).catch((err: unknown) => (log(`scry serve: stale-revision sweep failed: ${(err as Error).message}`), undefined));
    if (gone && gone.revisions > 0) log(`scry serve: deleted ${gone.revisions} stale uncommitted revision(s)`);
  };
  await sweep();
  const timer = setInterval(() => void sweep(), Math.max(60_000, options.config.staleRevisionMs / SWEEP_DIVISOR));
  timer.unref();
  const port = (http.address() as AddressInfo).port;
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shown}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        clearInterval(timer);
        http.close(() => resolve());
        http.closeAllConnections();
      }),
  };
}
