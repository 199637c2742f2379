import fc from 'fast-check';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { LlmEndpointConfig } from '../../../src/config/schema.js';
import { isEngineError } from '../../../src/core/errors.js';
import type { Clock, Scheduler } from '../../../src/core/logger.js';
import { buildRerankPrompt, LLM_PROMPT_LIMITS, parseScore } from '../../../src/rerank/llm-prompt.js';
import { createLlmReranker } from '../../../src/rerank/llm-reranker.js';
import type { LlmRerankerDeps } from '../../../src/rerank/llm-reranker.js';
import type { RerankCandidate, RerankOutcome } from '../../../src/rerank/reranker.js';
import { createScoreCache } from '../../../src/rerank/score-cache.js';
import type { ChatAction, ChatRequest, ChatServer } from '../../helpers/chat-server.js';
import { inMemoryChatFetch, markerJudge, refusedUrl, startChatServer } from '../../helpers/chat-server.js';

// The real servers (Ollama, OpenAI-compatible) cannot run here; test/helpers/chat-server.ts speaks
// their documented wire formats, and judges by a marker word so that reordering is observable:
// a snippet holding RELEVANT scores 9, any other 1.

const MARK = 'RELEVANT';

function candidate(id: string, text = `function ${id}() {}`): RerankCandidate {
  return { id, path: `src/${id}.ts`, startLine: 3, endLine: 12, text };
}

function ids(n: number): string[] {
  return Array.from({ length: n }, (_, i) => String.fromCharCode(97 + i));
}

