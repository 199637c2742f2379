/**
 * The embedding provider contract (issue 8). A provider turns texts into unit-length vectors; the
 * engine injects one built from config (`embed.provider`), and tests inject their own. Every
 * provider reports a fingerprint, and vectors are cached per (chunk content hash, fingerprint), so
 * a model change is detected and never mixes vectors of two models.
 *
 * Failures are thrown as `EngineError`s with stable codes, after the provider's own bounded retries:
 * - `EMBEDDING_UNAVAILABLE` (`{provider, reason}`): the endpoint cannot be reached (refused, DNS,
 *   timeout), the model is not installed, an optional runtime is missing.
 * - `EMBEDDING_FAILED` (`{provider, reason, status?}`): it answered, but not with vectors (HTTP
 *   4xx/5xx after retries, malformed JSON, wrong count or dimensions).
 * - `MODEL_NOT_FOUND` / `MODEL_INVALID`: a local model directory is missing or broken.
 * The engine turns these into lexical-only results with a warning; they never reach a search caller.
 */

export const EMBED_PROVIDERS = ['builtin', 'ollama', 'openai', 'onnx', 'use-lite'] as const;
export type EmbedProviderName = (typeof EMBED_PROVIDERS)[number];

/** What identifies the vectors a provider makes: same fingerprint, comparable vectors. */
export interface ModelFingerprint {
  readonly provider: EmbedProviderName;
  /** The model as configured (`nomic-embed-text`, `text-embedding-3-small`, a model directory's name). */
  readonly model: string;
  readonly dimensions: number;
  /**
   * What changes when the weights change: a digest the endpoint reports (Ollama's model digest),
   * the sha256 of a local model file, a package version; `unknown` when nothing tells.
   */
  readonly version: string;
}

/** The fingerprint as one string, the key vectors are stored under: `provider:model:dimensions:version`. */
export function fingerprintKey(f: ModelFingerprint): string {
  return `${f.provider}:${f.model}:${f.dimensions}:${f.version}`;
}

/** Some models embed queries and documents differently (instruction prefixes). */
export type EmbedPurpose = 'document' | 'query';

export interface EmbedRequestOptions {
  readonly signal?: AbortSignal | undefined;
  /** Default `document`. */
  readonly purpose?: EmbedPurpose | undefined;
}

export interface EmbeddingProvider {
  readonly name: EmbedProviderName;
  readonly model: string;
  /** Most texts one `embed` call sends in one request; callers batch by it (larger calls are split). */
  readonly maxBatch: number;
  /**
   * Name, dimensions and version. A remote provider without configured dimensions learns them from
   * one probe request on first call (then cached); local providers know them after loading.
   */
  fingerprint(options?: { readonly signal?: AbortSignal | undefined }): Promise<ModelFingerprint>;
  /**
   * One L2-normalised vector per text, in input order, each `fingerprint().dimensions` long. Empty
   * input gives an empty array without a request. Each request has a timeout; 429 and 5xx answers
   * are retried a bounded number of times (honouring `Retry-After`); an aborted signal rejects at
   * once with the signal's reason.
   */
  embed(texts: readonly string[], options?: EmbedRequestOptions): Promise<Float32Array[]>;
  /** Releases sessions and sockets; idempotent. */
  close(): Promise<void>;
}

/** Scales `v` to unit length in place (a zero vector stays zero) and returns it. */
export function normalize(v: Float32Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < v.length; i++) sum += v[i]! * v[i]!;
  const norm = Math.sqrt(sum);
  if (norm > 0) for (let i = 0; i < v.length; i++) v[i]! /= norm;
  return v;
}

/** `work`, or the signal's reason as soon as it aborts (the work itself may run on: inference cannot be stopped). */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return work;
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** `texts` embedded `batchSize` at a time by `embedBatch`, in order. */
export async function inBatches(texts: readonly string[], batchSize: number, embedBatch: (batch: readonly string[]) => Promise<Float32Array[]>): Promise<Float32Array[]> {
  const out: Float32Array[] = [];
  for (let i = 0; i < texts.length; i += batchSize) out.push(...(await embedBatch(texts.slice(i, i + batchSize))));
  return out;
}
