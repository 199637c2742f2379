import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import protobuf from 'protobufjs';

/**
 * A tiny but real cross-encoder, built in the test: an ONNX model encoded with protobufjs from
 * the subset of onnx.proto written below, and a BERT-style WordPiece `tokenizer.json`. Nothing is
 * downloaded and no model file is committed.
 *
 * The model scores a pair as the sum of one weight per token, over the tokens the attention mask
 * keeps (and, with `tokenTypeIds`, only over the passage segment):
 *   logits[b, 0] = Σ_s W[input_ids[b, s]] · attention_mask[b, s] (· token_type_ids[b, s])
 * so a test can predict every score exactly. [PAD] has a large weight: padding that is not masked
 * shows up in the scores.
 */

/** The onnx.proto fields the tiny model needs, with their field numbers from onnx/onnx.proto (IR 8). */
const ONNX_PROTO = `
syntax = "proto3";
package onnx;
message AttributeProto {
  enum AttributeType { UNDEFINED = 0; FLOAT = 1; INT = 2; STRING = 3; TENSOR = 4; GRAPH = 5; FLOATS = 6; INTS = 7; }
  string name = 1;
  int64 i = 3;
  repeated int64 ints = 8;
  AttributeType type = 20;
}
message ValueInfoProto { string name = 1; TypeProto type = 2; }
message NodeProto {
  repeated string input = 1;
  repeated string output = 2;
  string name = 3;
  string op_type = 4;
  repeated AttributeProto attribute = 5;
  string domain = 7;
}
message TensorProto {
  repeated int64 dims = 1;
  int32 data_type = 2;
  repeated float float_data = 4 [packed = true];
  repeated int64 int64_data = 7 [packed = true];
  string name = 8;
}
message TensorShapeProto {
  message Dimension { oneof value { int64 dim_value = 1; string dim_param = 2; } }
  repeated Dimension dim = 1;
}
message TypeProto {
  message Tensor { int32 elem_type = 1; TensorShapeProto shape = 2; }
  oneof value { Tensor tensor_type = 1; }
}
message GraphProto {
  repeated NodeProto node = 1;
  string name = 2;
  repeated TensorProto initializer = 5;
  repeated ValueInfoProto input = 11;
  repeated ValueInfoProto output = 12;
}
message OperatorSetIdProto { string domain = 1; int64 version = 2; }
message ModelProto {
  int64 ir_version = 1;
  string producer_name = 2;
  GraphProto graph = 7;
  repeated OperatorSetIdProto opset_import = 8;
}
`;

/** TensorProto.DataType values. */
const FLOAT = 1;
const INT32 = 6;
const INT64 = 7;
const ATTR_INT = 2;

/** The tokenizer's vocabulary; ids are positions. `zebra` is the marker the model likes. */
export const TINY_VOCAB = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', 'zebra', 'giraffe', 'parse', 'config', 'file', 'the', 'filler', 'boom'] as const;
export type TinyWord = (typeof TINY_VOCAB)[number];

/** Weight of each token (by word); tokens not listed weigh 0. */
export const TINY_WEIGHTS: Partial<Record<TinyWord, number>> = { '[PAD]': 100, zebra: 10, giraffe: 3 };

export interface TinyModelOptions {
  /** Declare a `token_type_ids` input and count only the passage segment. Default false. */
  readonly tokenTypeIds?: boolean;
  /** 1: logits [batch, 1]; 2: [batch, 2] as (−s, s), the relevant class last. Default 1. */
  readonly logitsColumns?: 1 | 2;
  /** Element type of the id inputs. Default int64. */
  readonly idType?: 'int64' | 'int32';
  /** Rows of the weight table; fewer than the vocabulary makes the last words fail at inference. Default all. */
  readonly rows?: number;
  /** Write to `onnx/model.onnx` instead of `model.onnx`. Default false. */
  readonly inOnnxSubdir?: boolean;
  /** `model_max_length` written to tokenizer_config.json; omitted when undefined. */
  readonly modelMaxLength?: number;
}