/** Answers per candidate, found by the candidate's path in the prompt. */
function byCandidate(actions: Record<string, ChatAction>, fallback: ChatAction = { reply: '1' }): (r: ChatRequest) => ChatAction {
  return (request) => {
    const id = /Snippet \(src\/(\w+)\.ts/.exec(request.prompt ?? '')?.[1];
    return (id !== undefined ? actions[id] : undefined) ?? fallback;
  };
}

/** The marker judge, except that candidate `id` gets `action`. */
function judgeExcept(id: string, action: ChatAction): (r: ChatRequest) => ChatAction {
  const judge = markerJudge(MARK);
  return (request) => (request.prompt?.includes(`Snippet (src/${id}.ts`) === true ? action : judge(request));
}

function fakeClock(start = 1_000_000): Clock & { advance(ms: number): void } {
  let now = start;
  return { now: () => now, advance: (ms) => void (now += ms) };
}

/** A scheduler whose time moves only when told: timers due by then run in `advance`. */
function fakeScheduler(): Scheduler & { advance(ms: number): void; delays: number[]; pending(): number } {
  let now = 0;
  const timers = new Set<{ at: number; run: () => void }>();
  const delays: number[] = [];
  return {
    now: () => now,
    schedule(delayMs, run) {
      delays.push(delayMs);
      const timer = { at: now + delayMs, run };
      timers.add(timer);
      return () => void timers.delete(timer);
    },
    advance(ms) {
      now += ms;
      for (const t of [...timers]) {
        if (t.at > now) continue;
        timers.delete(t);
        t.run();
      }
    },
    delays,
    pending: () => timers.size,
  };
}

let openai: ChatServer;
let ollama: ChatServer;

beforeAll(async () => {
  [openai, ollama] = await Promise.all([startChatServer('openai'), startChatServer('ollama')]);
});
afterAll(async () => {
  await Promise.all([openai.close(), ollama.close()]);
});
beforeEach(() => {
  for (const server of [openai, ollama]) {
    server.requests.length = 0;
    server.respond = markerJudge(MARK);
  }
});

function endpoint(over: Partial<LlmEndpointConfig> = {}): LlmEndpointConfig {
  return { api: 'openai', baseUrl: `${openai.url}/v1`, model: 'judge-1', concurrency: 4, cacheTtlMs: 60_000, ...over };
}

function reranker(over: Partial<LlmEndpointConfig> = {}, opts: { maxCandidates?: number; timeoutMs?: number } = {}, deps: LlmRerankerDeps = {}) {
  return createLlmReranker({ endpoint: endpoint(over), maxCandidates: opts.maxCandidates ?? 10, timeoutMs: opts.timeoutMs ?? 2000 }, deps);
}

function scoresOf(outcome: RerankOutcome): Record<string, number> {
  return Object.fromEntries(outcome.scores);
}

describe('wire formats', () => {
  it('openai: POSTs {baseUrl}/chat/completions with temperature 0, a short answer and the key from apiKeyEnv', async () => {
    const r = reranker({ baseUrl: `${openai.url}/v1/`, apiKeyEnv: 'JUDGE_KEY' }, {}, { env: { JUDGE_KEY: 'sk-test' } });
    expect(r.name).toBe('llm');
    expect(r.model).toBe('judge-1');
    await r.rerank('open the database', [candidate('a')]);
    expect(openai.requests).toHaveLength(1);
    const [req] = openai.requests;
    expect(req!.method).toBe('POST');
    expect(req!.path).toBe('/v1/chat/completions');
    expect(req!.headers['content-type']).toBe('application/json');
    expect(req!.headers.authorization).toBe('Bearer sk-test');
    expect(req!.body).toEqual({
      model: 'judge-1',
      messages: [{ role: 'user', content: buildRerankPrompt('open the database', candidate('a')) }],
      temperature: 0,
      max_tokens: 8,
      stream: false,
    });
  });

  it('openai: a base URL without /v1 is used as given', async () => {
    await reranker({ baseUrl: openai.url }).rerank('q', [candidate('a')]);
    expect(openai.requests.map((q) => q.path)).toEqual(['/chat/completions']);
  });

  it('ollama: POSTs {baseUrl}/api/chat with options.temperature 0 and num_predict, answer in message.content', async () => {
    const r = reranker({ api: 'ollama', baseUrl: `${ollama.url}/`, model: 'qwen2.5-coder:1.5b' });
    const outcome = await r.rerank('open the database', [candidate('a'), candidate('b', `// ${MARK}`)]);
    expect(outcome.order).toEqual(['b', 'a']);
    expect(ollama.requests.map((q) => q.path)).toEqual(['/api/chat', '/api/chat']);
    const req = ollama.requests.find((q) => q.prompt?.includes('src/a.ts'));
    expect(req!.body).toEqual({
      model: 'qwen2.5-coder:1.5b',
      messages: [{ role: 'user', content: buildRerankPrompt('open the database', candidate('a')) }],
      stream: false,
      options: { temperature: 0, num_predict: 8 },
    });
    expect(req!.headers.authorization).toBeUndefined();
  });

  it('sends no Authorization when apiKeyEnv is unset, or names an unset or empty variable', async () => {
    const env = { JUDGE_KEY: 'sk-test', EMPTY_KEY: '' };
    await reranker({}, {}, { env }).rerank('q', [candidate('a')]);
    await reranker({ apiKeyEnv: 'EMPTY_KEY' }, {}, { env }).rerank('q', [candidate('a')]);
    await reranker({ apiKeyEnv: 'MISSING_KEY' }, {}, { env }).rerank('q', [candidate('a')]);
    expect(openai.requests).toHaveLength(3);
    expect(openai.requests.map((q) => q.headers.authorization)).toEqual([undefined, undefined, undefined]);
  });

  it('contacts only the configured base URL: a redirect is an error, not followed', async () => {
    const elsewhere = await startChatServer('openai');
    try {
      openai.respond = () => ({ status: 307, body: '', headers: { location: `${elsewhere.url}/v1/chat/completions` } });
      const outcome = await reranker().rerank('q', [candidate('a')]);
      expect(outcome.skipped).toEqual({ reason: 'error', candidates: 1, detail: 'HTTP 307' });
      expect(elsewhere.requests).toHaveLength(0);
    } finally {
      await elsewhere.close();
    }
  });
});

describe('reordering', () => {
  it('moves the candidates the model scores higher to the front', async () => {
    // c and d hold the marker (9); a and b do not (1): ties keep their input order.
    const outcome = await reranker().rerank('q', [candidate('a'), candidate('b'), candidate('c', MARK), candidate('d', MARK)]);
    expect(outcome.order).toEqual(['c', 'd', 'a', 'b']);
    expect(scoresOf(outcome)).toEqual({ a: 1, b: 1, c: 9, d: 9 });
    expect(outcome.skipped).toBeUndefined();
    expect(outcome.cached).toBe(0);
    expect(outcome.tookMs).toBeGreaterThanOrEqual(0);
  });

  it('sends only the first maxCandidates; the rest keep their places even when they would score higher', async () => {
    const cands = [candidate('a'), candidate('b', MARK), candidate('c'), candidate('d'), candidate('e', MARK)];
    const outcome = await reranker({}, { maxCandidates: 2 }).rerank('q', cands);
    expect(openai.requests).toHaveLength(2);
    expect(outcome.order).toEqual(['b', 'a', 'c', 'd', 'e']);
    expect([...outcome.scores.keys()].sort()).toEqual(['a', 'b']);
    expect(outcome.skipped).toBeUndefined();
  });

  it('keeps at most endpoint.concurrency requests in flight', async () => {
    const server = await startChatServer('openai', () => ({ reply: '5', delayMs: 25 }));
    try {
      const outcome = await reranker({ baseUrl: server.url, concurrency: 2 }).rerank('q', ids(8).map((id) => candidate(id)));
      expect(server.requests).toHaveLength(8);
      expect(server.maxInFlight).toBe(2);
      expect(outcome.scores.size).toBe(8);
    } finally {
      await server.close();
    }
  });

  it('resolves an empty candidate list without a request', async () => {
    const outcome = await reranker().rerank('q', []);
    expect(outcome.order).toEqual([]);
    expect(outcome.skipped).toBeUndefined();
    expect(openai.requests).toHaveLength(0);
  });
});

describe('parseScore', () => {
  it.each([
    ['7', 7],
    ['Score: 8', 8],
    ['8/10', 8],
    ['7.5', 7.5],
    [' 10\n', 10],
    ['0', 0],
    ['.5', 0.5],
  ])('reads %j as %d', (reply, score) => {
    expect(parseScore(reply)).toBe(score);
  });

  it.each(['banana', '', '11', '-3', '10.01', 'Score: -0.5', '99999999999999999999'])('has no score in %j', (reply) => {
    expect(parseScore(reply)).toBeUndefined();
  });
});

describe('bad replies and failing servers', () => {
  it('leaves unusable replies unscored in their places and reorders the rest', async () => {
    openai.respond = byCandidate({
      a: { reply: '2' },
      b: { reply: 'banana' },
      c: { reply: '11' },
      d: { reply: '-3' },
      e: { raw: '{"choices": [' },
      f: { json: { choices: [] } },
      g: { reply: '9' },
      h: { json: { choices: [{ message: { role: 'assistant', content: null } }] } },
    });
    const outcome = await reranker().rerank('q', ids(8).map((id) => candidate(id)));
    // Only a (2) and g (9) were judged; they swap slots 0 and 6, the others stay.
    expect(outcome.order).toEqual(['g', 'b', 'c', 'd', 'e', 'f', 'a', 'h']);
    expect(scoresOf(outcome)).toEqual({ a: 2, g: 9 });
    expect(outcome.skipped?.reason).toBe('bad_response');
    expect(outcome.skipped?.candidates).toBe(6);
    expect(outcome.skipped?.detail).toContain('banana');
  });

  it('ollama: a reply without message.content is a bad response', async () => {
    ollama.respond = () => ({ json: { model: 'm', message: { role: 'assistant' }, done: true } });
    const outcome = await reranker({ api: 'ollama', baseUrl: ollama.url }).rerank('q', [candidate('a'), candidate('b')]);
    expect(outcome.order).toEqual(['a', 'b']);
    expect(outcome.skipped).toMatchObject({ reason: 'bad_response', candidates: 2 });
  });

  it('reports an HTTP error with its status and the server message', async () => {
    ollama.respond = () => ({ status: 404, body: JSON.stringify({ error: "model 'nope' not found" }) });
    const outcome = await reranker({ api: 'ollama', baseUrl: ollama.url, model: 'nope' }).rerank('q', [candidate('a'), candidate('b', MARK)]);
    expect(outcome.order).toEqual(['a', 'b']);
    expect(outcome.scores.size).toBe(0);
    expect(outcome.skipped).toEqual({ reason: 'error', candidates: 2, detail: "HTTP 404: model 'nope' not found" });
  });

  it('treats HTTP 500 as an error for that candidate only', async () => {
    openai.respond = judgeExcept('b', { status: 500 });
    const outcome = await reranker().rerank('q', [candidate('a'), candidate('b'), candidate('c', MARK)]);
    expect(outcome.order).toEqual(['c', 'b', 'a']);
    expect(outcome.skipped).toEqual({ reason: 'error', candidates: 1, detail: 'HTTP 500: status 500' });
  });

  it('reports a refused connection as unavailable and keeps the input order', async () => {
    const outcome = await reranker({ baseUrl: await refusedUrl() }).rerank('q', [candidate('a'), candidate('b', MARK)]);
    expect(outcome.order).toEqual(['a', 'b']);
    expect(outcome.skipped).toEqual({ reason: 'unavailable', candidates: 2, detail: 'ECONNREFUSED' });
  });
});

describe('deadline and abort', () => {
  it('resolves at timeoutMs when the server hangs, aborting in-flight requests and keeping what was scored', async () => {
    openai.respond = judgeExcept('c', { hang: true });
    const abandonedBefore = openai.abandoned;
    const time = fakeScheduler();
    // the deadline fires once the three answers are in (a fetch that has read its body is answered)
    let answered = 0;
    const counting: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      const body = await res.text();
      answered++;
      return new Response(body, { status: res.status, headers: res.headers });
    };
    const pending = reranker({}, { timeoutMs: 250 }, { fetch: counting, scheduler: time }).rerank('q', [candidate('a'), candidate('b'), candidate('c'), candidate('d', MARK)]);
    expect(time.delays).toEqual([250]);
    await expect.poll(() => answered, { timeout: 30_000, interval: 5 }).toBe(3);
    time.advance(250);
    const outcome = await pending;
    // a, b (1) and d (9) were judged and fill slots 0, 1, 3; c keeps slot 2.
    expect(outcome.order).toEqual(['d', 'a', 'c', 'b']);
    expect(outcome.skipped).toEqual({ reason: 'timeout', candidates: 1, detail: 'no answer within 250 ms' });
    expect(outcome.tookMs).toBe(250);
    await expect.poll(() => openai.abandoned - abandonedBefore, { timeout: 30_000, interval: 10 }).toBe(1);
  });

  it('budgets what the cache check left: the timer gets timeoutMs minus the time already spent', async () => {
    const time = fakeScheduler();
    // each reading of the clock costs 40 ms: the budget is read after the start
    const slowClock = { ...time, now: () => (time.advance(40), time.now()) };
    const never: typeof fetch = () => new Promise<Response>(() => {});
    const r = reranker({}, { timeoutMs: 150 }, { fetch: never, scheduler: slowClock });
    const pending = r.rerank('q', [candidate('a'), candidate('b')]);
    expect(time.delays).toEqual([110]);
    time.advance(110);
    const outcome = await pending;
    expect(outcome.order).toEqual(['a', 'b']);
    expect(outcome.skipped).toMatchObject({ reason: 'timeout', candidates: 2 });
    expect(outcome.tookMs).toBe(40 + 110 + 40);
  });

  it('resolves at the deadline even with a fetch that ignores its signal', async () => {
    const time = fakeScheduler();
    const never: typeof fetch = () => new Promise<Response>(() => {});
    const pending = reranker({}, { timeoutMs: 150 }, { fetch: never, scheduler: time }).rerank('q', [candidate('a'), candidate('b')]);
    time.advance(150);
    const outcome = await pending;
    expect(outcome.order).toEqual(['a', 'b']);
    expect(outcome.skipped).toMatchObject({ reason: 'timeout', candidates: 2 });
  });

  it('stops when the caller aborts (its deadline never fires here: the fake timer is not advanced)', async () => {
    openai.respond = () => ({ hang: true });
    const ac = new AbortController();
    const time = fakeScheduler();
    const pending = reranker({}, { timeoutMs: 5000 }, { scheduler: time }).rerank('q', [candidate('a'), candidate('b', MARK)], { signal: ac.signal });
    await expect.poll(() => openai.requests.length, { timeout: 30_000, interval: 5 }).toBeGreaterThan(0);
    ac.abort();
    const outcome = await pending;
    expect(outcome.order).toEqual(['a', 'b']);
    expect(outcome.skipped).toMatchObject({ reason: 'aborted', candidates: 2 });
    expect(time.pending()).toBe(0); // the deadline's timer was cancelled
  });

  it('sends nothing when the signal is already aborted', async () => {
    const outcome = await reranker().rerank('q', [candidate('a')], { signal: AbortSignal.abort() });
    expect(outcome.skipped).toMatchObject({ reason: 'aborted', candidates: 1 });
    expect(openai.requests).toHaveLength(0);
  });

  it('close() aborts a rerank in flight, is idempotent, and later reranks send nothing', async () => {
    openai.respond = () => ({ hang: true });
    const r = reranker({}, { timeoutMs: 5000 });
    const pending = r.rerank('q', [candidate('a'), candidate('b')]);
    await expect.poll(() => openai.requests.length, { timeout: 500, interval: 5 }).toBe(2);
    await r.close();
    await r.close();
    const outcome = await pending;
    expect(outcome.order).toEqual(['a', 'b']);
    expect(outcome.skipped).toMatchObject({ reason: 'aborted', candidates: 2 });
    const after = await r.rerank('q', [candidate('c')]);
    expect(after.skipped).toMatchObject({ reason: 'aborted', candidates: 1 });
    expect(openai.requests).toHaveLength(2);
  });
});

