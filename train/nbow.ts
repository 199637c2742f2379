/**
 * The trainable model (issue 17): a neural bag of words with one token table shared by queries and
 * code and a learned weight per token and side. A text's vector is the normalised sum of its
 * tokens' rows, each scaled by exp(side weight) · (1 + ln count). Trained with in-batch softmax
 * (both directions) by Adagrad, sparse: only the rows a batch touches move. Float32 throughout.
 */
import type { Features } from '../src/embed/builtin/tokenize.js';
import { prng as rng } from '../bench/stats.js';

export interface NbowParams {
  readonly rows: number;
  readonly dims: number;
  readonly table: Float32Array;
  /** Log weights per row, query side and code side. */
  readonly logWq: Float32Array;
  readonly logWc: Float32Array;
}

/** The seeded PRNG the benches use (mulberry32). */
export { rng };

export function initParams(rows: number, dims: number, idf: Float32Array, seed: number): NbowParams {
  const rand = rng(seed);
  const table = new Float32Array(rows * dims);
  for (let i = 0; i < table.length; i++) {
    // Box-Muller
    const u = Math.max(rand(), 1e-12);
    table[i] = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rand()) * 0.1;
  }
  const logWq = new Float32Array(rows);
  const logWc = new Float32Array(rows);
  for (let r = 0; r < rows; r++) logWq[r] = logWc[r] = Math.log(Math.max(0.2, idf[r] ?? 1));
  return { rows, dims, table, logWq, logWc };
}

/** The unit vector of `f` (side `q` or `c`) into `out`; returns the pre-normalisation norm. */
export function encode(p: NbowParams, f: Features, side: 'q' | 'c', out: Float32Array): number {
  const { dims, table } = p;
  const lw = side === 'q' ? p.logWq : p.logWc;
  out.fill(0);
  for (let k = 0; k < f.ids.length; k++) {
    const r = f.ids[k]!;
    const a = Math.exp(lw[r]!) * f.tf[k]!;
    const base = r * dims;
    for (let j = 0; j < dims; j++) out[j]! += a * table[base + j]!;
  }
  let n = 0;
  for (let j = 0; j < dims; j++) n += out[j]! * out[j]!;
  n = Math.sqrt(n) || 1e-9;
  for (let j = 0; j < dims; j++) out[j]! /= n;
  return n;
}

export interface Trainer {
  /**
   * One batch of aligned (query, code) features; returns the mean loss. `prior` (b × b, row =
   * query) is a fixed score added to the logits (residual training on top of BM25): no gradient.
   */
  step(queries: readonly Features[], codes: readonly Features[], prior?: Float32Array): number;
}

export interface TrainerOptions {
  readonly lr: number;
  readonly lrWeights: number;
  /** Softmax scale on cosine similarities. */
  readonly scale: number;
}

