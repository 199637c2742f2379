import type { Db } from './database.js';

/** How many chunks of one file match an FTS5 expression, with the file's line count and content type. */
export interface FileMatchCount {
  readonly path: string;
  readonly chunks: number;
  readonly lines: number;
  readonly contentType: string;
}

/** A chunk id space this much sparser than the chunks it holds is not mapped (memory follows the largest id). */
const MAX_ID_PER_CHUNK = 8;
const MIN_MAPPED_IDS = 1 << 20;
const COMMA = 44;
const ZERO = 48;
const NINE = 57;

/**
 * Which file each chunk belongs to, and each file's path, line count and content type, in memory:
 * what turns the chunk ids an FTS5 expression matches into per-file counts without joining
 * `chunks` and `files` row by row (SearchRepo.fileMatchCountsMany; long-query file scoring).
 * Loaded in two statements (one aggregate over each table, read as JSON): 35–55 ms of CPU, 0.8 MB
 * of ids and the paths for 195K chunks of 34K files; a snapshot of the index at one data version,
 * never updated.
 */
export class ChunkFiles {
  /** Matches per file of the call in progress (by dense file index), and the files it touched. */
  private readonly counts: Int32Array;
  private readonly touched: number[] = [];

  private constructor(
    /** Dense file index of each chunk id, −1 for none. */
    private readonly fileOf: Int32Array,
    private readonly paths: readonly string[],
    private readonly lines: readonly number[],
    private readonly types: readonly string[],
  ) {
    this.counts = new Int32Array(paths.length);
  }

  /** The map of the index as `db` reads it now; undefined when chunk ids are too sparse to map. */
  static load(db: Db): ChunkFiles | undefined {
    const f = db
      .prepare<[], { ids: string; paths: string; lines: string; types: string }>(
        'SELECT json_group_array(id) AS ids, json_group_array(path) AS paths, json_group_array(line_count) AS lines, json_group_array(content_type) AS types FROM (SELECT id, path, line_count, content_type FROM files ORDER BY id)',
      )
      .get()!;
    const c = db.prepare<[], { ids: string; files: string; n: number; max: number | null }>('SELECT json_group_array(id) AS ids, json_group_array(file_id) AS files, count(*) AS n, max(id) AS max FROM chunks').get()!;
    const max = c.max ?? 0;
    if (max < 0 || max > Math.max(MIN_MAPPED_IDS, c.n * MAX_ID_PER_CHUNK)) return undefined;
    // file ids → dense indexes in id order, so that counts come out in file id order
    const fileIds = JSON.parse(f.ids) as number[];
    const dense = new Map<number, number>();
    fileIds.forEach((id, i) => dense.set(id, i));
    const fileOf = new Int32Array(max + 1).fill(-1);
    const ids = JSON.parse(c.ids) as number[];
    const files = JSON.parse(c.files) as number[];
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i]!;
      // a chunk whose file row is gone matches nothing, as in the join
      if (id >= 0) fileOf[id] = dense.get(files[i]!) ?? -1;
    }
    return new ChunkFiles(fileOf, JSON.parse(f.paths) as string[], JSON.parse(f.lines) as number[], JSON.parse(f.types) as string[]);
  }

  /**
   * Per file, how many of `rowids` (chunk ids, comma-separated, as `group_concat(rowid)` gives
   * them; null for none) are its chunks, in file id order. An id of no chunk counts for no file.
   */
  countByFile(rowids: string | null): FileMatchCount[] {
    if (rowids === null || rowids === '') return [];
    let n = 0;
    let digits = false;
    let bad = false;
    for (let i = 0; i <= rowids.length; i++) {
      const ch = i < rowids.length ? rowids.charCodeAt(i) : COMMA;
      if (ch !== COMMA) {
        // a digit; anything else (a sign) makes the id one of no chunk
        if (ch >= ZERO && ch <= NINE) n = n * 10 + (ch - ZERO);
        else bad = true;
        digits = true;
        continue;
      }
      if (digits && !bad) this.add(n);
      n = 0;
      digits = false;
      bad = false;
    }
    return this.drain();
  }

  private add(id: number): void {
    const file = id < this.fileOf.length ? this.fileOf[id]! : -1;
    if (file < 0) return;
    if (this.counts[file] === 0) this.touched.push(file);
    this.counts[file]!++;
  }

  /** The counts of the call in progress, as rows, and the counters reset for the next. */
  private drain(): FileMatchCount[] {
    const out = this.touched
      .sort((a, b) => a - b)
      .map((i) => {
        const row = { path: this.paths[i]!, chunks: this.counts[i]!, lines: this.lines[i]!, contentType: this.types[i]! };
        this.counts[i] = 0;
        return row;
      });
    this.touched.length = 0;
    return out;
  }
}
