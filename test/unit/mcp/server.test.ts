/**
 * The MCP server in-process (client and server linked by the SDK's in-memory transport): the
 * protocol surface, every tool of the catalogue, errors as envelopes, and background indexing.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { createEngine, type Engine } from '../../../src/index.js';
import { IndexRefresher, REFRESHING_WARNING } from '../../../src/mcp/refresh.js';
import { createScryServer, type ScryServerOptions } from '../../../src/mcp/server.js';
import { TOOLS, toolsFor } from '../../../src/tools/catalog.js';
import { writeSmallRepo } from '../../helpers/fixture-repo.js';
import { callFor, expectToolResult } from '../../helpers/mcp-tool-calls.js';
import { isolatedEnv, tempDir } from '../../helpers/temp.js';

async function connect(options: Omit<ScryServerOptions, 'version'>): Promise<{ client: Client; close: () => Promise<void> }> {
  const server = createScryServer({ version: '0.0.0-test', ...options });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'scry-test', version: '0' });
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  return { client, close: () => client.close() };
}

/** The engine, with index passes held until `release()` (to observe a server while it indexes). */
function held(engine: Engine): { engine: Engine; release: () => void } {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const proxy = new Proxy(engine, {
    get(target, prop) {
      if (prop === 'index') return async (...args: Parameters<Engine['index']>) => (await gate, target.index(...args));
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { engine: proxy, release };
}

const envelopeOf = (result: object) => (result as { structuredContent?: unknown }).structuredContent as { ok: boolean; error: string | null; data: Record<string, unknown>; meta: { warnings: string[] } };

describe('MCP server (in-process)', () => {
  let t: ReturnType<typeof tempDir>;
  let root: string;
  let engine: Engine;
  let client: Client;
  let close: () => Promise<void>;

  beforeAll(async () => {
    t = tempDir('scry-mcp-');
    root = join(t.dir, 'repo');
    writeSmallRepo(root);
    writeFileSync(join(t.dir, 'outside.txt'), 'not part of the project\n');
    engine = await createEngine({ root, env: isolatedEnv(t.dir) });
    await engine.index();
    const refresher = new IndexRefresher(engine);
    refresher.start();
    await refresher.ready();
    ({ client, close } = await connect({ engine, refresher }));
  });

  afterAll(async () => {
    await close();
    engine.close();
    t.cleanup();
  });

  it('introduces itself with instructions saying what the index holds and how to search it', () => {
    expect(client.getServerVersion()).toMatchObject({ name: 'scry', version: '0.0.0-test' });
    expect(client.getServerCapabilities()?.tools).toBeDefined();
    const instructions = client.getInstructions()!;
    const lines = instructions.split('\n');
    expect(lines.length).toBeGreaterThanOrEqual(3);
    expect(lines.length).toBeLessThanOrEqual(6);
    expect(lines[0]).toContain(`at ${root}: 6 files (`);
    expect(lines[0]).toMatch(/typescript 2/);
    expect(instructions).toContain('lexical only');
    expect(instructions).toContain('invalid_arguments');
  });

  it('lists the catalogue with input schemas, titles and behaviour hints', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(toolsFor('stage').map((tool) => tool.name));
    for (const tool of tools) {
      const def = TOOLS.find((d) => d.name === tool.name)!;
      expect(tool.title).toBe(def.title);
      expect(tool.description).toBe(def.description);
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.inputSchema).not.toHaveProperty('$schema');
      expect(tool.inputSchema.properties).toHaveProperty('max_tokens');
      expect(tool.annotations).toMatchObject({ readOnlyHint: def.readOnly, openWorldHint: false, destructiveHint: !def.readOnly, idempotentHint: def.readOnly });
    }
  });

  it('index_status shows the server\'s own freshness: its last pass and how it refreshes', async () => {
    const result = await client.callTool({ name: 'index_status', arguments: {} });
    const envelope = result.structuredContent as { ok: boolean; data: { freshness: { indexing: boolean; last_refresh_at: string | null; mode: string } } };
    expect(envelope.ok).toBe(true);
    expect(envelope.data.freshness.indexing).toBe(false);
    expect(envelope.data.freshness.last_refresh_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(envelope.data.freshness.mode).toMatch(/at most every 30 s/);
  });

  it('hides the write tools under the read-only policy', async () => {
    const ro = await connect({ engine, writePolicy: 'read-only' });
    try {
      const { tools } = await ro.client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(TOOLS.filter((tool) => tool.readOnly).map((tool) => tool.name));
      expect(tools.every((tool) => tool.annotations?.readOnlyHint === true)).toBe(true);
      expect(ro.client.getInstructions()).not.toMatch(/Write tools/);
    } finally {
      await ro.close();
    }
  });

  it.each(TOOLS.map((tool) => [tool.name, tool] as const))('calls %s and gets its envelope as structuredContent plus a summary', async (name, tool) => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const { args, expect: expected } = callFor(tool);
    const result = await client.callTool({ name, arguments: args });
    const env = expectToolResult(result, expected, name);
    if (!tool.readOnly) expect(readFileSync(join(root, 'README.md'), 'utf8')).toBe(readme); // staged, not written
    if (env.ok && expected === 'ok') expect(env.meta.warnings).not.toContain(REFRESHING_WARNING);
  });

  it('returns bad arguments as an invalid_arguments envelope, not a protocol error', async () => {
    const tool = TOOLS.find((d) => Object.keys(d.input).length > 0);
    const name = tool?.name ?? 'index_status';
    const result = await client.callTool({ name, arguments: { no_such_argument: 1, max_tokens: 'lots' } });
    const env = expectToolResult(result, 'invalid_arguments', name);
    expect((env.data as { issues: string[] }).issues.join('\n')).toMatch(/max_tokens/);
    expect((result.content as Array<{ text: string }>)[0]!.text).toMatch(/^error invalid_arguments: invalid arguments for /);
  });

  it('answers an unknown tool with invalid_arguments and the closest name', async () => {
    const known = TOOLS[0]?.name ?? 'search_code';
    const result = await client.callTool({ name: `${known}x`, arguments: {} });
    const env = expectToolResult(result, 'invalid_arguments', 'unknown tool');
    if (TOOLS.length > 0) expect((env.data as { suggestions: string[] }).suggestions).toEqual([known]);
  });

  it.skipIf(!TOOLS.some((d) => d.name === 'read_file'))('refuses a path outside the root with permission_denied', async () => {
    for (const path of ['../outside.txt', join(t.dir, 'outside.txt')]) {
      const result = await client.callTool({ name: 'read_file', arguments: { path } });
      const env = expectToolResult(result, 'permission_denied', path);
      expect(JSON.stringify(env)).not.toContain('not part of the project');
    }
  });
});

describe('MCP server while indexing', () => {
  const first = TOOLS.find((d) => d.readOnly && d.name !== 'index_status');

  it.skipIf(!first)('makes the first call wait for the first index and reports its progress', async () => {
    const t = tempDir('scry-mcp-first-');
    writeSmallRepo(join(t.dir, 'repo'));
    const real = await createEngine({ root: join(t.dir, 'repo'), env: isolatedEnv(t.dir) });
    const { engine, release } = held(real);
    const refresher = new IndexRefresher(engine);
    const { client, close } = await connect({ engine, refresher });
    try {
      refresher.start();
      const progress: Array<{ progress: number; total?: number; message?: string }> = [];
      let answered = false;
      const call = client.callTool({ name: first!.name, arguments: callFor(first!).args }, undefined, { onprogress: (p) => void progress.push(p) }).finally(() => (answered = true));
      await new Promise((r) => setTimeout(r, 100));
      expect(answered).toBe(false);
      release();
      const env = envelopeOf(await call);
      expect(env.ok).toBe(true);
      expect(env.meta.warnings).not.toContain(REFRESHING_WARNING);
      expect(progress.length).toBeGreaterThanOrEqual(2);
      for (let i = 1; i < progress.length; i++) expect(progress[i]!.progress).toBeGreaterThan(progress[i - 1]!.progress);
      expect(progress.at(-1)).toMatchObject({ message: 'indexing: done' });
      expect(progress.at(-1)!.progress).toBe(progress.at(-1)!.total);
    } finally {
      await close();
      await refresher.close();
      real.close();
      t.cleanup();
    }
  });

  it.skipIf(!first)('answers from the existing index at once while a refresh runs, with a warning', async () => {
    const t = tempDir('scry-mcp-refresh-');
    writeSmallRepo(join(t.dir, 'repo'));
    const real = await createEngine({ root: join(t.dir, 'repo'), env: isolatedEnv(t.dir) });
    await real.index();
    const { engine, release } = held(real);
    const refresher = new IndexRefresher(engine);
    const { client, close } = await connect({ engine, refresher });
    try {
      refresher.start();
      const env = envelopeOf(await client.callTool({ name: first!.name, arguments: callFor(first!).args }));
      expect(env.ok).toBe(true);
      expect(env.meta.warnings).toContain(REFRESHING_WARNING);
      release();
      await refresher.close();
    } finally {
      await close();
      real.close();
      t.cleanup();
    }
  });
});
