/**
 * Issue 16, defect 1: `--db` alone is enough, because the root is stored in the index. Every
 * command taking [DIR] (or --root) and --db, run from another directory: without DIR it works on
 * the stored root; with another DIR it is refused with ROOT_MISMATCH (exit 2) and the index is
 * left exactly as it was (no walk, no write, no file removed).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { openConnection } from '../../src/store/driver.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CLI_ARGS, runCli, spawnCli, type CliRun } from '../helpers/cli.js';
import { backdate, writeSmallRepo } from '../helpers/fixture-repo.js';
import { startEmbedServer, type EmbedServer } from '../helpers/embed-server.js';
import { isolatedEnv, tempDir, writeTree } from '../helpers/temp.js';

let t: ReturnType<typeof tempDir>;
let root: string;
let other: string;
let db: string;
let queries: string;
let server: EmbedServer;

/** What must not change: status counts and every row of the files table, plus the stored root. */
async function fingerprint(): Promise<{ files: number; chunks: number; root: string; digest: string }> {
  const status = await runCli(['status', '--db', db, '--json'], { cwd: root });
  expect(status.code, status.stderr).toBe(0);
  const s = JSON.parse(status.stdout) as { root: string; files: number; chunks: number };
  const conn = openConnection(db, { readonly: true });
  try {
    const rows = conn.prepare('SELECT * FROM files ORDER BY path').all();
    const meta = conn.prepare("SELECT value FROM meta WHERE key = 'root'").get();
    return { files: s.files, chunks: s.chunks, root: s.root, digest: createHash('sha256').update(JSON.stringify([rows, meta])).digest('hex') };
  } finally {
    conn.close();
  }
}

beforeAll(async () => {
  t = tempDir('scry-cli-root-');
  root = join(t.dir, 'repo');
  other = join(t.dir, 'elsewhere');
  db = join(t.dir, 'index.db');
  writeSmallRepo(root);
  // a tree that would replace every file of the index if it were walked instead
  writeTree(other, { 'lib/unrelated.ts': 'export const unrelatedThing = 1;\n', 'notes.md': '# Elsewhere\n' });
  server = await startEmbedServer();
  queries = join(t.dir, 'queries.jsonl');
  writeFileSync(queries, `${JSON.stringify({ query: 'open the sqlite database', expected: [{ path: 'src/db/open-database.ts' }] })}\n`);
  const first = await runCli(['index', root, '--db', db], { cwd: t.dir });
  expect(first.code, first.stderr).toBe(0);
}, 60_000);

afterAll(async () => {
  await server.close();
  t.cleanup();
});

interface Case {
  readonly name: string;
  /** Without DIR: must work on the stored root. */
  readonly storedRoot: string[];
  /** With another DIR (or --root): ROOT_MISMATCH. */
  readonly otherRoot: (dir: string) => string[];
  /** A check of the successful run's output. */
  readonly check: (r: CliRun) => void;
}

const json = (r: CliRun): Record<string, unknown> => JSON.parse(r.stdout) as Record<string, unknown>;
const openDb = join('src', 'db', 'open-database.ts');

/** The test embedding server as an Ollama endpoint (its url filled in at run time). */
const EMBED = ['--provider', 'ollama', '--url', '{embed}', '--model', 'test-embed'];

