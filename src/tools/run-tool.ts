import * as z from 'zod';
import { closest, distance } from 'fastest-levenshtein';
import { loadTokenCounter } from '../index.js';
import { boundEnvelope } from './bound.js';
import { toolsFor } from './catalog.js';
import { failureOf, type Envelope } from './envelope.js';
import { MAX_TOKENS_ARG, type ToolContext, type ToolDefinition } from './tool.js';

/** The full argument schema of a tool: its fields plus `max_tokens`, unknown keys rejected. */
export function argsSchema(tool: ToolDefinition): z.ZodObject {
  return z.object({ ...tool.input, max_tokens: MAX_TOKENS_ARG }).strict();
}

/** One line per zod issue: `max_results: Too big: expected number to be <=50`. */
export function describeIssues(error: z.ZodError): string[] {
  return error.issues.map((i) => {
    const where = i.path.length > 0 ? i.path.join('.') : 'arguments';
    if (i.code === 'unrecognized_keys') return `${where}: unknown argument${i.keys.length > 1 ? 's' : ''} ${i.keys.join(', ')}`;
    return `${where}: ${i.message}`;
  });
}

/**
 * Other names accepted for an argument, and the name each stands for: `max_results` (scry's
 * earlier name on the search tools) for `limit` (the name of ../shared/seeds §17.4.1), on every
 * tool that has a `limit`. Not listed in the schemas; documented in the README.
 */
export const ARGUMENT_ALIASES: Readonly<Record<string, string>> = { max_results: 'limit' };

/**
 * The arguments with aliases renamed to the names the tool declares; an alias given beside its
 * name with another value is an issue. Aliases of arguments the tool lacks are left for the
 * schema to reject as unknown.
 */
export function canonicalArgs(tool: ToolDefinition, raw: Readonly<Record<string, unknown>>): { args: Record<string, unknown>; issues: string[]; renamed: Record<string, string> } {
  const args: Record<string, unknown> = { ...raw };
  const issues: string[] = [];
  const renamed: Record<string, string> = {};
  for (const [alias, name] of Object.entries(ARGUMENT_ALIASES)) {
    if (!(alias in args) || !(name in tool.input)) continue;
    if (name in args && args[name] !== args[alias]) issues.push(`${alias}: is another name for ${name}; give one of them`);
    else {
      args[name] = args[alias];
      renamed[name] = alias;
    }
    delete args[alias];
  }
  return { args, issues, renamed };
}

/** An issue line about a renamed argument under the name the caller gave (`max_results: Too big…`). */
function asGiven(line: string, renamed: Readonly<Record<string, string>>): string {
  const name = Object.keys(renamed).find((n) => line.startsWith(`${n}:`));
  return name !== undefined ? `${renamed[name]!}${line.slice(name.length)}` : line;
}

function invalid(message: string, issues: readonly string[], suggestions: readonly string[] = []): Envelope {
  return boundEnvelope(
    { ok: false, error: 'invalid_arguments', warnings: [], data: { message, reason: 'INVALID_ARGUMENT', issues, ...(suggestions.length > 0 ? { suggestions } : {}) } },
    undefined,
  );
}

/**
 * The `invalid_arguments` envelope runTool returns for bad input, for callers that reject a call
 * before it reaches runTool (unparsable JSON arguments, a malformed local-model tool call).
 * `hint` tells the caller how to retry.
 */
export function invalidArgumentsEnvelope(message: string, issues: readonly string[], hint?: string): Envelope {
  return boundEnvelope({ ok: false, error: 'invalid_arguments', warnings: [], data: { message, ...(hint ? { hint } : {}), reason: 'INVALID_ARGUMENT', issues } }, undefined);
}

/**
 * Runs one tool call from untrusted input and always returns an envelope: unknown tool or bad
 * arguments → `invalid_arguments` (nothing runs), a thrown EngineError → its tool code, anything
 * else → `internal_error`. The one execution path for MCP, the CLI and the local-model runner.
 */
export async function runTool(name: unknown, args: unknown, ctx: ToolContext): Promise<Envelope> {
  const tools = toolsFor(ctx.writePolicy);
  const tool = typeof name === 'string' ? tools.find((t) => t.name === name) : undefined;
  if (!tool) {
    const names = tools.map((t) => t.name);
    const guess = typeof name === 'string' && name !== '' ? closest(name, names) : undefined;
    const close = guess !== undefined && distance(guess, name as string) <= Math.max(2, Math.floor((name as string).length / 3));
    return invalid(`unknown tool ${JSON.stringify(String(name).slice(0, 100))}`, [`tool: one of ${names.join(', ')}`], close ? [guess] : []);
  }
  // no arguments at all is {}; anything else that is not an object (null, "str", true, [], 3) is refused
  const raw = args === undefined ? {} : args;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    const got = raw === null ? 'null' : Array.isArray(raw) ? 'an array' : typeof raw;
    return invalid(`arguments of ${tool.name} must be a JSON object`, [`arguments: got ${got}; send an object ({} for none)`]);
  }
  const canonical = canonicalArgs(tool, raw as Record<string, unknown>);
  if (canonical.issues.length > 0) return invalid(`invalid arguments for ${tool.name}`, canonical.issues);
  const parsed = argsSchema(tool).safeParse(canonical.args);
  if (!parsed.success) return invalid(`invalid arguments for ${tool.name}`, describeIssues(parsed.error).map((line) => asGiven(line, canonical.renamed)));
  const { max_tokens: maxTokens, ...toolArgs } = parsed.data as { max_tokens?: number } & Record<string, unknown>;
  let draft: { ok: boolean; data: unknown; error: Envelope['error']; warnings: readonly string[]; source?: string | undefined };
  try {
    if (tool.name !== 'index_status') await ctx.ready?.();
    const out = await tool.handler(toolArgs as never, maxTokens === undefined ? ctx : { ...ctx, maxTokens });
    draft = { ok: true, data: out.data, error: null, warnings: [...(ctx.warnings?.() ?? []), ...(out.warnings ?? [])], source: out.source };
  } catch (err) {
    const failure = failureOf(err);
    draft = { ok: false, data: failure.data, error: failure.error, warnings: ctx.warnings?.() ?? [] };
  }
  const counter = maxTokens !== undefined ? await loadTokenCounter() : undefined;
  return boundEnvelope(draft, draft.ok ? tool.bound : undefined, { maxTokens, counter });
}
