/**
 * The MCP server in-process (client and server linked by the SDK's in-memory transport): the
 * protocol surface, every tool of the catalogue, errors as envelopes, and background indexing.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { mkdirSync } from 'node:fs';
import { createEngine, type Engine, type IndexWatch } from '../../src/index.js';
import { REFRESHING_WARNING } from '../../src/mcp/freshness-warnings.js';
import { createScryServer, type ScryServerOptions } from '../../src/mcp/server.js';
import { TOOLS, toolsFor } from '../../src/tools/catalog.js';
import { writeSmallRepo } from '../helpers/fixture-repo.js';
import { callFor, expectToolResult } from '../helpers/mcp-tool-calls.js';
import { isolatedEnv, tempDir } from '../helpers/temp.js';

async function connect(options: Omit<ScryServerOptions, 'version'>): Promise<{ client: Client; close: () => Promise<void> }> {
  const server = createScryServer({ version: '0.0.0-test', ...options });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'scry-test', version: '0' });
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  return { client, close: () => client.close() };
}

/** Enough files that a pass over them takes a while (about a second or more on a loaded machine). */
function writeManyFiles(root: string, generation: string, count = 1000): void {
  for (let d = 0; d < 30; d++) mkdirSync(join(root, 'gen', `d${d}`), { recursive: true });
  for (let i = 0; i < count; i++) {
    const body = Array.from({ length: 30 }, (_, l) => `export function ${generation}_${i}_${l}(x: number) { return x * ${l}; }`).join('\n');
    writeFileSync(join(root, 'gen', `d${i % 30}`, `m${i}.ts`), `${body}\n`);
  }
}

const envelopeOf = (result: object) => (result as { structuredContent?: unknown }).structuredContent as { ok: boolean; error: string | null; data: Record<string, unknown>; meta: { warnings: string[] } };

describe('MCP server (in-process)', () => {
  let t: ReturnType<typeof tempDir>;
  let root: string;
  let engine: Engine;
  let client: Client;
  let close: () => Promise<void>;
  let watch: IndexWatch;

  beforeAll(async () => {
    t = tempDir('scry-mcp-');
    root = join(t.dir, 'repo');
    writeSmallRepo(root);
    writeFileSync(join(t.dir, 'outside.txt'), 'not part of the project\n');
    engine = await createEngine({ root, env: isolatedEnv(t.dir) });
    await engine.index();
    watch = await engine.watch();
    await watch.ready();
    await watch.idle();
    ({ client, close } = await connect({ engine, watch }));
  });

  afterAll(async () => {
    await close();
    await watch.close();
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
    expect(instructions).toContain('Search is hybrid'); // the default: the built-in model's vectors
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

  it('index_status shows the server\'s own freshness: its role, watcher, last pass and nothing pending', async () => {
    const result = await client.callTool({ name: 'index_status', arguments: {} });
    type F = { state: string; role: string; indexing: boolean; writer_pid: number; pending_changes: number; last_pass: { reason: string; at: string }; watcher: { backend: string; watches: number }; mode: string };
    const envelope = result.structuredContent as { ok: boolean; data: { freshness: F } };
    expect(envelope.ok).toBe(true);
    const f = envelope.data.freshness;
    expect(f).toMatchObject({ state: 'fresh', role: 'writer', indexing: false, writer_pid: process.pid, pending_changes: 0 });
    expect(f.last_pass.reason).toBe('startup');
    expect(f.last_pass.at).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(f.watcher.backend).toBe('directories');
    expect(f.watcher.watches).toBeGreaterThan(0);
    expect(f.mode).toMatch(/watches the files/);
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
  const first = TOOLS.find((d) => d.name === 'search_code');

  it.skipIf(!first)('makes the first call wait for the first index and reports its progress', async () => {
    const t = tempDir('scry-mcp-first-');
    const root = join(t.dir, 'repo');
    writeSmallRepo(root);
    writeManyFiles(root, 'first');
    const engine = await createEngine({ root, env: isolatedEnv(t.dir) });
    const watch = await engine.watch({ files: false });
    const { client, close } = await connect({ engine, watch });
    try {
      const progress: Array<{ progress: number; total?: number; message?: string }> = [];
      const call = client.callTool({ name: first!.name, arguments: callFor(first!).args }, undefined, { onprogress: (p) => void progress.push(p) });
      const env = envelopeOf(await call);
      // without waiting there would be no index at all (INDEX_NOT_FOUND)
      expect(env.ok).toBe(true);
      expect(engine.isIndexed()).toBe(true);
      expect(progress.length).toBeGreaterThanOrEqual(2);
      for (let i = 1; i < progress.length; i++) expect(progress[i]!.progress).toBeGreaterThanOrEqual(progress[i - 1]!.progress);
    } finally {
      await close();
      await watch.close();
      engine.close();
      t.cleanup();
    }
  });

  it.skipIf(!first)('answers from the existing index at once while the startup pass runs, with a warning', async () => {
    const t = tempDir('scry-mcp-refresh-');
    const root = join(t.dir, 'repo');
    writeSmallRepo(root);
    writeManyFiles(root, 'before');
    const engine = await createEngine({ root, env: isolatedEnv(t.dir) });
    await engine.index();
    writeManyFiles(root, 'after'); // every generated file changed: the startup pass has work
    const watch = await engine.watch({ files: false });
    const { client, close } = await connect({ engine, watch });
    try {
      const env = envelopeOf(await client.callTool({ name: first!.name, arguments: callFor(first!).args }));
      expect(env.ok).toBe(true);
      expect(env.meta.warnings.some((w) => w.startsWith(REFRESHING_WARNING))).toBe(true);
      await watch.idle();
      const after = envelopeOf(await client.callTool({ name: first!.name, arguments: callFor(first!).args }));
      expect(after.meta.warnings.some((w) => w.startsWith(REFRESHING_WARNING))).toBe(false);
    } finally {
      await close();
      await watch.close();
      engine.close();
      t.cleanup();
    }
  });
});