describe('score cache', () => {
  it('serves scores within the TTL without asking again, and asks again after it', async () => {
    const clock = fakeClock();
    const r = reranker({ cacheTtlMs: 1000 }, {}, { clock });
    const cands = [candidate('a'), candidate('b', MARK), candidate('c')];
    const first = await r.rerank('q', cands);
    expect(openai.requests).toHaveLength(3);

    clock.advance(999);
    const second = await r.rerank('q', cands);
    expect(openai.requests).toHaveLength(3);
    expect(second.cached).toBe(3);
    expect(second.order).toEqual(first.order);
    expect(scoresOf(second)).toEqual(scoresOf(first));

    clock.advance(1);
    const third = await r.rerank('q', cands);
    expect(openai.requests).toHaveLength(6);
    expect(third.cached).toBe(0);
    expect(third.order).toEqual(['b', 'a', 'c']);
  });

  it('keys by query: another query misses', async () => {
    const r = reranker();
    await r.rerank('q1', [candidate('a')]);
    const other = await r.rerank('q2', [candidate('a')]);
    expect(other.cached).toBe(0);
    expect(openai.requests).toHaveLength(2);
  });

  it('does not cache bad responses', async () => {
    openai.respond = () => ({ reply: 'banana' });
    const r = reranker();
    await r.rerank('q', [candidate('a')]);
    openai.respond = () => ({ reply: '4' });
    const retry = await r.rerank('q', [candidate('a')]);
    expect(openai.requests).toHaveLength(2);
    expect(retry.cached).toBe(0);
    expect(scoresOf(retry)).toEqual({ a: 4 });
  });

  it('mixes cached and fresh scores in one rerank', async () => {
    const r = reranker();
    await r.rerank('q', [candidate('a')]);
    const outcome = await r.rerank('q', [candidate('a'), candidate('b', MARK)]);
    expect(outcome.cached).toBe(1);
    expect(openai.requests).toHaveLength(2);
    expect(outcome.order).toEqual(['b', 'a']);
  });

  it('evicts the oldest entry past maxEntries, and stores nothing with a TTL of 0', () => {
    const clock = fakeClock();
    const cache = createScoreCache({ ttlMs: 1000, maxEntries: 2, clock });
    cache.set('x', 1);
    cache.set('y', 2);
    cache.set('x', 3); // rewriting makes x the newest
    cache.set('z', 4);
    expect([cache.get('x'), cache.get('y'), cache.get('z')]).toEqual([3, undefined, 4]);
    expect(cache.size).toBe(2);

    const off = createScoreCache({ ttlMs: 0, clock });
    off.set('x', 1);
    expect(off.get('x')).toBeUndefined();
    expect(off.size).toBe(0);
  });
});

