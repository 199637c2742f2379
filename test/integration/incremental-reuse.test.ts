import { openConnection } from '../../src/store/driver.js';
import { copyFileSync, mkdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../src/index.js';
import { backdate, writeSmallRepo } from '../helpers/fixture-repo.js';
import { isolatedEnv, tempDir, writeTree } from '../helpers/temp.js';

/** Files whose chunks carry the FTS fields that only a parse knows: merged siblings, frontmatter tags, key paths. */
const EXTRA: Record<string, string> = {
  'src/util/strings.ts': [
    "import { join } from 'node:path';",
    "import type { Stats } from 'node:fs';",
    '',
    'export const trimAll = (xs: string[]) => xs.map((x) => x.trim());',
    'export const upperFirst = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);',
    'export function joinSegments(a: string, b: string) { return join(a, b); }',
    '',
    '/** A counter of visited paths. */',
    'export class VisitCounter {',
    '  private readonly seen = new Map<string, number>();',
    '  visit(path: string, stats?: Stats): number {',
    '    const n = (this.seen.get(path) ?? 0) + 1;',
    '    this.seen.set(path, n);',
    '    return n;',
    '  }',
    '}',
  ].join('\n'),
  'docs/tagged.md': ['---', 'title: Release checklist', 'tags: [shipping, versioning]', '---', '', '# Release checklist', '', 'Bump the version, then tag.', ''].join('\n'),
  'config/tsconfig.json': JSON.stringify({ compilerOptions: { strict: true, target: 'es2022', paths: { '@app/*': ['src/*'] } } }, null, 2),
  'scripts/run_tool': '#!/usr/bin/env python3\nimport sys\n\ndef main(argv):\n    return len(argv)\n',
};

/** Every row of an index that a search, a symbol lookup or an outline reads, with ids replaced by paths and ordinals. */
function dumpIndex(dbPath: string): Record<string, unknown[]> {
  const db = openConnection(dbPath);
  try {
    db.exec("CREATE VIRTUAL TABLE temp.fts_instances USING fts5vocab(main, chunks_fts, 'instance')");
    const q = (sql: string): unknown[] => db.prepare(sql).raw().all();
    return {
      files: q('SELECT path, language, content_type, size, hash, encoding, line_count, feature_version, parser, fallback, metadata FROM files ORDER BY path'),
      chunks: q(`SELECT f.path, c.ordinal, c.kind, c.start_line, c.end_line, c.start_byte, c.end_byte, c.hash, c.symbol, c.container, c.signature, c.defines
                 FROM chunks c JOIN files f ON f.id = c.file_id ORDER BY f.path, c.ordinal`),
      // the FTS fields as indexed: every token of every field of every chunk, with its position
      fts: q(`SELECT f.path, c.ordinal, i.col, i.offset, i.term FROM temp.fts_instances i JOIN chunks c ON c.id = i.doc JOIN files f ON f.id = c.file_id
              ORDER BY f.path, c.ordinal, i.col, i.offset`),
      symbols: q(`SELECT f.path, s.name, s.kind, s.container, s.signature, s.start_line, s.start_col, s.end_line, s.end_col, s.exported
                  FROM symbols s JOIN files f ON f.id = s.file_id ORDER BY f.path, s.id`),
      imports: q('SELECT f.path, i.line, i.kind, i.source, i.names FROM imports i JOIN files f ON f.id = i.file_id ORDER BY f.path, i.id'),
      content: q('SELECT hash FROM content ORDER BY hash'),
    };
  } finally {
    db.close();
  }
}

/** Drops row ids and timings; and scores, with `scores: false` (FTS statistics keep traces of deleted rows until segments merge). */
function withoutIds(value: unknown, scores = true): unknown {
  const drop = new Set(['id', 'chunkId', 'tookMs', ...(scores ? [] : ['score'])]);
  if (Array.isArray(value)) return value.map((v) => withoutIds(v, scores));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).filter(([k]) => !drop.has(k)).map(([k, v]) => [k, withoutIds(v, scores)]));
  }
  return value;
}

/** What an agent sees of a set of paths: searches, symbols, references, outlines. */
async function views(engine: Engine, paths: readonly string[]): Promise<unknown> {
  const out: Record<string, unknown> = {};
  for (const q of ['VisitCounter visit', 'upperFirst', 'release versioning', 'strict target', 'retry backoff', 'main argv']) out[`search ${q}`] = (await engine.search(q)).results;
  for (const name of ['VisitCounter', 'trimAll', 'retry_with_backoff', 'main']) out[`symbols ${name}`] = await engine.symbols(name);
  out['references join'] = await engine.references('join');
  for (const p of paths) out[`outline ${p}`] = await engine.outline(p);
  return withoutIds(out, false);
}

