/**
 * The tool contract as an MCP client meets it (real SDK Client, in-memory transport, real engine
 * over the small fixture repo): every tool called exactly as ../shared/seeds §17.4.1 allows
 * (the note's argument names, ranges and defaults), its structuredContent validated by the SDK
 * client against the tool's outputSchema, and its text content (golden files under
 * test/golden/tools/mcp-text/) carrying the result itself: code, lines, symbols. Then bad input:
 * non-object arguments and arbitrary JSON (fast-check) never reach the client as a JSON-RPC error.
 */
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createEngine, type Engine } from '../../src/index.js';
import { createScryServer } from '../../src/mcp/server.js';
import { TOOLS } from '../../src/tools/catalog.js';
import { TOOL_ERROR_CODES } from '../../src/tools/envelope.js';
import { SMALL_REPO, writeSmallRepo } from '../helpers/fixture-repo.js';
import { expectGoldenText } from '../helpers/golden-text.js';
import { TOOL_CALLS } from '../helpers/mcp-tool-calls.js';
import { isolatedEnv, tempDir } from '../helpers/temp.js';

const RERUN = 'npx vitest run test/integration/mcp-contract.test.ts';
const golden = (name: string): string => fileURLToPath(new URL(`../golden/tools/mcp-text/${name}.txt`, import.meta.url));

/** The read tools of §17.4.1, called with the note's arguments (every one it defines, at values its schema allows). */
const NOTE_CALLS: Record<string, Record<string, unknown>> = {
  read_file: { path: 'src/db/open-database.ts', start_line: 1, end_line: 9, max_bytes: 50_000 },
  list_files: { glob: 'src/**', limit: 200, include_hidden: false },
  search_text: { query: 'busy_timeout', limit: 30, paths: ['src/'] },
  search_symbols: { name: 'LoadedConfig', kind: 'protocol', limit: 20 },
  get_symbol_definition: { symbol_id: 'src/parse/configLoader.ts#parseConfigFile@3' },
  get_references: { symbol_id: 'parseConfigFile', limit: 50 },
  retrieve_context: { query: 'retry a flaky call with backoff', current_path: 'src/http/retry_policy.py', language: 'python', max_chunks: 8, max_total_bytes: 60_000 },
};

type Envelope = { ok: boolean; error: string | null; data: Record<string, unknown>; meta: { warnings: string[]; truncated: boolean } };
const envelopeOf = (r: CallToolResult): Envelope => r.structuredContent as unknown as Envelope;
const textOf = (r: CallToolResult): string => (r.content[0] as { text: string }).text;

