/**
 * engine.context and `scry context` on a real index: the pack for a query inside a token budget
 * (counted with the real o200k tokenizer), the current file's window first, signatures of the
 * symbols the query names, then cited chunks.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, loadTokenCounter, type Engine } from '../../src/index.js';
import { runCli } from '../helpers/cli.js';
import { writeSmallRepo } from '../helpers/fixture-repo.js';
import { isolatedEnv, tempDir } from '../helpers/temp.js';

const LONG = Array.from({ length: 120 }, (_, i) => `  const step${i} = retryBudget * ${i}; // spend the retry budget on step ${i}`).join('\n');

describe('engine.context', () => {
  let t: ReturnType<typeof tempDir>;
  let engine: Engine;
  let db: string;

  beforeAll(async () => {
    t = tempDir('scry-context-');
    writeSmallRepo(join(t.dir, 'repo'), { 'src/http/budget.ts': `export function spendRetryBudget(retryBudget: number) {\n${LONG}\n  return retryBudget;\n}\n` });
    db = join(t.dir, 'index.db');
    engine = await createEngine({ root: join(t.dir, 'repo'), db, env: isolatedEnv(t.dir) });
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

  it('puts the current file window first, with the cursor line, then signatures of named symbols, then cited chunks', async () => {
    const pack = await engine.context('where does parseConfigFile() read the port', { current: { path: 'src/db/open-database.ts', line: 6 }, tokens: 2000 });
    expect(pack.sections.workspace.currentFile).toMatchObject({ path: 'src/db/open-database.ts', cursorLine: 6, startLine: 1, endLine: 9 });
    const pieces = pack.sections.evidence.flatMap((g) => g.pieces);
    const signature = pieces.find((p) => p.kind === 'signature');
    expect(signature).toMatchObject({ path: 'src/parse/configLoader.ts', startLine: 3, text: 'function parseConfigFile(text: string): LoadedConfig' });
    expect(pieces.some((p) => p.kind === 'chunk' && p.path === 'src/parse/configLoader.ts')).toBe(true);
    for (const p of pieces.filter((x) => x.kind === 'chunk')) expect(p.hashes[0]).toMatch(/^[0-9a-f]{12}$/);
    expect(pack.text.indexOf('current_file:')).toBeLessThan(pack.text.indexOf('evidence:'));
    expect(pack.text).toContain('cite: src/parse/configLoader.ts:3-3');
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
