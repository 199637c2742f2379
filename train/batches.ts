/**
 * Training batches of the builtin model (issue 17) built for complementarity with BM25:
 * - hard neighbours: for each training description, the units of its own package that BM25 ranks
 *   highest and that are not its own; a batch is made of groups of such neighbours, so every
 *   description meets as in-batch negatives the units lexical matching confuses it with;
 * - the BM25 prior: per batch, each description's BM25 scores against the batch's units,
 *   z-normalised per description, added to the logits (train/nbow.ts `prior`), so the model's
 *   gradient is what BM25 gets wrong.
 */
import type { Bm25Stats } from './bm25.js';
import { bm25Index, bm25Query, idf, zNormalise } from './bm25.js';

/** For each pair (by position), the positions of the top-`k` other units of its package by BM25 of its description. */
export function hardNeighbours(byPkg: ReadonlyMap<string, readonly number[]>, queries: readonly ReadonlyMap<string, number>[], codes: readonly ReadonlyMap<string, number>[], stats: Bm25Stats, k: number): Int32Array[] {
  const out: Int32Array[] = new Array<Int32Array>(queries.length);
  for (const ids of byPkg.values()) {
    const ix = bm25Index(ids.map((i) => codes[i]!), stats);
    const scores = new Float32Array(ids.length);
    ids.forEach((qi, local) => {
      bm25Query(ix, stats, queries[qi]!, scores);
      const top = Array.from({ length: ids.length }, (_, j) => j).filter((j) => j !== local && scores[j]! > 0);
      top.sort((a, b) => scores[b]! - scores[a]! || a - b);
      out[qi] = Int32Array.from(top.slice(0, k), (j) => ids[j]!);
    });
  }
  return out;
}

const shuffle = <T>(a: T[], rand: () => number): T[] => {
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
  return a;
};

/**
 * Batches of `batch` pairs made of groups of `group` pairs of one package: a seed and its unused
 * hard neighbours (when given), filled up with other pairs of the package. Shuffled by `rand`.
 */
export function makeBatches(byPkg: ReadonlyMap<string, readonly number[]>, batch: number, group: number, rand: () => number, neighbours?: readonly Int32Array[]): number[][] {
  const groups: number[][] = [];
  const used = new Set<number>();
  for (const ids of byPkg.values()) {
    const s = shuffle([...ids], rand);
    let fill = 0;
    for (const seed of s) {
      if (used.has(seed)) continue;
      const g = [seed];
      used.add(seed);
      for (const nb of neighbours?.[seed] ?? []) {
        if (g.length >= group) break;
        if (!used.has(nb)) {
          g.push(nb);
          used.add(nb);
        }
      }
      while (g.length < group && fill < s.length) {
        const c = s[fill++]!;
        if (!used.has(c)) {
          g.push(c);
          used.add(c);
        }
      }
      groups.push(g);
    }
  }
  const flat = shuffle(groups, rand).flat();
  const out: number[][] = [];
  for (let i = 0; i + batch <= flat.length; i += batch) out.push(flat.slice(i, i + batch));
  return out;
}

/** Per code unit: token → saturated BM25 term weight (k1 1.2, b 0.75). */
export function codeTermWeights(codes: readonly ReadonlyMap<string, number>[], stats: Bm25Stats): Map<string, number>[] {
  return codes.map((d) => {
    let len = 0;
    for (const c of d.values()) len += c;
    const norm = 1.2 * (1 - 0.75 + (0.75 * len) / stats.avgLen);
    const w = new Map<string, number>();
    for (const [t, tf] of d) w.set(t, (tf * 2.2) / (tf + norm));
    return w;
  });
}

/** The BM25 prior of a batch: b × b, row i = z-normalised BM25 of description i against the batch's units, × `weight`. */
export function bm25Prior(batch: readonly number[], queries: readonly ReadonlyMap<string, number>[], termWeights: readonly ReadonlyMap<string, number>[], stats: Bm25Stats, weight: number): Float32Array {
  const b = batch.length;
  const postings = new Map<string, { k: number; w: number }[]>();
  batch.forEach((ci, k) => {
    for (const [t, w] of termWeights[ci]!) {
      let l = postings.get(t);
      if (!l) postings.set(t, (l = []));
      l.push({ k, w });
    }
  });
  const out = new Float32Array(b * b);
  batch.forEach((qi, i) => {
    for (const t of queries[qi]!.keys()) {
      const l = postings.get(t);
      if (!l) continue;
      const w = idf(stats, t);
      for (const p of l) out[i * b + p.k]! += w * p.w;
    }
    zNormalise(out, i * b, (i + 1) * b);
    for (let k = 0; k < b; k++) out[i * b + k]! *= weight;
  });
  return out;
}
