/**
 * The repo map over a small indexed repository: a golden file of the rendered maps (default,
 * tight budget, focus, query: a ranking change shows up as a diff to review), roles, the
 * personalisation, validation, and the refresh after a pass. `UPDATE_GOLDEN=1` rewrites the golden.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, EngineError, loadTokenCounter, type Engine, type RepoMapOptions } from '../../src/index.js';
import { backdate } from '../helpers/fixture-repo.js';
import { isolatedEnv, tempDir, writeTree } from '../helpers/temp.js';

const GOLDEN = fileURLToPath(new URL('../golden/repo-map/small-repo.txt', import.meta.url));
const UPDATE = process.env.UPDATE_GOLDEN === '1';

const MAP_REPO: Record<string, string> = {
  'src/cli/main.ts': ["import { runApp } from '../app.js';", '', '/** The command line entry point. */', 'export async function main(argv: string[]): Promise<number> {', '  return runApp(argv);', '}'].join('\n'),
  'src/app.ts': [
    "import { openDatabase } from './store/database.js';",
    "import { log } from './util/log.js';",
    '',
    'export function runApp(argv: string[]): number {',
    "  log('start');",
    "  openDatabase(argv[0] ?? 'app.db');",
    '  return 0;',
    '}',
  ].join('\n'),
  'src/store/database.ts': [
    "import { retryBusy } from '../util/retry.js';",
    "import { log } from '../util/log.js';",
    '',
    'export interface OpenOptions { readonly readonly: boolean }',
    '',
    '/** Opens the database, retrying while it is busy. */',
    'export function openDatabase(path: string, options: OpenOptions = { readonly: false }): object {',
    "  log('open');",
    '  return retryBusy(() => ({ path, options }));',
    '}',
    '',
    'function hidden(): void {}',
  ].join('\n'),
  'src/util/retry.ts': ['/** Retries fn while it throws SQLITE_BUSY. */', 'export function retryBusy<T>(fn: () => T, attempts = 3): T {', '  return fn();', '}'].join('\n'),
  'src/util/log.ts': ['export const LOG_LEVEL = 2;', '', 'export function log(message: string): void {', '  console.log(message);', '}'].join('\n'),
  'src/util/unused.ts': ['export class Unused {}'].join('\n'),
  'test/database.test.ts': ["import { openDatabase } from '../src/store/database.js';", "openDatabase(':memory:');"].join('\n'),
  'tools/report.py': ['from .helpers import fmt', '', 'class Report:', '    def render(self, rows):', '        return fmt(rows)'].join('\n'),
  'tools/helpers.py': ['def fmt(rows):', '    return str(rows)', '', 'def _private():', '    return 1'].join('\n'),
  'docs/guide.md': '# Guide\n\nCall openDatabase first.\n',
};

/** The EngineError a promise rejects with. */
async function rejection(promise: Promise<unknown>): Promise<EngineError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(EngineError);
  return err as EngineError;
}

const CASES: ReadonlyArray<[label: string, options: RepoMapOptions]> = [
  ['default', {}],
  ['tokens=64', { tokens: 64 }],
  ['focus=tools/', { focus: ['tools/'], tokens: 64 }],
  ['query="retry busy"', { query: 'retry busy', tokens: 64 }],
];

