/**
 * Embeddings from a local Ollama server, through its current API:
 *   POST {baseUrl}/api/embed  { model, input: [text, …] }  →  { model, embeddings: [[…], …], … }
 *   GET  {baseUrl}/api/tags   →  { models: [{ name, model, digest, … }] }   (for the fingerprint)
 * The older /api/embeddings (one `prompt` per request) is not used. The model's digest from
 * /api/tags is the fingerprint's version, so `ollama pull` of new weights under the same name is
 * noticed; a server without /api/tags gives `unknown`.
 */
import { EngineError, isEngineError } from '../core/errors.js';
import type { HttpEmbedDeps } from './http-embed.js';
import { createHttpEmbedClient, DIMENSION_PROBE_TEXT, endpointUrl, field, replyVectors } from './http-embed.js';
import { inBatches } from './provider.js';
import type { EmbeddingProvider, EmbedRequestOptions, ModelFingerprint } from './provider.js';

export interface OllamaProviderConfig {
  /** The server, e.g. `http://127.0.0.1:11434` (config `embed.ollama.baseUrl`). */
  readonly baseUrl: string;
  /** An installed embedding model, e.g. `nomic-embed-text` (config `embed.ollama.model`). */
  readonly model: string;
  /** Texts per request. Integer ≥ 1 (config `embed.batchSize`: 1–512, default 32). */
  readonly batchSize: number;
  /** One request's limit in ms (config `embed.timeoutMs`). */
  readonly timeoutMs: number;
  /** Retries of a 429, 5xx or timed-out request (config `embed.retries`). */
  readonly retries: number;
}

/** The tag Ollama gives a model named without one. */
const DEFAULT_TAG = 'latest';

export function createOllamaProvider(config: OllamaProviderConfig, deps: HttpEmbedDeps = {}): EmbeddingProvider {
  const { model, batchSize } = config;
  if (typeof model !== 'string' || model === '') throw new EngineError('INVALID_ARGUMENT', { name: 'embed.ollama.model', reason: 'must be a non-empty string' });
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new EngineError('INVALID_ARGUMENT', { name: 'embed.batchSize', reason: `must be an integer ≥ 1, got ${batchSize}` });
  const embedUrl = endpointUrl(config.baseUrl, '/api/embed', 'embed.ollama.baseUrl');
  const tagsUrl = endpointUrl(config.baseUrl, '/api/tags', 'embed.ollama.baseUrl');
  const client = createHttpEmbedClient({ provider: 'ollama', timeoutMs: config.timeoutMs, retries: config.retries }, deps);
  const life = new AbortController();
  let dimensions: number | undefined;
  let version: string | undefined;

  const signalOf = (signal: AbortSignal | undefined): AbortSignal => (signal === undefined ? life.signal : AbortSignal.any([signal, life.signal]));

  const embedBatch = async (batch: readonly string[], signal: AbortSignal): Promise<Float32Array[]> => {
    let json: unknown;
    try {
      ({ json } = await client.request({ method: 'POST', url: embedUrl, body: { model, input: batch }, signal }));
    } catch (err) {
      throw notInstalled(err, model);
    }
    const raw = field(json, 'embeddings');
    if (!Array.isArray(raw)) throw new EngineError('EMBEDDING_FAILED', { provider: 'ollama', reason: 'the reply has no "embeddings" array', status: 200 });
    const vectors = replyVectors('ollama', raw, batch.length, dimensions);
    dimensions ??= vectors[0]!.length;
    return vectors;
  };

  return {
    name: 'ollama',
    model,
    maxBatch: batchSize,

    async fingerprint(options = {}): Promise<ModelFingerprint> {
      const signal = signalOf(options.signal);
      signal.throwIfAborted();
      if (dimensions === undefined) await embedBatch([DIMENSION_PROBE_TEXT], signal);
      version ??= await modelDigest(client, tagsUrl, model, signal);
      return { provider: 'ollama', model, dimensions: dimensions!, version };
    },

    async embed(texts: readonly string[], options: EmbedRequestOptions = {}): Promise<Float32Array[]> {
      const signal = signalOf(options.signal);
      signal.throwIfAborted();
      return inBatches(texts, batchSize, (batch) => embedBatch(batch, signal));
    },

    close(): Promise<void> {
      if (!life.signal.aborted) life.abort(new EngineError('EMBEDDING_UNAVAILABLE', { provider: 'ollama', reason: 'the provider is closed' }));
      return Promise.resolve();
    },
  };
}

/**
 * The first 12 hex digits of the model's digest in /api/tags, or `unknown` when the server has no
 * such endpoint (404/405/501) or does not list the model. Other failures are thrown, not turned
 * into `unknown`: a version that flips between a digest and `unknown` would re-embed everything.
 */
async function modelDigest(client: ReturnType<typeof createHttpEmbedClient>, url: string, model: string, signal: AbortSignal): Promise<string> {
  let json: unknown;
  try {
    ({ json } = await client.request({ method: 'GET', url, signal }));
  } catch (err) {
    const status = isEngineError(err, 'EMBEDDING_FAILED') ? err.data['status'] : undefined;
    if (status === 404 || status === 405 || status === 501) return 'unknown';
    throw err;
  }
  const models = field(json, 'models');
  if (!Array.isArray(models)) return 'unknown';
  const wanted = withTag(model);
  const entry: unknown = models.find((m: unknown) => [field(m, 'name'), field(m, 'model')].some((n) => typeof n === 'string' && withTag(n) === wanted));
  const digest = field(entry, 'digest');
  if (typeof digest !== 'string') return 'unknown';
  const hex = digest.replace(/^sha256:/, '').toLowerCase();
  return /^[0-9a-f]{12}/.test(hex) ? hex.slice(0, 12) : 'unknown';
}

/** `nomic-embed-text` → `nomic-embed-text:latest`; a name with a tag stays as it is. */
function withTag(name: string): string {
  return /:[^/]*$/.test(name) ? name : `${name}:${DEFAULT_TAG}`;
}

/** Ollama answers 404 for a model that is not pulled: the contract calls that unavailable, with the fix. */
function notInstalled(err: unknown, model: string): unknown {
  if (!isEngineError(err, 'EMBEDDING_FAILED') || err.data['status'] !== 404) return err;
  return new EngineError('EMBEDDING_UNAVAILABLE', { provider: 'ollama', reason: `${String(err.data['reason'])} (model ${model})`, status: 404 }, {
    cause: err,
    hint: `pull the model with \`ollama pull ${model}\`; /api/embed needs a recent Ollama (0.3 or later)`,
  });
}
