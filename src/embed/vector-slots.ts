/**
 * The id ↔ slot bookkeeping of a `FlatVectorIndex` (flat-scan.ts): slot i is the i-th stored row.
 * Slot → id lives in one Float64Array per chunk of `chunkRows` slots (the scan reads a chunk's ids
 * beside its scores); id → slot in a Map, built only when rows are added one by one or removed:
 * after a bulk load of ascending ids (`adoptSorted`) an id is found by binary search, so a process
 * that only searches never builds the map. The index owns the row memory; this owns no rows.
 */
export class VectorSlots {
  private readonly chunkIds: Float64Array[] = [];
  private readonly slotOf = new Map<number, number>();
  /** After `adoptSorted`: slot i holds `sortedIds[i]`, until the first change of rows. */
  private sortedIds: Float64Array | undefined;
  private count = 0;

  constructor(private readonly chunkRows: number) {}

  /** Slots in use (rows stored). */
  get size(): number {
    return this.count;
  }

  /** Chunks of slots allocated. */
  get chunks(): number {
    return this.chunkIds.length;
  }

  /** Slots allocated: a new id needs a new chunk when `size` reaches it. */
  get capacity(): number {
    return this.chunkIds.length * this.chunkRows;
  }

  /** Entries of the id → slot map (0 while ids are found by binary search). */
  get mapEntries(): number {
    return this.slotOf.size;
  }

  addChunk(): void {
    this.chunkIds.push(new Float64Array(this.chunkRows));
  }

  /** The ids of chunk `c`'s slots (a live view: the bulk loader writes into it). */
  chunk(c: number): Float64Array {
    return this.chunkIds[c]!;
  }

  /** `id`'s slot, or undefined. */
  slotFor(id: number): number | undefined {
    const ids = this.sortedIds;
    if (!ids) return this.slotOf.get(id);
    let lo = 0;
    let hi = ids.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const v = ids[mid]!;
      if (v === id) return mid;
      if (v < id) lo = mid + 1;
      else hi = mid - 1;
    }
    return undefined;
  }

  idAt(slot: number): number {
    return this.chunkIds[Math.floor(slot / this.chunkRows)]![slot % this.chunkRows]!;
  }

  /** Builds the id → slot map from the sorted ids before the first change of rows. */
  materialize(): void {
    const ids = this.sortedIds;
    if (!ids) return;
    this.sortedIds = undefined;
    for (let i = 0; i < ids.length; i++) this.slotOf.set(ids[i]!, i);
  }

  /** The next slot, for `id` (call `materialize` first; the caller adds a chunk when `size === capacity`). */
  append(id: number): number {
    const slot = this.count;
    this.chunkIds[Math.floor(slot / this.chunkRows)]![slot % this.chunkRows] = id;
    this.slotOf.set(id, slot);
    this.count++;
    return slot;
  }

  /** After a bulk load into empty chunks (ids written through `chunk`): `ids` ascending, kept by reference. */
  adoptSorted(ids: Float64Array): void {
    this.count = ids.length;
    this.sortedIds = ids;
  }

  /**
   * Frees `id`'s slot; the last slot's id moves into it (the caller moves the row the same way).
   * Undefined when the id has no slot.
   */
  remove(id: number): { slot: number; last: number } | undefined {
    this.materialize();
    const slot = this.slotOf.get(id);
    if (slot === undefined) return undefined;
    this.slotOf.delete(id);
    const last = --this.count;
    if (slot !== last) {
      const movedId = this.idAt(last);
      this.chunkIds[Math.floor(slot / this.chunkRows)]![slot % this.chunkRows] = movedId;
      this.slotOf.set(movedId, slot);
    }
    return { slot, last };
  }
}
