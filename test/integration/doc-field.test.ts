/**
 * The FTS `doc` field (issue 18): comments and docstrings indexed apart from code, weighed by
 * `search.weights.doc`, shown by `--explain`; and an index written before it (schema 9) upgraded.
 */
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../src/index.js';
import { openConnection } from '../../src/store/driver.js';
import { MIGRATIONS, SCHEMA_VERSION } from '../../src/store/migrations/index.js';
import { isolatedEnv, tempDir, writeTree } from '../helpers/temp.js';

const TREE = {
  // the words only in a docstring and a comment
  'src/cache.py': 'def evict(entry):\n    """Drop a stale widget from the shelf."""\n    # the shelf keeps widgets\n    return entry.pop()\n',
  // the same words in code only
  'src/shelf.py': 'def stale_widget(shelf):\n    return shelf.stale_widget\n',
  // files without them, so that the words are rare (BM25's idf)
  ...Object.fromEntries(['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta'].map((n) => [`src/${n}.py`, `def ${n}(x):\n    """Compute ${n}."""\n    return x\n`])),
};

const lexical = { search: { mode: 'lexical' }, embed: { provider: 'none' } } as const;

describe('the doc field', () => {
  const t = tempDir('scry-doc-field-');
  const root = join(t.dir, 'repo');
  const db = join(t.dir, 'index.db');
  const open = (doc: number): Promise<Engine> => createEngine({ root, db, env: isolatedEnv(t.dir), config: { ...lexical, search: { ...lexical.search, weights: { doc } } } });

  beforeAll(async () => {
    writeTree(root, TREE);
    const e = await open(1);
    await e.index();
    e.close();
  }, 120_000);
  afterAll(() => t.cleanup());

  const scoreOf = async (doc: number, query: string): Promise<Map<string, { score: number; why: readonly string[] }>> => {
    const e = await open(doc);
    try {
      const { results } = await e.search(query, { explain: true, rerank: false });
      return new Map(results.map((r) => [r.path, { score: r.score, why: r.why ?? [] }]));
    } finally {
      e.close();
    }
  };

  it('a chunk found by its comments alone scores by the doc weight; code by the others', async () => {
    const at0 = await scoreOf(0, 'shelf widgets');
    const at1 = await scoreOf(1, 'shelf widgets');
    const at3 = await scoreOf(3, 'shelf widgets');
    expect(at0.get('src/cache.py')!.score).toBeLessThan(at1.get('src/cache.py')!.score);
    expect(at1.get('src/cache.py')!.score).toBeLessThan(at3.get('src/cache.py')!.score);
    // code matches do not move with the doc weight
    expect(at0.get('src/shelf.py')!.score).toBe(at3.get('src/shelf.py')!.score);
  });

  it('--explain shows what the doc field adds, only where comments matched', async () => {
    const at3 = await scoreOf(3, 'stale widget shelf');
    expect(at3.get('src/cache.py')!.why.some((w) => /^of which doc \(comments, docstrings × 3\) [\d.]+$/.test(w))).toBe(true);
    expect(at3.get('src/shelf.py')!.why.some((w) => w.startsWith('of which doc'))).toBe(false);
    const at0 = await scoreOf(0, 'stale widget shelf');
    expect(at0.get('src/cache.py')!.why.some((w) => w.startsWith('of which doc'))).toBe(false);
  });

  it('--explain shows it in the blended ranking too (the default for a natural-language question)', async () => {
    const e = await createEngine({ root, db: join(t.dir, 'blend.db'), env: isolatedEnv(t.dir), config: { embed: { provider: 'builtin' }, search: { weights: { doc: 3 } } } });
    try {
      await e.index();
      const { results, meta } = await e.search('where is a stale widget dropped from the shelf', { explain: true, rerank: false });
      expect(meta).toMatchObject({ mode: 'hybrid', queryKind: 'natural' });
      const hit = results.find((r) => r.path === 'src/cache.py')!;
      expect(hit.ranker?.model).toBe('blend');
      expect(hit.why!.some((w) => /^of which doc \(comments, docstrings × 3\) [\d.]+$/.test(w))).toBe(true);
    } finally {
      e.close();
    }
  }, 120_000);

  it('a copied file (rows copied, not parsed) gets the same doc field', async () => {
    const before = await scoreOf(3, 'stale widget shelf');
    copyFileSync(join(root, 'src/cache.py'), join(root, 'src/cache_copy.py'));
    const e = await open(1);
    try {
      await e.index();
    } finally {
      e.close();
    }
    const after = await scoreOf(3, 'stale widget shelf');
    const copy = after.get('src/cache_copy.py')!;
    expect(copy.why.find((w) => w.startsWith('of which doc'))).toBeDefined();
    expect(before.get('src/cache.py')!.why.find((w) => w.startsWith('of which doc'))).toBeDefined();
    const raw = openConnection(db, { readonly: true });
    try {
      const spans = raw.prepare<[string], { s: string }>('SELECT c.doc_spans AS s FROM chunks c JOIN files f ON f.id = c.file_id WHERE f.path = ? ORDER BY c.ordinal');
      expect(spans.all('src/cache_copy.py')).toEqual(spans.all('src/cache.py'));
      expect(spans.all('src/cache.py')[0]!.s).not.toBe('');
    } finally {
      raw.close();
    }
  });
});

