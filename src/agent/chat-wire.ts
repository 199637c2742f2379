/**
 * The two wire formats `scry ask` and `scry complete` speak, as pure functions: request bodies and
 * the reading of replies, for OpenAI-compatible servers (`POST /chat/completions`,
 * `POST /completions`, server-sent events when streaming) and Ollama (`POST /api/chat`,
 * `POST /api/generate`, one JSON object per line when streaming). Reading never throws: a reply
 * that is not what the format documents comes back as `{ error }` for the client to report.
 */
import type { DecodingPreset } from '../index.js';
import type { CanonicalToolCall, OpenAiToolDefinition } from '../tools/index.js';

export type WireApi = 'openai' | 'ollama';

/** One message of a conversation, in the OpenAI shape (Ollama's is derived from it). */
export interface ChatMessage {
  readonly role: 'system' | 'user' | 'assistant' | 'tool';
  readonly content: string;
  /** Native tool calls of an assistant message. */
  readonly tool_calls?: readonly CanonicalToolCall[] | undefined;
  /** The call a `tool` message answers. */
  readonly tool_call_id?: string | undefined;
  /** The tool a `tool` message comes from (Ollama's `tool_name`). */
  readonly name?: string | undefined;
}

/** What one chat turn returned. */
export interface ChatReply {
  readonly content: string;
  /** Native tool calls, canonical (OpenAI) form; ids are made up when the server sends none (Ollama). */
  readonly toolCalls: CanonicalToolCall[];
  /** Token counts the server reported, when it did. */
  readonly usage?: { readonly prompt: number; readonly completion: number } | undefined;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The endpoint path of a request kind under the configured base URL. */
export function wirePath(api: WireApi, kind: 'chat' | 'complete'): string {
  if (api === 'openai') return kind === 'chat' ? '/chat/completions' : '/completions';
  return kind === 'chat' ? '/api/chat' : '/api/generate';
}

function ollamaMessage(m: ChatMessage): Json {
  const calls = m.tool_calls?.map((c) => ({ function: { name: c.function.name, arguments: parseArgs(c.function.arguments) } }));
  return {
    role: m.role,
    content: m.content,
    ...(calls && calls.length > 0 ? { tool_calls: calls } : {}),
    ...(m.role === 'tool' && m.name !== undefined ? { tool_name: m.name } : {}),
  };
}

function openAiMessage(m: ChatMessage): Json {
  return {
    role: m.role,
    // an assistant turn that only called tools has null content in OpenAI's own transcripts
    content: m.role === 'assistant' && m.content === '' && m.tool_calls?.length ? null : m.content,
    ...(m.tool_calls && m.tool_calls.length > 0 ? { tool_calls: m.tool_calls } : {}),
    ...(m.tool_call_id !== undefined ? { tool_call_id: m.tool_call_id } : {}),
  };
}

function parseArgs(text: string): unknown {
  try {
    return JSON.parse(text === '' ? '{}' : text);
  } catch {
    return {};
  }
}

/** The body of one chat request (never streamed: tool calls are read whole). */
export function chatBody(api: WireApi, model: string, messages: readonly ChatMessage[], preset: DecodingPreset, tools?: readonly OpenAiToolDefinition[]): Json {
  const withTools = tools && tools.length > 0 ? { tools } : {};
  if (api === 'openai') {
    return { model, messages: messages.map(openAiMessage), temperature: preset.temperature, top_p: preset.top_p, max_tokens: preset.max_tokens, ...(preset.stop.length > 0 ? { stop: preset.stop } : {}), stream: false, ...withTools };
  }
  return { model, messages: messages.map(ollamaMessage), stream: false, options: ollamaOptions(preset), ...withTools };
}

function ollamaOptions(preset: DecodingPreset): Json {
  return {
    temperature: preset.temperature,
    top_p: preset.top_p,
    num_predict: preset.max_tokens,
    ...(preset.stop.length > 0 ? { stop: preset.stop } : {}),
    ...(preset.repeat_penalty !== undefined ? { repeat_penalty: preset.repeat_penalty } : {}),
  };
}

/** The body of one streamed raw-prompt completion (FIM). */
export function completeBody(api: WireApi, model: string, prompt: string, preset: DecodingPreset): Json {
  if (api === 'openai') {
    return { model, prompt, temperature: preset.temperature, top_p: preset.top_p, max_tokens: preset.max_tokens, ...(preset.stop.length > 0 ? { stop: preset.stop } : {}), stream: true };
  }
  // raw: the FIM markers are the prompt; no chat template may wrap them
  return { model, prompt, raw: true, stream: true, options: ollamaOptions(preset) };
}

function nativeCalls(raw: unknown, turn: number): CanonicalToolCall[] | { error: string } {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) return { error: 'tool_calls is not a list' };
  const calls: CanonicalToolCall[] = [];
  for (const [i, c] of (raw as unknown[]).entries()) {
    const fn = isObject(c) ? c.function : undefined;
    if (!isObject(fn) || typeof fn.name !== 'string') return { error: `tool_calls[${i}] has no function name` };
    const args = fn.arguments;
    // OpenAI sends the arguments as JSON text, Ollama as an object; text that does not parse is
    // passed on as it is and answered with an invalid_arguments envelope the model can read
    const text = typeof args === 'string' ? args : JSON.stringify(args ?? {});
    const id = isObject(c) && typeof c.id === 'string' && c.id !== '' ? c.id : `call_${turn}_${i + 1}`;
    calls.push({ id, type: 'function', function: { name: fn.name, arguments: text } });
  }
  return calls;
}

