/**
 * The name match and the name list in the blend (issue 18), end to end: a real index (SQLite,
 * tree-sitter) and the shipped built-in model. A short function whose body shares no word with its
 * one-sentence description sits among 60 larger ones whose comments repeat the description's words:
 * the lexical list's first 50 and the vector list's first 10 miss it, the name list brings it in and
 * the name match puts it first; `--explain` names the matched definition and the list.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type ConfigInput, type Engine } from '../../src/index.js';
import { IndexStore } from '../../src/store/index-store.js';
import { writeSmallRepo } from '../helpers/fixture-repo.js';
import { isolatedEnv, tempDir } from '../helpers/temp.js';

const QUERY = 'Check if a character is whitespace';
const TARGET = 'src/text/isWhitespace.ts';
const MERGED = 'src/util/small.ts';

function decoy(i: number): string {
  return [
    `/** Check each character of the token: a whitespace character ends token ${i}; a character in quotes does not. */`,
    `export function scanToken${i}(input: string, at: number): number {`,
    '  // the character after a backslash is never whitespace',
    `  let n = at + ${i};`,
    '  while (n < input.length && input[n] !== "\\n") n++;',
    '  return n;',
    '}',
  ].join('\n');
}

describe('the name list in the blend', () => {
  let t: ReturnType<typeof tempDir>;
  let root: string;
  const open = (fusion: Record<string, number>): Promise<Engine> =>
    createEngine({ root, db: join(t.dir, 'index.db'), env: isolatedEnv(t.dir), config: { embed: { provider: 'builtin' }, search: { fusion: { depth: 10, ...fusion } } } as ConfigInput });

  beforeAll(async () => {
    t = tempDir('scry-names-');
    root = join(t.dir, 'repo');
    const files: Record<string, string> = {
      [TARGET]: 'export function isWhitespace(c: string): boolean {\n  return c === " " || c === "\\t" || c === "\\n";\n}\n',
      // three small definitions: one merged chunk, named after another one
      [MERGED]: 'export function add(a: number, b: number) {\n  return a + b;\n}\nexport function getPrimaryKey(e: { id: number }) {\n  return e.id;\n}\nexport function remove(a: number[], i: number) {\n  a.splice(i, 1);\n}\n',
    };
    for (let i = 0; i < 60; i++) files[`src/scan/token${i}.ts`] = decoy(i);
    writeSmallRepo(root, files);
    const engine = await open({});
    await engine.index();
    engine.close();
  });
  afterAll(() => t.cleanup());

  const rankOf = async (fusion: Record<string, number>): Promise<{ rank: number; why: readonly string[] }> => {
    const engine = await open(fusion);
    try {
      const r = await engine.search(QUERY, { explain: true, limit: 10 });
      expect(r.meta.mode).toBe('hybrid');
      const i = r.results.findIndex((x) => x.path === TARGET);
      return { rank: i + 1, why: i >= 0 ? r.results[i]!.why ?? [] : [] };
    } finally {
      engine.close();
    }
  };

  it('without the name list the function is not among the first 10', async () => {
    expect((await rankOf({ blendNames: 0, blendNameDepth: 0 })).rank).toBe(0);
    // the name match alone cannot reach a chunk no list brought
    expect((await rankOf({ blendNames: 1, blendNameDepth: 0 })).rank).toBe(0);
  });

  it('the name list brings it, the name match ranks it first, and --explain says why', async () => {
    const { rank, why } = await rankOf({ blendNames: 1, blendNameDepth: 20 });
    expect(rank).toBe(1);
    expect(why).toContain('name match: isWhitespace');
    expect(why.some((w) => w.startsWith('from the name list'))).toBe(true);
    expect(why.some((w) => /^nameMatch [\d.]+ × 1 = /.test(w))).toBe(true);
  });

  it('reads every definition name of a merged chunk, and matches the described one inside it', async () => {
    const store = IndexStore.open(join(t.dir, 'index.db'), { create: false });
    try {
      const chunks = store.read(() => store.search.search('"primary"', [0, 0, 1, 0, 0, 0, 0], 5)).filter((c) => c.path === MERGED);
      expect(chunks).toHaveLength(1);
      expect(chunks[0]!.symbol).not.toBe('getPrimaryKey');
      expect(store.read(() => store.search.definitionNames([chunks[0]!.chunkId])).get(chunks[0]!.chunkId)).toEqual(['add', 'getPrimaryKey', 'remove']);
    } finally {
      store.close();
    }
    const engine = await open({});
    try {
      const r = await engine.search('Returns the primary key of an entity', { explain: true, limit: 5 });
      const hit = r.results.find((x) => x.path === MERGED);
      expect(hit?.why).toContain('name match: getPrimaryKey');
      expect(hit!.ranker!.features.nameMatch).toBeGreaterThan(0);
    } finally {
      engine.close();
    }
  });

  it('the name list is off while the name match is (blendNames 0)', async () => {
    expect((await rankOf({ blendNames: 0, blendNameDepth: 20 })).rank).toBe(0);
  });
});