describe('upgrading an index written before the doc field (schema 9)', () => {
  it('opens, says it needs a re-index, re-chunks every file on the next pass and loses none', async () => {
    const t = tempDir('scry-doc-upgrade-');
    try {
      const root = join(t.dir, 'repo');
      writeTree(root, TREE);
      const db = join(t.dir, 'old.db');
      const raw = openConnection(db);
      for (const m of MIGRATIONS.filter((m) => m.version <= 9)) raw.exec(m.sql);
      raw.pragma('user_version = 9');
      const body = Buffer.from(TREE['src/cache.py']);
      raw.prepare("INSERT INTO content(hash, body) VALUES ('h1', ?)").run(body);
      raw.prepare("INSERT INTO files(path, language, content_type, size, mtime_ms, hash, encoding, line_count, feature_version, indexed_at_ms) VALUES ('src/cache.py', 'python', 'code', ?, 1, 'h1', 'utf-8', 4, 7, 1)").run(body.length);
      raw.prepare("INSERT INTO chunks(file_id, ordinal, kind, start_line, end_line, start_byte, end_byte, hash, symbol, defines) VALUES (1, 0, 'function', 1, 4, 0, ?, 'c1', 'evict', '')").run(body.length);
      raw.prepare("INSERT INTO chunks_fts(rowid, stem, path, symbol, signature, body, parts) VALUES (1, 'cache', 'src cache', 'evict', 'def evict(entry)', ?, '')").run(body.toString());
      raw.prepare("INSERT INTO meta(key, value) VALUES ('feature_version', '7'), ('root', ?)").run(root);
      raw.close();
      const engine = await createEngine({ root, db, env: isolatedEnv(t.dir), config: lexical });
      try {
        const before = engine.status();
        expect(before).toMatchObject({ schemaVersion: SCHEMA_VERSION, featureVersionCurrent: false, files: 1 });
        expect(SCHEMA_VERSION).toBe(12);
        const report = await engine.index();
        expect(report.filesIndexed).toBe(10);
        expect(engine.status()).toMatchObject({ featureVersionCurrent: true, files: 10 });
        // the docstring's words are found (in the doc field), and so is the code
        expect((await engine.search('stale widget shelf')).results.map((r) => r.path)).toContain('src/cache.py');
        expect((await engine.search('evict')).results[0]).toMatchObject({ path: 'src/cache.py', symbol: 'evict' });
      } finally {
        engine.close();
      }
    } finally {
      t.cleanup();
    }
  }, 120_000);
});
