/**
 * The semantic layer end to end on a real index (real SQLite, real tree-sitter), with the Ollama
 * provider talking HTTP to test/helpers/embed-server.ts: Ollama cannot run here, so that server
 * stands in for it, speaking Ollama's documented /api/embed wire format with deterministic
 * bag-of-words vectors. Covers the embedding pass (batches, cache by content hash, resume after a
 * failure, model change), vector and hybrid search with RRF traces, typed sub-queries, the lexical
 * fallback when the provider is down, and find_similar.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../src/index.js';
import { startEmbedServer, script, type EmbedServer } from '../helpers/embed-server.js';
import { runCli } from '../helpers/cli.js';
import { writeSmallRepo } from '../helpers/fixture-repo.js';
import { isolatedEnv, tempDir } from '../helpers/temp.js';

const DIMS = 256;
const SAME = 'export function sharedHelper(value: number): number {\n  return value * 2 + 1;\n}\n';

describe('hybrid search with an Ollama-compatible provider', () => {
  let t: ReturnType<typeof tempDir>;
  let server: EmbedServer;
  let root: string;
  const open = (model = 'test-embed', extra: Record<string, unknown> = {}): Promise<Engine> =>
    createEngine({
      root,
      db: join(t.dir, 'index.db'),
      env: isolatedEnv(t.dir),
      // rank fusion (blend 0, not the default score blend), so that every query kind is hybrid
      config: { embed: { provider: 'ollama', ollama: { baseUrl: server.url, model }, batchSize: 4, retries: 1, timeoutMs: 2000, queryTimeoutMs: 500, ...extra }, search: { fusion: { blend: 0 } } },
    });

  beforeAll(async () => {
    t = tempDir('scry-hybrid-');
    server = await startEmbedServer();
    server.respond = () => ({ ok: true, dimensions: DIMS });
    root = join(t.dir, 'repo');
    writeSmallRepo(root, {
      'src/util/a.ts': SAME,
      'src/util/b.ts': SAME,
      'docs/guide.md': '# Retry policy\n\nRequests are retried with exponential backoff and jitter.\n',
    });
  });
  afterAll(async () => {
    await server.close();
    t.cleanup();
  });

  it('embeds after the lexical pass, each distinct chunk text once, and only what changed later', async () => {
    const engine = await open();
    try {
      const report = await engine.index();
      const embedding = report.embedding!;
      expect('error' in embedding).toBe(false);
      if ('error' in embedding) return;
      const status = engine.status();
      expect(embedding.covered).toBe(status.chunks);
      // a.ts and b.ts share their text: one vector serves both chunks
      expect(embedding.embedded).toBeLessThan(status.chunks);
      const inputs = server.requests.filter((r) => r.path === '/api/embed').flatMap((r) => r.input ?? []);
      expect(inputs.filter((x) => x.includes('sharedHelper(value'))).toHaveLength(1);
      expect(server.requests.every((r) => (r.input?.length ?? 0) <= 4)).toBe(true);
      expect(status.embeddings).toMatchObject({ provider: 'ollama', model: 'test-embed', covered: status.chunks, pending: 0, lastError: null });
      expect(status.capabilities.semantic).toBe(true);

      server.reset();
      server.respond = () => ({ ok: true, dimensions: DIMS });
      const again = await engine.index();
      expect(again.embedding).toMatchObject({ embedded: 0, pending: 0 });
      expect(server.requests.filter((r) => r.path === '/api/embed' && (r.input?.length ?? 0) > 0 && !(r.input ?? []).every((x) => x.length < 20))).toHaveLength(0);

      writeFileSync(join(root, 'docs/guide.md'), '# Retry policy\n\nRequests are retried with exponential backoff, jitter and a budget.\n');
      server.reset();
      server.respond = () => ({ ok: true, dimensions: DIMS });
      const edited = await engine.index();
      expect(edited.embedding).toMatchObject({ embedded: 1, pending: 0 });
    } finally {
      engine.close();
    }
  });

  it('ranks by RRF in hybrid mode, and the explain trace sums to the fused score', async () => {
    const engine = await open();
    try {
      const r = await engine.search('retry with exponential backoff', { explain: true, limit: 8 });
      expect(r.meta.mode).toBe('hybrid');
      expect(r.meta.semantic).toMatch(/^hybrid: ollama:test-embed, \d+ chunks$/);
      expect(r.results.length).toBeGreaterThan(0);
      for (const res of r.results) {
        const f = res.fusion!;
        expect(f.k).toBe(60);
        const sum = f.contributions.reduce((s, c) => s + c.value, 0);
        expect(Math.abs(sum - f.score)).toBeLessThan(1e-12);
        for (const c of f.contributions) expect(c.value).toBeCloseTo(c.weight / (60 + c.rank), 12);
        expect(res.score).toBeCloseTo(f.score, 4);
      }
      const lists = new Set(r.results.flatMap((x) => x.fusion!.contributions.map((c) => c.list)));
      expect(lists).toEqual(new Set(['lexical', 'vector']));
      // files mode fuses file rankings: one result per file, ranks counted among files
      const files = await engine.search('retry with exponential backoff', { explain: true, files: true });
      expect(new Set(files.results.map((x) => x.path)).size).toBe(files.results.length);
      const lexRanks = files.results.flatMap((x) => x.fusion!.contributions.filter((c) => c.list === 'lexical').map((c) => c.rank)).sort((a, b) => a - b);
      expect(lexRanks).toEqual(Array.from({ length: lexRanks.length }, (_, i) => i + 1));
      // fused scores never increase down the list (the per-file cap moves whole results only)
      const scores = r.results.map((x) => x.fusion!.score);
      expect(scores.filter((s, i) => i > 0 && s > scores[i - 1]! + 1e-12).length).toBeLessThanOrEqual(1);
    } finally {
      engine.close();
    }
  });

  it('vector mode ranks by cosine; typed lines go to their own lists; a named symbol adds the symbol list', async () => {
    const engine = await open();
    try {
      const v = await engine.search('exponential backoff jitter', { mode: 'vector', explain: true });
      expect(v.meta.mode).toBe('vector');
      const sims = v.results.map((x) => x.fusion!.similarity!);
      expect(sims).toEqual([...sims].sort((a, b) => b - a));
      expect(v.results.every((x) => x.fusion!.contributions.every((c) => c.list === 'vector'))).toBe(true);

      const lexOnly = await engine.search('lex: openDatabase', { explain: true });
      expect(lexOnly.meta.mode).toBe('hybrid');
      expect(lexOnly.results[0]!.path).toBe('src/db/open-database.ts');
      expect(lexOnly.results.flatMap((x) => x.fusion!.contributions.map((c) => c.list)).sort()).not.toContain('vector');
      expect(lexOnly.results[0]!.fusion!.contributions.map((c) => c.list).sort()).toEqual(['lexical', 'symbol']);

      const vecOnly = await engine.search('vec: exponential backoff', { explain: true });
      expect(vecOnly.results.every((x) => x.fusion!.contributions.every((c) => c.list === 'vector'))).toBe(true);
      await expect(engine.search('vec:', {})).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    } finally {
      engine.close();
    }
  });

  it('find_similar is a vector search that leaves out the snippet file', async () => {
    const engine = await open();
    try {
      const r = await engine.similar(SAME, { excludeFile: 'src/util/a.ts', limit: 3 });
      expect(r.meta.mode).toBe('vector');
      expect(r.results[0]!.path).toBe('src/util/b.ts');
      expect(r.results.some((x) => x.path === 'src/util/a.ts')).toBe(false);
    } finally {
      engine.close();
    }
  });

  it('answers lexically, saying why, when the provider hangs; never fails the search', async () => {
    const engine = await open();
    try {
      server.respond = () => ({ hang: true });
      // the provider never answers: the search returning at all is the query-embedding time limit at work
      const r = await engine.search('retry with exponential backoff');
      expect(r.meta.mode).toBe('lexical');
      expect(r.meta.semantic).toMatch(/^lexical only: .*ollama/);
      expect(r.results.length).toBeGreaterThan(0);
      const asked = await engine.search('retry', { mode: 'lexical' });
      expect(asked.meta.semantic).toBe('lexical: asked for');
    } finally {
      server.respond = () => ({ ok: true, dimensions: DIMS });
      engine.close();
    }
  });

  it('keeps what was embedded when the provider fails mid-pass, and resumes with the rest', async () => {
    writeFileSync(join(root, 'src/util/many.ts'), Array.from({ length: 12 }, (_, i) => `export function step${i}(x: number) {\n  return x + ${i};\n}\n`).join('\n'));
    const engine = await open();
    try {
      server.reset();
      // one batch succeeds, then every request fails (the provider retries once)
      server.respond = script([{ ok: true, dimensions: DIMS }], { status: 500 });
      const failed = await engine.index();
      expect(failed.embedding).toMatchObject({ error: { code: 'EMBEDDING_FAILED' } });
      const status = engine.status();
      expect(status.embeddings!.lastError).toMatchObject({ code: 'EMBEDDING_FAILED' });
      expect(status.embeddings!.pending).toBeGreaterThan(0);
      // searches still work: hybrid over what has vectors
      expect((await engine.search('step3')).results[0]!.path).toBe('src/util/many.ts');

      server.reset();
      server.respond = () => ({ ok: true, dimensions: DIMS });
      const resumed = await engine.embed();
      const e = resumed.embedding!;
      expect('error' in e).toBe(false);
      if ('error' in e) return;
      expect(e.pending).toBe(0);
      expect(e.covered).toBe(engine.status().chunks);
      // the batch that made it was not embedded again
      const texts = server.requests.flatMap((r) => r.input ?? []);
      expect(texts.length).toBeLessThan(12);
    } finally {
      engine.close();
    }
  });

  it('a model change searches lexically until the new model has vectors, then drops the old ones', async () => {
    const engine = await open('other-embed');
    try {
      const before = await engine.search('retry backoff');
      expect(before.meta.mode).toBe('lexical');
      expect(before.meta.semantic).toMatch(/no vectors yet for ollama:other-embed/);
      const report = await engine.embed();
      expect(report.embedding).toMatchObject({ pending: 0 });
      const after = await engine.search('retry backoff');
      expect(after.meta.mode).toBe('hybrid');
      expect(engine.status().embeddings!.vectorsModel).toMatchObject({ provider: 'ollama', model: 'other-embed', dimensions: DIMS });
    } finally {
      engine.close();
    }
  });

  it('new weights under the same model name (`ollama pull`) search lexically until re-embedded, never against the old vectors', async () => {
    const first = await open('pulled-embed');
    try {
      await first.embed();
      expect((await first.search('retry backoff')).meta.mode).toBe('hybrid');
    } finally {
      first.close();
    }
    // the same name, other weights: /api/tags reports another digest, which is the fingerprint's version
    server.models = { ...server.models, 'pulled-embed': 'sha256:' + 'b'.repeat(64) };
    const engine = await open('pulled-embed');
    try {
      const stale = await engine.search('retry backoff');
      expect(stale.meta.mode).toBe('lexical');
      expect(stale.meta.semantic).toMatch(/vectors were made by ollama:pulled-embed:256:.*the model is now ollama:pulled-embed:256:b{12} /);
      expect(stale.results.length).toBeGreaterThan(0);
      await engine.embed();
      expect((await engine.search('retry backoff')).meta.mode).toBe('hybrid');
      expect(engine.status().embeddings!.vectorsModel).toMatchObject({ version: 'b'.repeat(12) });
    } finally {
      engine.close();
    }
  });
});

describe('scry embed, search --mode, similar (CLI, in-process)', () => {
  let t: ReturnType<typeof tempDir>;
  let server: EmbedServer;
  let root: string;
  let db: string;

  beforeAll(async () => {
    t = tempDir('scry-hybrid-cli-');
    server = await startEmbedServer();
    server.respond = () => ({ ok: true, dimensions: DIMS });
    root = join(t.dir, 'repo');
    db = join(t.dir, 'index.db');
    writeSmallRepo(root, { 'src/util/a.ts': SAME, 'src/util/b.ts': SAME });
  });
  afterAll(async () => {
    await server.close();
    t.cleanup();
  });

  it('embeds with --provider, then searches hybrid with traces, and finds similar code', async () => {
    writeFileSync(join(root, 'scry.config.json'), JSON.stringify({ embed: { provider: 'none' } }));
    const lexical = await runCli(['search', 'retry policy', '--db', db, '-C', root, '--json'], { cwd: root });
    expect(JSON.parse(lexical.stdout).meta).toMatchObject({ mode: 'lexical', semantic: 'lexical only: no embedding provider is configured' });

    const embed = await runCli(['embed', root, '--db', db, '--provider', 'ollama', '--model', 'cli-embed', '--url', server.url], { cwd: root });
    expect(embed.code).toBe(0);
    expect(embed.stdout).toMatch(/^embedded \d+ chunk texts with ollama:cli-embed \(256-d\)/m);

    // the provider comes from scry.config.json from now on
    writeFileSync(join(root, 'scry.config.json'), JSON.stringify({ embed: { provider: 'ollama', ollama: { baseUrl: server.url, model: 'cli-embed' } }, search: { fusion: { blend: 0 } } }));
    const hybrid = await runCli(['search', 'retry policy', '--db', db, '-C', root, '--explain'], { cwd: root });
    expect(hybrid.code).toBe(0);
    expect(hybrid.stdout).toMatch(/why: (lexical|vector) #\d+: 1\/\(60\+\d+\) = /);
    expect(hybrid.stdout).toMatch(/hybrid: ollama:cli-embed/);
    const vector = JSON.parse((await runCli(['search', 'retry policy', '--db', db, '-C', root, '--mode', 'vector', '--json'], { cwd: root })).stdout);
    expect(vector.meta.mode).toBe('vector');
    expect(typeof vector.meta.embedMs).toBe('number');

    const similar = JSON.parse((await runCli(['similar', 'src/util/a.ts:1-3', '--db', db, '-C', root, '--json'], { cwd: root })).stdout);
    expect(similar.meta.mode).toBe('vector');
    expect(similar.results[0].path).toBe('src/util/b.ts');

    const badMode = await runCli(['search', 'x', '--db', db, '-C', root, '--mode', 'fuzzy'], { cwd: root });
    expect(badMode.code).toBe(2);
    const badProvider = await runCli(['embed', root, '--db', db, '--provider', 'magic'], { cwd: root });
    expect(badProvider.code).toBe(2);
  });
});
