/**
 * Personalised PageRank by power iteration over a weighted directed graph, for the repo map: a
 * file imported by important files is important. Pure and deterministic (edges are summed in the
 * order given; no randomness, no Map iteration order).
 */

/** One directed edge `from → to` (node indices) with a positive weight. */
export interface WeightedEdge {
  readonly from: number;
  readonly to: number;
  readonly weight: number;
}

export interface PageRankOptions {
  /** Probability of following an edge rather than teleporting. Range (0, 1); default 0.85. */
  readonly damping?: number;
  /** Iterations at most. Default 50. */
  readonly maxIterations?: number;
  /** Stop when the L1 change of the rank vector drops below this. Default 1e-6. */
  readonly tolerance?: number;
  /**
   * Teleport weights, one per node (normalised here); uniform when absent or all zero. Dangling
   * nodes (no outgoing weight) hand their rank out by the same vector.
   */
  readonly personalization?: ArrayLike<number>;
}

/** Ranks summing to 1 (for n > 0), one per node. */
export function pageRank(n: number, edges: readonly WeightedEdge[], options: PageRankOptions = {}): Float64Array {
  const damping = options.damping ?? 0.85;
  const maxIterations = options.maxIterations ?? 50;
  const tolerance = options.tolerance ?? 1e-6;
  if (n === 0) return new Float64Array(0);
  const teleport = normalised(n, options.personalization);

  const outWeight = new Float64Array(n);
  for (const e of edges) if (e.weight > 0 && e.from !== e.to) outWeight[e.from]! += e.weight;
  const from = new Int32Array(edges.length);
  const to = new Int32Array(edges.length);
  const share = new Float64Array(edges.length); // the fraction of `from`'s rank this edge carries
  let m = 0;
  for (const e of edges) {
    if (!(e.weight > 0) || e.from === e.to) continue;
    from[m] = e.from;
    to[m] = e.to;
    share[m] = e.weight / outWeight[e.from]!;
    m++;
  }

  let rank = Float64Array.from(teleport);
  let next = new Float64Array(n);
  for (let iter = 0; iter < maxIterations; iter++) {
    let dangling = 0;
    for (let i = 0; i < n; i++) if (outWeight[i] === 0) dangling += rank[i]!;
    const base = 1 - damping + damping * dangling;
    for (let i = 0; i < n; i++) next[i] = base * teleport[i]!;
    for (let k = 0; k < m; k++) next[to[k]!]! += damping * rank[from[k]!]! * share[k]!;
    let change = 0;
    for (let i = 0; i < n; i++) change += Math.abs(next[i]! - rank[i]!);
    [rank, next] = [next, rank];
    if (change < tolerance) break;
  }
  return rank;
}

function normalised(n: number, weights: ArrayLike<number> | undefined): Float64Array {
  const out = new Float64Array(n);
  let total = 0;
  if (weights) {
    for (let i = 0; i < n; i++) {
      const w = weights[i] ?? 0;
      out[i] = Number.isFinite(w) && w > 0 ? w : 0;
      total += out[i]!;
    }
  }
  if (total === 0) return out.fill(1 / n);
  for (let i = 0; i < n; i++) out[i]! /= total;
  return out;
}
