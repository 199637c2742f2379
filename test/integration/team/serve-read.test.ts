/**
 * read_file and list_files of `scry serve` (issue 23) against a real PostgreSQL cluster, over real
 * HTTP and a real MCP client: the auth matrix (a token for alpha never reads or lists beta, an
 * unknown repository, path traversal), the head revision only (a push's new body is served once it
 * commits, not before), and the local read_file's bounds on a huge file.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pushLocalIndex, type RunningServer } from '../../../src/serve/serve-main.js';
import { openPgTeamStore } from '../../../src/team/pg-team-store.js';
import { pushToStore } from '../../../src/team/push-local.js';
import { readPushSource } from '../../../src/team/push-source.js';
import type { TeamStore } from '../../../src/team/team-store.js';
import { pgTestsEnabled, startPgCluster, type PgCluster } from '../../helpers/pg-cluster.js';
import { isolatedEnv, tempDir } from '../../helpers/temp.js';
import { ALPHA_FILES, BETA_FILES, call, indexRepo, mcpClient, startTestServer, TOKENS, writeRepo } from './serve-helpers.js';

/** About 600 KB in 12,000 numbered lines: over the default 50,000-byte read budget, under the index's 1 MB file cap. */
const HUGE = Array.from({ length: 12_000 }, (_, i) => `export const value${i} = ${i}; // line ${i + 1} of the huge file`).join('\n') + '\n';

