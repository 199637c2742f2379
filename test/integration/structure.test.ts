/**
 * Code structure end to end: a real index pass over a small multi-language repository, then
 * symbol lookup, references, outlines and status through the engine and the CLI; and the upgrade
 * of an index written before structure existed (schema 3).
 */
import { openConnection } from '../../src/store/driver.js';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../src/index.js';
import { migration001 } from '../../src/store/migrations/001-initial.js';
import { migration002 } from '../../src/store/migrations/002-skipped.js';
import { migration003 } from '../../src/store/migrations/003-drop-chunk-hash-index.js';
import { SCHEMA_VERSION } from '../../src/store/migrations/index.js';
import { runCli } from '../helpers/cli.js';
import { isolatedEnv, tempDir, writeTree } from '../helpers/temp.js';

const REPO: Record<string, string> = {
  'src/store/database.ts': [
    "import Database from 'better-sqlite3';",
    "import { retryBusy } from '../util/retry.js';",
    '',
    '/** Opens the index database. */',
    'export function openDatabase(path: string): Database.Database {',
    '  return retryBusy(() => new Database(path));',
    '}',
    '',
    'export class IndexStore {',
    '  constructor(private readonly path: string) {}',
    '  /** Runs fn in one transaction. */',
    '  transaction<T>(fn: () => T): T {',
    '    return fn();',
    '  }',
    '}',
    '',
    'function privateHelper(): number {',
    '  return 1;',
    '}',
  ].join('\n'),
  'src/util/retry.ts': [
    '/** Retries a function that fails with SQLITE_BUSY. */',
    'export function retryBusy<T>(fn: () => T, attempts = 3): T {',
    '  for (let i = 0; ; i++) {',
    '    try {',
    '      return fn();',
    '    } catch (err) {',
    '      if (i >= attempts) throw err;',
    '    }',
    '  }',
    '}',
  ].join('\n'),
  'src/app.ts': [
    "import { openDatabase, IndexStore } from './store/database.js';",
    '',
    '// openDatabase is called once at startup',
    "const db = openDatabase('index.db');",
    "const store = new IndexStore('index.db');",
    'export const ready = Boolean(db && store);',
    "export const label = 'openDatabase';",
  ].join('\n'),
  'test/store/database.test.ts': ["import { openDatabase } from '../../src/store/database.js';", "openDatabase(':memory:');"].join('\n'),
  'tools/report.py': [
    'import os',
    'from .helpers import fmt',
    '',
    'class Report:',
    '    """A report."""',
    '',
    '    def render(self, rows):',
    '        return fmt(rows)',
    '',
    'def _private():',
    '    return os.getcwd()',
  ].join('\n'),
  'tools/helpers.py': ['def fmt(rows):', '    return str(rows)'].join('\n'),
  // a container whose name ends like another's: `IndexStore.transaction` must not match it
  'src/store/async-store.ts': ['export class AsyncIndexStore {', '  transaction(): void {}', '}'].join('\n'),
  // ambient declarations are visible to importers although not `export`ed
  'types/lib.d.ts': ['declare namespace Lib {', '  function make(): void;', '}'].join('\n'),
  'docs/guide.md': ['---', 'title: Guide', 'tags: [setup, database]', '---', '', '# Setup', '', 'Call openDatabase first.'].join('\n'),
  'config/services.yaml': ['services:', '  api:', '    retry:', '      attempts: 3', '  db:', '    path: index.db'].join('\n'),
};