describe('prompt', () => {
  it('has the design shape, with the query, the path and the line range', () => {
    expect(buildRerankPrompt('where is the db opened', candidate('a', 'open(db)'))).toBe(
      [
        'You are a code relevance judge. Given a search query and a code snippet, output ONLY a relevance score from 0 to 10.',
        '',
        'Query: where is the db opened',
        '',
        'Snippet (src/a.ts, lines 3-12):',
        '```',
        'open(db)',
        '```',
        '',
        'Score (0-10):',
      ].join('\n'),
    );
  });

  it('is what the server receives', async () => {
    await reranker().rerank('open db', [candidate('a')]);
    const prompt = openai.requests[0]!.prompt!;
    expect(prompt).toContain('Query: open db');
    expect(prompt).toContain('Snippet (src/a.ts, lines 3-12):');
  });

  it('cuts a long snippet and a long query', async () => {
    const text = `${'x'.repeat(LLM_PROMPT_LIMITS.snippetChars)}TAIL`;
    const query = `${'q'.repeat(LLM_PROMPT_LIMITS.queryChars)}QTAIL`;
    await reranker().rerank(query, [candidate('a', text)]);
    const prompt = openai.requests[0]!.prompt!;
    expect(prompt).toContain('x'.repeat(LLM_PROMPT_LIMITS.snippetChars));
    expect(prompt).not.toContain('TAIL');
    expect(prompt.length).toBeLessThan(LLM_PROMPT_LIMITS.snippetChars + LLM_PROMPT_LIMITS.queryChars + 400);
  });

  it('never splits a surrogate pair when cutting', () => {
    const text = `${'x'.repeat(LLM_PROMPT_LIMITS.snippetChars - 1)}😀😀`;
    const prompt = buildRerankPrompt('q', candidate('a', text));
    expect(prompt).toContain(`${'x'.repeat(LLM_PROMPT_LIMITS.snippetChars - 1)}\n\`\`\``);
    expect(prompt).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
  });

  it('fences a snippet that holds a fence with a longer one', () => {
    const prompt = buildRerankPrompt('q', candidate('a', '```ts\nx\n```'));
    expect(prompt).toContain('````\n```ts\nx\n```\n````');
  });
});

