/**
 * `scry ask` and `scry complete` (agent/ask.ts, agent/complete.ts) against a LOCAL HTTP SERVER
 * that speaks the documented OpenAI chat-completions / completions and Ollama chat / generate
 * wire formats and replays scripted model turns (test/helpers/scripted-model.ts): native tool
 * calls, JSON tool_call replies, malformed and partial tool calls, uncited answers, timeouts, a
 * model that never stops calling tools. No model is downloaded or run. The index, the tools and
 * the retrieval are real.
 */
import { writeFileSync } from 'node:fs';
import fc from 'fast-check';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { askRepository, type AskOptions } from '../../src/agent/ask.js';
import { createChatClient, type ChatEndpoint } from '../../src/agent/chat-client.js';
import { completeAtCursor } from '../../src/agent/complete.js';
import { createEngine, ERROR_CODES, isEngineError, loadTokenCounter, type Engine, type TokenCounter } from '../../src/index.js';
import type { ChatClient } from '../../src/agent/chat-client.js';
import type { ChatReply } from '../../src/agent/chat-wire.js';
import { SMALL_REPO, writeSmallRepo } from '../helpers/fixture-repo.js';
import { ollamaStream, ollamaText, ollamaToolCalls, openaiStream, openaiText, openaiToolCalls, startScriptedModel, type ScriptedModel, type Turn } from '../helpers/scripted-model.js';
import { isolatedEnv, tempDir } from '../helpers/temp.js';

let t: ReturnType<typeof tempDir>;
let engine: Engine;
let counter: TokenCounter;
let model: ScriptedModel | undefined;

beforeAll(async () => {
  t = tempDir('scry-agent-');
  const root = join(t.dir, 'repo');
  writeSmallRepo(root);
  writeFileSync(join(root, '.env'), 'API_TOKEN=sk-live-abcdefabcdefabcdefabcdef\n');
  engine = await createEngine({ root, env: isolatedEnv(t.dir) });
  await engine.index();
  counter = await loadTokenCounter();
}, 120_000);

afterAll(() => {
  engine?.close();
  t?.cleanup();
});

afterEach(async () => {
  await model?.close();
  model = undefined;
});

async function serve(script: readonly Turn[], fallback?: Turn): Promise<ScriptedModel> {
  model = await startScriptedModel(script, fallback);
  return model;
}

const endpoint = (m: ScriptedModel, api: 'openai' | 'ollama', timeoutMs = 30_000): ChatEndpoint => ({ api, baseUrl: api === 'openai' ? m.openaiUrl : m.ollamaUrl, model: 'scripted', timeoutMs });

function ask(m: ScriptedModel, over: Partial<AskOptions> & { api?: 'openai' | 'ollama'; timeoutMs?: number } = {}) {
  const { api = 'openai', timeoutMs, ...rest } = over;
  return askRepository({ question: 'where do we retry with exponential backoff?', client: createChatClient(endpoint(m, api, timeoutMs)), tools: { engine }, counter, toolCalls: 'native', maxRounds: 4, maxTokens: 60_000, ...rest });
}

async function failure(p: Promise<unknown>): Promise<{ code: string; message: string; data: Record<string, unknown> }> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isEngineError(err)) throw new Error(`expected an EngineError, got ${String(err)}`);
  return { code: err.code, message: err.message, data: err.data as Record<string, unknown> };
}

const CITED = 'retry_with_backoff retries the call with exponential backoff (src/http/retry_policy.py:3-9).';

