/**
 * The HTTP client of the configured chat model (config `llm`): one chat turn (`chat`) and one
 * streamed raw-prompt completion (`complete`). The configured base URL is the only host it
 * contacts, redirects are refused, every request has a time limit, and a reply is read up to a
 * size cap. Failures are EngineErrors with stable codes: LLM_FAILED (unreachable, HTTP error,
 * time limit), LLM_BAD_OUTPUT (a reply that is not the documented format), CANCELLED (the
 * caller's signal).
 */
import { EngineError, type DecodingPreset } from '../index.js';
import type { OpenAiToolDefinition } from '../tools/index.js';
import { chatBody, completeBody, field, readChatReply, readStreamLine, wirePath, type ChatMessage, type ChatReply, type WireApi } from './chat-wire.js';
import { StopMatcher } from './stop-matcher.js';

/** The endpoint settings the client needs (a subset of config `llm`). */
export interface ChatEndpoint {
  readonly api: WireApi;
  readonly baseUrl: string;
  readonly model: string;
  /** Model of `complete`; default `model`. */
  readonly completionModel?: string | undefined;
  /** Time limit of one request, ms. */
  readonly timeoutMs: number;
}

export interface ChatClientDeps {
  /** The API key (sent as a Bearer token), already read from the variable config names. */
  readonly apiKey?: string | undefined;
  /** HTTP client; default the global fetch. */
  readonly fetch?: typeof fetch | undefined;
}

/** A reply body larger than this is not a chat turn and is not read further. */
export const CHAT_REPLY_MAX_BYTES = 4 * 1024 * 1024;

export interface CompleteResult {
  readonly text: string;
  /** `stop`: a stop sequence or the server ended; `length`: the stream closed without saying it was done. */
  readonly finish: 'stop' | 'length';
}

export interface ChatClient {
  readonly url: string;
  chat(request: { messages: readonly ChatMessage[]; preset: DecodingPreset; tools?: readonly OpenAiToolDefinition[] | undefined; turn?: number; signal?: AbortSignal | undefined }): Promise<ChatReply>;
  complete(request: { prompt: string; preset: DecodingPreset; signal?: AbortSignal | undefined; onText?: ((text: string) => void) | undefined }): Promise<CompleteResult>;
}

function endpointUrl(baseUrl: string, path: string): URL {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new EngineError('INVALID_ARGUMENT', { name: 'llm.baseUrl', reason: `not a URL: ${baseUrl}` });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new EngineError('INVALID_ARGUMENT', { name: 'llm.baseUrl', reason: 'must be an http(s) URL' });
  if (url.username !== '' || url.password !== '') throw new EngineError('INVALID_ARGUMENT', { name: 'llm.baseUrl', reason: 'must not hold credentials; use apiKeyEnv' });
  url.hash = '';
  url.pathname = `${url.pathname.replace(/\/+$/, '')}${path}`;
  return url;
}

