import type { ChunkKind } from '../core/chunk.js';
import type { ContentType } from '../core/file.js';
import { ChunkFiles, type FileMatchCount } from './chunk-files.js';
import type { Db } from './database.js';
import type { Statement } from './driver.js';
import { FileCountsCache } from './file-counts-cache.js';
import { StatementCache } from './statement-cache.js';

/** One FTS match joined with its chunk and file. `bm25` is FTS5's value: lower is better. */
export interface FtsCandidate {
  readonly chunkId: number;
  readonly path: string;
  readonly language: string;
  readonly contentType: ContentType;
  readonly kind: ChunkKind;
  readonly startLine: number;
  readonly endLine: number;
  readonly startByte: number;
  readonly endByte: number;
  readonly fileHash: string;
  readonly chunkHash: string;
  readonly symbol: string | null;
  readonly container: string | null;
  readonly signature: string | null;
  readonly bm25: number;
  /** The chunk's content timestamp (ms since the epoch), or null when unknown. */
  readonly tsMs: number | null;
}

export interface FtsFilter {
  readonly languages?: readonly string[] | undefined;
  readonly contentTypes?: readonly string[] | undefined;
  readonly pathMatch?: ((path: string) => boolean) | undefined;
  /** Document fields that must equal a value (`--where status=open`): a file's metadata field, or an element of it when it is a list. */
  readonly where?: readonly { readonly field: string; readonly value: string }[] | undefined;
}

/** Document frequency of one query token after the index's own tokenizer has processed it. */
export interface TermStat {
  /** Index of the token in the list passed to `termStats`. */
  readonly index: number;
  /** The token as the FTS tokenizer stores it (lowercased, stemmed). */
  readonly term: string;
  /** Number of chunks containing the term in any field. */
  readonly df: number;
}

const SELECT_COLUMNS = `c.id AS chunkId, f.path AS path, f.language AS language, f.content_type AS contentType, c.kind AS kind,
  c.start_line AS startLine, c.end_line AS endLine, c.start_byte AS startByte, c.end_byte AS endByte,
  f.hash AS fileHash, c.hash AS chunkHash, c.symbol AS symbol, c.container AS container, c.signature AS signature, c.ts_ms AS tsMs, r.score AS bm25`;

const TOKENIZER = `"porter unicode61 remove_diacritics 2 tokenchars '_'"`;

/** Read-side SQL for lexical search. The FTS expression is built by search/, never from raw user text. */
export class SearchRepo {
  private pathMatch: ((path: string) => boolean) | undefined;
  private temp: { clear: Statement<[]>; insert: Statement<[number, string]>; terms: Statement<[], { index: number; term: string }> } | undefined;
  private readonly dfCache = new Map<string, number>();
  private fileStatsCache: { version: string; stats: { files: number; meanLines: number } } | undefined;
  private chunkCountCache: { version: string; count: number } | undefined;
  /** The chunk→file map of one data version (undefined: too sparse to map), and the version that first asked for one. */
  private chunkFilesCache: { version: string; map: ChunkFiles | undefined } | undefined;
  private chunkFilesAsked = '';
  private rowidsStmt: Statement<[string], { ids: string | null }> | undefined;
  /** Per-file counts of the group expressions walked in this data version. */
  private readonly fileCounts = new FileCountsCache();
  private dfVersion = '';
  private readonly vocabStmt;
  /** The statements whose SQL varies with the call (weights, filters), prepared once per text. */
  private readonly stmts: StatementCache;
  private readonly versionStmt;

  constructor(
    private readonly db: Db,
    private readonly writes: () => number = () => 0,
  ) {
    this.stmts = new StatementCache(db);
    this.vocabStmt = db.prepare<[string], { doc: number }>('SELECT doc FROM chunks_vocab WHERE term = ?');
    // data_version moves on other connections' commits; `writes` on this connection's own write
    // transactions (a pass in this process that edits a file without changing the chunk count)
    this.versionStmt = db.prepare<[], { dv: number }>('SELECT data_version AS dv FROM pragma_data_version');
    db.function('scry_path_ok', { deterministic: true }, (path: unknown) => (this.pathMatch === undefined || this.pathMatch(String(path)) ? 1 : 0));
  }

