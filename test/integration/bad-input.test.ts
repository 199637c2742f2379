import { openConnection } from '../../src/store/driver.js';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEngine, ERROR_CODES, type Engine } from '../../src/index.js';
import { WriterLock } from '../../src/store/writer-lock.js';
import { writeSmallRepo } from '../helpers/fixture-repo.js';
import { isolatedEnv, tempDir } from '../helpers/temp.js';

describe('bad input: clear errors with stable codes, nothing lost', () => {
  let t: ReturnType<typeof tempDir>;
  let root: string;
  let engine: Engine;

  beforeEach(async () => {
    t = tempDir();
    root = join(t.dir, 'repo');
    mkdirSync(root);
    writeSmallRepo(root);
    engine = await createEngine({ root, env: isolatedEnv(t.dir), config: { lockTimeoutMs: 0 } });
  });
  afterEach(() => {
    engine.close();
    t.cleanup();
  });

  it('a root that does not exist, or is a file', async () => {
    await expect(createEngine({ root: join(t.dir, 'nope'), env: isolatedEnv(t.dir) })).rejects.toMatchObject({ code: 'ROOT_NOT_FOUND' });
    await expect(createEngine({ root: join(root, 'README.md'), env: isolatedEnv(t.dir) })).rejects.toMatchObject({ code: 'ROOT_NOT_DIRECTORY' });
  });

  it('searching before any index exists', async () => {
    await expect(engine.search('x')).rejects.toMatchObject({ code: 'INDEX_NOT_FOUND' });
    await expect(createEngine({ db: join(t.dir, 'missing.db'), env: isolatedEnv(t.dir) })).rejects.toMatchObject({ code: 'INDEX_NOT_FOUND' });
  });

  it('empty queries and queries made only of FTS syntax', async () => {
    await engine.index();
    for (const q of ['', '   ', '"" * ( ) ^ : + -', '"', '\u0000']) {
      await expect(engine.search(q)).rejects.toMatchObject({ code: 'QUERY_EMPTY' });
    }
    // FTS keywords are words, never operators
    expect((await engine.search('NEAR( title:foo', { mode: 'lexical' })).results).toEqual([]);
    const r = await engine.search('AND OR NOT openDatabase');
    expect(r.results[0]!.path).toBe('src/db/open-database.ts');
  });

  it('invalid limits', async () => {
    await engine.index();
    for (const limit of [0, -1, 1.5, 5000]) await expect(engine.search('port', { limit })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });

  it('an index another process is writing: INDEX_LOCKED after the wait, index intact', async () => {
    await engine.index();
    const other = new WriterLock(`${engine.dbPath}.lock`);
    await other.acquire({ timeoutMs: 0 });
    await expect(engine.index()).rejects.toMatchObject({ code: 'INDEX_LOCKED' });
    // readers never block on the writer lock
    expect((await engine.search('openDatabase')).results).not.toHaveLength(0);
    other.release();
    expect(await engine.index()).toMatchObject({ filesUnchanged: 6 });
  });

  it('a database locked by another SQLite connection: DB_LOCKED, then recovers', async () => {
    await engine.index();
    engine.close();
    engine = await createEngine({ root, env: isolatedEnv(t.dir), config: { lockTimeoutMs: 0 } });
    writeFileSync(join(root, 'new.ts'), 'export const fresh = 1;\n');
    const holder = openConnection(engine.dbPath);
    holder.exec('BEGIN EXCLUSIVE');
    const store = (await import('../../src/store/index-store.js')).IndexStore;
    const s = store.open(engine.dbPath, { create: false, busyTimeoutMs: 20 });
    expect(() => s.transaction(() => s.meta.set('x', 1))).toThrow(expect.objectContaining({ code: 'DB_LOCKED' }));
    s.close();
    holder.exec('ROLLBACK');
    holder.close();
    expect(await engine.index()).toMatchObject({ filesIndexed: 1 });
  });

  it('a corrupt database: DB_CORRUPT with a hint, and --rebuild recovers', async () => {
    mkdirSync(join(engine.dbPath, '..'), { recursive: true });
    writeFileSync(engine.dbPath, 'this is not a database'.repeat(500));
    const err = await engine.search('port').catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'DB_CORRUPT' });
    expect((err as { hint: string }).hint).toMatch(/--rebuild/);
    engine.close();
    engine = await createEngine({ root, env: isolatedEnv(t.dir) });
    expect(await engine.index({ rebuild: true })).toMatchObject({ filesIndexed: 6 });
    expect((await engine.search('openDatabase')).results).not.toHaveLength(0);
  });

  it('a database from a newer scry: DB_TOO_NEW, file untouched', async () => {
    await engine.index();
    engine.close();
    const raw = openConnection(engine.dbPath);
    raw.pragma('user_version = 999');
    raw.close();
    engine = await createEngine({ root, env: isolatedEnv(t.dir) });
    await expect(engine.search('port')).rejects.toMatchObject({ code: 'DB_TOO_NEW' });
    expect(existsSync(engine.dbPath)).toBe(true);
  });

  it('an invalid config file: CONFIG_INVALID naming the key', async () => {
    writeFileSync(join(root, 'scry.config.json'), JSON.stringify({ maxFileBytes: 'big', unknownKey: 1 }));
    const err = await createEngine({ root, env: isolatedEnv(t.dir) }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'CONFIG_INVALID' });
    expect(String((err as Error).message)).toMatch(/maxFileBytes/);
    writeFileSync(join(root, 'scry.config.json'), '{ not json');
    await expect(createEngine({ root, env: isolatedEnv(t.dir) })).rejects.toMatchObject({ code: 'CONFIG_INVALID' });
  });

  it('every code in the catalogue is pinned', () => {
    expect(ERROR_CODES).toEqual([
      'ROOT_NOT_FOUND', 'ROOT_NOT_DIRECTORY', 'ROOT_MISMATCH', 'INDEX_NOT_FOUND', 'INDEX_LOCKED', 'DB_LOCKED', 'DB_CORRUPT', 'DB_TOO_NEW',
      'DB_OPEN_FAILED', 'QUERY_EMPTY', 'QUERY_TOO_LONG', 'INVALID_ARGUMENT', 'CONFIG_INVALID', 'PATH_OUTSIDE_ROOT', 'IO_ERROR',
      'CLOSED', 'FILE_NOT_FOUND', 'PATH_DENIED', 'SYMBOL_NOT_FOUND', 'PATCH_INVALID', 'PATCH_CONFLICT', 'CONFIRMATION_REQUIRED',
      'TOKEN_INVALID', 'EMBEDDING_UNAVAILABLE', 'EMBEDDING_FAILED', 'MODEL_NOT_FOUND', 'MODEL_INVALID', 'TOO_LARGE', 'INTERNAL',
      'LLM_NOT_CONFIGURED', 'LLM_FAILED', 'LLM_BAD_OUTPUT', 'LLM_BUDGET_EXHAUSTED', 'CANCELLED',
      'LSP_FAILED', 'LSP_TIMEOUT',
      'COLLECTION_NOT_FOUND', 'COLLECTION_EXISTS', 'COLLECTION_REGISTRY_CORRUPT',
      'TEAM_DB_TOO_NEW', 'TEAM_DB_FAILED', 'REPO_NOT_FOUND', 'PUSH_INVALID', 'REVISION_NOT_OPEN',
      'AUTH_REQUIRED', 'ACCESS_DENIED', 'SERVER_FAILED',
    ]);
  });
});

