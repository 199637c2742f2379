/**
 * `scry mcp --collection NAME` as a client starts it (issue 22): the built bin over stdio, a real
 * SDK client, a registered collection served beside the project and kept fresh by the server.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { addCollection } from '../../src/index.js';
import { writeSmallRepo } from '../helpers/fixture-repo.js';
import { BIN, ensureFreshDist } from '../helpers/fresh-dist.js';
import { isolatedEnv, tempDir, writeTree } from '../helpers/temp.js';

type Envelope = { ok: boolean; data: { results: { collection?: string; path: string }[] }; error: unknown };

describe('scry mcp --collection over stdio', () => {
  let t: ReturnType<typeof tempDir>;
  let client: Client;

  beforeAll(async () => {
    ensureFreshDist();
    t = tempDir('scry-mcp-coll-');
    const root = join(t.dir, 'repo');
    writeSmallRepo(root);
    const notes = join(t.dir, 'notes');
    writeTree(notes, { 'postmortem.md': '# Postmortem: ledger drift\n\nThe nightly reconciliation found ledger drift after the retry storm.\n' });
    const env = isolatedEnv(t.dir);
    addCollection('notes', notes, { env });
    const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--root', root, '--collection', 'notes', '--no-watch'], env: { PATH: process.env.PATH ?? '', ...env }, cwd: t.dir, stderr: 'pipe' });
    client = new Client({ name: 'scry-coll-test', version: '0' });
    await client.connect(transport);
  }, 180_000);

  afterAll(async () => {
    await client?.close();
    t?.cleanup();
  });

  const call = async (name: string, args: Record<string, unknown>) => {
    const r = (await client.callTool({ name, arguments: args })) as unknown as { isError?: boolean; structuredContent: Envelope };
    return r;
  };

  it('searches the project and the served collection together, each result naming its collection', async () => {
    // the collection's first pass runs in the background at start: wait for its index
    let hit: { collection?: string; path: string } | undefined;
    for (let i = 0; i < 100 && !hit; i++) {
      const r = await call('search_docs', { query: 'ledger drift reconciliation', collections: ['project', 'notes'] });
      expect(r.structuredContent.ok).toBe(true);
      hit = r.structuredContent.data.results.find((x) => x.collection === 'notes');
      if (!hit) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(hit).toMatchObject({ collection: 'notes', path: 'postmortem.md' });
  });

  it('answers an unknown collection with an error envelope naming the served ones', async () => {
    const r = await call('search_code', { query: 'open database', collections: ['elsewhere'] });
    expect(r.isError).toBe(true);
    expect(r.structuredContent.error).toBe('not_found');
    expect(JSON.stringify(r.structuredContent)).toContain('COLLECTION_NOT_FOUND');
    expect(JSON.stringify(r.structuredContent)).toContain('this server serves project, notes');
  });
});
