/**
 * Related files end to end: a real index pass over a small TypeScript repository (imports both
 * ways, a test, callers with and without an import, a same-named class elsewhere), then
 * `engine.related`, `scry related` (human and --json) and the `related_files` tool.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine, type RelatedFiles } from '../../src/index.js';
import { runTool } from '../../src/tools/run-tool.js';
import type { ToolContext } from '../../src/tools/tool.js';
import { runCli } from '../helpers/cli.js';
import { isolatedEnv, tempDir, writeTree } from '../helpers/temp.js';

const REPO: Record<string, string> = {
  'src/store/database.ts': [
    "import { retryBusy } from '../util/retry.js';",
    '',
    'export interface DbOptions { path: string }',
    '',
    'export function openDatabase(options: DbOptions): IndexStore {',
    '  return retryBusy(() => new IndexStore(options.path));',
    '}',
    '',
    'export class IndexStore {',
    '  constructor(readonly path: string) {}',
    '}',
  ].join('\n'),
  'src/util/retry.ts': ['export function retryBusy<T>(fn: () => T): T {', '  return fn();', '}'].join('\n'),
  'src/app.ts': [
    "import { openDatabase, IndexStore, type DbOptions } from './store/database.js';",
    '',
    "const options: DbOptions = { path: 'index.db' };",
    'export const db = openDatabase(options);',
    "export const other = new IndexStore('other.db');",
  ].join('\n'),
  'test/store/database.test.ts': ["import { openDatabase } from '../../src/store/database.js';", "openDatabase({ path: ':memory:' });"].join('\n'),
  // calls openDatabase (defined only in database.ts) without importing it
  'src/legacy.ts': ["declare const openDatabase: (o: { path: string }) => unknown;", "export const legacy = openDatabase({ path: 'x' });"].join('\n'),
  // a different IndexStore: its users are not callers of database.ts
  'src/other/store.ts': ['export class IndexStore {}'].join('\n'),
  'src/other/use.ts': ["import { IndexStore } from './store.js';", 'export const s = new IndexStore();'].join('\n'),
  'docs/guide.md': '# Guide\n\nCall openDatabase first.\n',
};

const summary = (r: RelatedFiles): Array<[string, number, string[]]> => r.files.map((f) => [f.path, f.score, f.reasons]);

describe('related files', () => {
  let t: ReturnType<typeof tempDir>;
  let root: string;
  let db: string;
  let engine: Engine;
  let ctx: ToolContext;

  beforeAll(async () => {
    t = tempDir('scry-related-');
    root = join(t.dir, 'repo');
    writeTree(root, REPO);
    db = join(t.dir, 'index.db');
    engine = await createEngine({ root, db, env: isolatedEnv(t.dir) });
    await engine.index();
    ctx = { engine, writePolicy: 'stage' };
  });
  afterAll(() => {
    engine.close();
    t.cleanup();
  });

  it('ranks a source file: its test, importers with the names they use, what it imports, callers without an import', async () => {
    const r = await engine.related('src/store/database.ts');
    expect(summary(r)).toEqual([
      ['test/store/database.test.ts', 6, ['its test', 'imports it', 'calls openDatabase()']],
      ['src/app.ts', 5, ['imports it', 'calls IndexStore(), openDatabase()', 'uses DbOptions']],
      ['src/util/retry.ts', 3, ['imported by it', 'called by it: retryBusy()']],
      ['src/legacy.ts', 1, ['calls openDatabase()']],
    ]);
    expect(r.files[1]!.relations).toEqual({ imports: true, callers: ['DbOptions', 'IndexStore', 'openDatabase'] });
    expect(r.files[2]!.relations).toEqual({ importedBy: true, callees: ['retryBusy'] });
    expect(r).toMatchObject({ path: 'src/store/database.ts', total: 4 });
  });

  it('ranks from a test file and from a leaf, accepts absolute paths and limits', async () => {
    expect(summary(await engine.related('test/store/database.test.ts'))).toEqual([['src/store/database.ts', 6, ['tested by it', 'imported by it', 'called by it: openDatabase()']]]);
    expect(summary(await engine.related(join(root, 'src/util/retry.ts')))).toEqual([['src/store/database.ts', 3, ['imports it', 'calls retryBusy()']]]);
    const limited = await engine.related('./src/store/database.ts', { limit: 2 });
    expect(limited.files.map((f) => f.path)).toEqual(['test/store/database.test.ts', 'src/app.ts']);
    expect(limited.total).toBe(4);
    expect((await engine.related('docs/guide.md')).files).toEqual([]);
  });

  it('rejects unknown paths, paths outside the root and bad limits with their codes', async () => {
    await expect(engine.related('src/nope.ts')).rejects.toMatchObject({ code: 'FILE_NOT_FOUND' });
    await expect(engine.related('../outside.ts')).rejects.toMatchObject({ code: 'PATH_OUTSIDE_ROOT' });
    await expect(engine.related('')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(engine.related('src/app.ts', { limit: 0 })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(engine.related('src/app.ts', { limit: 201 })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });

  it('CLI: scry related, human and --json; errors map to exit codes', async () => {
    const json = await runCli(['related', 'src/store/database.ts', '--db', db, '--json', '-k', '2'], { cwd: root });
    expect(json.code).toBe(0);
    const parsed = JSON.parse(json.stdout) as RelatedFiles;
    expect(parsed.files.map((f) => f.path)).toEqual(['test/store/database.test.ts', 'src/app.ts']);
    expect(parsed.total).toBe(4);
    const human = await runCli(['related', 'src/store/database.ts', '-C', root, '--db', db], { cwd: root });
    expect(human.code).toBe(0);
    expect(human.stdout.split('\n').slice(0, 4)).toEqual([
      '6  test/store/database.test.ts',
      '   its test; imports it; calls openDatabase()',
      '5  src/app.ts',
      '   imports it; calls IndexStore(), openDatabase(); uses DbOptions',
    ]);
    expect(human.stdout).toContain('4 of 4 related file(s) of src/store/database.ts');
    const missing = await runCli(['related', 'src/nope.ts', '--db', db, '--json'], { cwd: root });
    expect(missing.code).toBe(3);
    expect(JSON.parse(missing.stderr).error.code).toBe('FILE_NOT_FOUND');
    const outside = await runCli(['related', '../x.ts', '--db', db, '--json'], { cwd: root });
    expect(JSON.parse(outside.stderr).error.code).toBe('PATH_OUTSIDE_ROOT');
    const badK = await runCli(['related', 'src/app.ts', '-k', '500', '--db', db, '--json'], { cwd: root });
    expect(badK.code).toBe(2);
    expect(JSON.parse(badK.stderr).error.code).toBe('INVALID_ARGUMENT');
    const help = await runCli(['related', '--help'], { cwd: root });
    expect(help.stdout).toContain('scry related src/store/database.ts');
  });

  it('the related_files tool returns the ranking; bad input is invalid_arguments, a missing file not_found', async () => {
    const env = await runTool('related_files', { path: 'src/store/database.ts', limit: 3 }, ctx);
    expect(env.ok).toBe(true);
    const data = env.data as { path: string; total: number; files: Array<{ path: string; score: number; reasons: string[] }> };
    expect(data.files.map((f) => [f.path, f.score])).toEqual([['test/store/database.test.ts', 6], ['src/app.ts', 5], ['src/util/retry.ts', 3]]);
    expect(data.total).toBe(4);
    expect(env.meta.warnings).toContain('4 related files found; the best 3 returned');
    expect((await runTool('related_files', { path: 'src/nope.ts' }, ctx)).error).toBe('not_found');
    expect((await runTool('related_files', { path: 'src/app.ts', limit: 500 }, ctx)).error).toBe('invalid_arguments');
    expect((await runTool('related_files', {}, ctx)).error).toBe('invalid_arguments');
    expect((await runTool('related_files', { path: 'docs/guide.md' }, ctx)).meta.warnings[0]).toMatch(/no related files/);
  });
});
