import type { ContentType } from '../core/file.js';
import type { Db } from './database.js';
import { BUMP_VECTORS_STAMP_SQL } from './meta-repo.js';

/** What the index knows about a file, enough to decide whether it changed. */
export interface StoredFile {
  readonly id: number;
  readonly path: string;
  readonly size: number;
  readonly mtimeMs: number;
  readonly hash: string;
  readonly featureVersion: number;
  readonly indexedAtMs: number;
}

export interface FileRecord {
  readonly path: string;
  readonly language: string;
  readonly contentType: ContentType;
  readonly size: number;
  readonly mtimeMs: number;
  readonly hash: string;
  readonly encoding: string;
  readonly lineCount: number;
  readonly featureVersion: number;
  readonly indexedAtMs: number;
  /** Which parser chunked the file (`tree-sitter`, `window`, `markdown`...). */
  readonly parser: string;
  /** Why a file with a grammar was chunked by line windows, if it was. */
  readonly fallback: string | null;
  /** Document metadata as JSON text (markdown frontmatter), if any. */
  readonly metadata: string | null;
}

/** A stored file whose rows another file with the same content can copy (see `withContent`). */
export interface ContentSource {
  readonly id: number;
  readonly encoding: string;
  readonly lineCount: number;
  readonly parser: string;
  readonly fallback: string | null;
  readonly metadata: string | null;
}

/** What the index knows about one file, for outlines. */
export interface FileInfo {
  readonly path: string;
  readonly language: string;
  readonly contentType: string;
  readonly lineCount: number;
  readonly size: number;
  readonly parser: string;
  readonly fallback: string | null;
  readonly metadata: string | null;
}

/** One row of a file listing. */
export interface ListedFile {
  readonly path: string;
  readonly language: string;
  readonly contentType: string;
  readonly size: number;
  readonly lineCount: number;
  readonly hash: string;
}

export interface FileCounts {
  readonly files: number;
  readonly bytes: number;
  readonly byLanguage: Record<string, number>;
  readonly byContentType: Record<string, number>;
}

export class FileRepo {
  private readonly allStmt;
  private readonly idStmt;
  private readonly oneStmt;
  private readonly insertStmt;
  private readonly updateStmt;
  private readonly touchStmt;
  private readonly deleteStmt;
  private readonly bumpStmt;
  private readonly hashUsedStmt;
  private readonly infoStmt;
  private readonly underStmt;
  private readonly hasContentStmt;
  private readonly withContentStmt;

