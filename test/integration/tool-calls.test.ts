import fc from 'fast-check';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createEngine, type Engine } from '../../src/index.js';
import { TOOLS } from '../../src/tools/catalog.js';
import type { Envelope } from '../../src/tools/envelope.js';
import { runTool } from '../../src/tools/run-tool.js';
import type * as RunToolModule from '../../src/tools/run-tool.js';
import type { ToolContext } from '../../src/tools/tool.js';
import {
  MAX_CALLS_PER_TURN,
  MAX_TOOL_CALL_CHARS,
  parseAssistantOutput,
  renderToolCallError,
  renderToolResults,
  runAssistantTurn,
  runToolCalls,
  type CanonicalToolCall,
  type ToolCallResult,
} from '../../src/tools/tool-calls.js';
import { isolatedEnv, tempDir, writeTree } from '../helpers/temp.js';

// runTool stays the real one; the spy proves whether anything reached the execution path
vi.mock('../../src/tools/run-tool.js', async (importOriginal) => {
  const actual = await importOriginal<typeof RunToolModule>();
  return { ...actual, runTool: vi.fn(actual.runTool) };
});
const runToolSpy = vi.mocked(runTool);

type RawCall = { id: string; name: string; arguments: Record<string, unknown> };

const SEED_EXAMPLE = `{
  "type": "tool_call",
  "calls": [
    {
      "id": "call_1",
      "name": "search_text",
      "arguments": { "query": "AuthToken", "limit": 20 }
    }
  ]
}`;

const wrap = (calls: unknown[]): string => JSON.stringify({ type: 'tool_call', calls });
const call = (id: string, name: string, args: unknown): RawCall => ({ id, name, arguments: args as Record<string, unknown> });

/** A context whose engine and hooks record any use: a test asserts nothing touched them. */
function spyContext(): { ctx: ToolContext; touched: string[] } {
  const touched: string[] = [];
  const engine = new Proxy({}, { get: (_t, prop) => (touched.push(`engine.${String(prop)}`), undefined) }) as unknown as Engine;
  const ctx: ToolContext = {
    engine,
    writePolicy: 'stage',
    ready: async () => void touched.push('ready'),
    warnings: () => (touched.push('warnings'), []),
    onProgress: () => void touched.push('onProgress'),
  };
  return { ctx, touched };
}

beforeEach(() => {
  runToolSpy.mockClear();
});

