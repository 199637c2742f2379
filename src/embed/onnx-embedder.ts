/**
 * In-process embeddings from a local ONNX model (a sentence-transformers model exported to ONNX:
 * bge, e5, gte, MiniLM…) on onnxruntime-node's CPU provider. Nothing leaves the machine, and
 * nothing is downloaded: the model is read from a directory on disk, either `embed.onnx.modelDir`
 * or a model pulled beforehand with `scry models pull` (`embed.onnx.model`, checked against its
 * manifest).
 *
 * Pipeline: prefix (by purpose) → tokenize (`tokenizer.json`, cut to `maxLength`) → one batch
 * padded to its longest text → run → pool (`mean` over the attention mask, or `cls`) over
 * `last_hidden_state` (or the first output; a 2-D `[batch, dim]` output is already a sentence
 * embedding and is taken as it is) → L2 normalise.
 *
 * The issue suggested @huggingface/transformers. We reuse instead the runtime and tokenizer the
 * cross-encoder reranker already loads (onnxruntime-node, @huggingface/tokenizers): transformers.js
 * would add a second, heavy ONNX runtime and its own model-download machinery for the few dozen
 * lines of pooling below. Both are imported on first use only, never at start-up.
 */
import { readFile } from 'node:fs/promises';
import { statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type * as OrtModule from 'onnxruntime-node';
import type { InferenceSession, Tensor } from 'onnxruntime-node';
import type { Tokenizer } from '@huggingface/tokenizers';
import { EngineError, isEngineError } from '../core/errors.js';
import { shortHash } from '../core/hash.js';
import { checkModelDir, readManifest, sha256File } from './model-manifest.js';
import { modelDirOf } from './model-layout.js';
import { loadOnnxRuntime } from './runtimes.js';
import type { EmbeddingProvider, EmbedRequestOptions, ModelFingerprint } from './provider.js';
import { normalize, untilAborted } from './provider.js';

export type OnnxPooling = 'mean' | 'cls';

export interface OnnxEmbedderConfig {
  /** A directory with `model.onnx` (or `onnx/model.onnx`) and `tokenizer.json`; wins over `model`. Relative to the working directory. */
  readonly modelDir?: string | undefined;
  /** A pulled model's hub id (`BAAI/bge-small-en-v1.5`), looked up in `modelsDir`. */
  readonly model?: string | undefined;
  /** Where pulled models live (config `models.dir`). */
  readonly modelsDir: string;
  /** Tokens per text, lowered to the tokenizer's `model_max_length`. Integer ≥ 2 (config 16–8192, default 256). */
  readonly maxLength: number;
  /** Config `embed.onnx.pooling`, default `mean`. */
  readonly pooling: OnnxPooling;
  /** Prepended to query texts (e.g. `query: ` for e5, `Represent this sentence for searching relevant passages: ` for bge). */
  readonly queryPrefix: string;
  /** Prepended to document texts (e.g. `passage: ` for e5). */
  readonly documentPrefix: string;
  /** Texts per inference call. Integer ≥ 1 (config `embed.batchSize`). */
  readonly batchSize: number;
}

export interface OnnxEmbedderDeps {
  /** Imports onnxruntime-node (typed `unknown`: the public declarations must not name it). Default: a dynamic import. */
  readonly importOrt?: () => Promise<unknown>;
}

/** Where a model's files are, and what its name is in the fingerprint. */
export interface OnnxModelFiles {
  readonly name: string;
  readonly dir: string;
  readonly modelPath: string;
  /** sha256 of the ONNX file from a pulled model's manifest. */
  readonly expectedSha256?: string;
}

/** The model inputs an embedder may declare; any other input cannot be fed. */
export const EMBED_INPUT_NAMES = ['input_ids', 'attention_mask', 'token_type_ids'] as const;
type InputName = (typeof EMBED_INPUT_NAMES)[number];
type IdType = 'int64' | 'int32';
type Ort = typeof OrtModule;

const MODEL_CANDIDATES = ['model.onnx', join('onnx', 'model.onnx')];
const MODEL_DIR_HINT = 'point embed.onnx.modelDir at a directory holding tokenizer.json and model.onnx (or onnx/model.onnx), or pull one: `scry models pull NAME`';
/** Characters tokenized per token of budget: text past `maxLength ×` this would be cut anyway. */
const CHARS_PER_TOKEN_BOUND = 32;

/** Finds the model's files; throws MODEL_NOT_FOUND / MODEL_INVALID naming what is missing. */
export async function locateOnnxModel(config: Pick<OnnxEmbedderConfig, 'modelDir' | 'model' | 'modelsDir'>): Promise<OnnxModelFiles> {
  if (config.modelDir !== undefined) {
    const dir = resolve(config.modelDir);
    const name = basename(dir);
    if (!isDir(dir)) throw new EngineError('MODEL_NOT_FOUND', { model: name, dir: dirname(dir) }, { hint: MODEL_DIR_HINT });
    const invalid = (reason: string) => new EngineError('MODEL_INVALID', { model: name, reason }, { hint: MODEL_DIR_HINT });
    if (!isFile(join(dir, 'tokenizer.json'))) throw invalid(`no tokenizer.json in ${dir}`);
    const modelPath = MODEL_CANDIDATES.map((rel) => join(dir, rel)).find(isFile);
    if (modelPath === undefined) throw invalid(`no model.onnx or onnx/model.onnx in ${dir}`);
    return { name, dir, modelPath };
  }
  if (config.model === undefined) throw new EngineError('INVALID_ARGUMENT', { name: 'embed.onnx', reason: 'needs modelDir or model' });
  const name = config.model;
  const dir = modelDirOf(config.modelsDir, name);
  if (!isDir(dir)) throw new EngineError('MODEL_NOT_FOUND', { model: name, dir: config.modelsDir });
  const read = await readManifest(dir);
  if ('problem' in read) throw new EngineError('MODEL_INVALID', { model: name, reason: `${read.problem.path}: ${read.problem.message}` });
  const problem = (await checkModelDir(dir, read.manifest, { hashes: false }))[0];
  if (problem !== undefined) throw new EngineError('MODEL_INVALID', { model: name, reason: `${problem.path}: ${problem.message}` });
  const listed = read.manifest.files.find((f) => f.path === read.manifest.model);
  return { name, dir, modelPath: join(dir, read.manifest.model), ...(listed ? { expectedSha256: listed.sha256 } : {}) };
}

/** One text as the model reads it. */
interface TextEncoding {
  readonly ids: readonly number[];
  readonly typeIds: readonly number[];
}

interface TextTokenizer {
  /** The budget in force: the configured one, lowered to the model's `model_max_length`. */
  readonly maxLength: number;
  readonly padId: number;
  encode(text: string): TextEncoding;
}

interface LoadedModel {
  readonly ort: Ort;
  readonly session: InferenceSession;
  readonly tokenizer: TextTokenizer;
  readonly inputs: ReadonlyMap<InputName, IdType>;
  readonly output: string;
  readonly fingerprint: ModelFingerprint;
}

export function createOnnxEmbedder(config: OnnxEmbedderConfig, deps: OnnxEmbedderDeps = {}): EmbeddingProvider {
  const { batchSize, maxLength, pooling } = config;
  for (const [name, value] of Object.entries({ batchSize, maxLength })) {
    if (!Number.isInteger(value) || value < 1) throw new EngineError('INVALID_ARGUMENT', { name: `embed.${name}`, reason: `must be a positive integer, got ${value}` });
  }
  if (pooling !== 'mean' && pooling !== 'cls') throw new EngineError('INVALID_ARGUMENT', { name: 'embed.onnx.pooling', reason: `must be "mean" or "cls", got ${String(pooling)}` });
  const modelName = config.modelDir !== undefined ? basename(resolve(config.modelDir)) : (config.model ?? '');
  const importOrt = deps.importOrt;
  let loading: Promise<LoadedModel> | undefined;
  let closed = false;
  let closing: Promise<void> | undefined;
  /** Runs one after another: two sessions' worth of threads on the same cores only contend. */
  let queue: Promise<unknown> = Promise.resolve();

  const closedError = () => new EngineError('EMBEDDING_UNAVAILABLE', { provider: 'onnx', reason: 'the provider is closed' });
  // A model that is not there yet is looked for again next time (it may be pulled meanwhile); one
  // that fails to load keeps failing with the same error until the provider is recreated.
  const load = (): Promise<LoadedModel> =>
    (loading ??= loadModel(config, importOrt).catch((err: unknown) => {
      if (isEngineError(err, 'MODEL_NOT_FOUND')) loading = undefined;
      throw err;
    }));

  const runBatch = (model: LoadedModel, encoded: readonly TextEncoding[]): Promise<Float32Array[]> => {
    const next = queue.then(() => infer(model, encoded, pooling));
    queue = next.catch(() => {});
    return next;
  };

  return {
    name: 'onnx',
    model: modelName,
    maxBatch: batchSize,

    async fingerprint(options = {}): Promise<ModelFingerprint> {
      options.signal?.throwIfAborted();
      if (closed) throw closedError();
      return (await untilAborted(load(), options.signal)).fingerprint;
    },

    async embed(texts: readonly string[], options: EmbedRequestOptions = {}): Promise<Float32Array[]> {
      const { signal } = options;
      signal?.throwIfAborted();
      if (closed) throw closedError();
      if (texts.length === 0) return [];
      const model = await untilAborted(load(), signal);
      const prefix = options.purpose === 'query' ? config.queryPrefix : config.documentPrefix;
      const encoded = texts.map((text) => model.tokenizer.encode(prefix + text));
      // Texts of similar length share a batch, so that little of it is padding.
      const order = encoded.map((_, i) => i).sort((a, b) => encoded[a]!.ids.length - encoded[b]!.ids.length);
      const out = new Array<Float32Array>(texts.length);
      for (let start = 0; start < order.length; start += batchSize) {
        signal?.throwIfAborted();
        if (closed) throw closedError();
        const rows = order.slice(start, start + batchSize);
        const vectors = await untilAborted(runBatch(model, rows.map((i) => encoded[i]!)), signal);
        rows.forEach((row, k) => (out[row] = vectors[k]!));
      }
      return out;
    },

    close(): Promise<void> {
      closed = true;
      closing ??= loading === undefined ? Promise.resolve() : loading.then((model) => queue.then(() => model.session.release()), () => {});
      return closing;
    },
  };
}

async function loadModel(config: OnnxEmbedderConfig, importOrt: (() => Promise<unknown>) | undefined): Promise<LoadedModel> {
  const files = await locateOnnxModel(config);
  const invalid = (reason: string, cause?: unknown) => new EngineError('MODEL_INVALID', { model: files.name, reason }, cause !== undefined ? { cause } : undefined);
  const ort = (await loadOnnxRuntime(importOrt)) as Ort;
  const sha256 = await sha256File(files.modelPath);
  if (files.expectedSha256 !== undefined && sha256 !== files.expectedSha256) {
    throw invalid(`${basename(files.modelPath)} has sha256 ${sha256}; the manifest says ${files.expectedSha256}`);
  }
  let tokenizer: TextTokenizer;
  try {
    tokenizer = await loadTextTokenizer(files.dir, config.maxLength);
  } catch (err) {
    throw invalid(`tokenizer.json: ${messageOf(err)}`, err);
  }
  let session: InferenceSession;
  try {
    // logSeverityLevel 4: failures reach the caller as errors; onnxruntime must not print them too.
    session = await ort.InferenceSession.create(files.modelPath, { executionProviders: ['cpu'], graphOptimizationLevel: 'all', logSeverityLevel: 4 });
  } catch (err) {
    throw invalid(`onnxruntime cannot load ${basename(files.modelPath)}: ${messageOf(err)}`, err);
  }
  try {
    const inputs = modelInputs(session);
    const output = session.outputNames.includes('last_hidden_state') ? 'last_hidden_state' : session.outputNames[0]!;
    const partial = { ort, session, tokenizer, inputs, output };
    const [probe] = await infer(partial, [tokenizer.encode('dimension probe')], config.pooling);
    const version = [sha256.slice(0, 12), `${config.pooling}${tokenizer.maxLength}`, ...(config.documentPrefix !== '' ? [shortHash(config.documentPrefix, 8)] : [])].join('-');
    return { ...partial, fingerprint: { provider: 'onnx', model: files.name, dimensions: probe!.length, version } };
  } catch (err) {
    await session.release().catch(() => {});
    throw isEngineError(err) ? new EngineError('MODEL_INVALID', { model: files.name, reason: String(err.data['reason'] ?? err.message) }, { cause: err }) : invalid(messageOf(err), err);
  }
}

/** Runs one batch and pools it; throws EMBEDDING_FAILED when the runtime or the output fails. */
async function infer(model: Omit<LoadedModel, 'fingerprint'>, encoded: readonly TextEncoding[], pooling: OnnxPooling): Promise<Float32Array[]> {
  const width = Math.max(1, ...encoded.map((e) => e.ids.length));
  const feeds: Record<string, Tensor> = {};
  for (const [name, type] of model.inputs) {
    const flat = encoded.flatMap((e) => {
      const row = name === 'input_ids' ? e.ids : name === 'attention_mask' ? e.ids.map(() => 1) : e.typeIds;
      return [...row, ...new Array<number>(width - row.length).fill(name === 'input_ids' ? model.tokenizer.padId : 0)];
    });
    const data = type === 'int64' ? BigInt64Array.from(flat, (v) => BigInt(v)) : Int32Array.from(flat);
    feeds[name] = new model.ort.Tensor(type, data, [encoded.length, width]);
  }
  let result: InferenceSession.ReturnType;
  try {
    result = await model.session.run(feeds, { logSeverityLevel: 4 });
  } catch (err) {
    throw new EngineError('EMBEDDING_FAILED', { provider: 'onnx', reason: `inference failed: ${messageOf(err)}` }, { cause: err });
  }
  return poolOutput(result[model.output], encoded.map((e) => e.ids.length), pooling);
}

/** A model output tensor, structurally (onnxruntime's `OnnxValue`; the public declarations must not name onnxruntime-node). */
export interface ModelOutput {
  readonly type: string;
  readonly data: unknown;
  readonly dims: readonly number[];
}

/**
 * One unit-length vector per row of `output`: `[batch, seq, dim]` pooled over each row's first
 * `lengths[b]` positions (the attention mask: padding comes after them) by `mean`, or the first
 * position by `cls`; `[batch, dim]` taken as it is. Throws EMBEDDING_FAILED for any other shape.
 */
export function poolOutput(output: ModelOutput | undefined, lengths: readonly number[], pooling: OnnxPooling): Float32Array[] {
  const failed = (reason: string) => new EngineError('EMBEDDING_FAILED', { provider: 'onnx', reason });
  if (output === undefined) throw failed('the model returned no output');
  if (output.type !== 'float32' && output.type !== 'float64') throw failed(`the model's output is ${output.type}; expected float32`);
  const data = output.data as Float32Array | Float64Array;
  const dims = output.dims;
  const batch = lengths.length;
  if (dims[0] !== batch || (dims.length !== 2 && dims.length !== 3)) throw failed(`the model's output has shape [${dims.join(', ')}]; expected [${batch}, seq, dim] or [${batch}, dim]`);
  const dim = dims[dims.length - 1]!;
  if (dim < 1) throw failed('the model returned empty vectors');
  if (dims.length === 2) return lengths.map((_, b) => normalize(Float32Array.from(data.subarray(b * dim, (b + 1) * dim))));
  const seq = dims[1]!;
  return lengths.map((length, b) => {
    const v = new Float32Array(dim);
    const used = pooling === 'cls' ? Math.min(1, seq) : Math.min(length, seq);
    for (let s = 0; s < used; s++) {
      const base = (b * seq + s) * dim;
      for (let d = 0; d < dim; d++) v[d]! += data[base + d]!;
    }
    if (used > 0) for (let d = 0; d < dim; d++) v[d]! /= used;
    return normalize(v);
  });
}

/** Loads `tokenizer.json` (and `tokenizer_config.json` when present) as a single-text encoder. */
async function loadTextTokenizer(dir: string, maxLength: number): Promise<TextTokenizer> {
  const json = JSON.parse(await readFile(join(dir, 'tokenizer.json'), 'utf8')) as Record<string, unknown>;
  const tokenizerConfig = await readOptionalJson(join(dir, 'tokenizer_config.json'));
  const { Tokenizer: TokenizerClass } = await import('@huggingface/tokenizers');
  const tokenizer = new TokenizerClass(json, tokenizerConfig);
  const modelMax = tokenizerConfig['model_max_length'];
  // Files without a real limit carry a huge sentinel (1e30); ignore anything that is not a sane length.
  const budget = typeof modelMax === 'number' && Number.isInteger(modelMax) && modelMax > 0 && modelMax < 1_000_000 ? Math.min(maxLength, modelMax) : maxLength;
  const padding = json['padding'] as { pad_id?: unknown } | null | undefined;
  const padId = typeof padding?.pad_id === 'number' ? padding.pad_id : (tokenizer.token_to_id('[PAD]') ?? tokenizer.token_to_id('<pad>') ?? 0);
  const added = new Map([...tokenizer.get_added_tokens_decoder()].map(([id, token]) => [token.content, id]));
  const unkId = tokenizer.model?.unk_token_id ?? padId;
  const idOf = (token: string): number => added.get(token) ?? tokenizer.token_to_id(token) ?? unkId;
  const specials = withSpecials(tokenizer, []).tokens.length;
  if (specials >= budget) throw new Error(`the tokenizer adds ${specials} special tokens, leaving no room in ${budget}`);
  return {
    maxLength: budget,
    padId,
    encode(text) {
      const tokens = tokenizer.tokenize(text.slice(0, budget * CHARS_PER_TOKEN_BOUND)).slice(0, budget - specials);
      const out = withSpecials(tokenizer, tokens);
      return { ids: out.tokens.map(idOf), typeIds: out.typeIds };
    },
  };
}

function withSpecials(tokenizer: Tokenizer, tokens: string[]): { tokens: string[]; typeIds: number[] } {
  const processor = tokenizer.post_processor;
  if (processor === null) return { tokens, typeIds: tokens.map(() => 0) };
  const out = processor.post_process(tokens, null, true);
  return { tokens: out.tokens, typeIds: out.token_type_ids ?? out.tokens.map(() => 0) };
}

/** The inputs the model declares, each with its integer type; rejects a model that cannot be fed. */
function modelInputs(session: InferenceSession): Map<InputName, IdType> {
  const inputs = new Map<InputName, IdType>();
  session.inputNames.forEach((name, i) => {
    if (!(EMBED_INPUT_NAMES as readonly string[]).includes(name)) throw new Error(`the model has an input "${name}"; only ${EMBED_INPUT_NAMES.join(', ')} are supported`);
    const meta = session.inputMetadata[i];
    const type = meta?.isTensor ? meta.type : 'int64';
    if (type !== 'int64' && type !== 'int32') throw new Error(`the model's input "${name}" is ${type}; expected int64 or int32`);
    inputs.set(name as InputName, type);
  });
  if (!inputs.has('input_ids')) throw new Error('the model has no input_ids input');
  if (session.outputNames.length === 0) throw new Error('the model has no output');
  return inputs;
}

/** `work`, or the abort reason the moment `signal` aborts (the work itself runs on). */
async function readOptionalJson(path: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw err;
  }
  const value: unknown = JSON.parse(text);
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function isDir(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
}

function isFile(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isFile() === true;
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
