/**
 * The wire side the remote embedding providers (Ollama, OpenAI-compatible) share: one JSON
 * exchange with a time limit per attempt and bounded retries, and the reading of vectors out of a
 * reply. Failures leave as the provider contract's codes (see provider.ts):
 * - EMBEDDING_UNAVAILABLE: nothing answers (refused, DNS, unreachable), or every attempt timed out
 *   or lost its connection;
 * - EMBEDDING_FAILED (with `status`): an HTTP error after the retries, a reply that is not JSON or
 *   larger than the cap, vectors of the wrong count, size or content.
 * A caller's abort rejects at once with the signal's reason, also while waiting to retry.
 *
 * Header values other than content negotiation (the API key) are secrets: any echo of them in a
 * server's error text is masked before it reaches an error message.
 */
import { EngineError } from '../core/errors.js';
import type { Clock } from '../core/logger.js';
import { systemClock } from '../core/logger.js';
import type { EmbedProviderName } from './provider.js';
import { normalize } from './provider.js';

export interface HttpEmbedPolicy {
  readonly provider: EmbedProviderName;
  /** One attempt's limit, headers and body together. > 0 ms (config `embed.timeoutMs`: 100–600 000, default 30 000). */
  readonly timeoutMs: number;
  /** Attempts after the first for a 429, a 5xx, a timeout or a dropped connection. Integer ≥ 0 (config `embed.retries`: 0–10, default 3). */
  readonly retries: number;
  /** Largest reply body read; a larger one fails the request. Default {@link EMBED_REPLY_MAX_BYTES}. */
  readonly maxBodyBytes?: number;
}

export interface HttpEmbedDeps {
  /** HTTP client. Default: the global `fetch`. */
  readonly fetch?: typeof fetch;
  /** Waits between attempts. Default: a timer. An abort rejects the wait at once whatever this does. */
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Reads `Retry-After` dates against it. Default: the system clock. */
  readonly clock?: Clock;
  /** Jitter source in [0, 1). Default `Math.random`. */
  readonly random?: () => number;
}

export interface JsonRequest {
  readonly method: 'GET' | 'POST';
  readonly url: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** Sent as JSON. */
  readonly body?: unknown;
  readonly signal?: AbortSignal | undefined;
  /** Overrides the policy's retries for this request. */
  readonly retries?: number;
}

export interface JsonReply {
  readonly status: number;
  readonly json: unknown;
}

export interface HttpEmbedClient {
  /** The parsed JSON of a 2xx reply; throws EngineError (or the abort reason) otherwise. */
  request(request: JsonRequest): Promise<JsonReply>;
}

/** The text a provider embeds once to learn its model's dimensions. */
export const DIMENSION_PROBE_TEXT = 'dimension probe';

/** 512 texts × 8192 dimensions as JSON numbers stay under this; anything larger is not a reply. */
export const EMBED_REPLY_MAX_BYTES = 128 * 1024 * 1024;
/** First backoff; doubled per attempt, with jitter between half and all of it. */
export const RETRY_BASE_MS = 500;
/** Longest backoff between two attempts. */
export const RETRY_MAX_BACKOFF_MS = 8000;
/** Longest wait a `Retry-After` header can impose; a longer one is cut to this. */
export const RETRY_AFTER_MAX_MS = 30_000;

