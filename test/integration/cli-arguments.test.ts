import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, spawnCli } from '../helpers/cli.js';
import { writeSmallRepo } from '../helpers/fixture-repo.js';
import { isolatedEnv, tempDir } from '../helpers/temp.js';

/**
 * Issue 24: `scry search ""` in an unindexed directory indexed 23,481 files for 7 minutes, then
 * failed with QUERY_EMPTY. Every command checks its arguments before any work: each case runs in
 * an unindexed project and must fail with its code and leave no database behind.
 */
interface Case {
  readonly args: readonly string[];
  readonly code: string;
  readonly stdin?: string;
}

// [ROOT] and [DB] are replaced by the project root and a database path that does not exist yet
const CASES: readonly Case[] = [
  { args: ['search', '', '-C', '[ROOT]', '--db', '[DB]', '--json'], code: 'QUERY_EMPTY' },
  { args: ['search', '   ', '-C', '[ROOT]', '--db', '[DB]', '--json'], code: 'QUERY_EMPTY' },
  { args: ['search', '"" * ( ) ^', '-C', '[ROOT]', '--db', '[DB]', '--json'], code: 'QUERY_EMPTY' },
  { args: ['search', '-', '-C', '[ROOT]', '--db', '[DB]', '--json'], code: 'QUERY_EMPTY', stdin: '\n' },
  { args: ['search', 'lex:', '-C', '[ROOT]', '--db', '[DB]', '--json'], code: 'INVALID_ARGUMENT' },
  { args: ['search', 'port', '--mode', 'fuzzy', '-C', '[ROOT]', '--db', '[DB]', '--json'], code: 'INVALID_ARGUMENT' },
  { args: ['search', 'port', '--type', 'binary', '-C', '[ROOT]', '--db', '[DB]', '--json'], code: 'INVALID_ARGUMENT' },
  { args: ['search', 'port', '--lang', 'klingon', '-C', '[ROOT]', '--db', '[DB]', '--json'], code: 'INVALID_ARGUMENT' },
  { args: ['search', 'port', '-k', '0', '-C', '[ROOT]', '--db', '[DB]', '--json'], code: 'INVALID_ARGUMENT' },
  { args: ['context', '', '-C', '[ROOT]', '--db', '[DB]', '--json'], code: 'INVALID_ARGUMENT' },
  { args: ['context', 'open the database', '--tokens', '100', '-C', '[ROOT]', '--db', '[DB]', '--json'], code: 'INVALID_ARGUMENT' },
  { args: ['context', 'open the database', '--lang', 'klingon', '-C', '[ROOT]', '--db', '[DB]', '--json'], code: 'INVALID_ARGUMENT' },
  { args: ['symbols', ' ', '-C', '[ROOT]', '--db', '[DB]', '--json'], code: 'QUERY_EMPTY' },
  { args: ['symbols', 'openDatabase', '--kind', 'gizmo', '-C', '[ROOT]', '--db', '[DB]', '--json'], code: 'INVALID_ARGUMENT' },
  { args: ['refs', '', '-C', '[ROOT]', '--db', '[DB]', '--json'], code: 'QUERY_EMPTY' },
  { args: ['refs', 'two words', '-C', '[ROOT]', '--db', '[DB]', '--json'], code: 'INVALID_ARGUMENT' },
  { args: ['outline', '', '-C', '[ROOT]', '--db', '[DB]', '--json'], code: 'INVALID_ARGUMENT' },
  { args: ['related', ' ', '-C', '[ROOT]', '--db', '[DB]', '--json'], code: 'INVALID_ARGUMENT' },
  { args: ['map', '[ROOT]', '--tokens', '5', '--db', '[DB]', '--json'], code: 'INVALID_ARGUMENT' },
  { args: ['index', '[ROOT]', '--paths', '../outside.ts', '--db', '[DB]', '--json'], code: 'PATH_OUTSIDE_ROOT' },
  { args: ['eval', '[ROOT]', '--db', '[DB]', '--json'], code: 'INVALID_ARGUMENT' },
  { args: ['watch', '[ROOT]', '--debounce', '-1', '--db', '[DB]', '--json'], code: 'INVALID_ARGUMENT' },
  { args: ['mcp', '--root', '[ROOT]', '--db', '[DB]', '--port', '7333'], code: 'INVALID_ARGUMENT' },
  { args: ['embed', '[ROOT]', '--provider', 'nope', '--db', '[DB]', '--json'], code: 'INVALID_ARGUMENT' },
  { args: ['similar', 'src/db/open-database.ts:9-3', '-C', '[ROOT]', '--db', '[DB]', '--json'], code: 'INVALID_ARGUMENT' },
];