describe('repo map of a small repository', () => {
  let t: ReturnType<typeof tempDir>;
  let root: string;
  let engine: Engine;

  beforeAll(async () => {
    t = tempDir('scry-repo-map-');
    root = join(t.dir, 'repo');
    writeTree(root, MAP_REPO);
    backdate(root, Object.keys(MAP_REPO));
    engine = await createEngine({ root, env: isolatedEnv(t.dir) });
    await engine.index();
  });

  afterAll(() => {
    engine.close();
    t.cleanup();
  });

  it('matches the golden file test/golden/repo-map/small-repo.txt', async () => {
    const sections: string[] = [];
    for (const [label, options] of CASES) {
      const map = await engine.repoMap(options);
      sections.push(`## ${label}: ${map.includedFiles} of ${map.totalFiles} files, ${map.tokens}/${map.budget} tokens\n${map.text}`);
    }
    const actual = sections.join('\n');
    if (UPDATE) {
      mkdirSync(dirname(GOLDEN), { recursive: true });
      writeFileSync(GOLDEN, actual);
      return;
    }
    const fix = 'run `UPDATE_GOLDEN=1 npx vitest run test/integration/repo-map-build.test.ts` and review the diff';
    if (!existsSync(GOLDEN)) throw new Error(`missing ${GOLDEN}: ${fix}`);
    expect(actual, `the repo map changed: ${fix}`).toBe(readFileSync(GOLDEN, 'utf8'));
  });

  it('ranks code files only, marks entry points main and imported leaves utility', async () => {
    const map = await engine.repoMap({ tokens: 4000 });
    expect(map.totalFiles).toBe(9); // docs/guide.md is not code
    expect(map.includedFiles).toBe(9);
    const role = Object.fromEntries(map.files.map((f) => [f.path, f.role]));
    expect(role).toEqual({
      'src/cli/main.ts': 'main', // imports the app, imported by nothing
      'src/app.ts': 'module',
      'src/store/database.ts': 'module',
      'src/util/retry.ts': 'utility',
      'src/util/log.ts': 'utility',
      'src/util/unused.ts': 'module', // not connected
      'test/database.test.ts': 'test',
      'tools/report.py': 'main',
      'tools/helpers.py': 'utility',
    });
    // log is imported by two files (one of them imported itself): it outranks retry, imported by one
    const rank = Object.fromEntries(map.files.map((f) => [f.path, f.rank]));
    expect(rank['src/util/log.ts']).toBeGreaterThan(rank['src/util/retry.ts']!);
    expect(rank['src/store/database.ts']).toBeGreaterThan(rank['src/cli/main.ts']!);
    expect(map.files.map((f) => f.rank)).toEqual([...map.files.map((f) => f.rank)].sort((a, b) => b - a));
    // only top-level exported definitions, with their signatures
    const db = map.files.find((f) => f.path === 'src/store/database.ts')!;
    expect(db.symbols.map((s) => s.name)).toEqual(['OpenOptions', 'openDatabase']);
    expect(map.files.find((f) => f.path === 'tools/helpers.py')!.symbols.map((s) => s.name)).toEqual(['fmt']);
    expect(map.tokens).toBe((await loadTokenCounter()).count(map.text));
  });

  it('raises focused files and files defining query identifiers', async () => {
    const plain = await engine.repoMap({ tokens: 4000 });
    const rankIn = (m: typeof plain, path: string): number => m.files.find((f) => f.path === path)!.rank;
    const focused = await engine.repoMap({ tokens: 4000, focus: [join(root, 'tools/report.py')] });
    expect(rankIn(focused, 'tools/report.py')).toBeGreaterThan(rankIn(plain, 'tools/report.py'));
    expect(rankIn(focused, 'tools/helpers.py')).toBeGreaterThan(rankIn(plain, 'tools/helpers.py')); // what it imports, too
    const queried = await engine.repoMap({ tokens: 4000, query: 'where is Unused defined' });
    expect(rankIn(queried, 'src/util/unused.ts')).toBeGreaterThan(rankIn(plain, 'src/util/unused.ts'));
    // the same request twice gives the same map (cached ranks)
    expect((await engine.repoMap({ tokens: 4000, query: 'where is Unused defined' })).text).toBe(queried.text);
  });

  it('rejects a bad budget, an unknown focus and a path outside the root', async () => {
    for (const tokens of [63, 100_001, 1.5]) expect((await rejection(engine.repoMap({ tokens }))).code).toBe('INVALID_ARGUMENT');
    const unknown = await rejection(engine.repoMap({ focus: ['src/nope.ts'] }));
    expect(unknown.code).toBe('INVALID_ARGUMENT');
    expect(unknown.message).toContain('src/nope.ts');
    expect((await rejection(engine.repoMap({ focus: ['docs/guide.md'] }))).code).toBe('INVALID_ARGUMENT'); // not code
    expect((await rejection(engine.repoMap({ focus: ['../elsewhere.ts'] }))).code).toBe('PATH_OUTSIDE_ROOT');
  });

  it('is refreshed from the index after a pass, without reparsing', async () => {
    const before = await engine.repoMap({ tokens: 4000 });
    writeTree(root, { 'src/worker.ts': "import { log } from './util/log.js';\nexport function work(): void {\n  log('work');\n}\n" });
    backdate(root, ['src/worker.ts']);
    await engine.index();
    const after = await engine.repoMap({ tokens: 4000 });
    expect(after.totalFiles).toBe(before.totalFiles + 1);
    expect(after.files.find((f) => f.path === 'src/worker.ts')).toMatchObject({ role: 'main', symbols: [{ name: 'work', kind: 'function' }] });
  });
});
