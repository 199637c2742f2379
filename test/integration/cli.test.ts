import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, spawnCli } from '../helpers/cli.js';
import { writeSmallRepo } from '../helpers/fixture-repo.js';
import { isolatedEnv, tempDir } from '../helpers/temp.js';

describe('CLI', () => {
  let t: ReturnType<typeof tempDir>;
  let root: string;
  let db: string;

  beforeAll(() => {
    t = tempDir();
    root = join(t.dir, 'répo');
    mkdirSync(root);
    writeSmallRepo(root);
    db = join(t.dir, 'index.db');
  });
  afterAll(() => t.cleanup());

  it('index --dry-run previews without writing', async () => {
    const r = await runCli(['index', root, '--db', db, '--dry-run', '--json'], { cwd: t.dir });
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report).toMatchObject({ files: 6, languages: { typescript: 2, python: 1, markdown: 2, yaml: 1 } });
    expect(report.topDirectories[0].dir).toBe('src');
    const status = await runCli(['status', '--db', db, '--json'], { cwd: root });
    expect(status.code).toBe(3); // no index was written: INDEX_NOT_FOUND
  });

  it('search builds the index first when there is none, and prints the documented JSON schema', async () => {
    const r = await runCli(['search', 'open sqlite database', '--db', db, '--json', '-k', '3'], { cwd: root });
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(Object.keys(out)).toEqual(['query', 'results', 'meta']);
    expect(out.results[0]).toMatchObject({ path: 'src/db/open-database.ts', language: 'typescript', kind: 'function', symbol: 'openDatabase' });
    for (const key of ['path', 'startLine', 'endLine', 'score', 'language', 'kind', 'symbol', 'container', 'signature', 'snippet']) expect(out.results[0]).toHaveProperty(key);
    // the default: the pass embeds with the built-in model, and a natural-language question is blended
    expect(out.meta).toMatchObject({ mode: 'hybrid', queryKind: 'natural' });
    expect(out.meta.semantic).toMatch(/^hybrid: builtin:scry-code-nbow, \d+ chunks$/);
    expect(r.stderr).toBe('');
  });

  it('human output cites path:start-end and the mode (an identifier ranks lexically)', async () => {
    const r = await runCli(['search', 'retry_with_backoff', '--db', db], { cwd: t.dir });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^src\/http\/retry_policy\.py:3-10 python/m);
    expect(r.stdout).toMatch(/lexical: identifier query/);
    expect(r.stdout).not.toContain('«');
  });

  it('status and index report in JSON', async () => {
    const s = await runCli(['status', '--db', db, '--json'], { cwd: t.dir });
    expect(JSON.parse(s.stdout)).toMatchObject({ indexed: true, files: 6 });
    const i = await runCli(['index', root, '--db', db, '--json'], { cwd: t.dir });
    expect(JSON.parse(i.stdout)).toMatchObject({ filesUnchanged: 6, filesIndexed: 0 });
  });

  it('--files, --path, --lang and --type filters', async () => {
    const r = await runCli(['search', 'port', '--db', db, '--json', '--files', '--type', 'code,config'], { cwd: t.dir });
    const paths = JSON.parse(r.stdout).results.map((x: { path: string }) => x.path);
    expect(paths).toContain('config/app.yaml');
    expect(paths).not.toContain('docs/guide.md');
    const lang = await runCli(['search', 'retry', '--db', db, '--json', '--lang', 'python'], { cwd: t.dir });
    expect(JSON.parse(lang.stdout).results.map((x: { path: string }) => x.path).filter((p: string, i: number, all: string[]) => all.indexOf(p) === i)).toEqual(['src/http/retry_policy.py']);
  });

  it('errors go to stderr with a stable code and exit code', async () => {
    const empty = await runCli(['search', '"()"', '--db', db], { cwd: t.dir });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/error \[QUERY_EMPTY\]/);
    const json = await runCli(['search', '', '--db', db, '--json'], { cwd: t.dir });
    expect(JSON.parse(json.stderr)).toMatchObject({ error: { code: 'QUERY_EMPTY' } });
    const badK = await runCli(['search', 'x', '--db', db, '-k', 'lots'], { cwd: t.dir });
    expect(badK.code).toBe(2);
    const noRoot = await runCli(['index', join(t.dir, 'missing')], { cwd: t.dir });
    expect(noRoot.code).toBe(3);
    expect(noRoot.stderr).toMatch(/ROOT_NOT_FOUND/);
    const unknown = await runCli(['frobnicate'], { cwd: t.dir });
    expect(unknown.code).toBe(2);
    const badDebounce = await runCli(['watch', root, '--db', db, '--debounce', 'soon'], { cwd: t.dir });
    expect(badDebounce.code).toBe(2);
    expect(badDebounce.stderr).toMatch(/INVALID_ARGUMENT.*debounce/);
    const badBackend = await runCli(['watch', root, '--db', db, '--backend', 'inotify'], { cwd: t.dir });
    expect(badBackend.code).toBe(2);
    expect(badBackend.stderr).toMatch(/auto, directories, recursive, poll/);
  });

  it('status says when nobody keeps the index fresh', async () => {
    const s = await runCli(['status', '--db', db], { cwd: t.dir });
    expect(s.stdout).toMatch(/^freshness: not watched/m);
    const j = await runCli(['status', '--db', db, '--json'], { cwd: t.dir });
    expect(JSON.parse(j.stdout).freshness).toMatchObject({ state: 'unwatched', role: 'none', writer: null });
  });

  it('--help lists the commands and search examples', async () => {
    const r = await runCli(['--help'], { cwd: t.dir });
    expect(r.code).toBe(0);
    for (const c of ['index', 'search', 'status', 'watch', 'mcp']) expect(r.stdout).toContain(c);
    const w = await runCli(['watch', '--help'], { cwd: t.dir });
    expect(w.stdout).toMatch(/--debounce <ms>/);
    expect(w.stdout).toMatch(/takes over/);
    const s = await runCli(['search', '--help'], { cwd: t.dir });
    expect(s.stdout).toMatch(/--db <path>/);
    expect(s.stdout).toMatch(/Examples:/);
  });

  it('as a real process: reads a long query from stdin and exits 0; a corrupt --db exits 5', () => {
    const env = isolatedEnv(t.dir);
    const trace = `TypeError: cannot read properties of undefined (reading 'port')\n    at parseConfigFile (src/parse/configLoader.ts:5:20)\n${'    at processTicksAndRejections (node:internal/process/task_queues:95:5)\n'.repeat(50)}`;
    const r = spawnCli(['search', '-', '--db', db, '--json', '--files'], { cwd: t.dir, env, input: trace });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).results[0].path).toBe('src/parse/configLoader.ts');
    const bad = spawnCli(['status', '--db', join(root, 'README.md')], { cwd: t.dir, env });
    expect(bad.code).toBe(5);
    expect(bad.stderr).toMatch(/DB_CORRUPT/);
  });
});