// tool failures are envelopes on stdout (exit 2: invalid_arguments), not error lines on stderr
const TOOL_CASES: ReadonlyArray<readonly string[]> = [
  ['tool', 'search_cod', '-C', '[ROOT]', '--db', '[DB]'],
  ['tool', 'search_code', '--args', '{"query": 5}', '-C', '[ROOT]', '--db', '[DB]'],
  ['tool', 'search_code', '--args', '{"query": "x", "nope": 1}', '-C', '[ROOT]', '--db', '[DB]'],
];

describe('every command checks its arguments before any work (issue 24)', () => {
  let t: ReturnType<typeof tempDir>;
  let root: string;
  let n = 0;

  beforeAll(() => {
    t = tempDir();
    root = join(t.dir, 'repo');
    mkdirSync(root);
    writeSmallRepo(root);
  });
  afterAll(() => t.cleanup());

  const fill = (args: readonly string[], db: string): string[] => args.map((a) => (a === '[ROOT]' ? root : a === '[DB]' ? db : a));

  it.each(CASES.map((c) => [c.args.slice(0, 2).join(' '), c] as const))('%s → its code, no database', async (_label, c) => {
    const db = join(t.dir, `case-${n++}.db`);
    const r = await runCli(fill(c.args, db), { cwd: root, stdin: c.stdin ?? '' });
    expect(r.code, r.stderr).toBe(c.code === 'PATH_OUTSIDE_ROOT' ? 3 : 2);
    const line = r.stderr.trim().split('\n').at(-1)!;
    const code = line.startsWith('{') ? (JSON.parse(line) as { error: { code: string } }).error.code : /\[([A-Z_]+)\]/.exec(line)?.[1];
    expect(code, r.stderr).toBe(c.code);
    expect(r.stdout).toBe('');
    expect(existsSync(db)).toBe(false);
  });

  it.each(TOOL_CASES.map((a) => [a.slice(0, 4).join(' '), a] as const))('%s → invalid_arguments, no database', async (_label, args) => {
    const db = join(t.dir, `case-${n++}.db`);
    const r = await runCli(fill(args, db), { cwd: root });
    expect(r.code, r.stderr).toBe(2);
    expect((JSON.parse(r.stdout) as { error: string }).error).toBe('invalid_arguments');
    expect(existsSync(db)).toBe(false);
  });

  it('the reported case, as a process: `scry search ""` in an unindexed directory fails at once and writes no index', () => {
    const env = isolatedEnv(t.dir);
    const r = spawnCli(['search', ''], { cwd: root, env });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('[QUERY_EMPTY]');
    expect(r.stderr).not.toContain('building it first');
    const cache = env.SCRY_CACHE_DIR!;
    const files = existsSync(cache) ? readdirSync(cache, { recursive: true }).map(String) : [];
    expect(files.filter((f) => f.endsWith('.db'))).toEqual([]);
  });

  it('a valid call still builds the index first (the checks reject only bad arguments)', async () => {
    const db = join(t.dir, 'valid.db');
    const r = await runCli(['search', 'openDatabase', '-C', root, '--db', db, '--json', '-k', '1'], { cwd: root });
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(db)).toBe(true);
  });
});