describe('bad input: pathological code files index without error and stay searchable', () => {
  let t: ReturnType<typeof tempDir>;
  let root: string;
  let engine: Engine;
  const warnings: string[] = [];
  const logger = { debug: () => {}, info: () => {}, warn: (message: string) => void warnings.push(message) };

  /** Each file holds a unique word, so that a search can find it again. */
  const deepIfs = 'function zqdeepifs(x: boolean) {\n' + 'if (x) {\n'.repeat(10_000) + '}\n'.repeat(10_000) + '}\n';
  const deepArrays = 'export const zqdeeparrays = ' + `${'['.repeat(100)}\n`.repeat(100) + `${']'.repeat(100)}\n`.repeat(100) + ';\n';
  const oneLineDeep = 'function zqonelinedeep(){' + 'if (x) {'.repeat(10_000) + '}'.repeat(10_000) + '}\n';
  /** Minified-looking: one line of many tiny functions. */
  const minifiedLine = (bytes: number, tag: string): string => {
    let s = `var ${tag}=1;`;
    for (let i = 0; s.length < bytes - 40; i++) s += `function f${i}(a){return a+${i}};`;
    return s;
  };
  const garbage = '}}}} ))))\n]]]] zqgarbage\n))(( }}}}\n'.repeat(60);
  const vue = [
    '<template>',
    '  <p>{{ zqvuelabel }}</p>',
    '</template>',
    '',
    '<script lang="ts">',
    "import { defineComponent } from 'vue';",
    'export function zqvueformat(n: number): string {',
    '  return String(n);',
    '}',
    'export default defineComponent({});',
    '</script>',
    '',
    '<style>',
    'p { color: red; }',
    '</style>',
    '',
  ].join('\n');
  const svelte = ['<script lang="ts">', '  export let name: string;', '  function zqsveltegreet(who: string): string {', "    return 'Hello ' + who;", '  }', '</script>', '', '<h1>{zqsveltegreet(name)}</h1>', ''].join('\n');

  beforeEach(async () => {
    warnings.length = 0;
    t = tempDir();
    root = join(t.dir, 'repo');
    mkdirSync(root);
    writeSmallRepo(root, {
      'bad/deep-ifs.ts': deepIfs,
      'bad/deep-arrays.ts': deepArrays,
      'bad/one-line-deep.ts': oneLineDeep,
      'bad/bundle.js': minifiedLine(990_000, 'zqbundle'),
      'bad/almost-minified.js': minifiedLine(19_990, 'zqalmost'),
      'bad/long-lines.js': Array.from({ length: 330 }, (_, i) => (i % 22 === 0 ? minifiedLine(19_000, `zqlong${i}`) : `var short${i} = ${i};`)).join('\n') + '\n',
      'bad/garbage.ts': garbage,
      'bad/Counter.vue': vue,
      'bad/Hello.svelte': svelte,
      'bad/notes.xyz': 'zqunknownext lives in a file with an unknown extension\n',
    });
    engine = await createEngine({ root, env: isolatedEnv(t.dir), logger });
  });
  afterEach(() => {
    engine.close();
    t.cleanup();
  });

  it('indexes them all, with sane structure counts', async () => {
    const report = await engine.index();
    // a single line over 20 000 characters in a file over 20 KB is minified and skipped
    expect(report.skipped).toMatchObject({ minified: 2 });
    expect(report.filesIndexed).toBe(6 + 10 - 2);
    const status = engine.status();
    expect(status.files).toBe(14);
    expect(status.languages).toMatchObject({ typescript: 5, javascript: 2, vue: 1, svelte: 1 });
    const { structure } = status;
    expect(structure.parsers['tree-sitter']).toBeGreaterThanOrEqual(8);
    expect(Object.values(structure.parsers).reduce((a, b) => a + b, 0)).toBe(14);
    expect(structure.symbols).toBeGreaterThan(0);
    expect(structure.imports).toBeGreaterThan(0);
    for (const f of structure.fallbacks) expect(['grammar_unavailable', 'parse_budget', 'parse_timeout', 'parse_error', 'too_deep']).toContain(f.reason);
    // the garbage file fell back to line windows, and says why
    expect(structure.fallbacks).toContainEqual({ language: 'typescript', reason: 'parse_error', files: 1, example: 'bad/garbage.ts' });
    expect(warnings.some((w) => /typescript: chunked by line windows \(parse_error\)/.test(w))).toBe(true);
    // per file: the parser that chunked it, every chunk within the clamp, every line covered
    engine.close();
    const db = openConnection(engine.dbPath, { readonly: true });
    const files = db.prepare<[], { id: number; path: string; parser: string; fallback: string | null; line_count: number }>("SELECT id, path, parser, fallback, line_count FROM files WHERE path LIKE 'bad/%' ORDER BY path").all();
    expect(Object.fromEntries(files.map((f) => [f.path, `${f.parser}${f.fallback ? `/${f.fallback}` : ''}`]))).toEqual({
      'bad/Counter.vue': 'tree-sitter',
      'bad/Hello.svelte': 'tree-sitter',
      'bad/almost-minified.js': 'tree-sitter',
      'bad/deep-arrays.ts': 'tree-sitter',
      'bad/deep-ifs.ts': 'tree-sitter',
      'bad/garbage.ts': 'window/parse_error',
      'bad/long-lines.js': 'tree-sitter',
      'bad/notes.xyz': 'window',
    });
    for (const f of files) {
      const chunks = db.prepare<[number], { start_line: number; end_line: number; start_byte: number; end_byte: number }>('SELECT start_line, end_line, start_byte, end_byte FROM chunks WHERE file_id = ? ORDER BY ordinal').all(f.id);
      expect(chunks.length, f.path).toBeGreaterThan(0);
      for (const c of chunks) expect(c.end_byte - c.start_byte, f.path).toBeLessThanOrEqual(4096);
      expect(Math.max(...chunks.map((c) => c.end_line)), f.path).toBe(f.line_count);
    }
    db.close();
    engine = await createEngine({ root, env: isolatedEnv(t.dir), logger });
    // a second pass finds nothing to do
    expect(await engine.index()).toMatchObject({ filesIndexed: 0 });
  });

  it('keeps every indexed file searchable', async () => {
    await engine.index();
    const cases: Array<[string, string]> = [
      ['zqdeepifs', 'bad/deep-ifs.ts'],
      ['zqdeeparrays', 'bad/deep-arrays.ts'],
      ['zqalmost', 'bad/almost-minified.js'],
      ['zqlong22', 'bad/long-lines.js'],
      ['zqgarbage', 'bad/garbage.ts'],
      ['zqvueformat', 'bad/Counter.vue'],
      ['zqvuelabel', 'bad/Counter.vue'],
      ['zqsveltegreet', 'bad/Hello.svelte'],
      ['zqunknownext', 'bad/notes.xyz'],
    ];
    for (const [word, path] of cases) {
      const { results } = await engine.search(word);
      expect(results.map((r) => r.path), word).toContain(path);
    }
    for (const word of ['zqbundle', 'zqonelinedeep']) expect((await engine.search(word)).results).toEqual([]);
    // the script blocks of Vue and Svelte files are parsed: their functions are symbols
    expect((await engine.symbols('zqvueformat'))[0]).toMatchObject({ path: 'bad/Counter.vue', kind: 'function', startLine: 7 });
    expect((await engine.symbols('zqsveltegreet'))[0]).toMatchObject({ path: 'bad/Hello.svelte', kind: 'function', startLine: 3 });
    expect((await engine.symbols('zqdeepifs'))[0]).toMatchObject({ path: 'bad/deep-ifs.ts', kind: 'function', startLine: 1 });
  });
});
