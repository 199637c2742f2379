import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Tokenizer } from '@huggingface/tokenizers';

/**
 * A (query, passage) pair encoder over a Hugging Face `tokenizer.json`, as a cross-encoder reads
 * its input: `[CLS] query [SEP] passage [SEP]` (or whatever the file's post-processor adds),
 * truncated to a token budget. Tokenization itself is `@huggingface/tokenizers`; this file adds
 * only what that library leaves out: pair truncation and the special-token budget.
 */

/** One encoded pair, at most `maxLength` tokens long. */
export interface PairEncoding {
  readonly ids: readonly number[];
  /** Segment of each token: 0 for the query and its specials, 1 for the passage (BERT-style). */
  readonly typeIds: readonly number[];
}

export interface PairTokenizer {
  /** The token budget in force: the configured one, lowered to the model's `model_max_length`. */
  readonly maxLength: number;
  /** Id used to pad a batch to one length (attention mask 0 there). */
  readonly padId: number;
  encodePair(query: string, passage: string): PairEncoding;
}

/**
 * Characters of input tokenized per token of budget. Text past `maxLength × this` would be cut
 * by truncation anyway, so it is not tokenized at all: this bounds the cost of a huge chunk.
 * Only a text averaging more than 32 characters per token (long runs of blanks) loses anything.
 */
const CHARS_PER_TOKEN_BOUND = 32;

interface TokenizerJsonExtras {
  readonly padding?: { readonly pad_id?: unknown } | null;
}

/** Loads `tokenizer.json` (and `tokenizer_config.json` when present) from `dir`. */
export async function loadPairTokenizer(dir: string, maxLength: number): Promise<PairTokenizer> {
  const tokenizerJson = JSON.parse(await readFile(join(dir, 'tokenizer.json'), 'utf8')) as Record<string, unknown>;
  const tokenizerConfig = await readOptionalJson(join(dir, 'tokenizer_config.json'));
  // Imported here, not at the top, so that a start-up without a cross-encoder never loads it.
  const { Tokenizer: TokenizerClass } = await import('@huggingface/tokenizers');
  const tokenizer = new TokenizerClass(tokenizerJson, tokenizerConfig);
  const budget = effectiveMaxLength(maxLength, tokenizerConfig['model_max_length']);
  const padId = findPadId(tokenizer, tokenizerJson as TokenizerJsonExtras);
  const unkId = tokenizer.model?.unk_token_id ?? padId;
  const specials = postProcess(tokenizer, [], []).tokens.length;
  if (specials >= budget) {
    throw new Error(`the tokenizer adds ${specials} special tokens, leaving no room in ${budget}`);
  }

  return {
    maxLength: budget,
    padId,
    encodePair(query, passage) {
      const cut = budget * CHARS_PER_TOKEN_BOUND;
      const a = tokenizer.tokenize(query.slice(0, cut));
      const b = tokenizer.tokenize(passage.slice(0, cut));
      const [keepA, keepB] = truncateLongestFirst(a.length, b.length, budget - specials);
      const { tokens, typeIds } = postProcess(tokenizer, a.slice(0, keepA), b.slice(0, keepB));
      return { ids: tokens.map((t) => tokenizer.token_to_id(t) ?? unkId), typeIds };
    },
  };
}

/**
 * Lengths to keep of two sequences so that they fit `budget`, the `longest_first` strategy of
 * Hugging Face tokenizers (what a cross-encoder was trained with): tokens come off the end of the
 * longer sequence one at a time, the second one on a tie. Computed in closed form.
 */
export function truncateLongestFirst(lengthA: number, lengthB: number, budget: number): [number, number] {
  if (lengthA + lengthB <= budget) return [lengthA, lengthB];
  const keepB = Math.min(lengthB, Math.max(budget - lengthA, Math.floor(budget / 2)));
  return [Math.min(lengthA, budget - keepB), keepB];
}

function postProcess(tokenizer: Tokenizer, a: string[], b: string[]): { tokens: string[]; typeIds: number[] } {
  const processor = tokenizer.post_processor;
  if (processor === null) return { tokens: [...a, ...b], typeIds: [...a.map(() => 0), ...b.map(() => 1)] };
  const out = processor.post_process(a, b, true);
  // Some processors (ByteLevel) hand the pair back unmerged; the library's own encode drops it then.
  const pair = out.tokens_pair ?? [];
  const tokens = [...out.tokens, ...pair];
  const typeIds = out.token_type_ids ?? [...out.tokens.map(() => 0), ...pair.map(() => 1)];
  return { tokens, typeIds: [...typeIds, ...new Array<number>(Math.max(0, tokens.length - typeIds.length)).fill(1)] };
}

function effectiveMaxLength(configured: number, modelMax: unknown): number {
  // Files without a real limit carry a huge sentinel (1e30); ignore anything that is not a sane length.
  if (typeof modelMax === 'number' && Number.isInteger(modelMax) && modelMax > 0 && modelMax < 1_000_000) {
    return Math.min(configured, modelMax);
  }
  return configured;
}

function findPadId(tokenizer: Tokenizer, json: TokenizerJsonExtras): number {
  const declared = json.padding?.pad_id;
  if (typeof declared === 'number') return declared;
  return tokenizer.token_to_id('[PAD]') ?? tokenizer.token_to_id('<pad>') ?? 0;
}

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
