import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { EngineError } from '../../../src/core/errors.js';
import { createEmbeddingProvider } from '../../../src/embed/create-provider.js';
import type { HttpEmbedDeps } from '../../../src/embed/http-embed.js';
import { createHttpEmbedClient, EMBED_REPLY_MAX_BYTES, parseRetryAfter, RETRY_AFTER_MAX_MS, retryDelay } from '../../../src/embed/http-embed.js';
import type { OllamaProviderConfig } from '../../../src/embed/ollama-provider.js';
import { createOllamaProvider } from '../../../src/embed/ollama-provider.js';
import type { OpenAiProviderConfig, OpenAiProviderDeps } from '../../../src/embed/openai-provider.js';
import { createOpenAiProvider } from '../../../src/embed/openai-provider.js';
import type { EmbeddingProvider } from '../../../src/embed/provider.js';
import { embedSchema } from '../../../src/config/schema.js';
import { refusedUrl } from '../../helpers/chat-server.js';
import type { EmbedServer } from '../../helpers/embed-server.js';
import { expectedVector, OK, script, startEmbedServer } from '../../helpers/embed-server.js';

// The real services (an Ollama server, an OpenAI-compatible endpoint) cannot run here:
// test/helpers/embed-server.ts stands in for them, speaking their documented wire formats with
// predictable vectors (a hashed bag of words, not unit length) and scripted failures.

const KEY = 'sk-test-Secret-0123456789';
const TEXTS = ['parse the config file', 'open a database connection', 'render the login form', 'hash a password', 'retry with backoff'];