/** Reads a chat reply body (already parsed JSON). */
export function readChatReply(api: WireApi, json: unknown, turn: number): ChatReply | { error: string } {
  const message = api === 'openai' ? field(at(field(json, 'choices'), 0), 'message') : field(json, 'message');
  if (!isObject(message)) return { error: api === 'openai' ? 'no choices[0].message in the reply' : 'no message in the reply' };
  const content = message.content ?? '';
  if (typeof content !== 'string') return { error: 'message content is not text' };
  const calls = nativeCalls(message.tool_calls, turn);
  if ('error' in calls) return calls;
  const usage =
    api === 'openai'
      ? numbers(field(field(json, 'usage'), 'prompt_tokens'), field(field(json, 'usage'), 'completion_tokens'))
      : numbers(field(json, 'prompt_eval_count'), field(json, 'eval_count'));
  return { content, toolCalls: calls, ...(usage ? { usage } : {}) };
}

/** One streamed event: text to append, and whether the stream says it is done. */
export interface StreamEvent {
  readonly text: string;
  readonly done: boolean;
}

/**
 * One line of a streamed completion: an SSE `data:` line (OpenAI) or a JSON line (Ollama).
 * Blank lines, SSE comments and other fields are `undefined` (nothing to do).
 */
export function readStreamLine(api: WireApi, line: string): StreamEvent | { error: string } | undefined {
  const trimmed = line.trim();
  if (trimmed === '') return undefined;
  let payload = trimmed;
  if (api === 'openai') {
    if (!trimmed.startsWith('data:')) return undefined;
    payload = trimmed.slice(5).trim();
    if (payload === '[DONE]') return { text: '', done: true };
  }
  let json: unknown;
  try {
    json = JSON.parse(payload);
  } catch {
    return { error: `a streamed line is not JSON: ${payload.slice(0, 120)}` };
  }
  const failure = field(json, 'error');
  if (failure !== undefined) return { error: `the server reported: ${typeof failure === 'string' ? failure : JSON.stringify(failure).slice(0, 200)}` };
  if (api === 'openai') {
    const choice = at(field(json, 'choices'), 0);
    const text = field(choice, 'text') ?? field(field(choice, 'delta'), 'content') ?? '';
    if (typeof text !== 'string') return { error: 'choices[0].text is not text' };
    return { text, done: typeof field(choice, 'finish_reason') === 'string' };
  }
  const text = field(json, 'response') ?? '';
  if (typeof text !== 'string') return { error: 'response is not text' };
  return { text, done: field(json, 'done') === true };
}

function numbers(a: unknown, b: unknown): { prompt: number; completion: number } | undefined {
  return typeof a === 'number' && typeof b === 'number' ? { prompt: a, completion: b } : undefined;
}

export function field(value: unknown, key: string): unknown {
  return isObject(value) ? value[key] : undefined;
}

function at(value: unknown, index: number): unknown {
  return Array.isArray(value) ? (value as unknown[])[index] : undefined;
}