const CASES: readonly Case[] = [
  { name: 'index', storedRoot: ['index', '--db', '{db}', '--json'], otherRoot: (d) => ['index', d, '--db', '{db}'], check: (r) => expect(json(r)).toMatchObject({ root, filesRemoved: 0 }) },
  { name: 'index --paths', storedRoot: ['index', '--db', '{db}', '--paths', `{root}/${openDb}`, '--json'], otherRoot: (d) => ['index', d, '--db', '{db}', '--paths', `{root}/${openDb}`], check: (r) => expect(json(r)).toMatchObject({ root, filesRemoved: 0 }) },
  { name: 'embed', storedRoot: ['embed', '--db', '{db}', ...EMBED, '--json'], otherRoot: (d) => ['embed', d, '--db', '{db}', ...EMBED], check: (r) => expect(json(r)).toMatchObject({ filesRemoved: 0, embedding: { covered: expect.any(Number) as number, model: { model: 'test-embed' } } }) },
  { name: 'status', storedRoot: ['status', '--db', '{db}', '--json'], otherRoot: (d) => ['status', d, '--db', '{db}'], check: (r) => expect(json(r)).toMatchObject({ root, files: 6 }) },
  { name: 'eval', storedRoot: ['eval', '--db', '{db}', '--queries', '{queries}', '--json'], otherRoot: (d) => ['eval', d, '--db', '{db}', '--queries', '{queries}'], check: (r) => expect(json(r)).toMatchObject({ root }) },
  { name: 'map', storedRoot: ['map', '--db', '{db}', '--json'], otherRoot: (d) => ['map', d, '--db', '{db}'], check: (r) => expect(JSON.stringify(json(r).files)).toContain('open-database.ts') },
  { name: 'map --root', storedRoot: ['map', '--db', '{db}', '--json'], otherRoot: (d) => ['map', '--root', d, '--db', '{db}'], check: (r) => expect(json(r).totalFiles).toBeGreaterThan(0) },
  { name: 'context', storedRoot: ['context', 'open the sqlite database', '--db', '{db}', '--json'], otherRoot: (d) => ['context', 'open the sqlite database', '--root', d, '--db', '{db}'], check: (r) => expect(json(r).text).toContain('openDatabase') },
  { name: 'search', storedRoot: ['search', 'openDatabase', '--db', '{db}', '--json'], otherRoot: (d) => ['search', 'openDatabase', '--root', d, '--db', '{db}'], check: (r) => expect(JSON.stringify(json(r).results)).toContain('src/db/open-database.ts') },
  { name: 'symbols', storedRoot: ['symbols', 'openDatabase', '--db', '{db}', '--json'], otherRoot: (d) => ['symbols', 'openDatabase', '-C', d, '--db', '{db}'], check: (r) => expect(JSON.stringify(json(r).results)).toContain('src/db/open-database.ts') },
  { name: 'refs', storedRoot: ['refs', 'parseConfigFile', '--db', '{db}', '--json'], otherRoot: (d) => ['refs', 'parseConfigFile', '-C', d, '--db', '{db}'], check: (r) => expect(json(r).total).toBeGreaterThan(0) },
  { name: 'outline', storedRoot: ['outline', 'src/db/open-database.ts', '--db', '{db}', '--json'], otherRoot: (d) => ['outline', 'src/db/open-database.ts', '-C', d, '--db', '{db}'], check: (r) => expect(json(r).path).toBe('src/db/open-database.ts') },
  { name: 'related', storedRoot: ['related', 'src/parse/configLoader.ts', '--db', '{db}', '--json'], otherRoot: (d) => ['related', 'src/parse/configLoader.ts', '-C', d, '--db', '{db}'], check: (r) => expect(json(r).path).toBe('src/parse/configLoader.ts') },
  { name: 'similar', storedRoot: ['similar', `{root}/${openDb}:4-7`, '--db', '{db}', '--json'], otherRoot: (d) => ['similar', `{root}/${openDb}:4-7`, '-C', d, '--db', '{db}'], check: (r) => expect(json(r).results).toBeInstanceOf(Array) },
  { name: 'tool', storedRoot: ['tool', 'list_files', '--db', '{db}'], otherRoot: (d) => ['tool', 'list_files', '--root', d, '--db', '{db}'], check: (r) => expect(JSON.stringify(json(r).data)).toContain('src/db/open-database.ts') },
];

const fill = (args: readonly string[]): string[] => args.map((a) => a.replaceAll('{db}', db).replaceAll('{root}', root).replaceAll('{queries}', queries).replaceAll('{embed}', server.url));

describe('commands run from another directory with --db', () => {
  it('work on the stored root without DIR, refuse another DIR with ROOT_MISMATCH, and leave the index as it was', async () => {
    const before = await fingerprint();
    expect(before).toMatchObject({ files: 6, root });
    for (const c of CASES) {
      const ok = await runCli(fill(c.storedRoot), { cwd: other });
      expect(ok.code, `${c.name}: ${ok.stderr}`).toBe(0);
      c.check(ok);
      const refused = await runCli(fill(c.otherRoot(other)), { cwd: other });
      expect(refused.code, `${c.name}: ${refused.stdout}${refused.stderr}`).toBe(2);
      const message = refused.stderr + refused.stdout;
      expect(message, c.name).toContain('ROOT_MISMATCH');
      if (c.name !== 'tool') expect(message, c.name).toMatch(/hint: .*--rebuild/);
      expect(message, c.name).toContain(root);
      expect(message, c.name).toContain(other);
      expect(await fingerprint(), `${c.name} changed the index`).toEqual(before);
    }
  }, 120_000);

  it('from a subdirectory of the root: no DIR is the stored root, the subdirectory as DIR is another root, --paths from there still re-index', async () => {
    const sub = join(root, 'src');
    const before = await fingerprint();
    const status = await runCli(['status', '--db', db, '--json'], { cwd: sub });
    expect(status.code, status.stderr).toBe(0);
    expect(json(status)).toMatchObject({ root, files: 6 });
    const index = await runCli(['index', '--db', db, '--json'], { cwd: sub });
    expect(json(index)).toMatchObject({ root, filesSeen: 6, filesRemoved: 0 });
    for (const args of [['index', sub, '--db', db], ['status', sub, '--db', db], ['search', 'openDatabase', '-C', sub, '--db', db]]) {
      const refused = await runCli(args, { cwd: sub });
      expect(refused.code, args.join(' ')).toBe(2);
      expect(refused.stderr).toContain('ROOT_MISMATCH');
    }
    expect(await fingerprint()).toEqual(before);

    // --paths are relative to where the user is: a changed file re-indexed from inside the tree
    writeFileSync(join(sub, 'db', 'open-database.ts'), 'export function openDatabase(path: string) { return path; }\nexport const reopenedFromSub = 1;\n');
    backdate(root, ['src/db/open-database.ts']); // not "racy": later passes leave it alone
    const scoped = await runCli(['index', '--db', db, '--paths', join('db', 'open-database.ts'), '--json'], { cwd: sub });
    expect(json(scoped), scoped.stderr).toMatchObject({ root, filesIndexed: 1, filesRemoved: 0 });
    const found = await runCli(['search', 'reopenedFromSub', '--db', db, '--json'], { cwd: other });
    expect(JSON.stringify(json(found).results)).toContain('src/db/open-database.ts');
    expect((await fingerprint()).files).toBe(6);
  }, 60_000);
});

