/**
 * Where things live in a `FlatVectorIndex`'s WebAssembly memory (flat-scan.ts), every part 16-byte
 * aligned:
 *
 *   [query: dp bytes (int8) or 4·dp (float32)] [scores: 4·chunkRows] [selected rows: 4·chunkRows]
 *   [chunk 0: rows (chunkRows × rowBytes), int8 only: scales (4·chunkRows)] [chunk 1] …
 *
 * `dp` is the dimension zero-padded to a multiple of 16 (int8) or 4 (float32). Pure arithmetic.
 */
export type VectorStorage = 'int8' | 'float32';

const align16 = (n: number): number => Math.ceil(n / 16) * 16;

export class VectorLayout {
  /** Components per stored row after zero padding. */
  readonly dp: number;
  readonly rowBytes: number;
  readonly scoresOffset: number;
  /** i32 row numbers of one chunk's scores that can enter the top k (`atLeast`). */
  readonly selectedOffset: number;
  readonly chunksOffset: number;
  /** int8: offset of a chunk's scales after its rows. */
  readonly scalesInChunk: number;
  readonly chunkBytes: number;

  constructor(
    dimensions: number,
    storage: VectorStorage,
    private readonly chunkRows: number,
  ) {
    this.dp = storage === 'int8' ? align16(dimensions) : Math.ceil(dimensions / 4) * 4;
    this.rowBytes = storage === 'int8' ? this.dp : this.dp * 4;
    this.scoresOffset = align16(this.rowBytes);
    this.selectedOffset = this.scoresOffset + align16(chunkRows * 4);
    this.chunksOffset = this.selectedOffset + align16(chunkRows * 4);
    this.scalesInChunk = align16(chunkRows * this.rowBytes);
    this.chunkBytes = this.scalesInChunk + (storage === 'int8' ? align16(chunkRows * 4) : 0);
  }

  /** Byte offset of chunk `c`'s first row. */
  chunkOffset(c: number): number {
    return this.chunksOffset + c * this.chunkBytes;
  }

  /** Byte offset of `slot`'s row. */
  rowOffset(slot: number): number {
    return this.chunkOffset(Math.floor(slot / this.chunkRows)) + (slot % this.chunkRows) * this.rowBytes;
  }

  /** Index, in float32 units, of an int8 row's scale. */
  scaleIndex(slot: number): number {
    return (this.chunkOffset(Math.floor(slot / this.chunkRows)) + this.scalesInChunk) / 4 + (slot % this.chunkRows);
  }

  /** Bytes the memory needs for `chunks` chunks. */
  bytesFor(chunks: number): number {
    return this.chunksOffset + chunks * this.chunkBytes;
  }
}
