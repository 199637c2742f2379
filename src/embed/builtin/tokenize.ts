/**
 * The tokens of the builtin embedding model (issue 17), one implementation imported by training
 * (train/) and by inference (./model.ts), so the two cannot drift. Built on scry's code-aware
 * splitting (src/core/code-tokens.ts): every identifier gives its lowercase parts (`getUserName` →
 * `get user name`) and, when it is compound, the whole identifier (`getusername`), so a query in
 * words meets code in identifiers and an exact identifier still counts. Words are folded by a light
 * suffix rule (`retries`/`retrying`/`retried` → `retry`). Pure functions, no state.
 *
 * Changing anything here changes the model's input: bump TOKENIZER_VERSION and retrain.
 */
import { IDENTIFIER_RE, splitIdentifier } from '../../core/code-tokens.js';

/**
 * Recorded in the model manifest; a model trained with another version is refused. Version 2 adds
 * character trigrams for out-of-vocabulary identifier parts (`subwords`); version 1 (models up to
 * v3) maps each unseen token to one hash bucket, and is still read.
 */
export const TOKENIZER_VERSION = 'scry-code-tokens-2';
export const TOKENIZER_VERSIONS: readonly string[] = ['scry-code-tokens-1', TOKENIZER_VERSION];

/** Whether a tokenizer version gives out-of-vocabulary parts their character trigrams. */
export const usesSubwords = (version: string): boolean => version !== 'scry-code-tokens-1';

/** Longer texts are cut to this many characters before tokenising (a chunk's head says most). */
export const MAX_TOKENIZE_CHARS = 8000;

/** Shortest part kept (single letters say nothing) and longest (minified or encoded blobs). */
const MIN_PART = 2;
const MAX_PART = 24;

/**
 * A light English/code suffix fold, the same on both sides: plural and verb endings removed when a
 * stem of at least 3 letters is left. Not a real stemmer: only consistency matters.
 */
export function foldWord(w: string): string {
  const n = w.length;
  if (n <= 4) return w;
  if (w.endsWith('ies')) return `${w.slice(0, -3)}y`;
  if (w.endsWith('ied')) return `${w.slice(0, -3)}y`;
  if (w.endsWith('ing') && n >= 6) return undouble(w.slice(0, -3));
  if (w.endsWith('ed') && n >= 5) return undouble(w.slice(0, -2));
  if (w.endsWith('sses') || w.endsWith('xes') || w.endsWith('ches') || w.endsWith('shes')) return w.slice(0, -2);
  if (w.endsWith('s') && !w.endsWith('ss') && !w.endsWith('us') && !w.endsWith('is')) return w.slice(0, -1);
  return w;
}

/** `stopp` → `stop`, `mapp` → `map` (after `-ing`/`-ed` was cut). */
function undouble(stem: string): string {
  const n = stem.length;
  if (n >= 4 && stem[n - 1] === stem[n - 2] && !'lsz'.includes(stem[n - 1]!)) return stem.slice(0, -1);
  return stem;
}

/**
 * The tokens one identifier gives: its parts (folded) and, when compound, the whole identifier
 * (its folded parts `_`-joined, so `get_user_name` and `getUserName` meet).
 */
export function identifierTokens(id: string): readonly string[] {
  const folded: string[] = [];
  for (const p of splitIdentifier(id)) if (p.length >= MIN_PART && p.length <= MAX_PART && !/^[0-9]+$/.test(p)) folded.push(foldWord(p));
  if (folded.length > 1 && folded.length <= 6) folded.push(folded.join('_'));
  return folded;
}

/** The token counts of a text, in order of first appearance; counts are raw occurrences. */
export function tokenCounts(text: string): Map<string, number> {
  const src = text.length > MAX_TOKENIZE_CHARS ? text.slice(0, MAX_TOKENIZE_CHARS) : text;
  const counts = new Map<string, number>();
  for (const m of src.matchAll(IDENTIFIER_RE)) for (const t of identifierTokens(m[0])) counts.set(t, (counts.get(t) ?? 0) + 1);
  return counts;
}

/** A text as model input: row ids (vocabulary rows, then hash buckets for unseen tokens) and their sub-linear counts. */
export interface Features {
  readonly ids: Int32Array;
  /** `1 + ln(count)` per id (a count under 1, from sub-word rows alone, is kept as is). */
  readonly tf: Float32Array;
}

