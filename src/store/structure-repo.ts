import type { ImportDraft, ImportKind, SymbolDraft, SymbolKind } from '../core/symbol.js';
import type { Db } from './database.js';

/** A stored definition with the file it is in. */
export interface SymbolRow extends Omit<SymbolDraft, 'container'> {
  readonly id: number;
  readonly path: string;
  readonly language: string;
  readonly container: string | null;
}

/** Where a definition is: its name, kind and container, and its 1-based lines and columns. */
export interface DefinitionSpan {
  readonly name: string;
  readonly kind: string;
  readonly container: string | null;
  readonly startLine: number;
  readonly startCol: number;
  readonly endLine: number;
  readonly endCol: number;
}

export interface ImportRow {
  readonly path: string;
  readonly line: number;
  readonly kind: ImportKind;
  readonly source: string;
  readonly names: readonly string[];
}

const SYMBOL_COLUMNS = `s.id AS id, f.path AS path, f.language AS language, s.name AS name, s.kind AS kind, s.container AS container,
  s.signature AS signature, s.start_line AS startLine, s.start_col AS startCol, s.end_line AS endLine, s.end_col AS endCol, s.exported AS exported`;

type RawSymbol = Omit<SymbolRow, 'exported'> & { exported: number };
const toSymbol = (r: RawSymbol): SymbolRow => ({ ...r, exported: r.exported === 1 });
type RawImport = Omit<ImportRow, 'names'> & { names: string };
const toImport = (r: RawImport): ImportRow => ({ ...r, names: r.names ? r.names.split(' ') : [] });

/** Definitions and imports per file, written and deleted with the file's chunks. */
export class StructureRepo {
  private readonly insertSymbolStmt;
  private readonly insertImportStmt;
  private readonly deleteSymbolsStmt;
  private readonly deleteImportsStmt;
  private readonly copySymbolsStmt;
  private readonly copyImportsStmt;
  // the reads a reference search makes once per candidate file, prepared once
  private readonly inFileStmt;
  private readonly importsOfStmt;
  private readonly spansStmt;
  private readonly importLinesStmt;