describe('scry ask against a scripted OpenAI-compatible server', () => {
  it('runs native tool calls, sends their results back, and accepts a cited answer', async () => {
    const m = await serve([openaiToolCalls([{ id: 'call_a', name: 'search_text', arguments: '{"query":"retry_with_backoff"}' }]), openaiText(CITED)]);
    const result = await ask(m);
    expect(result.answer).toBe(CITED);
    expect(result.citations).toEqual(['src/http/retry_policy.py:3-9']);
    expect(result.rounds).toBe(2);
    expect(m.requests.map((r) => r.path)).toEqual(['/v1/chat/completions', '/v1/chat/completions']);
    const first = m.requests[0]!.body as { tools: Array<{ function: { name: string } }>; messages: Array<{ role: string; content: string }>; temperature: number };
    expect(first.tools.map((x) => x.function.name)).toContain('retrieve_context');
    expect(first.tools.map((x) => x.function.name)).not.toContain('apply_unified_diff');
    expect(first.messages[1]!.content).toMatch(/\[1\] src\/http\/retry_policy\.py:\d+-\d+/);
    const second = m.requests[1]!.body as { messages: Array<{ role: string; content: string | null; tool_call_id?: string }> };
    const tool = second.messages.find((x) => x.role === 'tool');
    expect(tool?.tool_call_id).toBe('call_a');
    expect(JSON.parse(tool!.content!)).toMatchObject({ ok: true });
    expect(result.transcript.map((e) => e.type)).toEqual(['retrieve', 'model', 'tool', 'model']);
  });

  it('answers a partial native tool call (broken arguments) with invalid_arguments and goes on', async () => {
    const m = await serve([openaiToolCalls([{ id: 'call_p', name: 'read_file', arguments: '{"path": "src/db' }]), openaiText(CITED)]);
    const result = await ask(m);
    const tool = result.transcript.find((e) => e.type === 'tool');
    expect(tool).toMatchObject({ name: 'read_file', result: { ok: false, error: 'invalid_arguments' } });
    expect(result.answer).toBe(CITED);
  });

  it('never writes: a write tool call is refused even when the model sends a valid diff', async () => {
    const diff = '--- a/README.md\n+++ b/README.md\n@@ -1,1 +1,1 @@\n-# Demo\n+# Pwned\n';
    const m = await serve([openaiToolCalls([{ id: 'call_w', name: 'apply_unified_diff', arguments: JSON.stringify({ diff }) }]), openaiText(CITED)]);
    const result = await ask(m);
    expect(result.transcript.find((e) => e.type === 'tool')).toMatchObject({ name: 'apply_unified_diff', result: { ok: false } });
    expect((await engine.readFile('README.md')).text).toContain('# Demo');
  });

  it('sends an uncited answer back and accepts the cited one', async () => {
    const m = await serve([openaiText('It uses exponential backoff.'), openaiText('See src/db/open-database.ts:100-120.'), openaiText(CITED)]);
    const result = await ask(m);
    expect(result.answer).toBe(CITED);
    const rejected = result.transcript.filter((e) => e.type === 'rejected_answer');
    expect(rejected).toHaveLength(2);
    expect(rejected[0]).toMatchObject({ reason: 'the answer cites no path:start-end' });
    expect(rejected[1]).toMatchObject({ reason: expect.stringContaining('src/db/open-database.ts:100-120') });
    const last = m.requests[2]!.body as { messages: Array<{ role: string; content: string }> };
    expect(last.messages.at(-1)!.content).toContain('must cite path:start-end');
  });

  it('refuses to answer from nothing: never-cited answers end in LLM_BUDGET_EXHAUSTED with the transcript', async () => {
    const m = await serve([], openaiText('The answer is 42.'));
    const err = await failure(ask(m, { question: 'what is the meaning of life?', maxRounds: 3 }));
    expect(err.code).toBe('LLM_BUDGET_EXHAUSTED');
    expect(m.requests).toHaveLength(3);
    expect((err.data.transcript as Array<{ type: string }>).filter((e) => e.type === 'rejected_answer')).toHaveLength(3);
  });

  it('stops a model that never stops calling tools at maxRounds', async () => {
    const m = await serve([], openaiToolCalls([{ id: 'call_x', name: 'list_files', arguments: '{}' }]));
    const err = await failure(ask(m, { maxRounds: 5 }));
    expect(err.code).toBe('LLM_BUDGET_EXHAUSTED');
    expect(err.message).toContain('5 rounds');
    expect(m.requests).toHaveLength(5);
  });

  it('stops at the token budget before sending a turn that would pass it', async () => {
    const m = await serve([], openaiToolCalls([{ id: 'call_r', name: 'read_file', arguments: '{"path":"docs/guide.md"}' }]));
    const err = await failure(ask(m, { maxRounds: 50, maxTokens: 3000 }));
    expect(err.code).toBe('LLM_BUDGET_EXHAUSTED');
    expect(err.message).toContain('3000 tokens');
    expect(m.requests.length).toBeLessThan(50);
  });

  it('maps wire failures to stable codes: HTTP errors, non-JSON bodies, missing messages', async () => {
    let m = await serve([{ json: { error: { message: 'model "scripted" not found' } }, status: 404 }]);
    let err = await failure(ask(m));
    expect(err).toMatchObject({ code: 'LLM_FAILED', message: expect.stringContaining('HTTP 404: model "scripted" not found') });
    await m.close();
    m = await serve([{ raw: '<html>502 Bad Gateway</html>' }]);
    expect((await failure(ask(m))).code).toBe('LLM_BAD_OUTPUT');
    await m.close();
    m = await serve([{ raw: '{"choices":[{"message":{"content":"trunc' }]);
    expect((await failure(ask(m))).code).toBe('LLM_BAD_OUTPUT');
    await m.close();
    m = await serve([{ json: { choices: [] } }]);
    err = await failure(ask(m));
    expect(err).toMatchObject({ code: 'LLM_BAD_OUTPUT', message: expect.stringContaining('choices[0].message') });
  });

  it('gives up on a server that never answers (LLM_FAILED), and on a cancelled run (CANCELLED)', async () => {
    const m = await serve([], { hang: true });
    expect(await failure(ask(m, { timeoutMs: 200 }))).toMatchObject({ code: 'LLM_FAILED', message: expect.stringContaining('no reply within llm.timeoutMs') });
    const controller = new AbortController();
    const pending = ask(m, { signal: controller.signal });
    while (m.requests.length < 2) await new Promise((r) => setTimeout(r, 10));
    controller.abort();
    expect((await failure(pending)).code).toBe('CANCELLED');
  });

  it('reports an endpoint with nothing listening as LLM_FAILED', async () => {
    const m = await serve([]);
    const url = m.openaiUrl;
    await m.close();
    model = undefined;
    const client = createChatClient({ api: 'openai', baseUrl: url, model: 'x', timeoutMs: 5000 });
    expect((await failure(askRepository({ question: 'how is the database opened?', client, tools: { engine }, counter, toolCalls: 'native', maxRounds: 2, maxTokens: 60_000 }))).code).toBe('LLM_FAILED');
  });
});

