import { boundEnvelope } from './bound.js';
import { failureOf, type Envelope } from './envelope.js';
import { invalidArgumentsEnvelope, runTool } from './run-tool.js';
import type { ToolContext } from './tool.js';

// The local-model tool-call protocol (../shared/seeds §17.1): a model that cannot call tools
// natively answers with exactly one JSON object
//   {"type":"tool_call","calls":[{"id":"call_1","name":"search_text","arguments":{...}}]}
// which becomes canonical OpenAI-style calls; anything else is its final answer. The calls run
// through runTool (the one execution path) and the envelopes go back to the model as
// <tool_result> blocks.

/**
 * Longest reply that may be a tool call, in UTF-16 code units. A longer reply that looks like one
 * is `invalid` (never parsed); longer prose is a `final` answer as usual.
 */
export const MAX_TOOL_CALL_CHARS = 1_000_000;
/** Most calls one reply may make; more is `invalid`, so a looping model cannot fan out. */
export const MAX_CALLS_PER_TURN = 16;
/** Call ids: what OpenAI and Anthropic ids use, and safe in an XML attribute. */
const ID_PATTERN = /^[A-Za-z0-9_.:-]{1,128}$/;
/** Tool names: snake_case, like every tool in the catalogue. */
const NAME_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;
/** Deepest nesting of `arguments`; no tool takes more, and it keeps re-serialising bounded. */
const MAX_ARGUMENT_DEPTH = 32;
/** Issues listed in an `invalid` error; the first few are enough for a model to retry. */
const MAX_ISSUES = 8;
/** What marks a reply that starts with `{` as meant to be a tool call even when it is not valid JSON. */
const TOOL_CALL_MARKER = /["']?type["']?\s*:\s*["']tool_call["']/;
/** One fenced block that is the whole reply, tagged `json` or untagged. */
const FENCE = /^```[ \t]*(?:json)?[ \t]*\r?\n([\s\S]*?)\r?\n[ \t]*```$/i;

/** A tool call in the canonical (OpenAI) form the host's tool loop uses for every provider. */
export interface CanonicalToolCall {
  readonly id: string;
  readonly type: 'function';
  readonly function: {
    readonly name: string;
    /** The arguments object as compact JSON text, as OpenAI sends it. */
    readonly arguments: string;
  };
}

/**
 * What a local model's reply is:
 * - `tool_calls`: exactly one valid tool-call object (optionally in one ```json fence), canonicalised;
 * - `final`: anything that is not a `type: "tool_call"` object (prose, code, other JSON), unchanged;
 * - `invalid`: a reply meant as a tool call (an object with `type: "tool_call"`, or text starting
 *   with `{` that names it but does not parse) with anything wrong. Nothing in it may run;
 *   `issues` lists the problems (at most 8, one line each), `error` joins them with "; ", `raw`
 *   is the reply.
 */
export type AssistantOutput =
  | { readonly kind: 'tool_calls'; readonly calls: CanonicalToolCall[] }
  | { readonly kind: 'final'; readonly text: string }
  | { readonly kind: 'invalid'; readonly error: string; readonly issues: readonly string[]; readonly raw: string };

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
/** A value quoted for an error message, cut so a hostile key cannot blow up the message. */
const quote = (v: string): string => (v.length > 40 ? `${JSON.stringify(v.slice(0, 40))}…` : JSON.stringify(v));
const kindOf = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v);

/** The body of a reply that is one ```json (or untagged) fenced block; otherwise the reply. */
function unfence(trimmed: string): string {
  const m = FENCE.exec(trimmed);
  if (!m || m[1]!.includes('```')) return trimmed;
  return m[1]!.trim();
}

/** True when a value nests deeper than `max` (iterative: deep input must not overflow the stack). */
function tooDeep(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (depth > max) return true;
    for (const child of Object.values(v)) stack.push([child, depth + 1]);
  }
  return false;
}

/** A call's arguments as an object: given as one, or as JSON text of one (some models send that). */
function argumentsObject(raw: unknown, where: string, issues: string[]): Json | undefined {
  let value = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw);
    } catch {
      issues.push(`${where}.arguments: a string that is not valid JSON; send an object`);
      return undefined;
    }
  }
  if (!isObject(value)) {
    issues.push(`${where}.arguments: must be an object (use {} for none), got ${raw === undefined ? 'nothing' : kindOf(value)}`);
    return undefined;
  }
  if (tooDeep(value, MAX_ARGUMENT_DEPTH)) {
    issues.push(`${where}.arguments: nested deeper than ${MAX_ARGUMENT_DEPTH} levels`);
    return undefined;
  }
  return value;
}

