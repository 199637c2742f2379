/**
 * The LLM reranker: a chat model behind an OpenAI-compatible or Ollama endpoint scores each of the
 * first candidates from 0 to 10, one request per candidate, and the scored ones are reordered by
 * `orderByScores`. Everything that can go wrong on the wire (a refused connection, an HTTP error,
 * a reply without a number, a hung server) leaves the candidate unscored in its place and is
 * reported in `skipped`; nothing of it is thrown.
 */
import type { LlmEndpointConfig } from '../config/schema.js';
import { EngineError } from '../core/errors.js';
import { contentHash } from '../core/hash.js';
import type { Clock, Scheduler } from '../core/logger.js';
import { buildRerankPrompt, cutText, parseScore } from './llm-prompt.js';
import { orderByScores } from './reranker.js';
import type { RerankCandidate, RerankOptions, RerankOutcome, Reranker, RerankSkipReason } from './reranker.js';
import { createScoreCache } from './score-cache.js';

export interface LlmRerankerConfig {
  /** The chat endpoint, the only host this reranker ever contacts. */
  readonly endpoint: LlmEndpointConfig;
  /** How many leading candidates are sent to the model; the rest keep their places. Integer ≥ 1 (config: 1–50, default 10). */
  readonly maxCandidates: number;
  /** Budget of one whole `rerank` call, all requests together; past it, unscored candidates keep their places. > 0 ms (config: 100–120 000, default 5000). */
  readonly timeoutMs: number;
}

