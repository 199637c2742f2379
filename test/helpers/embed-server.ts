/**
 * An embedding endpoint for provider tests, on 127.0.0.1 with an ephemeral port.
 *
 * Ollama and OpenAI-compatible servers cannot run here, so this server stands in for them and
 * speaks their documented wire formats:
 *   ollama: POST /api/embed { model, input: string | string[] }
 *             → { model, embeddings: number[][], total_duration, load_duration, prompt_eval_count }
 *           GET /api/tags → { models: [{ name, model, modified_at, size, digest, details }] }
 *           errors: { error: "…" } (404 `model "x" not found, try pulling it first`)
 *   openai: POST …/embeddings { model, input: string[], encoding_format?, dimensions? }
 *             → { object: 'list', data: [{ object: 'embedding', index, embedding }], model, usage }
 *           errors: { error: { message, type, code } }
 * Vectors are a hashed bag of words ({@link bagOfWords}), deliberately not unit length, so a test
 * can predict every vector and see that the client normalises. Each request is answered by
 * `respond`, which can script failures: statuses with headers (429 + Retry-After), hangs, wrong
 * dimensions or counts, malformed JSON, bodies of any size.
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export const DEFAULT_DIMENSIONS = 8;

/** What the server does with one request. */
export type EmbedAction =
  /** 200 with the API's answer. `dimensions` overrides the vector size, `drop` leaves out the last n vectors, `reverse` sends OpenAI `data` last index first, `base64` encodes OpenAI embeddings as base64 float32. */
  | { readonly ok: true; readonly dimensions?: number; readonly drop?: number; readonly reverse?: boolean; readonly base64?: boolean; readonly delayMs?: number }
  /** This status with this body (the API's error object by default) and headers. */
  | { readonly status: number; readonly body?: string; readonly headers?: Readonly<Record<string, string>> }
  /** 200 with exactly this body. */
  | { readonly raw: string }
  /** 200 with this value as JSON. */
  | { readonly json: unknown }
  /** Never answers (until the client gives up or the server closes). */
  | { readonly hang: true };

export const OK: EmbedAction = { ok: true };

export interface EmbedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  /** Parsed JSON body, or the raw text. */
  readonly body: unknown;
  /** The `input` texts, when the body has them. */
  readonly input: readonly string[] | undefined;
  /** `performance.now()` when the request arrived. */
  readonly at: number;
}

export interface EmbedServer {
  /** `http://127.0.0.1:PORT`, no trailing slash. */
  readonly url: string;
  readonly requests: EmbedRequest[];
  /** Decides each answer; replace it between tests. Default: always {@link OK}. */
  respond: (request: EmbedRequest) => EmbedAction;
  /** The models /api/tags lists (name → digest). */
  models: Record<string, string>;
  /** OpenAI: the key a request must carry as `Authorization: Bearer …`; undefined: none required. */
  apiKey: string | undefined;
  /** Requests that went away before their answer was written. */
  readonly abandoned: number;
  reset(): void;
  close(): Promise<void>;
}

/** Answers scripted in order, then `then` for every later request. */
export function script(actions: readonly EmbedAction[], then: EmbedAction = OK): (request: EmbedRequest) => EmbedAction {
  let n = 0;
  return () => actions[n++] ?? then;
}

/** FNV-1a, 32 bits: the word hash of {@link bagOfWords}. */
function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

/**
 * The server's vector for `text`: each lowercase word adds ±1 (sign from one hash bit) at
 * dimension hash % `dimensions`, plus 0.5 on dimension 0 so that no text maps to the zero vector.
 */
export function bagOfWords(text: string, dimensions = DEFAULT_DIMENSIONS): number[] {
  const v = new Array<number>(dimensions).fill(0);
  v[0] = 0.5;
  for (const word of text.toLowerCase().match(/[a-z0-9_]+/g) ?? []) {
    const h = fnv1a(word);
    v[h % dimensions]! += (h >>> 31) === 1 ? -1 : 1;
  }
  return v;
}

