/**
 * One sensible call per tool over the small fixture repo (test/helpers/fixture-repo.ts), shared by
 * the in-process and the spawned MCP tests. The tests iterate the catalogue, so a tool added
 * later is called too: with its entry here, or with arguments generated from its JSON Schema
 * (then only the envelope's shape is checked). Add an entry when you add a tool.
 */
import { expect } from 'vitest';
import type { ToolDefinition } from '../../src/tools/tool.js';
import { toolJsonSchema } from '../../src/tools/tool-schema.js';

export type Expected = 'ok' | 'invalid_arguments' | 'not_found' | 'permission_denied' | 'requires_confirmation' | 'too_large';

export interface ToolCallCase {
  readonly args: Record<string, unknown>;
  /** The envelope's outcome; write tools under the default `stage` policy stage their change. */
  readonly expect: Expected;
}

const README_DIFF = ['--- a/README.md', '+++ b/README.md', '@@ -1,3 +1,3 @@', ' # Demo', ' ', '-A demo project for tests.', '+A demo project for MCP tests.', ''].join('\n');

export const TOOL_CALLS: Readonly<Record<string, ToolCallCase>> = {
  search_code: { args: { query: 'open the sqlite database', max_results: 3 }, expect: 'ok' },
  search_docs: { args: { query: 'installation' }, expect: 'ok' },
  search_text: { args: { query: 'busy_timeout' }, expect: 'ok' },
  find_similar: { args: { code_snippet: "db.pragma('journal_mode = WAL');" }, expect: 'ok' },
  search_symbols: { args: { name: 'parseConfigFile' }, expect: 'ok' },
  get_symbol_definition: { args: { symbol_id: 'parseConfigFile' }, expect: 'ok' },
  get_references: { args: { symbol_id: 'parseConfigFile', limit: 10 }, expect: 'ok' },
  get_diagnostics: { args: { path: 'src/parse/configLoader.ts' }, expect: 'ok' },
  related_files: { args: { path: 'src/parse/configLoader.ts', limit: 5 }, expect: 'ok' },
  repo_map: { args: { query: 'parseConfigFile', max_tokens: 400 }, expect: 'ok' },
  read_file: { args: { path: 'src/db/open-database.ts', start_line: 1, end_line: 4 }, expect: 'ok' },
  list_files: { args: { glob: 'src/**' }, expect: 'ok' },
  retrieve_context: { args: { query: 'retry a flaky call with backoff', tokens: 1000 }, expect: 'ok' },
  index_status: { args: {}, expect: 'ok' },
  apply_unified_diff: { args: { diff: README_DIFF }, expect: 'requires_confirmation' },
  apply_text_edits: { args: { path: 'README.md', edits: [{ start_line: 3, start_col: 0, end_line: 3, end_col: 6, replacement: 'The' }] }, expect: 'requires_confirmation' },
};

type Schema = { type?: string; enum?: unknown[]; minimum?: number; minItems?: number; items?: Schema; properties?: Record<string, Schema>; required?: string[] };

/** A plausible value for a field, by name first (paths, queries, symbols of the fixture repo), then by type. */
function valueFor(name: string, schema: Schema): unknown {
  if (schema.enum && schema.enum.length > 0) return schema.enum[0];
  switch (schema.type) {
    case 'integer':
    case 'number':
      return schema.minimum ?? 1;
    case 'boolean':
      return false;
    case 'array':
      return schema.minItems ? Array.from({ length: schema.minItems }, () => valueFor(name, schema.items ?? {})) : [];
    case 'object':
      return argsFor(schema);
    default:
      if (/path|file/.test(name)) return 'src/db/open-database.ts';
      if (/glob/.test(name)) return 'src/**';
      if (/symbol|name|id/.test(name)) return 'openDatabase';
      if (/diff/.test(name)) return README_DIFF;
      return 'openDatabase';
  }
}

function argsFor(schema: Schema): Record<string, unknown> {
  const props = schema.properties ?? {};
  return Object.fromEntries((schema.required ?? []).map((key) => [key, valueFor(key, props[key] ?? {})]));
}

/** The table's case for a tool, or generated required arguments with no expectation. */
export function callFor(tool: ToolDefinition): { args: Record<string, unknown>; expect: Expected | undefined } {
  const known = TOOL_CALLS[tool.name];
  if (known) return known;
  return { args: argsFor(toolJsonSchema(tool) as Schema), expect: undefined };
}

/** The envelope contract (tools/envelope.ts) as seen by an MCP client. */
export function expectEnvelope(value: unknown): { ok: boolean; data: unknown; error: string | null; meta: { warnings: string[]; truncated: boolean; bytes: number } } {
  expect(value).toBeTypeOf('object');
  const env = value as { ok: boolean; data: unknown; error: string | null; meta: { warnings: string[]; truncated: boolean; bytes: number } };
  expect(Object.keys(env).sort()).toEqual(['data', 'error', 'meta', 'ok']);
  expect(typeof env.ok).toBe('boolean');
  expect(env.error === null).toBe(env.ok);
  expect(Array.isArray(env.meta.warnings)).toBe(true);
  expect(env.meta.bytes).toBeLessThanOrEqual(200_000);
  return env;
}

/** A CallToolResult as scry shapes it: the envelope, the same result as text, isError on failure. */
export function expectToolResult(callResult: object, expected: Expected | undefined, label: string): ReturnType<typeof expectEnvelope> {
  const result = callResult as { content?: unknown; structuredContent?: unknown; isError?: unknown };
  const env = expectEnvelope(result.structuredContent);
  expect(result.isError, `${label}: isError`).toBe(!env.ok);
  const content = result.content as Array<{ type: string; text: string }>;
  expect(content).toHaveLength(1);
  expect(content[0]!.type).toBe('text');
  expect(content[0]!.text.length, `${label}: text`).toBeGreaterThan(0);
  expect(Buffer.byteLength(content[0]!.text, 'utf8'), `${label}: text within the 200 KB cap`).toBeLessThanOrEqual(200_000);
  if (expected === undefined) expect(env.error, `${label}: ${JSON.stringify(env.data)}`).not.toBe('internal_error');
  else expect(env.ok ? 'ok' : env.error, `${label}: ${JSON.stringify(env.data).slice(0, 500)}`).toBe(expected);
  if (!env.ok) expect(content[0]!.text.startsWith(`error ${env.error!}: `), `${label}: text starts with the error code`).toBe(true);
  return env;
}
