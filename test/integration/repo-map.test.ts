/**
 * The repo map end to end on a real index (a copy of this repository's src/): the engine, the
 * CLI (`scry map`, human and --json) and the `repo_map` tool through runTool.
 */
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, loadTokenCounter, type Engine, type RepoMap, type TokenCounter } from '../../src/index.js';
import { runTool } from '../../src/tools/run-tool.js';
import type { ToolContext } from '../../src/tools/tool.js';
import { runCli } from '../helpers/cli.js';
import { isolatedEnv, tempDir } from '../helpers/temp.js';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

describe('repo map over a real index', () => {
  let t: ReturnType<typeof tempDir>;
  let root: string;
  let db: string;
  let engine: Engine;
  let counter: TokenCounter;
  let ctx: ToolContext;

  beforeAll(async () => {
    t = tempDir('scry-repo-map-int-');
    root = join(t.dir, 'repo');
    cpSync(SRC, join(root, 'src'), { recursive: true });
    db = join(t.dir, 'index.db');
    engine = await createEngine({ root, db, env: isolatedEnv(t.dir) });
    await engine.index();
    counter = await loadTokenCounter();
    ctx = { engine, writePolicy: 'stage' };
  });

  afterAll(() => {
    engine.close();
    t.cleanup();
  });

  const expectWellFormed = (map: RepoMap): void => {
    expect(map.tokens).toBe(counter.count(map.text));
    expect(map.tokens).toBeLessThanOrEqual(map.budget);
    expect(map.includedFiles).toBe(map.files.length);
    expect(new Set(map.files.map((f) => f.path)).size).toBe(map.files.length);
    for (const f of map.files) expect(map.text).toContain(f.path.split('/').pop()!);
    if (map.includedFiles < map.totalFiles) expect(map.text).toContain(`… ${map.totalFiles - map.includedFiles} more file`);
  };

  it('ranks the files everything depends on first and fills the budget', async () => {
    const map = await engine.repoMap();
    expectWellFormed(map);
    expect(map.budget).toBe(1024);
    expect(map.totalFiles).toBeGreaterThan(100);
    expect(map.tokens).toBeGreaterThan(1024 * 0.8);
    const top = map.files.slice(0, 10).map((f) => f.path);
    expect(top).toContain('src/core/errors.ts'); // imported from every layer
    expect(map.files.find((f) => f.path === 'src/core/errors.ts')!.symbols.map((s) => s.name)).toContain('EngineError');
    const large = await engine.repoMap({ tokens: 8000 });
    expectWellFormed(large);
    expect(large.includedFiles).toBeGreaterThan(map.includedFiles);
    const all = await engine.repoMap({ tokens: 100_000 });
    expectWellFormed(all);
    expect(all.includedFiles).toBe(all.totalFiles);
    expect(all.files.find((f) => f.path === 'src/cli/main.ts')?.role).toBe('main'); // the CLI entry point
    expect(all.files.find((f) => f.path === 'src/core/errors.ts')?.role).toBe('utility');
  });

  it('centres on a focus directory and on the identifiers of a query', async () => {
    const plain = await engine.repoMap({ tokens: 600 });
    const focused = await engine.repoMap({ tokens: 600, focus: ['src/watch'] });
    expectWellFormed(focused);
    const watchFiles = (m: RepoMap): number => m.files.filter((f) => f.path.startsWith('src/watch/')).length;
    expect(watchFiles(focused)).toBeGreaterThan(watchFiles(plain));
    const queried = await engine.repoMap({ tokens: 600, query: 'pageRank personalization' });
    expect(queried.files.map((f) => f.path)).toContain('src/context/page-rank.ts');
  });

  it('scry map prints the map on stdout and a summary on stderr; --json gives the RepoMap', async () => {
    const human = await runCli(['map', '--db', db, '--tokens', '300', '--focus', 'src/cli', '--focus', 'src/tools/catalog.ts'], { cwd: t.dir });
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^src\//m);
    expect(counter.count(human.stdout)).toBeLessThanOrEqual(300);
    expect(human.stderr).toMatch(/^scry: \d+ of \d+ code files, \d+\/300 tokens/m);
    const json = await runCli(['map', root, '--db', db, '--query', 'openDatabase', '--json'], { cwd: t.dir });
    expect(json.code).toBe(0);
    const map = JSON.parse(json.stdout) as RepoMap;
    expect(Object.keys(map).sort()).toEqual(['budget', 'files', 'includedFiles', 'text', 'tokens', 'tookMs', 'totalFiles']);
    expect(map.files.map((f) => f.path)).toContain('src/store/database.ts');
    expect(map.files[0]).toMatchObject({ path: expect.any(String), rank: expect.any(Number), role: expect.stringMatching(/^(main|module|utility|test)$/) });
  });

  it('scry map rejects a budget out of range and an unknown focus as INVALID_ARGUMENT', async () => {
    const low = await runCli(['map', '--db', db, '--tokens', '10', '--json'], { cwd: t.dir });
    expect(low.code).toBe(2);
    expect(JSON.parse(low.stderr).error.code).toBe('INVALID_ARGUMENT');
    const unknown = await runCli(['map', '--db', db, '--focus', 'src/nope.ts'], { cwd: t.dir });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('INVALID_ARGUMENT');
  });

  it('the repo_map tool returns the map sized to max_tokens, within it', async () => {
    const plain = await runTool('repo_map', {}, ctx);
    expect(plain.ok).toBe(true);
    const data = plain.data as { text: string; tokens: number; total_files: number; included_files: number };
    expect(data.tokens).toBeLessThanOrEqual(1024);
    expect(data.text).toContain('src/core/');
    for (const maxTokens of [200, 500, 2000]) {
      const env = await runTool('repo_map', { max_tokens: maxTokens, query: 'search ranking' }, ctx);
      expect(env.ok, JSON.stringify(env.data).slice(0, 300)).toBe(true);
      expect(env.meta.tokens).toBeLessThanOrEqual(maxTokens);
      expect(env.meta.truncated, `max_tokens=${maxTokens}: the map should fit without the runner cutting it`).toBe(false);
    }
  });

  it('the repo_map tool reports bad arguments as invalid_arguments', async () => {
    expect((await runTool('repo_map', { focus: ['src/nope.ts'] }, ctx)).error).toBe('invalid_arguments');
    expect((await runTool('repo_map', { tokens: 100 }, ctx)).error).toBe('invalid_arguments'); // the budget is max_tokens
    expect((await runTool('repo_map', { focus: ['../outside.ts'] }, ctx)).error).toBe('permission_denied');
  });
});
