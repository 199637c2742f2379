/**
 * The fixed baseline of the development benchmark (issue 18): plain BM25 over 60-line windows.
 * Every file the engine indexed is cut into consecutive 60-line windows (no overlap, no structure),
 * put into an in-memory SQLite FTS5 table with one column and the default `unicode61` tokenizer,
 * and searched with the OR of the query's distinct words, ranked by FTS5's `bm25()`: no fields,
 * no priors, no structure. Identifiers are split as any code search must (`parseHeader` is
 * indexed as `parseHeader parse Header`; `_` already separates words in unicode61), on both sides. It does not depend on scry's ranking, so it stays the same
 * yardstick while the ranking changes, and is measured in the same run as the variants.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openConnection, type Connection } from '../src/store/driver.js';
import type { Engine } from '../src/index.js';
import type { RankedHit } from '../src/eval/metrics.js';

export const BASELINE = 'bm25-windows';
const WINDOW = 60;
/** Terms kept of a long query (its first distinct words): FTS5 queries stay cheap. */
const MAX_TERMS = 256;

export interface SourceFile {
  readonly path: string;
  readonly text: string;
}

/** `text` with each camelCase identifier followed by its parts: `parseHeader` → `parseHeader parse Header`. */
export function splitIdentifiers(text: string): string {
  return text.replace(/\b[A-Za-z][a-z0-9]*[A-Z][A-Za-z0-9]*\b/g, (id) => `${id} ${id.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/([A-Z])([A-Z][a-z])/g, '$1 $2')}`);
}

/** The FTS5 query: the distinct words of `query` (letters and digits, identifiers split), each quoted, joined by OR. */
export function orQuery(query: string): string | undefined {
  const words = [...new Set((splitIdentifiers(query).toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => w.length > 1))].slice(0, MAX_TERMS);
  return words.length === 0 ? undefined : words.map((w) => `"${w}"`).join(' OR ');
}

export class WindowBm25 {
  private constructor(private readonly db: Connection) {}

  static build(files: Iterable<SourceFile>): WindowBm25 {
    const db = openConnection(':memory:');
    db.exec('CREATE TABLE win(id INTEGER PRIMARY KEY, path TEXT, start INTEGER, end INTEGER); CREATE VIRTUAL TABLE body USING fts5(text)');
    const meta = db.prepare('INSERT INTO win(id, path, start, end) VALUES (?, ?, ?, ?)');
    const text = db.prepare('INSERT INTO body(rowid, text) VALUES (?, ?)');
    let id = 0;
    db.transaction(() => {
      for (const f of files) {
        const lines = f.text.split('\n');
        for (let i = 0; i < lines.length; i += WINDOW) {
          id++;
          meta.run(id, f.path, i + 1, Math.min(lines.length, i + WINDOW));
          text.run(id, splitIdentifiers(lines.slice(i, i + WINDOW).join('\n')));
        }
      }
    });
    return new WindowBm25(db);
  }

  search(query: string, limit: number): RankedHit[] {
    const match = orQuery(query);
    if (!match) return [];
    const rows = this.db
      .prepare('SELECT w.path AS path, w.start AS startLine, w.end AS endLine FROM body JOIN win w ON w.id = body.rowid WHERE body MATCH ? ORDER BY bm25(body) LIMIT ?')
      .all(match, limit) as RankedHit[];
    return rows;
  }

  close(): void {
    this.db.close();
  }
}

/** Paths of every file `engine` indexed. */
async function indexedPaths(engine: Engine): Promise<string[]> {
  const listing = await engine.listFiles({ limit: 10_000, includeHidden: true });
  return listing.files.map((f) => f.path);
}

/** The baseline over the files `engine` indexed, read from the directory `root`. */
export async function baselineFromTree(engine: Engine, root: string): Promise<WindowBm25> {
  const paths = await indexedPaths(engine);
  return WindowBm25.build(paths.map((path) => ({ path, text: readFileSync(join(root, path), 'utf8') })));
}

/** The baseline over the files `engine` indexed, read from the git repository at `repo` (bare or not) at `commit`. */
export async function baselineAtCommit(engine: Engine, repo: string, commit: string): Promise<WindowBm25> {
  const paths = await indexedPaths(engine);
  const cat = spawnSync('git', ['-C', repo, 'cat-file', '--batch'], { input: paths.map((p) => `${commit}:${p}`).join('\n') + '\n', maxBuffer: 1 << 30 });
  if (cat.status !== 0) throw new Error(`git cat-file failed in ${repo}: ${cat.stderr.toString()}`);
  const out = cat.stdout;
  const files: SourceFile[] = [];
  let at = 0;
  for (const path of paths) {
    const nl = out.indexOf(10, at);
    const header = out.subarray(at, nl).toString('utf8');
    at = nl + 1;
    if (header.endsWith(' missing')) continue;
    const size = Number(header.split(' ')[2]);
    files.push({ path, text: out.subarray(at, at + size).toString('utf8') });
    at += size + 1;
  }
  return WindowBm25.build(files);
}
