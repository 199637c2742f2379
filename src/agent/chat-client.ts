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
  return new HttpChatClient(endpoint, deps);
}

type ChatRequest = Parameters<ChatClient['chat']>[0];
type CompleteRequest = Parameters<ChatClient['complete']>[0];

class HttpChatClient implements ChatClient {
  private readonly chatUrl: URL;
  private readonly completeUrl: URL;
  private readonly headers: Readonly<Record<string, string>>;
  private readonly fetch: typeof fetch;

  constructor(
    private readonly endpoint: ChatEndpoint,
    deps: ChatClientDeps,
  ) {
    this.chatUrl = endpointUrl(endpoint.baseUrl, wirePath(endpoint.api, 'chat'));
    this.completeUrl = endpointUrl(endpoint.baseUrl, wirePath(endpoint.api, 'complete'));
    const key = deps.apiKey?.trim();
    // checked here, because fetch would reject the header with a message that quotes the key
    if (key !== undefined && !/^[\x20-\x7e]*$/.test(key)) throw new EngineError('INVALID_ARGUMENT', { name: 'llm.apiKeyEnv', reason: 'the key holds characters an HTTP header cannot carry' });
    this.headers = { 'content-type': 'application/json', accept: 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) };
    this.fetch = deps.fetch ?? globalThis.fetch;
  }

  get url(): string {
    return this.chatUrl.href;
  }

  async chat(request: ChatRequest): Promise<ChatReply> {
    const body = chatBody(this.endpoint.api, this.endpoint.model, request.messages, request.preset, request.tools);
    const { res, guard } = await this.post(this.chatUrl, body, request.signal, 'the model request');
    let text: string;
    try {
      text = await readBounded(res, CHAT_REPLY_MAX_BYTES, guard.signal);
    } catch (err) {
      throw failure(err, this.chatUrl, request.signal, guard, 'the model request');
    } finally {
      guard.dispose();
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new EngineError('LLM_BAD_OUTPUT', { reason: `the reply is not JSON: ${clip(text)}` });
    }
    const reply = readChatReply(this.endpoint.api, json, request.turn ?? 1);
    if ('error' in reply) throw new EngineError('LLM_BAD_OUTPUT', { reason: `${reply.error}: ${clip(text)}` });
    return reply;
  }

  async complete(request: CompleteRequest): Promise<CompleteResult> {
    const { api, completionModel, model } = this.endpoint;
    const { res, guard } = await this.post(this.completeUrl, completeBody(api, completionModel ?? model, request.prompt, request.preset), request.signal, 'the completion');
    const matcher = new StopMatcher(request.preset.stop);
    const emit = (t: string): void => {
      if (t !== '') request.onText?.(t);
    };
    try {
      for await (const line of lines(res, guard.signal)) {
        const event = readStreamLine(api, line);
        if (event === undefined) continue;
        if ('error' in event) throw new EngineError('LLM_BAD_OUTPUT', { reason: event.error });
        emit(matcher.push(event.text));
        if (matcher.stopped || event.done) {
          emit(matcher.flush());
          return { text: matcher.text, finish: 'stop' };
        }
      }
    } catch (err) {
      throw failure(err, this.completeUrl, request.signal, guard, 'the completion');
    } finally {
      guard.dispose();
    }
    emit(matcher.flush());
    return { text: matcher.text, finish: 'length' };
  }

  /** Sends one request; the caller disposes the guard once the body is read. */
  private async post(url: URL, body: unknown, signal: AbortSignal | undefined, what: string): Promise<{ res: Response; guard: RequestGuard }> {
    if (signal?.aborted) throw new EngineError('CANCELLED', { what });
    const guard = new RequestGuard(signal, this.endpoint.timeoutMs);
    try {
      // a redirect would send the prompt to a host nobody configured: it is an HTTP error instead
      const res = await this.fetch(url.href, { method: 'POST', headers: this.headers, body: JSON.stringify(body), signal: guard.signal, redirect: 'manual' });
      if (!res.ok) throw new EngineError('LLM_FAILED', { url: url.href, reason: await httpDetail(res) });
      return { res, guard };
    } catch (err) {
      guard.dispose();
      throw failure(err, url, signal, guard, what);
    }
  }
}

/**
 * One request's signal: aborted by the caller's signal or by the time limit, whichever comes
 * first; `dispose` clears the timer and the listener once the body is read, so a finished
 * request keeps neither the process nor the caller's signal busy.
 */
class RequestGuard {
  private readonly controller = new AbortController();
  private readonly timer: ReturnType<typeof setTimeout>;
  private readonly onAbort = (): void => this.controller.abort(this.caller?.reason);
  timedOut = false;

  constructor(
    private readonly caller: AbortSignal | undefined,
    timeoutMs: number,
  ) {
    this.timer = setTimeout(() => {
      this.timedOut = true;
      this.controller.abort(new Error('timeout'));
    }, timeoutMs);
    caller?.addEventListener('abort', this.onAbort, { once: true });
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.caller?.removeEventListener('abort', this.onAbort);
  }
}

function failure(err: unknown, url: URL, signal: AbortSignal | undefined, guard: RequestGuard, what: string): EngineError {
  if (err instanceof EngineError) return err;
  if (signal?.aborted) return new EngineError('CANCELLED', { what });
  if (guard.timedOut) return new EngineError('LLM_FAILED', { url: url.href, reason: 'no reply within llm.timeoutMs' });
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  const reason = cause?.code ?? cause?.message ?? (err instanceof Error ? err.message : String(err));
  return new EngineError('LLM_FAILED', { url: url.href, reason }, { cause: err });
}

/**
 * The body's lines as they arrive (the last one may lack its newline). The signal cancels the
 * read in flight (fetch's own signal does not reach a body already being streamed), and a
 * cancelled read throws its reason.
 */
async function* lines(res: Response, signal: AbortSignal): AsyncGenerator<string> {
  if (res.body === null) return;
  const reader = res.body.getReader();
  const cancel = (): void => void reader.cancel().catch(() => undefined);
  signal.addEventListener('abort', cancel, { once: true });
  const decoder = new TextDecoder();
  let pending = '';
  let size = 0;
  try {
    for (;;) {
      const { done, value: chunk } = await reader.read();
      if (signal.aborted) throw signal.reason;
      if (done) break;
      yield* split(chunk);
    }
  } finally {
    signal.removeEventListener('abort', cancel);
    cancel(); // a caller that stops early (a stop sequence) closes the connection
  }
  pending += decoder.decode();
  if (pending !== '') yield pending;

  function* split(chunk: Uint8Array): Generator<string> {
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
}

async function readBounded(res: Response, limit: number, signal?: AbortSignal): Promise<string> {
  if (res.body === null) return '';
  const reader = res.body.getReader();
  const cancel = (): void => void reader.cancel().catch(() => undefined);
  signal?.addEventListener('abort', cancel, { once: true });
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (signal?.aborted) throw signal.reason;
      if (done) break;
      size += value.byteLength;
      if (size > limit) throw new EngineError('LLM_BAD_OUTPUT', { reason: `the reply is larger than ${limit} bytes` });
      chunks.push(value);
    }
  } finally {
    signal?.removeEventListener('abort', cancel);
    cancel();
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