  /**
   * Top `limit` chunks for an FTS5 expression, best first. Without filters the FTS top-k is
   * taken before joining (fast path); with filters every match is joined and filtered first so
   * that filtering never loses results.
   */
  search(match: string, weights: readonly number[], limit: number, filter: FtsFilter = {}): FtsCandidate[] {
    const w = weights.map((x) => Number(x).toFixed(4)).join(', ');
    const where: string[] = [];
    const params: unknown[] = [match];
    if (filter.languages?.length) {
      where.push(`f.language IN (${filter.languages.map(() => '?').join(', ')})`);
      params.push(...filter.languages);
    }
    if (filter.contentTypes?.length) {
      where.push(`f.content_type IN (${filter.contentTypes.map(() => '?').join(', ')})`);
      params.push(...filter.contentTypes);
    }
    if (filter.pathMatch) where.push('scry_path_ok(f.path) = 1');
    for (const w of filter.where ?? []) {
      // a scalar field equal to the value, or a list field holding it (`tags: [auth, api]`)
      where.push(`(CAST(json_extract(f.metadata, ?) AS TEXT) = ? OR EXISTS (SELECT 1 FROM json_each(f.metadata, ?) e WHERE json_type(f.metadata, ?) = 'array' AND CAST(e.value AS TEXT) = ?))`);
      const path = `$."${w.field.replace(/"/g, '')}"`;
      params.push(path, w.value, path, path, w.value);
    }
    const filtered = where.length > 0;
    const inner = `SELECT rowid AS id, bm25(chunks_fts, ${w}) AS score FROM chunks_fts WHERE chunks_fts MATCH ?${filtered ? '' : ' ORDER BY score LIMIT ?'}`;
    if (!filtered) params.push(limit);
    const sql = `SELECT ${SELECT_COLUMNS} FROM (${inner}) r JOIN chunks c ON c.id = r.id JOIN files f ON f.id = c.file_id
      ${filtered ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY r.score, c.id LIMIT ?`;
    params.push(limit);
    this.pathMatch = filter.pathMatch;
    try {
      return this.stmts.get(sql).all(...params) as FtsCandidate[];
    } finally {
      this.pathMatch = undefined;
    }
  }

  /**
   * How many chunks match `match`, counting no further than `upTo`: the walk alone, without
   * bm25(), whose setup walks every phrase's whole list for its idf. A query plan asks it before
   * scoring a level whose candidates the next level would replace when fewer than `upTo` match.
   */
  countUpTo(match: string, upTo: number): number {
    return this.stmts.get<[string, number], { n: number }>('SELECT count(*) AS n FROM (SELECT 1 FROM chunks_fts WHERE chunks_fts MATCH ? LIMIT ?)').get(match, upTo)!.n;
  }

  /**
   * The bm25() of the best `limit` chunks matching `match`, by chunk id, unfiltered: a second
   * expression's scores, joined in memory to candidates another one found (query expansion).
   * Cheaper than scoring the candidates by rowid, which FTS5 evaluates one seek at a time.
   */
  scoreTop(match: string, weights: readonly number[], limit: number): Map<number, number> {
    const w = weights.map((x) => Number(x).toFixed(4)).join(', ');
    const rows = this.stmts
      .get<[string, number], { id: number; score: number }>(`SELECT rowid AS id, bm25(chunks_fts, ${w}) AS score FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY score LIMIT ?`)
      .all(match, limit);
    return new Map(rows.map((r) => [r.id, r.score]));
  }