export function createTrainer(p: NbowParams, o: TrainerOptions): Trainer {
  const { rows, dims, table } = p;
  const gTable = new Float32Array(rows * dims);
  const gWq = new Float32Array(rows);
  const gWc = new Float32Array(rows);
  const accTable = new Float32Array(rows * dims);
  const accWq = new Float32Array(rows);
  const accWc = new Float32Array(rows);
  const touched = new Uint8Array(rows);
  const touchedList: number[] = [];

  const backward = (f: Features, side: 'q' | 'c', u: Float32Array, norm: number, gu: Float32Array): void => {
    let dot = 0;
    for (let j = 0; j < dims; j++) dot += gu[j]! * u[j]!;
    const gv = new Float32Array(dims);
    for (let j = 0; j < dims; j++) gv[j] = (gu[j]! - dot * u[j]!) / norm;
    const lw = side === 'q' ? p.logWq : p.logWc;
    const gw = side === 'q' ? gWq : gWc;
    for (let k = 0; k < f.ids.length; k++) {
      const r = f.ids[k]!;
      const a = Math.exp(lw[r]!) * f.tf[k]!;
      const base = r * dims;
      let eDotG = 0;
      for (let j = 0; j < dims; j++) {
        gTable[base + j]! += a * gv[j]!;
        eDotG += table[base + j]! * gv[j]!;
      }
      gw[r]! += a * eDotG;
      if (!touched[r]) {
        touched[r] = 1;
        touchedList.push(r);
      }
    }
  };

  const update = (): void => {
    const eps = 1e-8;
    for (const r of touchedList) {
      const base = r * dims;
      for (let j = 0; j < dims; j++) {
        const g = gTable[base + j]!;
        accTable[base + j]! += g * g;
        table[base + j]! -= (o.lr * g) / (Math.sqrt(accTable[base + j]!) + eps);
        gTable[base + j] = 0;
      }
      for (const [w, g, acc] of [[p.logWq, gWq, accWq], [p.logWc, gWc, accWc]] as const) {
        const gr = g[r]!;
        acc[r]! += gr * gr;
        w[r]! -= (o.lrWeights * gr) / (Math.sqrt(acc[r]!) + eps);
        w[r] = Math.min(6, Math.max(-6, w[r]!));
        g[r] = 0;
      }
      touched[r] = 0;
    }
    touchedList.length = 0;
  };

  return {
    step(queries, codes, prior) {
      const b = queries.length;
      const uq = queries.map(() => new Float32Array(dims));
      const uc = codes.map(() => new Float32Array(dims));
      const nq = queries.map((f, i) => encode(p, f, 'q', uq[i]!));
      const nc = codes.map((f, i) => encode(p, f, 'c', uc[i]!));
      const sim = new Float32Array(b * b);
      for (let i = 0; i < b; i++) {
        for (let k = 0; k < b; k++) {
          let s = 0;
          const a = uq[i]!, c = uc[k]!;
          for (let j = 0; j < dims; j++) s += a[j]! * c[j]!;
          sim[i * b + k] = s * o.scale + (prior ? prior[i * b + k]! : 0);
        }
      }
      // dL/dsim for the symmetric loss: rows (query → codes) and columns (code → queries).
      const g = new Float32Array(b * b);
      let loss = 0;
      for (let i = 0; i < b; i++) loss += softmaxGrad(sim, g, b, i, 1, i * b);
      for (let k = 0; k < b; k++) loss += softmaxGrad(sim, g, b, k, b, k);
      const guq = uq.map(() => new Float32Array(dims));
      const guc = uc.map(() => new Float32Array(dims));
      for (let i = 0; i < b; i++) {
        for (let k = 0; k < b; k++) {
          const gik = (g[i * b + k]! * o.scale) / (2 * b);
          if (gik === 0) continue;
          const a = uq[i]!, c = uc[k]!, ga = guq[i]!, gc = guc[k]!;
          for (let j = 0; j < dims; j++) {
            ga[j]! += gik * c[j]!;
            gc[j]! += gik * a[j]!;
          }
        }
      }
      for (let i = 0; i < b; i++) backward(queries[i]!, 'q', uq[i]!, nq[i]!, guq[i]!);
      for (let k = 0; k < b; k++) backward(codes[k]!, 'c', uc[k]!, nc[k]!, guc[k]!);
      update();
      return loss / (2 * b);
    },
  };
}

/** Cross-entropy of one softmax row/column of `sim` (stride, start) against `target`; adds its gradient into `g`. */
function softmaxGrad(sim: Float32Array, g: Float32Array, b: number, target: number, stride: number, start: number): number {
  let max = -Infinity;
  for (let k = 0; k < b; k++) max = Math.max(max, sim[start + k * stride]!);
  let sum = 0;
  for (let k = 0; k < b; k++) sum += Math.exp(sim[start + k * stride]! - max);
  for (let k = 0; k < b; k++) {
    const at = start + k * stride;
    g[at]! += Math.exp(sim[at]! - max) / sum - (k === target ? 1 : 0);
  }
  return -(sim[start + target * stride]! - max - Math.log(sum));
}