describe('code structure', () => {
  let t: ReturnType<typeof tempDir>;
  let root: string;
  let db: string;
  let engine: Engine;

  beforeAll(async () => {
    t = tempDir();
    root = join(t.dir, 'repo');
    writeTree(root, REPO);
    db = join(t.dir, 'index.db');
    engine = await createEngine({ root, db, env: isolatedEnv(t.dir) });
    await engine.index();
  });
  afterAll(() => {
    engine.close();
    t.cleanup();
  });

  it('finds definitions by exact name first, exported before private, source before tests', async () => {
    const hits = await engine.symbols('openDatabase');
    expect(hits[0]).toMatchObject({ name: 'openDatabase', kind: 'function', path: 'src/store/database.ts', startLine: 5, match: 'exact', exported: true });
    expect(hits[0]!.signature).toBe('function openDatabase(path: string): Database.Database');
  });

  it('finds by prefix, by typo, case-insensitively, by kind and by container', async () => {
    expect((await engine.symbols('openData'))[0]).toMatchObject({ name: 'openDatabase', match: 'prefix' });
    expect((await engine.symbols('opneDatabase'))[0]).toMatchObject({ name: 'openDatabase', match: 'fuzzy', distance: 2 });
    expect((await engine.symbols('indexstore'))[0]).toMatchObject({ name: 'IndexStore', kind: 'class', match: 'exact' });
    expect((await engine.symbols('transaction')).find((h) => h.path === 'src/store/database.ts')).toMatchObject({ name: 'transaction', kind: 'method', container: 'IndexStore' });
    expect((await engine.symbols('IndexStore.transaction')).map((h) => h.path)).toEqual(['src/store/database.ts']);
    expect((await engine.symbols('transaction')).map((h) => h.container).sort()).toEqual(['AsyncIndexStore', 'IndexStore']);
    expect((await engine.symbols('make'))[0]).toMatchObject({ kind: 'function', container: 'Lib', exported: true });
    expect(await engine.symbols('Other.transaction')).toHaveLength(0);
    expect((await engine.symbols('Report', { kind: 'class' }))[0]).toMatchObject({ path: 'tools/report.py', kind: 'class' });
    expect(await engine.symbols('Report', { kind: 'function' })).toEqual([]);
    const priv = await engine.symbols('_private');
    expect(priv[0]).toMatchObject({ kind: 'function', exported: false });
    await expect(engine.symbols('x', { kind: 'widget' })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(engine.symbols('   ')).rejects.toMatchObject({ code: 'QUERY_EMPTY' });
  });

  it('lists references by file: the defining file first, then calls, imports, uses and mentions', async () => {
    const refs = await engine.references('openDatabase');
    expect(refs.files[0]!.path).toBe('src/store/database.ts');
    expect(refs.files[0]!.references[0]).toMatchObject({ kind: 'definition', line: 5 });
    const app = refs.files.find((f) => f.path === 'src/app.ts')!;
    expect(app.references.map((r) => `${r.line}:${r.kind}`)).toEqual(['4:call', '1:import', '3:text', '7:text']);
    const md = refs.files.find((f) => f.path === 'docs/guide.md')!;
    expect(md.references[0]).toMatchObject({ kind: 'text', line: 8 });
    expect(refs.total).toBe(refs.files.reduce((n, f) => n + f.references.length, 0));
    expect(refs.truncated).toBe(false);
    const limited = await engine.references('openDatabase', { limit: 2 });
    expect(limited.total).toBe(2);
    expect(limited.truncated).toBe(true);
    const ctor = await engine.references('IndexStore');
    expect(ctor.files.find((f) => f.path === 'src/app.ts')!.references.map((r) => r.kind)).toContain('call');
    await expect(engine.references('not an identifier')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });

  it('outlines a file: symbols, resolved imports, importers and tests', async () => {
    const o = await engine.outline('src/store/database.ts');
    expect(o.parser).toBe('tree-sitter');
    expect(o.symbols.map((s) => `${s.kind} ${s.container ? `${s.container}.` : ''}${s.name}`)).toEqual([
      'function openDatabase',
      'class IndexStore',
      'method IndexStore.constructor',
      'method IndexStore.transaction',
      'function privateHelper',
    ]);
    expect(o.imports.map((i) => [i.source, i.resolved])).toEqual([
      ['better-sqlite3', null],
      ['../util/retry.js', 'src/util/retry.ts'],
    ]);
    expect(o.importedBy.map((i) => i.path)).toEqual(['src/app.ts', 'test/store/database.test.ts']);
    expect(o.tests).toEqual(['test/store/database.test.ts']);
    const py = await engine.outline('tools/report.py');
    expect(py.imports.map((i) => [i.source, i.resolved])).toEqual([
      ['os', null],
      ['.helpers', 'tools/helpers.py'],
    ]);
    const md = await engine.outline('docs/guide.md');
    expect(md.metadata).toEqual({ title: 'Guide', tags: ['setup', 'database'] });
    await expect(engine.outline('nope.ts')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(engine.outline('../outside.ts')).rejects.toMatchObject({ code: 'PATH_OUTSIDE_ROOT' });
  });

  it('indexes symbol names and signatures, so naming a function finds its definition first', async () => {
    const r = await engine.search('retryBusy');
    expect(r.results[0]).toMatchObject({ path: 'src/util/retry.ts', symbol: 'retryBusy', kind: 'function' });
    // a config key path
    const k = await engine.search('services.api.retry');
    expect(k.results[0]).toMatchObject({ path: 'config/services.yaml', kind: 'key' });
  });

  it('reports structure in status', () => {
    const s = engine.status();
    expect(s.structure.symbols).toBeGreaterThanOrEqual(10);
    expect(s.structure.imports).toBeGreaterThanOrEqual(6);
    expect(s.structure.parsers).toMatchObject({ 'tree-sitter': 8, markdown: 1, yaml: 1 });
    expect(s.structure.fallbacks).toEqual([]);
  });

  it('CLI: symbols, refs and outline, human and --json; bad kinds are usage errors', async () => {
    const sym = await runCli(['symbols', 'openDatabase', '--db', db, '--json'], { cwd: root });
    expect(sym.code).toBe(0);
    expect(JSON.parse(sym.stdout).results[0]).toMatchObject({ name: 'openDatabase', path: 'src/store/database.ts' });
    const human = await runCli(['symbols', 'IndexStore.transaction', '--db', db], { cwd: root });
    expect(human.stdout).toMatch(/method\s+IndexStore\.transaction\s+src\/store\/database\.ts:12:3/);
    const refs = await runCli(['refs', 'retryBusy', '--db', db], { cwd: root });
    expect(refs.stdout).toMatch(/^src\/util\/retry\.ts \(1\)$/m);
    expect(refs.stdout).toMatch(/reference\(s\) in 2 file\(s\)/);
    const outline = await runCli(['outline', 'src/store/database.ts', '--db', db], { cwd: root });
    expect(outline.stdout).toContain('../util/retry.js → src/util/retry.ts');
    expect(outline.stdout).toContain('tests: test/store/database.test.ts');
    const bad = await runCli(['symbols', 'x', '--kind', 'widget', '--db', db, '--json'], { cwd: root });
    expect(bad.code).toBe(2);
    expect(JSON.parse(bad.stderr).error.code).toBe('INVALID_ARGUMENT');
  });
});

describe('upgrading an index written before structure (schema 3)', () => {
  it('opens, re-chunks every file on the next pass, and then has symbols', async () => {
    const t = tempDir();
    try {
      const root = join(t.dir, 'repo');
      writeTree(root, { 'src/a.ts': 'export function alpha(): number {\n  return 1;\n}\n' });
      const db = join(t.dir, 'old.db');
      const raw = openConnection(db);
      for (const m of [migration001, migration002, migration003]) raw.exec(m.sql);
      raw.pragma('user_version = 3');
      raw.prepare("INSERT INTO files(path, language, content_type, size, mtime_ms, hash, encoding, line_count, feature_version, indexed_at_ms) VALUES ('src/a.ts', 'typescript', 'code', 1, 1, 'h', 'utf-8', 3, 2, 1)").run();
      raw.close();
      const engine = await createEngine({ root, db, env: isolatedEnv(t.dir) });
      try {
        expect(engine.status().featureVersionCurrent).toBe(false);
        const report = await engine.index();
        expect(report.filesIndexed).toBe(1);
        expect(engine.status().schemaVersion).toBe(SCHEMA_VERSION);
        expect((await engine.symbols('alpha'))[0]).toMatchObject({ kind: 'function', path: 'src/a.ts' });
        expect((await engine.search('alpha')).results[0]).toMatchObject({ path: 'src/a.ts', symbol: 'alpha' });
      } finally {
        engine.close();
      }
    } finally {
      t.cleanup();
    }
  });
});