export function createChatClient(endpoint: ChatEndpoint, deps: ChatClientDeps = {}): ChatClient {
  const chatUrl = endpointUrl(endpoint.baseUrl, wirePath(endpoint.api, 'chat'));
  const completeUrl = endpointUrl(endpoint.baseUrl, wirePath(endpoint.api, 'complete'));
  const key = deps.apiKey?.trim();
  // checked here, because fetch would reject the header with a message that quotes the key
  if (key !== undefined && !/^[\x20-\x7e]*$/.test(key)) throw new EngineError('INVALID_ARGUMENT', { name: 'llm.apiKeyEnv', reason: 'the key holds characters an HTTP header cannot carry' });
  const headers: Record<string, string> = { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) };
  const doFetch = deps.fetch ?? globalThis.fetch;

  const post = async (url: URL, body: unknown, signal: AbortSignal | undefined, what: string): Promise<{ res: Response; timeout: AbortSignal; all: AbortSignal }> => {
    if (signal?.aborted) throw new EngineError('CANCELLED', { what });
    const timeout = AbortSignal.timeout(endpoint.timeoutMs);
    const all = signal ? AbortSignal.any([signal, timeout]) : timeout;
    let res: Response;
    try {
      res = await doFetch(url.href, { method: 'POST', headers: { ...headers, accept: 'application/json' }, body: JSON.stringify(body), signal: all, redirect: 'manual' });
    } catch (err) {
      throw failure(err, url, signal, timeout, what);
    }
    if (!res.ok) throw new EngineError('LLM_FAILED', { url: url.href, reason: await httpDetail(res) });
    return { res, timeout, all };
  };

  return {
    url: chatUrl.href,
    async chat(request) {
      const body = chatBody(endpoint.api, endpoint.model, request.messages, request.preset, request.tools);
      const { res, timeout } = await post(chatUrl, body, request.signal, 'the model request');
      let text: string;
      try {
        text = await readBounded(res, CHAT_REPLY_MAX_BYTES);
      } catch (err) {
        throw failure(err, chatUrl, request.signal, timeout, 'the model request');
      }
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        throw new EngineError('LLM_BAD_OUTPUT', { reason: `the reply is not JSON: ${clip(text)}` });
      }
      const reply = readChatReply(endpoint.api, json, request.turn ?? 1);
      if ('error' in reply) throw new EngineError('LLM_BAD_OUTPUT', { reason: `${reply.error}: ${clip(text)}` });
      return reply;
    },
    async complete(request) {
      const body = completeBody(endpoint.api, endpoint.completionModel ?? endpoint.model, request.prompt, request.preset);
      const { res, timeout } = await post(completeUrl, body, request.signal, 'the completion');
      const matcher = new StopMatcher(request.preset.stop);
      const emit = (t: string): void => {
        if (t !== '') request.onText?.(t);
      };
      try {
        for await (const line of lines(res)) {
          const event = readStreamLine(endpoint.api, line);
          if (event === undefined) continue;
          if ('error' in event) throw new EngineError('LLM_BAD_OUTPUT', { reason: event.error });
          emit(matcher.push(event.text));
          if (matcher.stopped || event.done) {
            await res.body?.cancel().catch(() => undefined);
            emit(matcher.flush());
            return { text: matcher.text, finish: 'stop' };
          }
        }
      } catch (err) {
        if (err instanceof EngineError) throw err;
        throw failure(err, completeUrl, request.signal, timeout, 'the completion');
      }
      emit(matcher.flush());
      return { text: matcher.text, finish: 'length' };
    },
  };
}

function failure(err: unknown, url: URL, signal: AbortSignal | undefined, timeout: AbortSignal, what: string): EngineError {
  if (err instanceof EngineError) return err;
  if (signal?.aborted) return new EngineError('CANCELLED', { what });
  if (timeout.aborted) return new EngineError('LLM_FAILED', { url: url.href, reason: 'no reply within llm.timeoutMs' });
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  const reason = cause?.code ?? cause?.message ?? (err instanceof Error ? err.message : String(err));
  return new EngineError('LLM_FAILED', { url: url.href, reason }, { cause: err });
}

/** The body's lines as they arrive (the last one may lack its newline). */
async function* lines(res: Response): AsyncGenerator<string> {
  if (res.body === null) return;
  const decoder = new TextDecoder();
  let pending = '';
  let size = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > CHAT_REPLY_MAX_BYTES) throw new EngineError('LLM_BAD_OUTPUT', { reason: `the stream is larger than ${CHAT_REPLY_MAX_BYTES} bytes` });
    pending += decoder.decode(chunk, { stream: true });
    let nl = pending.indexOf('\n');
    while (nl !== -1) {
      yield pending.slice(0, nl);
      pending = pending.slice(nl + 1);
      nl = pending.indexOf('\n');
    }
  }
  pending += decoder.decode();
  if (pending !== '') yield pending;
}

async function readBounded(res: Response, limit: number): Promise<string> {
  if (res.body === null) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > limit) throw new EngineError('LLM_BAD_OUTPUT', { reason: `the reply is larger than ${limit} bytes` });
    chunks.push(chunk);
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
}

/** `HTTP 404: model "x" not found`: the status, and the server's own message when it sent one. */
async function httpDetail(res: Response): Promise<string> {
  const status = `HTTP ${res.status}`;
  const text = await readBounded(res, 4096).catch(() => '');
  if (text.trim() === '') return status;
  let message = text.trim();
  try {
    const error = field(JSON.parse(text), 'error');
    const m = typeof error === 'string' ? error : field(error, 'message');
    if (typeof m === 'string') message = m;
  } catch {
    // not JSON: the text itself is the message
  }
  return `${status}: ${clip(message)}`;
}

function clip(text: string, max = 200): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length <= max ? one : `${one.slice(0, max)}…`;
}
