/**
 * `scry serve` and `scry push` (issue 23) against a real PostgreSQL cluster, over real HTTP, with a
 * real MCP client over Streamable HTTP: the auth matrix (a token for alpha never reads beta, on
 * every endpoint and tool), push → search round trips, a second push sending only what changed,
 * and malformed or oversized pushes refused whole with the previous revision still served.
 */
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../../src/index.js';
import { openPgTeamStore } from '../../../src/team/pg-team-store.js';
import { pushLocalIndex } from '../../../src/serve/serve-main.js';
import type { RunningServer } from '../../../src/serve/serve-main.js';
import { pgTestsEnabled, startPgCluster, type PgCluster } from '../../helpers/pg-cluster.js';
import { isolatedEnv, tempDir } from '../../helpers/temp.js';
import { ALPHA_FILES, BETA_FILES, call, indexRepo, mcpClient, search, startTestServer, TOKENS, writeRepo } from './serve-helpers.js';

describe.runIf(pgTestsEnabled())('scry serve and scry push', () => {
  let cluster: PgCluster;
  let server: RunningServer;
  let t: ReturnType<typeof tempDir>;
  let env: Record<string, string>;
  const root = (name: string): string => join(t.dir, name);
  const db = (name: string): string => join(t.dir, `${name}.db`);
  let firstAlpha: Awaited<ReturnType<typeof pushLocalIndex>>;

  beforeAll(async () => {
    t = tempDir('scry-serve-');
    env = isolatedEnv(t.dir);
    cluster = await startPgCluster();
    server = await startTestServer(t.dir, cluster.url);
    writeRepo(root('alpha'), ALPHA_FILES);
    writeRepo(root('beta'), BETA_FILES);
    await indexRepo(root('alpha'), db('alpha'), env);
    await indexRepo(root('beta'), db('beta'), env);
    firstAlpha = await pushLocalIndex({ dbPath: db('alpha'), server: server.url, repo: 'alpha', token: TOKENS.A });
    await pushLocalIndex({ dbPath: db('beta'), server: server.url, repo: 'beta', token: TOKENS.ADMIN });
  }, 120_000);

  afterAll(async () => {
    await server?.close();
    await cluster?.stop();
    t?.cleanup();
  });

  describe('push → search', () => {
    it('the first push sends every body and posting; the server answers searches naming the repository', async () => {
      expect(firstAlpha.files).toBe(3);
      expect(firstAlpha.previous).toBeNull();
      expect(firstAlpha.sent.contents).toBe(3);
      expect(firstAlpha.sent.chunks).toBe(firstAlpha.skipped.chunks + firstAlpha.sent.chunks); // nothing was on the server
      expect(firstAlpha.skipped).toEqual({ chunks: 0, contents: 0 });
      const r = await search(server.url, TOKENS.A, { repo: 'alpha', q: 'retryWithBackoff' });
      expect(r.status).toBe(200);
      expect(r.body.results[0]).toMatchObject({ repo: 'alpha', path: 'src/retry.ts', startLine: 1 });
      expect(r.body.meta.repos).toEqual([{ name: 'alpha', revision: firstAlpha.revision }]);
    });

    it('answers with the shape of `scry search --json`, the same first results as the local index', async () => {
      const engine = await createEngine({ db: db('alpha'), env });
      const local = await engine.search('retry backoff', { limit: 5 });
      engine.close();
      const remote = (await search(server.url, TOKENS.A, { repo: 'alpha', q: 'retry backoff', k: '5' })).body;
      expect(Object.keys(remote).sort()).toEqual(Object.keys(local).sort());
      expect(remote.results.map((h: { path: string; startLine: number }) => `${h.path}:${h.startLine}`)).toEqual(local.results.map((h) => `${h.path}:${h.startLine}`));
      for (const key of ['path', 'startLine', 'endLine', 'score', 'language', 'kind', 'snippet', 'chunkHash']) expect(remote.results[0]).toHaveProperty(key);
    });

    it('a second push sends only the changed file and its new postings; the old revision is served until the commit', async () => {
      writeRepo(root('alpha'), { 'src/config.ts': 'export function parseConfigFile(text: string) {\n  // secondpushword\n  return JSON.parse(text);\n}\n' });
      await indexRepo(root('alpha'), db('alpha'), env);
      const second = await pushLocalIndex({ dbPath: db('alpha'), server: server.url, repo: 'alpha', token: TOKENS.A });
      expect(second.previous).toBe(firstAlpha.revision);
      expect(second.files).toBe(3);
      expect(second.sent.contents).toBe(1);
      expect(second.skipped.contents).toBe(2);
      expect(second.sent.chunks).toBeGreaterThan(0);
      expect(second.sent.chunks).toBeLessThan(firstAlpha.sent.chunks);
      expect(second.sent.bytes).toBeLessThan(firstAlpha.sent.bytes);
      const r = await search(server.url, TOKENS.A, { repo: 'alpha', q: 'secondpushword' });
      expect(r.body.results.map((h: { path: string }) => h.path)).toEqual(['src/config.ts']);
      // the same tree again: nothing to send but the manifest
      const third = await pushLocalIndex({ dbPath: db('alpha'), server: server.url, repo: 'alpha', token: TOKENS.A });
      expect(third.sent.contents + third.sent.chunks).toBe(0);
    });
  });

  describe('auth matrix', () => {
    it('every endpoint but /healthz needs a known token (401)', async () => {
      expect((await call(`${server.url}/healthz`, undefined)).body).toMatchObject({ ok: true });
      for (const token of [undefined, 'token-unknown-0123456789abcdef']) {
        for (const [path, method] of [['/api/search?q=retry', 'GET'], ['/api/search_text?q=retry', 'GET'], ['/api/repos', 'GET'], ['/api/push/begin', 'POST'], ['/mcp', 'POST']] as const) {
          const r = await call(`${server.url}${path}`, token, { method, body: method === 'POST' ? '{}' : undefined });
          expect(r.status, `${method} ${path} with ${token ?? 'no token'}`).toBe(401);
          expect(r.body.error.code).toBe('AUTH_REQUIRED');
        }
      }
    });

    it('a token for alpha never reads beta through the JSON API', async () => {
      for (const repo of ['beta', 'alpha,beta', 'beta,alpha']) {
        const r = await search(server.url, TOKENS.A, { repo, q: 'betaonlyword' });
        expect(r.status).toBe(403);
        expect(r.body.error.code).toBe('ACCESS_DENIED');
        expect(JSON.stringify(r.body)).not.toContain('billing');
      }
      const all = await search(server.url, TOKENS.A, { q: 'betaonlyword retry' });
      expect(all.status).toBe(200);
      expect(new Set(all.body.results.map((h: { repo: string }) => h.repo))).toEqual(new Set(['alpha']));
      expect(JSON.stringify(all.body.results)).not.toMatch(/betaonlyword|billing/);
      expect((await call(`${server.url}/api/repos`, TOKENS.A)).body).toEqual({ repositories: ['alpha'] });
      // exact text: the same rules
      const text = (q: string, repo?: string) => call(`${server.url}/api/search_text?${new URLSearchParams({ q, ...(repo ? { repo } : {}) }).toString()}`, TOKENS.A);
      expect((await text('betaonlyword', 'beta')).status).toBe(403);
      expect((await text('betaonlyword')).body.matches).toEqual([]);
      const own = (await text('alphaonlyword')).body;
      expect(own.matches.map((m: { repo: string; path: string; line: number }) => `${m.repo}:${m.path}:${m.line}`)).toEqual(['alpha:src/retry.ts:2']);
      // a repository that does not exist looks the same as one the token may not read
      expect((await search(server.url, TOKENS.A, { repo: 'gamma', q: 'retry' })).status).toBe(403);
      expect((await search(server.url, TOKENS.NONE, { q: 'retry' })).status).toBe(403);
    });

    it('"*" reads every repository, each result naming its own', async () => {
      const r = await search(server.url, TOKENS.ADMIN, { q: 'retry backoff', k: '20' });
      expect(new Set(r.body.results.map((h: { repo: string }) => h.repo))).toEqual(new Set(['alpha', 'beta']));
    });

    it('a token without push access cannot push (403), whatever the body', async () => {
      for (const [token, repo] of [[TOKENS.B, 'beta'], [TOKENS.A, 'beta'], [TOKENS.NONE, 'alpha']] as const) {
        const r = await call(`${server.url}/api/push/begin`, token, { method: 'POST', body: JSON.stringify({ repo }) });
        expect(r.status, `${token} → ${repo}`).toBe(403);
        expect(r.body.error.code).toBe('ACCESS_DENIED');
      }
    });

    it('a token for alpha cannot write into an open revision of beta by its id', async () => {
      const begun = (await call(`${server.url}/api/push/begin`, TOKENS.ADMIN, { method: 'POST', body: JSON.stringify({ repo: 'beta' }) })).body;
      const rev = { repo: 'alpha', revision: begun.revision, base: begun.base };
      const r = await call(`${server.url}/api/push/commit`, TOKENS.A, { method: 'POST', body: JSON.stringify({ ...rev, manifest: { files: [] } }) });
      expect(r.status).toBe(409);
      expect(r.body.error.code).toBe('REVISION_NOT_OPEN');
      const beta = await search(server.url, TOKENS.B, { repo: 'beta', q: 'betaonlyword' });
      expect(beta.body.results.map((h: { path: string }) => h.path)).toEqual(['lib/billing.py']);
      await call(`${server.url}/api/push/abort`, TOKENS.ADMIN, { method: 'POST', body: JSON.stringify({ repo: 'beta', revision: begun.revision, base: begun.base }) });
    });

    it('anonymous reads only where serve.anonymousRead allows, and never pushes', async () => {
      const open = await startTestServer(t.dir, cluster.url, { anonymousRead: ['beta'] });
      try {
        const beta = await search(open.url, undefined, { repo: 'beta', q: 'betaonlyword' });
        expect(beta.body.results.map((h: { repo: string; path: string }) => `${h.repo}:${h.path}`)).toEqual(['beta:lib/billing.py']);
        expect((await search(open.url, undefined, { repo: 'alpha', q: 'retry' })).status).toBe(403);
        const all = await search(open.url, undefined, { q: 'retry backoff', k: '20' });
        expect(new Set(all.body.results.map((h: { repo: string }) => h.repo))).toEqual(new Set(['beta']));
        expect((await call(`${open.url}/api/push/begin`, undefined, { method: 'POST', body: JSON.stringify({ repo: 'beta' }) })).status).toBe(403);
        // a wrong token is still refused, not treated as anonymous
        expect((await search(open.url, 'token-unknown-0123456789abcdef', { repo: 'beta', q: 'retry' })).status).toBe(401);
      } finally {
        await open.close();
      }
    });

    describe('MCP at /mcp', () => {
      let alpha: Client;
      let none: Client;
      beforeAll(async () => {
        alpha = await mcpClient(server.url, TOKENS.A);
        none = await mcpClient(server.url, TOKENS.NONE);
      });
      afterAll(async () => {
        await alpha?.close();
        await none?.close();
      });

      it('lists the read tools, each taking the repository as an argument', async () => {
        const { tools } = await alpha.listTools();
        expect(tools.map((t) => t.name).sort()).toEqual(['list_files', 'list_repositories', 'read_file', 'search_code', 'search_docs', 'search_symbols', 'search_text']);
        expect(Object.keys((tools.find((t) => t.name === 'search_code')!.inputSchema as { properties: object }).properties)).toContain('repos');
        expect(tools.every((t) => t.annotations?.readOnlyHint === true)).toBe(true);
      });

      it('a token for alpha never reads beta through a tool', async () => {
        for (const name of ['search_code', 'search_docs']) {
          for (const repos of [['beta'], ['alpha', 'beta'], ['gamma']]) {
            const denied = await alpha.callTool({ name, arguments: { query: 'betaonlyword', repos } });
            expect(denied.isError, `${name} ${repos.join(',')}`).toBe(true);
            expect(denied.structuredContent).toMatchObject({ ok: false, error: 'permission_denied' });
          }
        }
        for (const repos of [['beta'], ['alpha', 'beta']]) {
          const denied = await alpha.callTool({ name: 'search_text', arguments: { pattern: 'betaonlyword', repos } });
          expect(denied.structuredContent).toMatchObject({ ok: false, error: 'permission_denied' });
        }
        const text = await alpha.callTool({ name: 'search_text', arguments: { pattern: 'onlyword' } });
        expect((text.structuredContent as { data: { matches: { repo: string; path: string }[] } }).data.matches.map((m) => `${m.repo}:${m.path}`)).toEqual(['alpha:src/retry.ts']);
        const docs = await alpha.callTool({ name: 'search_docs', arguments: { query: 'retried backoff' } });
        expect((docs.structuredContent as { data: { results: { repo: string; path: string }[] } }).data.results.map((r) => `${r.repo}:${r.path}`)).toEqual(['alpha:docs/guide.md']);
        const mine = await alpha.callTool({ name: 'search_code', arguments: { query: 'betaonlyword retryWithBackoff' } });
        expect(mine.isError).toBe(false);
        const results = (mine.structuredContent as { data: { results: { repo: string }[] } }).data.results;
        expect(results.length).toBeGreaterThan(0);
        expect(new Set(results.map((r) => r.repo))).toEqual(new Set(['alpha']));
        expect(JSON.stringify(mine)).not.toContain('betaonlyword:');
        const repos = await alpha.callTool({ name: 'list_repositories', arguments: {} });
        expect((repos.structuredContent as { data: unknown }).data).toEqual({ repositories: ['alpha'] });
        const nothing = await none.callTool({ name: 'search_code', arguments: { query: 'retry' } });
        expect(nothing.structuredContent).toMatchObject({ ok: false, error: 'permission_denied' });
      });
    });
  });

  describe('bad pushes are refused whole', () => {
    const post = (step: string, body: unknown, token: string = TOKENS.A) => call(`${server.url}/api/push/${step}`, token, { method: 'POST', body: typeof body === 'string' ? body : JSON.stringify(body) });
    const served = async (): Promise<number> => (await search(server.url, TOKENS.A, { repo: 'alpha', q: 'retryWithBackoff' })).body.meta.repos[0].revision;

    it('a body that is not JSON, or not a push, is PUSH_INVALID (400)', async () => {
      for (const [step, body] of [['begin', '{"repo":'], ['begin', { repo: 'alpha', extra: 1 }], ['missing', { repo: 'alpha', chunks: ['nothex'], contents: [] }], ['commit', { repo: 'alpha' }]] as const) {
        const r = await post(step, body);
        expect(r.status, `${step} ${JSON.stringify(body)}`).toBe(400);
        expect(r.body.error.code).toBe('PUSH_INVALID');
      }
    });

    it('a batch whose hash does not match its bytes drops the revision; the previous one stays served', async () => {
      const before = await served();
      const begun = (await post('begin', { repo: 'alpha' })).body;
      const rev = { repo: 'alpha', revision: begun.revision, base: begun.base };
      const bad = await post('contents', { ...rev, contents: [{ hash: 'a'.repeat(64), body: 'not what the hash says' }] });
      expect(bad.status).toBe(400);
      expect(bad.body.error.code).toBe('PUSH_INVALID');
      const late = await post('commit', { ...rev, manifest: { files: [] } });
      expect(late.status).toBe(409);
      expect(await served()).toBe(before);
    });

    it('a manifest naming bodies the server lacks is PUSH_INVALID; the previous revision stays served', async () => {
      const before = await served();
      const begun = (await post('begin', { repo: 'alpha' })).body;
      const file = { path: 'x.ts', language: 'typescript', contentType: 'code', content: 'b'.repeat(64), size: 1, lineCount: 1, chunks: [] };
      const r = await post('commit', { repo: 'alpha', revision: begun.revision, base: begun.base, manifest: { files: [file] } });
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe('PUSH_INVALID');
      expect(await served()).toBe(before);
    });

    it('a body over serve.maxBodyBytes is TOO_LARGE (413) before it is read, and so is a push over serve.maxPushBytes', async () => {
      const small = await startTestServer(t.dir, cluster.url, { maxBodyBytes: 65_536, maxPushBytes: 1_048_576 });
      try {
        const big = await call(`${small.url}/api/push/begin`, TOKENS.A, { method: 'POST', body: JSON.stringify({ repo: 'alpha', pad: 'x'.repeat(70_000) }) });
        expect(big.status).toBe(413);
        expect(big.body.error.code).toBe('TOO_LARGE');
        const before = await served();
        const begun = (await call(`${small.url}/api/push/begin`, TOKENS.A, { method: 'POST', body: JSON.stringify({ repo: 'alpha' }) })).body;
        const rev = { repo: 'alpha', revision: begun.revision, base: begun.base };
        let last: { status: number; body: { error?: { code: string } } } | undefined;
        for (let i = 0; i < 20 && last?.status !== 413; i++) {
          const text = `${i}`.padEnd(60_000, 'y');
          const { createHash } = await import('node:crypto');
          last = await call(`${small.url}/api/push/contents`, TOKENS.A, { method: 'POST', body: JSON.stringify({ ...rev, contents: [{ hash: createHash('sha256').update(text).digest('hex'), body: text }] }) });
        }
        expect(last?.status).toBe(413);
        expect(last?.body.error?.code).toBe('TOO_LARGE');
        expect((await call(`${small.url}/api/push/commit`, TOKENS.A, { method: 'POST', body: JSON.stringify({ ...rev, manifest: { files: [] } }) })).status).toBe(409);
        expect(await served()).toBe(before);
        // scry push sizes its batches under the server's cap, and refuses one file body larger than it
        writeRepo(root('big'), { 'notes/long.md': Array.from({ length: 3000 }, (_, i) => `Line ${i} of a long document about retries.`).join('\n') });
        await indexRepo(root('big'), db('big'), env);
        await expect(pushLocalIndex({ dbPath: db('big'), server: small.url, repo: 'alpha', token: TOKENS.A })).rejects.toMatchObject({ code: 'TOO_LARGE' });
        expect(await served()).toBe(before);
      } finally {
        await small.close();
      }
    });

    it('the stale-revision sweep deletes revisions left open by dead pushes', async () => {
      await post('begin', { repo: 'alpha' });
      const store = openPgTeamStore(cluster.url);
      try {
        expect((await store.gc({ olderThanMs: 0 })).revisions).toBeGreaterThanOrEqual(1);
        expect((await store.gc({ olderThanMs: 0 })).revisions).toBe(0);
      } finally {
        await store.close();
      }
      expect((await search(server.url, TOKENS.A, { repo: 'alpha', q: 'retryWithBackoff' })).body.results.length).toBeGreaterThan(0);
    });
  });
});
