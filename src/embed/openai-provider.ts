/**
 * Embeddings from any OpenAI-compatible endpoint (OpenAI, Azure-style proxies, llama.cpp server,
 * vLLM, LM Studio, Ollama's /v1, TEI…):
 *   POST {baseUrl}/embeddings  { model, input: [text, …], encoding_format: 'float', dimensions? }
 *     →  { object: 'list', data: [{ object: 'embedding', index, embedding: [...] }], model, usage }
 * `data` is put back in input order by `index`. An `embedding` sent as a base64 string (little-
 * endian float32, what `encoding_format: 'base64'` returns) is read too, for servers that ignore
 * the format asked for. Nothing reports a weights version, so the fingerprint's is `unknown`.
 */
import { EngineError } from '../core/errors.js';
import type { HttpEmbedDeps } from './http-embed.js';
import { createHttpEmbedClient, DIMENSION_PROBE_TEXT, endpointUrl, field, replyVectors } from './http-embed.js';
import { inBatches } from './provider.js';
import type { EmbeddingProvider, EmbedRequestOptions, ModelFingerprint } from './provider.js';

export interface OpenAiProviderConfig {
  /** The API root, e.g. `https://api.openai.com/v1`; requests go to `{baseUrl}/embeddings` (config `embed.openai.baseUrl`). */
  readonly baseUrl: string;
  /** Config `embed.openai.model`, e.g. `text-embedding-3-small`. */
  readonly model: string;
  /** Asked of the endpoint and required of every vector; unset: learned from the first answer. 1–8192. */
  readonly dimensions?: number | undefined;
  /** Name of the environment variable the key comes from, for messages only (config `embed.openai.apiKeyEnv`). */
  readonly apiKeyEnv?: string | undefined;
  /** Texts per request. Integer ≥ 1 (config `embed.batchSize`). */
  readonly batchSize: number;
  readonly timeoutMs: number;
  readonly retries: number;
}

export interface OpenAiProviderDeps extends HttpEmbedDeps {
  /**
   * The API key, sent as `Authorization: Bearer …`. The composition root looks it up under
   * `apiKeyEnv` (only config/ reads the environment). Unset with `apiKeyEnv` configured: every
   * call fails EMBEDDING_UNAVAILABLE naming the variable, without a request.
   */
  readonly apiKey?: string | undefined;
}

export function createOpenAiProvider(config: OpenAiProviderConfig, deps: OpenAiProviderDeps = {}): EmbeddingProvider {
  const { model, batchSize, apiKeyEnv } = config;
  const invalid = (name: string, reason: string) => new EngineError('INVALID_ARGUMENT', { name: `embed.${name}`, reason });
  if (typeof model !== 'string' || model === '') throw invalid('openai.model', 'must be a non-empty string');
  if (!Number.isInteger(batchSize) || batchSize < 1) throw invalid('batchSize', `must be an integer ≥ 1, got ${batchSize}`);
  if (config.dimensions !== undefined && (!Number.isInteger(config.dimensions) || config.dimensions < 1)) {
    throw invalid('openai.dimensions', `must be an integer ≥ 1, got ${config.dimensions}`);
  }
  const url = endpointUrl(config.baseUrl, '/embeddings', 'embed.openai.baseUrl');
  const client = createHttpEmbedClient({ provider: 'openai', timeoutMs: config.timeoutMs, retries: config.retries }, deps);
  const key = deps.apiKey?.trim();
  const life = new AbortController();
  let dimensions = config.dimensions;

  /** Why no request can be made, checked per call so that construction never throws for it. */
  const keyProblem = (): EngineError | undefined => {
    const variable = apiKeyEnv ?? 'the API key';
    if (key !== undefined && !/^[\x21-\x7e]+$/.test(key)) {
      // Checked here, because fetch would reject the header with a message that quotes the key.
      return new EngineError('EMBEDDING_UNAVAILABLE', { provider: 'openai', reason: `${variable} holds characters an HTTP header cannot carry` });
    }
    if (apiKeyEnv !== undefined && (key === undefined || key === '')) {
      return new EngineError('EMBEDDING_UNAVAILABLE', { provider: 'openai', reason: `the environment variable ${apiKeyEnv} is not set` }, {
        hint: `export ${apiKeyEnv}=<your API key>, or remove embed.openai.apiKeyEnv for an endpoint without keys`,
      });
    }
    return undefined;
  };
  const headers: Record<string, string> = key !== undefined && key !== '' ? { authorization: `Bearer ${key}` } : {};

  const embedBatch = async (batch: readonly string[], signal: AbortSignal): Promise<Float32Array[]> => {
    const problem = keyProblem();
    if (problem !== undefined) throw problem;
    const body = { model, input: batch, encoding_format: 'float', ...(config.dimensions !== undefined ? { dimensions: config.dimensions } : {}) };
    let json: unknown;
    try {
      ({ json } = await client.request({ method: 'POST', url, headers, body, signal }));
    } catch (err) {
      throw withKeyHint(err, apiKeyEnv);
    }
    const vectors = replyVectors('openai', inIndexOrder(field(json, 'data'), batch.length), batch.length, dimensions);
    dimensions ??= vectors[0]!.length;
    return vectors;
  };

  const signalOf = (signal: AbortSignal | undefined): AbortSignal => (signal === undefined ? life.signal : AbortSignal.any([signal, life.signal]));

  return {
    name: 'openai',
    model,
    maxBatch: batchSize,

    async fingerprint(options = {}): Promise<ModelFingerprint> {
      const signal = signalOf(options.signal);
      signal.throwIfAborted();
      if (dimensions === undefined) await embedBatch([DIMENSION_PROBE_TEXT], signal);
      return { provider: 'openai', model, dimensions: dimensions!, version: 'unknown' };
    },

    async embed(texts: readonly string[], options: EmbedRequestOptions = {}): Promise<Float32Array[]> {
      const signal = signalOf(options.signal);
      signal.throwIfAborted();
      return inBatches(texts, batchSize, (batch) => embedBatch(batch, signal));
    },

    close(): Promise<void> {
      if (!life.signal.aborted) life.abort(new EngineError('EMBEDDING_UNAVAILABLE', { provider: 'openai', reason: 'the provider is closed' }));
      return Promise.resolve();
    },
  };
}

