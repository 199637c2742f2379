import type * as OrtModule from 'onnxruntime-node';
import type { InferenceSession, OnnxValue, Tensor } from 'onnxruntime-node';
import type { PairEncoding } from './pair-tokenizer.js';
import { loadPairTokenizer } from './pair-tokenizer.js';

/**
 * One ONNX cross-encoder session with its tokenizer: (query, passage) pairs in, one logit each out.
 * onnxruntime-node is imported when the first scorer loads, never at module load, so start-up
 * does not pay for the native runtime unless a cross-encoder is configured.
 */
export interface PairScorer {
  /** One score per passage, in order. Throws when inference fails. */
  score(query: string, passages: readonly string[]): Promise<number[]>;
  /** Releases the session; idempotent. */
  release(): Promise<void>;
}

/** The model inputs a cross-encoder may declare; any other input cannot be fed. */
export const PAIR_INPUT_NAMES = ['input_ids', 'attention_mask', 'token_type_ids'] as const;
export type PairInputName = (typeof PAIR_INPUT_NAMES)[number];
export type IdType = 'int64' | 'int32';

/** One model input for a batch: row-major `[batch, width]`. */
export interface BatchInput {
  readonly type: IdType;
  readonly data: BigInt64Array | Int32Array;
  readonly dims: readonly [number, number];
}

type Ort = typeof OrtModule;

/** Loads the tokenizer of `dir` and the session of `modelPath`; throws with a readable reason. */
export async function loadPairScorer(dir: string, modelPath: string, maxLength: number, importOrt: () => Promise<unknown>): Promise<PairScorer> {
  const ort = (await importOrt()) as Ort;
  const tokenizer = await loadPairTokenizer(dir, maxLength);
  const session = await ort.InferenceSession.create(modelPath, {
    executionProviders: ['cpu'],
    graphOptimizationLevel: 'all',
    // Failures reach the caller as `skipped` details; onnxruntime must not print them to stderr too.
    logSeverityLevel: 4,
  });
  let inputs: Map<PairInputName, IdType>;
  try {
    inputs = modelInputs(session);
  } catch (err) {
    await session.release();
    throw err;
  }
  const output = session.outputNames.includes('logits') ? 'logits' : session.outputNames[0]!;
  let released: Promise<void> | undefined;

  return {
    async score(query, passages) {
      const encoded = passages.map((p) => tokenizer.encodePair(query, p));
      const feeds: Record<string, Tensor> = {};
      for (const [name, input] of batchInputs(inputs, encoded, tokenizer.padId)) {
        feeds[name] = new ort.Tensor(input.type, input.data, [...input.dims]);
      }
      const result = await session.run(feeds, { logSeverityLevel: 4 });
      return readLogits(result[output], passages.length);
    },
    release() {
      released ??= session.release();
      return released;
    },
  };
}

/**
 * The tensors of one batch, for exactly the inputs the model declares: ids padded to the longest
 * pair with `padId`, an attention mask of 1 over real tokens and 0 over padding, segment ids
 * (padding 0). A model without `token_type_ids` is not fed one.
 */
export function batchInputs(
  declared: ReadonlyMap<PairInputName, IdType>,
  encoded: readonly PairEncoding[],
  padId: number,
): Map<PairInputName, BatchInput> {
  const width = Math.max(0, ...encoded.map((e) => e.ids.length));
  const rows: Record<PairInputName, (e: PairEncoding) => readonly number[]> = {
    input_ids: (e) => e.ids,
    attention_mask: (e) => e.ids.map(() => 1),
    token_type_ids: (e) => e.typeIds,
  };
  const pads: Record<PairInputName, number> = { input_ids: padId, attention_mask: 0, token_type_ids: 0 };
  const out = new Map<PairInputName, BatchInput>();
  for (const [name, type] of declared) {
    const flat = encoded.flatMap((e) => {
      const row = rows[name](e);
      return [...row, ...new Array<number>(width - row.length).fill(pads[name])];
    });
    const data = type === 'int64' ? BigInt64Array.from(flat, (v) => BigInt(v)) : Int32Array.from(flat);
    out.set(name, { type, data, dims: [encoded.length, width] });
  }
  return out;
}

/** The inputs the model declares, each with its integer type; rejects a model we cannot feed. */
function modelInputs(session: InferenceSession): Map<PairInputName, IdType> {
  const inputs = new Map<PairInputName, IdType>();
  session.inputNames.forEach((name, i) => {
    if (!(PAIR_INPUT_NAMES as readonly string[]).includes(name)) {
      throw new Error(`the model has an input "${name}"; only ${PAIR_INPUT_NAMES.join(', ')} are supported`);
    }
    const meta = session.inputMetadata[i];
    const type = meta?.isTensor ? meta.type : 'int64';
    if (type !== 'int64' && type !== 'int32') throw new Error(`the model's input "${name}" is ${type}; expected int64 or int32`);
    inputs.set(name as PairInputName, type);
  });
  if (!inputs.has('input_ids')) throw new Error('the model has no input_ids input');
  if (session.outputNames.length === 0) throw new Error('the model has no output');
  return inputs;
}

/** `[batch]`, `[batch, 1]` → the value; `[batch, n]` (e.g. not-relevant/relevant) → the last column. */
function readLogits(output: OnnxValue | undefined, batch: number): number[] {
  if (output === undefined) throw new Error('the model returned no output');
  if (output.type !== 'float32' && output.type !== 'float64') throw new Error(`the model's output is ${output.type}; expected float32`);
  const [rows, columns = 1] = output.dims;
  if (rows !== batch || output.dims.length > 2) {
    throw new Error(`the model's output has shape [${output.dims.join(', ')}]; expected [${batch}, n]`);
  }
  const data = output.data as Float32Array | Float64Array;
  return Array.from({ length: batch }, (_, i) => data[i * columns + columns - 1]!);
}
