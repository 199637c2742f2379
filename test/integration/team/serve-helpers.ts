/**
 * Shared set-up of the `scry serve` / `scry push` tests (issue 23): a real PostgreSQL cluster, a
 * real server on a free port, fixture repositories indexed into real SQLite files, and HTTP and
 * MCP clients that send a bearer token.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createEngine } from '../../../src/index.js';
import { startServe, type RunningServer } from '../../../src/serve/serve-main.js';
import { writeTree } from '../../helpers/temp.js';
import { backdate } from '../../helpers/fixture-repo.js';

/** Tokens of the tests: A reads and pushes alpha, B reads beta only, ADMIN everything, NONE nothing. */
export const TOKENS = {
  A: 'token-alpha-0123456789abcdef',
  B: 'token-beta-0123456789abcdef0',
  ADMIN: 'token-admin-0123456789abcdef',
  NONE: 'token-none-0123456789abcdef0',
} as const;

export const TOKEN_SCOPES = {
  [TOKENS.A]: { read: ['alpha'], push: ['alpha'] },
  [TOKENS.B]: { read: ['beta'], push: [] },
  [TOKENS.ADMIN]: { read: ['*'], push: ['*'] },
  [TOKENS.NONE]: { read: [], push: [] },
};

/** alpha and beta each hold a word the other does not, so a leak shows in any result. */
export const ALPHA_FILES: Record<string, string> = {
  'src/retry.ts': 'export function retryWithBackoff(attempts: number) {\n  // alphaonlyword: exponential backoff for flaky calls\n  return attempts * 2;\n}\n',
  'src/config.ts': 'export function parseConfigFile(text: string) {\n  return JSON.parse(text);\n}\n',
  'docs/guide.md': '# Guide\n\n## Retry\n\nCalls are retried with backoff.\n',
};
export const BETA_FILES: Record<string, string> = {
  'lib/billing.py': 'def compute_invoice_total(items):\n    """betaonlyword: sums the invoice lines"""\n    return sum(i.price for i in items)\n',
  'lib/retry.py': 'def retry_with_backoff(fn):\n    return fn()\n',
};

export function writeRepo(root: string, files: Record<string, string>): void {
  writeTree(root, files);
  backdate(root, Object.keys(files));
}

/** Indexes `root` into `db` (a real pass), returning the database path. */
export async function indexRepo(root: string, db: string, env: Record<string, string>): Promise<string> {
  const engine = await createEngine({ root, db, env });
  try {
    await engine.index({});
    return engine.dbPath;
  } finally {
    engine.close();
  }
}

/** Starts `scry serve`'s server in-process on a free port, with the test tokens in a config file. */
export async function startTestServer(dir: string, dbUrl: string, extra: Record<string, unknown> = {}, onRequest?: (r: { method: string; path: string }) => void): Promise<RunningServer> {
  const configFile = join(dir, `serve-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(configFile, JSON.stringify({ serve: { tokens: TOKEN_SCOPES, ...extra } }));
  return startServe({ db: dbUrl, port: 0, configFile, cwd: dir, env: {}, version: '0.0.0-test', log: () => undefined, onRequest });
}

export interface Answer {
  readonly status: number;
  readonly body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** One HTTP request with an optional bearer token; the body parsed as JSON. */
export async function call(url: string, token: string | undefined, init: { method?: string; body?: string | Buffer } = {}): Promise<Answer> {
  const res = await fetch(url, {
    method: init.method ?? 'GET',
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: init.body,
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: kept as text
  }
  return { status: res.status, body };
}

export const search = (base: string, token: string | undefined, params: Record<string, string>): Promise<Answer> => call(`${base}/api/search?${new URLSearchParams(params).toString()}`, token);

/** A real MCP client over Streamable HTTP sending the token on every request. */
export async function mcpClient(base: string, token: string | undefined): Promise<Client> {
  const client = new Client({ name: 'scry-team-test', version: '0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: token ? { authorization: `Bearer ${token}` } : {} } }));
  return client;
}
