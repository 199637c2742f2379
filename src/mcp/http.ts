import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { EngineError } from '../index.js';

/** Addresses `scry mcp --http` may bind: loopback only, so nothing off this machine can connect. */
export const BIND_HOSTS: readonly string[] = ['127.0.0.1', 'localhost', '::1'];
/** Hostnames accepted in Host and Origin headers (as `URL.hostname` spells them). */
const LOCAL_HOSTNAMES: readonly string[] = ['localhost', '127.0.0.1', '[::1]'];
export const DEFAULT_HTTP_HOST = '127.0.0.1';
export const DEFAULT_HTTP_PORT = 7333;
export const MCP_PATH = '/mcp';

export interface HttpServeOptions {
  /** One of BIND_HOSTS. Default 127.0.0.1. */
  readonly host?: string | undefined;
  /** TCP port; 0 picks a free one (the handle says which). Default 7333. */
  readonly port?: number | undefined;
  /** A fresh MCP server for each request (the transport is stateless). */
  readonly createServer: () => Server;
}

export interface HttpHandle {
  /** `http://127.0.0.1:7333/mcp`: what a client connects to. */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

/**
 * Why a request must be refused with 403, or undefined when it may proceed. The Host check
 * stops DNS rebinding (a web page whose name resolves to 127.0.0.1); it mirrors the SDK's
 * `localhostHostValidation` (port-agnostic hostname, parsed with URL). The Origin check stops a
 * page on another site from driving the server through the user's browser; local pages (any
 * localhost port) are trusted as much as local processes are. Clients other than browsers send
 * no Origin.
 */
export function refusal(host: string | undefined, origin: string | undefined): string | undefined {
  if (!host) return 'Missing Host header';
  let hostname: string;
  try {
    hostname = new URL(`http://${host}`).hostname;
  } catch {
    return `Invalid Host header: ${host}`;
  }
  if (!LOCAL_HOSTNAMES.includes(hostname)) return `Invalid Host: ${hostname} (this server answers localhost only)`;
  if (origin === undefined) return undefined;
  let originHost: string | undefined;
  try {
    originHost = new URL(origin).hostname;
  } catch {
    originHost = undefined; // `null` (sandboxed or file: pages) and garbage
  }
  return originHost !== undefined && LOCAL_HOSTNAMES.includes(originHost) ? undefined : `Invalid Origin: ${origin} (cross-origin browser requests are refused)`;
}

function reply(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

/**
 * One request to a stateless Streamable HTTP endpoint: POST gets a fresh MCP server from
 * `createServer` (closed with the response); other methods get 405. Shared by `scry mcp --http`
 * and `scry serve` (which makes a server per request for the request's token).
 */
export async function serveStatelessMcp(req: IncomingMessage, res: ServerResponse, createServer: () => Server): Promise<void> {
  if (req.method !== 'POST') return reply(res, 405, 'Method not allowed: this server is stateless; POST JSON-RPC messages', { allow: 'POST' });
  const server = createServer();
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  res.on('close', () => {
    void transport.close().catch(() => undefined);
    void server.close().catch(() => undefined);
  });
  await server.connect(transport);
  await transport.handleRequest(req, res);
}

/**
 * Streamable HTTP on `host:port` at `/mcp`, stateless: every POST gets its own MCP server over
 * the shared engine, so there are no sessions to leak when clients vanish. GET (a standalone
 * event stream) and DELETE (ending a session) are answered 405, which clients expect from a
 * stateless server. The SDK transport reads the body itself (4 MiB cap), not express.json's
 * 100 kB one, so large diffs for the write tools fit.
 */
export async function serveHttp(options: HttpServeOptions): Promise<HttpHandle> {
  const host = options.host ?? DEFAULT_HTTP_HOST;
  if (!BIND_HOSTS.includes(host)) throw new EngineError('INVALID_ARGUMENT', { name: 'host', reason: `must be one of ${BIND_HOSTS.join(', ')} (the server binds to this machine only)` });
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const refused = refusal(req.headers.host, req.headers.origin);
    if (refused) return reply(res, 403, refused);
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (path !== MCP_PATH) return reply(res, 404, `Not found: the MCP endpoint is ${MCP_PATH}`);
    await serveStatelessMcp(req, res, options.createServer);
  };
  const http = createHttpServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) reply(res, 500, `Internal error: ${err instanceof Error ? err.message : String(err)}`);
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', (err) => reject(new EngineError('IO_ERROR', { path: `${host}:${options.port ?? DEFAULT_HTTP_PORT}`, reason: err.message }, { cause: err, hint: 'pick another --port, or stop the process using it' })));
    http.listen(options.port ?? DEFAULT_HTTP_PORT, host, resolve);
  });
  const port = (http.address() as AddressInfo).port;
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shown}:${port}${MCP_PATH}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      }),
  };
}
