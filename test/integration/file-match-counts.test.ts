/**
 * SearchRepo.fileMatchCountsMany (long-query file scoring, issue 19): per file, how many chunks
 * match each FTS5 expression, counted in memory from the FTS rowids against a chunk→file map,
 * must give exactly the rows of the reference join (`fileMatchCounts`) on a real index: words,
 * phrases, OR'ed alternatives, no match; after files are edited, added and deleted by another
 * connection (the map follows the index), whether the map is built at once or on its second
 * request (the first maps only the chunks matched), and when kept from an earlier call. A long query ranks identically however its counts were made.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type ConfigInput, type Engine } from '../../src/index.js';
import { IndexStore } from '../../src/store/index-store.js';
import { isolatedEnv, tempDir, writeTree } from '../helpers/temp.js';

const WORDS = ['parse', 'config', 'error', 'type', 'watch', 'module', 'render', 'cache', 'token', 'stream', 'retry', 'request', 'subscriber', 'node'];

/** A deterministic module of `n` functions over WORDS (a linear congruential walk from `seed`). */
function moduleText(seed: number, n: number): string {
  let x = seed;
  const next = (): string => WORDS[(x = (x * 1103515245 + 12345) % 2147483648) % WORDS.length]!;
  return Array.from({ length: n }, (_, i) => {
    const [a, b, c, d] = [next(), next(), next(), next()];
    return [`// ${a} ${b} when the ${c} ${d} fails (type error, node modules)`, `export function ${a}_${b}${i}(${c}: string): string {`, `  const ${d}Value = ${c} + '${a} ${d}';`, `  return typeError(${d}Value);`, '}', ''].join('\n');
  }).join('\n');
}

const EXPRESSIONS = [
  '"parse"',
  '"error"',
  '("typeerror" OR "type error")',
  '("node_modules" OR "nodemodules" OR "node modules")',
  '"config watch"',
  '"render" OR "cache"',
  '"zzzabsent"',
  '"parse config error"',
];

const lexical = { embed: { provider: 'none' } } as ConfigInput;

describe('SearchRepo.fileMatchCountsMany', () => {
  let t: ReturnType<typeof tempDir>;
  let root: string;
  let db: string;
  let writer: Engine;
  let reader: IndexStore;

  beforeAll(async () => {
    t = tempDir();
    root = join(t.dir, 'repo');
    db = join(t.dir, 'index.db');
    writeTree(root, Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`src/m${i}.ts`, moduleText(i + 1, 2 + (i % 7))])));
    writer = await createEngine({ root, db, env: isolatedEnv(t.dir), config: lexical });
    await writer.index();
    reader = IndexStore.open(db, { create: false });
  });

  afterAll(() => {
    reader.close();
    writer.close();
    t.cleanup();
  });

  const reference = (): unknown[] => EXPRESSIONS.map((e) => reader.read(() => reader.search.fileMatchCounts(e)).map((r) => ({ ...r })));
  const fast = (build: 'now' | 'second use', cached = false): unknown[] => reader.read(() => reader.search.fileMatchCountsMany(EXPRESSIONS, { build, cached })).map((g) => g.map((r) => ({ ...r })));

  it('gives the reference rows, on first use and from the map', () => {
    const ref = reference();
    // the walk matched something per file, with counts above one, or the comparison proves little
    expect(ref.flat().length).toBeGreaterThan(50);
    expect(ref.flat().some((r) => (r as { chunks: number }).chunks > 1)).toBe(true);
    expect(ref[6]).toEqual([]);
    // the first request of a data version maps only the chunks matched (ChunkFiles.loadFor), the second the whole index
    expect(fast('second use')).toEqual(ref);
    expect(fast('second use')).toEqual(ref);
    expect(fast('now')).toEqual(ref);
  });

  it('answers an expression counted before in the same data version from its kept rows, the same rows', () => {
    const ref = reference();
    const repo = IndexStore.open(db, { create: false });
    try {
      const first = repo.read(() => repo.search.fileMatchCountsMany(EXPRESSIONS));
      // kept: the same arrays come back, not a second walk's
      const again = repo.read(() => repo.search.fileMatchCountsMany([...EXPRESSIONS].reverse()));
      expect(again).toEqual([...first].reverse());
      again.forEach((rows, i) => expect(rows).toBe(first[EXPRESSIONS.length - 1 - i]));
      // a repeated expression within one call is walked once and answered twice
      const twice = repo.read(() => repo.search.fileMatchCountsMany(['"watch"', '"watch"']));
      expect(twice[0]).toBe(twice[1]);
      expect(first.map((g) => g.map((r) => ({ ...r })))).toEqual(ref);
      // cached: false walks again
      const fresh = repo.read(() => repo.search.fileMatchCountsMany(EXPRESSIONS, { cached: false }));
      expect(fresh[0]).not.toBe(first[0]);
      expect(fresh).toEqual(first);
    } finally {
      repo.close();
    }
  });

  it('follows edits, additions and deletions committed by another connection, kept counts too', async () => {
    expect(fast('now')).toEqual(reference());
    expect(fast('now', true)).toEqual(reference());
    writeFileSync(join(root, 'src/m3.ts'), moduleText(99, 9));
    rmSync(join(root, 'src/m5.ts'));
    writeFileSync(join(root, 'src/new.ts'), moduleText(7, 5));
    await writer.index();
    const ref = reference();
    expect(ref.flat().some((r) => (r as { path: string }).path === 'src/new.ts')).toBe(true);
    expect(ref.flat().some((r) => (r as { path: string }).path === 'src/m5.ts')).toBe(false);
    // a map or counts kept from before the pass would count src/m5.ts and miss src/new.ts
    expect(fast('now')).toEqual(ref);
    expect(fast('now', true)).toEqual(ref);
  });

  it('ranks a long query the same on the reference path, the build and the map', async () => {
    const text = ['Type error in the config watch when a node modules subscriber retries the request', '', moduleText(5, 3), 'The stream token cache renders twice after the parse error; the module watch restarts.'].join('\n');
    const engine = await createEngine({ root, db, env: isolatedEnv(t.dir), config: { ...lexical, search: { ranking: { byKind: { long: { fileScore: 0.7 } } } } } as ConfigInput });
    try {
      const runs = [];
      for (let i = 0; i < 3; i++) runs.push((await engine.search(text, { limit: 10, explain: true, rerank: false })).results.map((r) => [r.path, r.startLine, r.score, r.why]));
      expect(runs[0]!.length).toBeGreaterThan(3);
      expect(JSON.stringify(runs[0])).toContain('file as a document');
      expect(runs[1]).toEqual(runs[0]);
      expect(runs[2]).toEqual(runs[0]);
    } finally {
      engine.close();
    }
  });
});
