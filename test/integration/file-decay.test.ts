/**
 * The per-file decay (search.ranking.fileDecay, default 0.95 since issue 18) through a real index:
 * in a list of chunks a file's n-th chunk counts × 0.95^(n−1); `--files` scores each file from its
 * undecayed chunks, so file ranking is what it was without the decay.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type ConfigInput, type Engine } from '../../src/index.js';
import { isolatedEnv, tempDir, writeTree } from '../helpers/temp.js';

// three large-enough functions of one file that all match, so each is its own chunk, and one of another file
const fn = (name: string): string => `export function ${name}(input: string): string {\n${Array.from({ length: 40 }, (_, i) => `  const tokenizer${i} = input.slice(${i}); // tokenizer step ${i} of the lexer pipeline`).join('\n')}\n  return input;\n}\n`;
// unrelated files, so that the query's words are rare and scores far from 0
const filler = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`src/misc/util${i}.ts`, `export function helper${i}(count: number): number {\n  return count * ${i} + 1;\n}\n`]));
const FILES = {
  'src/lexer.ts': ['tokenizeWords', 'tokenizeNumbers', 'tokenizeStrings'].map(fn).join('\n'),
  'src/other.ts': fn('tokenizeOther'),
  ...filler,
};

describe('fileDecay', () => {
  let t: ReturnType<typeof tempDir>;
  let shipped: Engine;
  let undecayed: Engine;

  beforeAll(async () => {
    t = tempDir();
    const root = join(t.dir, 'repo');
    writeTree(root, FILES);
    const db = join(t.dir, 'index.db');
    // the lexical ranking's decay (embed.provider none: the blend would rescale the scores)
    shipped = await createEngine({ root, db, env: isolatedEnv(t.dir), config: { embed: { provider: 'none' } } as ConfigInput });
    await shipped.index();
    undecayed = await createEngine({ root, db, env: isolatedEnv(t.dir), config: { embed: { provider: 'none' }, search: { ranking: { fileDecay: 1 } } } as ConfigInput });
  });

  afterAll(() => {
    shipped.close();
    undecayed.close();
    t.cleanup();
  });

  it("a file's later chunks count × 0.95^(n − 1) in a list of chunks, and say so in the trace", async () => {
    const a = (await shipped.search('tokenizer lexer pipeline', { limit: 10, explain: true })).results.filter((r) => r.path === 'src/lexer.ts');
    const b = (await undecayed.search('tokenizer lexer pipeline', { limit: 10, explain: true })).results.filter((r) => r.path === 'src/lexer.ts');
    expect(a.length).toBe(3);
    for (const r of b) expect(r.score).toBeGreaterThan(1);
    const raw = new Map(b.map((r) => [r.startLine, r.score]));
    a.forEach((r, n) => {
      expect(r.score).toBeCloseTo(raw.get(r.startLine)! * 0.95 ** n, 2);
      if (n > 0) expect(r.why?.some((w) => w.includes(`chunk ${n + 1} of its file`))).toBe(true);
    });
    expect(b.some((r) => r.why?.some((w) => w.includes('of its file ×')))).toBe(false);
  });

  it('files mode scores a file from its undecayed chunks', async () => {
    const a = (await shipped.search('tokenizer lexer pipeline', { limit: 10, files: true })).results;
    const b = (await undecayed.search('tokenizer lexer pipeline', { limit: 10, files: true })).results;
    expect(a.map((r) => [r.path, r.score])).toEqual(b.map((r) => [r.path, r.score]));
    expect(a[0]!.path).toBe('src/lexer.ts');
    expect(a[0]!.score).toBeGreaterThan(1);
  });
});
