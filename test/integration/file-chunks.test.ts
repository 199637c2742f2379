/**
 * The found files' other chunks in the blend (issue 18, src/search/file-chunks.ts), end to end: a
 * real index (SQLite, tree-sitter) and the shipped built-in model. One big file holds 80 methods
 * whose comments repeat a description's words and, among them, the short function it describes,
 * whose body shares none of them. With `blendFileDepth` the best files bring the chunks the lexical
 * and vector lists missed, each scored by the lexical expression (0 when it does not match), and
 * `--explain` says where a result came from.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type ConfigInput, type Engine } from '../../src/index.js';
import { IndexStore } from '../../src/store/index-store.js';
import { fileChunkCandidates, topPaths } from '../../src/search/file-chunks.js';
import { writeSmallRepo } from '../helpers/fixture-repo.js';
import { isolatedEnv, tempDir } from '../helpers/temp.js';

const QUERY = 'Check if a character is whitespace';
const BIG = 'src/scan/tokens.ts';
const OTHER = 'src/other/unrelated.ts';
const KEEPER = 'src/zoo/keeper.ts';

function decoy(i: number): string {
  return [
    `  /** Check each character of the token: a whitespace character ends token ${i}; a character in quotes does not. */`,
    `  scanToken${i}(input: string, at: number): number {`,
    '    // the character after a backslash is never whitespace',
    `    let n = at + ${i};`,
    '    while (n < input.length && input[n] !== "\\n") n++;',
    // long enough to be a chunk of its own (small definitions are merged)
    ...Array.from({ length: 12 }, (_, k) => `    if (input.charCodeAt(n) === ${k + 40 + i}) n += ${k + 1}; // the character code ${k} of token ${i}`),
    '    return n;',
    '  }',
  ].join('\n');
}

describe("the found files' other chunks in the blend", () => {
  let t: ReturnType<typeof tempDir>;
  let root: string;
  const open = (fusion: Record<string, number>): Promise<Engine> =>
    createEngine({ root, db: join(t.dir, 'index.db'), env: isolatedEnv(t.dir), config: { embed: { provider: 'builtin' }, search: { fusion: { depth: 10, blendNames: 2, ...fusion } } } as ConfigInput });

  beforeAll(async () => {
    t = tempDir('scry-filechunks-');
    root = join(t.dir, 'repo');
    const methods = Array.from({ length: 80 }, (_, i) => decoy(i));
    // the described function sits in the middle of the big file, its body free of the query's words
    const body = Array.from({ length: 24 }, (_, k) => `    if (c.charCodeAt(0) === ${k + 9}) return ${k % 5 === 0 ? 'true' : 'false'};`).join('\n');
    methods.splice(30, 0, `  isWhitespace(c: string): boolean {\n${body}\n    return c === " ";\n  }`);
    const files: Record<string, string> = {
      [BIG]: `export class Tokens {\n${methods.join('\n\n')}\n}\n`,
      [OTHER]: 'export function isSpaceLike(c: string): boolean {\n  return c.trim() === "";\n}\n',
    };
    // small functions the model finds closer to the description: the vector list's first 10
    for (let i = 0; i < 12; i++) files[`src/blank/blank${i}.ts`] = `/** Whether the character is blank (variant ${i}). */\nexport function isBlank${i}(ch: string): boolean {\n  return ch === " " || ch === "\\t";\n}\n`;
    // a file whose chunks the query's rare word finds two of: the rest join only as a found file's chunks
    const keeper = Array.from({ length: 30 }, (_, i) => `  ${i < 2 ? '/** Feed the quokka its leaves. */' : `/** Clean cage ${i}. */`}\n  task${i}(n: number): number {\n${Array.from({ length: 40 }, (_, k) => `    n = n * ${k + 2} + ${i}; // step ${k}`).join('\n')}\n    return n;\n  }`);
    files[KEEPER] = `export class Keeper {\n${keeper.join('\n\n')}\n}\n`;
    writeSmallRepo(root, files);
    const engine = await open({});
    await engine.index();
    engine.close();
  });
  afterAll(() => t.cleanup());

  const search = async (fusion: Record<string, number>): Promise<Array<{ path: string; symbol?: string | undefined; why: readonly string[] }>> => {
    const engine = await open(fusion);
    try {
      // under the lexical pool (50): a larger limit fetches more lexical candidates
      const r = await engine.search(QUERY, { explain: true, limit: 40 });
      expect(r.meta.mode).toBe('hybrid');
      return r.results.map((x) => ({ path: x.path, symbol: x.symbol ?? undefined, why: x.why ?? [] }));
    } finally {
      engine.close();
    }
  };
  const fromFiles = (rs: Awaited<ReturnType<typeof search>>) => rs.filter((x) => x.why.some((w) => w.startsWith("from a found file's")));

  it("reads a file's chunks but the excluded ones, each scored by the lexical expression or 0", () => {
    const store = IndexStore.open(join(t.dir, 'index.db'), { create: false });
    try {
      const all = store.read(() => store.search.chunkIdsOfPaths([BIG])).map((c) => c.chunkId);
      expect(all.length).toBeGreaterThan(60);
      const exclude = new Set(all.slice(0, 10));
      const weights = [0, 0, 1, 0, 1, 0, 1];
      const got = fileChunkCandidates(store, { paths: [BIG], filter: {}, exclude, expression: '"backslash"', weights, wantsTests: false });
      expect(got.map((c) => c.chunkId).sort((a, b) => a - b)).toEqual(all.slice(10).sort((a, b) => a - b));
      const target = got.find((c) => c.symbol === 'isWhitespace');
      // its text holds no `backslash`: a candidate scored 0; a decoy's comment has the word
      expect(target?.score).toBe(0);
      expect(got.some((c) => c.symbol?.startsWith('scanToken') && c.score > 0)).toBe(true);
      expect(fileChunkCandidates(store, { paths: [BIG], filter: { pathMatch: (p) => p !== BIG }, exclude, expression: '"backslash"', weights, wantsTests: false })).toEqual([]);
      expect(topPaths([{ path: 'a' }, { path: 'b' }, { path: 'a' }, { path: 'c' }], 2)).toEqual(['a', 'b']);
    } finally {
      store.close();
    }
  });

  it('without it no candidate comes from a found file', async () => {
    expect(fromFiles(await search({ blendFileDepth: 0 }))).toEqual([]);
  });

  it("brings the best file's chunks that no list found, and --explain says so", async () => {
    const engine = await open({ blendFileDepth: 1 });
    try {
      // the zoo's files only: the 80 methods of the big file would fill the list with their cosines
      const r = await engine.search('feed the quokka', { explain: true, limit: 40, path: 'src/zoo/**' });
      const joined = r.results.filter((x) => (x.why ?? []).some((w) => w.startsWith("from a found file's")));
      expect(joined.length).toBeGreaterThan(0);
      expect(new Set(joined.map((x) => x.path))).toEqual(new Set([KEEPER]));
    } finally {
      engine.close();
    }
  });
});