describe.runIf(pgTestsEnabled())('scry serve: read_file and list_files', () => {
  let cluster: PgCluster;
  let server: RunningServer;
  let store: TeamStore;
  let t: ReturnType<typeof tempDir>;
  let env: Record<string, string>;
  const root = (name: string): string => join(t.dir, name);
  const db = (name: string): string => join(t.dir, `${name}.db`);
  const read = (token: string | undefined, params: Record<string, string>) => call(`${server.url}/api/read_file?${new URLSearchParams(params).toString()}`, token);
  const files = (token: string | undefined, params: Record<string, string>) => call(`${server.url}/api/files?${new URLSearchParams(params).toString()}`, token);

  beforeAll(async () => {
    t = tempDir('scry-serve-read-');
    env = isolatedEnv(t.dir);
    cluster = await startPgCluster();
    server = await startTestServer(t.dir, cluster.url);
    store = openPgTeamStore(cluster.url);
    writeRepo(root('alpha'), { ...ALPHA_FILES, 'data/huge.ts': HUGE, '.github/ci.yml': 'on: push\n' });
    writeRepo(root('beta'), BETA_FILES);
    await indexRepo(root('alpha'), db('alpha'), env);
    await indexRepo(root('beta'), db('beta'), env);
    await pushLocalIndex({ dbPath: db('alpha'), server: server.url, repo: 'alpha', token: TOKENS.A });
    await pushLocalIndex({ dbPath: db('beta'), server: server.url, repo: 'beta', token: TOKENS.ADMIN });
  }, 120_000);

  afterAll(async () => {
    await store?.close();
    await server?.close();
    await cluster?.stop();
    t?.cleanup();
  });

  describe('JSON API', () => {
    it('reads a line range of the head revision in the local read_file shape', async () => {
      const r = await read(TOKENS.A, { repo: 'alpha', path: 'src/retry.ts', start: '2', end: '3' });
      expect(r.status).toBe(200);
      const body = ALPHA_FILES['src/retry.ts']!;
      expect(r.body).toMatchObject({ repo: 'alpha', path: 'src/retry.ts', language: 'typescript', start_line: 2, end_line: 3, total_lines: 4, truncated: false, warnings: [] });
      expect(r.body.text).toBe(body.split('\n').slice(1, 3).join('\n'));
      expect(r.body.sha256).toBe(createHash('sha256').update(body, 'utf8').digest('hex'));
      expect(typeof r.body.revision).toBe('number');
      // the whole file by default; ./ is the same path
      expect((await read(TOKENS.A, { repo: 'alpha', path: './src/retry.ts' })).body.text).toBe(body.replace(/\n$/, ''));
    });

    it('lists files in path order, filtered by glob, hidden ones on request, paged', async () => {
      const all = await files(TOKENS.A, { repo: 'alpha' });
      expect(all.status).toBe(200);
      expect(all.body.files.map((f: { path: string }) => f.path)).toEqual(['data/huge.ts', 'docs/guide.md', 'src/config.ts', 'src/retry.ts']);
      expect(all.body.files[3]).toEqual({ path: 'src/retry.ts', language: 'typescript', lines: 4, bytes: Buffer.byteLength(ALPHA_FILES['src/retry.ts']!) });
      expect((await files(TOKENS.A, { repo: 'alpha', hidden: '1' })).body.files.map((f: { path: string }) => f.path)).toContain('.github/ci.yml');
      const ts = await files(TOKENS.A, { repo: 'alpha', glob: 'src/**/*.ts' });
      expect(ts.body).toMatchObject({ total: 2, offset: 0, warnings: [] });
      const page = await files(TOKENS.A, { repo: 'alpha', limit: '2', offset: '1' });
      expect(page.body).toMatchObject({ total: 4, offset: 1 });
      expect(page.body.files.map((f: { path: string }) => f.path)).toEqual(['docs/guide.md', 'src/config.ts']);
      expect(page.body.warnings[0]).toContain('offset 3');
      expect((await files(TOKENS.A, { repo: 'alpha', glob: 'docs/' })).body.files.map((f: { path: string }) => f.path)).toEqual(['docs/guide.md']);
    });

    it('a token for alpha never reads or lists beta; unknown repositories and files are 403/404', async () => {
      for (const [token, params] of [
        [TOKENS.A, { repo: 'beta', path: 'lib/billing.py' }],
        [TOKENS.NONE, { repo: 'alpha', path: 'src/retry.ts' }],
        [TOKENS.B, { repo: 'alpha', path: 'src/retry.ts' }],
      ] as const) {
        const r = await read(token, params);
        expect(r.status).toBe(403);
        expect(r.body.error.code).toBe('ACCESS_DENIED');
        expect(JSON.stringify(r.body)).not.toMatch(/betaonlyword|alphaonlyword|billing\.py"/);
      }
      const listed = await files(TOKENS.A, { repo: 'beta' });
      expect(listed.status).toBe(403);
      expect(JSON.stringify(listed.body)).not.toContain('billing');
      // gamma is outside alpha's scope: refused as such, whether it exists or not
      expect((await read(TOKENS.A, { repo: 'gamma', path: 'x' })).status).toBe(403);
      const unknown = await read(TOKENS.ADMIN, { repo: 'gamma', path: 'x' });
      expect(unknown.status).toBe(404);
      expect(unknown.body.error.code).toBe('REPO_NOT_FOUND');
      expect((await files(TOKENS.ADMIN, { repo: 'gamma' })).body.error.code).toBe('REPO_NOT_FOUND');
      const missing = await read(TOKENS.A, { repo: 'alpha', path: 'src/retyr.ts' });
      expect(missing.status).toBe(404);
      expect(missing.body.error.code).toBe('FILE_NOT_FOUND');
      expect((await read(undefined, { repo: 'alpha', path: 'src/retry.ts' })).status).toBe(401);
      // one repository, named
      expect((await read(TOKENS.ADMIN, { repo: 'alpha,beta', path: 'src/retry.ts' })).status).toBe(400);
      expect((await files(TOKENS.ADMIN, {})).status).toBe(400);
    });

    it('refuses absolute paths and .. segments with PATH_OUTSIDE_ROOT, even for a file that exists in another repository', async () => {
      for (const path of ['../beta/lib/billing.py', 'src/../../beta/lib/billing.py', '/etc/passwd', '/src/retry.ts', 'C:\\Windows\\win.ini', '..\\beta\\lib\\billing.py', '..']) {
        const r = await read(TOKENS.ADMIN, { repo: 'alpha', path });
        expect(r.status, path).toBe(400);
        expect(r.body.error.code, path).toBe('PATH_OUTSIDE_ROOT');
      }
      expect((await read(TOKENS.ADMIN, { repo: 'alpha', path: 'src/retry.ts', start: '0' })).body.error.code).toBe('INVALID_ARGUMENT');
      expect((await read(TOKENS.ADMIN, { repo: 'alpha', path: 'src/retry.ts', start: '3', end: '2' })).body.error.code).toBe('INVALID_ARGUMENT');
      expect((await read(TOKENS.ADMIN, { repo: 'alpha', path: 'src/retry.ts', start: '9' })).body.error.code).toBe('INVALID_ARGUMENT');
      expect((await read(TOKENS.ADMIN, { repo: 'alpha', path: 'src/retry.ts', max_bytes: '500000' })).body.error.code).toBe('INVALID_ARGUMENT');
    });

    it('bounds a huge file like the local read_file: whole lines within the byte budget, and where to continue', async () => {
      const r = await read(TOKENS.A, { repo: 'alpha', path: 'data/huge.ts' });
      expect(r.status).toBe(200);
      expect(r.body.total_lines).toBe(12_000);
      expect(r.body.truncated).toBe(true);
      expect(Buffer.byteLength(r.body.text) + 1).toBeLessThanOrEqual(50_000);
      const lines = r.body.text.split('\n');
      expect(lines.length).toBe(r.body.end_line);
      expect(lines.at(-1)).toBe(HUGE.split('\n')[r.body.end_line - 1]);
      expect(r.body.warnings[0]).toContain(`start_line ${r.body.end_line + 1}`);
      const next = await read(TOKENS.A, { repo: 'alpha', path: 'data/huge.ts', start: String(r.body.end_line + 1), max_bytes: '200000' });
      expect(next.body.start_line).toBe(r.body.end_line + 1);
      expect(next.body.text.split('\n')[0]).toBe(HUGE.split('\n')[r.body.end_line]);
      expect(Buffer.byteLength(next.body.text) + 1).toBeLessThanOrEqual(200_000);
      expect(next.body.end_line).toBeLessThan(12_000);
      const tail = await read(TOKENS.A, { repo: 'alpha', path: 'data/huge.ts', start: '11999', end: '20000' });
      expect(tail.body).toMatchObject({ start_line: 11_999, end_line: 12_000, truncated: false, warnings: [] });
    });
  });

  describe('MCP at /mcp', () => {
    let alpha: Client;
    beforeAll(async () => {
      alpha = await mcpClient(server.url, TOKENS.A);
    });
    afterAll(async () => {
      await alpha?.close();
    });

    it('lists read_file and list_files taking the repository', async () => {
      const { tools } = await alpha.listTools();
      for (const name of ['read_file', 'list_files']) {
        const tool = tools.find((x) => x.name === name)!;
        expect((tool.inputSchema as { required?: string[] }).required).toContain('repo');
        expect(tool.annotations?.readOnlyHint).toBe(true);
      }
    });

    it('reads and lists alpha; beta, gamma and traversal are refused without its data', async () => {
      const ok = await alpha.callTool({ name: 'read_file', arguments: { repo: 'alpha', path: 'src/retry.ts', start_line: 2, end_line: 2 } });
      expect(ok.structuredContent).toMatchObject({ ok: true, data: { repo: 'alpha', path: 'src/retry.ts', start_line: 2, end_line: 2, text: ALPHA_FILES['src/retry.ts']!.split('\n')[1] }, meta: { warnings: [] } });
      const huge = await alpha.callTool({ name: 'read_file', arguments: { repo: 'alpha', path: 'data/huge.ts' } });
      expect((huge.structuredContent as { meta: { warnings: string[] } }).meta.warnings[0]).toContain('call again with start_line');
      const listed = await alpha.callTool({ name: 'list_files', arguments: { repo: 'alpha', glob: '*.md' } });
      expect(listed.structuredContent).toMatchObject({ ok: true, data: { total: 1, files: [{ path: 'docs/guide.md', language: 'markdown' }] } });
      for (const [name, args] of [
        ['read_file', { repo: 'beta', path: 'lib/billing.py' }],
        ['list_files', { repo: 'beta' }],
        ['read_file', { repo: 'gamma', path: 'x' }],
      ] as const) {
        const denied = await alpha.callTool({ name, arguments: args });
        expect(denied.structuredContent, `${name} ${args.repo}`).toMatchObject({ ok: false, error: 'permission_denied', data: { reason: 'ACCESS_DENIED' } });
        expect(JSON.stringify(denied)).not.toContain('betaonlyword');
      }
      const climb = await alpha.callTool({ name: 'read_file', arguments: { repo: 'alpha', path: '../beta/lib/billing.py' } });
      expect(climb.structuredContent).toMatchObject({ ok: false, data: { reason: 'PATH_OUTSIDE_ROOT' } });
      const missing = await alpha.callTool({ name: 'read_file', arguments: { repo: 'alpha', path: 'src/nope.ts' } });
      expect(missing.structuredContent).toMatchObject({ ok: false, error: 'not_found', data: { reason: 'FILE_NOT_FOUND' } });
    });
  });

  describe('search_symbols', () => {
    const symbols = (token: string | undefined, params: Record<string, string>) => call(`${server.url}/api/symbols?${new URLSearchParams(params).toString()}`, token);
    const ids = (body: { symbols: { repo: string; id: string; match: string }[] }): string[] => body.symbols.map((s) => `${s.repo}:${s.id}:${s.match}`);

    it('finds definitions by name from the stored chunks: exact, prefix, then close spellings', async () => {
      const exact = await symbols(TOKENS.A, { name: 'retryWithBackoff' });
      expect(exact.status).toBe(200);
      expect(exact.body.resolution).toBe('name');
      expect(exact.body.symbols[0]).toMatchObject({ repo: 'alpha', id: 'src/retry.ts#retryWithBackoff@1', name: 'retryWithBackoff', kind: 'function', path: 'src/retry.ts', start_line: 1, end_line: 4, match: 'exact' });
      expect(exact.body.symbols[0].signature).toContain('retryWithBackoff(attempts: number)');
      expect(ids((await symbols(TOKENS.A, { name: 'parseconfig' })).body)).toEqual(['alpha:src/config.ts#parseConfigFile@1:prefix']);
      expect(ids((await symbols(TOKENS.A, { name: 'retryWithBakoff' })).body)).toEqual(['alpha:src/retry.ts#retryWithBackoff@1:fuzzy']);
      expect((await symbols(TOKENS.A, { name: 'retryWithBackoff', kind: 'class' })).body.symbols).toEqual([]);
      const both = await symbols(TOKENS.ADMIN, { name: 'retry', k: '5' });
      expect(new Set(both.body.symbols.map((s: { repo: string }) => s.repo))).toEqual(new Set(['alpha', 'beta']));
    });

    it('a token for alpha never finds beta\'s definitions; bad names and kinds are refused', async () => {
      expect(ids((await symbols(TOKENS.A, { name: 'compute_invoice_total' })).body)).toEqual([]);
      expect(ids((await symbols(TOKENS.B, { name: 'compute_invoice_total' })).body)).toEqual(['beta:lib/billing.py#compute_invoice_total@1:exact']);
      const denied = await symbols(TOKENS.A, { name: 'compute_invoice_total', repo: 'beta' });
      expect(denied.status).toBe(403);
      expect(JSON.stringify(denied.body)).not.toContain('billing');
      expect((await symbols(TOKENS.NONE, { name: 'retry' })).status).toBe(403);
      expect((await symbols(TOKENS.ADMIN, { name: 'retry', repo: 'gamma' })).status).toBe(404);
      expect((await symbols(TOKENS.A, { name: '' })).body.error.code).toBe('QUERY_EMPTY');
      expect((await symbols(TOKENS.A, { name: 'x', kind: 'banana' })).body.error.code).toBe('INVALID_ARGUMENT');
      const mcp = await mcpClient(server.url, TOKENS.A);
      try {
        const found = await mcp.callTool({ name: 'search_symbols', arguments: { name: 'retryWithBackoff', kind: 'function' } });
        expect(found.structuredContent).toMatchObject({ ok: true, data: { symbols: [{ repo: 'alpha', id: 'src/retry.ts#retryWithBackoff@1' }], resolution: 'name' } });
        const refused = await mcp.callTool({ name: 'search_symbols', arguments: { name: 'compute_invoice_total', repos: ['beta'] } });
        expect(refused.structuredContent).toMatchObject({ ok: false, error: 'permission_denied' });
      } finally {
        await mcp.close();
      }
    });
  });

  it('serves the committed head only: a second push changing a file shows its new body once it commits', async () => {
    const before = (await read(TOKENS.A, { repo: 'alpha', path: 'src/config.ts' })).body;
    writeRepo(root('alpha'), { 'src/config.ts': 'export function parseConfigFile(text: string) {\n  // readroundtripword\n  return JSON.parse(text);\n}\n' });
    await indexRepo(root('alpha'), db('alpha'), env);
    const seen: Array<{ text: string; revision: number; listed: number }> = [];
    // the real store, with a look through the server just before the manifest commits
    const peeking: TeamStore = Object.assign(Object.create(store) as TeamStore, {
      commitRevision: async (...args: Parameters<TeamStore['commitRevision']>) => {
        const mid = (await read(TOKENS.A, { repo: 'alpha', path: 'src/config.ts' })).body;
        seen.push({ text: mid.text, revision: mid.revision, listed: (await files(TOKENS.A, { repo: 'alpha' })).body.revision });
        return store.commitRevision(...args);
      },
    });
    const source = readPushSource(db('alpha'));
    let committed;
    try {
      committed = await pushToStore(peeking, 'alpha', source);
    } finally {
      source.close();
    }
    expect(seen).toEqual([{ text: before.text, revision: before.revision, listed: before.revision }]);
    expect(before.text).not.toContain('readroundtripword');
    const after = (await read(TOKENS.A, { repo: 'alpha', path: 'src/config.ts' })).body;
    expect(after.revision).toBe(committed.id);
    expect(after.revision).not.toBe(before.revision);
    expect(after.text).toContain('readroundtripword');
    expect((await files(TOKENS.A, { repo: 'alpha' })).body.revision).toBe(committed.id);
  });
});