describe('scry ask against a scripted Ollama server with the JSON tool_call protocol', () => {
  it('runs a JSON tool_call reply and sends <tool_result> blocks back', async () => {
    const call = '{"type":"tool_call","calls":[{"id":"c1","name":"read_file","arguments":{"path":"src/db/open-database.ts"}}]}';
    const m = await serve([ollamaText(call), ollamaText('openDatabase opens SQLite in WAL mode (src/db/open-database.ts:4-9).')]);
    const result = await ask(m, { api: 'ollama', toolCalls: 'json', question: 'how is the database opened?' });
    expect(result.citations).toEqual(['src/db/open-database.ts:4-9']);
    expect(m.requests.map((r) => r.path)).toEqual(['/api/chat', '/api/chat']);
    const first = m.requests[0]!.body as { tools?: unknown; options: { temperature: number }; messages: Array<{ content: string }>; stream: boolean };
    expect(first.tools).toBeUndefined();
    expect(first).toMatchObject({ stream: false, options: { temperature: 0.2, num_predict: 512 } });
    expect(first.messages[0]!.content).toContain('{"type":"tool_call"');
    const second = m.requests[1]!.body as { messages: Array<{ role: string; content: string }> };
    expect(second.messages.at(-1)).toMatchObject({ role: 'user', content: expect.stringContaining('<tool_result id="c1" name="read_file">') });
  });

  it('answers malformed tool-call JSON with a <tool_call_error> block and runs nothing', async () => {
    const m = await serve([ollamaText('{"type":"tool_call","calls":[{"id":"c1","name":"read_file","arguments":{"path":'), ollamaText(CITED)]);
    const result = await ask(m, { api: 'ollama', toolCalls: 'json' });
    expect(result.transcript.some((e) => e.type === 'tool')).toBe(false);
    expect(result.transcript.find((e) => e.type === 'invalid_tool_call')).toBeDefined();
    const second = m.requests[1]!.body as { messages: Array<{ content: string }> };
    expect(second.messages.at(-1)!.content).toContain('<tool_call_error>');
  });

  it('reads Ollama native tool calls (object arguments, no ids)', async () => {
    const m = await serve([ollamaToolCalls([{ name: 'search_symbols', arguments: { name: 'openDatabase' } }]), ollamaText('See src/db/open-database.ts:4-9.')]);
    const result = await ask(m, { api: 'ollama', question: 'how is the database opened?' });
    expect(result.transcript.find((e) => e.type === 'tool')).toMatchObject({ id: 'call_1_1', name: 'search_symbols', result: { ok: true } });
    const second = m.requests[1]!.body as { messages: Array<{ role: string; tool_name?: string; tool_calls?: unknown }> };
    expect(second.messages.find((x) => x.role === 'tool')).toMatchObject({ tool_name: 'search_symbols' });
  });
});