/** {@link bagOfWords}, scaled to unit length: what a provider must return for `text`. */
export function expectedVector(text: string, dimensions = DEFAULT_DIMENSIONS): number[] {
  const v = bagOfWords(text, dimensions);
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

export async function startEmbedServer(): Promise<EmbedServer> {
  const requests: EmbedRequest[] = [];
  let abandoned = 0;
  const server = createServer((req, res) => {
    res.on('close', () => {
      if (!res.writableFinished) abandoned += 1;
    });
    void readBody(req).then((text) => {
      const request = record(req.method ?? '', req.url ?? '', req.headers, text);
      requests.push(request);
      const answer = answerFor(request, handle);
      if (answer === 'hang') return;
      const write = (): void => send(res, answer.status, answer.body, answer.headers);
      if (answer.delayMs === undefined) write();
      else setTimeout(write, answer.delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const handle: EmbedServer = {
    url: `http://127.0.0.1:${port}`,
    requests,
    respond: () => OK,
    models: {},
    apiKey: undefined,
    get abandoned() {
      return abandoned;
    },
    reset() {
      requests.length = 0;
      handle.respond = () => OK;
      handle.models = {};
      handle.apiKey = undefined;
    },
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

type Api = 'ollama' | 'openai';

function answerFor(request: EmbedRequest, server: EmbedServer): Answer | 'hang' {
  const api: Api | undefined = request.path === '/api/embed' ? 'ollama' : request.path.endsWith('/embeddings') ? 'openai' : undefined;
  if (request.method === 'GET' && request.path === '/api/tags') return { status: 200, body: JSON.stringify(tags(server.models)) };
  if (request.method !== 'POST' || api === undefined) return { status: 404, body: JSON.stringify({ error: `no route for ${request.method} ${request.path}` }) };
  if (api === 'openai' && server.apiKey !== undefined && request.headers.authorization !== `Bearer ${server.apiKey}`) {
    const got = request.headers.authorization ?? '';
    return { status: 401, body: errorBody(api, 401, `Incorrect API key provided: ${got.replace(/^Bearer /, '')}`) };
  }
  const action = server.respond(request);
  if ('hang' in action) return 'hang';
  if ('raw' in action) return { status: 200, body: action.raw };
  if ('json' in action) return { status: 200, body: JSON.stringify(action.json) };
  if ('status' in action) return { status: action.status, body: action.body ?? errorBody(api, action.status), ...(action.headers ? { headers: action.headers } : {}) };
  const body = JSON.stringify(api === 'ollama' ? ollamaReply(request, action) : openaiReply(request, action));
  return action.delayMs === undefined ? { status: 200, body } : { status: 200, body, delayMs: action.delayMs };
}

function vectorsFor(request: EmbedRequest, action: Extract<EmbedAction, { ok: true }>): number[][] {
  const requested = (request.body as { dimensions?: unknown } | null)?.dimensions;
  const dimensions = action.dimensions ?? (typeof requested === 'number' ? requested : DEFAULT_DIMENSIONS);
  const input = request.input ?? [];
  return input.slice(0, input.length - (action.drop ?? 0)).map((text) => bagOfWords(text, dimensions));
}

function ollamaReply(request: EmbedRequest, action: Extract<EmbedAction, { ok: true }>): unknown {
  return {
    model: modelOf(request.body),
    embeddings: vectorsFor(request, action),
    total_duration: 14_143_917,
    load_duration: 1_019_500,
    prompt_eval_count: request.input?.length ?? 0,
  };
}

function openaiReply(request: EmbedRequest, action: Extract<EmbedAction, { ok: true }>): unknown {
  const data = vectorsFor(request, action).map((v, index) => ({
    object: 'embedding',
    index,
    embedding: action.base64 ? Buffer.from(Float32Array.from(v).buffer).toString('base64') : v,
  }));
  if (action.reverse) data.reverse();
  const tokens = (request.input ?? []).join(' ').split(/\s+/).length;
  return { object: 'list', data, model: modelOf(request.body), usage: { prompt_tokens: tokens, total_tokens: tokens } };
}

function tags(models: Record<string, string>): unknown {
  return {
    models: Object.entries(models).map(([name, digest]) => ({
      name,
      model: name,
      modified_at: '2024-06-01T12:00:00.000Z',
      size: 274_302_450,
      digest,
      details: { parent_model: '', format: 'gguf', family: 'nomic-bert', families: ['nomic-bert'], parameter_size: '137M', quantization_level: 'F16' },
    })),
  };
}

function errorBody(api: Api, status: number, message = `status ${status}`): string {
  return JSON.stringify(api === 'openai' ? { error: { message, type: 'invalid_request_error', code: null } } : { error: message });
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

function record(method: string, path: string, headers: IncomingHttpHeaders, text: string): EmbedRequest {
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // keep the text
  }
  const raw = (body as { input?: unknown } | null)?.input;
  const input = typeof raw === 'string' ? [raw] : Array.isArray(raw) && raw.every((t) => typeof t === 'string') ? (raw as string[]) : undefined;
  return { method, path, headers, body, input, at: performance.now() };
}

function modelOf(body: unknown): string {
  const model = (body as { model?: unknown } | null)?.model;
  return typeof model === 'string' ? model : '';
}