  /**
   * The bm25() of the chunks `ids` for `match` under `weights`, by chunk id (a chunk that does not
   * match is absent). FTS5 seeks each id on its own: for a page of results (`--explain`), not a candidate list.
   */
  scoreIds(match: string, weights: readonly number[], ids: readonly number[]): Map<number, number> {
    const w = weights.map((x) => Number(x).toFixed(4)).join(', ');
    const stmt = this.stmts.get<[string, number], { score: number }>(`SELECT bm25(chunks_fts, ${w}) AS score FROM chunks_fts WHERE chunks_fts MATCH ? AND rowid = ?`);
    const out = new Map<number, number>();
    for (const id of ids) {
      const row = stmt.get(match, id);
      if (row) out.set(id, row.score);
    }
    return out;
  }

  /**
   * The names of the definitions inside each chunk's lines, by chunk id, in source order (one
   * statement for all: a merged chunk of small definitions holds several; the name match reads them).
   */
  definitionNames(ids: readonly number[]): Map<number, string[]> {
    const out = new Map<number, string[]>();
    if (ids.length === 0) return out;
    const rows = this.stmts
      .get<[string], { id: number; name: string }>(
        `SELECT c.id AS id, s.name AS name FROM json_each(?) j JOIN chunks c ON c.id = j.value
         JOIN symbols s ON s.file_id = c.file_id AND s.start_line >= c.start_line AND s.end_line <= c.end_line ORDER BY c.id, s.start_line`,
      )
      .all(JSON.stringify(ids));
    for (const r of rows) {
      const names = out.get(r.id);
      if (names) names.push(r.name);
      else out.set(r.id, [r.name]);
    }
    return out;
  }

  /**
   * The chunks with these ids that pass `filter`, as candidates (`bm25` 0), in the order of `ids`:
   * what a vector or symbol list found, joined like an FTS match.
   */
  byChunkIds(ids: readonly number[], filter: FtsFilter = {}): FtsCandidate[] {
    if (ids.length === 0) return [];
    const rows = this.stmts
      .get<[string], FtsCandidate>(`SELECT ${SELECT_COLUMNS.replace('r.score AS bm25', '0 AS bm25')} FROM json_each(?) j JOIN chunks c ON c.id = j.value JOIN files f ON f.id = c.file_id`)
      .all(JSON.stringify(ids));
    const byId = new Map(rows.map((r) => [r.chunkId, r]));
    return ids.flatMap((id) => {
      const r = byId.get(id);
      if (!r) return [];
      if (filter.languages?.length && !filter.languages.includes(r.language)) return [];
      if (filter.contentTypes?.length && !filter.contentTypes.includes(r.contentType)) return [];
      if (filter.pathMatch && !filter.pathMatch(r.path)) return [];
      return [r];
    });
  }

  /** Every chunk of the files at `paths`, with its file's path (the model's file prior scores a file by all its chunks). */
  chunkIdsOfPaths(paths: readonly string[]): Array<{ chunkId: number; path: string }> {
    if (paths.length === 0) return [];
    return this.stmts
      .get<[string], { chunkId: number; path: string }>('SELECT c.id AS chunkId, f.path AS path FROM json_each(?) j JOIN files f ON f.path = j.value JOIN chunks c ON c.file_id = f.id')
      .all(JSON.stringify(paths));
  }

  /** The id of the smallest chunk of `path` that covers `line`. */
  chunkAt(path: string, line: number): number | undefined {
    return this.db
      .prepare<[string, number, number], { id: number }>(
        'SELECT c.id AS id FROM chunks c JOIN files f ON f.id = c.file_id WHERE f.path = ? AND c.start_line <= ? AND c.end_line >= ? ORDER BY c.end_line - c.start_line, c.id LIMIT 1',
      )
      .get(path, line, line)?.id;
  }