describe('MCP tool contract (real client)', () => {
  let t: ReturnType<typeof tempDir>;
  let root: string;
  let engine: Engine;
  let client: Client;
  /** The text with what differs between runs (the temp root, times) replaced. */
  let stable: (text: string) => string;

  beforeAll(async () => {
    t = tempDir('scry-mcp-contract-');
    root = join(t.dir, 'repo');
    writeSmallRepo(root);
    engine = await createEngine({ root, env: isolatedEnv(t.dir) });
    await engine.index();
    const server = createScryServer({ engine, version: '0.0.0-test' });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    client = new Client({ name: 'scry-contract', version: '0' });
    await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
    // caches every tool's outputSchema: from here on callTool validates structuredContent against it
    const { tools } = await client.listTools();
    expect(tools.every((tool) => tool.outputSchema?.type === 'object')).toBe(true);
    stable = (text) => text.split(root).join('<root>').replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, '<time>');
  });

  afterAll(async () => {
    await client.close();
    engine.close();
    t.cleanup();
  });

  const call = async (name: string, args: unknown): Promise<CallToolResult> => (await client.callTool({ name, arguments: args as Record<string, unknown> })) as CallToolResult;

  it.each(Object.keys(NOTE_CALLS))('%s, called as the note defines it: ok, valid output, the result in the text', async (name) => {
    const result = await call(name, NOTE_CALLS[name]);
    const env = envelopeOf(result);
    expect(env.ok, JSON.stringify(env.data)).toBe(true);
    expect(result.isError).toBe(false);
    expectGoldenText(golden(name), stable(textOf(result)), RERUN);
  });

  it.each(TOOLS.filter((tool) => tool.readOnly && !(tool.name in NOTE_CALLS)).map((tool) => tool.name))('%s (not in the note), called with its own example: ok, valid output, readable text', async (name) => {
    const result = await call(name, TOOL_CALLS[name]!.args);
    expect(envelopeOf(result).ok).toBe(true);
    expectGoldenText(golden(name), stable(textOf(result)), RERUN);
  });

  it('puts the code in the text: every line read_file returns, every line of a search snippet', async () => {
    const file = SMALL_REPO['src/db/open-database.ts']!.split('\n');
    const read = textOf(await call('read_file', { path: 'src/db/open-database.ts' }));
    file.forEach((line, i) => expect(read).toContain(`${String(i + 1)}  ${line}`));
    const search = await call('search_code', { query: 'open the sqlite database' });
    const hits = envelopeOf(search).data.results as Array<{ snippet: string }>;
    expect(hits.length).toBeGreaterThan(0);
    for (const h of hits) for (const line of h.snippet.replace(/[«»]/g, '').split('\n')) expect(textOf(search)).toContain(line);
  });

  it('accepts max_results as another name for limit, and refuses both with different values', async () => {
    const byLimit = envelopeOf(await call('search_code', { query: 'database', limit: 1 }));
    const byAlias = envelopeOf(await call('search_code', { query: 'database', max_results: 1 }));
    expect(byAlias.data).toEqual(byLimit.data);
    expect((byLimit.data.results as unknown[]).length).toBe(1);
    expect(envelopeOf(await call('list_files', { max_results: 1 })).data.files).toHaveLength(1);
    const both = await call('search_code', { query: 'database', limit: 1, max_results: 2 });
    expect(both.isError).toBe(true);
    expect(textOf(both)).toContain('max_results: is another name for limit');
    expect(textOf(await call('search_code', { query: 'x', max_results: 500 }))).toMatch(/^- max_results: Too big/m);
  });

  it('retrieve_context keeps at most max_chunks pieces, best-ranked first, and says how many it left out', async () => {
    const env = envelopeOf(await call('retrieve_context', { query: 'retry config database port', max_chunks: 1 }));
    expect(env.data.pieces).toHaveLength(1);
    const all = envelopeOf(await call('retrieve_context', { query: 'retry config database port' }));
    expect((all.data.pieces as unknown[]).length).toBeGreaterThan(1);
    expect(env.data.tokens as number, 'tokens counts only the pieces kept').toBeLessThan(all.data.tokens as number);
    expect(env.meta.warnings.some((w) => /left out by max_chunks=1/.test(w))).toBe(true);
    const bad = await call('retrieve_context', { query: 'x', max_chunks: 21, max_total_bytes: 100 });
    expect(envelopeOf(bad).error).toBe('invalid_arguments');
    expect(textOf(bad)).toMatch(/max_chunks/);
    expect(textOf(bad)).toMatch(/max_total_bytes/);
  });

  it('bounds the text by max_tokens like the envelope, with the same whole lines, saying what was left out', async () => {
    const { loadTokenCounter } = await import('../../src/index.js');
    const counter = await loadTokenCounter();
    let cut = 0;
    for (const maxTokens of [150, 180, 220, 300]) {
      const result = await call('read_file', { path: 'src/db/open-database.ts', max_tokens: maxTokens });
      const text = textOf(result);
      const env = envelopeOf(result);
      expect(counter.count(text), `max_tokens=${maxTokens}`).toBeLessThanOrEqual(maxTokens);
      if (!env.ok) continue;
      const kept = (env.data.text as string).split('\n');
      kept.forEach((line, i) => expect(text).toContain(`${i + 1}  ${line}`));
      if (env.meta.truncated) {
        cut++;
        expect(text).toMatch(/omitted to fit: \d+ text/);
        expect(text).not.toContain(`${kept.length + 1}  `);
      }
    }
    expect(cut, 'at least one budget cuts the file').toBeGreaterThan(0);
  });

  it.each(TOOLS.map((tool) => tool.name))('%s: non-object arguments come back as an invalid_arguments envelope with isError', async (name) => {
    for (const args of ['str', true, [], null, 3]) {
      const result = await call(name, args);
      expect(result.isError, `${name} ${JSON.stringify(args)}`).toBe(true);
      expect(envelopeOf(result).error).toBe('invalid_arguments');
      expect(textOf(result)).toMatch(/^error invalid_arguments: arguments of \w+ must be a JSON object/);
    }
  });

  it('property: arbitrary JSON as arguments to any tool gets ok or an envelope error with a stable code, never a protocol error', async () => {
    const names = TOOLS.map((tool) => tool.name);
    const keysOf = (name: string): string[] => [...Object.keys(TOOLS.find((tool) => tool.name === name)!.input), 'max_tokens', 'max_results'];
    const argsFor = fc.constantFrom(...names).chain((name) =>
      fc.tuple(fc.constant(name), fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.dictionary(fc.constantFrom(...keysOf(name)), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }))),
    );
    await fc.assert(
      fc.asyncProperty(argsFor, async ([name, args]) => {
        const result = await call(name, args); // a JSON-RPC error or an output failing its schema throws here
        const env = envelopeOf(result);
        expect(result.isError).toBe(!env.ok);
        if (!env.ok) {
          expect(TOOL_ERROR_CODES).toContain(env.error);
          expect(env.error, JSON.stringify(env.data)).not.toBe('internal_error');
          expect(textOf(result).startsWith(`error ${env.error!}: `)).toBe(true);
        }
      }),
      { numRuns: 150 },
    );
    // the property must not have written anything (the write tools stage without a host token)
    expect(readFileSync(join(root, 'README.md'), 'utf8')).toBe(SMALL_REPO['README.md']);
  });

  // last: these change the fixture repo
  it('apply_unified_diff and apply_text_edits, called as the note defines them (with a host token): applied, valid output, readable text', async () => {
    const diff = TOOL_CALLS.apply_unified_diff!.args.diff as string;
    const token = engine.mintConfirmationToken({ hash: (await engine.proposeChange({ kind: 'diff', diff })).hash });
    const applied = await call('apply_unified_diff', { diff, confirmation_token: token });
    expect(envelopeOf(applied).ok, JSON.stringify(envelopeOf(applied).data)).toBe(true);
    expectGoldenText(golden('apply_unified_diff'), stable(textOf(applied)), RERUN);

    const edits = [{ start_line: 1, start_col: 2, end_line: 1, end_col: 6, replacement: 'Example' }];
    const editToken = engine.mintConfirmationToken({ hash: (await engine.proposeChange({ kind: 'edits', path: 'README.md', edits: edits.map((e) => ({ startLine: e.start_line, startCol: e.start_col, endLine: e.end_line, endCol: e.end_col, replacement: e.replacement })) })).hash });
    const edited = await call('apply_text_edits', { path: 'README.md', edits, confirmation_token: editToken });
    expect(envelopeOf(edited).ok, JSON.stringify(envelopeOf(edited).data)).toBe(true);
    expectGoldenText(golden('apply_text_edits'), stable(textOf(edited)), RERUN);
    expect(readFileSync(join(root, 'README.md'), 'utf8')).toBe('# Example\n\nA demo project for MCP tests.\n');
  });
});