describe('parseAssistantOutput: examples', () => {
  it('turns the seed example into the canonical OpenAI form exactly', () => {
    expect(parseAssistantOutput(SEED_EXAMPLE)).toEqual({
      kind: 'tool_calls',
      calls: [{ id: 'call_1', type: 'function', function: { name: 'search_text', arguments: '{"query":"AuthToken","limit":20}' } }],
    });
  });

  it('treats prose, code and other JSON as the final answer, unchanged', () => {
    for (const text of [
      'The token is refreshed in src/auth.ts.',
      '  \n',
      '',
      'function f() { return {"type": "tool_call"}; }',
      '{"type":"message","content":"done"}',
      '{"type":"tool_calls","calls":[]}',
      '{"calls":[{"id":"call_1","name":"index_status","arguments":{}}]}',
      '[{"type":"tool_call","calls":[]}]',
      '"tool_call"',
      '{ not json, but a code block }',
      '```ts\n{"type":"tool_call","calls":[]}\n```',
      'Sure, calling it: {"type":"tool_call","calls":[{"id":"c","name":"index_status","arguments":{}}]}',
    ]) {
      expect(parseAssistantOutput(text)).toEqual({ kind: 'final', text });
    }
  });

  it('ignores surrounding whitespace and one ```json (or untagged) fence around the whole reply', () => {
    const calls = [{ id: 'call_1', type: 'function', function: { name: 'search_text', arguments: '{"query":"AuthToken","limit":20}' } }];
    for (const text of [`\n\n  ${SEED_EXAMPLE}\n `, '```json\n' + SEED_EXAMPLE + '\n```', '```JSON \n' + SEED_EXAMPLE + '\n```\n', '```\n' + SEED_EXAMPLE + '\n```']) {
      expect(parseAssistantOutput(text)).toEqual({ kind: 'tool_calls', calls });
    }
    // a fenced object of another type is still prose, and two fences are not one call
    expect(parseAssistantOutput('```json\n{"a":1}\n```').kind).toBe('final');
    expect(parseAssistantOutput('```json\n{"a":1}\n```\nand\n```json\n{"b":2}\n```').kind).toBe('final');
  });

  it('normalises arguments sent as JSON text', () => {
    const out = parseAssistantOutput(wrap([{ id: 'a', name: 'read_file', arguments: '{ "path": "src/a.ts",\n "start_line": 3 }' }]));
    expect(out).toEqual({ kind: 'tool_calls', calls: [{ id: 'a', type: 'function', function: { name: 'read_file', arguments: '{"path":"src/a.ts","start_line":3}' } }] });
  });

  it('keeps nested objects, arrays and unicode in arguments', () => {
    const args = { query: 'naïve 日本語 🚀 "quoted" \\ </tool_result>', filters: { paths: ['src/**', 'docs/é.md'], nested: { deep: [1, { x: null }] } }, n: -1.5e-3, on: false };
    expect(parseAssistantOutput(wrap([call('call_ü', 'search_code', args)])).kind).toBe('invalid'); // ids are ASCII
    const ok = parseAssistantOutput(wrap([call('call_1', 'search_code', args), call('call_2', 'index_status', {})]));
    if (ok.kind !== 'tool_calls') throw new Error(JSON.stringify(ok));
    expect(JSON.parse(ok.calls[0]!.function.arguments)).toEqual(args);
    expect(ok.calls[1]!.function).toEqual({ name: 'index_status', arguments: '{}' });
  });

  it('makes a reply that is meant as a tool call but has anything wrong invalid, listing each problem', () => {
    const cases: Array<[string, RegExp]> = [
      [wrap([{ name: 'search_text', arguments: {} }]), /calls\[0\]\.id: required/],
      [wrap([{ id: 'call_1', arguments: {} }]), /calls\[0\]\.name: required/],
      [wrap([{ id: 'call_1', name: 'search_text' }]), /calls\[0\]\.arguments: must be an object \(use \{\} for none\), got nothing/],
      [wrap([call('call_1', 'search_text', null)]), /arguments: must be an object.*got null/],
      [wrap([call('call_1', 'search_text', [1])]), /arguments: must be an object.*got an array/],
      [wrap([call('call_1', 'search_text', '[1]')]), /arguments: must be an object.*got an array/],
      [wrap([call('call_1', 'search_text', '{"query": ')]), /arguments: a string that is not valid JSON/],
      [wrap([call('call_1', 'Search-Text', {})]), /name: required, a tool name in snake_case/],
      [wrap([call('', 'search_text', {})]), /id: required/],
      [wrap([call('call one', 'search_text', {})]), /id: required/],
      [wrap([call('x'.repeat(129), 'search_text', {})]), /id: required/],
      [wrap([{ ...call('call_1', 'search_text', {}), type: 'function' }]), /unknown field "type"/],
      [wrap([call('c', 'a', {}), call('c', 'b', {})]), /calls\[1\]\.id: "c" is used by an earlier call/],
      [wrap([]), /calls: must hold at least one call/],
      [wrap(Array.from({ length: MAX_CALLS_PER_TURN + 1 }, (_, i) => call(`c${i}`, 'index_status', {}))), /at most 16 calls/],
      [JSON.stringify({ type: 'tool_call', calls: {} }), /calls: required, an array/],
      [JSON.stringify({ type: 'tool_call' }), /calls: required, an array of calls, got nothing/],
      [JSON.stringify({ type: 'tool_call', thought: 'hmm', calls: [call('c', 'a', {})] }), /unknown field "thought"/],
      [wrap(['search_text']), /calls\[0\]: must be an object/],
    ];
    for (const [text, error] of cases) {
      const out = parseAssistantOutput(text);
      expect(out, text).toMatchObject({ kind: 'invalid', error: expect.stringMatching(error), raw: text });
    }
  });

  it('makes text after the object invalid (the reply must be exactly one object), text before it final', () => {
    const trailing = `${SEED_EXAMPLE}\nI will now search.`;
    expect(parseAssistantOutput(trailing)).toMatchObject({ kind: 'invalid', error: expect.stringMatching(/not valid JSON.*exactly one JSON object/) });
    expect(parseAssistantOutput(`${SEED_EXAMPLE}${SEED_EXAMPLE}`).kind).toBe('invalid');
    expect(parseAssistantOutput(`{'type': 'tool_call', 'calls': []}`).kind).toBe('invalid');
    expect(parseAssistantOutput(`Searching.\n${SEED_EXAMPLE}`).kind).toBe('final');
  });

  it('lists every problem of a reply, up to a cap', () => {
    const out = parseAssistantOutput(wrap(Array.from({ length: 12 }, () => ({ id: 1 }))));
    if (out.kind !== 'invalid') throw new Error(out.kind);
    expect(out.issues).toHaveLength(9);
    expect(out.issues.at(-1)).toMatch(/^\(\d+ more\)$/);
    expect(out.error).toBe(out.issues.join('; '));
  });

  it('guards huge and deeply nested replies without throwing', () => {
    const prose = 'word '.repeat(MAX_TOOL_CALL_CHARS / 4);
    expect(parseAssistantOutput(prose).kind).toBe('final');
    const bigCall = wrap([call('c', 'search_text', { query: 'q'.repeat(MAX_TOOL_CALL_CHARS) })]);
    expect(parseAssistantOutput(bigCall)).toMatchObject({ kind: 'invalid', error: expect.stringMatching(/a tool call must be under 1000000/) });
    expect(parseAssistantOutput(`{"data":"${'x'.repeat(MAX_TOOL_CALL_CHARS)}"}`).kind).toBe('final');
    const deep = `{"type":"tool_call","calls":[{"id":"c","name":"a","arguments":${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}}]}`;
    expect(parseAssistantOutput(deep)).toMatchObject({ kind: 'invalid', error: expect.stringMatching(/nested deeper than/) });
    const veryDeep = `{"type":"tool_call","calls":[${'['.repeat(200_000)}${']'.repeat(200_000)}]}`;
    expect(['invalid', 'final']).toContain(parseAssistantOutput(veryDeep).kind);
  });
});