/** One call of the wrapper in canonical form, or undefined with its problems added to `issues`. */
function canonicalCall(raw: unknown, where: string, issues: string[]): CanonicalToolCall | undefined {
  if (!isObject(raw)) {
    issues.push(`${where}: must be an object {"id","name","arguments"}, got ${kindOf(raw)}`);
    return undefined;
  }
  const before = issues.length;
  for (const key of Object.keys(raw)) {
    if (key !== 'id' && key !== 'name' && key !== 'arguments') issues.push(`${where}: unknown field ${quote(key)} (allowed: id, name, arguments)`);
  }
  const { id, name } = raw;
  if (typeof id !== 'string' || !ID_PATTERN.test(id)) {
    issues.push(`${where}.id: required, 1-128 characters of A-Z a-z 0-9 _ . : - (like "call_1"), got ${typeof id === 'string' ? quote(id) : kindOf(id)}`);
  }
  if (typeof name !== 'string' || !NAME_PATTERN.test(name)) {
    issues.push(`${where}.name: required, a tool name in snake_case (like "search_text"), got ${typeof name === 'string' ? quote(name) : kindOf(name)}`);
  }
  const args = argumentsObject(raw.arguments, where, issues);
  if (issues.length > before || !args) return undefined;
  return { id: id as string, type: 'function', function: { name: name as string, arguments: JSON.stringify(args) } };
}

/** The canonical calls of a `type: "tool_call"` object, or the list of what is wrong with it. */
function validateWrapper(obj: Json): { calls: CanonicalToolCall[] } | { issues: string[] } {
  const issues: string[] = [];
  for (const key of Object.keys(obj)) {
    if (key !== 'type' && key !== 'calls') issues.push(`unknown field ${quote(key)} (allowed: type, calls)`);
  }
  const list = obj.calls;
  if (!Array.isArray(list)) return { issues: [...issues, `calls: required, an array of calls, got ${list === undefined ? 'nothing' : kindOf(list)}`] };
  if (list.length === 0) issues.push('calls: must hold at least one call');
  if (list.length > MAX_CALLS_PER_TURN) issues.push(`calls: at most ${MAX_CALLS_PER_TURN} calls per reply, got ${list.length}`);
  const calls: CanonicalToolCall[] = [];
  const seen = new Set<string>();
  list.slice(0, MAX_CALLS_PER_TURN).forEach((raw, i) => {
    const call = canonicalCall(raw, `calls[${i}]`, issues);
    if (!call) return;
    if (seen.has(call.id)) issues.push(`calls[${i}].id: ${quote(call.id)} is used by an earlier call; ids must be unique`);
    seen.add(call.id);
    calls.push(call);
  });
  return issues.length > 0 ? { issues } : { calls };
}

function invalidOutput(issues: readonly string[], raw: string): AssistantOutput {
  const shown = issues.slice(0, MAX_ISSUES);
  const listed = issues.length > shown.length ? [...shown, `(${issues.length - shown.length} more)`] : shown;
  return { kind: 'invalid', error: listed.join('; '), issues: listed, raw };
}

/**
 * Classifies a local model's reply. Surrounding whitespace is ignored, and so is one ```json
 * (or untagged) fence around the whole reply. The object must be the entire reply: text before
 * it makes the reply `final` (it is prose that mentions a call), text after it makes it
 * `invalid` (it no longer parses, and it names `tool_call`). Fields are strict: unknown fields,
 * a missing id, name or arguments, duplicate ids or more than {@link MAX_CALLS_PER_TURN} calls
 * make the whole reply `invalid`, so a partly valid reply runs nothing. `arguments` may be an
 * object or JSON text of one; either way it comes out as compact JSON text. Never throws.
 */
export function parseAssistantOutput(text: string): AssistantOutput {
  const body = unfence(text.trim());
  if (!body.startsWith('{')) return { kind: 'final', text };
  if (body.length > MAX_TOOL_CALL_CHARS) {
    return TOOL_CALL_MARKER.test(body) ? invalidOutput([`reply is ${body.length} characters; a tool call must be under ${MAX_TOOL_CALL_CHARS}`], text) : { kind: 'final', text };
  }
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (err) {
    if (!TOOL_CALL_MARKER.test(body)) return { kind: 'final', text };
    const why = err instanceof Error ? err.message : String(err);
    return invalidOutput([`not valid JSON (${why}); the reply must be exactly one JSON object with nothing before or after it`], text);
  }
  if (!isObject(value) || value.type !== 'tool_call') return { kind: 'final', text };
  const checked = validateWrapper(value);
  return 'issues' in checked ? invalidOutput(checked.issues, text) : { kind: 'tool_calls', calls: checked.calls };
}

/** One executed call: its id and name as the model gave them, and the tool's envelope. */
export interface ToolCallResult {
  readonly id: string;
  readonly name: string;
  readonly envelope: Envelope;
}