describe('incremental passes that reuse what the index holds', () => {
  let t: ReturnType<typeof tempDir>;
  let root: string;
  let engine: Engine;
  const db = (): string => join(t.dir, 'index.db');

  beforeEach(async () => {
    t = tempDir();
    root = join(t.dir, 'repo');
    mkdirSync(root);
    writeSmallRepo(root, EXTRA);
    engine = await createEngine({ root, db: db(), env: isolatedEnv(t.dir) });
    await engine.index();
  });
  afterEach(() => {
    engine.close();
    t.cleanup();
  });

  /** A fresh index of the tree as it is now, for comparison. */
  async function freshIndex(name: string, paths: readonly string[]): Promise<{ rows: Record<string, unknown[]>; views: unknown }> {
    const fresh = await createEngine({ root, db: join(t.dir, `${name}.db`), env: isolatedEnv(t.dir) });
    try {
      const report = await fresh.index();
      expect(report.filesReused).toBe(0);
      return { rows: dumpIndex(fresh.dbPath), views: await views(fresh, paths) };
    } finally {
      fresh.close();
    }
  }

  it('touching 50 files costs a hash each: all touched, none indexed, chunk rows untouched', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 50; i++) files[`gen/mod${i}.ts`] = `export function generated${i}() { return ${i}; }\n`;
    writeTree(root, files);
    backdate(root, Object.keys(files));
    expect(await engine.index()).toMatchObject({ filesIndexed: 50 });
    const chunkRows = (): unknown[] => openConnection(db(), { readonly: true }).prepare('SELECT id, file_id, hash FROM chunks ORDER BY id').raw().all();
    const before = chunkRows();
    backdate(root, Object.keys(files), 600);
    const report = await engine.index();
    expect(report).toMatchObject({ filesTouched: 50, filesIndexed: 0, filesReused: 0, filesRemoved: 0, chunksWritten: 0 });
    expect(chunkRows()).toEqual(before);
    // the new mtimes were recorded: the next pass does not even hash them
    expect(await engine.index()).toMatchObject({ filesTouched: 0, filesIndexed: 0, filesUnchanged: 60 });
  });

  it('a rename in a scoped pass copies the stored rows: the same rows, searches, symbols and outline as a fresh index', async () => {
    renameSync(join(root, 'src/util/strings.ts'), join(root, 'src/strings-moved.ts'));
    const report = await engine.index({ paths: ['src/util/strings.ts', 'src/strings-moved.ts'] });
    expect(report).toMatchObject({ filesSeen: 1, filesIndexed: 1, filesReused: 1, filesRemoved: 1, filesTouched: 0 });
    const fresh = await freshIndex('fresh', ['src/strings-moved.ts']);
    expect(dumpIndex(db())).toEqual(fresh.rows);
    expect(await views(engine, ['src/strings-moved.ts'])).toEqual(fresh.views);
    await expect(engine.outline('src/util/strings.ts')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('is not indexed') });
  });

  it('renames of every kind of file in a full pass: all reused, rows equal to a fresh index', async () => {
    const moves: Array<[string, string]> = [
      ['src/util/strings.ts', 'lib/strings.ts'],
      ['docs/tagged.md', 'handbook/release.md'],
      ['config/tsconfig.json', 'tsconfig.base.json'],
      ['scripts/run_tool', 'bin/run_tool'],
      ['src/http/retry_policy.py', 'src/net/backoff.py'],
    ];
    for (const [from, to] of moves) {
      mkdirSync(join(root, to, '..'), { recursive: true });
      renameSync(join(root, from), join(root, to));
    }
    const report = await engine.index();
    expect(report).toMatchObject({ filesIndexed: 5, filesReused: 5, filesRemoved: 5 });
    const paths = moves.map(([, to]) => to);
    const fresh = await freshIndex('fresh', paths);
    expect(dumpIndex(db())).toEqual(fresh.rows);
    expect(await views(engine, paths)).toEqual(fresh.views);
  });

  it('a copy reuses the original, which stays; the same bytes as another language are parsed', async () => {
    copyFileSync(join(root, 'src/util/strings.ts'), join(root, 'src/util/strings-copy.ts'));
    copyFileSync(join(root, 'src/util/strings.ts'), join(root, 'src/util/strings.js'));
    const report = await engine.index();
    expect(report).toMatchObject({ filesIndexed: 2, filesReused: 1, filesRemoved: 0 });
    expect((await engine.symbols('VisitCounter')).map((s) => s.path).sort()).toEqual(['src/util/strings-copy.ts', 'src/util/strings.js', 'src/util/strings.ts']);
    expect(dumpIndex(db())).toEqual((await freshIndex('fresh', [])).rows);
  });

  it('a stored file written before chunks recorded the names they define is parsed instead of copied, with the same result; a newer copy is preferred', async () => {
    engine.close();
    const raw = openConnection(db());
    raw.exec("UPDATE chunks SET defines = NULL WHERE file_id = (SELECT id FROM files WHERE path = 'src/util/strings.ts')");
    raw.close();
    engine = await createEngine({ root, db: db(), env: isolatedEnv(t.dir) });
    renameSync(join(root, 'src/util/strings.ts'), join(root, 'src/util/renamed.ts'));
    const report = await engine.index({ paths: ['src/util/strings.ts', 'src/util/renamed.ts'] });
    expect(report).toMatchObject({ filesIndexed: 1, filesReused: 0, filesRemoved: 1 });
    expect(dumpIndex(db())).toEqual((await freshIndex('fresh', [])).rows);
    // with a copy written since, that one is copied from, though the old one comes first by id
    engine.close();
    const again = openConnection(db());
    again.exec("UPDATE chunks SET defines = NULL WHERE file_id = (SELECT id FROM files WHERE path = 'docs/tagged.md')");
    again.close();
    engine = await createEngine({ root, db: db(), env: isolatedEnv(t.dir) });
    copyFileSync(join(root, 'docs/tagged.md'), join(root, 'docs/copy1.md'));
    expect(await engine.index({ paths: ['docs/copy1.md'] })).toMatchObject({ filesIndexed: 1, filesReused: 0 });
    copyFileSync(join(root, 'docs/tagged.md'), join(root, 'docs/copy2.md'));
    expect(await engine.index({ paths: ['docs/copy2.md'] })).toMatchObject({ filesIndexed: 1, filesReused: 1 });
    const rows = dumpIndex(db());
    const fresh = (await freshIndex('fresh2', [])).rows;
    // the legacy rows of docs/tagged.md aside (NULL defines), the index is the fresh one
    expect(rows.chunks!.filter((r) => (r as unknown[])[0] !== 'docs/tagged.md')).toEqual(fresh.chunks!.filter((r) => (r as unknown[])[0] !== 'docs/tagged.md'));
    expect({ ...rows, chunks: [] }).toEqual({ ...fresh, chunks: [] });
  });

  it('a copied rename scores exactly like a parsed one (same history, same FTS statistics)', async () => {
    engine.close();
    const parsedDb = join(t.dir, 'parsed.db');
    copyFileSync(db(), parsedDb);
    const raw = openConnection(parsedDb);
    raw.exec("UPDATE chunks SET defines = NULL WHERE file_id IN (SELECT id FROM files WHERE path IN ('src/util/strings.ts', 'docs/tagged.md'))");
    raw.close();
    renameSync(join(root, 'src/util/strings.ts'), join(root, 'src/strings.ts'));
    renameSync(join(root, 'docs/tagged.md'), join(root, 'docs/release.md'));
    const paths = ['src/util/strings.ts', 'src/strings.ts', 'docs/tagged.md', 'docs/release.md'];
    engine = await createEngine({ root, db: db(), env: isolatedEnv(t.dir) });
    expect(await engine.index({ paths })).toMatchObject({ filesReused: 2 });
    const parsed = await createEngine({ root, db: parsedDb, env: isolatedEnv(t.dir) });
    try {
      expect(await parsed.index({ paths })).toMatchObject({ filesIndexed: 2, filesReused: 0 });
      expect(dumpIndex(db())).toEqual(dumpIndex(parsedDb));
      const search = async (e: Engine): Promise<unknown> => withoutIds(await Promise.all(['VisitCounter', 'release checklist', 'trim'].map((q) => e.search(q).then((r) => r.results))));
      expect(await search(engine)).toEqual(await search(parsed));
    } finally {
      parsed.close();
    }
  });
});