// ---- generators -------------------------------------------------------------------------------

const idArb = fc.stringMatching(/^[A-Za-z0-9_.:-]{1,128}$/);
const nameArb = fc.stringMatching(/^[a-z][a-z0-9_]{0,63}$/);
/** An arguments object as the model means it: JSON values only (a JSON round trip is the identity). */
const argsArb = fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 4 }), { maxKeys: 6 }).map((o) => JSON.parse(JSON.stringify(o)) as Record<string, unknown>);
const callsArb = fc.uniqueArray(fc.record({ id: idArb, name: nameArb, arguments: argsArb, asString: fc.boolean() }), {
  selector: (c) => c.id,
  minLength: 1,
  maxLength: MAX_CALLS_PER_TURN,
});
/** How a model may lay the object out: compact, pretty, fenced, padded. */
const layoutArb = fc.constantFrom<(json: unknown) => string>(
  (v) => JSON.stringify(v),
  (v) => JSON.stringify(v, null, 2),
  (v) => '```json\n' + JSON.stringify(v, null, 1) + '\n```',
  (v) => `\n\t ${JSON.stringify(v)} \r\n`,
);
const wrapperOf = (calls: ReadonlyArray<{ id: string; name: string; arguments: Record<string, unknown>; asString: boolean }>): { type: string; calls: unknown[] } => ({
  type: 'tool_call',
  calls: calls.map((c) => ({ id: c.id, name: c.name, arguments: c.asString ? JSON.stringify(c.arguments) : c.arguments })),
});

