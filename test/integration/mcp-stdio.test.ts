/**
 * `scry mcp` as a client starts it: the BUILT bin/scry.js spawned over stdio by the SDK's
 * StdioClientTransport, in an isolated environment. dist/ is rebuilt first when src/ is newer.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema, EmptyResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { TOOLS } from '../../src/tools/catalog.js';
import { writeSmallRepo } from '../helpers/fixture-repo.js';
import { BIN, REPO, ensureFreshDist } from '../helpers/fresh-dist.js';
import { callFor, expectToolResult } from '../helpers/mcp-tool-calls.js';
import { isolatedEnv, tempDir } from '../helpers/temp.js';

const VERSION = (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string }).version;
const env = (dir: string): Record<string, string> => ({ PATH: process.env.PATH ?? '', ...isolatedEnv(dir) });

let t: ReturnType<typeof tempDir>;
let root: string;

beforeAll(() => {
  ensureFreshDist();
  t = tempDir('scry-mcp-stdio-');
  root = join(t.dir, 'repo');
  writeSmallRepo(root);
  writeFileSync(join(t.dir, 'outside.txt'), 'not part of the project\n');
}, 180_000);

afterAll(() => t.cleanup());

describe('scry mcp over stdio (SDK client)', () => {
  let client: Client;
  let stderr = '';
  const clientErrors: Error[] = [];

  beforeAll(async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--root', root], env: env(t.dir), cwd: t.dir, stderr: 'pipe' });
    transport.stderr?.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
    client = new Client({ name: 'scry-stdio-test', version: '0' });
    client.onerror = (err) => void clientErrors.push(err);
    await client.connect(transport);
  });

  afterAll(async () => {
    await client.close();
  });

  it('initializes as scry with instructions about the index', () => {
    expect(client.getServerVersion()).toMatchObject({ name: 'scry', version: VERSION });
    expect(client.getInstructions()).toContain(`scry indexes the repository at ${root}`);
  });

  it('lists every tool in the catalogue', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(TOOLS.map((tool) => tool.name));
  });

  it.each(TOOLS.map((tool) => [tool.name, tool] as const))('calls %s', async (name, tool) => {
    const { args, expect: expected } = callFor(tool);
    expectToolResult(await client.callTool({ name, arguments: args }), expected, name);
  });

  it('answers bad arguments and an unknown tool with invalid_arguments envelopes', async () => {
    const bad = await client.callTool({ name: TOOLS[0]?.name ?? 'search_code', arguments: { max_tokens: -1, bogus: true } });
    expectToolResult(bad, 'invalid_arguments', 'bad arguments');
    const unknown = await client.callTool({ name: 'no_such_tool', arguments: {} });
    expect((expectToolResult(unknown, 'invalid_arguments', 'unknown tool').data as { message: string }).message).toContain('unknown tool');
  });

  it.skipIf(!TOOLS.some((d) => d.name === 'read_file'))('refuses a path outside the root with permission_denied', async () => {
    const result = await client.callTool({ name: 'read_file', arguments: { path: '../outside.txt' } });
    expect(JSON.stringify(expectToolResult(result, 'permission_denied', 'outside path'))).not.toContain('not part of the project');
  });

  it('survives malformed requests and keeps answering', async () => {
    // not a valid tools/call at all (a number as name, a string as arguments): an invalid_arguments
    // envelope the model can read, not a JSON-RPC error, and not a crash
    const bad = await client.request({ method: 'tools/call', params: { name: 42, arguments: 'x' } } as never, CallToolResultSchema);
    expect(bad.isError).toBe(true);
    expect(bad.structuredContent).toMatchObject({ ok: false, error: 'invalid_arguments' });
    await expect(client.request({ method: 'no/such/method', params: {} } as never, EmptyResultSchema)).rejects.toThrow(/-32601|not found/i);
    const { tools } = await client.listTools();
    expect(tools.length).toBe(TOOLS.length);
    expect(clientErrors).toEqual([]); // stdout carried nothing but JSON-RPC
    expect(stderr).not.toMatch(/fatal|TypeError|ReferenceError/);
  });
});

describe('scry mcp over stdio (raw lines)', () => {
  it('skips a line that is not JSON, answers the next ones, and exits 0 when stdin closes', async () => {
    const child = spawn(process.execPath, [BIN, 'mcp', '--root', root], { env: env(join(t.dir, 'raw')), cwd: t.dir, stdio: ['pipe', 'pipe', 'pipe'] });
    const lines = createInterface({ input: child.stdout });
    const received: string[] = [];
    const waiters = new Map<number, (msg: { id: number; result?: unknown; error?: unknown }) => void>();
    lines.on('line', (line) => {
      received.push(line);
      const msg = JSON.parse(line) as { id: number };
      waiters.get(msg.id)?.(msg);
    });
    const send = (msg: object): void => void child.stdin.write(`${JSON.stringify(msg)}\n`);
    const reply = (id: number) => new Promise<{ id: number; result?: unknown; error?: unknown }>((resolve) => waiters.set(id, resolve));

    child.stdin.write('this is not json\n{"jsonrpc": "2.0", "broken"\n');
    const init = reply(1);
    send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } });
    expect((await init).result).toMatchObject({ serverInfo: { name: 'scry' } });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const status = reply(2);
    send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'index_status', arguments: {} } });
    expect((await status).result).toHaveProperty('structuredContent');

    const exited = once(child, 'exit');
    child.stdin.end();
    const [code, signal] = (await exited) as [number | null, string | null];
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    for (const line of received) expect(() => JSON.parse(line)).not.toThrow();
  });
});

describe('two scry mcp servers on one project (real processes)', () => {
  it('share one index: the second reads, and takes over writing when the first exits', async () => {
    const dir = join(t.dir, 'two');
    const start = async (): Promise<{ client: Client; transport: StdioClientTransport }> => {
      const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--root', root], env: env(dir), cwd: t.dir, stderr: 'pipe' });
      const client = new Client({ name: 'scry-two', version: '0' });
      await client.connect(transport);
      return { client, transport };
    };
    type Freshness = { role: string; writer_pid: number | null; state: string };
    const freshness = async (client: Client): Promise<Freshness> => {
      const result = await client.callTool({ name: 'index_status', arguments: {} });
      return (result.structuredContent as { data: { freshness: Freshness } }).data.freshness;
    };
    const first = await start();
    let second: Awaited<ReturnType<typeof start>> | undefined;
    try {
      const firstPid = first.transport.pid!;
      // the first server indexes on start: wait until it says it writes
      for (let i = 0; (await freshness(first.client)).role !== 'writer'; i++) {
        if (i > 400) throw new Error('the first server never became the writer');
        await new Promise((r) => setTimeout(r, 50));
      }
      second = await start();
      expect(await freshness(second.client)).toMatchObject({ role: 'reader', writer_pid: firstPid });
      const hits = await second.client.callTool({ name: 'search_code', arguments: { query: 'openDatabase' } });
      expect((hits.structuredContent as { ok: boolean }).ok).toBe(true);

      await first.client.close(); // stdin closes: the first server exits and gives the lock back
      for (let i = 0; (await freshness(second.client)).role !== 'writer'; i++) {
        if (i > 400) throw new Error('the second server never took over');
        await new Promise((r) => setTimeout(r, 50));
      }
      expect((await freshness(second.client)).writer_pid).toBe(second.transport.pid);
    } finally {
      await second?.client.close();
      await first.client.close();
    }
  }, 120_000);
});
