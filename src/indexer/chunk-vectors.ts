/**
 * Vectors of the built-in model computed where chunks are prepared (issue 19): on the worker
 * threads of a large pass, beside parsing, instead of in a post-pass on the writer's thread that
 * re-reads every chunk's text from the database. Same model, same input text (`embeddingText`),
 * same encoding: the vectors are byte-identical to the embedding pass's. The writer stores them
 * with the chunks; the embedding pass after the lexical pass then finds nothing pending but what
 * it could not get this way (copied rows, a model that failed to load here), and embeds that.
 */
import { loadBuiltinModel } from '../embed/builtin/model.js';
import { fingerprintKey } from '../embed/provider.js';
import { encodeVector } from '../embed/quantize.js';
import { embeddingText } from './embed-pass.js';

/** What embedding chunks while preparing them needs; plain data (sent to worker threads). */
export interface PrepareEmbedConfig {
  /** A chunk's text is cut to this many characters (config `embed.maxChars`). */
  readonly maxChars: number;
  readonly storage: 'int8' | 'float32';
}

/** The chunk fields that go into the embedded text besides the text itself. */
export interface EmbedHead {
  readonly path: string;
  readonly symbol: string | null;
  readonly container: string | null;
}

/** Embeds chunks with the built-in model; one per thread (the model's token cache is its own). */
export interface ChunkEmbedder {
  /** The model key vectors are stored under (`fingerprintKey`). */
  readonly model: string;
  /** Bytes of one encoded vector: every vector of a model and storage has this length. */
  readonly stride: number;
  /** The encoded vector of a chunk, as the embedding pass would store it. */
  vectorOf(head: EmbedHead, text: string): Uint8Array;
}

/**
 * The built-in model, loaded for this thread; undefined if it cannot be loaded (missing or
 * changed files): the embedding pass then meets the same error and reports it.
 */
export async function loadChunkEmbedder(config: PrepareEmbedConfig, modelDir?: string): Promise<ChunkEmbedder | undefined> {
  let model;
  try {
    model = await loadBuiltinModel(modelDir);
  } catch {
    return undefined;
  }
  const m = model;
  const key = fingerprintKey({ provider: 'builtin', model: m.name, dimensions: m.dimensions, version: m.version });
  const vectorOf = (head: EmbedHead, text: string): Uint8Array => encodeVector(m.embed(embeddingText(head, text, config.maxChars), 'document'), config.storage);
  const stride = vectorOf({ path: '', symbol: null, container: null }, '').byteLength;
  return { model: key, stride, vectorOf };
}

/** Chunk texts remembered as embedded, per thread; past this the memory is cleared (a text is then embedded again). */
const SEEN_LIMIT = 500_000;

/**
 * The vectors of a file's chunks, packed into one buffer (chunk i at `i * stride`), so that a
 * worker hands them over as one transferable buffer. A chunk whose text was embedded earlier on
 * this thread (`seen`) is not embedded again: its slot is left zeroed, and its first byte (the blob
 * version, never 0) marks it absent.
 */
export function packVectors(embedder: ChunkEmbedder, chunks: ReadonlyArray<{ readonly text: string; readonly hash: string; readonly head: EmbedHead }>, seen: Set<number>): Uint8Array {
  const out = new Uint8Array(chunks.length * embedder.stride);
  if (seen.size > SEEN_LIMIT) seen.clear();
  chunks.forEach((c, i) => {
    // 52 bits of the hex hash: a number costs a set far less than the string; two texts that share
    // them (unlikely) leave the second pending, for the embedding pass
    const key = parseInt(c.hash.slice(0, 13), 16);
    if (seen.has(key)) return;
    seen.add(key);
    out.set(embedder.vectorOf(c.head, c.text), i * embedder.stride);
  });
  return out;
}

/** Chunk i's vector from a packed buffer, or undefined when its slot was skipped. */
export function packedVector(packed: Uint8Array, stride: number, i: number): Uint8Array | undefined {
  const v = packed.subarray(i * stride, (i + 1) * stride);
  return v.length === stride && v[0] !== 0 ? v : undefined;
}