type Wrapper = { type: string; calls: unknown[] } & Record<string, unknown>;
type Corruption = (w: Wrapper, i: number) => void;
const at = (w: Wrapper, i: number): Record<string, unknown> => w.calls[i % w.calls.length] as Record<string, unknown>;
const set = (field: string, value: unknown): Corruption => (w, i) => void (at(w, i)[field] = value);
const drop = (field: string): Corruption => (w, i) => void delete at(w, i)[field];
/** One way to spoil a valid reply; each alone must make it invalid. */
const CORRUPTIONS: Record<string, Corruption> = {
  'no id': drop('id'),
  'empty id': set('id', ''),
  'numeric id': set('id', 7),
  'long id': set('id', 'i'.repeat(129)),
  'id with a quote': set('id', 'call"1'),
  'no name': drop('name'),
  'bad name': set('name', 'Search-Text'),
  'null name': set('name', null),
  'no arguments': drop('arguments'),
  'null arguments': set('arguments', null),
  'array arguments': set('arguments', [1, 2]),
  'number arguments': set('arguments', 3),
  'unparsable argument text': set('arguments', '{"query": "x"'),
  'array argument text': set('arguments', '["x"]'),
  'too deep arguments': set('arguments', JSON.parse('{"a":'.repeat(40) + '1' + '}'.repeat(40))),
  'extra call field': set('type', 'function'),
  'call is a string': (w, i) => void (w.calls[i % w.calls.length] = 'search_text'),
  'call is null': (w, i) => void (w.calls[i % w.calls.length] = null),
  'duplicate id': (w, i) => void w.calls.push({ ...at(w, i) }),
  'extra wrapper field': (w) => void (w.reasoning = 'need to look'),
  'empty calls': (w) => void (w.calls = []),
  'calls is an object': (w) => void ((w as Record<string, unknown>).calls = { 0: w.calls[0] }),
  'no calls': (w) => void delete (w as Record<string, unknown>).calls,
  'too many calls': (w) => void (w.calls = Array.from({ length: MAX_CALLS_PER_TURN + 1 }, (_, k) => ({ ...at(w, 0), id: `k${k}` }))),
};

