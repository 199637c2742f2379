/**
 * Per-query-kind ranking (search.ranking.byKind, issue 18) through a real index: a kind's per-file
 * steps apply to queries of that kind only, in the lexical pipeline and in the hybrid blend (with
 * the built-in model), `--explain` names them, and a bad setting is refused with CONFIG_INVALID.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type ConfigInput, type Engine } from '../../src/index.js';
import { isolatedEnv, tempDir, writeTree } from '../helpers/temp.js';

// three functions of one file that all match (each its own chunk), and two other files that match less
const fn = (name: string, steps: number): string => `export function ${name}(input: string): string {\n${Array.from({ length: steps }, (_, i) => `  const tokenizer${i} = input.slice(${i}); // tokenizer step ${i} of the lexer pipeline`).join('\n')}\n  return input;\n}\n`;
const filler = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`src/misc/util${i}.ts`, `export function helper${i}(count: number): number {\n  return count * ${i} + 1;\n}\n`]));
const FILES = {
  'src/lexer.ts': ['tokenizeWords', 'tokenizeNumbers', 'tokenizeStrings'].map((n) => fn(n, 40)).join('\n'),
  'src/other.ts': fn('tokenizeOther', 12),
  'src/third.ts': fn('tokenizeThird', 8),
  ...filler,
};
const LONG = 'The tokenizer pipeline of the lexer breaks\n\nEvery tokenizer step of the lexer pipeline slices the input again, so long inputs are slow.';
const NATURAL = 'tokenizer step of the lexer pipeline';
const CAP_LONG = { search: { ranking: { byKind: { long: { fileCap: 1 } } } } };

const files = (rs: ReadonlyArray<{ path: string }>): string[] => rs.map((r) => r.path);

describe('search.ranking.byKind', () => {
  let t: ReturnType<typeof tempDir>;
  let root: string;
  const open = (config: Record<string, unknown>, provider = 'none'): Promise<Engine> =>
    createEngine({ root, db: join(t.dir, `${provider}.db`), env: isolatedEnv(t.dir), config: { embed: { provider }, ...config } as ConfigInput });

  beforeAll(async () => {
    t = tempDir('scry-bykind-');
    root = join(t.dir, 'repo');
    writeTree(root, FILES);
    for (const provider of ['none', 'builtin']) {
      const e = await open({}, provider);
      await e.index();
      e.close();
    }
  });
  afterAll(() => t.cleanup());

  it("applies a kind's cap to queries of that kind only, and explains it", async () => {
    const plain = await open({});
    const capped = await open(CAP_LONG);
    try {
      const before = await plain.search(LONG, { limit: 5 });
      const after = await capped.search(LONG, { limit: 5, explain: true });
      expect(after.meta.queryKind).toBe('long');
      // uncapped, the lexer's three functions lead; capped at 1, the other files come before its second
      expect(files(before.results).slice(0, 3)).toEqual(['src/lexer.ts', 'src/lexer.ts', 'src/lexer.ts']);
      expect(files(after.results).slice(0, 3)).toEqual(['src/lexer.ts', 'src/other.ts', 'src/third.ts']);
      expect(after.results[0]!.why).toContain('long query: fileCap 1');
      expect(after.results.find((r, i) => i > 0 && r.path === 'src/lexer.ts')?.why).toContain('chunk 2 of its file, cap 1: below the other files');
      // a natural-language query is ranked as without byKind
      const n1 = await plain.search(NATURAL, { limit: 5 });
      const n2 = await capped.search(NATURAL, { limit: 5, explain: true });
      expect(n2.meta.queryKind).toBe('natural');
      expect(n2.results.map((r) => [r.path, r.startLine, r.score])).toEqual(n1.results.map((r) => [r.path, r.startLine, r.score]));
      expect(n2.results.some((r) => r.why?.some((w) => w.includes('query: fileCap')))).toBe(false);
    } finally {
      plain.close();
      capped.close();
    }
  });

  it('spreads a moved chunk below the next files only (fileCapSpread)', async () => {
    const e = await open({ search: { ranking: { byKind: { long: { fileCap: 1, fileCapSpread: 1 } } } } });
    try {
      const r = await e.search(LONG, { limit: 5 });
      // both of the lexer's later functions wait for one other file, then come back before the third file
      expect(files(r.results)).toEqual(['src/lexer.ts', 'src/other.ts', 'src/lexer.ts', 'src/lexer.ts', 'src/third.ts']);
    } finally {
      e.close();
    }
  });

  it("shapes the hybrid blend's list for a natural-language query when the kind sets a cap", async () => {
    const blended = await open({}, 'builtin');
    const capped = await open({ search: { ranking: { byKind: { natural: { fileCap: 1 } } } } }, 'builtin');
    try {
      const before = await blended.search(NATURAL, { limit: 5 });
      const after = await capped.search(NATURAL, { limit: 5, explain: true });
      expect(after.meta.mode).toBe('hybrid');
      expect(after.results[0]!.ranker?.model).toBe('blend');
      expect(files(before.results).slice(0, 2)).toEqual(['src/lexer.ts', 'src/lexer.ts']);
      expect(new Set(files(after.results).slice(0, 3)).size).toBe(3);
      expect(after.results[0]!.why).toContain('natural query: fileCap 1');
    } finally {
      blended.close();
      capped.close();
    }
  });

  it('ships a decay of 0.9 and the file evidence for long queries, named first in every trace, lexical or rank fusion', async () => {
    const lexical = await open({});
    const fused = await open({ search: { fusion: { blend: 0 } } }, 'builtin');
    try {
      const a = await lexical.search(LONG, { limit: 5, explain: true });
      expect(a.results[1]!.why).toContain('long query: fileDecay 0.9, fileScore 0.7, mentionBoost 1');
      expect(a.results[1]!.why?.some((w) => w.startsWith('chunk 2 of its file ×0.9'))).toBe(true);
      const b = await fused.search(LONG, { limit: 5, explain: true, mode: 'hybrid' });
      expect(b.meta.mode).toBe('hybrid');
      expect(b.results[0]!.fusion).toBeDefined();
      expect(b.results[0]!.why?.[0]).toBe('long query: fileDecay 0.9, fileScore 0.7, mentionBoost 1');
    } finally {
      lexical.close();
      fused.close();
    }
  });

  it('turns the learned ranker on for one kind only', async () => {
    const e = await open({ search: { ranking: { byKind: { long: { learned: true } } } } });
    try {
      const long = await e.search(LONG, { limit: 5, explain: true });
      expect(long.results[0]!.ranker?.model).toBe('lexical');
      expect(long.results[0]!.why).toContain('long query: learned true');
      const natural = await e.search(NATURAL, { limit: 5, explain: true });
      expect(natural.results[0]!.ranker).toBeUndefined();
      expect(natural.results[0]!.why?.[0]).toMatch(/^bm25 /);
    } finally {
      e.close();
    }
  });

  it('refuses an unknown kind or an out-of-range setting with CONFIG_INVALID', async () => {
    for (const byKind of [{ prose: { fileCap: 1 } }, { long: { fileCap: -1 } }, { long: { fileDecay: 2 } }, { long: { fileCapWithin: 0.5, cap: 3 } }]) {
      await expect(open({ search: { ranking: { byKind } } })).rejects.toMatchObject({ code: 'CONFIG_INVALID' });
    }
  });
});