/** Error codes meaning that nothing answers at the endpoint: retrying at once would not help. */
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL', 'UND_ERR_CONNECT_TIMEOUT']);
/** Error codes of an exchange broken midway, worth another attempt. */
const DROPPED_CODES = new Set(['ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);
const PUBLIC_HEADERS = new Set(['content-type', 'accept', 'user-agent']);

interface Failure {
  readonly code: 'EMBEDDING_UNAVAILABLE' | 'EMBEDDING_FAILED';
  readonly reason: string;
  readonly retryable: boolean;
  readonly status?: number;
  readonly retryAfterMs?: number;
}

type Attempt = { readonly reply: JsonReply } | { readonly failure: Failure };

const TIMED_OUT = Symbol('timed out');

export function createHttpEmbedClient(policy: HttpEmbedPolicy, deps: HttpEmbedDeps = {}): HttpEmbedClient {
  const { provider, timeoutMs, retries } = policy;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) invalid('embed.timeoutMs', `must be a number > 0, got ${timeoutMs}`);
  if (!Number.isInteger(retries) || retries < 0) invalid('embed.retries', `must be an integer ≥ 0, got ${retries}`);
  const maxBodyBytes = policy.maxBodyBytes ?? EMBED_REPLY_MAX_BYTES;
  const fetchFn = deps.fetch ?? globalThis.fetch;
  const sleep = deps.sleep ?? defaultSleep;
  const clock = deps.clock ?? systemClock;
  const random = deps.random ?? Math.random;

  const attempt = async (request: JsonRequest, secrets: readonly string[]): Promise<Attempt> => {
    const origin = new URL(request.url).origin;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(TIMED_OUT), timeoutMs);
    const onAbort = (): void => controller.abort(request.signal?.reason);
    request.signal?.addEventListener('abort', onAbort, { once: true });
    const exchange = (async (): Promise<Attempt> => {
      const res = await fetchFn(request.url, {
        method: request.method,
        headers: { accept: 'application/json', ...(request.body !== undefined ? { 'content-type': 'application/json' } : {}), ...request.headers },
        ...(request.body !== undefined ? { body: JSON.stringify(request.body) } : {}),
        signal: controller.signal,
        // A redirect would carry the texts (and the key) to a host nobody configured: an HTTP error instead.
        redirect: 'manual',
      });
      if (!res.ok) return { failure: await httpFailure(res, clock, secrets) };
      const text = await readBounded(res, maxBodyBytes);
      if (text === undefined) return { failure: { code: 'EMBEDDING_FAILED', reason: `reply larger than ${maxBodyBytes} bytes`, retryable: false, status: res.status } };
      try {
        return { reply: { status: res.status, json: JSON.parse(text) as unknown } };
      } catch {
        return { failure: { code: 'EMBEDDING_FAILED', reason: `reply is not JSON: ${clip(redact(text, secrets))}`, retryable: false, status: res.status } };
      }
    })();
    exchange.catch(() => {});
    try {
      // Racing the signal: even a fetch that ignores it cannot hold the caller past an abort or the time limit.
      return await Promise.race([exchange, rejectOnAbort(controller.signal)]);
    } catch (err) {
      if (request.signal?.aborted === true) throw request.signal.reason;
      if (controller.signal.reason === TIMED_OUT) {
        return { failure: { code: 'EMBEDDING_UNAVAILABLE', reason: `no answer from ${origin} within ${timeoutMs} ms`, retryable: true } };
      }
      return { failure: networkFailure(err, origin, secrets) };
    } finally {
      clearTimeout(timer);
      request.signal?.removeEventListener('abort', onAbort);
    }
  };

  return {
    async request(request) {
      request.signal?.throwIfAborted();
      const allowed = request.retries ?? retries;
      const secrets = Object.entries(request.headers ?? {})
        .filter(([name]) => !PUBLIC_HEADERS.has(name.toLowerCase()))
        .flatMap(([, value]) => [value, value.replace(/^\S+\s+/, '')])
        .filter((s) => s.length >= 4);
      for (let n = 0; ; n++) {
        const outcome = await attempt(request, secrets);
        if ('reply' in outcome) return outcome.reply;
        const { failure } = outcome;
        if (!failure.retryable || n >= allowed) {
          const reason = n > 0 ? `${failure.reason} (after ${n + 1} attempts)` : failure.reason;
          throw new EngineError(failure.code, { provider, reason, ...(failure.status !== undefined ? { status: failure.status } : {}) });
        }
        await pause(sleep, retryDelay(n, failure.retryAfterMs, random), request.signal);
      }
    },
  };
}

/**
 * How long to wait before retry `n` (0 for the first): what `Retry-After` asked (at most
 * {@link RETRY_AFTER_MAX_MS}), else an exponential backoff with "equal jitter": between half and
 * all of `RETRY_BASE_MS · 2ⁿ`, capped at {@link RETRY_MAX_BACKOFF_MS}.
 */
export function retryDelay(n: number, retryAfterMs: number | undefined, random: () => number = Math.random): number {
  if (retryAfterMs !== undefined) return Math.min(retryAfterMs, RETRY_AFTER_MAX_MS);
  const backoff = Math.min(RETRY_MAX_BACKOFF_MS, RETRY_BASE_MS * 2 ** n);
  return Math.round(backoff / 2 + (backoff / 2) * random());
}

/** `Retry-After` in ms from `now`: delta seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null | undefined, now: number): number | undefined {
  const text = value?.trim();
  if (text === undefined || text === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * A reply's vectors as unit-length Float32Arrays, after checking that there are `expected` of
 * them, that each is an array of finite numbers, and that all are `dimensions` long (or, when
 * that is not known yet, as long as the first). Throws EMBEDDING_FAILED otherwise.
 */