  constructor(private readonly db: Db) {
    // rows as arrays: the driver builds no object per row (half the CPU of a no-change pass's load)
    this.allStmt = db.prepare<[], [number, string, number, number, string, number, number]>('SELECT id, path, size, mtime_ms, hash, feature_version, indexed_at_ms FROM files').raw();
    this.idStmt = db.prepare<[string], { id: number }>('SELECT id FROM files WHERE path = ?');
    this.oneStmt = db.prepare<[string], StoredFile>(
      'SELECT id, path, size, mtime_ms AS mtimeMs, hash, feature_version AS featureVersion, indexed_at_ms AS indexedAtMs FROM files WHERE path = ?',
    );
    this.insertStmt = db.prepare(
      `INSERT INTO files(path, language, content_type, size, mtime_ms, hash, encoding, line_count, feature_version, indexed_at_ms, parser, fallback, metadata)
       VALUES (@path, @language, @contentType, @size, @mtimeMs, @hash, @encoding, @lineCount, @featureVersion, @indexedAtMs, @parser, @fallback, @metadata)`,
    );
    this.updateStmt = db.prepare(
      `UPDATE files SET language = @language, content_type = @contentType, size = @size, mtime_ms = @mtimeMs, hash = @hash,
         encoding = @encoding, line_count = @lineCount, feature_version = @featureVersion, indexed_at_ms = @indexedAtMs,
         parser = @parser, fallback = @fallback, metadata = @metadata
       WHERE id = @id`,
    );
    this.touchStmt = db.prepare<[number, number, number, number]>('UPDATE files SET mtime_ms = ?, size = ?, indexed_at_ms = ? WHERE id = ?');
    this.deleteStmt = db.prepare<[number]>('DELETE FROM files WHERE id = ?');
    // its chunks go with it (ON DELETE CASCADE): a vector snapshot holding them is stale (meta-repo.ts)
    this.bumpStmt = db.prepare<[]>(BUMP_VECTORS_STAMP_SQL);
    this.hashUsedStmt = db.prepare<[string], { one: number }>('SELECT 1 AS one FROM files WHERE hash = ? LIMIT 1');
    this.infoStmt = db.prepare<[string], FileInfo>(
      'SELECT path, language, content_type AS contentType, line_count AS lineCount, size, parser, fallback, metadata FROM files WHERE path = ?',
    );
    // a range on the path index: every path starting with `dir/` sorts in ['dir/', 'dir0') ('0' follows '/')
    this.underStmt = db.prepare<[string, string], StoredFile>(
      'SELECT id, path, size, mtime_ms AS mtimeMs, hash, feature_version AS featureVersion, indexed_at_ms AS indexedAtMs FROM files WHERE path >= ? AND path < ? ORDER BY path',
    );
    this.hasContentStmt = db.prepare<[string, string, number], { one: number }>('SELECT 1 AS one FROM files WHERE hash = ? AND language = ? AND feature_version = ? LIMIT 1');
    // files whose chunks all record their names first (see migration 005)
    this.withContentStmt = db.prepare<[string, string, string, number], ContentSource>(
      `SELECT id, encoding, line_count AS lineCount, parser, fallback, metadata FROM files f
       WHERE hash = ? AND language = ? AND content_type = ? AND feature_version = ?
       ORDER BY EXISTS (SELECT 1 FROM chunks c WHERE c.file_id = f.id AND c.defines IS NULL), id LIMIT 1`,
    );
  }

  /** Every stored file by path. One query; used to diff a walk against the index. */
  all(): Map<string, StoredFile> {
    const out = new Map<string, StoredFile>();
    for (const row of this.allStmt.all() as Array<[number, string, number, number, string, number, number]>) {
      out.set(row[1], { id: row[0], path: row[1], size: row[2], mtimeMs: row[3], hash: row[4], featureVersion: row[5], indexedAtMs: row[6] });
    }
    return out;
  }

  /** Stored files among `paths`. */
  some(paths: readonly string[]): Map<string, StoredFile> {
    const out = new Map<string, StoredFile>();
    for (const path of paths) {
      const row = this.oneStmt.get(path);
      if (row) out.set(row.path, row);
    }
    return out;
  }

  /** Stored files under directory `dir` (relative, no trailing `/`), at any depth. */
  under(dir: string): StoredFile[] {
    return this.underStmt.all(`${dir}/`, `${dir}0`);
  }

  /** Whether a file of `language` with content `hash` is stored, indexed with `featureVersion`. */
  hasContent(hash: string, language: string, featureVersion: number): boolean {
    return this.hasContentStmt.get(hash, language, featureVersion) !== undefined;
  }

  /** Every distinct (language, hash) stored with `featureVersion`, as tuples. */
  contents(featureVersion: number): Array<[language: string, hash: string]> {
    return this.db
      .prepare<[number], [string, string]>('SELECT DISTINCT language, hash FROM files WHERE feature_version = ?')
      .raw()
      .all(featureVersion) as unknown as Array<[string, string]>;
  }

  /** A stored file with this content, language and content type, indexed with `featureVersion`. */
  withContent(hash: string, language: string, contentType: string, featureVersion: number): ContentSource | undefined {
    return this.withContentStmt.get(hash, language, contentType, featureVersion);
  }

  /** What the index knows about one file, or undefined. */
  info(path: string): FileInfo | undefined {
    return this.infoStmt.get(path);
  }