export interface LlmRerankerDeps {
  /** HTTP client. Default: the global `fetch`. */
  readonly fetch?: typeof fetch;
  /** Time source for the score cache's TTL. Default: the system clock. */
  readonly clock?: Clock;
  /** Time and the timer of the `timeoutMs` budget and `tookMs`. Default: `performance.now()` and `setTimeout`. */
  readonly scheduler?: Scheduler;
  /**
   * Where `endpoint.apiKeyEnv` is looked up. Default: empty, so no key is sent. Only config/ reads
   * `process.env`, so the composition root passes the environment it resolved.
   */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/** Real time; the deadline's timer keeps the process up until the rerank resolves. */
const realTime: Scheduler = {
  now: () => performance.now(),
  schedule: (delayMs, run) => {
    const timer = setTimeout(run, delayMs);
    return () => clearTimeout(timer);
  },
};

/** A score reply is a few hundred bytes; a body larger than this is not one and is not read further. */
export const LLM_REPLY_MAX_BYTES = 256 * 1024;

/** Tokens the model may answer with: a number, perhaps with "/10" or a word before it. */
export const LLM_MAX_REPLY_TOKENS = 8;

interface Failure {
  readonly reason: RerankSkipReason;
  readonly detail?: string;
}

type Judgement = { readonly score: number } | Failure;

/** One endpoint, resolved once: where to POST, with which headers, and how to read the answer. */
interface Endpoint {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly fetch: typeof fetch;
  body(prompt: string): unknown;
  replyText(json: unknown): string | undefined;
}

function resolveEndpoint(endpoint: LlmEndpointConfig, deps: LlmRerankerDeps): Endpoint {
  const { api, model } = endpoint;
  if (api !== 'openai' && api !== 'ollama') invalid('llm.api', `must be "openai" or "ollama", got ${String(api)}`);
  if (typeof model !== 'string' || model === '') invalid('llm.model', 'must be a non-empty string');
  let url: URL;
  try {
    url = new URL(endpoint.baseUrl);
  } catch {
    invalid('llm.baseUrl', `not a URL: ${endpoint.baseUrl}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') invalid('llm.baseUrl', 'must be an http(s) URL');
  if (url.username !== '' || url.password !== '') invalid('llm.baseUrl', 'must not hold credentials; use apiKeyEnv');
  url.hash = '';
  url.pathname = `${url.pathname.replace(/\/+$/, '')}${api === 'openai' ? '/chat/completions' : '/api/chat'}`;

  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  const key = endpoint.apiKeyEnv === undefined ? undefined : deps.env?.[endpoint.apiKeyEnv]?.trim();
  // Checked here, because fetch would reject the header with a message that quotes the key.
  if (key !== undefined && !/^[\x20-\x7e]*$/.test(key)) invalid('llm.apiKeyEnv', `${endpoint.apiKeyEnv} holds characters an HTTP header cannot carry`);
  if (key !== undefined && key !== '') headers.authorization = `Bearer ${key}`;

  const messages = (prompt: string) => [{ role: 'user', content: prompt }];
  return {
    url: url.href,
    headers,
    fetch: deps.fetch ?? globalThis.fetch,
    ...(api === 'openai'
      ? {
          body: (prompt: string) => ({ model, messages: messages(prompt), temperature: 0, max_tokens: LLM_MAX_REPLY_TOKENS, stream: false }),
          replyText: (json: unknown) => asString(field(field(at(field(json, 'choices'), 0), 'message'), 'content')),
        }
      : {
          body: (prompt: string) => ({ model, messages: messages(prompt), stream: false, options: { temperature: 0, num_predict: LLM_MAX_REPLY_TOKENS } }),
          replyText: (json: unknown) => asString(field(field(json, 'message'), 'content')),
        }),
  };
}

function invalid(name: string, reason: string): never {
  throw new EngineError('INVALID_ARGUMENT', { name: `rerank.${name}`, reason });
}

function field(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>)[key] : undefined;
}

function at(value: unknown, index: number): unknown {
  return Array.isArray(value) ? (value as unknown[])[index] : undefined;
}

function asString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** Asks for one score. Never throws: every failure becomes a reason. */
async function requestScore(endpoint: Endpoint, prompt: string, signal: AbortSignal): Promise<Judgement> {
  try {
    const res = await endpoint.fetch(endpoint.url, {
      method: 'POST',
      headers: endpoint.headers,
      body: JSON.stringify(endpoint.body(prompt)),
      signal,
      // A redirect would send the prompt to a host nobody configured; it counts as an HTTP error instead.
      redirect: 'manual',
    });
    if (!res.ok) return { reason: 'error', detail: await httpDetail(res) };
    const text = await readBounded(res, LLM_REPLY_MAX_BYTES);
    if (text === undefined) return { reason: 'bad_response', detail: `reply larger than ${LLM_REPLY_MAX_BYTES} bytes` };
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return { reason: 'bad_response', detail: `reply is not JSON: ${clip(text)}` };
    }
    const reply = endpoint.replyText(json);
    if (reply === undefined) return { reason: 'bad_response', detail: `no message content in reply: ${clip(text)}` };
    const score = parseScore(reply);
    if (score === undefined) return { reason: 'bad_response', detail: `no score from 0 to 10 in reply: ${clip(reply)}` };
    return { score };
  } catch (err) {
    return failureOf(err);
  }
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

/** `HTTP 404: model "x" not found`: the status, and the server's own message when it sent one. */
async function httpDetail(res: Response): Promise<string> {
  const status = `HTTP ${res.status}`;
  const text = await readBounded(res, 4096).catch(() => undefined);
  if (text === undefined || text.trim() === '') return status;
  let message: unknown = text.trim();
  try {
    const json: unknown = JSON.parse(text);
    const error = field(json, 'error');
    message = asString(error) ?? asString(field(error, 'message')) ?? message;
  } catch {
    // not JSON: the text itself is the message
  }
  return `${status}: ${clip(String(message))}`;
}

function clip(text: string, max = 200): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length <= max ? oneLine : `${cutText(oneLine, max)}…`;
}

/** Error codes meaning that nothing answers at the endpoint (as opposed to a broken exchange). */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
]);

function failureOf(err: unknown): Failure {
  const codes = errorCodes(err, 0);
  const down = codes.find((code) => UNAVAILABLE_CODES.has(code));
  if (down !== undefined) return { reason: 'unavailable', detail: down };
  const cause = field(err, 'cause');
  const message = asString(field(cause, 'message')) ?? (err instanceof Error ? err.message : String(err));
  return { reason: 'error', detail: codes[0] !== undefined ? `${codes[0]}: ${message}` : message };
}

/** Codes on an error, its causes and, for an AggregateError (one per address tried), its members. */
function errorCodes(err: unknown, depth: number): string[] {
  if (depth > 4 || typeof err !== 'object' || err === null) return [];
  const own = asString(field(err, 'code'));
  const members = Array.isArray((err as { errors?: unknown }).errors) ? (err as { errors: unknown[] }).errors : [];
  return [
    ...(own !== undefined ? [own] : []),
    ...errorCodes(field(err, 'cause'), depth + 1),
    ...members.flatMap((member) => errorCodes(member, depth + 1)),
  ];
}

/** Creates an LLM reranker. Throws EngineError INVALID_ARGUMENT for a config no endpoint could satisfy. */
export function createLlmReranker(config: LlmRerankerConfig, deps: LlmRerankerDeps = {}): Reranker {
  const { endpoint, maxCandidates, timeoutMs } = config;
  const wire = resolveEndpoint(endpoint, deps);
  if (!Number.isInteger(maxCandidates) || maxCandidates < 1) invalid('maxCandidates', `must be an integer ≥ 1, got ${maxCandidates}`);
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) invalid('timeoutMs', `must be a number > 0, got ${timeoutMs}`);
  const { concurrency } = endpoint;
  const time = deps.scheduler ?? realTime;
  if (!Number.isInteger(concurrency) || concurrency < 1) invalid('llm.concurrency', `must be an integer ≥ 1, got ${concurrency}`);
  const cache = createScoreCache(deps.clock ? { ttlMs: endpoint.cacheTtlMs, clock: deps.clock } : { ttlMs: endpoint.cacheTtlMs });
  const endpointKey = `${endpoint.api}\u0000${endpoint.baseUrl}\u0000${endpoint.model}`;
  const cacheKey = (queryHash: string, id: string): string => `${queryHash}\u0000${id}\u0000${endpointKey}`;
  /** The stops of the reranks in flight, so that close() can end them. */
  const running = new Set<(failure: Failure) => void>();
  let closed = false;
  const closedFailure: Failure = { reason: 'aborted', detail: 'the reranker is closed' };

  return {
    name: 'llm',
    model: endpoint.model,

    async rerank(query: string, candidates: readonly RerankCandidate[], options: RerankOptions = {}): Promise<RerankOutcome> {
      const started = time.now();
      const ids = candidates.map((c) => c.id);
      if (new Set(ids).size !== ids.length) invalid('candidates', 'candidate ids must be unique');
      const queryHash = contentHash(query);
      const scores = new Map<string, number>();
      const pending: RerankCandidate[] = [];
      for (const candidate of candidates.slice(0, maxCandidates)) {
        const hit = cache.get(cacheKey(queryHash, candidate.id));
        if (hit === undefined) pending.push(candidate);
        else scores.set(candidate.id, hit);
      }
      const cached = scores.size;
      let skipped: RerankOutcome['skipped'];
      if (pending.length > 0) {
        const { failures, stop } = await judge(
          { wire, concurrency, timeoutMs, budgetMs: Math.max(0, timeoutMs - (time.now() - started)), scheduler: time },
          { query, pending, signal: options.signal, scores },
          {
            remember: (candidate, score) => cache.set(cacheKey(queryHash, candidate.id), score),
            track: (halt) => {
              running.add(halt);
              if (closed) halt(closedFailure);
              return () => running.delete(halt);
            },
          },
        );
        skipped = summarise(pending, scores, failures, stop);
      }
      const order = orderByScores(ids, scores);
      const tookMs = Math.round(time.now() - started);
      return skipped === undefined ? { order, scores, cached, tookMs } : { order, scores, skipped, cached, tookMs };
    },

    close(): Promise<void> {
      closed = true;
      for (const halt of [...running]) halt(closedFailure);
      cache.clear();
      return Promise.resolve();
    },
  };
}

interface JudgeLimits {
  readonly wire: Endpoint;
  readonly concurrency: number;
  readonly timeoutMs: number;
  /** What is left of `timeoutMs` for the requests. */
  readonly budgetMs: number;
  readonly scheduler: Scheduler;
}

interface JudgeBatch {
  readonly query: string;
  readonly pending: readonly RerankCandidate[];
  readonly signal: AbortSignal | undefined;
  /** Receives each score that arrives before the batch stops. */
  readonly scores: Map<string, number>;
}

interface JudgeHooks {
  /** Called with every valid score, even one arriving after the stop. */
  remember(candidate: RerankCandidate, score: number): void;
  /** Registers the batch's stop (so that close() reaches it); returns the unregistration. */
  track(halt: (failure: Failure) => void): () => void;
}

/**
 * Scores the pending candidates, `concurrency` at a time, until all are judged or the batch stops
 * (deadline, caller's abort, close). Resolves at the stop without waiting for what is in flight:
 * the stop aborts those requests, and racing it means even a fetch that ignores its signal cannot
 * hold the rerank past the deadline.
 */
async function judge(
  limits: JudgeLimits,
  batch: JudgeBatch,
  hooks: JudgeHooks,
): Promise<{ failures: Map<string, Failure>; stop: Failure | undefined }> {
  const run = new AbortController();
  const stopped = new Promise<void>((resolve) => run.signal.addEventListener('abort', () => resolve(), { once: true }));
  let stop: Failure | undefined;
  const halt = (failure: Failure): void => {
    if (stop !== undefined) return;
    stop = failure;
    run.abort(failure.reason);
  };
  const onCallerAbort = (): void => halt({ reason: 'aborted', detail: 'the caller aborted' });
  const cancelTimer = limits.scheduler.schedule(limits.budgetMs, () => halt({ reason: 'timeout', detail: `no answer within ${limits.timeoutMs} ms` }));
  batch.signal?.addEventListener('abort', onCallerAbort, { once: true });
  const untrack = hooks.track(halt);
  if (batch.signal?.aborted === true) onCallerAbort();

  const failures = new Map<string, Failure>();
  let open = true;
  let next = 0;
  const worker = async (): Promise<void> => {
    while (!run.signal.aborted && next < batch.pending.length) {
      const candidate = batch.pending[next++]!;
      const judgement = await requestScore(limits.wire, buildRerankPrompt(batch.query, candidate), run.signal);
      if ('score' in judgement) {
        hooks.remember(candidate, judgement.score);
        if (open) batch.scores.set(candidate.id, judgement.score);
      } else if (open && !run.signal.aborted) {
        // After a stop, a failure is only the abort echoing back; the stop is the reason.
        failures.set(candidate.id, judgement);
      }
    }
  };
  try {
    const workers = Array.from({ length: Math.min(limits.concurrency, batch.pending.length) }, worker);
    await Promise.race([Promise.all(workers), stopped]);
  } finally {
    open = false;
    cancelTimer();
    batch.signal?.removeEventListener('abort', onCallerAbort);
    untrack();
  }
  return { failures, stop };
}

/** How many of `pending` went unscored, and the reason of the first of them (in candidate order). */
function summarise(
  pending: readonly RerankCandidate[],
  scores: ReadonlyMap<string, number>,
  failures: ReadonlyMap<string, Failure>,
  stop: Failure | undefined,
): RerankOutcome['skipped'] {
  const unscored = pending.filter((c) => !scores.has(c.id));
  const first = unscored[0];
  if (first === undefined) return undefined;
  const failure = failures.get(first.id) ?? stop ?? { reason: 'error', detail: 'not judged' };
  return failure.detail === undefined
    ? { reason: failure.reason, candidates: unscored.length }
    : { reason: failure.reason, candidates: unscored.length, detail: failure.detail };
}