/** FNV-1a over UTF-16 code units: the hash bucket of a token the vocabulary lacks. */
export function tokenHash(token: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < token.length; i++) {
    h ^= token.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** The rows (and their share of one occurrence) one identifier maps to. */
export interface IdentifierRows {
  readonly rows: Int32Array;
  readonly weights: Float32Array;
}

/** What featurize asks of a vocabulary: a Map of token → row, or anything that answers like one. */
export type Vocabulary = Pick<ReadonlyMap<string, number>, 'get' | 'size'>;

/** Identifier → its rows, owned by one loaded model (identifiers repeat: each maps once). */
export type RowCache = Map<string, IdentifierRows>;

/**
 * The character trigrams of `<part>` (so `pagination` and `paginate` share most of theirs): an
 * unseen word still meets the words it is made of. Each trigram is hashed with a `#` prefix.
 */
export function subwordGrams(part: string): string[] {
  const s = `<${part}>`;
  const out: string[] = [];
  for (let i = 0; i + 3 <= s.length; i++) out.push(`#${s.slice(i, i + 3)}`);
  return out;
}

/**
 * Reusable per-row work space of `featurize`, one per loaded model (sized vocabulary + hash
 * buckets; all zero between calls): a text's counts add up in a typed array instead of a Map.
 */
export interface FeatureScratch {
  readonly counts: Float64Array;
  readonly order: Int32Array;
}

export function featureScratch(rows: number): FeatureScratch {
  return { counts: new Float64Array(rows), order: new Int32Array(rows) };
}

/** How the unseen tokens of a text map to hash buckets. */
export interface FeaturizeOptions {
  /** Also the character trigrams of each unseen single part, sharing one occurrence between them (tokenizer version 2). */
  readonly subwords?: boolean;
  readonly cache?: RowCache | undefined;
  /** Work space for `vocab.size + hashBuckets` rows; without it each call allocates its own. */
  readonly scratch?: FeatureScratch | undefined;
}

function identifierRows(id: string, vocab: Vocabulary, hashBuckets: number, subwords: boolean): IdentifierRows {
  const rows: number[] = [];
  const weights: number[] = [];
  const bucket = (t: string): number => vocab.size + (tokenHash(t) % hashBuckets);
  for (const token of identifierTokens(id)) {
    const row = vocab.get(token);
    if (row !== undefined) {
      rows.push(row);
      weights.push(1);
      continue;
    }
    if (hashBuckets <= 0) continue;
    rows.push(bucket(token));
    weights.push(1);
    if (!subwords || token.includes('_')) continue;
    const grams = subwordGrams(token);
    for (const g of grams) {
      rows.push(bucket(g));
      weights.push(1 / grams.length);
    }
  }
  return { rows: Int32Array.from(rows), weights: Float32Array.from(weights) };
}

/**
 * The features of a text: tokens in the vocabulary map to their row, others to one of
 * `hashBuckets` rows after the vocabulary (so the same unseen identifier on both sides still meets)
 * and, with `subwords`, to the buckets of their character trigrams too. Rows shared by several
 * tokens add their counts. Same result with or without a cache.
 */
export function featurize(text: string, vocab: Vocabulary, hashBuckets: number, options: FeaturizeOptions = {}): Features {
  const src = text.length > MAX_TOKENIZE_CHARS ? text.slice(0, MAX_TOKENIZE_CHARS) : text;
  const { cache, subwords = false } = options;
  // counts by row in a typed array (weights are > 0, so 0 means not seen yet), rows in order of first appearance
  const { counts, order } = options.scratch ?? featureScratch(vocab.size + Math.max(0, hashBuckets));
  let n = 0;
  for (const m of src.matchAll(IDENTIFIER_RE)) {
    let r = cache?.get(m[0]);
    if (r === undefined) {
      r = identifierRows(m[0], vocab, hashBuckets, subwords);
      cache?.set(m[0], r);
    }
    for (let i = 0; i < r.rows.length; i++) {
      const row = r.rows[i]!;
      if (counts[row] === 0) order[n++] = row;
      counts[row]! += r.weights[i]!;
    }
  }
  const ids = new Int32Array(n);
  const tf = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    const row = order[i]!;
    const count = counts[row]!;
    ids[i] = row;
    tf[i] = count < 1 ? count : 1 + Math.log(count);
    counts[row] = 0;
  }
  return { ids, tf };
}
