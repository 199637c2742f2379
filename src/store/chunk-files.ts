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
/** The files' rows, read as JSON arrays in file id order (the statement's FROM and filter follow). */
const FILE_ROWS = 'SELECT json_group_array(id) AS ids, json_group_array(path) AS paths, json_group_array(line_count) AS lines, json_group_array(content_type) AS types FROM (SELECT id, path, line_count, content_type';

interface FileRows {
  readonly ids: string;
  readonly paths: string;
  readonly lines: string;
  readonly types: string;
}

/** Calls `fn` with each id of `rowids` (comma-separated, as `group_concat(rowid)` gives them; null for none); an id written with a sign is skipped (no chunk has it). */
function eachId(rowids: string | null, fn: (id: number) => void): void {
  if (rowids === null || rowids === '') return;
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
    if (digits && !bad) fn(n);
    n = 0;
    digits = false;
    bad = false;
  }
}

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
    const c = db.prepare<[], { ids: string; files: string; n: number; max: number | null }>('SELECT json_group_array(id) AS ids, json_group_array(file_id) AS files, count(*) AS n, max(id) AS max FROM chunks').get()!;
    const max = c.max ?? 0;
    if (max < 0 || max > Math.max(MIN_MAPPED_IDS, c.n * MAX_ID_PER_CHUNK)) return undefined;
    const f = db.prepare<[], FileRows>(`${FILE_ROWS} FROM files ORDER BY id)`).get()!;
    return ChunkFiles.of(f, JSON.parse(c.ids) as number[], JSON.parse(c.files) as number[], max);
  }

  /**
   * The map of only the chunks among `lists` (rowid lists as `countByFile` takes them) and their
   * files, as `db` reads it now: what the first long query of a data version counts with, two
   * lookups of the chunks its groups match instead of a join per group and match (0.6–0.7× the
   * join's CPU on the npm corpus, bench/file-counts.ts); undefined when their ids are too sparse to map.
   */
  static loadFor(db: Db, lists: readonly (string | null)[]): ChunkFiles | undefined {
    const wanted = new Set<number>();
    for (const list of lists) eachId(list, (id) => wanted.add(id));
    const ids = [...wanted].sort((a, b) => a - b);
    const max = ids.length > 0 ? ids[ids.length - 1]! : 0;
    if (max > Math.max(MIN_MAPPED_IDS, ids.length * MAX_ID_PER_CHUNK)) return undefined;
    const c = db
      .prepare<[string], { ids: string; files: string }>('SELECT json_group_array(id) AS ids, json_group_array(file_id) AS files FROM chunks WHERE id IN (SELECT value FROM json_each(?))')
      .get(JSON.stringify(ids))!;
    const files = JSON.parse(c.files) as number[];
    const f = db.prepare<[string], FileRows>(`${FILE_ROWS} FROM files WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id)`).get(JSON.stringify([...new Set(files)]))!;
    return ChunkFiles.of(f, JSON.parse(c.ids) as number[], files, max);
  }

  private static of(f: FileRows, ids: readonly number[], files: readonly number[], max: number): ChunkFiles {
    // file ids → dense indexes in id order, so that counts come out in file id order
    const fileIds = JSON.parse(f.ids) as number[];
    const dense = new Map<number, number>();
    fileIds.forEach((id, i) => dense.set(id, i));
    const fileOf = new Int32Array(max + 1).fill(-1);
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
    eachId(rowids, (id) => this.add(id));
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