describe('SCRY_DB names the database as --db does', () => {
  it('without DIR: the stored root, from anywhere; another DIR: ROOT_MISMATCH', () => {
    const env = { ...isolatedEnv(t.dir), SCRY_DB: db };
    const status = spawnCli(['status', '--json'], { cwd: other, env });
    expect(status.code, status.stderr).toBe(0);
    expect(json(status)).toMatchObject({ root, files: 6 });
    const index = spawnCli(['index', '--json'], { cwd: other, env });
    expect(json(index), index.stderr).toMatchObject({ root, filesRemoved: 0 });
    const refused = spawnCli(['index', other], { cwd: other, env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('ROOT_MISMATCH');
  }, 60_000);
});

describe('re-rooting on purpose', () => {
  it('index DIR --rebuild moves the index to DIR; without --rebuild it is refused', async () => {
    const db2 = join(t.dir, 'reroot.db');
    expect((await runCli(['index', root, '--db', db2], { cwd: t.dir })).code).toBe(0);
    expect((await runCli(['index', other, '--db', db2], { cwd: t.dir })).code).toBe(2);
    const moved = await runCli(['index', other, '--db', db2, '--rebuild', '--json'], { cwd: t.dir });
    expect(moved.code, moved.stderr).toBe(0);
    expect(json(moved)).toMatchObject({ root: other, filesIndexed: 2 });
    const status = await runCli(['status', '--db', db2, '--json'], { cwd: root });
    expect(json(status)).toMatchObject({ root: other, files: 2 });
    expect((await runCli(['status', root, '--db', db2], { cwd: t.dir })).code).toBe(2);
  }, 60_000);
});

const childEnv = (): Record<string, string> => ({ PATH: process.env.PATH ?? '', ...isolatedEnv(t.dir) });

/** Runs a long-lived command as a child in `cwd`; resolves with its exit code, stdout lines seen, and stderr. */
function startChild(args: string[], cwd: string) {
  const child = spawn(process.execPath, [...CLI_ARGS, ...args], { cwd, env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => void (stderr += d.toString()));
  const lines = createInterface({ input: child.stdout });
  const exited = once(child, 'exit').then(([code]) => ({ code: code as number | null, stderr }));
  return { child, lines, exited };
}

describe('long-running commands from another directory with --db', () => {
  it('watch: no DIR watches the stored root; another DIR exits 2 with ROOT_MISMATCH', async () => {
    const before = await fingerprint();
    const refused = startChild(['watch', other, '--db', db, '--json'], other);
    const r = await refused.exited;
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('ROOT_MISMATCH');

    const watching = startChild(['watch', '--db', db, '--json', '--backend', 'poll'], other);
    let sawWatching = false;
    for await (const line of watching.lines) {
      const event = JSON.parse(line) as { type: string };
      if (event.type === 'watching') {
        sawWatching = true;
        break;
      }
    }
    expect(sawWatching).toBe(true);
    watching.child.kill('SIGTERM');
    expect((await watching.exited).code).toBe(0);
    expect(await fingerprint()).toEqual(before);
  }, 60_000);

  it('mcp: --db alone serves the stored root; --root elsewhere exits 2 with ROOT_MISMATCH', async () => {
    const before = await fingerprint();
    const refused = startChild(['mcp', '--root', other, '--db', db, '--no-watch'], other);
    const r = await refused.exited;
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('ROOT_MISMATCH');

    const transport = new StdioClientTransport({ command: process.execPath, args: [...CLI_ARGS, 'mcp', '--db', db, '--no-watch'], env: childEnv(), cwd: other, stderr: 'pipe' });
    const client = new Client({ name: 'scry-root-test', version: '0' });
    await client.connect(transport);
    try {
      expect(client.getInstructions()).toContain(`scry indexes the repository at ${root}`);
      const result = await client.callTool({ name: 'list_files', arguments: {} });
      expect(JSON.stringify(result.structuredContent)).toContain('src/db/open-database.ts');
    } finally {
      await client.close();
    }
    expect(await fingerprint()).toEqual(before);
  }, 60_000);
});