  /** One file per language (the first by path): a document to open for a language server. */
  firstOfEachLanguage(): Array<{ path: string; language: string }> {
    return this.db.prepare<[], { path: string; language: string }>('SELECT min(path) AS path, language FROM files GROUP BY language ORDER BY language').all();
  }

  /** Every indexed file with what a listing shows, in path order. */
  listing(): ListedFile[] {
    return this.db
      .prepare<[], ListedFile>('SELECT path, language, content_type AS contentType, size, line_count AS lineCount, hash FROM files ORDER BY path')
      .all();
  }

  /** Every indexed path with its content hash and size, in path order, as tuples (cheap for 10^5 files: no row objects). */
  pathsWithHashes(): Array<[path: string, hash: string, size: number]> {
    return this.db.prepare<[], [string, string, number]>('SELECT path, hash, size FROM files ORDER BY path').raw().all() as unknown as Array<[string, string, number]>;
  }

  /** Every indexed path. */
  paths(): string[] {
    return this.db
      .prepare<[], { path: string }>('SELECT path FROM files ORDER BY path')
      .all()
      .map((r) => r.path);
  }

  /** Inserts or replaces a file row; returns its id (stable across updates). */
  upsert(record: FileRecord): number {
    const existing = this.idStmt.get(record.path);
    if (existing) {
      this.updateStmt.run({ ...record, id: existing.id });
      return existing.id;
    }
    return Number(this.insertStmt.run(record).lastInsertRowid);
  }

  /** Records a new mtime for a file whose content hash did not change. */
  touch(id: number, mtimeMs: number, size: number, indexedAtMs: number): void {
    this.touchStmt.run(mtimeMs, size, indexedAtMs, id);
  }

  delete(id: number): void {
    this.deleteStmt.run(id);
    this.bumpStmt.run();
  }

  count(): number {
    return (this.db.prepare('SELECT count(*) AS n FROM files').get() as { n: number }).n;
  }

  isHashUsed(hash: string): boolean {
    return this.hashUsedStmt.get(hash) !== undefined;
  }

  /** The paths of the stored files with each of these content hashes, by path. */
  pathsByHash(hashes: readonly string[]): Array<{ path: string; hash: string }> {
    return this.db
      .prepare<[string], { path: string; hash: string }>('SELECT f.path, f.hash FROM json_each(?) AS j JOIN files AS f ON f.hash = j.value ORDER BY f.path')
      .all(JSON.stringify(hashes));
  }

  /** Files chunked by the line-window fallback although their language has a grammar, by language and reason. */
  fallbacks(): Array<{ language: string; reason: string; files: number; example: string }> {
    return this.db
      .prepare<[], { language: string; reason: string; files: number; example: string }>(
        'SELECT language, fallback AS reason, count(*) AS files, min(path) AS example FROM files WHERE fallback IS NOT NULL GROUP BY language, fallback ORDER BY files DESC',
      )
      .all();
  }

  /** Files by the parser that chunked them. */
  parsers(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const r of this.db.prepare<[], { parser: string; n: number }>('SELECT parser, count(*) AS n FROM files GROUP BY parser').all()) out[r.parser] = r.n;
    return out;
  }

  counts(): FileCounts {
    const byLanguage: Record<string, number> = {};
    const byContentType: Record<string, number> = {};
    let files = 0;
    let bytes = 0;
    const rows = this.db
      .prepare<[], { language: string; contentType: string; n: number; bytes: number }>(
        'SELECT language, content_type AS contentType, count(*) AS n, sum(size) AS bytes FROM files GROUP BY language, content_type',
      )
      .all();
    for (const r of rows) {
      byLanguage[r.language] = (byLanguage[r.language] ?? 0) + r.n;
      byContentType[r.contentType] = (byContentType[r.contentType] ?? 0) + r.n;
      files += r.n;
      bytes += r.bytes;
    }
    return { files, bytes, byLanguage, byContentType };
  }
}
