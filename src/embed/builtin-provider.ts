/**
 * The `builtin` embedding provider (issue 17): scry's own code-search model, trained on public
 * permissively licensed code (train/, models/builtin/MODEL_CARD.md) and shipped inside the package,
 * so hybrid search works offline with no download and no setup. Queries and code are embedded
 * differently (each side has its own token weights): `purpose: 'query'` for search text.
 *
 * The model loads on first use (a few MB read, sha256-checked); a changed file fails with
 * MODEL_INVALID, a missing one with MODEL_NOT_FOUND, both from `fingerprint()` / `embed()`. Inference
 * is synchronous TypeScript, microseconds a chunk; a batch yields the event loop between batches.
 */
import { EngineError } from '../core/errors.js';
import type { BuiltinModel } from './builtin/model.js';
import { BUILTIN_MODEL_NAME, loadBuiltinModel } from './builtin/model.js';
import type { EmbeddingProvider, EmbedRequestOptions, ModelFingerprint } from './provider.js';
import { untilAborted } from './provider.js';

export interface BuiltinProviderConfig {
  /** Texts per `embed` batch. Integer ≥ 1 (config `embed.batchSize`). */
  readonly batchSize: number;
}

export interface BuiltinDeps {
  /** The model directory. Default: `models/builtin/` of the package; tests point it at a damaged copy. */
  readonly builtinModelDir?: string | undefined;
}

export function createBuiltinProvider(config: BuiltinProviderConfig, deps: BuiltinDeps = {}): EmbeddingProvider {
  const { batchSize } = config;
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new EngineError('INVALID_ARGUMENT', { name: 'embed.batchSize', reason: `must be an integer ≥ 1, got ${batchSize}` });
  let model: Promise<BuiltinModel> | undefined;
  let closed = false;
  // A model that fails to load keeps failing the same way until the provider is recreated.
  const load = (): Promise<BuiltinModel> => (model ??= loadBuiltinModel(deps.builtinModelDir));
  const closedError = (): EngineError => new EngineError('EMBEDDING_UNAVAILABLE', { provider: 'builtin', reason: 'the provider is closed' });

  return {
    name: 'builtin',
    model: BUILTIN_MODEL_NAME,
    maxBatch: batchSize,

    async fingerprint(options = {}): Promise<ModelFingerprint> {
      options.signal?.throwIfAborted();
      if (closed) throw closedError();
      const m = await untilAborted(load(), options.signal);
      return { provider: 'builtin', model: m.name, dimensions: m.dimensions, version: m.version };
    },

    async embed(texts: readonly string[], options: EmbedRequestOptions = {}): Promise<Float32Array[]> {
      const { signal } = options;
      signal?.throwIfAborted();
      if (closed) throw closedError();
      if (texts.length === 0) return [];
      const m = await untilAborted(load(), signal);
      const purpose = options.purpose ?? 'document';
      const out: Float32Array[] = [];
      for (let i = 0; i < texts.length; i++) {
        if (i > 0 && i % batchSize === 0) {
          await new Promise<void>((resolve) => setImmediate(resolve));
          signal?.throwIfAborted();
          if (closed) throw closedError();
        }
        out.push(m.embed(texts[i]!, purpose));
      }
      return out;
    },

    async close(): Promise<void> {
      closed = true;
    },
  };
}