describe('scry complete against scripted streaming servers', () => {
  const cursor = { path: 'src/parse/configLoader.ts', line: 5, column: 3 };

  it('drafts, retrieves again for the draft, and streams the final completion up to the stop sequence', async () => {
    const m = await serve([openaiStream(['retry_with_backoff(load)\n']), openaiStream(['return { port', ': value.port ?? 8080 };', '\n\nEXTRA', ' more'])]);
    const streamed: string[] = [];
    const result = await completeAtCursor({ cursor, client: createChatClient(endpoint(m, 'openai')), tools: { engine }, counter, maxTokens: 2048, onText: (s) => streamed.push(s) });
    expect(result.text).toBe('return { port: value.port ?? 8080 };');
    expect(streamed.join('')).toBe(result.text);
    expect(result.rounds).toHaveLength(2);
    expect(result.rounds[1]!.query.split(' ')).toContain('retry_with_backoff');
    expect(result.rounds[1]!.context.some((c) => c.startsWith('src/http/retry_policy.py:'))).toBe(true);
    const [draft, final] = m.requests as [{ path: string; body: Record<string, unknown> }, { path: string; body: Record<string, unknown> }];
    expect(draft.path).toBe('/v1/completions');
    expect(final.body).toMatchObject({ stream: true, temperature: 0.2, max_tokens: 128, stop: ['\n\n'] });
    expect(String(final.body.prompt)).toContain('// --- src/http/retry_policy.py:');
    expect(String(final.body.prompt)).toMatch(/<\|fim_prefix\|>[\s\S]*const value = JSON\.parse\(text\);\n {2}<\|fim_suffix\|>return \{ port[\s\S]*<\|fim_middle\|>$/);
  });

  it('speaks Ollama /api/generate (raw prompt, streamed lines) with one round', async () => {
    const m = await serve([ollamaStream(['return ', '{ port: 1 };'])]);
    const result = await completeAtCursor({ cursor, client: createChatClient(endpoint(m, 'ollama')), tools: { engine }, counter, maxTokens: 2048, rounds: 1, stop: [';'] });
    expect(result).toMatchObject({ text: 'return { port: 1 }', finish: 'stop' });
    expect(m.requests[0]).toMatchObject({ path: '/api/generate', body: { raw: true, stream: true, options: { stop: [';'], num_predict: 128 } } });
  });

  it('is cancelled by its signal mid-stream (CANCELLED), keeping what streamed', async () => {
    const m = await serve([openaiStream(['ret'], { done: false, hang: true })]);
    const controller = new AbortController();
    const streamed: string[] = [];
    const pending = completeAtCursor({ cursor, client: createChatClient(endpoint(m, 'openai')), tools: { engine }, counter, maxTokens: 2048, rounds: 1, stop: [], signal: controller.signal, onText: (s) => (streamed.push(s), controller.abort()) });
    expect((await failure(pending)).code).toBe('CANCELLED');
    expect(streamed).toEqual(['ret']);
  });

  it('maps a malformed stream line to LLM_BAD_OUTPUT', async () => {
    const m = await serve([{ lines: ['data: {"choices":[{"text":"ok"}]}', 'data: {not json'] }]);
    expect((await failure(completeAtCursor({ cursor, client: createChatClient(endpoint(m, 'openai')), tools: { engine }, counter, maxTokens: 2048, rounds: 1 }))).code).toBe('LLM_BAD_OUTPUT');
  });

  it('refuses cursors outside the file, secrets and paths outside the root before calling the model', async () => {
    const m = await serve([]);
    const client = createChatClient(endpoint(m, 'openai'));
    const lines = SMALL_REPO['src/parse/configLoader.ts']!.split('\n').length;
    const at = (path: string, line: number, column?: number) => failure(completeAtCursor({ cursor: { path, line, column }, client, tools: { engine }, counter, maxTokens: 2048 }));
    expect(await at('src/parse/configLoader.ts', lines + 5)).toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(await at('src/parse/configLoader.ts', 1, 500)).toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect((await at('.env', 1)).code).toBe('PATH_DENIED');
    expect((await at('../outside.txt', 1)).code).toBe('PATH_OUTSIDE_ROOT');
    expect(m.requests).toHaveLength(0);
  });
});

describe('scry ask never crashes on model output (property)', () => {
  // Arbitrary replies, as the wire layer would hand them over after parsing: prose, JSON that is
  // or looks like a tool_call, and native tool calls with any names and argument texts. This
  // client replays them in-process; the HTTP client itself is covered above.
  const toolName = fc.oneof(fc.constantFrom('read_file', 'search_text', 'list_files', 'retrieve_context', 'apply_unified_diff', 'nope'), fc.string({ maxLength: 12 }));
  const argsText = fc.oneof(fc.json(), fc.string({ maxLength: 40 }), fc.constant('{"path":"src/db/open-database.ts"}'), fc.constant('{"path":"../outside.txt"}'));
  const reply: fc.Arbitrary<ChatReply> = fc.oneof<fc.Arbitrary<ChatReply>[]>(
    fc.record({ content: fc.string({ maxLength: 200 }), toolCalls: fc.constant<ChatReply['toolCalls']>([]) }),
    fc.record({ content: fc.tuple(toolName, argsText).map(([n, a]) => `{"type":"tool_call","calls":[{"id":"c1","name":${JSON.stringify(n)},"arguments":${a}}]}`), toolCalls: fc.constant<ChatReply['toolCalls']>([]) }),
    fc.record({ content: fc.constant(''), toolCalls: fc.array(fc.record({ id: fc.string({ minLength: 1, maxLength: 8 }), type: fc.constant('function' as const), function: fc.record({ name: toolName, arguments: argsText }) }), { minLength: 1, maxLength: 3 }) }),
    fc.constant<ChatReply>({ content: 'See src/http/retry_policy.py:3-9.', toolCalls: [] }),
  );

  it('ends in an answer or a coded EngineError, whatever the model says', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(reply, { minLength: 1, maxLength: 3 }), async (replies) => {
        let i = 0;
        const client: ChatClient = { url: 'scripted://', chat: () => Promise.resolve(replies[Math.min(i++, replies.length - 1)]!), complete: () => Promise.reject(new Error('unused')) };
        try {
          const result = await askRepository({ question: 'where do we retry with exponential backoff?', client, tools: { engine }, counter, toolCalls: 'native', maxRounds: 3, maxTokens: 60_000 });
          expect(result.citations.length).toBeGreaterThan(0);
        } catch (err) {
          expect(isEngineError(err) && ERROR_CODES.includes(err.code), String(err)).toBe(true);
        }
      }),
      { numRuns: 40 },
    );
  }, 120_000);
});
