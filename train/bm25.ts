/**
 * BM25 over the builtin model's own tokens (issue 17), for training and evaluation only: the
 * lexical baseline the model is measured against, the hard negatives it is trained on (the units of
 * a package BM25 ranks above a description's own), and the fixed lexical prior of residual training
 * (the model learns what BM25 gets wrong, so that a blend of the two beats either).
 */
import { tokenCounts } from '../src/embed/builtin/tokenize.js';

const K1 = 1.2;
const B = 0.75;

/** Corpus statistics: document frequencies, count and mean length of the code side. */
export interface Bm25Stats {
  readonly df: ReadonlyMap<string, number>;
  readonly n: number;
  readonly avgLen: number;
}

export function bm25Stats(docs: readonly ReadonlyMap<string, number>[]): Bm25Stats {
  const df = new Map<string, number>();
  let total = 0;
  for (const d of docs) {
    for (const [t, c] of d) {
      df.set(t, (df.get(t) ?? 0) + 1);
      total += c;
    }
  }
  return { df, n: docs.length, avgLen: docs.length === 0 ? 1 : total / docs.length };
}

export const idf = (s: Bm25Stats, t: string): number => {
  const d = s.df.get(t) ?? 0;
  return Math.log(1 + (s.n - d + 0.5) / (d + 0.5));
};

/** An inverted index of a set of documents: token → (doc position, saturated term weight). */
export interface Bm25Index {
  readonly postings: ReadonlyMap<string, { doc: Int32Array; w: Float32Array }>;
  readonly size: number;
}

export function bm25Index(docs: readonly ReadonlyMap<string, number>[], s: Bm25Stats): Bm25Index {
  const lists = new Map<string, { doc: number[]; w: number[] }>();
  docs.forEach((d, i) => {
    let len = 0;
    for (const c of d.values()) len += c;
    const norm = K1 * (1 - B + (B * len) / s.avgLen);
    for (const [t, tf] of d) {
      let l = lists.get(t);
      if (!l) lists.set(t, (l = { doc: [], w: [] }));
      l.doc.push(i);
      l.w.push((tf * (K1 + 1)) / (tf + norm));
    }
  });
  const postings = new Map<string, { doc: Int32Array; w: Float32Array }>();
  for (const [t, l] of lists) postings.set(t, { doc: Int32Array.from(l.doc), w: Float32Array.from(l.w) });
  return { postings, size: docs.length };
}

/** The BM25 score of one query against every document of `ix` (query terms counted once). */
export function bm25Query(ix: Bm25Index, s: Bm25Stats, query: ReadonlyMap<string, number>, out = new Float32Array(ix.size)): Float32Array {
  out.fill(0);
  for (const t of query.keys()) {
    const p = ix.postings.get(t);
    if (!p) continue;
    const w = idf(s, t);
    for (let k = 0; k < p.doc.length; k++) out[p.doc[k]!]! += w * p.w[k]!;
  }
  return out;
}

/** Token counts of many texts (one tokenizer with the model). */
export const countsOf = (texts: readonly string[]): Map<string, number>[] => texts.map((t) => tokenCounts(t));

/** `x` standardised in place (mean 0, standard deviation 1; all zero when constant). */
export function zNormalise(x: Float32Array, from = 0, to = x.length): void {
  const n = to - from;
  if (n <= 0) return;
  let mean = 0;
  for (let i = from; i < to; i++) mean += x[i]!;
  mean /= n;
  let v = 0;
  for (let i = from; i < to; i++) v += (x[i]! - mean) ** 2;
  const sd = Math.sqrt(v / n);
  for (let i = from; i < to; i++) x[i] = sd > 1e-9 ? (x[i]! - mean) / sd : 0;
}
