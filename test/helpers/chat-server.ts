/**
 * A chat endpoint for reranker tests, on 127.0.0.1 with an ephemeral port.
 *
 * Ollama and OpenAI-compatible servers (llama.cpp, vLLM, LM Studio...) cannot run here, so this
 * server speaks their documented wire formats instead:
 *   openai: POST …/chat/completions → { id, object: 'chat.completion', created, model,
 *           choices: [{ index, message: { role: 'assistant', content }, finish_reason }], usage }
 *   ollama: POST /api/chat (stream: false) → { model, created_at, message: { role: 'assistant', content },
 *           done: true, done_reason }
 * Errors come back as the servers send them: OpenAI `{ error: { message } }`, Ollama `{ error }`.
 * `inMemoryChatFetch` answers the same way without a socket, for property tests.
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export type ChatApi = 'openai' | 'ollama';

/** What the server does with one request. */
export type ChatAction =
  /** 200 with `reply` as the model's message, in the API's format, after `delayMs`. */
  | { readonly reply: string; readonly delayMs?: number }
  /** This status with this body (a JSON error object by default). */
  | { readonly status: number; readonly body?: string; readonly headers?: Readonly<Record<string, string>> }
  /** 200 with exactly this body, JSON or not. */
  | { readonly raw: string }
  /** 200 with this value as JSON, whatever its shape. */
  | { readonly json: unknown }
  /** Never answers (until the client gives up or the server closes). */
  | { readonly hang: true };

/** One request as the server saw it. */
export interface ChatRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  /** The parsed JSON body, or the raw text when it was not JSON. */
  readonly body: unknown;
  /** The first message's content, when the body has one. */
  readonly prompt: string | undefined;
}

export interface ChatServer {
  readonly api: ChatApi;
  /** `http://127.0.0.1:PORT`, no trailing slash. */
  readonly url: string;
  readonly requests: ChatRequest[];
  /** Requests being answered right now, and the most there ever were at once. */
  readonly inFlight: number;
  readonly maxInFlight: number;
  /** Requests whose client went away before the answer was written. */
  readonly abandoned: number;
  /** Decides each answer; replace it between runs. */
  respond: (request: ChatRequest) => ChatAction;
  close(): Promise<void>;
}

/** The default judge: "9" when the snippet holds `marker`, else "1". The query is not looked at. */
export function markerJudge(marker = 'RELEVANT'): (request: ChatRequest) => ChatAction {
  return (request) => {
    const prompt = request.prompt ?? '';
    const snippet = prompt.slice(prompt.indexOf('\nSnippet ('));
    return { reply: snippet.includes(marker) ? '9' : '1' };
  };
}

export async function startChatServer(api: ChatApi, respond = markerJudge()): Promise<ChatServer> {
  const requests: ChatRequest[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  let abandoned = 0;
  let seq = 0;

  const server = createServer((req, res) => {
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    res.on('close', () => {
      inFlight -= 1;
      if (!res.writableFinished) abandoned += 1;
    });
    void readBody(req).then((text) => {
      const request = record(req.method ?? '', req.url ?? '', req.headers, text);
      requests.push(request);
      const answer = answerFor(api, request, handle.respond, (seq += 1));
      if (answer === 'hang') return;
      const write = (): void => send(res, answer.status, answer.body, answer.headers);
      if (answer.delayMs === undefined) write();
      else setTimeout(write, answer.delayMs);
    });
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const handle: ChatServer = {
    api,
    url: `http://127.0.0.1:${port}`,
    requests,
    get inFlight() {
      return inFlight;
    },
    get maxInFlight() {
      return maxInFlight;
    },
    get abandoned() {
      return abandoned;
    },
    respond,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return handle;
}

interface Answer {
  readonly status: number;
  readonly body: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly delayMs?: number;
}

/** What the endpoint answers to one request: routing, then the action's wire format. */
function answerFor(api: ChatApi, request: ChatRequest, respond: (r: ChatRequest) => ChatAction, n: number): Answer | 'hang' {
  const routed = api === 'openai' ? request.path.endsWith('/chat/completions') : request.path === '/api/chat';
  if (request.method !== 'POST' || !routed) {
    return { status: 404, body: JSON.stringify({ error: `no route for ${request.method} ${request.path}` }) };
  }
  const action = respond(request);
  if ('hang' in action) return 'hang';
  if ('raw' in action) return { status: 200, body: action.raw };
  if ('json' in action) return { status: 200, body: JSON.stringify(action.json) };
  if ('status' in action) {
    const error = api === 'openai' ? { error: { message: `status ${action.status}` } } : { error: `status ${action.status}` };
    return { status: action.status, body: action.body ?? JSON.stringify(error), ...(action.headers ? { headers: action.headers } : {}) };
  }
  const body = JSON.stringify(answer(api, modelOf(request.body), action.reply, n));
  return action.delayMs === undefined ? { status: 200, body } : { status: 200, body, delayMs: action.delayMs };
}

/**
 * The same endpoint without a socket: a fetch that routes and answers in-process, for property
 * tests that make hundreds of requests (a localhost round trip costs milliseconds on a busy box).
 * A hanging answer settles only when the request's signal aborts.
 */
export function inMemoryChatFetch(api: ChatApi, respond: (r: ChatRequest) => ChatAction): typeof fetch {
  let seq = 0;
  return async (input, init) => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    const headers = Object.fromEntries(new Headers(init?.headers).entries());
    const request = record(init?.method ?? 'GET', url.pathname, headers, typeof init?.body === 'string' ? init.body : '');
    const answer = answerFor(api, request, respond, (seq += 1));
    const signal = init?.signal ?? undefined;
    if (answer === 'hang') {
      return new Promise<Response>((_, reject) => signal?.addEventListener('abort', () => reject(signal.reason), { once: true }));
    }
    return new Response(answer.body, { status: answer.status, headers: { 'content-type': 'application/json', ...answer.headers } });
  };
}

/** A URL on 127.0.0.1 where nothing listens: a port that was just bound and released. */
export async function refusedUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

function answer(api: ChatApi, model: string, content: string, n: number): unknown {
  if (api === 'openai') {
    return {
      id: `chatcmpl-test-${n}`,
      object: 'chat.completion',
      created: 1_700_000_000,
      model,
      choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 100, completion_tokens: 1, total_tokens: 101 },
    };
  }
  return {
    model,
    created_at: '2024-01-01T00:00:00.000Z',
    message: { role: 'assistant', content },
    done_reason: 'stop',
    done: true,
  };
}

function send(res: ServerResponse, status: number, body: string, headers: Readonly<Record<string, string>> = {}): void {
  if (res.destroyed) return;
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(body);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

function record(method: string, path: string, headers: IncomingHttpHeaders, text: string): ChatRequest {
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // keep the text
  }
  const messages = (body as { messages?: Array<{ content?: unknown }> } | null)?.messages;
  const first = Array.isArray(messages) ? messages[0]?.content : undefined;
  return { method, path, headers, body, prompt: typeof first === 'string' ? first : undefined };
}

function modelOf(body: unknown): string {
  const model = (body as { model?: unknown } | null)?.model;
  return typeof model === 'string' ? model : '';
}
