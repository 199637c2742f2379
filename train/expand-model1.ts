/**
 * IBM model 1 (code token given description word, with a NULL word) for the expansion table:
 * EM over the training pairs; a token explained by another word of the description, or by NULL
 * (tokens every unit has), gets less of a word's mass than plain co-occurrence gives it.
 */
export interface Model1Input {
  /** Per pair: description word ids and code token ids. */
  readonly qs: readonly Int32Array[];
  readonly ts: readonly Int32Array[];
  readonly weights: Float32Array;
  readonly words: number;
  readonly tokens: number;
}

/** t(c | q) as a words × tokens matrix (the NULL word is row `words`, dropped from the result's use). */
export function model1(input: Model1Input, iterations: number): Float32Array {
  const W = input.words + 1;
  const T = input.tokens;
  let t = new Float32Array(W * T).fill(1 / T);
  for (let it = 0; it < iterations; it++) {
    const counts = new Float32Array(W * T);
    for (let i = 0; i < input.qs.length; i++) {
      const q = input.qs[i]!;
      const w = input.weights[i]!;
      for (const c of input.ts[i]!) {
        let z = t[input.words * T + c]!;
        for (const qi of q) z += t[qi * T + c]!;
        if (z <= 0) continue;
        counts[input.words * T + c]! += (w * t[input.words * T + c]!) / z;
        for (const qi of q) counts[qi * T + c]! += (w * t[qi * T + c]!) / z;
      }
    }
    for (let r = 0; r < W; r++) {
      let s = 0;
      for (let c = 0; c < T; c++) s += counts[r * T + c]!;
      if (s > 0) for (let c = 0; c < T; c++) counts[r * T + c]! /= s;
    }
    t = counts;
  }
  return t;
}