/** Encodes the tiny scorer as ONNX ModelProto bytes. */
export function tinyScorerModel(options: TinyModelOptions = {}): Uint8Array {
  const root = protobuf.parse(ONNX_PROTO, { keepCase: true }).root;
  const ModelProto = root.lookupType('onnx.ModelProto');
  const idType = options.idType === 'int32' ? INT32 : INT64;
  const rows = options.rows ?? TINY_VOCAB.length;
  const weights = TINY_VOCAB.slice(0, rows).map((w) => TINY_WEIGHTS[w] ?? 0);
  const columns = options.logitsColumns ?? 1;
  const idInput = (name: string) => valueInfo(name, idType, ['batch', 'seq']);

  const nodes = [
    node('Gather', ['W', 'input_ids'], ['emb'], [intAttr('axis', 0)]),
    node('Cast', ['attention_mask'], ['mask'], [intAttr('to', FLOAT)]),
  ];
  let mask = 'mask';
  if (options.tokenTypeIds) {
    nodes.push(node('Cast', ['token_type_ids'], ['types'], [intAttr('to', FLOAT)]));
    nodes.push(node('Mul', ['mask', 'types'], ['passage_mask']));
    mask = 'passage_mask';
  }
  nodes.push(node('Mul', ['emb', mask], ['kept']));
  nodes.push(node('ReduceSum', ['kept', 'axes'], [columns === 1 ? 'logits' : 'score'], [intAttr('keepdims', 1)]));
  if (columns === 2) {
    nodes.push(node('Neg', ['score'], ['neg']));
    nodes.push(node('Concat', ['neg', 'score'], ['logits'], [intAttr('axis', 1)]));
  }

  const model = {
    ir_version: 8,
    producer_name: 'scry-tiny-onnx',
    opset_import: [{ domain: '', version: 17 }],
    graph: {
      name: 'tiny_cross_encoder',
      node: nodes,
      initializer: [
        { name: 'W', data_type: FLOAT, dims: [weights.length], float_data: weights },
        { name: 'axes', data_type: INT64, dims: [1], int64_data: [1] },
      ],
      input: [idInput('input_ids'), idInput('attention_mask'), ...(options.tokenTypeIds ? [idInput('token_type_ids')] : [])],
      output: [valueInfo('logits', FLOAT, ['batch', columns])],
    },
  };
  const problem = ModelProto.verify(model);
  if (problem) throw new Error(`tiny-onnx: ${problem}`);
  return ModelProto.encode(ModelProto.fromObject(model)).finish();
}

/** A BERT-style tokenizer.json over {@link TINY_VOCAB}: lowercasing, WordPiece, [CLS] A [SEP] B [SEP]. */
export function tinyTokenizerJson(): object {
  const id = (w: TinyWord) => TINY_VOCAB.indexOf(w);
  const special = (w: TinyWord) => ({ id: id(w), content: w, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true });
  const tok = (w: TinyWord, typeId: number) => ({ SpecialToken: { id: w, type_id: typeId } });
  const seq = (s: 'A' | 'B', typeId: number) => ({ Sequence: { id: s, type_id: typeId } });
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: (['[PAD]', '[UNK]', '[CLS]', '[SEP]'] as const).map(special),
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [tok('[CLS]', 0), seq('A', 0), tok('[SEP]', 0)],
      pair: [tok('[CLS]', 0), seq('A', 0), tok('[SEP]', 0), seq('B', 1), tok('[SEP]', 1)],
      special_tokens: {
        '[CLS]': { id: '[CLS]', ids: [id('[CLS]')], tokens: ['[CLS]'] },
        '[SEP]': { id: '[SEP]', ids: [id('[SEP]')], tokens: ['[SEP]'] },
      },
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: {
      type: 'WordPiece',
      unk_token: '[UNK]',
      continuing_subword_prefix: '##',
      max_input_chars_per_word: 100,
      vocab: Object.fromEntries(TINY_VOCAB.map((w, i) => [w, i])),
    },
  };
}