let server: EmbedServer;
beforeAll(async () => {
  server = await startEmbedServer();
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => server.reset());

/** A sleep that records what it was asked to wait and returns at once. */
function instantSleep(): Required<Pick<HttpEmbedDeps, 'sleep'>> & { waits: number[] } {
  const waits: number[] = [];
  return {
    waits,
    sleep: (ms) => {
      waits.push(ms);
      return Promise.resolve();
    },
  };
}

const LIMITS = { batchSize: 32, timeoutMs: 5000, retries: 3 };

function ollama(config: Partial<OllamaProviderConfig> = {}, deps: HttpEmbedDeps = {}): EmbeddingProvider {
  return createOllamaProvider({ baseUrl: server.url, model: 'nomic-embed-text', ...LIMITS, ...config }, { sleep: instantSleep().sleep, ...deps });
}

function openai(config: Partial<OpenAiProviderConfig> = {}, deps: OpenAiProviderDeps = {}): EmbeddingProvider {
  return createOpenAiProvider({ baseUrl: `${server.url}/v1`, model: 'text-embedding-3-small', ...LIMITS, ...config }, { sleep: instantSleep().sleep, ...deps });
}

async function rejection(work: Promise<unknown>): Promise<unknown> {
  return work.then(
    () => {
      throw new Error('expected a rejection');
    },
    (err: unknown) => err,
  );
}

async function engineError(work: Promise<unknown>): Promise<EngineError> {
  const err = await rejection(work);
  expect(err).toBeInstanceOf(EngineError);
  return err as EngineError;
}

function expectVectors(vectors: Float32Array[], texts: readonly string[], dimensions = 8): void {
  expect(vectors).toHaveLength(texts.length);
  vectors.forEach((v, i) => {
    expect(v).toBeInstanceOf(Float32Array);
    expect(Math.hypot(...v)).toBeCloseTo(1, 5);
    const want = expectedVector(texts[i]!, dimensions);
    want.forEach((x, d) => expect(v[d]).toBeCloseTo(x, 5));
  });
}

describe.each([
  ['ollama', ollama, '/api/embed'],
  ['openai', openai, '/v1/embeddings'],
] as const)('%s provider', (name, make, path) => {
  it('embeds texts in input order as unit-length vectors, in the documented request format', async () => {
    const provider = make();
    const vectors = await provider.embed(TEXTS);
    expectVectors(vectors, TEXTS);
    expect(server.requests).toHaveLength(1);
    const [request] = server.requests;
    expect(request).toMatchObject({ method: 'POST', path, input: TEXTS });
    expect(request!.headers['content-type']).toBe('application/json');
    if (name === 'openai') expect(request!.body).toEqual({ model: 'text-embedding-3-small', input: TEXTS, encoding_format: 'float' });
    else expect(request!.body).toEqual({ model: 'nomic-embed-text', input: TEXTS });
  });

  it('makes no request for no texts', async () => {
    expect(await make().embed([])).toEqual([]);
    expect(server.requests).toHaveLength(0);
  });

  it('splits a call into requests of at most batchSize texts, in order', async () => {
    const texts = Array.from({ length: 7 }, (_, i) => `text number ${i} about topic ${i * 7}`);
    const provider = make({ batchSize: 3 });
    expect(provider.maxBatch).toBe(3);
    const vectors = await provider.embed(texts);
    expect(server.requests.map((r) => r.input)).toEqual([texts.slice(0, 3), texts.slice(3, 6), texts.slice(6)]);
    expectVectors(vectors, texts);
  });

  it('waits as long as Retry-After asks after a 429, then succeeds', async () => {
    server.respond = script([{ status: 429, headers: { 'retry-after': '2' } }]);
    const recorder = instantSleep();
    const vectors = await make({}, { sleep: recorder.sleep }).embed(TEXTS.slice(0, 2));
    expectVectors(vectors, TEXTS.slice(0, 2));
    expect(server.requests).toHaveLength(2);
    expect(recorder.waits).toEqual([2000]);
  });

  it('gives up after the configured retries of a 5xx: EMBEDDING_FAILED with the status, backoff growing', async () => {
    server.respond = () => ({ status: 503 });
    const recorder = instantSleep();
    const err = await engineError(make({ retries: 2 }, { sleep: recorder.sleep, random: () => 0.999 }).embed(['x']));
    expect(err.code).toBe('EMBEDDING_FAILED');
    expect(err.data).toMatchObject({ provider: name, status: 503 });
    expect(err.message).toMatch(/HTTP 503: status 503 \(after 3 attempts\)/);
    expect(server.requests).toHaveLength(3);
    // Equal jitter: between half and all of 500 ms · 2ⁿ.
    expect(recorder.waits).toHaveLength(2);
    expect(recorder.waits[0]).toBeGreaterThanOrEqual(250);
    expect(recorder.waits[0]).toBeLessThanOrEqual(500);
    expect(recorder.waits[1]).toBeGreaterThanOrEqual(500);
    expect(recorder.waits[1]).toBeLessThanOrEqual(1000);
  });

  it('does not retry a 400', async () => {
    server.respond = () => ({ status: 400 });
    const err = await engineError(make().embed(['x']));
    expect(err.code).toBe('EMBEDDING_FAILED');
    expect(err.data['status']).toBe(400);
    expect(server.requests).toHaveLength(1);
  });

  it('reports a hung endpoint as EMBEDDING_UNAVAILABLE after its retries, within bounded time', async () => {
    server.respond = () => ({ hang: true });
    const err = await engineError(make({ timeoutMs: 150, retries: 1 }).embed(['x']));
    expect(err.code).toBe('EMBEDDING_UNAVAILABLE');
    expect(err.message).toMatch(/no answer from http:\/\/127\.0\.0\.1:\d+ within 150 ms \(after 2 attempts\)/);
    // both attempts reached the server, and each was given up (not left hanging)
    expect(server.requests).toHaveLength(2);
  });

  it('reports a refused connection as EMBEDDING_UNAVAILABLE at once, without retries', async () => {
    const url = await refusedUrl();
    const recorder = instantSleep();
    const provider = name === 'ollama' ? ollama({ baseUrl: url }, { sleep: recorder.sleep }) : openai({ baseUrl: `${url}/v1` }, { sleep: recorder.sleep });
    const err = await engineError(provider.embed(['x']));
    expect(err.code).toBe('EMBEDDING_UNAVAILABLE');
    expect(err.message).toContain('ECONNREFUSED');
    expect(recorder.waits).toEqual([]);
  });

  it('fails EMBEDDING_FAILED when an answer changes the dimensions the model had', async () => {
    // Two requests of one text each: the first teaches 8 dimensions, the second answers 6.
    server.respond = script([OK, { ok: true, dimensions: 6 }]);
    const provider = make({ batchSize: 1 });
    const err = await engineError(provider.embed(['a', 'b']));
    expect(err.code).toBe('EMBEDDING_FAILED');
    expect(err.message).toContain('6 dimensions; expected 8');
  });

  it('fails EMBEDDING_FAILED on vectors of mixed dimensions within one answer', async () => {
    const vectors = [[1, 2, 3], [1, 2]];
    server.respond = () => ({ json: name === 'ollama' ? { embeddings: vectors } : { data: vectors.map((embedding, index) => ({ index, embedding })) } });
    const err = await engineError(make().embed(['a', 'b']));
    expect(err.code).toBe('EMBEDDING_FAILED');
    expect(err.message).toContain('vector 1 has 2 dimensions; expected 3');
  });

  it('fails EMBEDDING_FAILED when the answer has fewer vectors than texts', async () => {
    server.respond = () => ({ ok: true, drop: 1 });
    const err = await engineError(make().embed(['a', 'b', 'c']));
    expect(err.code).toBe('EMBEDDING_FAILED');
    expect(err.message).toContain('2 vectors for 3 texts');
  });

  it('fails EMBEDDING_FAILED, without retrying, on a body that is not JSON', async () => {
    server.respond = () => ({ raw: '{"embeddings": [[0.1, 0.2' });
    const err = await engineError(make().embed(['a']));
    expect(err.code).toBe('EMBEDDING_FAILED');
    expect(err.data).toMatchObject({ status: 200 });
    expect(err.message).toContain('not JSON');
    expect(server.requests).toHaveLength(1);
  });

  it('fails EMBEDDING_FAILED on JSON of the wrong shape and on non-numbers', async () => {
    server.respond = () => ({ json: { something: 'else' } });
    expect((await engineError(make().embed(['a']))).code).toBe('EMBEDDING_FAILED');
    const vector = ['NaN', 1, 2];
    server.respond = () => ({ json: name === 'ollama' ? { embeddings: [vector] } : { data: [{ index: 0, embedding: vector }] } });
    const err = await engineError(make().embed(['a']));
    expect(err.code).toBe('EMBEDDING_FAILED');
    expect(err.message).toContain('"NaN"');
  });

  it('rejects with the signal reason when aborted mid-request, and sends nothing when aborted before', async () => {
    server.respond = () => ({ hang: true });
    const controller = new AbortController();
    const reason = new Error('caller gave up');
    const pending = make().embed(['a'], { signal: controller.signal });
    await until(() => server.requests.length === 1);
    // the server never answers: only the abort can settle the call
    controller.abort(reason);
    expect(await rejection(pending)).toBe(reason);

    server.requests.length = 0;
    const before = new AbortController();
    before.abort(reason);
    expect(await rejection(make().embed(['a'], { signal: before.signal }))).toBe(reason);
    expect(await rejection(make().fingerprint({ signal: before.signal }))).toBe(reason);
    expect(server.requests).toHaveLength(0);
  });

  it('rejects at once when aborted while waiting to retry', async () => {
    // a Retry-After of 600 s (the provider waits its cap, RETRY_AFTER_MAX_MS = 30 s) with the real
    // sleep: settled within the generous 20 s wait below means the abort ended the sleep
    server.respond = () => ({ status: 429, headers: { 'retry-after': '600' } });
    const controller = new AbortController();
    const provider = make({}, { sleep: undefined });
    const pending = provider.embed(['a'], { signal: controller.signal });
    await until(() => server.requests.length === 1);
    await new Promise((resolve) => setTimeout(resolve, 50));
    controller.abort('stop');
    const waited = new Promise<string>((resolve) => setTimeout(() => resolve('still sleeping'), 20_000).unref());
    expect(await Promise.race([rejection(pending), waited])).toBe('stop');
    expect(server.requests).toHaveLength(1);
  });

  it('rejects in-flight and later calls once closed; close is idempotent', async () => {
    server.respond = () => ({ hang: true });
    const provider = make();
    const pending = provider.embed(['a']);
    await until(() => server.requests.length === 1);
    await provider.close();
    await provider.close();
    expect(((await rejection(pending)) as EngineError).code).toBe('EMBEDDING_UNAVAILABLE');
    const err = await engineError(provider.embed(['b']));
    expect(err.code).toBe('EMBEDDING_UNAVAILABLE');
    expect(err.message).toContain('closed');
  });
});

describe('ollama specifics', () => {
  it('fingerprints with one probe for the dimensions and the digest from /api/tags, then caches', async () => {
    const digest = 'fe938a131f40e6f6d40083c9f0f430a515233eb2edaa6d72eb85c50d64f2300e';
    server.models = { 'all-minilm:latest': '0123456789abcdef', 'nomic-embed-text:latest': digest };
    const provider = ollama();
    expect(await provider.fingerprint()).toEqual({ provider: 'ollama', model: 'nomic-embed-text', dimensions: 8, version: 'fe938a131f40' });
    expect(server.requests.map((r) => `${r.method} ${r.path} ${r.input?.length ?? ''}`)).toEqual(['POST /api/embed 1', 'GET /api/tags ']);
    await provider.fingerprint();
    expect(server.requests).toHaveLength(2);
  });

  it('learns the dimensions from an embed call, so the fingerprint then makes no probe', async () => {
    server.models = { 'nomic-embed-text:v1.5': 'sha256:aaaabbbbccccdddd' };
    const provider = ollama({ model: 'nomic-embed-text:v1.5' });
    await provider.embed(['a b c']);
    expect(await provider.fingerprint()).toMatchObject({ dimensions: 8, version: 'aaaabbbbcccc' });
    expect(server.requests.filter((r) => r.path === '/api/embed')).toHaveLength(1);
  });

  it('fingerprints `unknown` when /api/tags does not list the model or does not exist', async () => {
    server.models = { 'other:latest': 'ffffffffffffffff' };
    expect((await ollama().fingerprint()).version).toBe('unknown');
    server.respond = () => OK;
    const noTags = createOllamaProvider({ baseUrl: `${server.url}/proxy`, model: 'm', ...LIMITS }, { fetch: routeTagsTo404() });
    expect((await noTags.fingerprint()).version).toBe('unknown');
  });

  it('maps a model that is not pulled (404) to EMBEDDING_UNAVAILABLE with the pull command', async () => {
    server.respond = () => ({ status: 404, body: JSON.stringify({ error: 'model "nomic-embed-text" not found, try pulling it first' }) });
    const err = await engineError(ollama().embed(['a']));
    expect(err.code).toBe('EMBEDDING_UNAVAILABLE');
    expect(err.message).toContain('not found, try pulling it first');
    expect(err.hint).toContain('ollama pull nomic-embed-text');
    expect(server.requests).toHaveLength(1);
  });
});

describe('openai specifics', () => {
  it('sends the key as a Bearer token and never shows it in errors', async () => {
    server.apiKey = KEY;
    await openai({}, { apiKey: KEY }).embed(['a']);
    expect(server.requests[0]!.headers.authorization).toBe(`Bearer ${KEY}`);

    server.apiKey = 'sk-the-right-one';
    // The server echoes the key it got, as some do; the message must not carry it.
    const err = await engineError(openai({ apiKeyEnv: 'EMBED_KEY' }, { apiKey: KEY }).embed(['a']));
    expect(err.code).toBe('EMBEDDING_FAILED');
    expect(err.data['status']).toBe(401);
    expect(err.message).toContain('Incorrect API key provided: ***');
    expect(err.hint).toContain('EMBED_KEY');
    expect(JSON.stringify({ message: err.message, data: err.data, hint: err.hint, stack: err.stack })).not.toContain('Secret-0123456789');
  });

  it('fails EMBEDDING_UNAVAILABLE naming the variable, without a request, when the key is not set', async () => {
    const err = await engineError(openai({ apiKeyEnv: 'OPENAI_API_KEY' }).embed(['a']));
    expect(err.code).toBe('EMBEDDING_UNAVAILABLE');
    expect(err.message).toContain('OPENAI_API_KEY is not set');
    expect(server.requests).toHaveLength(0);
  });

  it('asks for the configured dimensions, fingerprints without a request, and enforces them', async () => {
    const provider = openai({ dimensions: 12 });
    expect(await provider.fingerprint()).toEqual({ provider: 'openai', model: 'text-embedding-3-small', dimensions: 12, version: 'unknown' });
    expect(server.requests).toHaveLength(0);
    expectVectors(await provider.embed(['a b']), ['a b'], 12);
    expect(server.requests[0]!.body).toMatchObject({ dimensions: 12 });
    server.respond = () => ({ ok: true, dimensions: 10 });
    expect((await engineError(provider.embed(['a']))).message).toContain('10 dimensions; expected 12');
  });

  it('probes once for the dimensions when none are configured', async () => {
    const provider = openai();
    expect((await provider.fingerprint()).dimensions).toBe(8);
    expect(server.requests.map((r) => r.input)).toEqual([['dimension probe']]);
  });

  it('puts data back in input order by index, and reads base64 embeddings', async () => {
    server.respond = () => ({ ok: true, reverse: true });
    expectVectors(await openai().embed(TEXTS), TEXTS);
    server.respond = () => ({ ok: true, base64: true, reverse: true });
    expectVectors(await openai().embed(TEXTS), TEXTS);
  });

  it('fails EMBEDDING_FAILED on duplicate or out-of-range indexes', async () => {
    const item = (index: number) => ({ object: 'embedding', index, embedding: [1, 2, 3] });
    server.respond = () => ({ json: { data: [item(0), item(0)] } });
    expect((await engineError(openai().embed(['a', 'b']))).message).toContain('index 0 appears twice');
    server.respond = () => ({ json: { data: [item(0), item(5)] } });
    expect((await engineError(openai().embed(['a', 'b']))).message).toContain('index 5');
  });
});

describe('http client', () => {
  it('caps the body it reads', async () => {
    server.respond = () => ({ raw: JSON.stringify({ embeddings: [Array.from({ length: 5000 }, () => 0.123456789)] }) });
    const client = createHttpEmbedClient({ provider: 'ollama', timeoutMs: 5000, retries: 3, maxBodyBytes: 10_000 });
    const err = await engineError(client.request({ method: 'POST', url: `${server.url}/api/embed`, body: { model: 'm', input: ['a'] } }));
    expect(err.code).toBe('EMBEDDING_FAILED');
    expect(err.message).toContain('larger than 10000 bytes');
    expect(server.requests).toHaveLength(1);
    expect(EMBED_REPLY_MAX_BYTES).toBeGreaterThan(512 * 8192 * 20);
  });

  it('honours a real Retry-After wait end to end', async () => {
    server.respond = script([{ status: 503, headers: { 'retry-after': '1' } }]);
    const client = createHttpEmbedClient({ provider: 'ollama', timeoutMs: 5000, retries: 1 });
    await client.request({ method: 'POST', url: `${server.url}/api/embed`, body: { model: 'm', input: ['a'] } });
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]!.at - server.requests[0]!.at).toBeGreaterThanOrEqual(950);
  });

  it('reads Retry-After as seconds or an HTTP date, and caps the wait', () => {
    const now = Date.parse('2024-06-01T12:00:00Z');
    expect(parseRetryAfter('3', now)).toBe(3000);
    expect(parseRetryAfter(' 1.5 ', now)).toBe(1500);
    expect(parseRetryAfter('Sat, 01 Jun 2024 12:00:07 GMT', now)).toBe(7000);
    expect(parseRetryAfter('Sat, 01 Jun 2024 11:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
    expect(retryDelay(0, 3_600_000)).toBe(RETRY_AFTER_MAX_MS);
    expect(retryDelay(0, 1200)).toBe(1200);
  });

  it('honours an HTTP-date Retry-After against the injected clock', async () => {
    const now = Date.parse('2024-06-01T12:00:00Z');
    server.respond = script([{ status: 429, headers: { 'retry-after': 'Sat, 01 Jun 2024 12:00:04 GMT' } }]);
    const recorder = instantSleep();
    await ollama({}, { sleep: recorder.sleep, clock: { now: () => now } }).embed(['a']);
    expect(recorder.waits).toEqual([4000]);
  });

  it('backs off exponentially with equal jitter, capped', () => {
    expect([0, 1, 2, 3, 4, 5].map((n) => retryDelay(n, undefined, () => 0))).toEqual([250, 500, 1000, 2000, 4000, 4000]);
    expect([0, 1, 2, 3, 4, 5].map((n) => retryDelay(n, undefined, () => 1))).toEqual([500, 1000, 2000, 4000, 8000, 8000]);
  });

  it('refuses a base URL with credentials in it', () => {
    expect(() => ollama({ baseUrl: 'http://user:pw@127.0.0.1:1' })).toThrow(/must not hold credentials/);
  });
});

describe('createEmbeddingProvider', () => {
  it('builds the configured provider, none for `none`, and takes the key from the env map', async () => {
    const deps = { modelsDir: '/nonexistent', sleep: instantSleep().sleep };
    expect(createEmbeddingProvider(embedSchema.parse({ provider: 'none' }), deps)).toBeUndefined();
    // the default is the built-in model (it loads on first use, not here)
    expect(createEmbeddingProvider(embedSchema.parse({}), deps)).toMatchObject({ name: 'builtin', model: 'scry-code-nbow', maxBatch: 32 });
    const viaOllama = createEmbeddingProvider(embedSchema.parse({ provider: 'ollama', ollama: { baseUrl: server.url, model: 'm' }, batchSize: 2 }), deps)!;
    expect(viaOllama).toMatchObject({ name: 'ollama', model: 'm', maxBatch: 2 });
    expectVectors(await viaOllama.embed(['x y']), ['x y']);

    server.apiKey = KEY;
    const config = embedSchema.parse({ provider: 'openai', openai: { baseUrl: `${server.url}/v1`, model: 'e', apiKeyEnv: 'MY_KEY' } });
    const viaOpenai = createEmbeddingProvider(config, { ...deps, env: { MY_KEY: KEY } })!;
    expectVectors(await viaOpenai.embed(['x y']), ['x y']);
    expect(server.requests.at(-1)!.headers.authorization).toBe(`Bearer ${KEY}`);

    expect(createEmbeddingProvider(embedSchema.parse({ provider: 'use-lite' }), deps)).toMatchObject({ name: 'use-lite', maxBatch: 32 });
    expect(createEmbeddingProvider(embedSchema.parse({ provider: 'onnx', onnx: { model: 'a/b' } }), deps)).toMatchObject({ name: 'onnx', model: 'a/b' });
  });
});

/** A fetch that answers /api/tags with 404 (a proxy that only forwards /api/embed) and passes the rest on. */
function routeTagsTo404(): typeof fetch {
  return (input, init) => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    if (url.pathname.endsWith('/api/tags')) return Promise.resolve(new Response('404 page not found', { status: 404 }));
    return fetch(`${server.url}/api/embed`, init);
  };
}

async function until(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const started = performance.now();
  while (!condition()) {
    if (performance.now() - started > timeoutMs) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