  constructor(private readonly db: Db) {
    this.insertSymbolStmt = db.prepare<[number, string, string, string | null, string, number, number, number, number, number]>(
      `INSERT INTO symbols(file_id, name, kind, container, signature, start_line, start_col, end_line, end_col, exported)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.insertImportStmt = db.prepare<[number, number, string, string, string]>('INSERT INTO imports(file_id, line, kind, source, names) VALUES (?, ?, ?, ?, ?)');
    this.deleteSymbolsStmt = db.prepare<[number]>('DELETE FROM symbols WHERE file_id = ?');
    this.deleteImportsStmt = db.prepare<[number]>('DELETE FROM imports WHERE file_id = ?');
    // ordered by id: the copies get ids in the order the parser emitted the originals
    this.copySymbolsStmt = db.prepare<[number, number]>(
      `INSERT INTO symbols(file_id, name, kind, container, signature, start_line, start_col, end_line, end_col, exported)
       SELECT ?, name, kind, container, signature, start_line, start_col, end_line, end_col, exported FROM symbols WHERE file_id = ? ORDER BY id`,
    );
    this.copyImportsStmt = db.prepare<[number, number]>('INSERT INTO imports(file_id, line, kind, source, names) SELECT ?, line, kind, source, names FROM imports WHERE file_id = ? ORDER BY id');
    this.inFileStmt = db.prepare<[string], RawSymbol>(`SELECT ${SYMBOL_COLUMNS} FROM symbols s JOIN files f ON f.id = s.file_id WHERE f.path = ? ORDER BY s.start_line, s.start_col`);
    this.spansStmt = db.prepare<[number], DefinitionSpan>(
      `SELECT name, kind, container, start_line AS startLine, start_col AS startCol, end_line AS endLine, end_col AS endCol
       FROM symbols WHERE file_id = ? ORDER BY start_line, start_col`,
    );
    this.importLinesStmt = db.prepare<[number], { line: number }>('SELECT line FROM imports WHERE file_id = ? ORDER BY line');
    this.importsOfStmt = db.prepare<[string], RawImport>(
      'SELECT f.path AS path, i.line AS line, i.kind AS kind, i.source AS source, i.names AS names FROM imports i JOIN files f ON f.id = i.file_id WHERE f.path = ? ORDER BY i.line',
    );
  }

  /** Writes a file's definitions and imports. */
  insert(fileId: number, symbols: readonly SymbolDraft[], imports: readonly ImportDraft[]): void {
    for (const s of symbols) {
      this.insertSymbolStmt.run(fileId, s.name, s.kind, s.container ?? null, s.signature, s.startLine, s.startCol, s.endLine, s.endCol, s.exported ? 1 : 0);
    }
    for (const i of imports) this.insertImportStmt.run(fileId, i.line, i.kind, i.source, i.names.join(' '));
  }

  /**
   * Gives file `toId` the definitions and imports of file `fromId`, which has the same content.
   * Nothing stored here depends on the file's path (the path is joined from `files` on read).
   */
  copy(fromId: number, toId: number): void {
    this.copySymbolsStmt.run(toId, fromId);
    this.copyImportsStmt.run(toId, fromId);
  }

  deleteForFile(fileId: number): void {
    this.deleteSymbolsStmt.run(fileId);
    this.deleteImportsStmt.run(fileId);
  }

  /** Definitions named `name`, case-insensitively (exact-case ones sort first in search/). */
  byName(name: string, kinds: readonly SymbolKind[] | undefined, limit: number): SymbolRow[] {
    const kindSql = kinds?.length ? ` AND s.kind IN (${kinds.map(() => '?').join(', ')})` : '';
    return this.db
      .prepare<unknown[], RawSymbol>(`SELECT ${SYMBOL_COLUMNS} FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.name = ? COLLATE NOCASE${kindSql} LIMIT ?`)
      .all(name, ...(kinds ?? []), limit)
      .map(toSymbol);
  }

  /** Definitions whose name starts with `prefix` (case-insensitive), shortest names first. */
  byPrefix(prefix: string, kinds: readonly SymbolKind[] | undefined, limit: number): SymbolRow[] {
    const kindSql = kinds?.length ? ` AND s.kind IN (${kinds.map(() => '?').join(', ')})` : '';
    // a range on the NOCASE index: names in [prefix, prefix + U+FFFF)
    return this.db
      .prepare<unknown[], RawSymbol>(
        `SELECT ${SYMBOL_COLUMNS} FROM symbols s JOIN files f ON f.id = s.file_id
         WHERE s.name >= ? COLLATE NOCASE AND s.name < ? COLLATE NOCASE${kindSql} ORDER BY length(s.name), s.name LIMIT ?`,
      )
      .all(prefix, `${prefix}\uffff`, ...(kinds ?? []), limit)
      .map(toSymbol);
  }

  /** Distinct symbol names, for typo-tolerant matching (cached by the caller per data version). */
  names(): string[] {
    return this.db
      .prepare<[], { name: string }>('SELECT DISTINCT name FROM symbols')
      .all()
      .map((r) => r.name);
  }

  /** Changes whenever symbols are written or deleted: a cache key for `names()`. */
  version(): string {
    const r = this.db
      .prepare("SELECT count(*) AS n, max(id) AS m, (SELECT value FROM meta WHERE key = 'last_pass_at') AS t FROM symbols")
      .get() as { n: number; m: number | null; t: string | null };
    return `${r.n}:${r.m ?? 0}:${r.t ?? ''}`;
  }

  /** The definitions of the file with row id `fileId`, in source order, with only what locates them (a reference search's windows). */
  definitionSpans(fileId: number): DefinitionSpan[] {
    return this.spansStmt.all(fileId);
  }

  /** The lines where imports of the file with row id `fileId` start. */
  importLines(fileId: number): Array<{ line: number }> {
    return this.importLinesStmt.all(fileId);
  }

  /** Definitions in one file, in source order. */
  inFile(path: string): SymbolRow[] {
    return this.inFileStmt.all(path).map(toSymbol);
  }


  byId(id: number): SymbolRow | undefined {
    const row = this.db.prepare<[number], RawSymbol>(`SELECT ${SYMBOL_COLUMNS} FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.id = ?`).get(id);
    return row ? toSymbol(row) : undefined;
  }

  /** Imports of one file, in source order. */
  importsOf(path: string): ImportRow[] {
    return this.importsOfStmt.all(path).map(toImport);
  }


  /** The import specifiers of the listed files as [path, source] tuples (one read; companion ranking of long texts). */
  importSourcesOf(paths: readonly string[]): Array<[path: string, source: string]> {
    if (paths.length === 0) return [];
    return this.db
      .prepare<string[], [string, string]>(`SELECT f.path, i.source FROM imports i JOIN files f ON f.id = i.file_id WHERE f.path IN (${paths.map(() => '?').join(', ')})`)
      .raw()
      .all(...paths) as unknown as Array<[string, string]>;
  }

  /** Imports whose specifier contains `fragment` (candidates for "who imports this file"). */
  importsMentioning(fragment: string, limit: number): ImportRow[] {
    return this.db
      .prepare<[string, number], RawImport>(
        `SELECT f.path AS path, i.line AS line, i.kind AS kind, i.source AS source, i.names AS names FROM imports i JOIN files f ON f.id = i.file_id
         WHERE instr(i.source, ?) > 0 ORDER BY f.path, i.line LIMIT ?`,
      )
      .all(fragment, limit)
      .map(toImport);
  }

  /** Every import of every code file as [path, language, source] tuples, in no particular order: the repo map's graph in one read. */
  codeImports(): Array<[path: string, language: string, source: string]> {
    return this.db
      .prepare<[], [string, string, string]>(
        "SELECT f.path, f.language, i.source FROM imports i JOIN files f ON f.id = i.file_id WHERE f.content_type = 'code'",
      )
      .raw()
      .all() as unknown as Array<[string, string, string]>;
  }

  /** Top-level exported definitions of code files as [path, name, kind, signature], grouped by file, in source order. */
  codeExports(): Array<[path: string, name: string, kind: SymbolKind, signature: string]> {
    return this.db
      .prepare<[], [string, string, SymbolKind, string]>(
        `SELECT f.path, s.name, s.kind, s.signature FROM symbols s JOIN files f ON f.id = s.file_id
         WHERE s.container IS NULL AND s.exported = 1 AND f.content_type = 'code' ORDER BY s.file_id, s.start_line, s.start_col, s.id`,
      )
      .raw()
      .all() as unknown as Array<[string, string, SymbolKind, string]>;
  }

  counts(): { symbols: number; imports: number } {
    const symbols = (this.db.prepare('SELECT count(*) AS n FROM symbols').get() as { n: number }).n;
    const imports = (this.db.prepare('SELECT count(*) AS n FROM imports').get() as { n: number }).n;
    return { symbols, imports };
  }
}