  /**
   * Files with a chunk matching an FTS5 expression, by path: the candidates of a reference
   * search (the FTS index keeps identifiers whole, so `"parseConfig"` finds every file using it).
   */
  filesMatching(match: string, limit: number): Array<{ id: number; path: string; language: string; hash: string; parser: string; featureVersion: number }> {
    return this.db
      .prepare<[string, number], { id: number; path: string; language: string; hash: string; parser: string; featureVersion: number }>(
        `SELECT DISTINCT f.id AS id, f.path AS path, f.language AS language, f.hash AS hash, f.parser AS parser, f.feature_version AS featureVersion
         FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid JOIN files f ON f.id = c.file_id
         WHERE chunks_fts MATCH ? ORDER BY f.path LIMIT ?`,
      )
      .all(match, limit);
  }

  /**
   * Per file, how many of its chunks match an FTS5 expression, with the file's line count: the
   * term statistics of a file taken as one document (long-query file scoring, search/file-evidence.ts).
   * Costs one walk of the expression's position lists, no bm25(), and a join per match: the
   * reference computation of `fileMatchCountsMany`.
   */
  fileMatchCounts(match: string): FileMatchCount[] {
    return this.db
      .prepare<[string], FileMatchCount>(
        `SELECT f.path AS path, g.n AS chunks, f.line_count AS lines, f.content_type AS contentType
         FROM (SELECT c.file_id AS fid, count(*) AS n FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid WHERE chunks_fts MATCH ? GROUP BY c.file_id) g
         JOIN files f ON f.id = g.fid ORDER BY g.fid`,
      )
      .all(match);
  }

  /**
   * `fileMatchCounts` of each expression, in order, with the same rows: the FTS walk reads rowids
   * only and the chunk→file map (chunk-files.ts, cached until the index changes) counts them in
   * memory, 0.1–0.4× the reference's CPU on the npm corpus (bench/file-counts.ts). The first call
   * of a data version maps only the chunks its walks matched (`ChunkFiles.loadFor`) and the second
   * builds the whole map (35–55 ms for 195K chunks, the join of one long query or so), so a
   * one-shot search never pays for a map it would use once. An expression counted before in this
   * data version is not walked again (its rows are kept: file-counts-cache.ts) unless `cached` is
   * false. The rows are shared: read them only.
   */
  fileMatchCountsMany(matches: readonly string[], options: { readonly build?: 'now' | 'second use'; readonly cached?: boolean } = {}): (readonly FileMatchCount[])[] {
    const version = this.dataVersion();
    const cached = options.cached !== false;
    const kept = cached ? matches.map((m) => this.fileCounts.get(version, m)) : matches.map(() => undefined);
    const missing = [...new Set(matches.filter((_, i) => kept[i] === undefined))];
    if (missing.length === 0) return kept as (readonly FileMatchCount[])[];
    // the whole map from the second request of a data version on; the first maps only the chunks its groups match
    const whole = this.chunkFiles(options.build ?? 'second use');
    // chunk ids too sparse to map (the whole map was refused in this version): the reference join, no rowid walk
    const sparse = !whole && this.chunkFilesCache?.version === version;
    this.rowidsStmt ??= this.db.prepare<[string], { ids: string | null }>('SELECT group_concat(rowid) AS ids FROM chunks_fts WHERE chunks_fts MATCH ?');
    const stmt = this.rowidsStmt;
    const lists = sparse ? [] : missing.map((m) => stmt.get(m)?.ids ?? null);
    const map = sparse ? undefined : (whole ?? ChunkFiles.loadFor(this.db, lists));
    const count = (m: string, i: number): FileMatchCount[] => (map ? map.countByFile(lists[i]!) : this.fileMatchCounts(m));
    const counted = new Map(missing.map((m, i) => [m, count(m, i)] as const));
    if (cached) for (const [m, rows] of counted) this.fileCounts.set(version, m, rows);
    return matches.map((m, i) => kept[i] ?? counted.get(m)!);
  }