/**
 * The arguments text of a canonical call as a value for runTool. Empty text means no arguments
 * (some providers send "" for a tool without parameters); non-object JSON is left to runTool,
 * which rejects it with the tool's name in the message.
 */
function decodeArguments(text: string): { value: unknown } | { error: string } {
  if (text.trim() === '') return { value: {} };
  try {
    return { value: JSON.parse(text) };
  } catch (err) {
    return { error: err instanceof Error ? err.message : String(err) };
  }
}

/**
 * Executes canonical calls one after another, in order, each through runTool, the same path MCP
 * and the CLI use, so every call gets the catalogue's validation, write policy and byte cap. A
 * call whose arguments are not JSON gets an `invalid_arguments` envelope; an unknown tool gets
 * runTool's `invalid_arguments` (with a "did you mean"). One failing call never stops the rest.
 */
export async function runToolCalls(calls: readonly CanonicalToolCall[], ctx: ToolContext): Promise<ToolCallResult[]> {
  const results: ToolCallResult[] = [];
  for (const call of calls) {
    const { name } = call.function;
    const args = decodeArguments(call.function.arguments);
    let envelope: Envelope;
    if ('error' in args) {
      envelope = invalidArgumentsEnvelope(`arguments of ${quote(name)} are not valid JSON`, [`arguments: ${args.error}`]);
    } else {
      try {
        envelope = await runTool(name, args.value, ctx);
      } catch (err) {
        // runTool promises an envelope; if it ever throws, this call fails alone
        const failure = failureOf(err);
        envelope = boundEnvelope({ ok: false, error: failure.error, data: failure.data, warnings: [] }, undefined);
      }
    }
    results.push({ id: call.id, name, envelope });
  }
  return results;
}

/** Escapes an XML attribute value (call ids from other providers are not validated here). */
const attribute = (v: string): string => v.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * JSON with every `<` written as `\u003c`: still the same JSON value, but no string inside it can
 * spell `</tool_result>` and close its block early.
 */
const blockJson = (value: unknown): string => JSON.stringify(value).replace(/</g, '\\u003c');

/**
 * The results as blocks to append to the conversation (../shared/seeds §17.1), one per call, in
 * order, joined by newlines:
 *
 *     <tool_result id="call_1" name="search_text">
 *     {"ok":true,"data":{...},"error":null,"meta":{...}}
 *     </tool_result>
 *
 * The envelope is compact JSON on one line.
 */
export function renderToolResults(results: readonly ToolCallResult[]): string {
  return results.map((r) => `<tool_result id="${attribute(r.id)}" name="${attribute(r.name)}">\n${blockJson(r.envelope)}\n</tool_result>`).join('\n');
}

const RETRY_HINT =
  'Nothing was executed. To call tools, reply with exactly one JSON object and nothing else: {"type":"tool_call","calls":[{"id":"call_1","name":"<tool>","arguments":{...}}]}. Otherwise answer in plain text.';

/**
 * The block for a reply that was meant as a tool call but is not valid, so the model can retry:
 *
 *     <tool_call_error>
 *     {"ok":false,"data":{"message":"invalid tool call (1 problem)","hint":"Nothing was executed. …","reason":"INVALID_ARGUMENT","issues":["calls[0].id: …"]},"error":"invalid_arguments","meta":{...}}
 *     </tool_call_error>
 *
 * It has no id or name: a malformed reply may have neither.
 */
export function renderToolCallError(issues: readonly string[]): string {
  const envelope = invalidArgumentsEnvelope(`invalid tool call (${issues.length} problem${issues.length === 1 ? '' : 's'})`, issues, RETRY_HINT);
  return `<tool_call_error>\n${blockJson(envelope)}\n</tool_call_error>`;
}

/** What one model reply led to (see {@link runAssistantTurn}). */
export type AssistantTurn =
  | { readonly kind: 'final'; readonly text: string }
  | { readonly kind: 'tool_results'; readonly calls: CanonicalToolCall[]; readonly results: ToolCallResult[]; readonly rendered: string }
  | { readonly kind: 'invalid'; readonly error: string; readonly issues: readonly string[]; readonly rendered: string };

/**
 * One step of a host's tool loop for a local model: parse the reply; run its calls and render
 * the `<tool_result>` blocks to append (then prompt the model again); or, for an invalid call,
 * run nothing and render a `<tool_call_error>` block to append instead; or hand back the final
 * answer.
 */
export async function runAssistantTurn(text: string, ctx: ToolContext): Promise<AssistantTurn> {
  const output = parseAssistantOutput(text);
  if (output.kind === 'final') return output;
  if (output.kind === 'invalid') return { kind: 'invalid', error: output.error, issues: output.issues, rendered: renderToolCallError(output.issues) };
  const results = await runToolCalls(output.calls, ctx);
  return { kind: 'tool_results', calls: output.calls, results, rendered: renderToolResults(results) };
}