/** Writes a model directory (model + tokenizer) under `dir` and returns `dir`. */
export function writeTinyCrossEncoder(dir: string, options: TinyModelOptions = {}): string {
  const modelPath = join(dir, options.inOnnxSubdir ? join('onnx', 'model.onnx') : 'model.onnx');
  mkdirSync(dirname(modelPath), { recursive: true });
  writeFileSync(modelPath, tinyScorerModel(options));
  writeFileSync(join(dir, 'tokenizer.json'), JSON.stringify(tinyTokenizerJson()));
  if (options.modelMaxLength !== undefined) {
    writeFileSync(join(dir, 'tokenizer_config.json'), JSON.stringify({ model_max_length: options.modelMaxLength, do_lower_case: true }));
  }
  return dir;
}

function node(op_type: string, input: string[], output: string[], attribute: object[] = []): object {
  return { op_type, input, output, attribute, name: `${op_type}_${output[0]}` };
}

function intAttr(name: string, i: number): object {
  return { name, type: ATTR_INT, i };
}

function valueInfo(name: string, elemType: number, dims: (string | number)[]): object {
  const dim = dims.map((d) => (typeof d === 'string' ? { dim_param: d } : { dim_value: d }));
  return { name, type: { tensor_type: { elem_type: elemType, shape: { dim } } } };
}

/**
 * A tiny but real embedding model for the ONNX embedder: each token id looks up one row of
 * {@link TINY_EMBEDDINGS} (a transformer that does nothing but its embedding layer), so
 *   last_hidden_state[b, s, :] = TINY_EMBEDDINGS[input_ids[b, s]] (+ TINY_TYPE_EMBEDDINGS[token_type_ids[b, s]])
 * and a test can pool and normalise by hand. The attention mask is an input the graph reads (as
 * ×0, so it changes nothing) like a real model's, and padding is NOT zeroed in the output: [PAD]'s
 * row is huge, so a pooling that does not respect the mask shows in every vector.
 */
export const TINY_EMBEDDINGS: Readonly<Record<TinyWord, readonly [number, number, number]>> = {
  '[PAD]': [100, -100, 100],
  '[UNK]': [0, 0, -1],
  '[CLS]': [1, 0, 0],
  '[SEP]': [0, 1, 0],
  zebra: [0, 0, 3],
  giraffe: [3, 0, 0],
  parse: [0, 2, 0],
  config: [1, 1, 1],
  file: [0, 0, 1],
  the: [1, 0, 1],
  filler: [0, 1, 1],
  boom: [2, 2, 0],
};

/** Added per segment when the model declares `token_type_ids`: segment 0 adds nothing, segment 1 a lot. */
export const TINY_TYPE_EMBEDDINGS = [
  [0, 0, 0],
  [50, 50, 50],
] as const;

export interface TinyEmbedderOptions {
  /** Element type of the id inputs. Default int64. */
  readonly idType?: 'int64' | 'int32';
  /** Declare (and use) a `token_type_ids` input. Default false. */
  readonly tokenTypeIds?: boolean;
  /**
   * `last_hidden_state` (default) or `token_embeddings`: [batch, seq, 3];
   * `sentence_embedding`: [batch, 3], the sum over the tokens the mask keeps (a pooled export).
   */
  readonly output?: 'last_hidden_state' | 'token_embeddings' | 'sentence_embedding';
  /** Put a `pooler_output` [batch, 3] (all ones) before `last_hidden_state` in the outputs. Default false. */
  readonly poolerFirst?: boolean;
  /** An extra input the embedder cannot feed. Default none. */
  readonly extraInput?: string;
  /** Write to `onnx/model.onnx` instead of `model.onnx`. Default false. */
  readonly inOnnxSubdir?: boolean;
  /** `model_max_length` written to tokenizer_config.json; omitted when undefined. */
  readonly modelMaxLength?: number;
}