/**
 * The `embedding` of each `data` item, ordered by `index` (which must be 0…n−1, each once; items
 * without any index are taken in order). Throws EMBEDDING_FAILED for anything else.
 */
function inIndexOrder(data: unknown, expected: number): unknown[] {
  const failed = (reason: string) => new EngineError('EMBEDDING_FAILED', { provider: 'openai', reason, status: 200 });
  if (!Array.isArray(data)) throw failed('the reply has no "data" array');
  if (data.length !== expected) throw failed(`${data.length} vectors for ${expected} texts`);
  const indexes = data.map((item: unknown) => field(item, 'index'));
  if (indexes.every((index) => index === undefined)) return data.map((item: unknown, i) => embeddingOf(field(item, 'embedding'), i, failed));
  const ordered: unknown[] = new Array<unknown>(data.length);
  const seen = new Set<number>();
  data.forEach((item: unknown, i) => {
    const index = indexes[i];
    if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= data.length) throw failed(`item ${i} has index ${JSON.stringify(index)}`);
    if (seen.has(index)) throw failed(`index ${index} appears twice`);
    seen.add(index);
    ordered[index] = embeddingOf(field(item, 'embedding'), index, failed);
  });
  return ordered;
}

/** An `embedding` as sent: an array (checked later), or a base64 string of little-endian float32 values. */
function embeddingOf(embedding: unknown, i: number, failed: (reason: string) => EngineError): unknown {
  if (typeof embedding !== 'string') return embedding;
  const bytes = Buffer.from(embedding, 'base64');
  if (bytes.length === 0 || bytes.length % 4 !== 0) throw failed(`vector ${i} is a string that is not base64 float32`);
  return Array.from({ length: bytes.length / 4 }, (_, k) => bytes.readFloatLE(k * 4));
}
/** 401/403: the key is the likely cause; say where it comes from (never what it is). */
function withKeyHint(err: unknown, apiKeyEnv: string | undefined): unknown {
  if (!(err instanceof EngineError) || err.code !== 'EMBEDDING_FAILED') return err;
  const status = err.data['status'];
  if (status !== 401 && status !== 403) return err;
  const source = apiKeyEnv !== undefined ? `the key in ${apiKeyEnv}` : 'an API key (set embed.openai.apiKeyEnv to the variable holding it)';
  return new EngineError('EMBEDDING_FAILED', err.data, { cause: err, hint: `the endpoint refused the request: check ${source}` });
}