describe('programmer errors', () => {
  it('rejects duplicate candidate ids', async () => {
    const err: unknown = await reranker().rerank('q', [candidate('a'), candidate('a')]).catch((e: unknown) => e);
    expect(isEngineError(err, 'INVALID_ARGUMENT')).toBe(true);
  });

  it('rejects a config no endpoint could satisfy', () => {
    const bad = (fn: () => unknown) => {
      try {
        fn();
      } catch (err) {
        return isEngineError(err, 'INVALID_ARGUMENT');
      }
      return false;
    };
    expect(bad(() => reranker({ baseUrl: 'ftp://127.0.0.1/' }))).toBe(true);
    expect(bad(() => reranker({ baseUrl: 'http://user:pw@127.0.0.1/' }))).toBe(true);
    expect(bad(() => reranker({}, { maxCandidates: 0 }))).toBe(true);
    expect(bad(() => reranker({}, { timeoutMs: 0 }))).toBe(true);
    expect(bad(() => reranker({ concurrency: 0 }))).toBe(true);
    // fetch would reject this header with a message quoting the key, which would then show in `skipped.detail`
    expect(bad(() => reranker({ apiKeyEnv: 'K' }, {}, { env: { K: 'sk-a\nb' } }))).toBe(true);
  });
});

describe('property: any reply', () => {
  const reply = fc.oneof(
    fc.string().map((s): ChatAction => ({ reply: s })),
    fc.string({ unit: 'binary' }).map((s): ChatAction => ({ reply: s })),
    fc.constantFrom('0', '7', '10', '10.5', '-1', 'Score: 3', '8/10').map((s): ChatAction => ({ reply: s })),
    fc.double().map((d): ChatAction => ({ reply: String(d) })),
    fc.string().map((s): ChatAction => ({ raw: s })),
    fc.constantFrom<ChatAction>({ json: { choices: [] } }, { json: null }, { status: 500 }),
  );

  // Many runs go through the in-memory fetch (same routing and wire format, no socket); a few
  // through the real server, so that the HTTP path sees arbitrary replies too.
  it.each([
    { transport: 'in-memory', numRuns: 150 },
    { transport: 'socket', numRuns: 10 },
  ])('yields a permutation of the ids and scores within 0–10 ($transport)', async ({ transport, numRuns }) => {
    await fc.assert(
      fc.asyncProperty(fc.array(reply, { minLength: 1, maxLength: 6 }), fc.integer({ min: 1, max: 6 }), async (replies, maxCandidates) => {
        const names = ids(replies.length);
        const respond = byCandidate(Object.fromEntries(names.map((id, i) => [id, replies[i]!])));
        openai.respond = respond;
        const deps = transport === 'in-memory' ? { fetch: inMemoryChatFetch('openai', respond) } : {};
        const outcome = await reranker({}, { maxCandidates }, deps).rerank('q', names.map((id) => candidate(id)));
        expect([...outcome.order].sort()).toEqual(names);
        const pool = names.slice(0, maxCandidates);
        for (const [id, score] of outcome.scores) {
          expect(pool).toContain(id);
          expect(score).toBeGreaterThanOrEqual(0);
          expect(score).toBeLessThanOrEqual(10);
        }
        expect(outcome.skipped?.candidates ?? 0).toBe(pool.length - outcome.scores.size);
        pool.forEach((id, i) => {
          const action = replies[i]!;
          if ('reply' in action && /^(?:10|\d)$/.test(action.reply)) expect(outcome.scores.get(id)).toBe(Number(action.reply));
        });
      }),
      { numRuns },
    );
  });
});
