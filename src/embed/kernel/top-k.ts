/**
 * The best k of a stream of (score, id), as a binary heap whose root is the worst kept entry
 * (lowest score; among equal scores, the highest id). FlatVectorIndex feeds it one chunk of
 * scores at a time; selection in JS costs about 1.5 ms per 500K scores here, against ~20 ms for
 * the scan itself (bench/vector-scan.ts), so it stays out of the WebAssembly module.
 */
export class TopK {
  private readonly scores: Float64Array;
  private readonly ids: Float64Array;
  private n = 0;

  constructor(readonly k: number) {
    this.scores = new Float64Array(k);
    this.ids = new Float64Array(k);
  }

  get size(): number {
    return this.n;
  }

  /** The score a row must reach to be offered: the worst kept one when the heap is full, else -Infinity. */
  get threshold(): number {
    return this.n === this.k ? this.scores[0]! : Number.NEGATIVE_INFINITY;
  }

  /**
   * `offerAll` of only the rows `rows[0..count)` of a chunk (ascending, a superset of those whose
   * score reaches `threshold`, e.g. from the kernel's `atLeast`): the same offers in the same
   * order, so the same result.
   */
  offerRows(scores: Float32Array, rows: Int32Array, count: number, ids: Float64Array, filter: ((id: number) => boolean) | undefined): void {
    let threshold = this.threshold;
    for (let j = 0; j < count; j++) {
      const i = rows[j]!;
      const s = scores[i]!;
      if (s < threshold) continue;
      const id = ids[i]!;
      if (s === threshold && this.n === this.k && id > this.ids[0]!) continue;
      if (filter !== undefined && !filter(id)) continue;
      this.offer(s, id);
      if (this.n === this.k) threshold = this.scores[0]!;
    }
  }

  /** Offers the first n scores of one chunk; `ids[i]` is row i's id. */
  offerAll(scores: Float32Array, n: number, ids: Float64Array, filter: ((id: number) => boolean) | undefined): void {
    if (this.k === 0) return;
    let threshold = this.n === this.k ? this.scores[0]! : Number.NEGATIVE_INFINITY;
    for (let i = 0; i < n; i++) {
      const s = scores[i]!;
      if (s < threshold) continue;
      const id = ids[i]!;
      if (s === threshold && this.n === this.k && id > this.ids[0]!) continue;
      if (filter !== undefined && !filter(id)) continue;
      this.offer(s, id);
      if (this.n === this.k) threshold = this.scores[0]!;
    }
  }

  /** Keeps (score, id) when it beats the worst kept entry or the heap is not full. */
  offer(score: number, id: number): void {
    if (this.n < this.k) {
      this.siftUp(this.n++, score, id);
    } else if (this.k > 0 && worse(this.scores[0]!, this.ids[0]!, score, id)) {
      this.siftDown(0, score, id);
    }
  }

  /** The kept entries, best first, equal scores by ascending id. */
  sorted(): { id: number; score: number }[] {
    const out: { id: number; score: number }[] = [];
    for (let i = 0; i < this.n; i++) out.push({ id: this.ids[i]!, score: this.scores[i]! });
    return out.sort((a, b) => b.score - a.score || a.id - b.id);
  }

  private siftUp(i: number, score: number, id: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!worse(score, id, this.scores[parent]!, this.ids[parent]!)) break;
      this.scores[i] = this.scores[parent]!;
      this.ids[i] = this.ids[parent]!;
      i = parent;
    }
    this.scores[i] = score;
    this.ids[i] = id;
  }

  private siftDown(i: number, score: number, id: number): void {
    for (;;) {
      let child = 2 * i + 1;
      if (child >= this.n) break;
      if (child + 1 < this.n && worse(this.scores[child + 1]!, this.ids[child + 1]!, this.scores[child]!, this.ids[child]!)) child++;
      if (!worse(this.scores[child]!, this.ids[child]!, score, id)) break;
      this.scores[i] = this.scores[child]!;
      this.ids[i] = this.ids[child]!;
      i = child;
    }
    this.scores[i] = score;
    this.ids[i] = id;
  }
}


/** True when (sa, ia) ranks below (sb, ib): a lower score, or an equal score and a higher id. */
function worse(sa: number, ia: number, sb: number, ib: number): boolean {
  return sa < sb || (sa === sb && ia > ib);
}
