/**
 * Collections (issue 22) end to end: the CLI registers a second root, `search --all` merges it
 * with the project (real SQLite databases, one per collection), the MCP server serves it with
 * `collections: [...]`, and rename/remove keep or delete its index.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { createEngine, openCollection, type CollectionMember, type Engine } from '../../src/index.js';
import { createScryServer } from '../../src/mcp/server.js';
import { runCli } from '../helpers/cli.js';
import { isolatedEnv, tempDir, writeTree } from '../helpers/temp.js';

describe('collections', () => {
  let t: ReturnType<typeof tempDir>;
  let project: string;
  let notes: string;
  const saved = { ...process.env };

  beforeAll(() => {
    t = tempDir('scry-coll-');
    project = join(t.dir, 'app');
    notes = join(t.dir, 'notes');
    writeTree(project, {
      'src/keys.ts': 'export function rotateSigningKey(store: KeyStore) {\n  return store.rotate();\n}\n',
      'src/http.ts': 'export function fetchWithRetry(url: string) {\n  return fetch(url);\n}\n',
    });
    writeTree(notes, {
      'runbooks/key-rotation.md': '# Signing key rotation runbook\n\nRotate the signing key every quarter; page the on-call first.\n',
      'runbooks/outage.md': '# Database outage\n\nFail over to the replica.\n',
      'scratch.txt': 'signing key rotation scratch notes that the include glob leaves out\n',
    });
    Object.assign(process.env, isolatedEnv(t.dir));
  });
  afterAll(() => {
    process.env = saved;
    t.cleanup();
  });

  const cli = (args: string[]) => runCli(args, { cwd: project });

  it('adds, lists and searches a collection together with the project, each result naming its collection', async () => {
    expect((await cli(['collection', 'add', 'notes', notes, '--glob', '**/*.md'])).code).toBe(0);
    const list = JSON.parse((await cli(['collection', 'list', '--json'])).stdout);
    expect(list.collections).toMatchObject([{ name: 'notes', root: notes, include: ['**/*.md'], recency: 0.15 }]);

    const r = await cli(['search', 'signing key rotation', '--all', '--json']);
    expect(r.code).toBe(0);
    const response = JSON.parse(r.stdout);
    const cited = response.results.map((x: { collection: string; path: string }) => `${x.collection}:${x.path}`);
    expect(cited).toContain('project:src/keys.ts');
    expect(cited).toContain('notes:runbooks/key-rotation.md');
    // the include glob kept the .txt file out of the collection's index
    expect(cited).not.toContain('notes:scratch.txt');
    expect(response.meta.collections.map((c: { name: string }) => c.name)).toEqual(['project', 'notes']);
    // no watcher in a one-shot CLI search: each collection says so on its own
    expect(response.meta.collections.map((c: { freshness: string }) => c.freshness)).toEqual(['unwatched', 'unwatched']);
  });

  it('searches only the named collections', async () => {
    const r = JSON.parse((await cli(['search', 'replica', '--collection', 'notes', '--json'])).stdout);
    expect(r.results.map((x: { collection: string; path: string }) => `${x.collection}:${x.path}`)).toEqual(['notes:runbooks/outage.md']);
    const missing = await cli(['search', 'replica', '--collection', 'nope']);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toContain('COLLECTION_NOT_FOUND');
  });

  it('serves collections over MCP: search_docs with collections merges them', async () => {
    const engine: Engine = await createEngine({ root: project });
    const member: CollectionMember = { name: 'notes', engine: await openCollection('notes') };
    const server = createScryServer({ engine, collections: [member], version: '0.0.0-test' });
    const [a, b] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 'scry-test', version: '0' });
    await Promise.all([server.connect(b), client.connect(a)]);
    try {
      const res = (await client.callTool({ name: 'search_docs', arguments: { query: 'signing key rotation runbook', collections: ['project', 'notes'] } })) as unknown as { structuredContent: { ok: boolean; data: { results: { collection: string; path: string }[] } } };
      expect(res.structuredContent.ok).toBe(true);
      expect(res.structuredContent.data.results[0]).toMatchObject({ collection: 'notes', path: 'runbooks/key-rotation.md' });
      const bad = (await client.callTool({ name: 'search_code', arguments: { query: 'rotate', collections: ['elsewhere'] } })) as unknown as { isError?: boolean; structuredContent: { ok: boolean } };
      expect(bad.isError).toBe(true);
      expect(bad.structuredContent.ok).toBe(false);
      expect((bad.structuredContent as unknown as { error: string }).error).toBe('not_found');
    } finally {
      await client.close();
      member.engine.close();
      engine.close();
    }
  });

  it('renames a collection keeping its index, and removes it with its index', async () => {
    const before = JSON.parse((await cli(['collection', 'list', '--json'])).stdout).collections[0];
    expect(existsSync(before.dbPath)).toBe(true);
    expect((await cli(['collection', 'rename', 'notes', 'wiki'])).code).toBe(0);
    const after = JSON.parse((await cli(['collection', 'list', '--json'])).stdout).collections[0];
    expect(after).toMatchObject({ name: 'wiki', dbPath: before.dbPath });
    expect((await cli(['collection', 'add', 'wiki', notes])).code).toBe(2); // COLLECTION_EXISTS
    expect((await cli(['collection', 'remove', 'wiki'])).code).toBe(0);
    expect(existsSync(before.dbPath)).toBe(false);
    expect(existsSync(join(notes, 'runbooks/outage.md'))).toBe(true);
  });

  it('reports a corrupt registry with its own exit code and never rewrites it', async () => {
    mkdirSync(join(t.dir, 'cache'), { recursive: true });
    writeFileSync(join(t.dir, 'cache', 'collections.json'), '{"version": 1, "collections": [');
    const r = await cli(['collection', 'add', 'again', notes]);
    expect(r.code).toBe(5);
    expect(r.stderr).toContain('COLLECTION_REGISTRY_CORRUPT');
    const s = await cli(['search', 'replica', '--all']);
    expect(s.code).toBe(5);
  });
});