/** Encodes the tiny embedder as ONNX ModelProto bytes. */
export function tinyEmbedderModel(options: TinyEmbedderOptions = {}): Uint8Array {
  const root = protobuf.parse(ONNX_PROTO, { keepCase: true }).root;
  const ModelProto = root.lookupType('onnx.ModelProto');
  const idType = options.idType === 'int32' ? INT32 : INT64;
  const idInput = (name: string) => valueInfo(name, idType, ['batch', 'seq']);
  const output = options.output ?? 'last_hidden_state';
  const table = TINY_VOCAB.flatMap((w) => [...TINY_EMBEDDINGS[w]]);

  const nodes = [
    node('Gather', ['E', 'input_ids'], ['tokens'], [intAttr('axis', 0)]),
    node('Cast', ['attention_mask'], ['mask'], [intAttr('to', FLOAT)]),
    node('Unsqueeze', ['mask', 'last_axis'], ['mask3']),
  ];
  let hidden = 'tokens';
  if (options.tokenTypeIds) {
    nodes.push(node('Gather', ['T', 'token_type_ids'], ['types'], [intAttr('axis', 0)]));
    nodes.push(node('Add', ['tokens', 'types'], ['typed']));
    hidden = 'typed';
  }
  if (output === 'sentence_embedding') {
    nodes.push(node('Mul', [hidden, 'mask3'], ['kept']));
    nodes.push(node('ReduceSum', ['kept', 'seq_axis'], [output], [intAttr('keepdims', 0)]));
  } else {
    // hidden + 0·mask: the mask is read, as a real model reads it, without changing a value.
    nodes.push(node('Mul', ['mask3', 'zero'], ['nothing']));
    nodes.push(node('Add', [hidden, 'nothing'], [output]));
  }
  const outputs = [valueInfo(output, FLOAT, output === 'sentence_embedding' ? ['batch', 3] : ['batch', 'seq', 3])];
  if (options.poolerFirst) {
    nodes.push(node('ReduceSum', ['mask3', 'seq_axis'], ['mask_sum'], [intAttr('keepdims', 0)]));
    nodes.push(node('Mul', ['mask_sum', 'zero'], ['zeros']));
    nodes.push(node('Add', ['zeros', 'ones'], ['pooler_output']));
    outputs.unshift(valueInfo('pooler_output', FLOAT, ['batch', 3]));
  }
  const inputs = [idInput('input_ids'), idInput('attention_mask'), ...(options.tokenTypeIds ? [idInput('token_type_ids')] : [])];
  if (options.extraInput !== undefined) inputs.push(idInput(options.extraInput));

  const model = {
    ir_version: 8,
    producer_name: 'scry-tiny-onnx',
    opset_import: [{ domain: '', version: 17 }],
    graph: {
      name: 'tiny_embedder',
      node: nodes,
      initializer: [
        { name: 'E', data_type: FLOAT, dims: [TINY_VOCAB.length, 3], float_data: table },
        { name: 'T', data_type: FLOAT, dims: [2, 3], float_data: TINY_TYPE_EMBEDDINGS.flat() },
        { name: 'zero', data_type: FLOAT, dims: [], float_data: [0] },
        { name: 'ones', data_type: FLOAT, dims: [3], float_data: [1, 1, 1] },
        { name: 'last_axis', data_type: INT64, dims: [1], int64_data: [2] },
        { name: 'seq_axis', data_type: INT64, dims: [1], int64_data: [1] },
      ],
      input: inputs,
      output: outputs,
    },
  };
  const problem = ModelProto.verify(model);
  if (problem) throw new Error(`tiny-onnx: ${problem}`);
  return ModelProto.encode(ModelProto.fromObject(model)).finish();
}

/** Writes an embedding model directory (model + {@link tinyTokenizerJson}) under `dir` and returns `dir`. */
export function writeTinyEmbedder(dir: string, options: TinyEmbedderOptions = {}): string {
  const modelPath = join(dir, options.inOnnxSubdir ? join('onnx', 'model.onnx') : 'model.onnx');
  mkdirSync(dirname(modelPath), { recursive: true });
  writeFileSync(modelPath, tinyEmbedderModel(options));
  writeFileSync(join(dir, 'tokenizer.json'), JSON.stringify(tinyTokenizerJson()));
  if (options.modelMaxLength !== undefined) {
    writeFileSync(join(dir, 'tokenizer_config.json'), JSON.stringify({ model_max_length: options.modelMaxLength, do_lower_case: true }));
  }
  return dir;
}
