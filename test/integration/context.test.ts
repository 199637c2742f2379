/**
 * engine.context and `scry context` on a real index: the pack for a query inside a token budget
 * (counted with the real o200k tokenizer), the current file's window first, then cited chunks,
 * with the signatures of the symbols the query names (folded into their chunks when retrieved).
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, loadTokenCounter, type Engine } from '../../src/index.js';
import { runCli } from '../helpers/cli.js';
import { writeSmallRepo } from '../helpers/fixture-repo.js';
import { isolatedEnv, tempDir } from '../helpers/temp.js';

const LONG = Array.from({ length: 120 }, (_, i) => `  const step${i} = retryBudget * ${i}; // spend the retry budget on step ${i}`).join('\n');

/** A 12,000-line, ~430 KB file: its cursor windows lie far past the first 200 KB. */
const TABLE = Array.from({ length: 12_000 }, (_, i) => `export const cell${i} = [${i}, ${i * 7}, ${i * 13}];`).join('\n') + '\n';

describe('engine.context', () => {
  let t: ReturnType<typeof tempDir>;
  let engine: Engine;
  let db: string;

  beforeAll(async () => {
    t = tempDir('scry-context-');
    writeSmallRepo(join(t.dir, 'repo'), { 'src/http/budget.ts': `export function spendRetryBudget(retryBudget: number) {\n${LONG}\n  return retryBudget;\n}\n`, 'src/gen/table.ts': TABLE });
    db = join(t.dir, 'index.db');
    // packing over lexical ranking (in a repository this small the vector list reaches every file, so hybrid evidence is every file)
    engine = await createEngine({ root: join(t.dir, 'repo'), db, env: isolatedEnv(t.dir), config: { embed: { provider: 'none' } } });
    await engine.index();
  });
  afterAll(() => {
    engine.close();
    t.cleanup();
  });

  it('never exceeds the budget, and a large chunk does not crowd out the rest of a small one', async () => {
    const counter = await loadTokenCounter();
    for (const tokens of [256, 400, 1000, 8000]) {
      const pack = await engine.context('retry budget backoff database port', { tokens });
      expect(counter.count(pack.text)).toBeLessThanOrEqual(tokens);
      expect(pack.tokens.total).toBeLessThanOrEqual(tokens);
      const pieces = pack.sections.evidence.flatMap((g) => g.pieces).length;
      if (tokens >= 400) expect(pieces, `pieces at ${tokens} tokens`).toBeGreaterThanOrEqual(2);
    }
  });

  it('puts the current file window first, with the cursor line, then the chunks, a named symbol\'s definition first', async () => {
    const pack = await engine.context('where does parseConfigFile() read the port', { current: { path: 'src/db/open-database.ts', line: 6 }, tokens: 2000 });
    expect(pack.sections.workspace.currentFile).toMatchObject({ path: 'src/db/open-database.ts', cursorLine: 6, startLine: 1, endLine: 9 });
    const pieces = pack.sections.evidence.flatMap((g) => g.pieces);
    // the signature of parseConfigFile is folded into its retrieved chunk, which ranks first
    const best = pieces.find((p) => p.rank === Math.min(...pieces.map((x) => x.rank)))!;
    expect(best).toMatchObject({ kind: 'chunk', path: 'src/parse/configLoader.ts' });
    expect(best.startLine).toBeLessThanOrEqual(3);
    expect(best.endLine).toBeGreaterThanOrEqual(3);
    expect(best.symbols).toContain('parseConfigFile');
    expect(pieces.some((p) => p.kind === 'signature')).toBe(false);
    expect(pack.omitted).toContainEqual({ section: 'evidence', label: 'src/parse/configLoader.ts:3-3', reason: 'duplicate' });
    for (const p of pieces.filter((x) => x.kind === 'chunk')) expect(p.hashes[0]).toMatch(/^[0-9a-f]{12}$/);
    expect(pack.text.indexOf('current_file:')).toBeLessThan(pack.text.indexOf('evidence:'));
    expect(pack.text).toContain(`cite: src/parse/configLoader.ts:${best.startLine}-${best.endLine}`);
  });

  it('shows the signature of a named symbol whose chunk was not retrieved', async () => {
    const pack = await engine.context('spendRetryBudget and openDatabase(', { candidates: 1, tokens: 2000 });
    const pieces = pack.sections.evidence.flatMap((g) => g.pieces);
    const signatures = pieces.filter((p) => p.kind === 'signature');
    const chunks = pieces.filter((p) => p.kind === 'chunk');
    expect(chunks).toHaveLength(1);
    // one of the two definitions came back as the one candidate; the other is shown by its signature
    expect(signatures).toHaveLength(1);
    expect(signatures[0]!.path).not.toBe(chunks[0]!.path);
    expect(signatures[0]!.text).toMatch(/^(export )?function (spendRetryBudget|openDatabase)\(/);
    expect(pack.text).toContain(`cite: ${signatures[0]!.path}:${signatures[0]!.startLine}-${signatures[0]!.startLine}`);
  });

  it('windows the current file around a cursor anywhere in a large file, past its first 200 KB', async () => {
    expect(TABLE.length).toBeGreaterThan(400_000);
    const deep = await engine.context('cell lookup', { current: { path: 'src/gen/table.ts', line: 11_000 }, tokens: 2000 });
    const w = deep.sections.workspace.currentFile!;
    expect(w.startLine).toBeLessThanOrEqual(11_000);
    expect(w.endLine).toBeGreaterThanOrEqual(11_000);
    expect(w.totalLines).toBe(12_000);
    expect(w.text.split('\n')[11_000 - w.startLine]).toBe('export const cell10999 = [10999, 76993, 142987];');
    expect(deep.text).toMatch(/cursor_line: 11000\n {4}lines: \d+-\d+\n {4}total_lines: 12000\n/);
    // a cursor past the end stands on the last line
    const past = await engine.context('cell lookup', { current: { path: 'src/gen/table.ts', line: 50_000 }, tokens: 2000 });
    expect(past.sections.workspace.currentFile).toMatchObject({ cursorLine: 12_000, endLine: 12_000, totalLines: 12_000 });
  });

  it('cuts a long query to a quarter of the budget as the goal, and searches with all of it', async () => {
    const counter = await loadTokenCounter();
    const issue = `The retry budget is spent twice when the database port is wrong.\n\n${'Steps: open the database, parse the config, retry. '.repeat(60)}`;
    expect(counter.count(issue)).toBeGreaterThan(600);
    const pack = await engine.context(issue, { tokens: 1000 });
    expect(pack.tokens.total).toBeLessThanOrEqual(1000);
    expect(pack.query).toBe(issue);
    expect(pack.sections.task.goal.endsWith(' […]')).toBe(true);
    expect(issue.startsWith(pack.sections.task.goal.slice(0, -4))).toBe(true);
    expect(counter.count(pack.sections.task.goal)).toBeLessThanOrEqual(250);
    expect(pack.omitted[0]).toEqual({ section: 'task', label: 'goal', reason: 'trimmed' });
    expect(pack.sections.evidence.length).toBeGreaterThan(0);
    const short = await engine.context('retry budget', { tokens: 1000 });
    expect(short.sections.task.goal).toBe('retry budget');
    expect(short.omitted.some((o) => o.section === 'task')).toBe(false);
  });

  it('adds repository, folder and file summaries after the chunks, only when every chunk fit', async () => {
    const pack = await engine.context('open the database in WAL mode', { tokens: 12_000 });
    const pieces = pack.sections.evidence.flatMap((g) => g.pieces);
    const summaries = pieces.filter((p) => p.kind === 'summary');
    expect(pack.omitted.filter((o) => o.reason === 'budget')).toEqual([]);
    const repo = summaries.find((p) => p.path === './')!;
    expect(repo.symbols).toEqual(['repo map']);
    expect(repo.text).toContain('open-database.ts');
    const folder = summaries.find((p) => p.path === 'src/db/')!;
    expect(folder.text).toMatch(/^1 file: open-database\.ts$/);
    const file = summaries.find((p) => p.path === 'src/db/open-database.ts')!;
    expect(file.text.split('\n')[0]).toMatch(/^typescript, \d+ lines/);
    expect(file.text).toMatch(/^\d+: (export )?function openDatabase\(path: string\)/m);
    // cited by path (folders, the repository) or by the whole file's lines; ranked after every chunk
    expect(pack.text).toContain('cite: src/db/\n');
    expect(pack.text).toContain('cite: "./"\n');
    expect(pack.text).toContain(`cite: src/db/open-database.ts:1-${file.endLine}\n    kind: summary\n`);
    const chunkRanks = pieces.filter((p) => p.kind === 'chunk').map((p) => p.rank);
    expect(chunkRanks.length).toBeGreaterThan(0);
    expect(Math.min(...summaries.map((p) => p.rank))).toBeGreaterThan(Math.max(...chunkRanks));
    // a budget the chunks fill gets none
    const tight = await engine.context('open the database in WAL mode retry budget', { tokens: 600 });
    expect(tight.sections.evidence.flatMap((g) => g.pieces).some((p) => p.kind === 'summary')).toBe(false);
  });

  it('rejects a bad budget and an empty query, and a current file outside the index', async () => {
    await expect(engine.context('x', { tokens: 10 })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(engine.context('  ')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(engine.context('open database', { current: { path: '../outside.ts' } })).rejects.toMatchObject({ code: expect.stringMatching(/PATH_/) });
  });

  it('scry context prints the pack as YAML (or JSON) and a one-line summary on stderr', async () => {
    const r = await runCli(['context', 'open the database in WAL mode', '--db', db, '--tokens', '1200', '--current', 'src/db/open-database.ts:5'], { cwd: t.dir });
    expect(r.code).toBe(0);
    expect(r.stdout.startsWith('task:\n  goal: open the database in WAL mode\n')).toBe(true);
    expect(r.stdout).toMatch(/cursor_line: 5/);
    expect(r.stderr).toMatch(/^scry: \d+\/1200 tokens · \d+ candidates/);
    const j = await runCli(['context', '-', '--db', db, '--json'], { cwd: t.dir, stdin: 'retry with backoff' });
    expect(JSON.parse(j.stdout)).toMatchObject({ query: 'retry with backoff', budget: 8000 });
    const bad = await runCli(['context', 'x', '--db', db, '--tokens', 'lots'], { cwd: t.dir });
    expect(bad.code).toBe(2);
    const badLine = await runCli(['context', 'x', '--db', db, '--current', 'src/a.ts:0'], { cwd: t.dir });
    expect(badLine.code).toBe(2);
  });
});
