/**
 * `scry mcp --http`: Streamable HTTP on localhost. In-process for the protocol and the Host and
 * Origin checks, plus the built CLI once (it prints its URL on stderr and stops on SIGTERM).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createEngine, type Engine, type IndexWatch } from '../../src/index.js';
import { refusal, serveHttp, type HttpHandle } from '../../src/mcp/http.js';
import { createScryServer, scryServerFactory } from '../../src/mcp/server.js';
import { TOOLS } from '../../src/tools/catalog.js';
import { writeSmallRepo } from '../helpers/fixture-repo.js';
import { BIN, ensureFreshDist } from '../helpers/fresh-dist.js';
import { callFor, expectToolResult } from '../helpers/mcp-tool-calls.js';
import { isolatedEnv, tempDir } from '../helpers/temp.js';

const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } };

/** A raw POST with exactly these headers (fetch would not let us set Host). */
function post(url: string, headers: Record<string, string>, body: unknown = INIT, method = 'POST'): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => void (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(method === 'POST' ? JSON.stringify(body) : undefined);
  });
}

async function connect(url: string): Promise<Client> {
  const client = new Client({ name: 'scry-http-test', version: '0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

describe('Host and Origin checks', () => {
  it.each([
    ['127.0.0.1:7333', undefined],
    ['localhost', undefined],
    ['[::1]:7333', undefined],
    ['localhost:7333', 'http://localhost:5173'],
    ['127.0.0.1:7333', 'http://127.0.0.1:7333'],
  ])('lets Host %s with Origin %s through', (host, origin) => {
    expect(refusal(host, origin)).toBeUndefined();
  });

  it.each([
    [undefined, undefined, /Missing Host/],
    ['evil.example', undefined, /Invalid Host: evil.example/],
    ['localhost.evil.example:7333', undefined, /Invalid Host/],
    ['127.0.0.1:7333', 'http://evil.example', /Invalid Origin/],
    ['127.0.0.1:7333', 'null', /Invalid Origin/],
    ['127.0.0.1:7333', 'http://127.0.0.1.evil.example', /Invalid Origin/],
  ])('refuses Host %s with Origin %s', (host, origin, message) => {
    expect(refusal(host, origin)).toMatch(message);
  });
});

describe('scry mcp over Streamable HTTP (in-process)', () => {
  let t: ReturnType<typeof tempDir>;
  let engine: Engine;
  let watch: IndexWatch;
  let http: HttpHandle;

  beforeAll(async () => {
    t = tempDir('scry-mcp-http-');
    writeSmallRepo(join(t.dir, 'repo'));
    engine = await createEngine({ root: join(t.dir, 'repo'), env: isolatedEnv(t.dir) });
    watch = await engine.watch();
    http = await serveHttp({ host: '127.0.0.1', port: 0, createServer: scryServerFactory({ engine, watch, version: '0.0.0-test' }) });
  });

  afterAll(async () => {
    await http.close();
    await watch.close();
    engine.close();
    t.cleanup();
  });

  it('serves on a free loopback port at /mcp', () => {
    expect(http.url).toBe(`http://127.0.0.1:${http.port}/mcp`);
    expect(http.port).toBeGreaterThan(0);
  });

  it('lists the tools and answers a call with an envelope', async () => {
    const client = await connect(http.url);
    try {
      expect(client.getServerVersion()?.name).toBe('scry');
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(TOOLS.map((tool) => tool.name));
      const tool = TOOLS.find((d) => d.readOnly && d.name !== 'index_status');
      const { args, expect: expected } = tool ? callFor(tool) : { args: {}, expect: 'invalid_arguments' as const };
      expectToolResult(await client.callTool({ name: tool?.name ?? 'no_such_tool', arguments: args }), expected, tool?.name ?? 'no tool');
    } finally {
      await client.close();
    }
  });

  it('serves several clients at once', async () => {
    const clients = await Promise.all([connect(http.url), connect(http.url)]);
    try {
      const lists = await Promise.all(clients.map((c) => c.listTools()));
      expect(lists[0]).toEqual(lists[1]);
    } finally {
      await Promise.all(clients.map((c) => c.close()));
    }
  });

  it('refuses a foreign Host header and a cross-origin browser request with 403', async () => {
    const evilHost = await post(http.url, { host: 'evil.example' });
    expect(evilHost.status).toBe(403);
    expect(JSON.parse(evilHost.body)).toMatchObject({ jsonrpc: '2.0', error: { code: -32000, message: expect.stringMatching(/Invalid Host/) }, id: null });
    const evilOrigin = await post(http.url, { origin: 'http://evil.example' });
    expect(evilOrigin.status).toBe(403);
    expect(evilOrigin.body).toMatch(/Invalid Origin/);
    // a page on this machine is allowed, like the client it is
    expect((await post(http.url, { origin: 'http://localhost:5173' })).status).toBe(200);
  });

  it('answers other paths 404 and GET (no sessions) 405', async () => {
    expect((await post(http.url.replace('/mcp', '/other'), {})).status).toBe(404);
    expect((await post(http.url, {}, undefined, 'GET')).status).toBe(405);
  });

  it('binds loopback addresses only', async () => {
    await expect(serveHttp({ host: '0.0.0.0', port: 0, createServer: () => createScryServer({ engine, version: '0' }) })).rejects.toThrow(/host/);
  });
});

describe('scry mcp --http (built CLI)', () => {
  it('prints its URL on stderr, serves, and stops cleanly on SIGTERM', async () => {
    ensureFreshDist();
    const t = tempDir('scry-mcp-http-cli-');
    try {
      writeSmallRepo(join(t.dir, 'repo'));
      const child = spawn(process.execPath, [BIN, 'mcp', '--http', '--port', '0', '--read-only', '--root', join(t.dir, 'repo')], {
        env: { PATH: process.env.PATH ?? '', ...isolatedEnv(t.dir) },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      const url = await new Promise<string>((resolve, reject) => {
        child.stderr.on('data', (c: Buffer) => {
          stderr += c.toString();
          const m = /at (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr);
          if (m) resolve(m[1]!);
        });
        child.once('exit', (code) => reject(new Error(`exited ${code}: ${stderr}`)));
      });
      const client = await connect(url);
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(TOOLS.filter((tool) => tool.readOnly).map((tool) => tool.name));
      await client.close();
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      expect(await exited).toEqual([0, null]);
    } finally {
      t.cleanup();
    }
  }, 180_000);
});
