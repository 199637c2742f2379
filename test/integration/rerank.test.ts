/**
 * Model reranking through the engine: a real index of a small repository, the LLM reranker
 * configured against a local HTTP server. Ollama and OpenAI-compatible servers cannot run here;
 * test/helpers/chat-server.ts speaks their documented chat wire formats and scores a snippet 9
 * when it holds a marker word, else 1, so reordering is observable.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type ConfigInput, type Engine } from '../../src/index.js';
import { runEval } from '../../src/eval/run-eval.js';
import { startChatServer, type ChatServer } from '../helpers/chat-server.js';
import { tempDir, writeTree } from '../helpers/temp.js';

const FILES: Record<string, string> = {
  // the lexical favourite: names the query words in its symbol and path
  'src/cache/cache-store.ts': 'export function cacheStore(key: string) {\n  // cache store: put and get cache entries\n  return key;\n}\n',
  'src/cache/cache-evict.ts': 'export function evictCache(size: number) {\n  // evict cache entries past size; RELEVANT\n  return size;\n}\n',
  // filler, so that "cache" is not too common to search for
  ...Object.fromEntries(['alpha', 'beta', 'gamma', 'delta', 'epsilon'].map((n) => [`src/${n}.ts`, `export function ${n}() {\n  return '${n}';\n}\n`])),
};

describe('engine search with an LLM reranker', () => {
  let t: ReturnType<typeof tempDir>;
  let server: ChatServer;
  let engine: Engine;
  const config = (url: string, extra: Record<string, unknown> = {}): ConfigInput =>
    ({ rerank: { provider: 'llm', maxCandidates: 5, timeoutMs: 2000, llm: { api: 'openai', baseUrl: `${url}/v1`, model: 'judge-1', apiKeyEnv: 'SCRY_TEST_KEY' }, ...extra } }) as ConfigInput;

  beforeAll(async () => {
    t = tempDir();
    writeTree(join(t.dir, 'repo'), FILES);
    server = await startChatServer('openai');
    engine = await createEngine({ root: join(t.dir, 'repo'), db: join(t.dir, 'index.db'), config: config(server.url), env: { SCRY_TEST_KEY: 'sk-test' } });
    await engine.index();
  });
  afterAll(async () => {
    engine.close();
    await server.close();
    t.cleanup();
  });

  it('puts the chunk the model scores highest first and says what it did', async () => {
    const lexical = await engine.search('cache store', { rerank: false });
    expect(lexical.results[0]!.path).toBe('src/cache/cache-store.ts');
    expect(lexical.meta.rerank).toBeUndefined();

    const before = server.requests.length;
    const r = await engine.search('cache store');
    expect(r.results[0]!.path).toBe('src/cache/cache-evict.ts');
    expect(r.results[0]!.rerankScore).toBe(9);
    expect(r.meta.rerank).toMatchObject({ provider: 'llm', model: 'judge-1', candidates: lexical.results.length, scored: lexical.results.length, skipped: null });
    const sent = server.requests.slice(before);
    expect(sent.length).toBe(lexical.results.length);
    expect(sent[0]!.path).toBe('/v1/chat/completions');
    expect(sent[0]!.headers.authorization).toBe('Bearer sk-test');
    expect(sent.some((q) => q.prompt?.includes('Snippet (src/cache/cache-evict.ts, lines 1-4)'))).toBe(true);
  });

  it('serves a repeated query from the score cache', async () => {
    const before = server.requests.length;
    const r = await engine.search('cache store');
    expect(server.requests.length).toBe(before);
    expect(r.meta.rerank?.cached).toBe(r.meta.rerank?.candidates);
    expect(r.results[0]!.path).toBe('src/cache/cache-evict.ts');
  });

  it('keeps the lexical order when the model hangs past the budget, and says so', async () => {
    const slow = await createEngine({ root: engine.root, db: engine.dbPath, config: config(server.url, { timeoutMs: 150 }) });
    server.respond = () => ({ hang: true });
    try {
      // the model never answers: the search returning at all, with `skipped: timeout`, is the budget at work
      const r = await slow.search('evict entries');
      const lexical = await slow.search('evict entries', { rerank: false });
      expect(r.results.map((x) => x.path)).toEqual(lexical.results.map((x) => x.path));
      expect(r.meta.rerank?.skipped?.reason).toBe('timeout');
      expect(r.meta.rerank?.scored).toBe(0);
    } finally {
      slow.close();
      server.respond = (await import('../helpers/chat-server.js')).markerJudge();
    }
  });

  it('reports the model unavailable when nothing listens, with lexical results intact', async () => {
    const { refusedUrl } = await import('../helpers/chat-server.js');
    const gone = await createEngine({ root: engine.root, db: engine.dbPath, config: config(await refusedUrl()) });
    try {
      const r = await gone.search('cache store');
      expect(r.results[0]!.path).toBe('src/cache/cache-store.ts');
      expect(r.meta.rerank?.skipped?.reason).toBe('unavailable');
    } finally {
      gone.close();
    }
  });

  it('scry eval reports the lexical and the reranked mode side by side', async () => {
    const report = await runEval(engine, [{ id: 'q1', query: 'cache store entries', expected: [{ path: 'src/cache/cache-evict.ts' }] }]);
    expect(Object.keys(report.modes)).toEqual(['lexical', 'reranked']);
    expect(report.modes['lexical']!.accAt[1]).toBe(0);
    expect(report.modes['reranked']!.accAt[1]).toBe(1);
  });
});