  /** The chunk→file map of the current data version, built on its second request in that version (or at once). */
  private chunkFiles(build: 'now' | 'second use'): ChunkFiles | undefined {
    const version = this.dataVersion();
    if (this.chunkFilesCache?.version === version) return this.chunkFilesCache.map;
    if (build === 'second use' && this.chunkFilesAsked !== version) {
      this.chunkFilesAsked = version;
      return undefined;
    }
    this.chunkFilesCache = undefined;
    this.chunkFilesCache = { version, map: ChunkFiles.load(this.db) };
    return this.chunkFilesCache.map;
  }

  /**
   * Chunks indexed (`ChunkRepo.count`), cached until the index changes: `count(*)` walks an index
   * of every chunk, ~1 ms a search on the 195K-chunk npm corpus (the mode sentence of every
   * blended search states it). For reads; a write transaction of this connection counts afresh after it.
   */
  chunkCount(): number {
    const version = this.dataVersion();
    if (this.chunkCountCache?.version === version) return this.chunkCountCache.count;
    const count = this.stmts.get<[], { n: number }>('SELECT count(*) AS n FROM chunks').get()!.n;
    this.chunkCountCache = { version, count };
    return count;
  }

  /**
   * Files indexed and their mean line count (the collection statistics of file-level BM25), cached
   * until the index changes (a scan of every file row: 6% of a long query's CPU on the npm corpus).
   */
  fileStats(): { files: number; meanLines: number } {
    const version = this.dataVersion();
    if (this.fileStatsCache?.version === version) return this.fileStatsCache.stats;
    const row = this.db.prepare<[], { files: number; meanLines: number | null }>('SELECT count(*) AS files, avg(line_count) AS meanLines FROM files').get();
    const stats = { files: row?.files ?? 0, meanLines: row?.meanLines ?? 0 };
    this.fileStatsCache = { version, stats };
    return stats;
  }

  /**
   * Runs each token through the index's own tokenizer (porter, unicode61) by way of a temporary
   * FTS table, and looks up how many chunks contain the result. Tokens that produce no term are
   * absent from the answer.
   */
  termStats(tokens: readonly string[]): TermStat[] {
    if (tokens.length === 0) return [];
    const temp = this.tokenizerTable();
    const instances = this.db.transaction(() => {
      temp.clear.run();
      tokens.forEach((t, i) => temp.insert.run(i, t));
      return temp.terms.all();
    });
    // One lookup per distinct term: a correlated subquery would not use fts5vocab's term index.
    const version = this.dataVersion();
    if (version !== this.dfVersion) {
      this.dfCache.clear();
      this.dfVersion = version;
    }
    return instances.map((r) => ({ index: r.index, term: r.term, df: this.documentFrequency(r.term) }));
  }

  /** The temporary FTS5 table that runs query words through the index's tokenizer, made once per connection. */
  private tokenizerTable(): NonNullable<SearchRepo['temp']> {
    if (!this.temp) {
      this.db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.scry_qtok USING fts5(t, tokenize = ${TOKENIZER});
        CREATE VIRTUAL TABLE IF NOT EXISTS temp.scry_qtok_vocab USING fts5vocab(temp, scry_qtok, 'instance');`);
      this.temp = {
        clear: this.db.prepare('DELETE FROM temp.scry_qtok'),
        insert: this.db.prepare('INSERT INTO temp.scry_qtok(rowid, t) VALUES (?, ?)'),
        terms: this.db.prepare('SELECT doc AS "index", term FROM temp.scry_qtok_vocab ORDER BY doc, offset'),
      };
    }
    return this.temp;
  }

  /** Chunks containing `term` (as stored), cached until the index changes. */
  private documentFrequency(term: string): number {
    let df = this.dfCache.get(term);
    if (df === undefined) {
      df = this.vocabStmt.get(term)?.doc ?? 0;
      if (this.dfCache.size > 50_000) this.dfCache.clear();
      this.dfCache.set(term, df);
    }
    return df;
  }

  /** Changes when another connection commits, or when this one writes anything. */
  dataVersion(): string {
    return `${this.versionStmt.get()!.dv}:${this.writes()}`;
  }
}