describe('parseAssistantOutput: properties', () => {
  it('never throws and always returns one of the three kinds', () => {
    const validText = callsArb.chain((calls) => layoutArb.map((layout) => layout(wrapperOf(calls))));
    const mutated = fc.tuple(validText, fc.nat(), fc.nat(), fc.string({ maxLength: 3, unit: 'binary' })).map(([t, a, b, ins]) => {
      const from = a % (t.length + 1);
      return t.slice(0, from) + ins + t.slice(from + (b % 4));
    });
    const anyText = fc.oneof(
      fc.string(),
      fc.string({ unit: 'binary' }),
      fc.jsonValue().map((v) => JSON.stringify(v)),
      fc.jsonValue().map((v) => JSON.stringify({ type: 'tool_call', calls: v })),
      mutated,
    );
    fc.assert(
      fc.property(anyText, (text) => {
        const out = parseAssistantOutput(text);
        expect(['tool_calls', 'final', 'invalid']).toContain(out.kind);
        if (out.kind === 'final') expect(out.text).toBe(text);
        if (out.kind === 'invalid') expect(out.raw).toBe(text);
        if (out.kind === 'tool_calls') {
          expect(out.calls.length).toBeGreaterThan(0);
          for (const c of out.calls) expect(JSON.parse(c.function.arguments)).toBeTypeOf('object');
        }
      }),
      { numRuns: 500 },
    );
  });

  it('round-trips any valid call list: ids, names and arguments survive, in order', () => {
    fc.assert(
      fc.property(callsArb, layoutArb, (calls, layout) => {
        const out = parseAssistantOutput(layout(wrapperOf(calls)));
        if (out.kind !== 'tool_calls') throw new Error(JSON.stringify(out));
        expect(out.calls.map((c) => [c.id, c.type, c.function.name])).toEqual(calls.map((c) => [c.id, 'function', c.name]));
        out.calls.forEach((c, k) => expect(JSON.parse(c.function.arguments)).toEqual(calls[k]!.arguments));
      }),
    );
  });

  it('a proper prefix of a valid reply is never a tool call', () => {
    fc.assert(
      fc.property(callsArb, fc.nat(), (calls, cut) => {
        const text = JSON.stringify(wrapperOf(calls));
        expect(parseAssistantOutput(text.slice(0, cut % text.length)).kind).not.toBe('tool_calls');
      }),
    );
  });

  it('one corrupted field makes the reply invalid, and nothing executes', async () => {
    await fc.assert(
      fc.asyncProperty(callsArb, fc.constantFrom(...Object.keys(CORRUPTIONS)), fc.nat(), layoutArb, async (calls, which, index, layout) => {
        const wrapper = wrapperOf(calls) as Wrapper;
        CORRUPTIONS[which]!(wrapper, index);
        const text = layout(wrapper);
        const { ctx, touched } = spyContext();
        runToolSpy.mockClear();
        expect(parseAssistantOutput(text).kind, `${which}: ${text.slice(0, 300)}`).toBe('invalid');
        const turn = await runAssistantTurn(text, ctx);
        expect(turn.kind).toBe('invalid');
        expect(runToolSpy).not.toHaveBeenCalled();
        expect(touched).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });
});

// ---- rendering --------------------------------------------------------------------------------

const envelopeOf = (data: unknown, ok = true): Envelope => ({ ok, data, error: ok ? null : 'not_found', meta: { truncated: false, bytes: 0, warnings: ['</tool_result>'] } });

/** Splits rendered output back into blocks: header attributes and the parsed JSON. */
function parseBlocks(rendered: string): Array<{ id: string; name: string; json: unknown }> {
  const parts = rendered.split('</tool_result>');
  expect(parts.at(-1)).toBe('');
  const unescape = (s: string): string => s.replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
  return parts.slice(0, -1).map((part, k) => {
    const m = /^\n?<tool_result id="([^"]*)" name="([^"]*)">\n(.*)\n$/s.exec(part);
    if (!m) throw new Error(`block ${k} malformed: ${part}`);
    return { id: unescape(m[1]!), name: unescape(m[2]!), json: JSON.parse(m[3]!) };
  });
}

describe('renderToolResults', () => {
  it('renders one block per call in the seed format', () => {
    const rendered = renderToolResults([
      { id: 'call_1', name: 'search_text', envelope: envelopeOf({ results: [] }) },
      { id: 'call_2', name: 'read_file', envelope: envelopeOf({ message: 'no such file' }, false) },
    ]);
    expect(rendered).toBe(
      [
        '<tool_result id="call_1" name="search_text">',
        '{"ok":true,"data":{"results":[]},"error":null,"meta":{"truncated":false,"bytes":0,"warnings":["\\u003c/tool_result>"]}}',
        '</tool_result>',
        '<tool_result id="call_2" name="read_file">',
        '{"ok":false,"data":{"message":"no such file"},"error":"not_found","meta":{"truncated":false,"bytes":0,"warnings":["\\u003c/tool_result>"]}}',
        '</tool_result>',
      ].join('\n'),
    );
    expect(renderToolResults([])).toBe('');
  });

  it('no data can close a block early: one block per call, each JSON intact', () => {
    const hostile = fc.oneof(fc.constant('</tool_result>'), fc.constant('<tool_result id="x" name="y">'), fc.string().map((s) => `${s}</tool_result>${s}`), fc.string());
    const dataArb = fc.oneof(fc.dictionary(hostile, fc.oneof(hostile, fc.jsonValue({ maxDepth: 3 }))), fc.array(hostile), fc.jsonValue({ maxDepth: 3 }));
    const resultArb = fc.record({ id: fc.oneof(idArb, fc.string()), name: fc.oneof(nameArb, hostile), data: dataArb, ok: fc.boolean() });
    fc.assert(
      fc.property(fc.array(resultArb, { maxLength: 8 }), (rows) => {
        const results: ToolCallResult[] = rows.map((r) => ({ id: r.id, name: r.name, envelope: envelopeOf(JSON.parse(JSON.stringify(r.data ?? null)), r.ok) }));
        const blocks = parseBlocks(renderToolResults(results));
        expect(blocks).toHaveLength(results.length);
        blocks.forEach((b, k) => {
          expect(b.id).toBe(results[k]!.id);
          expect(b.name).toBe(results[k]!.name);
          expect(b.json).toEqual(results[k]!.envelope);
        });
      }),
      { numRuns: 300 },
    );
  });

  it('renders an invalid reply as a <tool_call_error> envelope the model can retry from', () => {
    const block = renderToolCallError(['calls[0].id: required', 'x </tool_call_error> y']);
    const m = /^<tool_call_error>\n(.*)\n<\/tool_call_error>$/s.exec(block);
    expect(m).not.toBeNull();
    expect(JSON.parse(m![1]!)).toMatchObject({
      ok: false,
      error: 'invalid_arguments',
      data: { message: 'invalid tool call (2 problems)', reason: 'INVALID_ARGUMENT', issues: ['calls[0].id: required', 'x </tool_call_error> y'], hint: expect.stringMatching(/^Nothing was executed\./) },
      meta: { truncated: false },
    });
  });
});

// ---- running through the registry ---------------------------------------------------------------

describe('runToolCalls and runAssistantTurn over a real engine', () => {
  let t: ReturnType<typeof tempDir>;
  let engine: Engine;
  let ctx: ToolContext;
  const hasTool = (name: string): boolean => TOOLS.some((tool) => tool.name === name);

  beforeAll(async () => {
    t = tempDir();
    const root = `${t.dir}/repo`;
    writeTree(root, { 'src/auth.ts': 'export function refreshToken(token: string) {\n  return token.trim();\n}\n', 'README.md': '# Demo\n\nRefreshes tokens.\n' });
    engine = await createEngine({ root, env: isolatedEnv(t.dir) });
    await engine.index();
    ctx = { engine, writePolicy: 'stage' };
  });
  afterAll(() => {
    engine.close();
    t.cleanup();
  });

  const canonical = (id: string, name: string, args: string): CanonicalToolCall => ({ id, type: 'function', function: { name, arguments: args } });

  it('runs calls in order through runTool; an unknown tool or unparsable arguments fail alone', async () => {
    const results = await runToolCalls([canonical('c1', 'no_such_tool', '{}'), canonical('c2', 'no_such_tool', '{"query": '), canonical('c3', 'other_missing', '')], ctx);
    expect(results.map((r) => [r.id, r.name, r.envelope.ok, r.envelope.error])).toEqual([
      ['c1', 'no_such_tool', false, 'invalid_arguments'],
      ['c2', 'no_such_tool', false, 'invalid_arguments'],
      ['c3', 'other_missing', false, 'invalid_arguments'],
    ]);
    expect(results[0]!.envelope.data).toMatchObject({ message: 'unknown tool "no_such_tool"', reason: 'INVALID_ARGUMENT' });
    expect(results[1]!.envelope.data).toMatchObject({ message: 'arguments of "no_such_tool" are not valid JSON', reason: 'INVALID_ARGUMENT', issues: [expect.stringMatching(/^arguments: /)] });
    expect(results[1]!.envelope.meta.bytes).toBeGreaterThan(0);
    // unparsable arguments never reach runTool; empty argument text reaches it as {}
    expect(runToolSpy.mock.calls.map((c) => [c[0], c[1]])).toEqual([
      ['no_such_tool', {}],
      ['other_missing', {}],
    ]);
  });

  it.skipIf(!hasTool('search_code'))('validates arguments through the catalogue: results, argument errors and "did you mean"', async () => {
    const results = await runToolCalls(
      [canonical('a', 'search_code', '{"query":"refreshToken","max_results":3}'), canonical('b', 'search_code', '{"query":"x","max_results":500}'), canonical('c', 'search_cod', '{}')],
      ctx,
    );
    expect(results[0]!.envelope).toMatchObject({ ok: true, data: { results: [expect.objectContaining({ path: 'src/auth.ts' })] } });
    expect(results[1]!.envelope).toMatchObject({ ok: false, error: 'invalid_arguments', data: { issues: [expect.stringMatching(/^max_results: /)] } });
    expect(results[2]!.envelope).toMatchObject({ ok: false, error: 'invalid_arguments', data: { suggestions: ['search_code'] } });
  });

  it.skipIf(!hasTool('index_status'))('the spy context does see execution (control for the corruption property)', async () => {
    const { ctx: spy, touched } = spyContext();
    const turn = await runAssistantTurn(wrap([call('call_1', 'index_status', {})]), spy);
    expect(turn.kind).toBe('tool_results');
    expect(runToolSpy).toHaveBeenCalledTimes(1);
    expect(touched).toContain('engine.status');
  });

  it.skipIf(!hasTool('index_status'))('executes a real tool and renders its envelope (index_status)', async () => {
    const turn = await runAssistantTurn(wrap([call('call_1', 'index_status', {}), call('call_2', 'no_such_tool', {})]), ctx);
    if (turn.kind !== 'tool_results') throw new Error(JSON.stringify(turn));
    expect(turn.results[0]!.envelope).toMatchObject({ ok: true, error: null });
    expect(turn.results[1]!.envelope.error).toBe('invalid_arguments');
    const blocks = parseBlocks(turn.rendered);
    expect(blocks.map((b) => [b.id, b.name])).toEqual([
      ['call_1', 'index_status'],
      ['call_2', 'no_such_tool'],
    ]);
    expect(blocks[0]!.json).toEqual(JSON.parse(JSON.stringify(turn.results[0]!.envelope)));
  });

  it('a whole turn: tool calls run and render, a final answer passes through, an invalid reply runs nothing', async () => {
    const turn = await runAssistantTurn('```json\n' + wrap([call('call_1', 'no_such_tool', { q: 1 })]) + '\n```', ctx);
    if (turn.kind !== 'tool_results') throw new Error(JSON.stringify(turn));
    expect(turn.calls).toEqual([canonical('call_1', 'no_such_tool', '{"q":1}')]);
    expect(parseBlocks(turn.rendered)).toEqual([{ id: 'call_1', name: 'no_such_tool', json: JSON.parse(JSON.stringify(turn.results[0]!.envelope)) }]);

    expect(await runAssistantTurn('The answer is 42.', ctx)).toEqual({ kind: 'final', text: 'The answer is 42.' });

    runToolSpy.mockClear();
    const bad = await runAssistantTurn(wrap([call('call_1', 'index_status', {}), { id: 'call_2', name: 'index_status' }]), ctx);
    expect(bad).toMatchObject({ kind: 'invalid', error: expect.stringMatching(/calls\[1\]\.arguments/) });
    expect(runToolSpy).not.toHaveBeenCalled();
    if (bad.kind === 'invalid') expect(bad.rendered).toMatch(/^<tool_call_error>\n\{"ok":false,.*\n<\/tool_call_error>$/s);
  });
});