export function replyVectors(provider: EmbedProviderName, raw: readonly unknown[], expected: number, dimensions: number | undefined): Float32Array[] {
  const failed = (reason: string): EngineError => new EngineError('EMBEDDING_FAILED', { provider, reason });
  if (raw.length !== expected) throw failed(`${raw.length} vectors for ${expected} texts`);
  const size = dimensions ?? (Array.isArray(raw[0]) ? raw[0].length : 0);
  if (size === 0) throw failed('an empty vector');
  return raw.map((item, i) => {
    if (!Array.isArray(item)) throw failed(`vector ${i} is not an array`);
    if (item.length !== size) throw failed(`vector ${i} has ${item.length} dimensions; expected ${size}`);
    const v = new Float32Array(size);
    for (let d = 0; d < size; d++) {
      const x: unknown = item[d];
      if (typeof x !== 'number' || !Number.isFinite(x)) throw failed(`vector ${i} holds ${JSON.stringify(x)} at ${d}`);
      v[d] = x;
    }
    return normalize(v);
  });
}

/** The endpoint URL `base` + `path`, after checking that `base` is an http(s) URL without credentials. */
export function endpointUrl(base: string, path: string, configKey: string): string {
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    invalid(configKey, `not a URL: ${base}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') invalid(configKey, 'must be an http(s) URL');
  if (url.username !== '' || url.password !== '') invalid(configKey, 'must not hold credentials; put the key in an environment variable');
  url.hash = '';
  url.pathname = `${url.pathname.replace(/\/+$/, '')}${path}`;
  return url.href;
}

/** A field of a JSON object, or undefined. */
export function field(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>)[key] : undefined;
}

function invalid(name: string, reason: string): never {
  throw new EngineError('INVALID_ARGUMENT', { name, reason });
}

async function httpFailure(res: Response, clock: Clock, secrets: readonly string[]): Promise<Failure> {
  const retryable = res.status === 429 || res.status >= 500;
  const retryAfterMs = retryable ? parseRetryAfter(res.headers.get('retry-after'), clock.now()) : undefined;
  const text = await readBounded(res, 4096).catch(() => undefined);
  let message = text?.trim() ?? '';
  try {
    const json: unknown = JSON.parse(message);
    const error = field(json, 'error');
    const inner = typeof error === 'string' ? error : field(error, 'message');
    if (typeof inner === 'string') message = inner;
  } catch {
    // not JSON: the text is the message
  }
  const reason = message === '' ? `HTTP ${res.status}` : `HTTP ${res.status}: ${clip(redact(message, secrets))}`;
  return { code: 'EMBEDDING_FAILED', reason, retryable, status: res.status, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) };
}

function networkFailure(err: unknown, origin: string, secrets: readonly string[]): Failure {
  const codes = errorCodes(err, 0);
  const down = codes.find((code) => UNREACHABLE_CODES.has(code));
  if (down !== undefined) return { code: 'EMBEDDING_UNAVAILABLE', reason: `${down} at ${origin}`, retryable: false };
  const cause = field(err, 'cause');
  const causeMessage = field(cause, 'message');
  const message = typeof causeMessage === 'string' ? causeMessage : err instanceof Error ? err.message : String(err);
  const detail = clip(redact(message, secrets));
  return {
    code: 'EMBEDDING_UNAVAILABLE',
    reason: `${codes[0] !== undefined ? `${codes[0]}: ` : ''}${detail} at ${origin}`,
    retryable: codes.some((code) => DROPPED_CODES.has(code)),
  };
}

/** Codes on an error, its causes and, for an AggregateError (one per address tried), its members. */
function errorCodes(err: unknown, depth: number): string[] {
  if (depth > 4 || typeof err !== 'object' || err === null) return [];
  const own = field(err, 'code');
  const members = field(err, 'errors');
  return [
    ...(typeof own === 'string' ? [own] : []),
    ...errorCodes(field(err, 'cause'), depth + 1),
    ...(Array.isArray(members) ? members.flatMap((member) => errorCodes(member, depth + 1)) : []),
  ];
}

/** The body as text, or undefined when it is larger than `limit` bytes (the rest is not read). */
async function readBounded(res: Response, limit: number): Promise<string | undefined> {
  if (res.body === null) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      return undefined;
    }
    chunks.push(value);
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
}

function rejectOnAbort(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}

/** Waits `ms` through the injected sleep, but rejects with the abort reason the moment `signal` aborts. */
async function pause(sleep: NonNullable<HttpEmbedDeps['sleep']>, ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (signal === undefined) return sleep(ms);
  signal.throwIfAborted();
  const waiting = sleep(ms, signal);
  waiting.catch(() => {});
  await Promise.race([waiting, rejectOnAbort(signal)]);
}

function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function redact(text: string, secrets: readonly string[]): string {
  return secrets.reduce((out, secret) => out.split(secret).join('***'), text);
}

function clip(text: string, max = 200): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length <= max ? oneLine : `${oneLine.slice(0, max)}…`;
}
