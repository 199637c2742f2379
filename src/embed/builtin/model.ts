/**
 * Loads and runs the builtin embedding model (issue 17): the `scry-nbow` weights shipped in
 * `models/builtin/` of the package. A text's vector is the normalised sum of its tokens' rows, each
 * weighted by the token's learned weight for the side (query or code) and its sub-linear count.
 * Pure TypeScript, no native code; a chunk embeds in microseconds.
 *
 * Every file's sha256 is checked against manifest.json at load: a changed or truncated file is
 * refused with MODEL_INVALID, a missing one with MODEL_NOT_FOUND.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EngineError } from '../../core/errors.js';
import { MODEL_FORMAT, MODEL_FORMAT_VERSION } from './format.js';
import { lazyWeightRows, VocabLookup, type WeightRows } from './lazy-tables.js';
import type { Features, RowCache } from './tokenize.js';
import { featureScratch, featurize, TOKENIZER_VERSION, TOKENIZER_VERSIONS, usesSubwords } from './tokenize.js';

export const BUILTIN_MODEL_NAME = 'scry-code-nbow';

/** `models/builtin/` of the package: three levels up from src/embed/builtin/ and from dist/embed/builtin/. */
export function defaultBuiltinModelDir(): string {
  return fileURLToPath(new URL('../../../models/builtin/', import.meta.url));
}

export interface BuiltinManifest {
  readonly format: string;
  readonly formatVersion: number;
  readonly name: string;
  readonly dimensions: number;
  readonly vocabSize: number;
  readonly hashBuckets: number;
  readonly tokenizer: string;
  /** File name → sha256 (hex) of `weights.bin` and `vocab.txt`. */
  readonly files: Readonly<Record<string, string>>;
  readonly data?: string;
  readonly metrics?: unknown;
}

export interface BuiltinModel {
  readonly name: string;
  readonly dimensions: number;
  /** The weights' sha256: the fingerprint version. */
  readonly version: string;
  embed(text: string, purpose: 'query' | 'document'): Float32Array;
}

const WEIGHTS = 'weights.bin';
const TOKEN_CACHE_LIMIT = 100_000;
const VOCAB = 'vocab.txt';

const invalid = (reason: string): EngineError =>
  new EngineError('MODEL_INVALID', { model: BUILTIN_MODEL_NAME, reason }, { hint: 'reinstall scry: the model shipped in its package was changed' });

/** The manifest and the two files it lists, each checked against its sha256. */
function readVerified(dir: string): { manifest: BuiltinManifest; weightBytes: Buffer; vocabBytes: Buffer } {
  // Read synchronously: 1.9 MB in three reads, so that a process that only searches (the CLI)
  // needs no libuv thread pool for them.
  const read = (file: string): Buffer => {
    try {
      return readFileSync(join(dir, file));
    } catch (err) {
      throw new EngineError('MODEL_NOT_FOUND', { model: BUILTIN_MODEL_NAME, dir }, { cause: err, hint: 'reinstall scry: the model shipped in its package is missing' });
    }
  };
  let manifest: BuiltinManifest;
  try {
    manifest = JSON.parse(read('manifest.json').toString('utf8')) as BuiltinManifest;
  } catch (err) {
    if (err instanceof EngineError) throw err;
    throw invalid('manifest.json is not JSON');
  }
  if (typeof manifest !== 'object' || manifest === null || typeof manifest.files !== 'object' || manifest.files === null) throw invalid('manifest.json lists no files');
  if (manifest.format !== MODEL_FORMAT || manifest.formatVersion !== MODEL_FORMAT_VERSION) throw invalid(`format ${manifest.format} v${manifest.formatVersion}; expected ${MODEL_FORMAT} v${MODEL_FORMAT_VERSION}`);
  if (!TOKENIZER_VERSIONS.includes(manifest.tokenizer)) throw invalid(`tokenizer ${manifest.tokenizer}; this scry tokenises as ${TOKENIZER_VERSIONS.join(' or ')} (newest ${TOKENIZER_VERSION})`);
  const { dimensions, vocabSize, hashBuckets } = manifest;
  if (![dimensions, vocabSize, hashBuckets].every((n) => Number.isInteger(n) && n >= 0) || dimensions < 1) throw invalid('bad shapes in manifest.json');
  const weightBytes = read(WEIGHTS);
  const vocabBytes = read(VOCAB);
  for (const [file, bytes] of [[WEIGHTS, weightBytes], [VOCAB, vocabBytes]] as const) {
    const sha = createHash('sha256').update(bytes).digest('hex');
    if (sha !== manifest.files[file]) throw invalid(`${file}: sha256 ${sha} differs from the manifest's ${manifest.files[file] ?? '(none)'}`);
  }
  return { manifest, weightBytes, vocabBytes };
}

export async function loadBuiltinModel(dir: string = defaultBuiltinModelDir()): Promise<BuiltinModel> {
  const { manifest, weightBytes, vocabBytes } = readVerified(dir);
  const { dimensions: dims, vocabSize, hashBuckets } = manifest;
  const tokens = vocabBytes.toString('utf8').split('\n');
  if (tokens[tokens.length - 1] === '') tokens.pop();
  if (tokens.length !== vocabSize) throw invalid(`vocab.txt has ${tokens.length} tokens; the manifest says ${vocabSize}`);
  const vocab = new VocabLookup(tokens);
  const rows = vocabSize + hashBuckets;
  // rows decoded on first use (a query needs a handful), each exactly as a whole-table decode would
  const w = lazyWeightRows(weightBytes, rows, dims);
  if (!w) throw invalid(`${WEIGHTS} has ${weightBytes.byteLength} bytes; expected ${rows} rows × ${dims}`);
  // Identifiers repeat across chunks: each maps to its rows once while the cache lasts (cleared when full).
  const cache: RowCache = new Map();
  const scratch = featureScratch(rows);
  const subwords = usesSubwords(manifest.tokenizer);
  return {
    name: BUILTIN_MODEL_NAME,
    dimensions: dims,
    version: manifest.files[WEIGHTS]!.slice(0, 16),
    embed(text, purpose) {
      if (cache.size > TOKEN_CACHE_LIMIT) cache.clear();
      return pool(featurize(text, vocab, hashBuckets, { cache, subwords, scratch }), purpose === 'query' ? 'queryWeights' : 'codeWeights', w, dims);
    },
  };
}

/** The unit-length weighted sum of the rows of `f` (a zero vector when it has no tokens). */
function pool(f: Features, side: 'queryWeights' | 'codeWeights', w: WeightRows, dims: number): Float32Array {
  const out = new Float32Array(dims);
  const { table } = w;
  for (let k = 0; k < f.ids.length; k++) {
    const r = f.ids[k]!;
    w.ensure(r);
    const a = w[side][r]! * f.tf[k]!;
    const base = r * dims;
    for (let j = 0; j < dims; j++) out[j]! += a * table[base + j]!;
  }
  let n = 0;
  for (let j = 0; j < dims; j++) n += out[j]! * out[j]!;
  if (n > 0) {
    n = Math.sqrt(n);
    for (let j = 0; j < dims; j++) out[j]! /= n;
  }
  return out;
}
