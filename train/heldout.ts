/**
 * Held-out measurement of the builtin model (issue 17), CodeSearchNet's protocol: every held-out
 * description ranks its own code unit among 1,000 candidates (itself and 999 others of the same
 * half), MRR@10. The held-out packages (1 in 16 by name hash, never trained on) are split by
 * package into a tuning half (epoch choice, the blend weight) and a test half (reported numbers).
 *
 * The blend is what the product can use: per query, z-normalised BM25 plus w × z-normalised cosine
 * over the candidates, w chosen on the tuning half.
 */
import { createHash } from 'node:crypto';
import type { PairRecord } from './harvest.js';
import { bm25Index, bm25Query, bm25Stats, countsOf, zNormalise } from './bm25.js';
import { rng } from './nbow.js';

export const CANDIDATES = 1000;
export const BLEND_WEIGHTS = [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.8, 1, 1.25, 1.5, 2, 3] as const;

const sha = (s: string): string => createHash('sha256').update(s).digest('hex');

/** 1 package in 16 is held out, by the hash of its name. */
export const isValidationPackage = (pkg: string): boolean => parseInt(sha(pkg).slice(0, 2), 16) % 16 === 0;

/** Which half of the held-out packages a package is in. */
export const heldOutHalf = (pkg: string): 'tune' | 'test' => (parseInt(sha(pkg).slice(2, 4), 16) % 2 === 0 ? 'tune' : 'test');

/** The text a code unit is embedded as, the same shape as the index's embeddingText: path and name, then the code. */
export function codeText(p: Pick<PairRecord, 'path' | 'symbol' | 'container' | 'code'>): string {
  return `${p.path} ${p.container ? `${p.container}.` : ''}${p.symbol}\n${p.code}`;
}

/** One half's pairs with their BM25 matrix (row = query, column = code, n × n) and candidate windows. */
export interface EvalSet {
  readonly pairs: readonly PairRecord[];
  readonly bm25: Float32Array;
  /** Candidate positions of query i: order[(at[i] + k) % n], k < CANDIDATES (includes i). */
  readonly order: Int32Array;
  readonly at: Int32Array;
}

export function evalSet(pairs: readonly PairRecord[], seed = 7): EvalSet {
  const n = pairs.length;
  const codes = countsOf(pairs.map(codeText));
  const stats = bm25Stats(codes);
  const ix = bm25Index(codes, stats);
  const bm25 = new Float32Array(n * n);
  const row = new Float32Array(n);
  pairs.forEach((p, i) => bm25.set(bm25Query(ix, stats, countsOf([p.description])[0]!, row), i * n));
  const order = Int32Array.from({ length: n }, (_, i) => i);
  const r = rng(seed);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  const at = new Int32Array(n);
  order.forEach((q, pos) => (at[q] = pos));
  return { pairs, bm25, order, at };
}

/** Dense scores of query vectors against code vectors (n × n). */
export function cosineMatrix(qv: readonly Float32Array[], cv: readonly Float32Array[]): Float32Array {
  const n = qv.length;
  const out = new Float32Array(n * n);
  for (let a = 0; a < n; a++) {
    const x = qv[a]!;
    for (let b = 0; b < n; b++) {
      const y = cv[b]!;
      let s = 0;
      for (let j = 0; j < x.length; j++) s += x[j]! * y[j]!;
      out[a * n + b] = s;
    }
  }
  return out;
}

/** Reciprocal rank (0 past 10) of each query under score = z(bm25)·wb + z(dense)·wd over its candidates. */
export function reciprocalRanks(set: EvalSet, dense: Float32Array | undefined, wb: number, wd: number): Float32Array {
  const n = set.pairs.length;
  const m = Math.min(CANDIDATES, n);
  const out = new Float32Array(n);
  const a = new Float32Array(m);
  const b = new Float32Array(m);
  for (let q = 0; q < n; q++) {
    let own = -1;
    for (let k = 0; k < m; k++) {
      const c = set.order[(set.at[q]! + k) % n]!;
      if (c === q) own = k;
      a[k] = set.bm25[q * n + c]!;
      b[k] = dense ? dense[q * n + c]! : 0;
    }
    zNormalise(a);
    zNormalise(b);
    const s = (k: number): number => wb * a[k]! + wd * b[k]!;
    const mine = s(own);
    let rank = 1;
    for (let k = 0; k < m && rank <= 10; k++) if (k !== own && s(k) > mine) rank++;
    out[q] = rank <= 10 ? 1 / rank : 0;
  }
  return out;
}

export const mean = (x: ArrayLike<number>): number => {
  let s = 0;
  for (let i = 0; i < x.length; i++) s += x[i]!;
  return x.length === 0 ? 0 : s / x.length;
};

/** The blend weight with the best MRR@10 on `set` (ties: the smaller weight). */
export function bestBlendWeight(set: EvalSet, dense: Float32Array): { w: number; mrr: number } {
  let best = { w: 0, mrr: -1 };
  for (const w of BLEND_WEIGHTS) {
    const mrr = mean(reciprocalRanks(set, dense, 1, w));
    if (mrr > best.mrr + 1e-9) best = { w, mrr };
  }
  return best;
}
